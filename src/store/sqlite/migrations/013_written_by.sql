-- jobledger ledger, schema 13: the database role that wrote a person's row.
--
-- A ledger on PostgreSQL records, on every answer, owner assignment, request,
-- withdrawal and saved view, the database role that wrote it (set by the server,
-- whatever the client sent), beside the name the person gave. A file has no roles: its
-- own writes leave written_by NULL. The column is here so that a ledger copied from a
-- server to a file keeps who wrote each row, and so that both engines have the same
-- tables and columns, in the same order.
ALTER TABLE answers ADD COLUMN written_by TEXT;
ALTER TABLE decision_answers ADD COLUMN written_by TEXT;
ALTER TABLE owner_assignments ADD COLUMN written_by TEXT;
ALTER TABLE outbox ADD COLUMN written_by TEXT;
ALTER TABLE request_withdrawals ADD COLUMN written_by TEXT;
ALTER TABLE saved_views ADD COLUMN written_by TEXT;
