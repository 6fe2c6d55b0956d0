//! The stories, a file per family, and what several of them start from.

pub mod answers;
pub mod cancel;
pub mod check;
pub mod claims;
pub mod clock;
pub mod counts;
pub mod dispositions;
pub mod ingest;
pub mod looks;
pub mod outbox;
pub mod owners;
pub mod paging;
pub mod reconcile;
pub mod search;
pub mod signed;
pub mod timeline;
pub mod views;

use serde_json::Value;

use crate::location::Location;
use crate::support::fixture::{booking_afternoon, demo_queue};

/// The worked example ingested through the binary.
pub fn with_afternoon(location: &Location) {
    location.ingest(&booking_afternoon());
}

/// The worked example and the rest of the demo queue, ingested through the binary.
pub fn with_demo_streams(location: &Location) {
    location.ingest(&booking_afternoon());
    location.ingest(&demo_queue());
}

/// Every callback, as `callbacks --json` lists it (in ingest order).
pub fn callbacks(location: &Location) -> Vec<Value> {
    list(location.json(&["callbacks", "--json"]))
}

/// The sequence number of the first callback with this delivery id.
pub fn seq_of(location: &Location, delivery_id: &str) -> i64 {
    callbacks(location)
        .iter()
        .find(|c| c["delivery_id"] == delivery_id)
        .and_then(|c| c["seq"].as_i64())
        .unwrap_or_else(|| panic!("no callback with delivery id {delivery_id:?}"))
}

/// `row`, a person's row as `--json` prints it, with the database role that wrote it
/// where the ledger knows one (`written_by`, the server's; a file has none, and its
/// JSON no such key): who wrote it is the ledger's to say, never the client's.
pub fn as_written(location: &Location, mut row: Value) -> Value {
    if let Some(role) = location.role() {
        row["written_by"] = Value::from(role);
    }
    row
}

/// A JSON list's items.
pub fn list(value: Value) -> Vec<Value> {
    match value {
        Value::Array(items) => items,
        other => panic!("expected a JSON list: {other}"),
    }
}

/// The strings of a JSON list.
pub fn strings(value: &Value) -> Vec<&str> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("expected a JSON list: {value}"))
        .iter()
        .map(|v| v.as_str().unwrap_or_else(|| panic!("not a string: {v}")))
        .collect()
}
