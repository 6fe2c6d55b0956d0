-- The three roles of a team's jobledger ledger on PostgreSQL, for the ledger in the
-- schema :"schema" (`jobledger roles` prints this with the schema filled in;
-- `jobledger roles --apply` runs it as the role it connects as, which must be allowed
-- to create roles and to grant on the schema: its owner, or a superuser).
--
-- The roles are groups (NOLOGIN): grant one to each person's or service's own login
-- role, e.g. `GRANT jobledger_reviewer TO ana;`. Every row a person writes records the
-- role that wrote it (written_by, set by the server), so a login role per person says
-- who did what beside the reviewer name they type.
--
--   jobledger_reader    reads everything; writes nothing (a console says READ-ONLY).
--   jobledger_reviewer  reads, and writes what a person writes: answers, owners,
--                       retry and cancel requests and their withdrawals, saved views.
--                       It cannot ingest, and cannot change or delete any answer
--                       (no UPDATE or DELETE is granted, and triggers refuse them).
--   jobledger_ingester  reads, and writes what ingest writes: input lines, jobs,
--                       attempts and their history, callbacks (and their searchable
--                       text), outputs, checks,
--                       notifications, decisions, repeated submissions, the kept
--                       counts and notes. It cannot answer.
--
-- Running it again changes nothing: a role that exists is kept, grants are repeated.

DO $roles$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'jobledger_reader') THEN
        CREATE ROLE jobledger_reader NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'jobledger_reviewer') THEN
        CREATE ROLE jobledger_reviewer NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'jobledger_ingester') THEN
        CREATE ROLE jobledger_ingester NOLOGIN;
    END IF;
END
$roles$;

-- Reading: every table and view of the ledger.
GRANT USAGE ON SCHEMA :"schema" TO jobledger_reader, jobledger_reviewer, jobledger_ingester;
GRANT SELECT ON ALL TABLES IN SCHEMA :"schema"
    TO jobledger_reader, jobledger_reviewer, jobledger_ingester;

-- Every write transaction moves the commit counter the consoles watch.
GRANT UPDATE ON :"schema".ledger_commits TO jobledger_reviewer, jobledger_ingester;

-- A person's writes.
GRANT INSERT ON :"schema".answers, :"schema".decision_answers, :"schema".owner_assignments,
    :"schema".outbox, :"schema".request_withdrawals, :"schema".saved_views, :"schema".claims,
    :"schema".looks
    TO jobledger_reviewer;

-- A person's write locks the row it is about (the callback answered, the request
-- withdrawn) until it commits, so that a second person writing on the same row waits,
-- then reads the first one's row and is told (`SELECT ... FOR NO KEY UPDATE`, which the
-- server allows only to a role that may update some column of the table). Nothing
-- changes through these grants: every update of a callback is refused by its trigger,
-- and an update of an outbox row keeps its written_by as it was (its own trigger).
GRANT UPDATE (seq) ON :"schema".callbacks TO jobledger_reviewer;
GRANT UPDATE (written_by) ON :"schema".outbox TO jobledger_reviewer;

-- Ingest's writes.
GRANT INSERT ON :"schema".input_lines, :"schema".jobs, :"schema".attempts,
    :"schema".job_history, :"schema".callbacks, :"schema".callback_text,
    :"schema".outputs, :"schema".output_checks,
    :"schema".notifications, :"schema".decisions, :"schema".repeated_submissions,
    :"schema".ledger_counts, :"schema".ledger_notes, :"schema".reconcile_findings,
    :"schema".reconcile_counts, :"schema".reconcile_hours
    TO jobledger_ingester;
GRANT UPDATE ON :"schema".jobs, :"schema".attempts, :"schema".ledger_counts,
    :"schema".ledger_notes, :"schema".reconcile_counts, :"schema".reconcile_hours
    TO jobledger_ingester;
-- The reconciliation's kept rows follow the jobs they count: a finding that no longer
-- names a job, an hour's count back to nothing, is a row removed.
GRANT DELETE ON :"schema".reconcile_findings, :"schema".reconcile_hours TO jobledger_ingester;
-- A line's status and reason are set once it is judged; its bytes never change.
GRANT UPDATE (status, reason, event) ON :"schema".input_lines TO jobledger_ingester;
