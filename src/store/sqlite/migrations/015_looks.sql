-- jobledger ledger, schema 15: when each reviewer last looked at each list.
--
-- A row a look: the list (held, quarantined, aged), when, and how far the ledger
-- had come then (the newest callback and answer). What is newer, or became overdue
-- since, is marked as new for that reviewer when they come back, on any machine.
-- Appended: the latest row of a reviewer and list stands.
CREATE TABLE looks (
    id            INTEGER PRIMARY KEY,
    reviewer      TEXT NOT NULL CHECK (length(reviewer) > 0),
    list          TEXT NOT NULL CHECK (list IN ('held', 'quarantined', 'aged')),
    looked_at     TEXT NOT NULL,
    callback_seq  INTEGER NOT NULL,
    answer_id     INTEGER NOT NULL,
    written_by    TEXT
);
CREATE INDEX looks_by_reviewer ON looks (reviewer, list, id);
CREATE TRIGGER looks_append_only_update BEFORE UPDATE ON looks
BEGIN SELECT RAISE(ABORT, 'looks are append-only'); END;
CREATE TRIGGER looks_append_only_delete BEFORE DELETE ON looks
BEGIN SELECT RAISE(ABORT, 'looks are append-only'); END;
