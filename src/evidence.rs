//! What is set before a person to decide a case, read from the ledger and worded the
//! same wherever it is shown: the comparison of a held callback with what it conflicts
//! with ([`compare`]) and a job's timeline in words ([`timeline`]). The console draws
//! them; the command line puts them in a document.

pub mod compare;
pub mod timeline;
