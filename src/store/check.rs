//! `jobledger check`: what the ledger promises about itself, recounted from its rows.
//!
//! SQLite's own checks (the b-trees, the foreign keys) and the ledger's (the kept
//! counts, one row per line identity, every callback on a callback line). Each check
//! reads only; a check that meets a damaged page says so as its finding, and the
//! others still run. [`Ledger::damage_probe`] is the cheap part that every command
//! runs before it reads or writes.

use std::collections::BTreeMap;
use std::path::Path;

use rusqlite::Connection;

use super::{APPLICATION_ID, CallbackFilter, Ledger, SCHEMA_VERSION, StoreError, classify};

/// Each check's name (the report's and JSON's) and what runs it, in the order they run.
const RUNS: [(&str, Check); 8] = [
    ("identity", identity),
    ("integrity", integrity),
    ("foreign_keys", foreign_keys),
    ("kept_counts", kept_counts),
    ("line_identity", line_identity),
    ("callback_lines", callback_lines),
    ("latest_attempts", latest_attempts),
    ("answers", answers),
];

/// The checks' names, in the order they run.
pub const CHECKS: [&str; RUNS.len()] = {
    let mut names = [""; RUNS.len()];
    let mut i = 0;
    while i < RUNS.len() {
        names[i] = RUNS[i].0;
        i += 1;
    }
    names
};

/// What one check found: `examined` things looked at, and each problem in a sentence
/// (none: the check passed).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct CheckFinding {
    pub check: &'static str,
    pub examined: i64,
    pub problems: Vec<String>,
    /// How long the check took, in seconds (integrity is most of a check's time).
    pub seconds: f64,
}

