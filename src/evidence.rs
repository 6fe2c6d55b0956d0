//! What is set before a person to decide a case, read from the ledger and worded the
//! same wherever it is shown: the comparison of a held callback with what it conflicts
//! with ([`compare`]), a job's timeline in words ([`timeline`]), and the evidence
//! bundle that gathers all the ledger holds on a case or a job into one document
//! ([`bundle`]). The console draws them, and writes a case's bundle (`e`); the
//! command line prints or writes bundles (`export`).

pub mod bundle;
pub mod compare;
pub mod timeline;
