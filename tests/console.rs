//! The review console: each view drawn at a fixed size against snapshots, flows driven
//! by key presses and checked in the ledger afterwards, hostile text kept inert, and one
//! run of the real binary in a pseudo-terminal.

#[path = "support/recorder.rs"]
mod recorder;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use jobledger::clock::{Clock, Timestamp};
use jobledger::console::{self, Action, App, Tab, update};
use jobledger::demo::{self, DemoData};
use jobledger::inert::is_dangerous;
use jobledger::review::{self, AnswerRequest};
use jobledger::store::Ledger;
use jobledger::{escalation, ingest};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use tempfile::TempDir;

const WIDTH: u16 = 160;
const HEIGHT: u16 = 48;

/// A fresh demo ledger in its own temporary directory.
struct DemoLedger {
    _dir: TempDir,
    path: PathBuf,
}

fn demo_ledger() -> DemoLedger {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("demo.db");
    demo::build(&path, demo::demo_now(), DemoData::Booking, |_| {}).expect("demo ledger");
    DemoLedger { _dir: dir, path }
}

fn open_app(path: &Path, reviewer: &str) -> App {
    let ledger = Ledger::open(path).expect("open ledger");
    let mut app = App::new(
        ledger,
        Clock::Fixed(demo::demo_now()),
        reviewer.to_owned(),
        false,
    )
    .expect("console state");
    update(
        &mut app,
        Action::Resize {
            width: WIDTH,
            height: HEIGHT,
        },
    );
    app
}

fn key(app: &mut App, code: KeyCode) {
    console::press(app, &KeyEvent::new(code, KeyModifiers::NONE));
}

fn ch(app: &mut App, c: char) {
    key(app, KeyCode::Char(c));
}

fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        ch(app, c);
    }
}

