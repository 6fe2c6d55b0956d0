-- jobledger ledger, schema 17: the review lists' callbacks by outcome.
--
-- An outcome is one of a closed set, and most held callbacks report the same one:
-- a search for the other (`outcome:failure` in Held) read every held callback from
-- the list's own index to find that none had it (75 ms on a million-job ledger).
-- This partial index, like the review lists' sort indexes beside it, holds only held
-- and quarantined callbacks, so ingest pays for it on those alone; a search counts
-- the callbacks with the outcome through it, and reads them from it when they are
-- few.
CREATE INDEX callbacks_review_by_outcome ON callbacks (disposition, outcome, seq)
    WHERE (disposition = 'hold' OR disposition = 'quarantine');
