-- jobledger ledger, schema 16: the callbacks' free text in a trigram index.
--
-- A search for text inside a job id, a delivery id or who made the replacement
-- (`job:`, `delivery:`, `by:` and bare words) read every callback and lowered every
-- value. This index holds those three texts of each callback, lowered by the query
-- language's own rules (`jobledger_lowered`, a function every ledger connection
-- has), as their trigrams: a search asks it for the callbacks holding every trigram
-- of what was typed, and checks only those. A reason is one of a closed set of
-- codes, found by name without an index of its own.
--
-- Contentless (`content=''`): the text stays in `callbacks`, the index keeps only
-- which callback has which trigram in which column (`detail=column`). Callbacks are
-- never updated or deleted, so each is indexed once: every write transaction, as it
-- commits, indexes the callbacks numbered past the last indexed, in one statement
-- (a trigger inserting a row at a time made FTS5 write a segment per callback: it
-- flushes its pending terms at every statement's savepoint). The rowid is the
-- callback's `seq`.
CREATE VIRTUAL TABLE callback_text USING fts5(
    job, delivery, by,
    content = '',
    detail = column,
    tokenize = 'trigram case_sensitive 1'
);
INSERT INTO callback_text (rowid, job, delivery, by)
    SELECT seq, jobledger_lowered(job_id), jobledger_lowered(delivery_id),
           jobledger_lowered(replacement_created_by)
    FROM callbacks;
