-- jobledger ledger, schema 1. Shipped migrations are never edited; add a new file.
-- Times are UTC text of one fixed width (2026-11-27T13:02:01.000Z), so they sort as text.
-- Foreign keys are checked at commit (deferred): a batch is one transaction anyway.
-- Value checks are written as OR chains, not IN lists: SQLite builds a temporary
-- b-tree for an IN list on every row written, which made ingest several times slower.

-- Every non-blank input line, exactly as it arrived, identified by its SHA-256.
CREATE TABLE input_lines (
    seq          INTEGER PRIMARY KEY,
    line_sha256  BLOB    NOT NULL UNIQUE CHECK (length(line_sha256) = 32),
    raw          BLOB    NOT NULL,
    event        TEXT,
    status       TEXT    NOT NULL CHECK (status = 'applied' OR status = 'rejected' OR status = 'callback'),
    reason       TEXT,
    ingested_at  TEXT    NOT NULL
) STRICT;
CREATE INDEX input_lines_rejected ON input_lines (seq) WHERE status = 'rejected';

CREATE TABLE jobs (
    job_id             TEXT    PRIMARY KEY,
    state              TEXT    NOT NULL CHECK (state = 'accepted' OR state = 'running' OR state = 'timed_out' OR state = 'succeeded' OR state = 'completed_late' OR state = 'failed' OR state = 'expired' OR state = 'cancelled'),
    accepted_at        TEXT    NOT NULL,
    aged_at            TEXT    NOT NULL,  -- accepted_at + expected_age_s
    timeout_s          INTEGER,
    expected_age_s     INTEGER NOT NULL,
    attempt_budget     INTEGER NOT NULL,
    latest_attempt     INTEGER NOT NULL,
    input_digest       TEXT,
    model_digest       TEXT,
    policy_revision    TEXT,
    result_ref         TEXT,
    failure_cause      TEXT,
    failure_permanent  INTEGER CHECK (failure_permanent = 0 OR failure_permanent = 1),
    state_changed_at   TEXT    NOT NULL,
    accepted_line      INTEGER NOT NULL REFERENCES input_lines (seq) DEFERRABLE INITIALLY DEFERRED
) STRICT;
CREATE INDEX jobs_by_state ON jobs (state, accepted_at);
CREATE INDEX jobs_open_by_age ON jobs (aged_at)
    WHERE (state = 'accepted' OR state = 'running' OR state = 'timed_out');

CREATE TABLE attempts (
    job_id        TEXT    NOT NULL REFERENCES jobs (job_id) DEFERRABLE INITIALLY DEFERRED,
    attempt       INTEGER NOT NULL CHECK (attempt >= 1),
    created_by    TEXT    NOT NULL,
    started_at    TEXT    NOT NULL,
    timeout_at    TEXT,
    state         TEXT    NOT NULL CHECK (state = 'running' OR state = 'timed_out' OR state = 'succeeded' OR state = 'failed'),
    timed_out_at  TEXT,
    PRIMARY KEY (job_id, attempt)
) STRICT, WITHOUT ROWID;

-- Every transition asked of a job, taken or not: a late or racing report is kept here
-- beside the state it did not overwrite.
CREATE TABLE job_history (
    id            INTEGER PRIMARY KEY,
    job_id        TEXT    NOT NULL REFERENCES jobs (job_id) DEFERRABLE INITIALLY DEFERRED,
    at            TEXT    NOT NULL,
    from_state    TEXT,
    to_state      TEXT    NOT NULL,
    applied       INTEGER NOT NULL CHECK (applied = 0 OR applied = 1),
    cause         TEXT    NOT NULL,
    line_seq      INTEGER REFERENCES input_lines (seq) DEFERRABLE INITIALLY DEFERRED,
    callback_seq  INTEGER REFERENCES callbacks (seq) DEFERRABLE INITIALLY DEFERRED
) STRICT;
CREATE INDEX job_history_by_job ON job_history (job_id, id);

CREATE TABLE callbacks (
    seq                  INTEGER PRIMARY KEY,
    line_seq             INTEGER NOT NULL REFERENCES input_lines (seq) DEFERRABLE INITIALLY DEFERRED,
    delivery_id          TEXT,
    job_id               TEXT,     -- as reported: may name no job
    attempt              INTEGER,
    outcome              TEXT    CHECK (outcome = 'success' OR outcome = 'failure'),
    arrived_at           TEXT,
    timeout_at           TEXT,     -- of the attempt reported on, when it had one
    disposition          TEXT    NOT NULL CHECK (disposition = 'apply' OR disposition = 'hold' OR disposition = 'record' OR disposition = 'quarantine'),
    reason               TEXT    NOT NULL,
    detail               TEXT,
    job_state_before     TEXT,
    replacement_attempt  INTEGER,  -- the latest attempt, when later than the one reported
    first_report_seq     INTEGER REFERENCES callbacks (seq) DEFERRABLE INITIALLY DEFERRED,
    linked_from_seq      INTEGER REFERENCES callbacks (seq) DEFERRABLE INITIALLY DEFERRED,
    judged_at            TEXT    NOT NULL
) STRICT;
CREATE INDEX callbacks_by_claim ON callbacks (job_id, attempt, outcome);
CREATE INDEX callbacks_by_disposition ON callbacks (disposition, seq);