/// The screen as text, one line per row, trailing blanks cut.
fn render_at(app: &App, width: u16, height: u16) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    terminal
        .draw(|frame| console::view::draw(frame, app.model()))
        .expect("draw");
    let buffer = terminal.backend().buffer();
    let mut text = String::new();
    for y in 0..buffer.area.height {
        let mut line = String::new();
        for x in 0..buffer.area.width {
            line.push_str(buffer[(x, y)].symbol());
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text
}

fn render(app: &App) -> String {
    render_at(app, WIDTH, HEIGHT)
}

/// The screen with the temporary ledger path masked, for snapshots.
fn screen(app: &App, ledger: &DemoLedger) -> String {
    render(app).replace(&ledger.path.display().to_string(), "[LEDGER]")
}

#[test]
fn each_view_matches_its_snapshot() {
    let ledger = demo_ledger();
    let mut app = open_app(&ledger.path, "ana");
    for tab in Tab::ALL {
        update(&mut app, Action::ShowTab(tab));
        let name = format!("view_{}", tab.title().to_lowercase().replace(' ', "_"));
        insta::assert_snapshot!(name, screen(&app, &ledger));
    }
}

#[test]
fn detail_pane_shows_timeline_and_raw_message() {
    let ledger = demo_ledger();
    let mut app = open_app(&ledger.path, "ana");
    key(&mut app, KeyCode::Enter);
    insta::assert_snapshot!("detail_held_duplicate", screen(&app, &ledger));
    // Scrolling reaches the end of the raw message.
    key(&mut app, KeyCode::End);
    let text = render(&app);
    assert!(text.contains("\"confirmation\": \"HX-20977\""), "{text}");
}

#[test]
fn a_view_key_in_the_detail_pane_closes_it_and_switches() {
    let ledger = demo_ledger();
    let mut app = open_app(&ledger.path, "ana");
    key(&mut app, KeyCode::Enter);
    assert!(render(&app).contains("Detail of callback #2"));
    ch(&mut app, '3');
    let text = render(&app);
    assert!(
        text.contains("Aged · 4 open past their expected age"),
        "{text}"
    );
    assert!(!text.contains("Detail of callback"), "{text}");
}

#[test]
fn a_case_on_a_job_answered_before_shows_that_answer() {
    let ledger = demo_ledger();
    let mut other = Ledger::open(&ledger.path).unwrap();
    review::answer(
        &mut other,
        &AnswerRequest {
            seq: 11,
            verdict: "failure_stands",
            note: "the card was declined",
            reviewer: "bob",
            link_job: None,
            seen_answer: None,
        },
        demo::demo_now(),
    )
    .unwrap();
    let mut app = open_app(&ledger.path, "ana");
    ch(&mut app, '5');
    for _ in 0..9 {
        ch(&mut app, 'j'); // callback #10, the other report on booking-1054
    }
    key(&mut app, KeyCode::Enter);
    let text = render(&app);
    assert!(text.contains("Detail of callback #10"), "{text}");
    assert!(text.contains("ANSWERED BEFORE ON THIS JOB"), "{text}");
    assert!(
        text.contains("failure_stands by bob at 2026-11-27 17:00:00 — the card was declined"),
        "{text}"
    );
}

#[test]
fn help_lists_every_key_from_the_table() {
    let ledger = demo_ledger();
    let mut app = open_app(&ledger.path, "ana");
    ch(&mut app, '?');
    insta::assert_snapshot!("help", screen(&app, &ledger));
    let mut seen = String::new();
    for _ in 0..80 {
        seen.push_str(&render(&app));
        ch(&mut app, 'j');
    }
    for binding in console::keymap::KEYMAP {
        assert!(
            seen.contains(binding.help),
            "{:?} is missing from the help",
            binding.help
        );
    }
}

#[test]
fn the_help_jumps_to_its_end_and_back_and_scrolls_from_there_at_once() {
    let ledger = demo_ledger();
    let mut app = open_app(&ledger.path, "ana");
    ch(&mut app, '?');
    let first_heading = console::keymap::Context::ALL[0].heading();
    let last_heading = console::keymap::Context::ALL.last().unwrap().heading();
    assert!(render(&app).contains(first_heading));
    assert!(
        !render(&app).contains(last_heading),
        "the help is longer than a screen"
    );
    ch(&mut app, 'G');
    let at_end = render(&app);
    assert!(at_end.contains(last_heading), "{at_end}");
    // One step up from the end moves the text at once (no dead presses past the end).
    key(&mut app, KeyCode::Up);
    assert_ne!(render(&app), at_end);
    ch(&mut app, 'g');
    assert!(render(&app).contains(first_heading));
    key(&mut app, KeyCode::End);
    key(&mut app, KeyCode::PageUp);
    key(&mut app, KeyCode::Home);
    assert!(render(&app).contains(first_heading));
}

#[test]
fn answering_a_held_row_writes_the_answer_and_shows_it() {
    let ledger = demo_ledger();
    let mut app = open_app(&ledger.path, "ana");
    ch(&mut app, '1');
    ch(&mut app, 'a');
    insta::assert_snapshot!("answer_form", screen(&app, &ledger));
    key(&mut app, KeyCode::Down); // duplicate_effect
    key(&mut app, KeyCode::Tab);
    type_text(&mut app, "checked the hotel system: booked twice");
    key(&mut app, KeyCode::Enter);
    let answer = app
        .ledger()
        .callback(2)
        .unwrap()
        .unwrap()
        .answer
        .expect("answer written");
    assert_eq!(answer.verdict, "duplicate_effect");
    assert_eq!(answer.reviewer, "ana");
    assert_eq!(answer.note, "checked the hotel system: booked twice");
    assert!(render(&app).contains("Answer 1 written on callback #2"));
    key(&mut app, KeyCode::Enter);
    let text = render(&app);
    assert!(text.contains("duplicate_effect by ana"), "{text}");
}

#[test]
fn linking_a_quarantined_row_judges_it_against_the_job() {
    let ledger = demo_ledger();
    let mut app = open_app(&ledger.path, "ana");
    ch(&mut app, '2');
    // Rows #5, #13, #14: the callback that named no job.
    ch(&mut app, 'j');
    ch(&mut app, 'j');
    ch(&mut app, 'a');
    key(&mut app, KeyCode::Tab); // `linked` is picked; on to its job id
    type_text(&mut app, "booking-1043");
    key(&mut app, KeyCode::Tab);
    type_text(&mut app, "anon delivery was the 1043 booking");
    key(&mut app, KeyCode::Enter);
    let text = render(&app);
    assert!(
        text.contains(
            "Judged against job booking-1043 as callback #16: hold (conflicting_outcomes)"
        ),
        "{text}"
    );
    let linked = app
        .ledger()
        .callback(16)
        .unwrap()
        .expect("new callback row");
    assert_eq!(linked.linked_from_seq, Some(14));
    assert_eq!(linked.job_id.as_deref(), Some("booking-1043"));
    let original = app.ledger().callback(14).unwrap().unwrap();
    assert_eq!(
        original.job_id, None,
        "the original row stays as it arrived"
    );
    assert_eq!(
        original.answer.unwrap().linked_job_id.as_deref(),
        Some("booking-1043")
    );
}

#[test]
fn setting_an_owner_on_an_aged_row() {
    let ledger = demo_ledger();
    let mut app = open_app(&ledger.path, "ana");
    ch(&mut app, '3');
    ch(&mut app, 'j'); // booking-1043, unowned
    ch(&mut app, 'o');
    for _ in 0.."ana".len() {
        key(&mut app, KeyCode::Backspace);
    }
    type_text(&mut app, "ops:kim");
    key(&mut app, KeyCode::Tab);
    type_text(&mut app, "2h");
    key(&mut app, KeyCode::Enter);
    let owner = app.ledger().owner("booking-1043").unwrap().expect("owner");
    assert_eq!(owner.owner, "ops:kim");
    assert_eq!(owner.set_by, "ana");
    assert_eq!(owner.escalate_at, Timestamp::parse("2026-11-27T19:00:00Z"));
    key(&mut app, KeyCode::Enter);
    let text = render(&app);
    assert!(text.contains("ops:kim"), "{text}");
}

#[test]
fn a_refused_retry_says_why_in_plain_words() {
    let ledger = demo_ledger();
    let mut app = open_app(&ledger.path, "ana");
    ch(&mut app, '3'); // booking-1042: attempt 2 of a budget of 3
    ch(&mut app, 'r');
    let text = render(&app);
    for check in [
        "attempt budget",
        "success on record",
        "output exists",
        "retention",
    ] {
        assert!(text.contains(check), "confirmation lacks {check}: {text}");
    }
    ch(&mut app, 'y');
    assert!(render(&app).contains("to run as attempt 3"));
    key(&mut app, KeyCode::Enter);
    ch(&mut app, 'r');
    assert!(render(&app).contains("It would be refused"));
    ch(&mut app, 'y');
    let text = render(&app);
    insta::assert_snapshot!("retry_refused", screen(&app, &ledger));
    assert!(text.contains("Refused. Nothing was written."), "{text}");
    assert!(text.contains("attempt budget is spent"), "{text}");
    assert_eq!(app.ledger().outbox().unwrap().len(), 1);
}

#[test]
fn a_second_reviewer_is_told_and_nothing_is_overwritten() {
    let ledger = demo_ledger();
    let mut app = open_app(&ledger.path, "ana");
    ch(&mut app, 'a'); // ana opens the form on #2 while it is unanswered
    let mut other = Ledger::open(&ledger.path).unwrap();
    review::answer(
        &mut other,
        &AnswerRequest {
            seq: 2,
            verdict: "single_effect",
            note: "called the hotel",
            reviewer: "bob",
            link_job: None,
            seen_answer: None,
        },
        demo::demo_now(),
    )
    .unwrap();
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    let text = render(&app);
    assert!(
        text.contains("Someone else answered this callback meanwhile"),
        "{text}"
    );
    assert!(text.contains("single_effect by bob"), "{text}");
    let answers = app.ledger().answers(2).unwrap();
    assert_eq!(answers.len(), 1, "bob's answer stands alone");
    assert_eq!(answers[0].reviewer, "bob");
}

#[test]
fn read_only_disables_every_write_and_says_so() {
    let ledger = demo_ledger();
    let ro = Ledger::open_read_only(&ledger.path).unwrap();
    let mut app = App::new(ro, Clock::Fixed(demo::demo_now()), "ana".into(), true).unwrap();
    update(
        &mut app,
        Action::Resize {
            width: WIDTH,
            height: HEIGHT,
        },
    );
    assert!(render(&app).contains("READ-ONLY"));
    for (tab, write) in [('1', 'a'), ('3', 'o'), ('3', 'r'), ('4', 'c')] {
        ch(&mut app, tab);
        ch(&mut app, write);
        let flash = app.flash().expect("a message");
        assert!(flash.text.contains("read-only"), "{}", flash.text);
    }
    assert!(app.ledger().outbox().unwrap().is_empty());
}

#[test]
fn rows_arriving_underneath_appear_and_the_selection_stays() {
    let ledger = demo_ledger();
    let mut app = open_app(&ledger.path, "ana");
    ch(&mut app, 'j'); // select #11
    let mut writer = Ledger::open(&ledger.path).unwrap();
    let line = r#"{"event":"callback","delivery_id":"d-1053-late","job_id":"booking-1053","attempt":1,"outcome":"success","at":"2026-11-27T16:59:00Z"}"#;
    ingest::ingest(&mut writer, line.as_bytes(), demo::demo_now(), |_| {}).unwrap();
    update(&mut app, Action::Tick);
    let text = render(&app);
    assert!(text.contains("1 Held 3"), "{text}");
    assert!(text.contains("#16"), "{text}");
    assert!(text.contains("▶ #11"), "selection moved: {text}");
}

#[test]
fn filters_are_kept_per_view() {
    let ledger = demo_ledger();
    let mut app = open_app(&ledger.path, "ana");
    ch(&mut app, '5');
    ch(&mut app, '/');
    type_text(&mut app, "1054");
    key(&mut app, KeyCode::Enter);
    let text = render(&app);
    assert!(text.contains("5 All callbacks 2/15"), "{text}");
    assert!(!text.contains("booking-1041"), "{text}");
    ch(&mut app, '1');
    assert!(render(&app).contains("booking-1042"));
    ch(&mut app, '5');
    assert!(render(&app).contains("filtered by 1054"));
    key(&mut app, KeyCode::Esc);
    assert!(render(&app).contains("booking-1041"));
}

#[test]
fn paging_holds_only_what_fits_and_reaches_both_ends() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("many.db");
    let mut ledger = Ledger::open(&path).unwrap();
    let mut stream = String::from(
        r#"{"event":"job_accepted","job_id":"job-1","at":"2026-11-27T10:00:00Z","timeout_s":60}
{"event":"attempt_started","job_id":"job-1","attempt":1,"at":"2026-11-27T10:00:01Z"}
"#,
    );
    for i in 0..500 {
        let _ = writeln!(
            stream,
            "{{\"event\":\"callback\",\"delivery_id\":\"d-{i}\",\"job_id\":\"ghost-{i:04}\",\"outcome\":\"success\",\"at\":\"2026-11-27T11:00:00Z\"}}"
        );
    }
    ingest::ingest(&mut ledger, stream.as_bytes(), demo::demo_now(), |_| {}).unwrap();
    drop(ledger);
    let mut app = open_app(&path, "ana");
    ch(&mut app, '2');
    let first = render(&app);
    assert!(first.contains("ghost-0000") && !first.contains("ghost-0499"));
    ch(&mut app, 'G');
    let last = render(&app);
    assert!(
        last.contains("▶ #500") && !last.contains("ghost-0000"),
        "{last}"
    );
    key(&mut app, KeyCode::PageUp);
    key(&mut app, KeyCode::PageUp);
    ch(&mut app, 'g');
    assert!(render(&app).contains("▶ #1 "));
    // Walking down past the page edge reads one row at a time.
    for _ in 0..60 {
        ch(&mut app, 'j');
    }
    assert!(render(&app).contains("▶ #61 "));
    // Mouse wheel scrolls the list too.
    console::mouse(
        &mut app,
        &ratatui::crossterm::event::MouseEvent {
            kind: ratatui::crossterm::event::MouseEventKind::ScrollUp,
            column: 10,
            row: 10,
            modifiers: KeyModifiers::NONE,
        },
    );
    assert!(render(&app).contains("▶ #60 "));
}

