//! The reports of a ledger, from the binary, for tests that compare two ledgers: a
//! ledger on PostgreSQL against the same stream ingested whole into a SQLite file.
//!
//! A ledger is named as `--db` takes it: a file path or a `postgresql://` URL. Two
//! comparisons: byte for byte, and with the ledger's own numbers (callback and line
//! sequence numbers, answer ids) set aside, for ledgers that hold the same rows under
//! other numbers (numbers an engine gave and took back, rows two writers kept in
//! another order).

use std::collections::BTreeMap;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use super::binary::{bare, succeeded};
use super::fixture::NOW;

/// The reports compared, each with `--json`.
pub const JSON_REPORTS: [&str; 5] = ["summary", "callbacks", "reconcile", "rejected", "outbox"];

/// `jobledger --db DB --now NOW ARGS...`, on no input.
pub fn jobledger(db: &str, args: &[&str]) -> Command {
    let mut command = bare();
    command.arg("--db").arg(db).args(["--now", NOW]).args(args);
    command
}

/// Runs `jobledger --db DB --now NOW ARGS...` and waits.
pub fn run(db: &str, args: &[&str]) -> Output {
    jobledger(db, args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()
        .expect("the binary runs")
}

/// Standard output of a run that succeeded and said nothing on standard error.
pub fn quiet_ok(db: &str, args: &[&str]) -> String {
    let out = run(db, args);
    let stdout = succeeded(&out, args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.trim().is_empty(), "{args:?} said: {stderr}");
    stdout
}

/// A report as JSON.
pub fn json(db: &str, args: &[&str]) -> Value {
    let text = quiet_ok(db, args);
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?} printed no JSON ({e}): {text}"))
}

/// Every report of [`JSON_REPORTS`] as printed, by name.
pub fn json_reports(db: &str) -> BTreeMap<&'static str, String> {
    JSON_REPORTS
        .iter()
        .map(|report| (*report, quiet_ok(db, &[report, "--json"])))
        .collect()
}

/// Where two texts first differ, with some of each around it, for a failure's message.
pub fn first_difference(ours: &str, reference: &str) -> String {
    let at = ours
        .chars()
        .zip(reference.chars())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| ours.chars().count().min(reference.chars().count()));
    let around = |text: &str| -> String {
        text.chars()
            .skip(at.saturating_sub(400))
            .take(800)
            .collect()
    };
    format!(
        "first difference at character {at}\n--- ours\n{}\n--- reference\n{}",
        around(ours),
        around(reference)
    )
}

/// Fails unless both ledgers print every report of [`JSON_REPORTS`] byte for byte.
pub fn assert_same_bytes(ours: &str, reference: &str, what: &str) {
    let (ours, reference) = (json_reports(ours), json_reports(reference));
    for (report, text) in &reference {
        assert!(
            ours[report] == *text,
            "{what}: `{report} --json` differs; {}",
            first_difference(&ours[report], text)
        );
    }
}

/// How the ledger's own numbers are set aside before two reports are compared.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Numbers {
    /// Each number replaced by its rank among its kind: the rows must be in the same
    /// order, under numbers that may have gaps.
    Ranked,
    /// Numbers dropped, a reference to another callback replaced by what that callback
    /// says, and the rows sorted: the same rows, in any order.
    Ignored,
}

/// Every report of [`JSON_REPORTS`] as JSON, the ledger's numbers set aside as
/// `numbers` says, and the fields named in `drop` left out of the report or of each of
/// its rows (`summary.backlog`, `callbacks.answer`: what depends on who answered when).
pub fn rows(db: &str, numbers: Numbers, drop: &[&str]) -> BTreeMap<&'static str, Value> {
    JSON_REPORTS
        .iter()
        .map(|report| {
            let mut value = json(db, &[report, "--json"]);
            for field in drop {
                let Some((of, name)) = field.split_once('.') else {
                    panic!("{field:?} names no report: REPORT.FIELD")
                };
                if of != *report {
                    continue;
                }
                // A field of the report, or of each of its rows.
                match &mut value {
                    Value::Object(object) => drop_field(object, name),
                    Value::Array(rows) => rows
                        .iter_mut()
                        .filter_map(Value::as_object_mut)
                        .for_each(|row| drop_field(row, name)),
                    _ => {}
                }
            }
            (*report, without_numbers(report, value, numbers))
        })
        .collect()
}

fn drop_field(object: &mut serde_json::Map<String, Value>, name: &str) {
    assert!(
        object.remove(name).is_some(),
        "no field {name:?} to leave out: {object:?}"
    );
}

