-- jobledger ledger, schema 5: line identities kept in the order a stream goes.
--
-- A line is still identified by its SHA-256, and a line already kept is still skipped.
-- But an index of SHA-256 values alone is in random order: every batch of an ingest
-- inserted into every page of it, so each commit rewrote the whole index (twice, WAL
-- and checkpoint) and a million-line ingest spent a quarter of its time there. The
-- identity is now (time_key, line_sha256), where time_key is the 16 bytes after the
-- line's first "at":" (its event time to the minute, for a well-formed line). It is a
-- function of the line's bytes alone, so two equal lines still meet in the index; a
-- stream goes forward in time, so new identities are written near the end of the index.
--
-- The expression is part of the schema and is never changed: it is how a line already
-- kept is found again. SQLite cannot drop a UNIQUE constraint, so the table is rebuilt
-- (jobledger runs this with foreign keys off; every seq is copied, so nothing that
-- refers to a line is left without it). The triggers and the index go with the old
-- table and are made again as they were.
CREATE TABLE input_lines_v5 (
    seq          INTEGER PRIMARY KEY,
    line_sha256  BLOB    NOT NULL CHECK (length(line_sha256) = 32),
    raw          BLOB    NOT NULL,
    event        TEXT,
    status       TEXT    NOT NULL CHECK (status = 'applied' OR status = 'rejected' OR status = 'callback'),
    reason       TEXT,
    ingested_at  TEXT    NOT NULL,
    time_key     BLOB    GENERATED ALWAYS AS
                     (substr(raw, instr(raw, X'226174223A22') + 6, 16)) VIRTUAL,
    UNIQUE (time_key, line_sha256)
) STRICT;
INSERT INTO input_lines_v5 (seq, line_sha256, raw, event, status, reason, ingested_at)
    SELECT seq, line_sha256, raw, event, status, reason, ingested_at FROM input_lines ORDER BY seq;
DROP TABLE input_lines;
ALTER TABLE input_lines_v5 RENAME TO input_lines;

CREATE INDEX input_lines_rejected ON input_lines (seq) WHERE status = 'rejected';
CREATE TRIGGER input_lines_keep_raw BEFORE UPDATE OF raw, line_sha256 ON input_lines
BEGIN SELECT RAISE(ABORT, 'input lines are evidence and never change'); END;
CREATE TRIGGER input_lines_no_delete BEFORE DELETE ON input_lines
BEGIN SELECT RAISE(ABORT, 'input lines are evidence and are never deleted'); END;
