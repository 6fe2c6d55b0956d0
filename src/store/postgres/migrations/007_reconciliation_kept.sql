-- jobledger ledger on PostgreSQL, schema 7: what the reconciliation's glance shows,
-- kept as the ledger is written.
--
-- The console's first screen shows how many accepted jobs each finding names, the
-- first of them, and the recent hours' jobs by state. Finding them read every job
-- and every notification, output and decision once: seconds at a million jobs.
-- jobledger's writer keeps the jobs each finding names in the same transaction as the
-- rows that decide them, judging at commit, in one statement, every job the
-- transaction touched, so a re-run that adds no row changes nothing; the findings are
-- then counted over their own rows, and the recent hours over the jobs by acceptance
-- time: range reads. (Triggers kept them row by row at first: an ingest took half as
-- long again, each row judging its job anew in PL/pgSQL.)
--
-- Unlike a file, the findings are counted, not kept as counts: several writers at
-- once would each hold a count's row from their first finding to their commit, and
-- two of them taking two counts in opposite orders would deadlock.
--
-- A finding each job decides by its own row (no terminal record: its state) needs
-- nothing kept: the jobs by state are counted in `ledger_counts`, and an index lists
-- the open ones by id.

-- The jobs each of four findings names (the names of `Finding`; `Finding::holds`
-- decides each, as the walk over every job does):
-- missing_output: a success on record, and its latest output object not there (no
--   output stored, or the latest check at or after the latest store found it missing);
-- missing_notification: terminal, and never notified;
-- divergent_decisions: decided under more than one decision id (decisions acted on);
-- conflicting_submissions: submitted again with another identity.
CREATE TABLE reconcile_findings (
    finding  text COLLATE "C" NOT NULL CHECK (finding = 'missing_output'
                 OR finding = 'missing_notification' OR finding = 'divergent_decisions'
                 OR finding = 'conflicting_submissions'),
    job_id   text COLLATE "C" NOT NULL REFERENCES jobs (job_id) DEFERRABLE INITIALLY DEFERRED,
    PRIMARY KEY (finding, job_id)
);

-- Does the job's output object exist: its latest output is on record, and no check
-- made since it was stored found it missing (the latest such check decides).
CREATE FUNCTION reconcile_output_exists(job text) RETURNS boolean
LANGUAGE sql STABLE
AS $$
    SELECT EXISTS (SELECT 1 FROM outputs o WHERE o.job_id = job)
       AND coalesce((SELECT c.object_exists FROM output_checks c
            WHERE c.job_id = job AND c.checked_at >= (SELECT o.stored_at FROM outputs o
                  WHERE o.job_id = job ORDER BY o.id DESC LIMIT 1)
            ORDER BY c.id DESC LIMIT 1), 1) = 1
$$;

-- What the ledger holds already, judged once by the same rules.
INSERT INTO reconcile_findings (finding, job_id)
    SELECT 'missing_output', j.job_id FROM jobs j
     WHERE (j.state = 'succeeded' OR j.state = 'completed_late')
       AND NOT reconcile_output_exists(j.job_id);
INSERT INTO reconcile_findings (finding, job_id)
    SELECT 'missing_notification', j.job_id FROM jobs j
     WHERE NOT (j.state = 'accepted' OR j.state = 'running' OR j.state = 'timed_out')
       AND NOT EXISTS (SELECT 1 FROM notifications n WHERE n.job_id = j.job_id);
INSERT INTO reconcile_findings (finding, job_id)
    SELECT 'divergent_decisions', job_id FROM decisions
     WHERE suppressed = 0 AND job_id IN (SELECT job_id FROM jobs)
     GROUP BY job_id HAVING count(*) > 1;
INSERT INTO reconcile_findings (finding, job_id)
    SELECT DISTINCT 'conflicting_submissions', job_id FROM repeated_submissions
     WHERE conflicting = 1 AND job_id IN (SELECT job_id FROM jobs);

-- The jobs without a terminal record, by id: the first of them, whatever their number.
CREATE INDEX jobs_open_by_id ON jobs (job_id)
    WHERE (state = 'accepted' OR state = 'running' OR state = 'timed_out');

-- The jobs by acceptance time with their state: the latest hours' jobs by state are a
-- range read of this index alone.
CREATE INDEX jobs_by_acceptance ON jobs (accepted_at, state);
