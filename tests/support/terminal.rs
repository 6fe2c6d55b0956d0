//! The one test terminal: the console drawn from its model at 160×48 (or any size) into
//! ratatui's `TestBackend` and read back as text, a crossterm terminal that writes like
//! the real one, and keys pressed on a console opened on a demo ledger. A part of
//! `tests/support.rs`; the speed suite takes it on its own through `#[path]`.

// Each user takes a different part of this module.
#![allow(dead_code)]

use std::io::Write;
use std::path::{Path, PathBuf};

use jobledger::clock::{Clock, Timestamp};
use jobledger::console::{self, Action, App, Model, update};
use jobledger::demo::{self, DemoData};
use jobledger::store::{CallbackRow, Finding, Ledger};
use ratatui::backend::{CrosstermBackend, TestBackend};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};
use tempfile::TempDir;

/// The test screen's width: a roomy reviewer's terminal.
pub const WIDTH: u16 = 160;
/// The test screen's height.
pub const HEIGHT: u16 = 48;

/// The frame drawn from `model` on a `width` x `height` screen, styles and all.
pub fn buffer_at(model: &Model, width: u16, height: u16) -> ratatui::buffer::Buffer {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    terminal
        .draw(|frame| console::view::draw(frame, model))
        .expect("draw");
    terminal.backend().buffer().clone()
}

/// The frame drawn from `model` on a `width` x `height` screen, one string per row,
/// trailing spaces cut (only spaces: a control character that slipped through at the
/// end of a row stays for the hostile tests to find).
pub fn lines_at(model: &Model, width: u16, height: u16) -> Vec<String> {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).expect("test terminal");
    terminal
        .draw(|frame| console::view::draw(frame, model))
        .expect("draw");
    let buffer = terminal.backend().buffer();
    (0..buffer.area.height)
        .map(|y| {
            (0..buffer.area.width)
                .map(|x| buffer[(x, y)].symbol())
                .collect::<String>()
                .trim_end_matches(' ')
                .to_owned()
        })
        .collect()
}

/// The frame drawn from `model` on a `width` x `height` screen, as text.
pub fn text_at(model: &Model, width: u16, height: u16) -> String {
    let mut text = String::new();
    for line in lines_at(model, width, height) {
        text.push_str(&line);
        text.push('\n');
    }
    text
}

/// The console's screen on a `width` x `height` terminal, as text.
pub fn render_at(app: &App, width: u16, height: u16) -> String {
    text_at(app.model(), width, height)
}

/// The console's screen on the 160×48 test terminal, as text.
pub fn render(app: &App) -> String {
    render_at(app, WIDTH, HEIGHT)
}

/// The console's screen, after failing unless it shows `needle` (the screen is the
/// failure's message).
pub fn shows(app: &App, needle: &str) -> String {
    let text = render(app);
    assert!(
        text.contains(needle),
        "{needle:?} is not on screen:\n{text}"
    );
    text
}

/// A fresh demo ledger in its own temporary directory.
pub struct DemoLedger {
    _dir: TempDir,
    pub path: PathBuf,
}

/// Builds the demo's booking afternoon into a new ledger.
pub fn demo_ledger() -> DemoLedger {
    let dir = tempfile::tempdir().expect("temporary directory");
    let path = dir.path().join("demo.db");
    demo::build(&path, demo::demo_now(), DemoData::Booking, |_| {}).expect("demo ledger");
    DemoLedger { _dir: dir, path }
}

/// The screen with the temporary ledger path masked, for snapshots.
pub fn screen(app: &App, ledger: &DemoLedger) -> String {
    render(app).replace(&ledger.path.display().to_string(), "[LEDGER]")
}

/// A console on a fresh demo ledger, for `reviewer`: the start of most console tests.
pub fn demo_app(reviewer: &str) -> (DemoLedger, App) {
    let ledger = demo_ledger();
    let app = open_app(&ledger.path, reviewer);
    (ledger, app)
}

