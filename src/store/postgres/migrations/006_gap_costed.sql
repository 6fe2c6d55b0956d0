-- jobledger ledger on PostgreSQL, schema 6: ledger_gap_seconds costed as what it
-- takes.
--
-- The planner costs a PL/pgSQL function at 100 operators a call unless told; this one
-- takes about 30 µs, some thousand operators. Costed at 100, computing the gap of
-- every held callback looked as cheap as reading the index that keeps it
-- (callbacks_review_by_gap), and a review list's `gap>1h` was counted by calling the
-- function for each of them: 99 ms against 6.9 ms through the index, for 3,051 held
-- callbacks of a 50,000-job ledger (EXPLAIN ANALYZE, the server's default costs).
-- Only plans change: the function's result is the same.

ALTER FUNCTION ledger_gap_seconds(text, text) COST 1000;
