-- jobledger ledger on PostgreSQL, schema 8: each callback's gap kept in an index of
-- every callback in ledger order, so that a search compares gaps without computing
-- them. Only plans change: no row, no result.
--
-- A gap is ledger_gap_seconds, a PL/pgSQL function (some 10 to 30 µs a call). Only the
-- review lists kept it in an index (callbacks_review_by_gap); All callbacks computed
-- it for each row a search read: on a 50,000-job ledger, `gap>1h` read its first page
-- of 32 in ledger order by calling it for some 300 callbacks (27 ms) and counted by
-- calling it for all 46,960 (0.4 s). In this index, keyed by the sequence number as
-- the lists are ordered, with the gap as the review lists' index keeps it (NULL made
-- -1e15, below every gap), a page walks the index in order and tests each entry's gap
-- and disposition where it lies; the table is read only for the rows that match.

CREATE INDEX callbacks_gap_in_order ON callbacks (
    seq, disposition, coalesce(ledger_gap_seconds(arrived_at, timeout_at), -1e15));
