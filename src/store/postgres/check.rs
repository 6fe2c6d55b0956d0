//! `jobledger check` on PostgreSQL: what the ledger promises about itself, recounted
//! from its rows, as the SQLite engine's `sqlite/check.rs` does.
//!
//! The server keeps its own pages and enforces its constraints, so SQLite's checks of
//! the file (`integrity`, `constraints`) have no twin here. What can still go wrong is
//! the ledger's: the kept counts against the rows, what is kept for the reconciliation
//! against the walk over every job, one row per line identity, every callback on a
//! callback line, the foreign keys (which hold unless someone turned
//! them off, e.g. with `session_replication_role = replica`, or dropped one) and the
//! triggers that keep evidence append-only (which a superuser may drop or disable).
//! The foreign keys and triggers expected are the migration's own. Each check reads
//! only; a check that fails to run says so as its finding, and the others still run.

use std::collections::BTreeMap;
use std::path::Path;

use postgres::types::ToSql;
use postgres::{Client, IsolationLevel};

use super::Ledger;
use super::reconcile_kept::{RECENT_HOURS, finding_kept_by, hours_of};
use crate::store::reconcile_check::KeptAgainstWalk;
use crate::store::{CallbackFilter, CheckFinding, Finding, StoreError};

/// The migrations whose foreign keys and triggers are expected (`open.rs` runs them).
const MIGRATIONS: &[&str] = &[
    include_str!("migrations/001_ledger.sql"),
    include_str!("migrations/003_claims.sql"),
    include_str!("migrations/004_looks.sql"),
    include_str!("migrations/005_callback_text_index.sql"),
];

