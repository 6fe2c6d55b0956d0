//! jobledger: a review console over a SQLite ledger of asynchronous jobs and their callbacks.
//!
//! Lines of the event stream ([`event`]) are read by [`ingest`], which keeps every
//! line in the ledger ([`store`], the only module with SQL) and asks the pure
//! disposition table ([`decision`]) what each callback means. [`reconcile`] accounts
//! for every accepted job; [`review`] and [`outbox`] take a person's answers and
//! requests; [`cli`] and [`console`] are the two front ends over all of it,
//! [`evidence`] words a case's facts alike for both, and [`report`] prints what the
//! command line shows. Every closed set of names (states,
//! dispositions, verdicts, ...) is declared once with [`closed_set`].

pub mod cli;
pub mod clock;
pub mod closed_set;
pub mod console;
pub mod decision;
pub mod demo;
pub mod escalation;
pub mod event;
pub mod evidence;
pub mod filter;
pub mod inert;
pub mod ingest;
pub mod outbox;
pub mod reconcile;
pub mod report;
pub mod review;
pub mod signed;
pub mod store;
