//! Where a ledger lives: the one part of the suite that knows the engine.
//!
//! A story is given a [`Location`] holding a fresh, empty ledger. It opens the ledger
//! through the public API ([`Location::open`]) and runs the binary on it
//! ([`Location::run`] and friends, which pass the location as `--db`). Nothing else in
//! the suite names a file, a path or an engine.

use std::ffi::OsString;
use std::io::Write as _;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};

use jobledger::store::{Ledger, OpenMode};
use serde_json::Value;
use tempfile::TempDir;

use crate::support::binary::{bare, refused, succeeded};
use crate::support::fixture::NOW;

/// Where one story's ledger lives, and a directory of its own the binary runs in (so
/// that nothing a command writes by default lands in the repository).
pub struct Location {
    engine: Engine,
    /// The binary's working directory; for SQLite it also holds the ledger file.
    workdir: TempDir,
}

/// What the ledger keeps for the reconciliation, changed behind jobledger's back, as
/// anyone with the file, or the server's keys, can change it.
#[derive(Debug, Clone, Copy)]
pub enum KeptEdit<'a> {
    /// The row saying `finding` names `job` deleted.
    DropFinding { finding: &'a str, job: &'a str },
    /// A row saying `finding` names `job` added.
    AddFinding { finding: &'a str, job: &'a str },
    /// `n` added to the jobs counted in `job`'s hour in its state.
    CountInHour { job: &'a str, n: i64 },
}

/// What the ledger is kept in.
enum Engine {
    /// A SQLite file.
    Sqlite { path: PathBuf },
    /// A schema in a database of its own on the tests' PostgreSQL server.
    Postgres { url: String },
}

impl Location {
    /// A new, empty ledger in a SQLite file of a temporary directory.
    pub fn sqlite() -> Location {
        let workdir = tempfile::tempdir().expect("a temporary directory");
        let path = workdir.path().join("ledger.db");
        let location = Location {
            engine: Engine::Sqlite { path },
            workdir,
        };
        // Made through the public API, as the first `ingest` would make it.
        drop(location.open());
        location
    }

    /// A new, empty ledger in a fresh database of the tests' PostgreSQL server (the
    /// server is started by the first test that asks, and stopped when they end).
    pub fn postgres() -> Location {
        let server = crate::support::postgres::PgServer::shared();
        let database = server.fresh_database(std::thread::current().name().unwrap_or("story"));
        let location = Location {
            engine: Engine::Postgres {
                url: server.url(&database),
            },
            workdir: tempfile::tempdir().expect("a temporary directory"),
        };
        drop(location.open());
        location
    }

    /// The store's name for where this ledger is.
    fn store_location(&self) -> jobledger::store::Location {
        jobledger::store::Location::parse(self.db_arg().as_os_str()).expect("a valid --db")
    }

    /// The ledger, opened read-write through the public API.
    pub fn open(&self) -> Ledger {
        match &self.engine {
            Engine::Sqlite { path } => Ledger::open(path).expect("the ledger opens"),
            Engine::Postgres { .. } => Ledger::open_at(&self.store_location(), OpenMode::ReadWrite)
                .expect("the ledger opens"),
        }
    }

    /// The ledger, opened through the public API for reading only.
    pub fn open_read_only(&self) -> Ledger {
        match &self.engine {
            Engine::Sqlite { path } => {
                Ledger::open_read_only(path).expect("the ledger opens read-only")
            }
            Engine::Postgres { .. } => Ledger::open_at(&self.store_location(), OpenMode::ReadOnly)
                .expect("the ledger opens read-only"),
        }
    }

    /// The database role a person's write through this location is recorded as: the
    /// tests' server's role on PostgreSQL, which sets it on every such row itself; none
    /// in a file, which has no roles.
    pub fn role(&self) -> Option<String> {
        match &self.engine {
            Engine::Sqlite { .. } => None,
            Engine::Postgres { .. } => Some(crate::support::postgres::USER.to_owned()),
        }
    }

    /// What `--db` is given to name this ledger.
    pub fn db_arg(&self) -> OsString {
        match &self.engine {
            Engine::Sqlite { path } => path.clone().into_os_string(),
            Engine::Postgres { url } => url.into(),
        }
    }

    /// `jobledger --db LOCATION --now NOW ARGS...` on no input, from the working
    /// directory, with no ledger or reviewer taken from the environment.
    fn command(&self, args: &[&str]) -> Command {
        let mut command = self.command_without_now(&[]);
        command.args(["--now", NOW]).args(args);
        command
    }

    /// `jobledger --db LOCATION ARGS...`, the clock left to the ledger or the system.
    fn command_without_now(&self, args: &[&str]) -> Command {
        let mut command = bare();
        command
            .current_dir(self.workdir.path())
            .arg("--db")
            .arg(self.db_arg())
            .args(args);
        command
    }

    /// Runs the binary with no `--now` and expects JSON on standard output.
    pub fn json_at_own_clock(&self, args: &[&str]) -> Value {
        let out = succeeded(
            &self
                .command_without_now(args)
                .output()
                .expect("the binary runs"),
            args,
        );
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {out}"))
    }

