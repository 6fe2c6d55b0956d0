//! `jobledger check`: what the ledger promises about itself, recounted from its rows.
//!
//! SQLite's own checks (the b-trees, the foreign keys) and the ledger's (the kept
//! counts, one row per line identity, every callback on a callback line, what is kept
//! for the reconciliation against the walk over every job). Each check
//! reads only; a check that meets a damaged page says so as its finding, and the
//! others still run. [`Ledger::damage_probe`] is the cheap part that every command
//! runs before it reads or writes.

use crate::store::reconcile_check::KeptAgainstWalk;
use crate::store::{CallbackFilter, Finding};
use std::collections::BTreeMap;
use std::path::Path;

use rusqlite::Connection;

use super::{APPLICATION_ID, Ledger, SCHEMA_VERSION, StoreError, classify};

/// Each check's name (the report's and JSON's) and what runs it, in the order they run.
const RUNS: [(&str, Run); 11] = [
    ("identity", Run::Sql(identity)),
    ("integrity", Run::Sql(integrity)),
    ("constraints", Run::Sql(constraints)),
    ("foreign_keys", Run::Sql(foreign_keys)),
    ("kept_counts", Run::Sql(kept_counts)),
    ("line_identity", Run::Sql(line_identity)),
    ("callback_lines", Run::Sql(callback_lines)),
    ("latest_attempts", Run::Sql(latest_attempts)),
    ("answers", Run::Sql(answers)),
    ("text_index", Run::Sql(text_index)),
    ("kept_reconciliation", Run::Ledger(kept_reconciliation)),
];

/// What runs a check: most ask the connection in SQL; the kept reconciliation reads
/// through the ledger's own reads, those the console and `reconcile` make.
#[derive(Clone, Copy)]
enum Run {
    Sql(Check),
    Ledger(LedgerCheck),
}

