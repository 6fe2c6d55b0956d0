-- jobledger ledger on PostgreSQL, schema 7: what the reconciliation's glance shows,
-- kept as the ledger is written.
--
-- The console's first screen shows how many accepted jobs each finding names, the
-- first of them, and the recent hours' jobs by state. Finding them read every job
-- and every notification, output and decision once: seconds at a million jobs. The
-- triggers below keep the jobs each finding names in the same statement as the rows
-- that decide them, so every writer (ingest, a copy) keeps them alike and a re-run
-- that adds no row changes nothing; the findings are then counted over their own
-- rows, and the recent hours over the jobs by acceptance time: range reads.
--
-- Unlike a file, the findings are counted, not kept as counts: several writers at
-- once would each hold a count's row from their first finding to their commit, and
-- two of them taking two counts in opposite orders would deadlock.
--
-- A finding each job decides by its own row (no terminal record: its state) needs
-- nothing kept: the jobs by state are counted in `ledger_counts`, and an index lists
-- the open ones by id.

-- The jobs each of four findings names (the names of `Finding`). What decides each:
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

-- What the ledger holds already, judged once by the same rules as the triggers.
INSERT INTO reconcile_findings (finding, job_id)
    SELECT 'missing_output', j.job_id FROM jobs j
     WHERE (j.state = 'succeeded' OR j.state = 'completed_late')
       AND NOT reconcile_output_exists(j.job_id);
INSERT INTO reconcile_findings (finding, job_id)
    SELECT 'missing_notification', j.job_id FROM jobs j
     WHERE NOT (j.state = 'accepted' OR j.state = 'running' OR j.state = 'timed_out')
       AND NOT EXISTS (SELECT 1 FROM notifications n WHERE n.job_id = j.job_id);
INSERT INTO reconcile_findings (finding, job_id)
    SELECT 'divergent_decisions', job_id FROM decisions WHERE suppressed = 0
     GROUP BY job_id HAVING count(*) > 1;
INSERT INTO reconcile_findings (finding, job_id)
    SELECT DISTINCT 'conflicting_submissions', job_id FROM repeated_submissions
     WHERE conflicting = 1;

-- The two findings a job's state decides with other tables, judged again for `job`
-- in `state` (a job written after its outputs or notifications is judged as it is).
CREATE FUNCTION reconcile_judge(job text, state text) RETURNS void
LANGUAGE plpgsql
AS $$
BEGIN
    IF state = 'accepted' OR state = 'running' OR state = 'timed_out' THEN
        DELETE FROM reconcile_findings
         WHERE finding = 'missing_notification' AND job_id = job;
    ELSIF NOT EXISTS (SELECT 1 FROM notifications n WHERE n.job_id = job) THEN
        INSERT INTO reconcile_findings (finding, job_id) VALUES ('missing_notification', job)
            ON CONFLICT (finding, job_id) DO NOTHING;
    END IF;
    IF (state = 'succeeded' OR state = 'completed_late') AND NOT reconcile_output_exists(job) THEN
        INSERT INTO reconcile_findings (finding, job_id) VALUES ('missing_output', job)
            ON CONFLICT (finding, job_id) DO NOTHING;
    ELSE
        DELETE FROM reconcile_findings WHERE finding = 'missing_output' AND job_id = job;
    END IF;
END;
$$;

CREATE FUNCTION reconcile_job() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    PERFORM reconcile_judge(NEW.job_id, NEW.state);
    RETURN NULL;
END;
$$;

CREATE TRIGGER jobs_reconciled_on_insert AFTER INSERT ON jobs
    FOR EACH ROW EXECUTE FUNCTION reconcile_job();
CREATE TRIGGER jobs_reconciled_on_state AFTER UPDATE OF state ON jobs
    FOR EACH ROW WHEN (OLD.state IS DISTINCT FROM NEW.state) EXECUTE FUNCTION reconcile_job();

-- A notification: its job is notified.
CREATE FUNCTION reconcile_notified() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    DELETE FROM reconcile_findings
     WHERE finding = 'missing_notification' AND job_id = NEW.job_id;
    RETURN NULL;
END;
$$;

CREATE TRIGGER notifications_reconciled AFTER INSERT ON notifications
    FOR EACH ROW EXECUTE FUNCTION reconcile_notified();

-- An output stored or checked: whether the job's output exists is judged again (a
-- check may be written before the store it is later than).
CREATE FUNCTION reconcile_output() RETURNS trigger
LANGUAGE plpgsql
AS $$
DECLARE
    now_state text;
BEGIN
    SELECT j.state INTO now_state FROM jobs j WHERE j.job_id = NEW.job_id;
    IF now_state IS NOT NULL THEN
        PERFORM reconcile_judge(NEW.job_id, now_state);
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER outputs_reconciled AFTER INSERT ON outputs
    FOR EACH ROW EXECUTE FUNCTION reconcile_output();
CREATE TRIGGER output_checks_reconciled AFTER INSERT ON output_checks
    FOR EACH ROW EXECUTE FUNCTION reconcile_output();

-- A decision acted on: its job is divergent once a second decision id is acted on.
CREATE FUNCTION reconcile_decided() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    IF EXISTS (SELECT 1 FROM decisions d
                WHERE d.job_id = NEW.job_id AND d.suppressed = 0 AND d.id <> NEW.id) THEN
        INSERT INTO reconcile_findings (finding, job_id) VALUES ('divergent_decisions', NEW.job_id)
            ON CONFLICT (finding, job_id) DO NOTHING;
    END IF;
    RETURN NULL;
END;
$$;

CREATE TRIGGER decisions_reconciled AFTER INSERT ON decisions
    FOR EACH ROW WHEN (NEW.suppressed = 0) EXECUTE FUNCTION reconcile_decided();

CREATE FUNCTION reconcile_resubmitted() RETURNS trigger
LANGUAGE plpgsql
AS $$
BEGIN
    INSERT INTO reconcile_findings (finding, job_id) VALUES ('conflicting_submissions', NEW.job_id)
        ON CONFLICT (finding, job_id) DO NOTHING;
    RETURN NULL;
END;
$$;

CREATE TRIGGER repeated_submissions_reconciled AFTER INSERT ON repeated_submissions
    FOR EACH ROW WHEN (NEW.conflicting = 1) EXECUTE FUNCTION reconcile_resubmitted();

-- The jobs without a terminal record, by id: the first of them, whatever their number.
CREATE INDEX jobs_open_by_id ON jobs (job_id)
    WHERE (state = 'accepted' OR state = 'running' OR state = 'timed_out');

-- The jobs by acceptance time with their state: the latest hours' jobs by state are a
-- range read of this index alone.
CREATE INDEX jobs_by_acceptance ON jobs (accepted_at, state);