/// Each check's name (the report's and JSON's) and what runs it, in the order they run.
const RUNS: [(&str, Run); 10] = [
    ("identity", Run::Sql(identity)),
    ("foreign_keys", Run::Sql(foreign_keys)),
    ("triggers", Run::Sql(triggers)),
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

/// How many problem rows a check lists before it only counts them (as SQLite's).
const LISTED: i64 = 20;

type Found = Result<(i64, Vec<String>), postgres::Error>;

/// One check over the ledger's connection.
type Check = fn(&mut Client) -> Found;

impl Ledger {
    /// Runs every check, calling `before` with each one's name first.
    pub fn check(&self, mut before: impl FnMut(&'static str)) -> Vec<CheckFinding> {
        RUNS.iter()
            .map(|&(check, run)| {
                before(check);
                let started = std::time::Instant::now();
                let found = match run {
                    Run::Sql(run) => run(&mut self.client()).map_err(|e| message(&e)),
                    Run::Ledger(run) => run(self).map_err(|e| e.to_string()),
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

    /// The cheap test every command runs first: can the ledger's tables be read?
    /// (The SQLite engine also compares the kept total of callbacks with the newest
    /// callback's number; here numbers are not given one after another, since a
    /// transaction rolled back still uses the numbers it took.)
    pub fn damage_probe(&self) -> Result<(), StoreError> {
        self.one("SELECT count(*) FROM ledger_counts", &[])
            .map(drop)
    }

    /// How many callbacks a list of `filter` holds by the kept counts, when it lists a
    /// whole count (every callback, or every one of a disposition).
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
    /// when it started and ended); fewer or more were read from a damaged ledger.
    pub fn confirm_listed(&self, listed: i64, before: i64, after: i64) -> Result<(), StoreError> {
        if (before..=after).contains(&listed) {
            return Ok(());
        }
        Err(StoreError::Damaged {
            ledger: self.location().clone(),
            detail: format!("it counts {before} callbacks in this list, and {listed} were read"),
        })
    }

    /// A ledger on a server is copied by the server's own tools, or into a SQLite file.
    pub fn copy_into(&self, _dest: &Path) -> Result<(), StoreError> {
        Err(StoreError::Unsupported {
            ledger: self.location().clone(),
            what: "a ledger on PostgreSQL is not copied into a file this way; use `pg_dump` \
                   (e.g. `pg_dump --schema=SCHEMA`), or `jobledger copy --to FILE.db` for a \
                   SQLite ledger of it"
                .to_owned(),
        })
    }

    /// What `check` finds, each problem headed by the check that found it (none: the
    /// ledger may be taken as it is).
    #[allow(clippy::unnecessary_wraps)] // the SQLite engine's signature
    pub fn copy_problems(&self) -> Result<Vec<String>, StoreError> {
        Ok(self
            .check(|_| {})
            .into_iter()
            .flat_map(|finding| {
                let check = finding.check;
                finding
                    .problems
                    .into_iter()
                    .map(move |p| format!("{check}: {p}"))
            })
            .collect())
    }

    /// The size of the ledger in bytes: its tables with their indexes and TOAST.
    pub fn size_bytes(&self) -> Result<i64, StoreError> {
        Ok(self
            .one(
                "SELECT coalesce(sum(pg_total_relation_size(oid)), 0)::bigint FROM pg_class
                  WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p')",
                &[],
            )?
            .get(0))
    }
}

/// The error a check met, in words: the server's own, or the client's.
fn message(e: &postgres::Error) -> String {
    e.as_db_error()
        .map_or_else(|| e.to_string(), |db| db.message().to_owned())
}

/// Lists the first [`LISTED`] rows of `sql` (one text each) and counts them all.
fn listed(client: &mut Client, sql: &str, what: &str) -> Result<Vec<String>, postgres::Error> {
    let rows = client.query(sql, &[])?;
    let n = i64::try_from(rows.len()).unwrap_or(i64::MAX);
    let mut problems = rows
        .iter()
        .take(usize::try_from(LISTED).unwrap_or(usize::MAX))
        .map(|row| row.try_get::<_, String>(0))
        .collect::<Result<Vec<_>, _>>()?;
    if n > LISTED {
        problems.push(format!("… and {} more {what}", n - LISTED));
    }
    Ok(problems)
}

fn count(client: &mut Client, sql: &str) -> Result<i64, postgres::Error> {
    client.query_one(sql, &[])?.try_get(0)
}

/// A name as an SQL identifier, quoted.
fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// A text as an SQL literal.
fn literal(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

fn identity(client: &mut Client) -> Found {
    let row = client.query_opt(
        "SELECT application, schema_version::bigint FROM ledger_meta WHERE id = 1",
        &[],
    )?;
    let mut problems = Vec::new();
    match row {
        None => problems
            .push("ledger_meta has no row: the schema does not say it is a ledger".to_owned()),
        Some(row) => {
            let application: String = row.try_get(0)?;
            let version: i64 = row.try_get(1)?;
            if application != "jobledger" {
                problems.push(format!(
                    "the schema says it is {application:?}'s, not jobledger's"
                ));
            }
            if version != super::SERVER_SCHEMA_VERSION {
                problems.push(format!(
                    "schema version is {version}, this jobledger writes {}",
                    super::SERVER_SCHEMA_VERSION
                ));
            }
        }
    }
    Ok((2, problems))
}

/// A foreign key the migrations make: `table.column` refers to `parent.key`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ForeignKey {
    table: String,
    column: String,
    parent: String,
    key: String,
}

/// The foreign keys the migrations make, read from their `CREATE TABLE` statements
/// (one column each, `column type ... REFERENCES parent (key)` on one line).
fn expected_foreign_keys() -> Vec<ForeignKey> {
    let mut found = Vec::new();
    for migration in MIGRATIONS {
        let mut table = None;
        for line in migration.lines() {
            let line = line.trim();
            if let Some(rest) = line.strip_prefix("CREATE TABLE ") {
                table = rest.split_whitespace().next().map(str::to_owned);
            } else if line.starts_with(')') {
                table = None;
            } else if let (Some(t), Some((before, after))) =
                (&table, line.split_once(" REFERENCES "))
            {
                let column = before.split_whitespace().next().unwrap_or_default();
                let mut words = after.split_whitespace();
                let parent = words.next().unwrap_or_default();
                let key = words
                    .next()
                    .unwrap_or_default()
                    .trim_matches(|c| c == '(' || c == ')' || c == ',');
                found.push(ForeignKey {
                    table: t.clone(),
                    column: column.to_owned(),
                    parent: parent.to_owned(),
                    key: key.to_owned(),
                });
            }
        }
    }
    found
}

/// The triggers the migrations make, as (trigger, table).
fn expected_triggers() -> Vec<(String, String)> {
    let mut found = Vec::new();
    for migration in MIGRATIONS {
        for line in migration.lines() {
            let Some(rest) = line.trim().strip_prefix("CREATE TRIGGER ") else {
                continue;
            };
            let name = rest.split_whitespace().next().unwrap_or_default();
            let table = rest
                .split_once(" ON ")
                .and_then(|(_, after)| after.split_whitespace().next())
                .unwrap_or_default();
            found.push((name.to_owned(), table.to_owned()));
        }
    }
    found
}

/// Every foreign key the ledger is made with is in place and checked, and every row
/// holds it: a row naming a missing row is listed by its table's key. The rows are
/// asked whether or not the constraint is in place (a row written while it was
/// dropped, or with `session_replication_role = replica`, was never checked).
fn foreign_keys(client: &mut Client) -> Found {
    let expected = expected_foreign_keys();
    // The foreign keys in place: (table, column, parent, checked).
    let present: Vec<(String, String, String, bool)> = client
        .query(
            "SELECT c.conrelid::regclass::text, a.attname::text, c.confrelid::regclass::text,
                    c.convalidated
               FROM pg_constraint c
               JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = c.conkey[1]
              WHERE c.contype = 'f' AND c.connamespace = current_schema()::regnamespace",
            &[],
        )?
        .iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?, r.try_get(3)?)))
        .collect::<Result<_, postgres::Error>>()?;
    let mut problems = Vec::new();
    for fk in &expected {
        let in_place = present
            .iter()
            .find(|(t, c, p, _)| *t == fk.table && *c == fk.column && *p == fk.parent);
        match in_place {
            None => problems.push(format!(
                "the foreign key of {}.{} (to {}) is missing",
                fk.table, fk.column, fk.parent
            )),
            Some((.., false)) => problems.push(format!(
                "the foreign key of {}.{} (to {}) is not validated",
                fk.table, fk.column, fk.parent
            )),
            Some(_) => {}
        }
        // The table's primary key names a row.
        let keys: Vec<String> = client
            .query(
                "SELECT a.attname::text
                   FROM pg_index i
                   CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k (attnum, n)
                   JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum
                  WHERE i.indrelid = $1::text::regclass AND i.indisprimary
                  ORDER BY k.n",
                &[&fk.table],
            )?
            .iter()
            .map(|r| r.try_get(0))
            .collect::<Result<_, _>>()?;
        let named = if keys.is_empty() {
            "ctid::text".to_owned()
        } else {
            format!(
                "concat_ws(', ', {})",
                keys.iter()
                    .map(|k| format!("c.{}", ident(k)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let order = if keys.is_empty() {
            String::new()
        } else {
            format!(
                " ORDER BY {}",
                keys.iter()
                    .map(|k| format!("c.{}", ident(k)))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        let sql = format!(
            "SELECT {} || ' row ' || {named} || ' refers to a missing ' || {} || ' row ('
                    || {} || ' ' || c.{col}::text || ')'
               FROM {table} c
              WHERE c.{col} IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM {parent} p WHERE p.{key} = c.{col}){order}",
            literal(&fk.table),
            literal(&fk.parent),
            literal(&fk.column),
            col = ident(&fk.column),
            table = ident(&fk.table),
            parent = ident(&fk.parent),
            key = ident(&fk.key),
        );
        problems.extend(listed(client, &sql, "broken references")?);
    }
    // What was examined: the tables, as SQLite's twin counts them.
    let tables = count(
        client,
        "SELECT count(*) FROM pg_class
          WHERE relnamespace = current_schema()::regnamespace AND relkind IN ('r', 'p')",
    )?;
    Ok((tables, problems))
}

/// Every trigger the ledger is made with (those keeping evidence append-only, those
/// setting who wrote a row) is in place and enabled.
fn triggers(client: &mut Client) -> Found {
    let expected = expected_triggers();
    // The triggers in place: (trigger, table, enabled).
    let present: Vec<(String, String, String)> = client
        .query(
            "SELECT t.tgname::text, t.tgrelid::regclass::text, t.tgenabled::text
               FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
              WHERE NOT t.tgisinternal AND c.relnamespace = current_schema()::regnamespace",
            &[],
        )?
        .iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?)))
        .collect::<Result<_, postgres::Error>>()?;
    let mut problems = Vec::new();
    for (name, table) in &expected {
        match present.iter().find(|(n, t, _)| n == name && t == table) {
            None => problems.push(format!("the trigger {name} of {table} is missing")),
            // 'O' fires in every session; 'A' always; 'D' never; 'R' only in replicas.
            Some((.., enabled)) if enabled == "D" => {
                problems.push(format!("the trigger {name} of {table} is disabled"));
            }
            Some((.., enabled)) if enabled == "R" => problems.push(format!(
                "the trigger {name} of {table} fires only for replication"
            )),
            Some(_) => {}
        }
    }
    Ok((i64::try_from(expected.len()).unwrap_or(i64::MAX), problems))
}

fn kept_counts(client: &mut Client) -> Found {
    // The kept counts and the recount from one snapshot.
    let mut snapshot = client
        .build_transaction()
        .isolation_level(IsolationLevel::RepeatableRead)
        .read_only(true)
        .start()?;
    let read = |sql: &str, tx: &mut postgres::Transaction<'_>| {
        tx.query(sql, &[])?
            .iter()
            .map(|r| Ok((r.try_get::<_, String>(0)?, r.try_get::<_, i64>(1)?)))
            .collect::<Result<BTreeMap<String, i64>, postgres::Error>>()
    };
    let kept = read("SELECT name, n FROM ledger_counts", &mut snapshot)?;
    let recounted = read(
        "SELECT 'callbacks.' || disposition, count(*) FROM callbacks GROUP BY 1
         UNION ALL
         SELECT 'jobs.' || state, count(*) FROM jobs GROUP BY 1",
        &mut snapshot,
    )?;
    snapshot.commit()?;
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

/// Lines are unique by `(time_key, line_sha256)`; the identity itself is the SHA-256
/// alone, and two rows with one SHA-256 would be one line kept twice.
fn line_identity(client: &mut Client) -> Found {
    let lines = count(client, "SELECT count(*) FROM input_lines")?;
    let problems = listed(
        client,
        "SELECT format('line %s is kept %s times (lines %s)', upper(encode(line_sha256, 'hex')),
                       count(*), string_agg(seq::text, ', ' ORDER BY seq))
           FROM input_lines GROUP BY line_sha256 HAVING count(*) > 1
          ORDER BY min(seq)",
        "repeated lines",
    )?;
    Ok((lines, problems))
}

/// Every callback was read from a line marked as a callback, and every such line has
/// its callback.
fn callback_lines(client: &mut Client) -> Found {
    let callbacks = count(client, "SELECT count(*) FROM callbacks")?;
    let mut problems = listed(
        client,
        "SELECT format('callback #%s names line %s, which is %s', c.seq, c.line_seq,
                       coalesce('a line with status ' || l.status, 'not in the ledger'))
           FROM callbacks c LEFT JOIN input_lines l ON l.seq = c.line_seq
          WHERE l.status IS DISTINCT FROM 'callback'
          ORDER BY c.seq",
        "callbacks on other lines",
    )?;
    problems.extend(listed(
        client,
        "SELECT format('line %s is marked as a callback and has none', seq)
           FROM input_lines l
          WHERE status = 'callback'
            AND NOT EXISTS (SELECT 1 FROM callbacks c WHERE c.line_seq = l.seq)
          ORDER BY seq",
        "callback lines without their callback",
    )?);
    Ok((callbacks, problems))
}

/// Every job's latest attempt is on record.
fn latest_attempts(client: &mut Client) -> Found {
    let jobs = count(client, "SELECT count(*) FROM jobs")?;
    let problems = listed(
        client,
        "SELECT format('job %s names attempt %s as its latest, which is not on record',
                       '''' || replace(job_id, '''', '''''') || '''', latest_attempt)
           FROM jobs j
          WHERE NOT EXISTS (SELECT 1 FROM attempts a
                             WHERE a.job_id = j.job_id AND a.attempt = j.latest_attempt)
          ORDER BY job_id",
        "jobs without their latest attempt",
    )?;
    Ok((jobs, problems))
}

/// Every callback is in the table of text its searches go through, and the table holds
/// no other (as SQLite's twin checks its index): a callback missing there would never
/// be found by a search. Its GIN index is in place too: without it, searches still
/// find the same callbacks, reading them all (the index goes when the extension whose
/// operator class it uses is dropped with CASCADE, as a DROP SCHEMA ... CASCADE of the
/// schema holding the extension does).
fn text_index(client: &mut Client) -> Found {
    let indexed = count(client, "SELECT count(*) FROM callback_text")?;
    let mut problems = listed(
        client,
        "SELECT format('callback #%s is not in the text index', seq)
           FROM callbacks c
          WHERE NOT EXISTS (SELECT 1 FROM callback_text t WHERE t.seq = c.seq)
          ORDER BY seq",
        "callbacks a search cannot find",
    )?;
    problems.extend(listed(
        client,
        "SELECT format('the text index holds callback #%s, which is not in the ledger', seq)
           FROM callback_text t
          WHERE NOT EXISTS (SELECT 1 FROM callbacks c WHERE c.seq = t.seq)
          ORDER BY seq",
        "index rows without their callback",
    )?);
    if count(
        client,
        "SELECT count(*) FROM pg_class
          WHERE relnamespace = current_schema()::regnamespace
            AND relname = 'callback_text_trigrams' AND relkind = 'i'",
    )? == 0
    {
        problems.push(
            "the trigram index callback_text_trigrams is missing: searches find the same callbacks, reading every one".to_owned(),
        );
    }
    Ok((indexed, problems))
}

/// What the ledger keeps for the reconciliation's glance (each finding's jobs, counted
/// over their rows; each hour's jobs by state and its two findings) is what the walk
/// over every job finds, judged as the reconciliation's walk judges it: read as the console reads it, in the
/// walk's own snapshot. The rows are judged again only when a write touches their job,
/// so a row changed by hand stays wrong until a copy makes them all again.
fn kept_reconciliation(ledger: &Ledger) -> Result<(i64, Vec<String>), StoreError> {
    let location = ledger.location();
    let url = location.to_string();
    let schema = if url.contains('?') { '&' } else { '?' };
    let mend = format!(
        "a copy makes what the ledger keeps for the reconciliation again from its rows: `jobledger copy --from {url} --to {url}{schema}schema=NEW` (NEW: a schema not in use), then use that ledger"
    );
    let against = ledger.walk_after(
        |tx| {
            let mut query = |sql: &'static str, params: &[&(dyn ToSql + Sync)]| {
                tx.query(sql, params)
                    .map_err(|e| super::classify(location, e))
            };
            let kept = Finding::ALL
                .iter()
                .map(|&finding| Ok((finding, finding_kept_by(finding, usize::MAX, &mut query)?)))
                .collect::<Result<Vec<_>, StoreError>>()?;
            let hours = hours_of(&query(RECENT_HOURS, &[&i64::MAX])?, location)?;
            Ok(KeptAgainstWalk::new(kept, hours))
        },
        KeptAgainstWalk::note,
    )?;
    Ok(against.problems(usize::try_from(LISTED).unwrap_or(usize::MAX), &mend))
}

/// An answer is given on a held or quarantined callback (the only ones with a question).
fn answers(client: &mut Client) -> Found {
    let answers = count(client, "SELECT count(*) FROM answers")?;
    let problems = listed(
        client,
        "SELECT format('answer %s is on callback #%s, which is %s', a.id, a.callback_seq,
                       coalesce('disposition ' || c.disposition, 'not in the ledger'))
           FROM answers a LEFT JOIN callbacks c ON c.seq = a.callback_seq
          WHERE c.disposition IS DISTINCT FROM 'hold'
            AND c.disposition IS DISTINCT FROM 'quarantine'
          ORDER BY a.id",
        "answers on callbacks with no question",
    )?;
    Ok((answers, problems))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_migrations_foreign_keys_and_triggers_are_found() {
        let fks = expected_foreign_keys();
        assert!(fks.contains(&ForeignKey {
            table: "callbacks".into(),
            column: "line_seq".into(),
            parent: "input_lines".into(),
            key: "seq".into(),
        }));
        assert!(fks.contains(&ForeignKey {
            table: "decision_answers".into(),
            column: "previous_answer".into(),
            parent: "decision_answers".into(),
            key: "id".into(),
        }));
        assert!(fks.contains(&ForeignKey {
            table: "callback_text".into(),
            column: "seq".into(),
            parent: "callbacks".into(),
            key: "seq".into(),
        }));
        assert_eq!(fks.len(), 27, "{fks:#?}");
        let triggers = expected_triggers();
        assert!(triggers.contains(&("callbacks_no_delete".into(), "callbacks".into())));
        assert!(triggers.contains(&("input_lines_keep_raw".into(), "input_lines".into())));
        assert!(triggers.contains(&("saved_views_written_by".into(), "saved_views".into())));
        assert!(triggers.contains(&(
            "callback_text_append_only_delete".into(),
            "callback_text".into()
        )));
    }
}
