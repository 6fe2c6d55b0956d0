-- jobledger ledger on PostgreSQL: each finding's count and each hour's jobs by state,
-- kept as the ledger is written, as the SQLite ledger keeps them (its schema 19, the
-- same tables and columns).
--
-- The console's first screen shows the latest twelve hours' jobs by state; `reconcile`
-- shows every hour. Counting them from the jobs by acceptance time read each job of
-- those hours: 8 ms of a console's start at 50,000 jobs (11,551 jobs read for twelve
-- hours), and every job for `reconcile`. Each finding was counted over its rows, one
-- statement each. Kept, they are one small range read.
--
-- jobledger's writer adds to these counts at commit, in one statement a table, its
-- rows in key order, after the jobs and findings it changed: a count's row is locked
-- from there to the commit only, and writers at once take them in the same order (as
-- `ledger_counts`, schema 1). The findings' own rows tell the writer what moved: the
-- statement that judges the jobs a transaction touched returns the rows it added and
-- removed.

-- How many jobs each finding of `reconcile_findings` names.
CREATE TABLE reconcile_counts (
    finding  text COLLATE "C" PRIMARY KEY,
    n        bigint NOT NULL
);

-- Accepted jobs by the clock hour (UTC) they were accepted in: by their state now
-- ('jobs.<state>'), and those named by divergent_decisions or conflicting_submissions
-- (by that name). `hour` is the hour's start in the ledger's time text. A count that
-- falls to zero has no row, as a ledger that never counted it: what a ledger keeps is
-- the same however its stream was cut into transactions.
CREATE TABLE reconcile_hours (
    hour  text COLLATE "C" NOT NULL,
    name  text COLLATE "C" NOT NULL,
    n     bigint NOT NULL,
    PRIMARY KEY (hour, name)
);

-- What the ledger holds already, counted once.
INSERT INTO reconcile_counts (finding, n) VALUES
    ('missing_output', 0), ('missing_notification', 0), ('divergent_decisions', 0),
    ('conflicting_submissions', 0);
UPDATE reconcile_counts c SET n = f.n
  FROM (SELECT finding, count(*) AS n FROM reconcile_findings GROUP BY finding) f
 WHERE f.finding = c.finding;

INSERT INTO reconcile_hours (hour, name, n)
    SELECT left(accepted_at, 13) || ':00:00.000Z', 'jobs.' || state, count(*)
      FROM jobs GROUP BY 1, 2;
INSERT INTO reconcile_hours (hour, name, n)
    SELECT left(j.accepted_at, 13) || ':00:00.000Z', f.finding, count(*)
      FROM reconcile_findings f JOIN jobs j ON j.job_id = f.job_id
     WHERE f.finding = 'divergent_decisions' OR f.finding = 'conflicting_submissions'
     GROUP BY 1, 2;

-- Whoever keeps the ledger's counts (`jobledger roles`: the ingester) keeps these too,
-- and the findings they count (which `jobledger roles` did not grant before); whoever
-- reads them reads these.
DO $grants$
DECLARE
    g record;
BEGIN
    FOR g IN
        SELECT a.privilege_type,
               CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE quote_ident(r.rolname) END AS grantee
          FROM pg_catalog.pg_class c
         CROSS JOIN LATERAL aclexplode(c.relacl) a
          LEFT JOIN pg_catalog.pg_roles r ON r.oid = a.grantee
         WHERE c.oid = 'ledger_counts'::regclass
           AND a.grantee <> c.relowner
           AND a.privilege_type IN ('SELECT', 'INSERT', 'UPDATE')
    LOOP
        EXECUTE format('GRANT %s ON reconcile_counts, reconcile_hours TO %s',
                       g.privilege_type, g.grantee);
        IF g.privilege_type = 'INSERT' THEN
            EXECUTE format('GRANT INSERT ON reconcile_findings TO %s', g.grantee);
        ELSIF g.privilege_type = 'UPDATE' THEN
            EXECUTE format('GRANT DELETE ON reconcile_findings, reconcile_hours TO %s',
                           g.grantee);
        END IF;
    END LOOP;
END
$grants$;
