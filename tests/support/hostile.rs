//! Hostile input for the tests of `hostile_input.rs` and `hostile_output.rs`: the
//! corpus in `tests/hostile/` (each line's fate in `expected.tsv`) plus generated cases
//! too large or too many to write by hand (1 MB lines, JSON nested 10,000 deep, a wrong
//! type for every field of every event), and a ledger holding every one of them.

use std::path::Path;

use jobledger::inert::inert;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::fixture::{self, TempLedger};

/// What must never reach a terminal from outside, written out here rather than taken
/// from `jobledger::inert`, so that a change there cannot weaken this test with it:
/// C0 controls, DEL, C1 controls, bidi controls, zero-width and invisible format
/// characters, the BOM, the line and paragraph separators, tag characters.
pub fn forbidden(c: char) -> bool {
    let code = u32::from(c);
    code <= 0x1f
        || (0x7f..=0x9f).contains(&code)
        || (0x202a..=0x202e).contains(&code)
        || (0x2066..=0x2069).contains(&code)
        || (0x200b..=0x200f).contains(&code)
        || (0x2060..=0x2064).contains(&code)
        || [0x061c, 0x00ad, 0xfeff, 0x2028, 0x2029, 0x180e].contains(&code)
        || (0xe0000..=0xe007f).contains(&code)
}

/// A megabyte, for the lines too large to write by hand.
pub const MB: usize = 1 << 20;

/// One input line and what must become of it.
#[derive(Debug, Clone)]
pub struct Case {
    pub raw: Vec<u8>,
    pub fate: Fate,
    /// Text the reason (or the callback's detail) holds; empty: anything readable.
    pub reason_holds: String,
    pub what: String,
}

/// What becomes of a line: kept as an event, rejected, quarantined or a callback
/// with a disposition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fate {
    Blank,
    Applied,
    Rejected,
    /// A callback with this disposition and reason code.
    Callback {
        disposition: String,
        reason: String,
    },
}

impl Fate {
    pub fn parse(text: &str) -> Fate {
        let parts: Vec<&str> = text.split(':').collect();
        match parts.as_slice() {
            ["blank"] => Fate::Blank,
            ["applied"] => Fate::Applied,
            ["rejected"] => Fate::Rejected,
            ["quarantine", reason] => Fate::Callback {
                disposition: "quarantine".to_owned(),
                reason: (*reason).to_owned(),
            },
            ["callback", disposition, reason] => Fate::Callback {
                disposition: (*disposition).to_owned(),
                reason: (*reason).to_owned(),
            },
            _ => panic!("unknown fate {text:?} in expected.tsv"),
        }
    }

    pub fn quarantine(reason: &str) -> Fate {
        Fate::Callback {
            disposition: "quarantine".to_owned(),
            reason: reason.to_owned(),
        }
    }
}

pub fn hostile_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile")
}

/// The corpus file, line by line (split on LF only: a CR stays in its line), with the
/// expectations of `expected.tsv`.
pub fn corpus() -> Vec<Case> {
    let bytes = std::fs::read(hostile_dir().join("corpus.ndjson")).expect("corpus.ndjson");
    let expected =
        std::fs::read_to_string(hostile_dir().join("expected.tsv")).expect("expected.tsv");
    let body = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
    // A line is its bytes without its terminator, LF or CRLF (SPEC sec. 3).
    let lines: Vec<&[u8]> = body
        .split(|b| *b == b'\n')
        .map(|line| line.strip_suffix(b"\r").unwrap_or(line))
        .collect();
    let rows: Vec<Vec<&str>> = expected
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| l.split('\t').collect())
        .collect();
    assert_eq!(
        lines.len(),
        rows.len(),
        "corpus.ndjson and expected.tsv must have one row per line"
    );
    lines
        .into_iter()
        .zip(rows)
        .enumerate()
        .map(|(i, (raw, row))| {
            assert_eq!(row.len(), 4, "expected.tsv row {}: {row:?}", i + 1);
            assert_eq!(row[0], (i + 1).to_string(), "expected.tsv is numbered");
            Case {
                raw: raw.to_vec(),
                fate: Fate::parse(row[1]),
                reason_holds: if row[2] == "-" {
                    String::new()
                } else {
                    row[2].to_owned()
                },
                what: row[3].to_owned(),
            }
        })
        .collect()
}

