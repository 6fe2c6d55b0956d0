-- jobledger ledger, schema 9: where a decision came from, every submission of a job
-- id, and people's answers on jobs decided under more than one decision id.

-- The region or path that produced a decision (a retry in another region decides again).
-- A line that gave one before it was read is read again for it (a text value only).
ALTER TABLE decisions ADD COLUMN route TEXT;
UPDATE decisions
   SET route = (SELECT json_extract(CAST(l.raw AS TEXT), '$.route') FROM input_lines l
                 WHERE l.seq = decisions.line_seq AND json_valid(CAST(l.raw AS TEXT))
                   AND json_type(CAST(l.raw AS TEXT), '$.route') = 'text')
 WHERE (SELECT instr(l.raw, CAST('"route"' AS BLOB)) FROM input_lines l
         WHERE l.seq = decisions.line_seq) > 0;

-- Reconciliation lists the jobs with decisions acted on under more than one decision
-- id. This index holds exactly the decisions acted on, in job order, so that list is
-- one index-only read of them, never a lookup per job.
CREATE INDEX decisions_acted_by_job ON decisions (job_id, decision_id) WHERE suppressed = 0;

-- A job_accepted for a job already in the ledger: its line stays rejected (the first
-- identity stands), and the identity it came with is kept here, for the job's
-- timeline and, when it differs from the first (compared where both give a field),
-- for reconciliation's `conflicting_submissions`.
-- Repeats are rare, so this is one b-tree in job order and nothing more (the
-- smallest ledger is a few pages; a test fills a small disk with it).
CREATE TABLE repeated_submissions (
    job_id           TEXT    NOT NULL REFERENCES jobs (job_id) DEFERRABLE INITIALLY DEFERRED,
    line_seq         INTEGER NOT NULL REFERENCES input_lines (seq) DEFERRABLE INITIALLY DEFERRED,
    submitted_at     TEXT    NOT NULL,
    input_digest     TEXT,
    model_digest     TEXT,
    policy_revision  TEXT,
    conflicting      INTEGER NOT NULL CHECK (conflicting = 0 OR conflicting = 1),
    PRIMARY KEY (job_id, line_seq)
) STRICT, WITHOUT ROWID;
-- For people reading the file with their own tools.
CREATE VIEW conflicting_submissions AS
    SELECT line_seq, job_id, submitted_at, input_digest, model_digest, policy_revision
      FROM repeated_submissions WHERE conflicting = 1;

-- The repeats a ledger already holds are read back from their raw lines (valid JSON
-- only), found by the reasons they were rejected with.
INSERT INTO repeated_submissions
    (line_seq, job_id, submitted_at, input_digest, model_digest, policy_revision, conflicting)
SELECT r.seq, r.job_id, r.submitted_at, r.input_digest, r.model_digest, r.policy_revision,
       (r.input_digest IS NOT NULL AND j.input_digest IS NOT NULL AND r.input_digest <> j.input_digest)
    OR (r.model_digest IS NOT NULL AND j.model_digest IS NOT NULL AND r.model_digest <> j.model_digest)
    OR (r.policy_revision IS NOT NULL AND j.policy_revision IS NOT NULL
        AND r.policy_revision <> j.policy_revision)
  FROM (SELECT seq,
               json_extract(CAST(raw AS TEXT), '$.job_id') AS job_id,
               strftime('%Y-%m-%dT%H:%M:%fZ', json_extract(CAST(raw AS TEXT), '$.at')) AS submitted_at,
               json_extract(CAST(raw AS TEXT), '$.input_digest') AS input_digest,
               json_extract(CAST(raw AS TEXT), '$.model_digest') AS model_digest,
               json_extract(CAST(raw AS TEXT), '$.policy_revision') AS policy_revision
          FROM input_lines
         WHERE status = 'rejected' AND event = 'job_accepted'
           AND (reason LIKE '%a repeated submission keeps its first identity'
                OR reason LIKE 'conflicting_submission:%')
           AND json_valid(CAST(raw AS TEXT))) r
  JOIN jobs j ON j.job_id = r.job_id
 WHERE r.submitted_at IS NOT NULL;

-- A person's answer on a job decided under more than one decision id: appended, the
-- latest standing (`needs_remote_check` leaves the question open). Answers are a
-- person's work, so few: they are read without an index of their own.
CREATE TABLE decision_answers (
    id               INTEGER PRIMARY KEY,
    job_id           TEXT    NOT NULL REFERENCES jobs (job_id) DEFERRABLE INITIALLY DEFERRED,
    verdict          TEXT    NOT NULL CHECK (verdict = 'first_stands' OR verdict = 'second_stands'
                                 OR verdict = 'both_intended' OR verdict = 'needs_remote_check'),
    note             TEXT    NOT NULL DEFAULT '',
    reviewer         TEXT    NOT NULL,
    answered_at      TEXT    NOT NULL,
    previous_answer  INTEGER REFERENCES decision_answers (id) DEFERRABLE INITIALLY DEFERRED
) STRICT;
CREATE TRIGGER decision_answers_append_only_update BEFORE UPDATE ON decision_answers
BEGIN SELECT RAISE(ABORT, 'answers are append-only'); END;
CREATE TRIGGER decision_answers_append_only_delete BEFORE DELETE ON decision_answers
BEGIN SELECT RAISE(ABORT, 'answers are append-only'); END;