/// Fails unless two sets of [`rows`] are the same.
pub fn assert_rows_equal(
    ours: &BTreeMap<&'static str, Value>,
    reference: &BTreeMap<&'static str, Value>,
    what: &str,
) {
    for (report, value) in reference {
        if ours[report] != *value {
            let text = |v: &Value| serde_json::to_string_pretty(v).unwrap();
            panic!(
                "{what}: `{report} --json` differs, its numbers set aside; {}",
                first_difference(&text(&ours[report]), &text(value))
            );
        }
    }
}

/// Fails unless both ledgers print the same [`rows`].
pub fn assert_same_rows(ours: &str, reference: &str, numbers: Numbers, drop: &[&str], what: &str) {
    assert_rows_equal(
        &rows(ours, numbers, drop),
        &rows(reference, numbers, drop),
        what,
    );
}

/// `report`'s JSON with the ledger's numbers set aside (see [`Numbers`]).
pub fn without_numbers(report: &str, value: Value, numbers: Numbers) -> Value {
    match report {
        "callbacks" => callbacks_without_numbers(value, numbers),
        "rejected" => list_without(value, "line", numbers),
        "outbox" => list_without(value, "id", numbers),
        _ => value,
    }
}

/// The rank of each number among `numbers` (1 for the smallest).
fn ranks(numbers: impl IntoIterator<Item = i64>) -> BTreeMap<i64, i64> {
    let mut sorted: Vec<i64> = numbers.into_iter().collect();
    sorted.sort_unstable();
    sorted.dedup();
    sorted.into_iter().zip(1..).collect()
}

fn list_without(value: Value, field: &str, numbers: Numbers) -> Value {
    let Value::Array(mut rows) = value else {
        panic!("a list was expected: {value}")
    };
    let rank = ranks(rows.iter().filter_map(|r| r[field].as_i64()));
    for row in &mut rows {
        let n = row[field].as_i64();
        match numbers {
            Numbers::Ranked => row[field] = n.map(|n| rank[&n]).into(),
            Numbers::Ignored => row[field] = Value::Null,
        }
    }
    if numbers == Numbers::Ignored {
        rows.sort_by_key(Value::to_string);
    }
    Value::Array(rows)
}

fn callbacks_without_numbers(value: Value, numbers: Numbers) -> Value {
    let Value::Array(mut rows) = value else {
        panic!("a list of callbacks was expected: {value}")
    };
    let seq_rank = ranks(rows.iter().filter_map(|r| r["seq"].as_i64()));
    let answer_rank = ranks(rows.iter().filter_map(|r| r["answer"]["id"].as_i64()));
    // What a callback says, for a reference to it when numbers are ignored.
    let said: BTreeMap<i64, String> = rows
        .iter()
        .filter_map(|r| {
            let key = ["job_id", "delivery_id", "attempt", "outcome", "arrived_at"]
                .map(|f| r[f].to_string())
                .join(" ");
            Some((r["seq"].as_i64()?, key))
        })
        .collect();
    for row in &mut rows {
        for field in ["seq", "first_report_seq", "linked_from_seq"] {
            let n = row[field].as_i64();
            row[field] = match numbers {
                Numbers::Ranked => n.map(|n| seq_rank[&n]).into(),
                Numbers::Ignored if field == "seq" => Value::Null,
                Numbers::Ignored => n.map(|n| said[&n].clone()).into(),
            };
        }
        if let Some(answer) = row["answer"].as_object_mut() {
            let id = answer["id"].as_i64().map(|id| answer_rank[&id]);
            let on = answer["callback_seq"].as_i64().map(|n| seq_rank[&n]);
            (answer["id"], answer["callback_seq"]) = match numbers {
                Numbers::Ranked => (id.into(), on.into()),
                Numbers::Ignored => (Value::Null, Value::Null),
            };
        }
    }
    if numbers == Numbers::Ignored {
        rows.sort_by_key(Value::to_string);
    }
    Value::Array(rows)
}

/// Each check's problems, by name, from a `check --json` report, in the order they
/// ran.
pub fn check_problems(report: &Value) -> Vec<(String, Vec<String>)> {
    report["checks"]
        .as_array()
        .expect("a list of checks")
        .iter()
        .map(|c| {
            let check = c["check"].as_str().expect("a name").to_owned();
            let problems = c["problems"].as_array().expect("a list of problems");
            let problems = problems
                .iter()
                .map(|p| p.as_str().expect("words").to_owned());
            (check, problems.collect())
        })
        .collect()
}