/// The time the generated events carry.
pub const T: &str = "2026-11-27T12:30:00Z";

/// The lines too large to keep in the corpus file.
pub fn huge_cases() -> Vec<Case> {
    let deep = |n: usize| format!("{}{}", "[".repeat(n), "]".repeat(n));
    let cases = vec![
        Case {
            raw: format!(
                r#"{{"event":"callback","job_id":"h-job","outcome":"failure","at":"{T}","payload":"{}"}}"#,
                "\\u001b[2J".repeat(MB / 10)
            )
            .into_bytes(),
            fate: Fate::Callback {
                disposition: "hold".to_owned(),
                reason: "conflicting_outcomes".to_owned(),
            },
            reason_holds: String::new(),
            what: "a 1 MB callback whose payload is escapes".to_owned(),
        },
        Case {
            raw: {
                let mut raw = b"\x1b[2J".repeat(MB / 4);
                raw.extend_from_slice(b"\x9b\xff\x07");
                raw
            },
            fate: Fate::quarantine("unparseable"),
            reason_holds: "not valid JSON".to_owned(),
            what: "a 1 MB line of raw escapes".to_owned(),
        },
        Case {
            raw: format!(
                r#"{{"event":"callback","job_id":"{}","outcome":"success","at":"{T}"}}"#,
                "\\u202e".repeat(MB / 6)
            )
            .into_bytes(),
            fate: Fate::quarantine("missing_job_id"),
            reason_holds: "an id is at most 1024 bytes".to_owned(),
            what: "a 1 MB job id of bidi overrides".to_owned(),
        },
        Case {
            raw: deep(10_000).into_bytes(),
            fate: Fate::quarantine("unparseable"),
            reason_holds: "not a JSON object".to_owned(),
            what: "a JSON array nested 10,000 deep".to_owned(),
        },
        Case {
            raw: format!(
                r#"{{"event":"callback","job_id":"h-job","outcome":"success","at":"{T}","payload":{}}}"#,
                deep(10_000)
            )
            .into_bytes(),
            fate: Fate::quarantine("unparseable"),
            reason_holds: "recursion limit".to_owned(),
            what: "a callback whose payload is nested 10,000 deep".to_owned(),
        },
        Case {
            raw: format!(
                r#"{{"event":"callback","job_id":"h-job","outcome":"success","at":"{T}","payload":{}{}}}"#,
                "{\"a\":".repeat(10_000),
                "}".repeat(10_000)
            )
            .into_bytes(),
            fate: Fate::quarantine("unparseable"),
            reason_holds: "recursion limit".to_owned(),
            what: "objects nested 10,000 deep".to_owned(),
        },
    ];
    cases
}

/// How each field of each event is typed, for generating wrong values.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    Text { required: bool },
    Time { required: bool },
    Count { required: bool },
    Bool { required: bool },
}

