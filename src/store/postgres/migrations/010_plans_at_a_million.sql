-- jobledger ledger on PostgreSQL, schema 10: three searches that read a whole index
-- at a million jobs read a range of one instead. Only plans change: no row, no result.
-- Measured on a ledger of 1,070,000 jobs (1,005,536 callbacks, 64,212 held), each
-- search's last key to its first rows in the console, fastest of seven.

-- Held under `outcome:failure` (no held callback has failed) read every held callback
-- from the table to test its outcome: 55 ms. Keyed by disposition and outcome, the
-- held failures are one range, in ledger order (2.0 ms). The file keeps the same
-- index, which also serves a review list sorted by outcome.
CREATE INDEX callbacks_review_by_outcome ON callbacks (disposition, outcome, seq)
    WHERE (disposition = 'hold' OR disposition = 'quarantine');

-- All callbacks under `gap>1h` walked callbacks_gap_in_order whole, all 1,005,536
-- entries, to find none: 33 ms. A gap range read from an index keyed by the gap holds
-- only the callbacks in it, to be sorted (2.1 ms). Only a late callback (a gap above
-- zero) is kept, as the file's index of the same name keeps them: an early callback is
-- asked for by `gap<`, and an index of those would be most of the table.
CREATE INDEX callbacks_late_by_gap ON callbacks (
    coalesce(ledger_gap_seconds(arrived_at, timeout_at), -1e15), seq)
    WHERE coalesce(ledger_gap_seconds(arrived_at, timeout_at), -1e15) > 0;

-- The callbacks waiting for a person in ledger order, with their gap beside them: Held
-- under `by:staff gap>5m` walked callbacks_gap_in_order, every callback's entry, for
-- the 64,212 held ones (29 ms). Here a page walks only the held and quarantined and
-- tests each gap where it lies. It does all that callbacks_review_in_order did, which
-- it replaces.
CREATE INDEX callbacks_review_gap_in_order ON callbacks (
    seq, disposition, coalesce(ledger_gap_seconds(arrived_at, timeout_at), -1e15))
    WHERE (disposition = 'hold' OR disposition = 'quarantine');
DROP INDEX callbacks_review_in_order;

-- The planner reads an expression's statistics from an index of it, gathered when the
-- table is analyzed: asked now, not when the server next gets to it.
ANALYZE callbacks;
