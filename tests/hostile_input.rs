//! Hostile input (SPEC sec. 1.3, issue 5): the corpus in `tests/hostile/` plus generated
//! cases too large or too many to write by hand (1 MB lines, JSON nested 10,000 deep,
//! a wrong type for every field of every event, times in wrong formats).
//!
//! For each line: ingest does not panic, the raw bytes are kept exactly, the fate and a
//! reason a person can read are as `tests/hostile/expected.tsv` says, and not one
//! control character from the input reaches the terminal: neither the console (every
//! view, the detail pane of every row) nor the reports of the command line.

#[path = "support/fixture.rs"]
mod fixture;
#[path = "support/recorder.rs"]
mod recorder;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use fixture::{NOW, TempLedger};
use jobledger::clock::{Clock, Timestamp};
use jobledger::console::{self, Action, App, Tab, update};
use jobledger::event::{Parsed, parse_line};
use jobledger::inert::inert;
use jobledger::store::Ledger;
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const BIN: &str = env!("CARGO_BIN_EXE_jobledger");

/// What must never reach a terminal from outside, written out here rather than taken
/// from `jobledger::inert`, so that a change there cannot weaken this test with it:
/// C0 controls, DEL, C1 controls, bidi controls, zero-width and invisible format
/// characters, the BOM, the line and paragraph separators, tag characters.
fn forbidden(c: char) -> bool {
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
const WIDTH: u16 = 160;
const HEIGHT: u16 = 48;
const MB: usize = 1 << 20;

/// One input line and what must become of it.
#[derive(Debug, Clone)]
struct Case {
    raw: Vec<u8>,
    fate: Fate,
    /// Text the reason (or the callback's detail) holds; empty: anything readable.
    reason_holds: String,
    what: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Fate {
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
    fn parse(text: &str) -> Fate {
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

    fn quarantine(reason: &str) -> Fate {
        Fate::Callback {
            disposition: "quarantine".to_owned(),
            reason: reason.to_owned(),
        }
    }
}

fn hostile_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/hostile")
}

/// The corpus file, line by line (split on LF only: a CR stays in its line), with the
/// expectations of `expected.tsv`.
fn corpus() -> Vec<Case> {
    let bytes = std::fs::read(hostile_dir().join("corpus.ndjson")).expect("corpus.ndjson");
    let expected =
        std::fs::read_to_string(hostile_dir().join("expected.tsv")).expect("expected.tsv");
    let body = bytes.strip_suffix(b"\n").unwrap_or(&bytes);
    let lines: Vec<&[u8]> = body.split(|b| *b == b'\n').collect();
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

const T: &str = "2026-11-27T12:30:00Z";

/// The lines too large to keep in the corpus file.
fn huge_cases() -> Vec<Case> {
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
            fate: Fate::quarantine("no_matching_job"),
            reason_holds: "no job".to_owned(),
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
enum Kind {
    Text { required: bool },
    Time { required: bool },
    Count { required: bool },
    Bool { required: bool },
}

/// A field: its name, its type, and a valid value.
type Field = (&'static str, Kind, Value);

/// Every event with a valid value for each field, and each field's type.
fn event_fields() -> Vec<(&'static str, Vec<Field>)> {
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
fn wrong_values(kind: Kind) -> Vec<Value> {
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
fn wrong_type_cases() -> Vec<Case> {
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
struct Kept {
    seq: i64,
    raw: Vec<u8>,
    status: String,
    reason: Option<String>,
}

fn kept_line(conn: &rusqlite::Connection, raw: &[u8]) -> Option<Kept> {
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

fn callback_of(conn: &rusqlite::Connection, line_seq: i64) -> (String, String, Option<String>) {
    conn.query_row(
        "SELECT disposition, reason, detail FROM callbacks WHERE line_seq = ?1 ORDER BY seq LIMIT 1",
        [line_seq],
        |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)),
    )
    .unwrap_or_else(|e| panic!("no callback row for line {line_seq}: {e}"))
}

/// A reason a person can read: not empty, and nothing in it that acts on a terminal.
fn assert_readable(reason: &str, case: &Case) {
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
fn ledger_with_every_case() -> (TempLedger, Vec<Case>) {
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

#[test]
fn the_corpus_is_large_enough_and_each_line_distinct() {
    let cases = corpus();
    assert!(cases.len() >= 40, "{} lines", cases.len());
    let distinct: BTreeSet<&[u8]> = cases.iter().map(|c| c.raw.as_slice()).collect();
    assert_eq!(distinct.len(), cases.len());
    let generated = huge_cases().len() + wrong_type_cases().len();
    assert!(generated > 200, "{generated} generated cases");
}

#[test]
fn every_hostile_line_is_kept_exactly_with_a_readable_reason() {
    let (t, cases) = ledger_with_every_case();
    // Ingesting the same hostile stream again changes nothing.
    let before = t.dump();
    let mut again = Vec::new();
    for case in &cases {
        again.extend_from_slice(&case.raw);
        again.push(b'\n');
    }
    let mut t = t;
    let report = t.ingest_bytes(&again);
    assert_eq!((report.events_applied, report.callbacks.total()), (0, 0));
    assert_eq!(t.dump(), before);
}

#[test]
fn duplicate_top_level_keys_make_a_line_unparseable() {
    for line in [
        r#"{"event":"callback","job_id":"a","job_id":"b","outcome":"success","at":"2026-11-27T12:00:00Z"}"#,
        r#"{"event":"job_accepted","job_id":"a","at":"2026-11-27T12:00:00Z","at":"2026-11-27T13:00:00Z"}"#,
        r#"{"event":"callback","event":"callback","job_id":"a","outcome":"success","at":"2026-11-27T12:00:00Z"}"#,
        r#"{"event":"callback","job_id":"a","job\u005fid":"b","outcome":"success","at":"2026-11-27T12:00:00Z"}"#,
    ] {
        let Parsed::Unparseable { reason } = parse_line(line.as_bytes()) else {
            panic!("a duplicate key was read silently: {line}");
        };
        assert!(reason.contains("more than once"), "{reason}");
    }
    // Duplicates deeper down (inside a payload) are not the event's fields: kept, not read.
    let nested = r#"{"event":"callback","job_id":"a","outcome":"success","at":"2026-11-27T12:00:00Z","payload":{"k":1,"k":2}}"#;
    assert!(matches!(parse_line(nested.as_bytes()), Parsed::Callback(_)));
    // A duplicate on a line that is not JSON anyway is reported as not JSON.
    let Parsed::Unparseable { reason } = parse_line(br#"{"a":1,"a":2"#) else {
        panic!("truncated line read");
    };
    assert!(reason.starts_with("not valid JSON"), "{reason}");
}

#[test]
fn times_outside_the_ledgers_years_are_refused_and_offsets_saturate() {
    for bad in [
        "9999-12-31T23:59:59-23:00",
        "0000-01-01T00:00:00+00:01",
        "2026-11-27T12:00:00+24:00",
    ] {
        assert_eq!(Timestamp::parse(bad), None, "{bad}");
    }
    let at = Timestamp::parse("2026-11-27T12:00:00Z").unwrap();
    assert_eq!(at.plus_seconds(i64::MAX), Timestamp::LATEST);
    assert_eq!(at.plus_seconds(i64::MIN), Timestamp::EARLIEST);
    assert_eq!(
        Timestamp::LATEST.to_ledger_text(),
        "9999-12-31T23:59:59.999Z"
    );
    assert_eq!(
        Timestamp::EARLIEST.to_ledger_text(),
        "0000-01-01T00:00:00.000Z"
    );
}

fn key(app: &mut App, code: KeyCode) {
    console::press(app, &KeyEvent::new(code, KeyModifiers::NONE));
}

fn ch(app: &mut App, c: char) {
    key(app, KeyCode::Char(c));
}

fn render(app: &App) -> String {
    let mut terminal = Terminal::new(TestBackend::new(WIDTH, HEIGHT)).unwrap();
    terminal
        .draw(|frame| console::view::draw(frame, app.model()))
        .unwrap();
    let buffer = terminal.backend().buffer();
    let mut text = String::new();
    for y in 0..buffer.area.height {
        for x in 0..buffer.area.width {
            text.push_str(buffer[(x, y)].symbol());
        }
        text.push('\n');
    }
    text
}

/// Every screen a reviewer reaches: each view, the detail pane of each of its rows (top
/// and end), and in the Held and Quarantined views the answer form of each row.
fn every_screen(app: &mut App, rows: usize) -> Vec<String> {
    let mut screens = Vec::new();
    for tab in Tab::ALL {
        update(app, Action::ShowTab(tab));
        screens.push(render(app));
        key(app, KeyCode::Enter);
        for _ in 0..=rows {
            let top = render(app);
            if screens.last() == Some(&top) {
                break; // the last row: `n` moved no further
            }
            key(app, KeyCode::End);
            screens.push(render(app));
            if matches!(tab, Tab::Held | Tab::Quarantined) {
                ch(app, 'a');
                screens.push(render(app));
                key(app, KeyCode::Esc);
                if app.context() != console::keymap::Context::Detail {
                    key(app, KeyCode::Enter);
                }
            }
            key(app, KeyCode::Home);
            screens.push(top);
            ch(app, 'n');
        }
        key(app, KeyCode::Esc);
    }
    screens
}

#[test]
fn no_control_character_from_the_input_reaches_the_console() {
    let (t, _) = ledger_with_every_case();
    let rows = usize::try_from(fixture::query_i64(
        &t.path,
        "SELECT count(*) FROM callbacks",
        [],
    ))
    .unwrap();
    let ledger = Ledger::open(&t.path).unwrap();
    let now = Timestamp::parse(NOW).unwrap();
    let mut app = App::new(ledger, Clock::Fixed(now), "ana".to_owned(), false).unwrap();
    update(
        &mut app,
        Action::Resize {
            width: WIDTH,
            height: HEIGHT,
        },
    );
    let screens = every_screen(&mut app, rows);
    assert!(screens.len() > rows, "{} screens", screens.len());
    let mut seen = BTreeSet::new();
    for text in &screens {
        if let Some(bad) = text.chars().find(|c| forbidden(*c) && *c != '\n') {
            panic!("U+{:04X} reached the screen:\n{text}", u32::from(bad));
        }
        for marker in [
            "^[[2J",
            "^[]0;pwned",
            "^[]52;c;",
            "^[]8;;https://evil.example/",
            "^[P$q",
            "^[[21t",
            "\\u{9b}2J",
            "\\u{202e}",
            "\\u{200b}",
            "^G",
            "^M",
            "^H",
            "^@",
            "\\xff",
            "staff:^[[31mmallory",
            "Detail of callback",
            "Answer callback",
        ] {
            if text.contains(marker) {
                seen.insert(marker);
            }
        }
    }
    assert_eq!(
        seen.len(),
        17,
        "the hostile text was not all drawn (in inert form): {seen:?}"
    );
}

/// Removes the control sequences crossterm itself writes (CSI with numeric parameters),
/// failing on any other escape; what remains must hold no control character at all.
fn assert_only_crossterms_escapes(bytes: &[u8]) {
    let text = std::str::from_utf8(bytes).expect("the backend writes UTF-8");
    let mut rest = text;
    let mut plain = String::new();
    while let Some(at) = rest.find('\u{1b}') {
        plain.push_str(&rest[..at]);
        let seq = &rest[at..];
        assert!(
            seq.as_bytes().get(1) == Some(&b'['),
            "an escape other than CSI was written: {:?}",
            &seq[..seq.len().min(16)]
        );
        let body = &seq[2..];
        let end = body
            .find(|c: char| ('\u{40}'..='\u{7e}').contains(&c))
            .expect("an unterminated CSI");
        assert!(
            body[..end]
                .chars()
                .all(|c| c.is_ascii_digit() || c == ';' || c == '?'),
            "a CSI with unexpected parameters: {:?}",
            &seq[..(end + 3).min(seq.len())]
        );
        rest = &body[end + 1..];
    }
    plain.push_str(rest);
    if let Some(bad) = plain.chars().find(|c| forbidden(*c)) {
        panic!("U+{:04X} was written to the terminal", u32::from(bad));
    }
}

#[test]
fn bytes_written_to_a_real_terminal_backend_hold_only_its_own_escapes() {
    let (t, _) = ledger_with_every_case();
    let ledger = Ledger::open(&t.path).unwrap();
    let now = Timestamp::parse(NOW).unwrap();
    let mut app = App::new(ledger, Clock::Fixed(now), "ana".to_owned(), false).unwrap();
    update(
        &mut app,
        Action::Resize {
            width: WIDTH,
            height: HEIGHT,
        },
    );
    let (mut terminal, recorder) = recorder::terminal(WIDTH, HEIGHT);
    let mut frames = 0;
    for tab in Tab::ALL {
        update(&mut app, Action::ShowTab(tab));
        terminal
            .draw(|frame| console::view::draw(frame, app.model()))
            .unwrap();
        key(&mut app, KeyCode::Enter);
        for _ in 0..40 {
            terminal
                .draw(|frame| console::view::draw(frame, app.model()))
                .unwrap();
            key(&mut app, KeyCode::End);
            terminal
                .draw(|frame| console::view::draw(frame, app.model()))
                .unwrap();
            ch(&mut app, 'n');
            frames += 2;
        }
        key(&mut app, KeyCode::Esc);
    }
    let bytes = recorder.bytes();
    assert!(frames > 100 && bytes.len() > 10_000);
    assert_only_crossterms_escapes(&bytes);
    let text = String::from_utf8_lossy(&bytes);
    assert!(text.contains("pwned"), "the hostile rows were drawn");
}

/// Runs the binary on the ledger; returns stdout after checking stderr is clean too.
fn report(db: &Path, args: &[&str]) -> Vec<u8> {
    let out = Command::new(BIN)
        .arg("--db")
        .arg(db)
        .args(["--now", NOW])
        .args(args)
        .env_remove("JOBLEDGER_DB")
        .output()
        .unwrap();
    for stream in [&out.stdout, &out.stderr] {
        let text = std::str::from_utf8(stream)
            .unwrap_or_else(|e| panic!("{args:?} printed bytes that are not UTF-8: {e}"));
        if let Some(bad) = text.chars().find(|c| forbidden(*c) && *c != '\n') {
            panic!(
                "{args:?} printed U+{:04X}: {}",
                u32::from(bad),
                inert(&text[..text.len().min(2000)])
            );
        }
    }
    out.stdout
}

#[test]
fn reports_of_the_command_line_print_no_control_character() {
    let (t, cases) = ledger_with_every_case();
    for args in [
        &["summary"][..],
        &["summary", "--json"],
        &["callbacks"],
        &["callbacks", "--disposition", "quarantine"],
        &["reconcile"],
        &["reconcile", "--json"],
        &["rejected"],
        &["rejected", "--json"],
        &["outbox"],
    ] {
        let out = report(&t.path, args);
        assert!(!out.is_empty(), "{args:?} printed nothing");
    }
    // JSON keeps the hostile text exactly, only escaped.
    let list: Value = serde_json::from_slice(&report(&t.path, &["callbacks", "--json"])).unwrap();
    let ids: BTreeSet<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|c| c["job_id"].as_str())
        .collect();
    for hostile in [
        "\u{1b}]0;pwned title\u{7}",
        "job-\u{202e}evil\u{202c}",
        "nul\0byte",
        "\u{9b}2J\u{9b}1;1H",
    ] {
        assert!(ids.contains(hostile), "{} lost in JSON", inert(hostile));
    }
    let rejected: Value =
        serde_json::from_slice(&report(&t.path, &["rejected", "--json"])).unwrap();
    let expected_rejections = cases.iter().filter(|c| c.fate == Fate::Rejected).count();
    assert_eq!(rejected.as_array().unwrap().len(), expected_rejections);
    // Errors quoting hostile input are inert too (a job id that is not in the ledger).
    let out = Command::new(BIN)
        .arg("--db")
        .arg(&t.path)
        .args([
            "answer",
            "3",
            "--verdict",
            "linked",
            "--job",
            "\u{1b}]0;x\u{7}",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("^[]0;x^G") || stderr.contains("\\u{1b}]0;x\\u{7}"),
        "{stderr}"
    );
    assert!(
        !stderr.chars().any(|c| forbidden(c) && c != '\n'),
        "{stderr}"
    );
}
