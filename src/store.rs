//! The ledger: what it keeps (the rows of each family of tables, as plain values) and
//! the errors a person can act on, whatever engine keeps it.
//!
//! One engine today, [`sqlite`]: a ledger in a SQLite file. Every SQL statement of
//! the crate is in that folder, and no type of its driver appears in this module's
//! public face.

mod error;
mod rows;
mod sqlite;

pub use error::{EngineFailure, Location, StoreError};
pub use rows::*;
pub use sqlite::{
    APPLICATION_ID, BULK_CACHE_KIB, BULK_CHECKPOINT_PAGES, BUSY_TIMEOUT, CHECKS, CallbackFilter,
    CallbackKey, CheckFinding, ConflictingSubmission, DecisionAnswerRow, DecisionRow,
    DivergentJob, FileAtPath, Finding, FindingJob, HistoryEntry, JobAccount, JobDefaults, JobKey,
    Keyset, Ledger, Lost, MissingCounts, NewAttempt, NewDecision, NewDecisionAnswer, NewRepeat,
    OpenJob, PAGE_SIZE, PageRequest, SCHEMA_VERSION, Salvage, SavedView, SortValue,
    SubmittedIdentity, TableSalvage, TimelineEntry, TimelineFact, WaitingWriters, Writer,
    with_suffix,
};

/// How a ledger is opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpenMode {
    /// Create the file if needed, migrate, allow writes.
    ReadWrite,
    /// The file must exist and be current; nothing is ever written.
    ReadOnly,
}

