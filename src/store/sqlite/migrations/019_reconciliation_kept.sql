-- jobledger ledger, schema 19: what the reconciliation's glance shows, kept as the
-- ledger is written.
--
-- The console's first screen shows how many accepted jobs each finding names, the
-- first of them, and the recent hours' jobs by state. Finding them read every job
-- and every notification, output and decision once: a second and a half at a million
-- jobs. jobledger's writer keeps these tables in the same transaction as the rows
-- that decide them, judging at commit each job the transaction touched (as it keeps
-- `ledger_counts`), so a re-run that adds no row changes none of them, and reading
-- them is a range read. (Triggers kept them row by row at first: ingest took half as
-- long again, each event judging its job anew and each statement journalled.)
--
-- A finding each job decides by its own row (no terminal record: its state) needs
-- nothing kept: the jobs by state are counted in `ledger_counts`, and the index at
-- the end lists the open ones by id.

-- The jobs each of four findings names (the names of `Finding`; `Finding::holds`
-- decides each, as the walk over every job does):
-- missing_output: a success on record, and its latest output object not there (no
--   output stored, or the latest check at or after the latest store found it missing);
-- missing_notification: terminal, and never notified;
-- divergent_decisions: decided under more than one decision id (decisions acted on);
-- conflicting_submissions: submitted again with another identity.
CREATE TABLE reconcile_findings (
    finding  TEXT NOT NULL CHECK (finding = 'missing_output' OR finding = 'missing_notification'
                                  OR finding = 'divergent_decisions'
                                  OR finding = 'conflicting_submissions'),
    job_id   TEXT NOT NULL REFERENCES jobs (job_id) DEFERRABLE INITIALLY DEFERRED,
    PRIMARY KEY (finding, job_id)
) STRICT, WITHOUT ROWID;

-- How many jobs each finding above names: counting a finding of seventy thousand
-- jobs read them all, every time the console opened.
CREATE TABLE reconcile_counts (
    finding  TEXT    PRIMARY KEY,
    n        INTEGER NOT NULL
) STRICT, WITHOUT ROWID;

-- Accepted jobs by the clock hour (UTC) they were accepted in: by their state now
-- ('jobs.<state>'), and those named by divergent_decisions or conflicting_submissions
-- (by that name). `hour` is the hour's start in the ledger's time text. A count that
-- falls to zero keeps its row: an hour once holding a job always holds it.
-- `reconcile_counts` and `reconcile_hours` are written by adding to them only.
CREATE TABLE reconcile_hours (
    hour  TEXT    NOT NULL,
    name  TEXT    NOT NULL,
    n     INTEGER NOT NULL,
    PRIMARY KEY (hour, name)
) STRICT, WITHOUT ROWID;

-- What the ledger holds already, judged once by the same rules.
INSERT INTO reconcile_findings (finding, job_id)
    SELECT 'missing_output', j.job_id FROM jobs j
     WHERE (j.state = 'succeeded' OR j.state = 'completed_late')
       AND NOT (EXISTS (SELECT 1 FROM outputs o WHERE o.job_id = j.job_id)
            AND coalesce((SELECT c.object_exists FROM output_checks c
                 WHERE c.job_id = j.job_id AND c.checked_at >= (SELECT o.stored_at FROM outputs o
                       WHERE o.job_id = j.job_id ORDER BY o.id DESC LIMIT 1)
                 ORDER BY c.id DESC LIMIT 1), 1) = 1);
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

INSERT INTO reconcile_counts (finding, n) VALUES
    ('missing_output', 0), ('missing_notification', 0), ('divergent_decisions', 0),
    ('conflicting_submissions', 0);
INSERT INTO reconcile_counts (finding, n)
    SELECT finding, count(*) FROM reconcile_findings WHERE true GROUP BY finding
    ON CONFLICT (finding) DO UPDATE SET n = excluded.n;

INSERT INTO reconcile_hours (hour, name, n)
    SELECT substr(accepted_at, 1, 13) || ':00:00.000Z', 'jobs.' || state, count(*)
      FROM jobs WHERE true GROUP BY 1, 2;
INSERT INTO reconcile_hours (hour, name, n)
    SELECT substr(j.accepted_at, 1, 13) || ':00:00.000Z', f.finding, count(*)
      FROM reconcile_findings f JOIN jobs j ON j.job_id = f.job_id
     WHERE f.finding = 'divergent_decisions' OR f.finding = 'conflicting_submissions'
     GROUP BY 1, 2;

-- The jobs without a terminal record, by id: the first of them, whatever their number.
CREATE INDEX jobs_open_by_id ON jobs (job_id)
    WHERE (state = 'accepted' OR state = 'running' OR state = 'timed_out');
