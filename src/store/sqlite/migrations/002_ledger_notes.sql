-- jobledger ledger, schema 2: facts about the ledger itself (e.g. that `jobledger demo`
-- built it, so a later demo may replace it).
CREATE TABLE ledger_notes (
    key    TEXT PRIMARY KEY,
    value  TEXT NOT NULL
) STRICT;
