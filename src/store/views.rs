//! Saved views: a console tab and a query under a name a team shares.

use crate::clock::Timestamp;
use serde::Serialize;

/// A view as it was last saved under its name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SavedView {
    pub name: String,
    /// The tab's title (`Held`, `All callbacks`, ...).
    pub tab: String,
    /// The query, in the filter language (empty: no filter).
    pub query: String,
    pub saved_by: String,
    pub saved_at: Timestamp,
    /// The database role that saved it, when the ledger knows it (see
    /// [`crate::store::AnswerRow::written_by`]); `None` in a view about to be saved:
    /// the server sets it, never the client.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub written_by: Option<String>,
}