impl CheckFinding {
    /// Did the check pass?
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// How many problem rows a check lists before it only counts them.
const LISTED: i64 = 20;

impl Ledger {
    /// Runs every check of [`CHECKS`], calling `before` with each one's name first
    /// (a check of a large ledger takes a while: the caller shows where it is).
    pub fn check(&self, mut before: impl FnMut(&'static str)) -> Vec<CheckFinding> {
        RUNS.iter()
            .map(|&(check, run)| {
                before(check);
                let started = std::time::Instant::now();
                match run(&self.conn) {
                    Ok((examined, problems)) => CheckFinding {
                        check,
                        examined,
                        problems,
                        seconds: started.elapsed().as_secs_f64(),
                    },
                    Err(e) => CheckFinding {
                        check,
                        examined: 0,
                        problems: vec![format!(
                            "could not be checked: {}",
                            sqlite_message(&self.path, e)
                        )],
                        seconds: started.elapsed().as_secs_f64(),
                    },
                }
            })
            .collect()
    }

    /// The cheap test for damage every command runs first, costing the same at a
    /// million jobs as at ten thousand: the kept counts read, and the kept total of
    /// callbacks against the newest callback's number (numbers are given one after
    /// another and nothing is ever deleted, so the two are equal), found by one walk
    /// down the table's b-tree. A file cut short, or counts that no longer match the
    /// rows, shows here. Damage inside a page shows where the page is read: SQLite's
    /// `CORRUPT` (made [`StoreError::Damaged`] by [`classify`]), a whole listing that
    /// reads fewer rows than it counts ([`Ledger::confirm_listed`]), and `check`, which
    /// reads every page.
    pub fn damage_probe(&self) -> Result<(), StoreError> {
        let (kept, newest) = kept_and_newest(&self.conn).map_err(|e| self.err(e))?;
        if kept == newest {
            return Ok(());
        }
        Err(StoreError::Damaged {
            path: self.path.clone(),
            detail: format!("it counts {kept} callbacks, and the newest one is number {newest}"),
        })
    }

    /// How many callbacks a list of `filter` holds by the kept counts, when it lists a
    /// whole count (every callback, or every one of a disposition): a listing can then
    /// tell that it read a damaged table ([`Ledger::confirm_listed`]).
    pub fn kept_for(&self, filter: &CallbackFilter) -> Result<Option<i64>, StoreError> {
        let whole = CallbackFilter {
            disposition: filter.disposition,
            ..CallbackFilter::default()
        };
        if *filter != whole {
            return Ok(None);
        }
        let counts = self.disposition_counts()?;
        Ok(Some(
            filter.disposition.map_or(counts.total(), |d| counts.get(d)),
        ))
    }

    /// Confirms that a listing read between `before` and `after` rows (the kept counts
    /// when it started and ended: ingest may add callbacks meanwhile, never take one);
    /// fewer or more were read from a damaged table.
    pub fn confirm_listed(&self, listed: i64, before: i64, after: i64) -> Result<(), StoreError> {
        if (before..=after).contains(&listed) {
            return Ok(());
        }
        Err(StoreError::Damaged {
            path: self.path.clone(),
            detail: format!("it counts {before} callbacks in this list, and {listed} were read"),
        })
    }

    /// Copies the ledger into `dest`, an empty file, as one consistent snapshot
    /// (`VACUUM INTO`: in WAL mode it reads one snapshot and never blocks a writer).
    pub fn copy_into(&self, dest: &Path) -> Result<(), StoreError> {
        let name = dest.to_str().ok_or_else(|| StoreError::ReadOnly {
            path: dest.to_path_buf(),
            detail: "the copy's name is not UTF-8, which SQLite cannot take".to_owned(),
        })?;
        // `query_only` refuses VACUUM INTO too, though it writes only the copy: it is
        // lifted for this one statement. A ledger opened read-only stays so, since
        // SQLite opened its file without write access.
        let query_only: bool = self
            .conn
            .query_row("PRAGMA query_only", [], |row| row.get(0))
            .map_err(|e| self.err(e))?;
        let copied = self
            .conn
            .execute_batch("PRAGMA query_only = OFF")
            .and_then(|()| self.conn.execute("VACUUM INTO ?1", [name]).map(drop));
        let restored = self.conn.pragma_update(None, "query_only", query_only);
        copied.and(restored).map_err(|e| self.err(e))?;
        // The copy is a file of its own: a log written for this ledger must never be
        // taken for the copy's once the copy is put in its place.
        super::log_owner::give_own_token(dest)
    }

    /// The size of the ledger in bytes (pages × page size), without its WAL.
    pub fn size_bytes(&self) -> Result<i64, StoreError> {
        self.run(|c| {
            c.query_row(
                "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()",
                [],
                |row| row.get(0),
            )
        })
    }
}

/// The error a check met, in words (a damaged page is a finding, not a failure).
fn sqlite_message(path: &Path, e: rusqlite::Error) -> String {
    match classify(path, e) {
        StoreError::Damaged { detail, .. } => format!("the file is damaged ({detail})"),
        StoreError::Sqlite { source, .. } => source.to_string(),
        other => other.to_string(),
    }
}

type Found = rusqlite::Result<(i64, Vec<String>)>;

/// One check over the ledger's connection.
type Check = fn(&Connection) -> Found;

/// Lists the first [`LISTED`] rows of `sql` (one text each) and counts them all.
fn listed(conn: &Connection, sql: &str, what: &str) -> rusqlite::Result<Vec<String>> {
    let mut statement = conn.prepare(sql)?;
    let mut rows = statement.query([])?;
    let (mut problems, mut n) = (Vec::new(), 0_i64);
    while let Some(row) = rows.next()? {
        n += 1;
        if n <= LISTED {
            problems.push(row.get::<_, String>(0)?);
        }
    }
    if n > LISTED {
        problems.push(format!("… and {} more {what}", n - LISTED));
    }
    Ok(problems)
}

fn identity(conn: &Connection) -> Found {
    let app_id: i32 = conn.query_row("PRAGMA application_id", [], |r| r.get(0))?;
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    let mut problems = Vec::new();
    if app_id != APPLICATION_ID {
        problems.push(format!(
            "application id is {app_id:#x}, not jobledger's {APPLICATION_ID:#x}"
        ));
    }
    if version != SCHEMA_VERSION {
        problems.push(format!(
            "schema version is {version}, this jobledger writes {SCHEMA_VERSION}"
        ));
    }
    Ok((2, problems))
}

fn integrity(conn: &Connection) -> Found {
    let pages: i64 = conn.query_row("PRAGMA page_count", [], |r| r.get(0))?;
    let problems = listed(
        conn,
        &format!("PRAGMA integrity_check({})", LISTED + 1),
        "problems",
    )?;
    // SQLite puts several findings in one row at times, headed by the database's name.
    let problems = problems
        .iter()
        .flat_map(|p| p.lines())
        .filter(|p| *p != "ok" && !p.starts_with("*** in database"))
        .map(str::to_owned)
        .collect();
    Ok((pages, problems))
}

fn foreign_keys(conn: &Connection) -> Found {
    let problems = listed(
        conn,
        "SELECT format('%s row %s refers to a missing %s row', \"table\", rowid, parent)
           FROM pragma_foreign_key_check",
        "broken references",
    )?;
    let tables: i64 = conn.query_row(
        "SELECT count(*) FROM sqlite_schema WHERE type = 'table'",
        [],
        |r| r.get(0),
    )?;
    Ok((tables, problems))
}

/// The kept total of callbacks and the newest callback's number, read in one
/// transaction: a write committed between the two reads made a sound ledger look
/// damaged to the probe of a command started beside an ingest.
fn kept_and_newest(conn: &Connection) -> rusqlite::Result<(i64, i64)> {
    let snapshot = conn.unchecked_transaction()?;
    let kept = super::counts::kept_counts(&snapshot)?
        .iter()
        .filter(|(name, _)| name.starts_with("callbacks."))
        .map(|(_, n)| n)
        .sum();
    let newest = snapshot.query_row("SELECT coalesce(max(seq), 0) FROM callbacks", [], |row| {
        row.get(0)
    })?;
    Ok((kept, newest))
}

fn kept_counts(conn: &Connection) -> Found {
    // The kept counts and the recount from one snapshot, as in `kept_and_newest`.
    let snapshot = conn.unchecked_transaction()?;
    let conn: &Connection = &snapshot;
    let kept = super::counts::kept_counts(conn)?;
    let recounted: BTreeMap<String, i64> = conn
        .prepare(
            "SELECT 'callbacks.' || disposition, count(*) FROM callbacks NOT INDEXED GROUP BY 1
             UNION ALL
             SELECT 'jobs.' || state, count(*) FROM jobs NOT INDEXED GROUP BY 1",
        )?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let mut names: Vec<&String> = kept.keys().chain(recounted.keys()).collect();
    names.sort();
    names.dedup();
    let problems = names
        .iter()
        .filter_map(|name| {
            let k = kept.get(*name).copied().unwrap_or(0);
            let r = recounted.get(*name).copied().unwrap_or(0);
            (k != r).then(|| format!("{name}: kept {k}, recounted {r}"))
        })
        .collect();
    Ok((i64::try_from(names.len()).unwrap_or(i64::MAX), problems))
}

/// Lines are unique by `(time_key, line_sha256)` since schema 5; the identity itself
/// is the SHA-256 alone, and two rows with one SHA-256 would be one line kept twice.
fn line_identity(conn: &Connection) -> Found {
    let lines: i64 = conn.query_row("SELECT count(*) FROM input_lines", [], |r| r.get(0))?;
    let problems = listed(
        conn,
        "SELECT format('line %s is kept %d times (lines %s)', hex(line_sha256), count(*),
                       group_concat(seq, ', '))
           FROM input_lines GROUP BY line_sha256 HAVING count(*) > 1",
        "repeated lines",
    )?;
    Ok((lines, problems))
}

/// Every callback was read from a line marked as a callback, and every such line has
/// its callback.
fn callback_lines(conn: &Connection) -> Found {
    let callbacks: i64 = conn.query_row("SELECT count(*) FROM callbacks NOT INDEXED", [], |r| {
        r.get(0)
    })?;
    let mut problems = listed(
        conn,
        "SELECT format('callback #%d names line %d, which is %s', c.seq, c.line_seq,
                       coalesce('a line with status ' || l.status, 'not in the ledger'))
           FROM callbacks c LEFT JOIN input_lines l ON l.seq = c.line_seq
          WHERE l.status IS NOT 'callback'",
        "callbacks on other lines",
    )?;
    problems.extend(listed(
        conn,
        "SELECT format('line %d is marked as a callback and has none', seq)
           FROM input_lines
          WHERE status = 'callback' AND seq NOT IN (SELECT line_seq FROM callbacks)",
        "callback lines without their callback",
    )?);
    Ok((callbacks, problems))
}

