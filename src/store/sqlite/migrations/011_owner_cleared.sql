-- jobledger ledger, schema 11: an owner can be cleared.
--
-- An assignment with no owner (NULL) clears the job's owner: the latest assignment
-- still stands, and a cleared job reads as unowned everywhere the latest is read. The
-- table is rebuilt (SQLite cannot drop a NOT NULL), keeping every row and its id, so
-- the order of assignments is unchanged. A clearing carries no escalation time.
CREATE TABLE owner_assignments_011 (
    id           INTEGER PRIMARY KEY,
    job_id       TEXT NOT NULL REFERENCES jobs (job_id) DEFERRABLE INITIALLY DEFERRED,
    owner        TEXT,
    escalate_at  TEXT,
    set_by       TEXT NOT NULL,
    set_at       TEXT NOT NULL,
    CHECK (owner IS NOT NULL OR escalate_at IS NULL)
) STRICT;
INSERT INTO owner_assignments_011 (id, job_id, owner, escalate_at, set_by, set_at)
    SELECT id, job_id, owner, escalate_at, set_by, set_at FROM owner_assignments;
DROP TABLE owner_assignments;
ALTER TABLE owner_assignments_011 RENAME TO owner_assignments;
CREATE INDEX owner_assignments_by_job ON owner_assignments (job_id, id);
