-- jobledger ledger, schema 4: the review lists read from one place.
-- Held and quarantined callbacks are a few in a hundred, spread over the whole
-- callbacks table: listing them read nearly every page of it (64,000 held rows of a
-- million touched 60,000 pages). This partial index holds every column the lists
-- show, in list order, so a list reads only these rows, side by side.
CREATE INDEX callbacks_review_list ON callbacks (
    disposition, seq, line_seq, delivery_id, job_id, attempt, outcome, arrived_at,
    timeout_at, reason, detail, first_report_seq, linked_from_seq, judged_at,
    replacement_attempt
) WHERE (disposition = 'hold' OR disposition = 'quarantine');
