-- jobledger ledger, schema 12: a saved view can be deleted.
--
-- Saved views stay append-only: a deletion is a row of its own under the view's name,
-- saying who deleted it and when (in saved_by and saved_at) and keeping the tab and
-- query it took away. The latest row of a name is the view, unless it is a deletion:
-- then the name has no view, until it is saved again.
ALTER TABLE saved_views ADD COLUMN deleted INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1));