-- Reviewers' answers: append-only; the latest per callback is the standing one.
CREATE TABLE answers (
    id              INTEGER PRIMARY KEY,
    callback_seq    INTEGER NOT NULL REFERENCES callbacks (seq) DEFERRABLE INITIALLY DEFERRED,
    verdict         TEXT    NOT NULL,
    note            TEXT    NOT NULL DEFAULT '',
    reviewer        TEXT    NOT NULL,
    answered_at     TEXT    NOT NULL,
    linked_job_id   TEXT,
    previous_answer INTEGER REFERENCES answers (id) DEFERRABLE INITIALLY DEFERRED
) STRICT;
CREATE INDEX answers_by_callback ON answers (callback_seq, id);

CREATE TABLE owner_assignments (
    id           INTEGER PRIMARY KEY,
    job_id       TEXT NOT NULL REFERENCES jobs (job_id) DEFERRABLE INITIALLY DEFERRED,
    owner        TEXT NOT NULL,
    escalate_at  TEXT,
    set_by       TEXT NOT NULL,
    set_at       TEXT NOT NULL
) STRICT;
CREATE INDEX owner_assignments_by_job ON owner_assignments (job_id, id);

CREATE TABLE outputs (
    id               INTEGER PRIMARY KEY,
    job_id           TEXT    NOT NULL REFERENCES jobs (job_id) DEFERRABLE INITIALLY DEFERRED,
    ref              TEXT    NOT NULL,
    stored_at        TEXT    NOT NULL,
    retention_until  TEXT,
    line_seq         INTEGER NOT NULL REFERENCES input_lines (seq) DEFERRABLE INITIALLY DEFERRED
) STRICT;
CREATE INDEX outputs_by_job ON outputs (job_id, id);

CREATE TABLE output_checks (
    id             INTEGER PRIMARY KEY,
    job_id         TEXT    NOT NULL REFERENCES jobs (job_id) DEFERRABLE INITIALLY DEFERRED,
    checked_at     TEXT    NOT NULL,
    object_exists  INTEGER NOT NULL CHECK (object_exists = 0 OR object_exists = 1),
    line_seq       INTEGER NOT NULL REFERENCES input_lines (seq) DEFERRABLE INITIALLY DEFERRED
) STRICT;
CREATE INDEX output_checks_by_job ON output_checks (job_id, id);

CREATE TABLE notifications (
    id        INTEGER PRIMARY KEY,
    job_id    TEXT    NOT NULL REFERENCES jobs (job_id) DEFERRABLE INITIALLY DEFERRED,
    kind      TEXT    NOT NULL,
    sent_at   TEXT    NOT NULL,
    line_seq  INTEGER NOT NULL REFERENCES input_lines (seq) DEFERRABLE INITIALLY DEFERRED
) STRICT;
CREATE INDEX notifications_by_job ON notifications (job_id);

-- Downstream actions; a repeated decision_id is kept, marked suppressed, never acted on.
CREATE TABLE decisions (
    id           INTEGER PRIMARY KEY,
    decision_id  TEXT    NOT NULL,
    job_id       TEXT    NOT NULL REFERENCES jobs (job_id) DEFERRABLE INITIALLY DEFERRED,
    action       TEXT    NOT NULL,
    at           TEXT    NOT NULL,
    suppressed   INTEGER NOT NULL CHECK (suppressed = 0 OR suppressed = 1),
    line_seq     INTEGER NOT NULL REFERENCES input_lines (seq) DEFERRABLE INITIALLY DEFERRED
) STRICT;
CREATE UNIQUE INDEX decisions_acted_once ON decisions (decision_id) WHERE suppressed = 0;
CREATE INDEX decisions_by_job ON decisions (job_id);

-- Requests to the outside, only ever made by a person.
CREATE TABLE outbox (
    id               INTEGER PRIMARY KEY,
    job_id           TEXT    NOT NULL REFERENCES jobs (job_id) DEFERRABLE INITIALLY DEFERRED,
    request          TEXT    NOT NULL CHECK (request = 'retry' OR request = 'cancel'),
    attempt          INTEGER,
    input_digest     TEXT,
    model_digest     TEXT,
    policy_revision  TEXT,
    requested_by     TEXT    NOT NULL,
    requested_at     TEXT    NOT NULL,
    status           TEXT    NOT NULL DEFAULT 'pending'
) STRICT;
CREATE INDEX outbox_by_job ON outbox (job_id);

-- Evidence is never rewritten.
CREATE TRIGGER input_lines_keep_raw BEFORE UPDATE OF raw, line_sha256 ON input_lines
BEGIN SELECT RAISE(ABORT, 'input lines are evidence and never change'); END;
CREATE TRIGGER input_lines_no_delete BEFORE DELETE ON input_lines
BEGIN SELECT RAISE(ABORT, 'input lines are evidence and are never deleted'); END;
CREATE TRIGGER answers_append_only_update BEFORE UPDATE ON answers
BEGIN SELECT RAISE(ABORT, 'answers are append-only'); END;
CREATE TRIGGER answers_append_only_delete BEFORE DELETE ON answers
BEGIN SELECT RAISE(ABORT, 'answers are append-only'); END;
CREATE TRIGGER job_history_append_only_update BEFORE UPDATE ON job_history
BEGIN SELECT RAISE(ABORT, 'job history is append-only'); END;
CREATE TRIGGER job_history_append_only_delete BEFORE DELETE ON job_history
BEGIN SELECT RAISE(ABORT, 'job history is append-only'); END;
CREATE TRIGGER callbacks_keep_disposition BEFORE UPDATE ON callbacks
BEGIN SELECT RAISE(ABORT, 'a callback''s disposition stands once given'); END;
