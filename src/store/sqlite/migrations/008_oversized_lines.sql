-- jobledger ledger, schema 8: a line too large to keep whole is kept as its first bytes.
--
-- A line over the limit (ingest --max-line-bytes, 16 MiB by default) keeps its first
-- bytes in raw, its identity is the SHA-256 of the whole line (so ingesting the same
-- stream again still finds it), and whole_length holds the whole line's length. NULL
-- means raw is the whole line, as it is for every line kept before this version.
--
-- time_key (migration 005) is taken from raw, which for such a line is its first
-- bytes: a function of the line's bytes still, and the same bytes whenever the line is
-- read again. The column is added (no rebuild): existing rows keep NULL. The trigger
-- that keeps lines as they came is made again to keep this column too.
ALTER TABLE input_lines ADD COLUMN whole_length INTEGER
    CHECK (whole_length IS NULL OR whole_length > length(raw));

-- Such a line's time key comes from its first bytes, which may end before its "at":
-- read whole later (under a larger limit), it is found again by its SHA-256 here.
CREATE INDEX input_lines_oversized ON input_lines (line_sha256) WHERE whole_length IS NOT NULL;

DROP TRIGGER input_lines_keep_raw;
CREATE TRIGGER input_lines_keep_raw BEFORE UPDATE OF raw, line_sha256, whole_length ON input_lines
BEGIN SELECT RAISE(ABORT, 'input lines are evidence and never change'); END;
