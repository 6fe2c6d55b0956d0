//! Hostile output (SPEC sec. 1.3): not one control character from the input
//! reaches the terminal, neither through the console (every view, the detail pane of
//! every row, on `TestBackend` and on a real crossterm backend) nor through the reports
//! and refusals of the command line. The cases are those of `support/hostile.rs`.

mod support;

use std::collections::BTreeSet;
use std::path::Path;

use fixture::NOW;
use jobledger::clock::Timestamp;
use jobledger::console::{self, Action, App, Tab, update};
use jobledger::inert::inert;
use ratatui::crossterm::event::KeyCode;
use serde_json::Value;
use support::hostile::{Fate, forbidden, ledger_with_every_case};
use support::terminal::{HEIGHT, WIDTH, ch, key, open_app_at, render};
use support::{binary, fixture, recorder};

/// Every screen a reviewer reaches: each view, the detail pane of each of its rows (top
/// and end), and in the Held and Quarantined views the answer form of each row.
fn every_screen(app: &mut App, rows: usize) -> Vec<String> {
    let mut screens = Vec::new();
    for &tab in Tab::ALL {
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

/// The console on the ledger at `path`, at the fixtures' clock, sized as the snapshots are.
fn console_on(path: &Path) -> App {
    open_app_at(path, "ana", Timestamp::parse(NOW).unwrap())
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
    let mut app = console_on(&t.path);
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
    let mut app = console_on(&t.path);
    let (mut terminal, recorder) = recorder::terminal(WIDTH, HEIGHT);
    let mut frames = 0;
    for &tab in Tab::ALL {
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
    let out = binary::run_at(db, NOW, args);
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
        &["callbacks", "--format", "csv"],
        &["outbox", "--format", "csv"],
        &["reconcile", "--format", "csv"],
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
        "\u{9b}2J\u{9b}1;1H",
    ] {
        assert!(ids.contains(hostile), "{} lost in JSON", inert(hostile));
    }
    // A NUL is kept by no ledger in a value (a server's text cannot hold one): the job
    // id is refused, and the callback says why (its line is kept as it came).
    assert!(!ids.iter().any(|id| id.contains('\0')));
    assert!(
        list.as_array().unwrap().iter().any(|c| c["detail"]
            .as_str()
            .is_some_and(|d| d.contains("holds a NUL character"))),
        "no callback says its job id held a NUL"
    );
    let rejected: Value =
        serde_json::from_slice(&report(&t.path, &["rejected", "--json"])).unwrap();
    let expected_rejections = cases.iter().filter(|c| c.fate == Fate::Rejected).count();
    assert_eq!(rejected.as_array().unwrap().len(), expected_rejections);
    // Errors quoting hostile input are inert too (a job id that is not in the ledger).
    let out = binary::run_at(
        &t.path,
        NOW,
        &[
            "answer",
            "3",
            "--verdict",
            "linked",
            "--job",
            "\u{1b}]0;x\u{7}",
        ],
    );
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

/// The evidence bundle of every callback of the hostile corpus, and of every job it
/// names, in Markdown and JSON: what a person attaches to a ticket carries no control
/// character either.
#[test]
fn every_evidence_bundle_prints_no_control_character() {
    let (t, _) = ledger_with_every_case();
    let list: Value = serde_json::from_slice(&report(&t.path, &["callbacks", "--json"])).unwrap();
    let callbacks = list.as_array().unwrap();
    assert!(callbacks.len() > 20, "the corpus has its callbacks");
    let mut jobs = BTreeSet::new();
    for callback in callbacks {
        let seq = callback["seq"].to_string();
        for format in ["md", "json"] {
            let out = report(&t.path, &["export", &seq, "--format", format]);
            assert!(!out.is_empty(), "export {seq} printed nothing");
        }
        if let Some(job) = callback["job_id"].as_str() {
            jobs.insert(job.to_owned());
        }
    }
    for job in &jobs {
        // A callback may name a job the ledger does not hold: then export refuses.
        let out = binary::run_at(&t.path, NOW, &["export", "--job", job]);
        for stream in [&out.stdout, &out.stderr] {
            let text = String::from_utf8_lossy(stream);
            assert!(
                !text.chars().any(|c| forbidden(c) && c != '\n'),
                "export --job {}: {}",
                inert(job),
                inert(&text)
            );
        }
    }
}

#[test]
fn argument_errors_quote_the_argument_typed_inert() {
    let (w, _) = support::binary::Workdir::with_demo();
    let osc = "\u{1b}]0;PWNED\u{7}";
    let csi = "h\u{1b}[31m";
    for args in [
        vec!["answer", osc, "--verdict", "noise"],
        vec!["callbacks", "--disposition", csi],
        vec!["reconcile", "--window", osc],
        vec![
            "owner",
            "booking-1042",
            "--owner",
            "x",
            "--escalate-at",
            osc,
        ],
    ] {
        let output = w.run(&args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let said = String::from_utf8_lossy(&output.stderr);
        assert!(
            !said.chars().any(|c| c.is_control() && c != '\n'),
            "{args:?} printed a control character: {said:?}"
        );
        // The value is shown, made visible, not dropped.
        assert!(said.contains("^["), "{args:?}: {said}");
    }
    // A top-level option with a bad time: the same.
    let output = w.run(&["--now", osc, "summary"]);
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(!said.contains('\u{1b}'), "{said:?}");
    // Help keeps its own form and says it on standard output.
    let help = w.run(&["summary", "--help"]);
    assert_eq!(help.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&help.stdout).contains("Usage: jobledger summary"));
}
