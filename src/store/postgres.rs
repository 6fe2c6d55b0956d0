//! The PostgreSQL engine: a ledger kept in a schema of a PostgreSQL server (15 or
//! newer), for a team whose reviewers and ingesters work from many machines.
//!
//! The tables, their columns and their constraints are the SQLite ledger's, so that
//! people's own SQL reads both; the migrations are this engine's own
//! (`migrations/`), and evidence is kept from being rewritten by triggers. [`Ledger`]
//! connects (`address`: the URL, TLS, the password kept out of every message), finds
//! or makes the ledger's schema (`open`), and offers the same named reads as the
//! SQLite engine, one module per family of tables; writes go through a [`Writer`],
//! one transaction committed whole or not at all.

mod address;
mod ahead;
mod answers;
mod callbacks;
mod check;
mod claims;
mod columns;
mod copy;
mod counts;
mod decisions;
mod filter;
mod finding_jobs;
mod job_accounts;
mod jobs;
mod keyset;
mod lines;
mod looks;
mod open;
mod outbox;
mod outputs;
mod owners;
mod query;
mod reconcile_kept;
mod submissions;
mod text_index;
mod timeline;
mod views;
mod watch;
mod writer;

use std::cell::{Cell, RefCell, RefMut};
use std::collections::HashMap;

use postgres::error::SqlState;
use postgres::types::ToSql;
use postgres::{Client, Row, Statement};

use super::{Location, OpenMode, StoreError};

pub use address::{DEFAULT_SCHEMA, ServerAddress, is_server_url};
pub use open::SCHEMA_VERSION as SERVER_SCHEMA_VERSION;
pub use writer::Writer;

/// A ledger open on a PostgreSQL server: one connection.
pub struct Ledger {
    client: RefCell<Client>,
    /// Statements prepared on the connection, by their SQL: each is parsed and planned
    /// by the server once per connection, not once per call.
    statements: RefCell<HashMap<&'static str, Statement>>,
    /// The rows the planner expects of each text term asked of it, by the term, and
    /// when it was asked (the callback lists' reads: `callbacks.rs`).
    text_rows: RefCell<HashMap<String, (f64, std::time::Instant)>>,
    /// Whether the server may start parallel workers for the connection's statements
    /// (its default), or not (a page a person waits on: [`Ledger::workers`]).
    parallel: Cell<bool>,
    location: Location,
    mode: OpenMode,
    /// The commit counter as last read, and a listener that says when to read it
    /// again; started by the first [`Ledger::data_version`] (a console's).
    watch: RefCell<Option<watch::CommitWatch>>,
}

impl Ledger {
    /// Opens the ledger at `address` (making its schema first when `mode` allows and
    /// there is none).
    pub fn open(address: &ServerAddress, mode: OpenMode) -> Result<Ledger, StoreError> {
        let client = open::open(address, mode)?;
        Ok(Ledger {
            client: RefCell::new(client),
            statements: RefCell::new(HashMap::new()),
            text_rows: RefCell::new(HashMap::new()),
            parallel: Cell::new(true),
            location: Location::Server(Box::new(address.clone())),
            mode,
            watch: RefCell::new(None),
        })
    }

    /// Where this ledger is, as shown to a person (no password).
    pub fn location(&self) -> &Location {
        &self.location
    }

    /// Runs `reads` in one read-only transaction at one snapshot (`REPEATABLE READ`),
    /// so that they all see the ledger at one moment whatever commits meanwhile.
    pub fn in_one_snapshot<T>(
        &self,
        reads: impl FnOnce(&Self) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.client()
            .batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            .map_err(|e| self.err(e))?;
        let read = reads(self);
        let ended = self.client().batch_execute("ROLLBACK");
        let read = read?;
        ended.map_err(|e| self.err(e))?;
        Ok(read)
    }