/// Every job's latest attempt is on record.
fn latest_attempts(conn: &Connection) -> Found {
    let jobs: i64 = conn.query_row("SELECT count(*) FROM jobs", [], |r| r.get(0))?;
    let problems = listed(
        conn,
        "SELECT format('job %s names attempt %d as its latest, which is not on record',
                       quote(job_id), latest_attempt)
           FROM jobs j
          WHERE NOT EXISTS (SELECT 1 FROM attempts a
                             WHERE a.job_id = j.job_id AND a.attempt = j.latest_attempt)",
        "jobs without their latest attempt",
    )?;
    Ok((jobs, problems))
}

/// An answer is given on a held or quarantined callback (the only ones with a question).
fn answers(conn: &Connection) -> Found {
    let answers: i64 = conn.query_row("SELECT count(*) FROM answers", [], |r| r.get(0))?;
    let problems = listed(
        conn,
        "SELECT format('answer %d is on callback #%d, which is %s', a.id, a.callback_seq,
                       coalesce('disposition ' || c.disposition, 'not in the ledger'))
           FROM answers a LEFT JOIN callbacks c ON c.seq = a.callback_seq
          WHERE c.disposition IS NOT 'hold' AND c.disposition IS NOT 'quarantine'",
        "answers on callbacks with no question",
    )?;
    Ok((answers, problems))
}
