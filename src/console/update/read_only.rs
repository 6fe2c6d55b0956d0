//! Why nothing can be written: the one sentence every write path shows when writes
//! are off (the answer, owner, request, withdraw and saved-view paths alike).

use super::super::model::Model;

const READ_ONLY: &str =
    "read-only: the console was opened with --read-only, nothing can be written";

/// Why nothing can be written: opened read-only, or the file is gone from its path.
pub(super) fn why_read_only(model: &Model) -> &'static str {
    if model.server_away {
        super::server_watch::AWAY
    } else if model.ledger_gone {
        super::file_watch::GONE
    } else {
        READ_ONLY
    }
}
