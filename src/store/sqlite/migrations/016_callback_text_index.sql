-- jobledger ledger, schema 16: the callbacks' searchable text in a trigram index.
--
-- A search for text inside a job id, a delivery id, a reason or who made the
-- replacement (`job:`, `delivery:`, `reason:`, `by:` and bare words) read every
-- callback and lowered every value. This index holds each callback's four texts,
-- lowered by the query language's own rules (`jobledger_lowered`, the function
-- every ledger connection has), as their trigrams: a search asks it for the
-- callbacks holding every trigram of what was typed, and checks only those.
--
-- Contentless (`content=''`): the text stays in `callbacks`, the index keeps only
-- which callback has which trigram in which column (`detail=column`). Callbacks are
-- never updated or deleted, so each is indexed once, by the trigger, as it is kept.
-- The rowid is the callback's `seq`.
CREATE VIRTUAL TABLE callback_text USING fts5(
    job, delivery, reason, by,
    content = '',
    detail = column,
    tokenize = 'trigram case_sensitive 1'
);
INSERT INTO callback_text (rowid, job, delivery, reason, by)
    SELECT seq, jobledger_lowered(job_id), jobledger_lowered(delivery_id),
           jobledger_lowered(reason), jobledger_lowered(replacement_created_by)
    FROM callbacks;
CREATE TRIGGER callback_text_kept AFTER INSERT ON callbacks
BEGIN
    INSERT INTO callback_text (rowid, job, delivery, reason, by)
    VALUES (new.seq, jobledger_lowered(new.job_id), jobledger_lowered(new.delivery_id),
            jobledger_lowered(new.reason), jobledger_lowered(new.replacement_created_by));
END;