    /// Runs the binary and waits.
    pub fn run(&self, args: &[&str]) -> Output {
        self.command(args).output().expect("the binary runs")
    }

    /// Runs the binary and expects success; its standard output.
    pub fn ok(&self, args: &[&str]) -> String {
        succeeded(&self.run(args), args)
    }

    /// Runs the binary and expects JSON on standard output.
    pub fn json(&self, args: &[&str]) -> Value {
        let out = self.ok(args);
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {out}"))
    }

    /// Runs the binary and expects a refusal (exit 1) whose message holds each of
    /// `words`; its standard error.
    pub fn refused(&self, args: &[&str], words: &[&str]) -> String {
        refused(&self.run(args), words)
    }

    /// Makes `edit` in the ledger's own tables, as a person with the file or the
    /// server's keys would (jobledger is not asked).
    pub fn edit_kept(&self, edit: KeptEdit<'_>) {
        let (sql, args): (&str, Vec<String>) = match (&self.engine, edit) {
            (_, KeptEdit::DropFinding { finding, job }) => (
                "DELETE FROM reconcile_findings WHERE finding = $1 AND job_id = $2",
                vec![finding.to_owned(), job.to_owned()],
            ),
            (_, KeptEdit::AddFinding { finding, job }) => (
                "INSERT INTO reconcile_findings (finding, job_id) VALUES ($1, $2)",
                vec![finding.to_owned(), job.to_owned()],
            ),
            (Engine::Sqlite { .. }, KeptEdit::CountInHour { job, n }) => (
                "UPDATE reconcile_hours SET n = n + $2
                  WHERE (hour, name) = (SELECT substr(accepted_at, 1, 13) || ':00:00.000Z',
                                               'jobs.' || state
                                          FROM jobs WHERE job_id = $1)",
                vec![job.to_owned(), n.to_string()],
            ),
            (Engine::Postgres { .. }, KeptEdit::CountInHour { job, n }) => (
                "UPDATE reconcile_hours SET n = n + $2::text::bigint
                  WHERE (hour, name) = (SELECT left(accepted_at, 13) || ':00:00.000Z',
                                               'jobs.' || state
                                          FROM jobs WHERE job_id = $1)",
                vec![job.to_owned(), n.to_string()],
            ),
        };
        let changed = match &self.engine {
            Engine::Sqlite { path } => {
                let conn = rusqlite::Connection::open(path).expect("the file opens");
                conn.execute(&sql.replace('$', "?"), rusqlite::params_from_iter(&args))
                    .unwrap_or_else(|e| panic!("{sql}: {e}"))
            }
            Engine::Postgres { url } => {
                let mut client = ::postgres::Client::connect(url, ::postgres::NoTls)
                    .expect("the server answers");
                client
                    .batch_execute("SET search_path TO jobledger")
                    .expect("the ledger's schema");
                let params: Vec<&(dyn ::postgres::types::ToSql + Sync)> =
                    args.iter().map(|a| a as _).collect();
                let changed = client
                    .execute(sql, &params)
                    .unwrap_or_else(|e| panic!("{sql}: {e}"));
                usize::try_from(changed).expect("a count of rows")
            }
        };
        assert_eq!(changed, 1, "{edit:?} changed {changed} rows");
    }

    /// Runs what `check` names to make the reconciliation's kept rows again from the
    /// ledger's rows (a file: a salvage into a new file, then restored in its place; a
    /// server: a copy into a new schema), and gives `check --json` of the ledger made.
    pub fn mend_kept(&self) -> Value {
        match &self.engine {
            Engine::Sqlite { .. } => {
                let made = self.workdir.path().join("mended.db");
                let made = made.to_str().expect("a UTF-8 path");
                self.ok(&["backup", "--salvage", made]);
                self.ok(&["restore", made]);
                self.json(&["check", "--json"])
            }
            Engine::Postgres { url } => {
                let made = format!("{url}&schema=mended");
                let copied = bare()
                    .current_dir(self.workdir.path())
                    .args(["copy", "--from", url, "--to", &made])
                    .output()
                    .expect("the binary runs");
                succeeded(&copied, &["copy"]);
                let checked = bare()
                    .current_dir(self.workdir.path())
                    .args(["--db", &made, "check", "--json"])
                    .output()
                    .expect("the binary runs");
                serde_json::from_str(&succeeded(&checked, &["check"])).expect("JSON")
            }
        }
    }

    /// `jobledger ingest` of `stream` on standard input: what it printed.
    pub fn ingest(&self, stream: &str) -> String {
        let args = ["ingest", "-"];
        let mut child = self
            .command(&args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        child
            .stdin
            .take()
            .expect("standard input is piped")
            .write_all(stream.as_bytes())
            .expect("the stream is written");
        let out = child.wait_with_output().expect("the binary runs");
        succeeded(&out, &args)
    }
}
