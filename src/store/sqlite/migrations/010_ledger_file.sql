-- jobledger ledger, schema 10: which file a write-ahead log was written for, and an
-- index of the suppressed decisions.
--
-- SQLite applies whatever -wal it finds beside a ledger, and nothing in the log names
-- the file it belongs to: a backup moved over a ledger whose ingest was killed, or a
-- log copied from another ledger, was read as this file's own and checkpointed into it.
-- `token` is drawn anew for every ledger and every backup copy; every write transaction
-- bumps `writes`, so every log holding a transaction holds this row too. A log whose
-- row carries another token than the file's own was written for another file.
CREATE TABLE ledger_file (
    id      INTEGER PRIMARY KEY CHECK (id = 1),
    token   BLOB NOT NULL CHECK (length(token) = 16),
    writes  INTEGER NOT NULL
) STRICT;

INSERT INTO ledger_file (id, token, writes) VALUES (1, randomblob(16), 0);

-- `summary` counts the decisions suppressed as repeats: read from the table, that count
-- walked every decision (77,468 at a million jobs, 47 ms); this index holds only the
-- suppressed ones, and the count is one read of it.
CREATE INDEX decisions_suppressed ON decisions (id) WHERE suppressed = 1;
