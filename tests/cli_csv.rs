//! Lists as CSV for spreadsheets and scripts: `callbacks`, `outbox` and the aged jobs
//! (`reconcile`) take `--format csv`: one header row, RFC 4180 quoting, every field
//! made inert, a row a line, the same rows as `--json`. `--format` and
//! `--json` are one choice: both at once are refused.

mod support;

use serde_json::Value;
use support::binary::Workdir;

/// The records of an RFC 4180 text, read as a spreadsheet would: a field in double
/// quotes may hold commas, doubled quotes and line breaks; records end in LF (no
/// control character but the line end is printed).
fn records(text: &str) -> Vec<Vec<String>> {
    let mut records = Vec::new();
    let (mut record, mut field) = (Vec::new(), String::new());
    let mut chars = text.chars().peekable();
    let mut quoted = false;
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => record.push(std::mem::take(&mut field)),
            (false, '\n') => {
                record.push(std::mem::take(&mut field));
                records.push(std::mem::take(&mut record));
            }
            (_, '\r') => panic!("a CR in {text:?}"),
            // Inside quotes, anything is the field's; outside, any other character.
            (_, c) => field.push(c),
        }
    }
    assert!(
        record.is_empty() && field.is_empty(),
        "the last row is not ended: {text:?}"
    );
    records
}

/// The records as maps of header to field, after checking every row has every column.
fn rows(text: &str) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut all = records(text).into_iter();
    let header = all.next().expect("a header row");
    all.map(|record| {
        assert_eq!(record.len(), header.len(), "{record:?} against {header:?}");
        header.iter().cloned().zip(record).collect()
    })
    .collect()
}

/// A note and names holding a comma, quotes and a line break, and a control character.
const NOTE: &str = "checked, \"twice\"\nsee ticket \u{1b}[2J 42";
const NOTE_SHOWN: &str = "checked, \"twice\"^Jsee ticket ^[[2J 42";