/// A field: its name, its type, and a valid value.
pub type Field = (&'static str, Kind, Value);

/// Every event with a valid value for each field, and each field's type.
pub fn event_fields() -> Vec<(&'static str, Vec<Field>)> {
    use Kind::{Bool, Count, Text, Time};
    let req = |k: fn(bool) -> Kind| k(true);
    let opt = |k: fn(bool) -> Kind| k(false);
    let text = |required| Text { required };
    let time = |required| Time { required };
    let count = |required| Count { required };
    let flag = |required| Bool { required };
    let job = ("job_id", req(text), json!("h-job"));
    let at = ("at", req(time), json!(T));
    vec![
        (
            "job_accepted",
            vec![
                ("job_id", req(text), json!("h-new")),
                at.clone(),
                ("input_digest", opt(text), json!("sha256:1")),
                ("model_digest", opt(text), json!("sha256:2")),
                ("policy_revision", opt(text), json!("r1")),
                ("timeout_s", opt(count), json!(60)),
                ("expected_age_s", opt(count), json!(600)),
                ("attempt_budget", opt(count), json!(3)),
                ("owner", opt(text), json!("ops:kim")),
            ],
        ),
        (
            "attempt_started",
            vec![
                job.clone(),
                ("attempt", req(count), json!(2)),
                at.clone(),
                ("created_by", opt(text), json!("staff:kim")),
                ("timeout_at", opt(time), json!(T)),
            ],
        ),
        (
            "attempt_timed_out",
            vec![job.clone(), ("attempt", req(count), json!(1)), at.clone()],
        ),
        (
            "job_cancelled",
            vec![job.clone(), at.clone(), ("by", req(text), json!("ops:kim"))],
        ),
        (
            "job_succeeded",
            vec![
                job.clone(),
                ("attempt", req(count), json!(1)),
                at.clone(),
                ("result_ref", req(text), json!("s3://r")),
            ],
        ),
        (
            "job_failed",
            vec![
                job.clone(),
                ("attempt", req(count), json!(1)),
                at.clone(),
                ("cause", req(text), json!("oom")),
                ("permanent", opt(flag), json!(true)),
            ],
        ),
        ("job_expired", vec![job.clone(), at.clone()]),
        (
            "output_stored",
            vec![
                job.clone(),
                ("ref", req(text), json!("s3://o")),
                at.clone(),
                ("retention_until", opt(time), json!(T)),
            ],
        ),
        (
            "output_checked",
            vec![job.clone(), at.clone(), ("exists", req(flag), json!(true))],
        ),
        (
            "notification_sent",
            vec![job.clone(), ("kind", req(text), json!("email")), at.clone()],
        ),
        (
            "decision",
            vec![
                ("decision_id", req(text), json!("dec-1")),
                job.clone(),
                ("action", req(text), json!("charge")),
                at.clone(),
                ("route", opt(text), json!("eu-west")),
            ],
        ),
        (
            "callback",
            vec![
                ("delivery_id", opt(text), json!("d-1")),
                job,
                ("attempt", opt(count), json!(1)),
                ("outcome", req(text), json!("success")),
                at,
            ],
        ),
    ]
}

/// Values of the wrong type (or shape) for a field of this kind.
pub fn wrong_values(kind: Kind) -> Vec<Value> {
    let mut values = vec![json!([]), json!({"nested": "\u{1b}[2J"})];
    let required = match kind {
        Kind::Text { required } => {
            values.extend([json!(42), json!(true), json!(1.5)]);
            if required {
                values.extend([json!(""), json!("  \t ")]);
            }
            required
        }
        Kind::Time { required } => {
            values.extend([json!(1_764_248_521), json!(false)]);
            required
        }
        Kind::Count { required } => {
            values.extend([
                json!("2"),
                json!(true),
                json!(0),
                json!(-3),
                json!(2.5),
                json!(1e300),
                json!(u64::MAX),
            ]);
            required
        }
        Kind::Bool { required } => {
            values.extend([json!("true"), json!(1), json!(0)]);
            required
        }
    };
    if required {
        values.push(Value::Null);
    }
    values
}

/// A wrong type for every field of every event; a callback's wrong field quarantines it
/// with the table's reason for that field, any other event is rejected naming the field.
pub fn wrong_type_cases() -> Vec<Case> {
    let mut cases = Vec::new();
    for (event, fields) in event_fields() {
        for (i, (name, kind, _)) in fields.iter().enumerate() {
            for wrong in wrong_values(*kind) {
                let mut object = serde_json::Map::new();
                object.insert("event".to_owned(), json!(event));
                for (j, (other, _, valid)) in fields.iter().enumerate() {
                    let value = if i == j { wrong.clone() } else { valid.clone() };
                    object.insert((*other).to_owned(), value);
                }
                let fate = if event == "callback" {
                    Fate::quarantine(match *name {
                        "job_id" => "missing_job_id",
                        "outcome" => "invalid_outcome",
                        "attempt" => "unknown_attempt",
                        _ => "unparseable",
                    })
                } else {
                    Fate::Rejected
                };
                // A callback's reason may name the field plainly ("outcome \"\" is neither
                // ..."); `at` is always quoted, being a word of its own.
                let reason_holds = if event == "callback" && *name != "at" {
                    (*name).to_owned()
                } else {
                    format!("`{name}`")
                };
                cases.push(Case {
                    raw: serde_json::to_vec(&Value::Object(object)).unwrap(),
                    fate,
                    reason_holds,
                    what: format!("{event}: {name} = {wrong}"),
                });
            }
        }
    }
    cases
}

/// The ledger row of one kept line: seq, raw, status, reason.
pub struct Kept {
    pub seq: i64,
    pub raw: Vec<u8>,
    pub status: String,
    pub reason: Option<String>,
}

pub fn kept_line(conn: &rusqlite::Connection, raw: &[u8]) -> Option<Kept> {
    let sha: [u8; 32] = Sha256::digest(raw).into();
    conn.query_row(
        "SELECT seq, raw, status, reason FROM input_lines WHERE line_sha256 = ?1",
        [&sha[..]],
        |row| {
            Ok(Kept {
                seq: row.get(0)?,
                raw: row.get(1)?,
                status: row.get(2)?,
                reason: row.get(3)?,
            })
        },
    )
    .ok()
}

pub fn callback_of(conn: &rusqlite::Connection, line_seq: i64) -> (String, String, Option<String>) {
    conn.query_row(
        "SELECT disposition, reason, detail FROM callbacks WHERE line_seq = ?1 ORDER BY seq LIMIT 1",
        [line_seq],
        |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
    )
    .unwrap_or_else(|e| panic!("no callback row for line {line_seq}: {e}"))
}

/// A reason a person can read: not empty, and nothing in it that acts on a terminal.
pub fn assert_readable(reason: &str, case: &Case) {
    assert!(
        !reason.trim().is_empty(),
        "{}: the reason is empty",
        case.what
    );
    assert!(
        !reason.chars().any(forbidden),
        "{}: the stored reason holds a control character: {}",
        case.what,
        inert(reason)
    );
    assert!(
        reason.contains(&case.reason_holds),
        "{}: the reason {:?} does not say {:?}",
        case.what,
        reason,
        case.reason_holds
    );
}

/// Ingests every case into one ledger and checks each line's fate, raw bytes and reason.
pub fn ledger_with_every_case() -> (TempLedger, Vec<Case>) {
    let mut cases = corpus();
    cases.extend(huge_cases());
    cases.extend(wrong_type_cases());
    let mut stream = Vec::new();
    for case in &cases {
        stream.extend_from_slice(&case.raw);
        stream.push(b'\n');
    }
    let mut t = TempLedger::new();
    let report = t.ingest_bytes(&stream);
    let blank = cases.iter().filter(|c| c.fate == Fate::Blank).count();
    assert_eq!(report.lines_read, cases.len() as u64);
    assert_eq!(report.blank, blank as u64);
    assert_eq!(report.already_ingested, 0, "every case is a distinct line");

    let conn = rusqlite::Connection::open(&t.path).unwrap();
    for case in &cases {
        let kept = kept_line(&conn, &case.raw);
        if case.fate == Fate::Blank {
            assert!(kept.is_none(), "{}: a blank line was kept", case.what);
            continue;
        }
        let kept = kept.unwrap_or_else(|| panic!("{}: the line was not kept", case.what));
        assert_eq!(kept.raw, case.raw, "{}: raw bytes changed", case.what);
        match &case.fate {
            Fate::Blank => unreachable!(),
            Fate::Applied => {
                assert_eq!(kept.status, "applied", "{}: {:?}", case.what, kept.reason);
            }
            Fate::Rejected => {
                assert_eq!(kept.status, "rejected", "{}", case.what);
                assert_readable(kept.reason.as_deref().unwrap_or(""), case);
            }
            Fate::Callback {
                disposition,
                reason,
            } => {
                assert_eq!(kept.status, "callback", "{}", case.what);
                let (got_disposition, got_reason, detail) = callback_of(&conn, kept.seq);
                assert_eq!(
                    (&got_disposition, &got_reason),
                    (disposition, reason),
                    "{}: {detail:?}",
                    case.what
                );
                if disposition == "quarantine" {
                    assert_readable(detail.as_deref().unwrap_or(""), case);
                }
            }
        }
    }
    eprintln!(
        "hostile input: {} lines ({} from corpus.ndjson, {} generated), {blank} blank",
        cases.len(),
        corpus().len(),
        cases.len() - corpus().len()
    );
    let kept_rows = fixture::query_i64(&t.path, "SELECT count(*) FROM input_lines", []);
    assert_eq!(
        usize::try_from(kept_rows).unwrap(),
        cases.len() - blank,
        "one row per line"
    );
    let integrity: String = conn
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(integrity, "ok");
    (t, cases)
}
