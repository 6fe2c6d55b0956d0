-- jobledger ledger on PostgreSQL, schema 6: the review lists read as the planner can
-- best read them. Only plans change: no row, no result.
--
-- ledger_gap_seconds costed as what it takes. The planner costs a PL/pgSQL function
-- at 100 operators a call unless told; this one takes about 30 µs, some thousand
-- operators. Costed at 100, computing the gap of every held callback looked as cheap
-- as reading the index that keeps it (callbacks_review_by_gap), and a review list's
-- `gap>1h` was counted by calling the function for each of them: 99 ms against 6.9 ms
-- through the index, for 3,051 held callbacks of a 50,000-job ledger (EXPLAIN
-- ANALYZE, the server's default costs).

ALTER FUNCTION ledger_gap_seconds(text, text) COST 1000;

-- The callbacks waiting for a person in ledger order, keyed by their sequence number
-- first. callbacks_review_list keys them by disposition first, and the planner,
-- knowing only that disposition's order is not the table's, costs each row it gives
-- as a random read: reading the whole table in order and skipping all but the held
-- looked cheaper. A page of Held under a term few held callbacks meet (`outcome:failure`
-- meets none) read all 46,960 callbacks to find no row: 25 ms, against 3.2 ms for the
-- 3,051 held through this index. The disposition is in it so that a quarantined row
-- is passed over without reading the table.
CREATE INDEX callbacks_review_in_order ON callbacks (seq, disposition)
    WHERE (disposition = 'hold' OR disposition = 'quarantine');