/// One check through the ledger's reads.
type LedgerCheck = fn(&Ledger) -> Result<(i64, Vec<String>), StoreError>;

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
                let found = match run {
                    Run::Sql(run) => run(&self.conn).map_err(|e| sqlite_message(&self.path, e)),
                    Run::Ledger(run) => run(self).map_err(store_message),
                };
                match found {
                    Ok((examined, problems)) => CheckFinding {
                        check,
                        examined,
                        problems,
                        seconds: started.elapsed().as_secs_f64(),
                    },
                    Err(message) => CheckFinding {
                        check,
                        examined: 0,
                        problems: vec![format!("could not be checked: {message}")],
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
            ledger: self.path.as_path().into(),
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
            ledger: self.path.as_path().into(),
            detail: format!("it counts {before} callbacks in this list, and {listed} were read"),
        })
    }

    /// Copies the ledger into `dest`, an empty file, as one consistent snapshot
    /// (`VACUUM INTO`: in WAL mode it reads one snapshot and never blocks a writer).
    pub fn copy_into(&self, dest: &Path) -> Result<(), StoreError> {
        let name = dest.to_str().ok_or_else(|| StoreError::ReadOnly {
            ledger: dest.into(),
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

    /// What a copy is checked for before it is given its name, each problem headed by
    /// the check that found it (none: the copy may be named). SQLite's `quick_check` of
    /// every page, and `check`'s kept counts against the rows: a page that lost rows
    /// without an error (a leaf whose count of cells was changed) copies as a sound
    /// file that holds fewer rows than it counts, which only the counts show.
    pub fn copy_problems(&self) -> Result<Vec<String>, StoreError> {
        let checks: [(&str, Check); 2] = [
            ("quick_check", |conn| pages_checked(conn, "quick_check")),
            ("kept_counts", kept_counts),
        ];
        let mut problems = Vec::new();
        for (name, run) in checks {
            match run(&self.conn) {
                Ok((_, found)) => {
                    problems.extend(found.into_iter().map(|p| format!("{name}: {p}")));
                }
                Err(e) => match self.err(e) {
                    StoreError::Damaged { detail, .. } => {
                        problems.push(format!("{name}: the copy is damaged ({detail})"));
                    }
                    e => return Err(e),
                },
            }
        }
        Ok(problems)
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
    store_message(classify(path, e))
}

/// The error a check met through the ledger's reads, in words.
fn store_message(e: StoreError) -> String {
    match e {
        StoreError::Damaged { detail, .. } => format!("the file is damaged ({detail})"),
        StoreError::Engine { failure, .. } => failure.to_string(),
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
    pages_checked(conn, "integrity_check")
}

/// SQLite's check of every page, `pragma` `integrity_check` or the `quick_check` that
/// leaves out comparing each index with its table.
fn pages_checked(conn: &Connection, pragma: &str) -> Found {
    let pages: i64 = conn.query_row("PRAGMA page_count", [], |r| r.get(0))?;
    let problems = listed(
        conn,
        &format!("PRAGMA {pragma}({})", LISTED + 1),
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

/// Every row against the CHECK constraints of its table. SQLite's `integrity_check`
/// verifies them only on a connection that may write (it does not even parse them
/// for a file opened read-only, as `check` opens it), so a value no write of ours
/// could store (an outcome of `'maybe'`) passed with exit 0. Each constraint is read
/// from the table's own `CREATE TABLE` text and asked of every row.
fn constraints(conn: &Connection) -> Found {
    let tables: Vec<(String, String)> = conn
        .prepare(
            "SELECT name, sql FROM sqlite_schema
              WHERE type = 'table' AND sql IS NOT NULL ORDER BY name",
        )?
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))?
        .collect::<rusqlite::Result<_>>()?;
    let literal = |text: &str| format!("'{}'", text.replace('\'', "''"));
    let (mut examined, mut problems) = (0_i64, Vec::new());
    for (table, sql) in &tables {
        // A row is named by its rowid, or by its key in a table WITHOUT ROWID.
        let key: String = conn.query_row(
            "SELECT iif(wr, (SELECT group_concat('quote(\"' || replace(name, '\"', '\"\"') || '\")', ' || '', '' || ')
                               FROM pragma_table_info(?1) WHERE pk > 0),
                        'rowid')
               FROM pragma_table_list WHERE schema = 'main' AND name = ?1",
            [table],
            |row| row.get(0),
        )?;
        for expr in check_clauses(sql) {
            examined += 1;
            let sql = format!(
                "SELECT format('%s row %s breaks its CHECK (%s)', {}, {key}, {})
                   FROM \"{}\" WHERE NOT ({expr})",
                literal(table),
                literal(&expr),
                table.replace('"', "\"\"")
            );
            match listed(conn, &sql, "rows breaking a CHECK") {
                Ok(rows) => problems.extend(rows),
                Err(e) => problems.push(format!(
                    "the CHECK ({expr}) of {table} could not be asked: {}",
                    sqlite_message(Path::new(""), e)
                )),
            }
        }
    }
    Ok((examined, problems))
}

/// The expressions of every `CHECK (...)` in a `CREATE TABLE` statement, skipping
/// what is quoted or commented.
fn check_clauses(sql: &str) -> Vec<String> {
    let bytes = sql.as_bytes();
    let (mut found, mut i) = (Vec::new(), 0);
    while i < bytes.len() {
        match bytes[i] {
            quote @ (b'\'' | b'"' | b'`') => i = skip_past(bytes, i + 1, &[quote]),
            b'[' => i = skip_past(bytes, i + 1, b"]"),
            b'-' if bytes.get(i + 1) == Some(&b'-') => i = skip_past(bytes, i, b"\n"),
            b'/' if bytes.get(i + 1) == Some(&b'*') => i = skip_past(bytes, i + 2, b"*/"),
            _ if bytes[i..].len() >= 5
                && bytes[i..i + 5].eq_ignore_ascii_case(b"check")
                && (i == 0 || !is_word(bytes[i - 1]))
                && !bytes.get(i + 5).copied().is_some_and(is_word) =>
            {
                let open = i
                    + 5
                    + bytes[i + 5..]
                        .iter()
                        .take_while(|b| b.is_ascii_whitespace())
                        .count();
                if bytes.get(open) != Some(&b'(') {
                    i += 5;
                    continue;
                }
                let close = closing_paren(bytes, open);
                found.push(sql[open + 1..close].trim().to_owned());
                i = close + 1;
            }
            _ => i += 1,
        }
    }
    found
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The index just past the first `end` at or after `from` (the end of the text if none).
fn skip_past(bytes: &[u8], from: usize, end: &[u8]) -> usize {
    bytes
        .get(from..)
        .and_then(|rest| rest.windows(end.len()).position(|w| w == end))
        .map_or(bytes.len(), |at| from + at + end.len())
}

/// The index of the parenthesis closing the one at `open` (the last index if none).
fn closing_paren(bytes: &[u8], open: usize) -> usize {
    let (mut depth, mut i) = (0_usize, open);
    while i < bytes.len() {
        match bytes[i] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            quote @ (b'\'' | b'"' | b'`') => {
                i = skip_past(bytes, i + 1, &[quote]);
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    bytes.len().saturating_sub(1)
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
        .prepare(super::counts::RECOUNT)?
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

/// Every callback is in the trigram index its text is searched through, and the
/// index holds no other: a callback missing there would never be found by a search.
fn text_index(conn: &Connection) -> Found {
    let indexed: i64 = conn.query_row("SELECT count(*) FROM callback_text_docsize", [], |r| {
        r.get(0)
    })?;
    let mut problems = listed(
        conn,
        "SELECT format('callback #%d is not in the text index', seq)
           FROM callbacks
          WHERE seq NOT IN (SELECT id FROM callback_text_docsize)",
        "callbacks a search cannot find",
    )?;
    problems.extend(listed(
        conn,
        "SELECT format('the text index holds callback #%d, which is not in the ledger', id)
           FROM callback_text_docsize
          WHERE id NOT IN (SELECT seq FROM callbacks)",
        "index rows without their callback",
    )?);
    Ok((indexed, problems))
}

/// What the ledger keeps for the reconciliation's glance (each finding's jobs and
/// count, each hour's jobs by state and its two findings) is what the walk over every
/// job finds, judged as the reconciliation's walk judges it: read as the console reads it, in one snapshot
/// with the walk. A kept count is only ever added to, so a wrong one stays wrong until
/// a salvage makes them all again from the rows (`reconcile_kept::REBUILD`).
fn kept_reconciliation(ledger: &Ledger) -> Result<(i64, Vec<String>), StoreError> {
    let shown = ledger.path().display();
    let mend = format!(
        "a salvage makes what the ledger keeps for the reconciliation again from its rows: `jobledger --db {shown} backup --salvage NEW.db`, then `jobledger --db {shown} restore NEW.db`"
    );
    ledger.in_one_snapshot(|l| {
        let kept = Finding::ALL
            .iter()
            .map(|&finding| Ok((finding, l.finding_kept(finding, usize::MAX)?)))
            .collect::<Result<Vec<_>, StoreError>>()?;
        let mut against = KeptAgainstWalk::new(kept, l.recent_hours_kept(usize::MAX)?);
        l.for_each_job_account(|job| against.note(job))?;
        Ok(against.problems(usize::try_from(LISTED).unwrap_or(usize::MAX), &mend))
    })
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