    /// Starts a write transaction; nothing is kept unless it is committed.
    pub fn writer(&mut self) -> Result<Writer<'_>, StoreError> {
        if self.mode == OpenMode::ReadOnly {
            return Err(StoreError::ReadOnly {
                ledger: self.location.clone(),
                detail: "it was opened for reading only".to_owned(),
            });
        }
        let Ledger {
            client,
            statements,
            location,
            ..
        } = self;
        // Read committed whatever the server's or role's default: a person's write
        // waits on a lock, then must read what the one it waited for committed.
        let tx = client
            .get_mut()
            .build_transaction()
            .isolation_level(postgres::IsolationLevel::ReadCommitted)
            .start()
            .map_err(|e| classify(location, e))?;
        Ok(Writer::new(tx, location, statements))
    }

    /// Nothing to do: the server keeps its own pages.
    #[allow(clippy::unused_self, clippy::unnecessary_wraps)] // the SQLite engine's signature
    pub fn use_bulk_cache(&self) -> Result<(), StoreError> {
        Ok(())
    }

    /// Every commit is durable once the server says so (`synchronous_commit` on, the
    /// server's default); a server set otherwise is its administrator's choice.
    pub fn keep_writes_durable(&self) -> Result<(), StoreError> {
        self.client()
            .batch_execute("SET synchronous_commit = on")
            .map_err(|e| self.err(e))
    }

    /// Does each commit wait for the server's log to be flushed?
    pub fn writes_are_durable(&self) -> Result<bool, StoreError> {
        let row = self.one("SHOW synchronous_commit", &[])?;
        Ok(row.get::<_, String>(0) != "off")
    }

    /// A number that changes whenever a write is committed, by anyone: read from the
    /// server when a commit was heard of, and every few seconds whatever was heard
    /// (see `watch`), so that a console asking four times a second costs the server
    /// nothing while nobody writes.
    pub fn data_version(&self) -> Result<i64, StoreError> {
        let mut watch = self.watch.borrow_mut();
        if let Some(watch) = watch.as_mut()
            && !watch.due()
        {
            return Ok(watch.counter);
        }
        let counter: i64 = self
            .one("SELECT n FROM ledger_commits WHERE id = 1", &[])?
            .get(0);
        if let Some(watch) = watch.as_mut() {
            watch.counter = counter;
            watch.read_at = std::time::Instant::now();
        } else {
            let Location::Server(address) = &self.location else {
                unreachable!("a PostgreSQL ledger is on a server")
            };
            *watch = Some(watch::CommitWatch::start(address, counter));
        }
        Ok(counter)
    }

    /// Nothing to do: a server ledger has no log beside it.
    #[allow(clippy::unused_self)] // the SQLite engine's signature
    pub fn leave_the_log_empty(&self) {}

    /// No lock file tells a bulk writer that someone waits: a server's writers do not
    /// wait for one another's batches (row locks, not a ledger lock).
    #[allow(clippy::unused_self)] // the SQLite engine's signature
    pub fn waiting_writers(&self) -> Option<super::WaitingWriters> {
        None
    }

    pub(super) fn client(&self) -> RefMut<'_, Client> {
        self.client.borrow_mut()
    }

    /// Lets the server start parallel workers for the statements that follow, as it
    /// would by default, or not: said only when it changes (a round trip).
    ///
    /// A page of a list stops when it holds a page of rows, and the planner sends
    /// workers to one it expects to walk far for them. Starting them took 6 to 12 ms on
    /// two loaded cores, longer than the walk: Held under `by:staff gap>5m` at a
    /// million jobs read its empty page in 11.9-17.8 ms with two workers and 6.0 ms with
    /// none. A count reads every row, where workers pay: `-answered:yes` in All
    /// callbacks counted in 0.51 s with them and 0.84 s with the server's
    /// `parallel_setup_cost` raised until its plan had none.
    pub(super) fn workers(&self, allowed: bool) -> Result<(), StoreError> {
        if self.parallel.get() == allowed {
            return Ok(());
        }
        let sql = if allowed {
            "RESET max_parallel_workers_per_gather"
        } else {
            "SET max_parallel_workers_per_gather = 0"
        };
        self.client().batch_execute(sql).map_err(|e| self.err(e))?;
        self.parallel.set(allowed);
        Ok(())
    }

    pub(super) fn err(&self, e: postgres::Error) -> StoreError {
        classify(&self.location, e)
    }

    /// The statement for `sql`, prepared on this connection once.
    pub(super) fn statement(&self, sql: &'static str) -> Result<Statement, StoreError> {
        if let Some(st) = self.statements.borrow().get(sql) {
            return Ok(st.clone());
        }
        let st = self.client().prepare(sql).map_err(|e| self.err(e))?;
        self.statements.borrow_mut().insert(sql, st.clone());
        Ok(st)
    }

    /// Every row of a statement prepared once.
    pub(super) fn rows(
        &self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, StoreError> {
        let st = self.statement(sql)?;
        self.client().query(&st, params).map_err(|e| self.err(e))
    }

    /// The row of a statement that gives at most one.
    pub(super) fn row(
        &self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Option<Row>, StoreError> {
        let st = self.statement(sql)?;
        self.client()
            .query_opt(&st, params)
            .map_err(|e| self.err(e))
    }

    /// The row of a statement that always gives one (a count, a setting).
    pub(super) fn one(
        &self,
        sql: &'static str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Row, StoreError> {
        let st = self.statement(sql)?;
        self.client()
            .query_one(&st, params)
            .map_err(|e| self.err(e))
    }

    /// Every row of a statement built for this call (a query's filters vary).
    pub(super) fn rows_of(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> Result<Vec<Row>, StoreError> {
        self.client().query(sql, params).map_err(|e| self.err(e))
    }
}

/// An error's words with those of its causes, each said once ("error connecting to
/// server: No such file or directory").
fn words_of(e: &postgres::Error) -> String {
    let mut words = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(cause) = source {
        let said = cause.to_string();
        if !words.contains(&said) {
            words.push_str(": ");
            words.push_str(&said);
        }
        source = cause.source();
    }
    words
}

/// What the server said of a statement it refused, in its own words, once: the
/// client's error says "db error" and then the same words again as its cause.
#[derive(Debug)]
struct ServerSaid(String);

impl From<&postgres::error::DbError> for ServerSaid {
    fn from(db: &postgres::error::DbError) -> Self {
        let mut words = format!("{}: {}", db.severity(), db.message());
        if let Some(detail) = db.detail() {
            words.push_str(" (");
            words.push_str(detail);
            words.push(')');
        }
        ServerSaid(words)
    }
}

impl std::fmt::Display for ServerSaid {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ServerSaid {}

/// Turns a PostgreSQL error into the error a person can act on; it never holds the
/// password (neither the server's words nor the client's carry it).
pub(crate) fn classify(location: &Location, e: postgres::Error) -> StoreError {
    if let Some(db) = e.as_db_error() {
        let code = db.code();
        if *code == SqlState::INSUFFICIENT_PRIVILEGE || *code == SqlState::READ_ONLY_SQL_TRANSACTION
        {
            return StoreError::ReadOnly {
                ledger: location.clone(),
                detail: db.message().to_owned(),
            };
        }
        // The server shutting down or starting: it is going away, or not back yet.
        if *code == SqlState::ADMIN_SHUTDOWN
            || *code == SqlState::CRASH_SHUTDOWN
            || *code == SqlState::CANNOT_CONNECT_NOW
        {
            return StoreError::Unreachable {
                ledger: location.clone(),
                detail: db.message().to_owned(),
            };
        }
        if *code == SqlState::DISK_FULL {
            return StoreError::DiskFull {
                ledger: location.clone(),
            };
        }
        if *code == SqlState::T_R_SERIALIZATION_FAILURE || *code == SqlState::T_R_DEADLOCK_DETECTED
        {
            return StoreError::Busy {
                ledger: location.clone(),
            };
        }
        return StoreError::Engine {
            ledger: location.clone(),
            failure: super::EngineFailure::new(ServerSaid::from(db)),
        };
    }
    // No answer from the server, or none it could be asked in (a refused TLS
    // handshake): the server is named, with the cause.
    if e.is_closed()
        || std::error::Error::source(&e).is_some_and(<dyn std::error::Error>::is::<std::io::Error>)
        || e.to_string().contains("TLS")
    {
        return StoreError::Unreachable {
            ledger: location.clone(),
            detail: words_of(&e),
        };
    }
    StoreError::Engine {
        ledger: location.clone(),
        failure: super::EngineFailure::new(e),
    }
}

/// The SQL of the three roles for the ledger in `schema` (assets/postgres-roles.sql
/// with the schema's name in place).
pub fn roles_sql(schema: &str) -> String {
    // The name was checked to need no quotes when the address was read.
    include_str!("../../assets/postgres-roles.sql").replace(":\"schema\"", schema)
}

impl Ledger {
    /// Creates the three roles and grants them on this ledger's schema.
    pub fn apply_roles(&self) -> Result<(), StoreError> {
        let Location::Server(address) = &self.location else {
            unreachable!("a PostgreSQL ledger is on a server")
        };
        self.client()
            .batch_execute(&roles_sql(address.schema()))
            .map_err(|e| self.err(e))
    }

    /// What stops a statement this connection runs, from another thread.
    pub fn canceller(&self) -> crate::store::Canceller {
        let Location::Server(address) = &self.location else {
            unreachable!("a PostgreSQL ledger is on a server")
        };
        crate::store::Canceller::Postgres(self.client.borrow().cancel_token(), address.clone())
    }

    /// Replaces a connection the server dropped by a new one (the statements
    /// prepared on the old one are forgotten).
    pub fn reconnect(&self) -> Result<(), StoreError> {
        let Location::Server(address) = &self.location else {
            unreachable!("a PostgreSQL ledger is on a server")
        };
        let client = open::open(address, self.mode)?;
        *self.client.borrow_mut() = client;
        self.statements.borrow_mut().clear();
        Ok(())
    }

    /// May the role connected write what a person writes? Asked of the server's
    /// privileges, so that a console opened by a reader offers no write key.
    pub fn may_answer(&self) -> Result<bool, StoreError> {
        if self.mode == OpenMode::ReadOnly {
            return Ok(false);
        }
        let row = self.one(
            "SELECT has_table_privilege('answers', 'INSERT')
                AND has_table_privilege('ledger_commits', 'UPDATE')",
            &[],
        )?;
        Ok(row.get(0))
    }
}
