//! Text searches of callbacks: each engine reads them through a trigram index of the
//! callbacks' text (a file's FTS5 table, a server's GIN index of pg_trgm), and keeps
//! exactly the rows that contain the text, in any case: ids of any characters (quotes,
//! either index's own syntax, `LIKE`'s `%`, `_` and `\`, letters that lower to other
//! lengths), needles shorter than a trigram, negations, bare words, callbacks kept
//! after the index was made as well as those it was made with.

use jobledger::filter::lowered;
use serde_json::{Value, json};

use super::{callbacks, list};
use crate::location::Location;
use crate::support::binary::bare;

/// Ids that a search must find by any part of them, in any case.
const IDS: [&str; 15] = [
    "job-0000123",
    "JOB-0001230",
    "say \"hi\" now",
    "{job delivery} : (\"x\")",
    "a*b OR c NEAR d",
    "100%_done",
    "a\\b_c%d",
    "ÉCOLE-7",
    "\u{212a}elvin-42",
    "İstanbul-9",
    "straße-1",
    "ΣΊΣΥΦΟΣ",
    "ab",
    "x",
    "job_0000123",
];

/// Who made a replacement, as a person's name may be written.
const MAKER: &str = "staff:Élodİe_ΣΑΣ%1";

/// Needles asked for: whole ids, parts, other cases, one and two characters, and
/// each index's syntax.
const NEEDLES: [&str; 35] = [
    "job-0000123",
    "0000123",
    "123",
    "job-000",
    "job_000",
    "JOB",
    "hi\"",
    "SAY",
    "{job",
    ") OR",
    "a*b",
    "near",
    "0%_",
    "%_d",
    "_c%",
    "a\\b",
    "\\b_",
    "b_c",
    "école",
    "kelvin",
    "\u{212a}el",
    "i̇st",
    "STRASSE",
    "straße",
    "σίσυφος",
    "ΣΑΣ",
    "odi̇e_σ",
    "staff:é",
    "ab",
    "x",
    "_",
    "%",
    "\\",
    "-",
    "zzz",
];

/// Callbacks for no accepted job (quarantined, kept with their ids) with each id as
/// job and, reversed, as delivery; and one held beside a replacement made by
/// [`MAKER`].
fn stream(ids: &[&str], at: &str, tag: &str) -> String {
    let mut out = String::new();
    let mut line = |value: Value| {
        out.push_str(&value.to_string());
        out.push('\n');
    };
    for id in ids {
        let delivery: String = id.chars().rev().collect();
        line(json!({
            "event": "callback", "delivery_id": delivery, "job_id": id,
            "attempt": 1, "outcome": "success", "at": at,
        }));
    }
    let job = format!("replaced-{tag}");
    line(json!({"event": "job_accepted", "job_id": job, "at": at, "timeout_s": 60}));
    line(json!({
        "event": "attempt_started", "job_id": job, "attempt": 2, "at": at, "created_by": MAKER,
    }));
    line(json!({
        "event": "callback", "delivery_id": format!("d-{job}"), "job_id": job,
        "attempt": 1, "outcome": "success", "at": at,
    }));
    out
}

/// The seqs of `callbacks --json --where QUERY`.
fn found(location: &Location, query: &str) -> Vec<i64> {
    seqs(&list(location.json(&[
        "callbacks",
        "--json",
        "--where",
        query,
    ])))
}

fn seqs(rows: &[Value]) -> Vec<i64> {
    rows.iter().map(|r| r["seq"].as_i64().unwrap()).collect()
}

/// The seqs of `rows` that `keep` keeps: what a plain reading of the JSON says.
fn expected(rows: &[Value], keep: impl Fn(&Value) -> bool) -> Vec<i64> {
    rows.iter()
        .filter(|r| keep(r))
        .map(|r| r["seq"].as_i64().unwrap())
        .collect()
}

/// The text of `key` in a row (`by`: the replacement's maker), empty when there is none.
fn field<'a>(row: &'a Value, key: &str) -> &'a str {
    let value = if key == "by" {
        &row["replacement"]["created_by"]
    } else {
        &row[key]
    };
    value.as_str().unwrap_or("")
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

/// Every needle, as each field's term, negated and not, and as a bare word, keeps the
/// callbacks a plain reading of the JSON says.
fn check_every_needle(location: &Location) {
    let all = callbacks(location);
    assert!(all.len() > IDS.len(), "{}", all.len());
    for needle in NEEDLES {
        let q = quoted(needle);
        for (term, key) in [
            ("job:", "job_id"),
            ("delivery:", "delivery_id"),
            ("by:", "by"),
        ] {
            let query = format!("{term}{q}");
            let want = expected(&all, |r| contains(field(r, key), needle));
            assert_eq!(found(location, &query), want, "{query}");
            let not = format!("-{query}");
            let want_not = expected(&all, |r| !contains(field(r, key), needle));
            assert_eq!(found(location, &not), want_not, "{not}");
        }
        // A bare word: in the job, the delivery or the reason.
        let want = expected(&all, |r| {
            ["job_id", "delivery_id", "reason"]
                .iter()
                .any(|k| contains(field(r, k), needle))
        });
        assert_eq!(found(location, &q), want, "word {q}");
    }
}

/// Hostile ids and needles of every length, on callbacks kept in two ingests.
pub fn text_terms_keep_exactly_the_callbacks_that_contain_them(location: &Location) {
    location.ingest(&stream(&IDS, "2026-11-27T13:00:00.000Z", "first"));
    check_every_needle(location);
    // More callbacks kept later are found too, beside the first ones.
    let later: Vec<String> = IDS.iter().map(|id| format!("{id}/later")).collect();
    let later: Vec<&str> = later.iter().map(String::as_str).collect();
    location.ingest(&stream(&later, "2026-11-27T14:00:00.000Z", "later"));
    check_every_needle(location);
    assert_eq!(found(location, "job:later").len(), IDS.len() + 1);
    assert_eq!(found(location, "by:ΣΑΣ%").len(), 2);
}

/// Reasons and the demo's replacement makers, through the index as well.
pub fn a_reason_and_who_made_the_replacement_are_found_through_the_index_too(location: &Location) {
    let out = bare()
        .args(["demo", "--jobs", "300", "--stream-only"])
        .output()
        .expect("the binary runs");
    assert!(out.status.success(), "demo --stream-only");
    location.ingest(&String::from_utf8(out.stdout).expect("the demo's stream is UTF-8"));
    let all = callbacks(location);
    for (query, key, needle) in [
        ("reason:DUPLICATE", "reason", "duplicate"),
        ("reason:on_time", "reason", "on_time"),
        ("reason:no_m", "reason", "no_m"),
        ("by:STAFF", "by", "staff"),
    ] {
        let want = expected(&all, |r| contains(field(r, key), needle));
        assert!(!want.is_empty(), "{query} finds something in the demo");
        assert_eq!(found(location, query), want, "{query}");
        let not = format!("-{query}");
        let want_not = expected(&all, |r| !contains(field(r, key), needle));
        assert_eq!(found(location, &not), want_not, "{not}");
    }
}
