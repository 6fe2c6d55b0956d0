//! Text terms found through the callbacks' trigram index keep exactly the rows that
//! contain the text, in any case: ids of any characters (quotes, the index's own
//! query syntax, letters that lower to other lengths), needles shorter than a
//! trigram, negations, bare words, and callbacks kept after the index was built as
//! well as those a migration put in it.

mod support;

use jobledger::filter::lowered;
use serde_json::{Value, json};
use support::binary::Workdir;

/// Ids that a search must find by any part of them, in any case.
const IDS: [&str; 12] = [
    "job-0000123",
    "JOB-0001230",
    "say \"hi\" now",
    "{job delivery} : (\"x\")",
    "a*b OR c NEAR d",
    "ÉCOLE-7",
    "\u{212a}elvin-42",
    "İstanbul-9",
    "straße-1",
    "ΣΊΣΥΦΟΣ",
    "ab",
    "x",
];

/// Needles asked for: whole ids, parts, other cases, one and two characters, and
/// the index's syntax.
const NEEDLES: [&str; 22] = [
    "job-0000123",
    "0000123",
    "123",
    "job-000",
    "JOB",
    "hi\"",
    "SAY",
    "{job",
    ") OR",
    "a*b",
    "near",
    "école",
    "kelvin",
    "\u{212a}el",
    "i̇st",
    "STRASSE",
    "straße",
    "σίσυφος",
    "ab",
    "x",
    "-",
    "zzz",
];

fn callbacks(w: &Workdir, query: &str) -> Vec<Value> {
    match w.json(&["callbacks", "--json", "--where", query]) {
        Value::Array(rows) => rows,
        other => panic!("not a list: {other}"),
    }
}

fn field<'a>(row: &'a Value, key: &str) -> &'a str {
    row[key].as_str().unwrap_or("")
}

/// The seqs of `rows` that `keep` keeps: what a plain reading of the JSON says.
fn expected(rows: &[Value], keep: impl Fn(&Value) -> bool) -> Vec<i64> {
    rows.iter()
        .filter(|r| keep(r))
        .map(|r| r["seq"].as_i64().unwrap())
        .collect()
}

fn seqs(rows: &[Value]) -> Vec<i64> {
    rows.iter().map(|r| r["seq"].as_i64().unwrap()).collect()
}

fn contains(haystack: &str, needle: &str) -> bool {
    lowered(haystack).contains(&lowered(needle))
}

/// A query's term for `needle`: in double quotes (which hold spaces, and make a
/// leading `-` or a `:` plain text), or as it is when it holds a double quote, which
/// the language reads as text inside a word.
fn quoted(needle: &str) -> String {
    if needle.contains('"') {
        needle.to_owned()
    } else {
        format!("\"{needle}\"")
    }
}

/// Callbacks for no accepted job (quarantined, kept with their ids) with each id as
/// job and, reversed, as delivery.
fn stream(ids: &[&str], at: &str) -> String {
    let mut out = String::new();
    for id in ids {
        let delivery: String = id.chars().rev().collect();
        let line = json!({
            "event": "callback", "delivery_id": delivery, "job_id": id,
            "attempt": 1, "outcome": "success", "at": at,
        });
        out.push_str(&line.to_string());
        out.push('\n');
    }
    out
}

fn check_every_needle(w: &Workdir) {
    let all = callbacks(w, "");
    assert!(all.len() >= IDS.len(), "{}", all.len());
    for needle in NEEDLES {
        let q = quoted(needle);
        for (term, key) in [("job:", "job_id"), ("delivery:", "delivery_id")] {
            let query = format!("{term}{q}");
            let want = expected(&all, |r| contains(field(r, key), needle));
            assert_eq!(seqs(&callbacks(w, &query)), want, "{query}");
            let not = format!("-{query}");
            let want_not = expected(&all, |r| !contains(field(r, key), needle));
            assert_eq!(seqs(&callbacks(w, &not)), want_not, "{not}");
        }
        // A bare word: in the job, the delivery or the reason.
        let want = expected(&all, |r| {
            ["job_id", "delivery_id", "reason"]
                .iter()
                .any(|k| contains(field(r, k), needle))
        });
        assert_eq!(seqs(&callbacks(w, &q)), want, "word {q}");
    }
}

#[test]
fn every_needle_keeps_exactly_the_callbacks_that_contain_it() {
    let w = Workdir::new();
    let first = w.file(
        "first.ndjson",
        stream(&IDS, "2026-11-27T13:00:00.000Z").as_bytes(),
    );
    w.ok(&["ingest", first.to_str().unwrap()]);
    check_every_needle(&w);
    // More callbacks kept later are found too, beside the first ones.
    let later: Vec<String> = IDS.iter().map(|id| format!("{id}/later")).collect();
    let later: Vec<&str> = later.iter().map(String::as_str).collect();
    let second = w.file(
        "second.ndjson",
        stream(&later, "2026-11-27T14:00:00.000Z").as_bytes(),
    );
    w.ok(&["ingest", second.to_str().unwrap()]);
    check_every_needle(&w);
    let rows = callbacks(&w, "job:later");
    assert_eq!(rows.len(), IDS.len(), "{rows:?}");
}

#[test]
fn a_reason_and_who_made_the_replacement_are_found_through_the_index_too() {
    let w = Workdir::new();
    let stream = w.ok(&["demo", "--jobs", "300", "--stream-only"]);
    let file = w.file("stream.ndjson", stream.as_bytes());
    w.ok(&["ingest", file.to_str().unwrap()]);
    let all = callbacks(&w, "");
    for (query, key, needle) in [
        ("reason:DUPLICATE", "reason", "duplicate"),
        ("reason:on_time", "reason", "on_time"),
        ("reason:no_m", "reason", "no_m"),
    ] {
        let want = expected(&all, |r| contains(field(r, key), needle));
        assert!(!want.is_empty(), "{query} finds something in the demo");
        assert_eq!(seqs(&callbacks(&w, query)), want, "{query}");
    }
    let by = |r: &Value| {
        r["replacement"]["created_by"]
            .as_str()
            .unwrap_or("")
            .to_owned()
    };
    let want = expected(&all, |r| contains(&by(r), "staff"));
    assert!(!want.is_empty(), "the demo's staff make replacements");
    assert_eq!(seqs(&callbacks(&w, "by:STAFF")), want);
}
