//! Text from events that would drive a terminal if drawn raw stays inert on every
//! screen of the console, and in the bytes it sends.

mod support;

use std::path::Path;

use jobledger::console::{self, Action, App, Tab, update};
use jobledger::inert::is_dangerous;
use jobledger::review::{self, AnswerRequest};
use jobledger::store::Ledger;
use jobledger::{demo, escalation, ingest};
use ratatui::crossterm::event::KeyCode;
use support::terminal::{HEIGHT, WIDTH, ch, demo_ledger, key, open_app, render};

/// Lines and answers whose text would drive a terminal if drawn raw.
fn add_hostile_text(path: &Path) {
    let mut ledger = Ledger::open(path).unwrap();
    let mut stream: Vec<u8> = Vec::new();
    stream.extend_from_slice(
        br#"{"event":"callback","delivery_id":"d-evil-1","job_id":"\u001b]0;owned\u0007job","outcome":"success","at":"2026-11-27T16:10:00Z","payload":{"x":"\u009b2J\u202eevil\r"}}"#,
    );
    stream.push(b'\n');
    stream.extend_from_slice(b"\x1b]0;owned\x07 not json \x9b2J \xff\rback\n");
    ingest::ingest(&mut ledger, stream.as_slice(), demo::demo_now(), |_| {}).unwrap();
    review::answer(
        &mut ledger,
        &AnswerRequest {
            seq: 15,
            verdict: "noise",
            note: "\x1b]0;owned\x07 \x1b[2J note",
            reviewer: "\x1b[31mmallory\u{202e}",
            link_job: None,
            seen_answer: None,
        },
        demo::demo_now(),
    )
    .unwrap();
    escalation::set_owner(
        &mut ledger,
        "booking-1043",
        "\x1b]0;owned\x07",
        None,
        "\x1b]52;c;ZWNobw==\x07",
        demo::demo_now(),
    )
    .unwrap();
}

/// Every screen a reviewer can reach with the hostile rows on it.
fn hostile_screens(app: &mut App) -> Vec<String> {
    let mut screens = Vec::new();
    for &tab in Tab::ALL {
        update(app, Action::ShowTab(tab));
        screens.push(render(app));
        for _ in 0..6 {
            key(app, KeyCode::Enter);
            screens.push(render(app));
            key(app, KeyCode::End);
            screens.push(render(app));
            ch(app, 'n');
        }
        key(app, KeyCode::Esc);
    }
    ch(app, '2');
    ch(app, 'G');
    ch(app, 'a');
    screens.push(render(app));
    screens
}

#[test]
fn escape_sequences_from_events_never_reach_the_terminal() {
    let ledger = demo_ledger();
    add_hostile_text(&ledger.path);
    let mut app = open_app(&ledger.path, "ana");
    let screens = hostile_screens(&mut app);
    let mut seen_owned = 0;
    for text in &screens {
        if let Some(bad) = text.chars().find(|c| is_dangerous(*c) && *c != '\n') {
            panic!("U+{:04X} reached the screen:\n{text}", u32::from(bad));
        }
        for (at, _) in text.match_indices("owned") {
            let before = &text[..at];
            if before.ends_with("un") {
                continue; // "unowned", the Aged view's word for no owner
            }
            assert!(
                before.ends_with("^[]0;") || before.ends_with("\\u001b]0;"),
                "`owned` not in inert form: {}",
                &text[at.saturating_sub(20)..at + 10]
            );
            seen_owned += 1;
        }
    }
    assert!(seen_owned >= 4, "the hostile rows were not on screen");
}

#[test]
fn bytes_sent_to_the_terminal_hold_only_crossterms_own_escapes() {
    let ledger = demo_ledger();
    add_hostile_text(&ledger.path);
    let mut app = open_app(&ledger.path, "ana");
    let (mut terminal, recorder) = support::recorder::terminal(WIDTH, HEIGHT);
    for setup in [
        &['2'][..],
        &['2', 'G', '\n'],
        &['2', 'G', 'k', '\n'],
        &['5', 'G', '\n'],
        &['3', 'j', '\n'],
        &['1', 'G', '\n'],
    ] {
        key(&mut app, KeyCode::Esc);
        for c in setup {
            if *c == '\n' {
                key(&mut app, KeyCode::Enter);
            } else {
                ch(&mut app, *c);
            }
        }
        terminal
            .draw(|frame| console::view::draw(frame, app.model()))
            .unwrap();
    }
    let bytes = recorder.bytes();
    let text = String::from_utf8(bytes).expect("crossterm writes UTF-8");
    for (at, _) in text.match_indices('\u{1b}') {
        assert_eq!(
            text.as_bytes().get(at + 1),
            Some(&b'['),
            "an escape other than crossterm's CSI: {:?}",
            &text[at..(at + 12).min(text.len())]
        );
    }
    for bad in ['\u{7}', '\u{9b}', '\r', '\u{202e}'] {
        assert!(!text.contains(bad), "U+{:04X} was written", u32::from(bad));
    }
    assert!(text.contains("owned"), "the hostile rows were drawn");
}
