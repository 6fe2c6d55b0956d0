-- jobledger ledger, schema 6: who started a callback's replacement attempt, and when,
-- kept on the callback itself.
--
-- Listing 64,000 held callbacks looked up each one's replacement attempt in the
-- attempts table (a million rows): a third of the time of `callbacks --json
-- --disposition hold`. A replacement attempt is always a later one than the attempt
-- reported on, and nothing changes its creator or start once it exists, so the two
-- values are written with the callback when it is judged. The review lists' index
-- holds them too. The attempt's state does change; the console still reads that live.

ALTER TABLE callbacks ADD COLUMN replacement_created_by TEXT;
ALTER TABLE callbacks ADD COLUMN replacement_started_at TEXT;

-- The callbacks already kept get theirs. Only these two new columns are written: the
-- trigger that keeps a disposition standing is lifted for this statement alone.
DROP TRIGGER callbacks_keep_disposition;
UPDATE callbacks
   SET replacement_created_by = (SELECT a.created_by FROM attempts a
                                  WHERE a.job_id = callbacks.job_id
                                    AND a.attempt = callbacks.replacement_attempt),
       replacement_started_at = (SELECT a.started_at FROM attempts a
                                  WHERE a.job_id = callbacks.job_id
                                    AND a.attempt = callbacks.replacement_attempt)
 WHERE replacement_attempt IS NOT NULL;
CREATE TRIGGER callbacks_keep_disposition BEFORE UPDATE ON callbacks
BEGIN SELECT RAISE(ABORT, 'a callback''s disposition stands once given'); END;

DROP INDEX callbacks_review_list;
CREATE INDEX callbacks_review_list ON callbacks (
    disposition, seq, line_seq, delivery_id, job_id, attempt, outcome, arrived_at,
    timeout_at, reason, detail, first_report_seq, linked_from_seq, judged_at,
    replacement_attempt, replacement_created_by, replacement_started_at
) WHERE (disposition = 'hold' OR disposition = 'quarantine');
