-- jobledger ledger, schema 18: the callbacks that came after their timeout, by gap.
--
-- A gap comparison in the list of every callback (`gap>1h` in All callbacks) worked
-- out the gap of each of them to find the few, or none, that keep it: 640 ms on a
-- million-job ledger. This partial index holds the gap of the callbacks that came
-- after their attempt's timeout (about one in six), the expression the store
-- computes, letter for letter: a comparison that keeps only late callbacks
-- (`gap>5m`, `gap>=1s`) is a range of it, counted first and read from it when few
-- callbacks are in it.
CREATE INDEX callbacks_late_by_gap ON callbacks (
    round((julianday(arrived_at) - julianday(timeout_at)) * 86400.0, 3),
    seq
) WHERE round((julianday(arrived_at) - julianday(timeout_at)) * 86400.0, 3) > 0;