/// Opens `finding`'s list of jobs in the Reconcile view (↓ to it, Enter); fails, not
/// hangs, when ↓ never reaches it.
pub fn open_finding(app: &mut App, finding: Finding) {
    update(app, Action::ShowTab(console::Tab::Reconcile));
    for _ in Finding::ALL {
        if app.model().findings.selected == finding {
            key(app, KeyCode::Enter);
            return;
        }
        key(app, KeyCode::Down);
    }
    panic!("{finding:?} is not among the findings ↓ reaches");
}

/// The console on the ledger at `path`, for `reviewer`, at the demo's clock, on the
/// test terminal.
pub fn open_app(path: &Path, reviewer: &str) -> App {
    open_app_at(path, reviewer, demo::demo_now())
}

/// The console on the ledger at `path`, for `reviewer`, with the clock fixed at `now`,
/// on the test terminal.
pub fn open_app_at(path: &Path, reviewer: &str, now: Timestamp) -> App {
    let ledger = Ledger::open(path).expect("open ledger");
    let mut app =
        App::new(ledger, Clock::Fixed(now), reviewer.to_owned(), false).expect("console state");
    update(
        &mut app,
        Action::Resize {
            width: WIDTH,
            height: HEIGHT,
        },
    );
    app
}

/// Tells the console its terminal is `width` x `height`.
pub fn resize(app: &mut App, width: u16, height: u16) {
    update(app, Action::Resize { width, height });
}

/// The callback on the selected row of the view shown (the test fails without one).
pub fn selected_callback(app: &App) -> CallbackRow {
    app.model()
        .list()
        .and_then(|l| l.callback())
        .cloned()
        .expect("a callback row is selected")
}

/// Presses a key without modifiers.
pub fn key(app: &mut App, code: KeyCode) {
    console::press(app, &KeyEvent::new(code, KeyModifiers::NONE));
}

/// Types one character.
pub fn ch(app: &mut App, c: char) {
    key(app, KeyCode::Char(c));
}

/// Types `text`, a character at a time.
pub fn type_text(app: &mut App, text: &str) {
    for c in text.chars() {
        ch(app, c);
    }
}

/// A 160×48 pseudo-terminal, for the real binary.
pub fn pty() -> anyhow::Result<portable_pty::PtyPair> {
    portable_pty::native_pty_system()
        .openpty(portable_pty::PtySize {
            rows: HEIGHT,
            cols: WIDTH,
            pixel_width: 0,
            pixel_height: 0,
        })
        .map_err(|e| anyhow::anyhow!("no pseudo-terminal: {e}"))
}

/// A 160×48 screen that reads what the real binary writes to its pseudo-terminal.
pub fn vt100_screen() -> vt100::Parser {
    const ROWS: std::num::NonZero<u16> = std::num::NonZero::new(HEIGHT).expect("a height");
    const COLUMNS: std::num::NonZero<u16> = std::num::NonZero::new(WIDTH).expect("a width");
    vt100::Parser::new(ROWS, COLUMNS, 0)
}

/// A 160×48 terminal that diffs and writes through crossterm into `out`, escapes and
/// all, like the real one.
pub fn crossterm<W: Write>(out: W) -> Terminal<CrosstermBackend<W>> {
    Terminal::with_options(
        CrosstermBackend::new(out),
        TerminalOptions {
            viewport: Viewport::Fixed(Rect::new(0, 0, WIDTH, HEIGHT)),
        },
    )
    .expect("crossterm terminal")
}

/// Takes what runs off the console's thread (a search, a refresh's count) sends, one
/// thing a call as the console's loop does, while `waiting` holds; fails after 10 s.
pub fn take_while(app: &mut App, waiting: impl Fn(&App) -> bool) {
    let started = std::time::Instant::now();
    while waiting(app) {
        assert!(
            started.elapsed().as_secs() < 10,
            "the reading off the console's thread never ended"
        );
        std::thread::sleep(std::time::Duration::from_millis(2));
        update(app, Action::Searched);
    }
}