#[test]
fn callbacks_as_csv_quote_commas_quotes_and_line_breaks_and_stay_one_row_each() {
    let w = Workdir::with_afternoon();
    w.ok(&[
        "answer",
        "2",
        "--verdict",
        "needs_remote_check",
        "--note",
        NOTE,
        "--reviewer",
        "ana, lee",
    ]);
    let out = w.ok(&["callbacks", "--format", "csv"]);
    assert!(!out.contains('\u{1b}'), "an ESC reached the CSV");
    assert!(
        out.contains(r#",needs_remote_check,"ana, lee",,2026-11-27T17:00:00.000Z,"checked, ""twice""^Jsee ticket ^[[2J 42","#),
        "{out}"
    );
    let json: Vec<Value> = serde_json::from_str(&w.ok(&["callbacks", "--json"])).unwrap();
    let csv = rows(&out);
    assert_eq!(csv.len(), json.len(), "a row per callback");
    assert_eq!(
        out.lines().count(),
        json.len() + 1,
        "a value never breaks its row"
    );
    for (row, value) in csv.iter().zip(&json) {
        assert_eq!(row["seq"], value["seq"].to_string());
        assert_eq!(row["job_id"], value["job_id"].as_str().unwrap_or_default());
        assert_eq!(row["disposition"], value["disposition"].as_str().unwrap());
        assert_eq!(
            row["arrived_at"],
            value["arrived_at"].as_str().unwrap_or_default()
        );
    }
    let held = &csv[1];
    assert_eq!(held["answer_note"], NOTE_SHOWN);
    assert_eq!(held["answer_reviewer"], "ana, lee");
    assert_eq!(held["replacement_created_by"], "staff:maria");
    assert_eq!(held["gap_s"], "284");
    // A selection is kept as in the table and the JSON.
    let only_held = rows(&w.ok(&["callbacks", "--disposition", "hold", "--format", "csv"]));
    assert_eq!(
        only_held
            .iter()
            .map(|r| r["seq"].as_str())
            .collect::<Vec<_>>(),
        ["2"]
    );
}

#[test]
fn the_outbox_as_csv_spells_out_a_withdrawal() {
    let (w, _) = Workdir::with_demo();
    w.ok(&[
        "request",
        "retry",
        "booking-1058",
        "--by",
        "ops:\"lee\", nights",
    ]);
    w.ok(&[
        "request", "withdraw", "1", "--note", NOTE, "--by", "ops:kim",
    ]);
    w.ok(&["request", "cancel", "booking-1055", "--by", "ops:kim"]);
    let out = w.ok(&["outbox", "--format", "csv"]);
    let csv = rows(&out);
    assert_eq!(csv.len(), 2);
    assert_eq!(csv[0]["requested_by"], "ops:\"lee\", nights");
    assert_eq!(csv[0]["status"], "withdrawn");
    assert_eq!(csv[0]["withdrawn_by"], "ops:kim");
    assert_eq!(csv[0]["withdrawal_note"], NOTE_SHOWN);
    assert_eq!(csv[1]["request"], "cancel");
    assert_eq!(csv[1]["withdrawn_by"], "");
    assert!(out.starts_with("id,job_id,request,attempt,"), "{out}");
    // An empty outbox is its header alone.
    let empty = Workdir::with_afternoon();
    let header = empty.ok(&["outbox", "--format", "csv"]);
    assert_eq!(records(&header).len(), 1, "{header}");
}

#[test]
fn the_aged_jobs_as_csv_are_the_reconciliations_aged_list() {
    let (w, _) = Workdir::with_demo();
    w.ok(&[
        "owner",
        "booking-1043",
        "--owner",
        "ops:lee, backup",
        "--escalate-at",
        "2026-11-27T16:00:00Z",
    ]);
    let out = w.ok(&["reconcile", "--format", "csv"]);
    let csv = rows(&out);
    let json = w.json(&["reconcile", "--json"]);
    let aged = json["aged"].as_array().unwrap();
    assert_eq!(csv.len(), aged.len());
    assert!(!csv.is_empty(), "the demo has aged jobs");
    for (row, value) in csv.iter().zip(aged) {
        assert_eq!(row["job_id"], value["job_id"].as_str().unwrap());
        assert_eq!(row["age_s"], value["age_s"].to_string());
        assert_eq!(row["overdue"], value["overdue"].to_string());
        assert_eq!(row["unowned"], value["unowned"].to_string());
    }
    let owned = csv.iter().find(|r| r["job_id"] == "booking-1043").unwrap();
    assert_eq!(owned["owner"], "ops:lee, backup");
    assert_eq!(owned["escalate_at"], "2026-11-27T16:00:00.000Z");
    assert_eq!(owned["overdue"], "true");
    assert!(out.contains("\"ops:lee, backup\""), "{out}");
    // --exit-code says the same with CSV as with the table.
    let code = w
        .run(&["reconcile", "--format", "csv", "--exit-code"])
        .status
        .code();
    assert_eq!(code, Some(5));
}

#[test]
fn format_and_json_are_one_choice() {
    let w = Workdir::with_afternoon();
    for list in ["callbacks", "outbox", "reconcile"] {
        assert_eq!(
            w.ok(&[list, "--format", "json"]),
            w.ok(&[list, "--json"]),
            "{list}"
        );
        assert_eq!(w.ok(&[list, "--format", "table"]), w.ok(&[list]), "{list}");
        let out = w.run(&[list, "--json", "--format", "csv"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{list}: {stderr}");
        assert!(
            stderr.contains("'--json' cannot be used with '--format <FORMAT>'"),
            "{list}: {stderr}"
        );
        let out = w.run(&[list, "--format", "xlsx"]);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{list}: {stderr}");
        assert!(
            stderr.contains("[possible values: table, json, csv]"),
            "{stderr}"
        );
    }
}
