//! The ledger: what it keeps (the rows of each family of tables, as plain values) and
//! the errors a person can act on, whatever engine keeps it.
//!
//! Two engines: [`sqlite`], a ledger in a SQLite file (the default, for one machine),
//! and [`postgres`], a ledger in a schema of a PostgreSQL server (for a team). Every
//! SQL statement of the crate is in their folders, and no type of either driver
//! appears in this module's public face: [`Ledger`] and [`Writer`] pass each call to
//! the engine the ledger is kept in.
//!
//! The plain values are kept one module per family of tables, named as the engine's
//! modules are: `lines`, `jobs`, `callbacks`, `answers`, `owners`, `outbox`,
//! `outputs`, `decisions`, `submissions`, `views`, `counts`, with `keyset` (how a page
//! of any list is asked for), `timeline`, `finding_jobs` and `job_accounts`, and
//! `reconcile_check` (how `check` compares what each engine keeps for the
//! reconciliation with the walk over every job).
//!
//! What only a ledger kept in a file can offer stays with the engine and is
//! re-exported from it: the checks of the file and their findings ([`CHECKS`],
//! [`CheckFinding`]), the salvage of a damaged file ([`Salvage`], [`TableSalvage`],
//! [`Lost`]), the lock file that tells a bulk writer someone waits
//! ([`WaitingWriters`]) and whether the path still holds the file opened
//! ([`FileAtPath`]).

mod answers;
mod callbacks;
mod claims;
mod copy;
mod counts;
mod decisions;
mod error;
mod finding_jobs;
mod job_accounts;
mod jobs;
mod keyset;
mod ledger;
mod lines;
mod looks;
mod outbox;
mod outputs;
mod owners;
mod postgres;
mod reads;
mod reconcile_check;
mod sqlite;
mod submissions;
mod timeline;
mod views;
mod writer;

pub use answers::*;
pub use callbacks::*;
pub use claims::*;
pub use copy::{Cell, Kind, TABLES, Table};
pub use counts::*;
pub use decisions::*;
pub use error::{EngineFailure, Location, StoreError};
pub use finding_jobs::*;
pub use job_accounts::*;
pub use jobs::*;
pub use keyset::*;
pub use ledger::{Canceller, Ledger};
pub use lines::*;
pub use looks::*;
pub use outbox::*;
pub use outputs::*;
pub use owners::*;
pub use postgres::{
    DEFAULT_SCHEMA, SERVER_SCHEMA_VERSION, ServerAddress, is_server_url, roles_sql,
};
pub use reads::Reads;
pub use sqlite::{
    APPLICATION_ID, BULK_CACHE_KIB, BULK_CHECKPOINT_PAGES, BUSY_TIMEOUT, CHECKS, CheckFinding,
    FileAtPath, Lost, PAGE_SIZE, SCHEMA_VERSION, Salvage, TableSalvage, WaitingWriters,
    with_suffix,
};
pub use submissions::*;
pub use timeline::*;
pub use views::*;
pub use writer::Writer;

/// How a ledger is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    /// Create the file if needed, migrate, allow writes.
    ReadWrite,
    /// The file must exist and be current; nothing is ever written.
    ReadOnly,
}
