-- jobledger ledger, schema 14: claims.
--
-- A reviewer working a held or quarantined case says so ("on it"), so that a
-- colleague does not work the same case without knowing. A claim is a row of its own,
-- appended: `claim` rows lapse at `until`; a `release` row (no `until`) ends the claim
-- before that. The latest row of a callback stands, and a claim also ends when the
-- case is answered after it was made (worked out by the reader, not written here).
CREATE TABLE claims (
    id           INTEGER PRIMARY KEY,
    callback_seq INTEGER NOT NULL REFERENCES callbacks (seq),
    action       TEXT NOT NULL CHECK (action IN ('claim', 'release')),
    reviewer     TEXT NOT NULL CHECK (length(reviewer) > 0),
    at           TEXT NOT NULL,
    until        TEXT,
    written_by   TEXT,
    CHECK ((action = 'claim') = (until IS NOT NULL))
);
CREATE INDEX claims_by_callback ON claims (callback_seq, id);
CREATE TRIGGER claims_append_only_update BEFORE UPDATE ON claims
BEGIN SELECT RAISE(ABORT, 'claims are append-only'); END;
CREATE TRIGGER claims_append_only_delete BEFORE DELETE ON claims
BEGIN SELECT RAISE(ABORT, 'claims are append-only'); END;