#[test]
fn any_size_draws_without_panicking() {
    let ledger = demo_ledger();
    let mut app = open_app(&ledger.path, "ana");
    assert!(render_at(&app, 40, 10).contains("too small"));
    for tab in Tab::ALL {
        update(&mut app, Action::ShowTab(tab));
        for (width, height) in [
            (1, 1),
            (59, 14),
            (60, 15),
            (80, 24),
            (61, 40),
            (220, 70),
            (160, 16),
        ] {
            update(&mut app, Action::Resize { width, height });
            let _ = render_at(&app, width, height);
            key(&mut app, KeyCode::Enter);
            let _ = render_at(&app, width, height);
            ch(&mut app, 'j');
            ch(&mut app, '?');
            let _ = render_at(&app, width, height);
            key(&mut app, KeyCode::Esc);
            key(&mut app, KeyCode::Esc);
        }
    }
}

#[test]
fn at_80_columns_the_lists_show_fewer_columns_whole_rather_than_all_cut_short() {
    let ledger = demo_ledger();
    let mut app = open_app(&ledger.path, "ana");
    update(
        &mut app,
        Action::Resize {
            width: 80,
            height: 24,
        },
    );
    // What each view must show whole at 80 columns, and a column it leaves out there.
    let views: [(Tab, &[&str], &str); 5] = [
        (
            Tab::Held,
            &[
                "booking-1042",
                "possible_duplicate_effect",
                "+4m44s",
                "#2 staff:maria",
            ],
            "timeout at",
        ),
        (
            Tab::Quarantined,
            &["booking-9999", "no_matching_job", "11-27 13:40:00"],
            "latest answer",
        ),
        (
            Tab::Aged,
            &["booking-1042", "running", "ops:maria", "overdue"],
            "escalates at",
        ),
        (
            Tab::Failed,
            &["booking-1057", "permanent", "1 of 3"],
            "retry possible",
        ),
        (
            Tab::Callbacks,
            &["booking-1041", "success", "apply", "late_success", "+2m12s"],
            "arrived at",
        ),
    ];
    for (tab, whole, left_out) in views {
        update(&mut app, Action::ShowTab(tab));
        let narrow = render_at(&app, 80, 24);
        for text in whole {
            assert!(
                narrow.contains(text),
                "{tab:?} at 80 columns lacks {text:?}:\n{narrow}"
            );
        }
        assert!(
            !narrow.contains(left_out),
            "{tab:?}: {left_out:?} is left out at 80 columns"
        );
        // At full width nothing is left out.
        update(
            &mut app,
            Action::Resize {
                width: 160,
                height: 48,
            },
        );
        assert!(
            render_at(&app, 160, 48).contains(left_out),
            "{tab:?} at 160 columns"
        );
        update(
            &mut app,
            Action::Resize {
                width: 80,
                height: 24,
            },
        );
    }
}

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
    for tab in Tab::ALL {
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
    let (mut terminal, recorder) = recorder::terminal(WIDTH, HEIGHT);
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

/// The real binary in a pseudo-terminal: answer the held callback, leave, and find
/// the answer with the command line.
#[test]
fn end_to_end_in_a_pseudo_terminal() {
    use std::io::{Read, Write};
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    use portable_pty::{CommandBuilder, PtySize, native_pty_system};

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("e2e.db");
    let bin = env!("CARGO_BIN_EXE_jobledger");
    let pty = native_pty_system()
        .openpty(PtySize {
            rows: HEIGHT,
            cols: WIDTH,
            pixel_width: 0,
            pixel_height: 0,
        })
        .expect("a pseudo-terminal");
    let mut cmd = CommandBuilder::new(bin);
    cmd.args(["--db", db.to_str().unwrap(), "demo"]);
    cmd.env("JOBLEDGER_REVIEWER", "e2e-reviewer");
    cmd.env("TERM", "xterm-256color");
    cmd.cwd(dir.path());
    let mut child = pty.slave.spawn_command(cmd).expect("start jobledger");
    drop(pty.slave);
    let parser = Arc::new(Mutex::new(vt100::Parser::new(
        std::num::NonZero::new(HEIGHT).unwrap(),
        std::num::NonZero::new(WIDTH).unwrap(),
        0,
    )));
    let mut reader = pty.master.try_clone_reader().unwrap();
    let screen_feed = Arc::clone(&parser);
    let pump = std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            screen_feed.lock().unwrap().process(&buf[..n]);
        }
    });
    let mut writer = pty.master.take_writer().unwrap();
    let wait_until = |what: &str, done: &dyn Fn(&str) -> bool| {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let contents = parser.lock().unwrap().screen().contents();
            if done(&contents) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; screen:\n{contents}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let wait_for = |needle: &str| wait_until(&format!("{needle:?}"), &|s| s.contains(needle));
    let mut send = |bytes: &[u8]| {
        writer.write_all(bytes).unwrap();
        writer.flush().unwrap();
    };
    wait_for("held for a person");
    send(b"1");
    wait_for("possible_duplicate_effect");
    send(b"a");
    wait_for("Answer callback #2");
    send(b"\x1b[B"); // Down: duplicate_effect
    send(b"\t");
    send(b"seen in e2e");
    wait_for("seen in e2e");
    send(b"\r");
    wait_for("Answer 1 written on callback #2");
    send(b"\r");
    // The confirmation names the answer too: wait for it to close and the row to show
    // the answer (its column may cut the reviewer's name short).
    wait_until("the held row to show the answer", &|s| {
        !s.contains("Answer 1 written") && s.contains("duplicate_effect by e2e-")
    });
    send(b"q");
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "jobledger did not leave on q");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "jobledger exited with {status:?}");
    drop(pty.master);
    let _ = pump.join();

    let out = std::process::Command::new(bin)
        .args(["--db", db.to_str().unwrap(), "callbacks", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let held = list
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["seq"] == 2)
        .expect("callback #2");
    assert_eq!(held["answer"]["verdict"], "duplicate_effect");
    assert_eq!(held["answer"]["reviewer"], "e2e-reviewer");
    assert_eq!(held["answer"]["note"], "seen in e2e");
}
