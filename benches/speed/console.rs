//! The console on a ledger of a million callbacks, beside the same on a thousand:
//! start to first frame, render plus diff of one 160x48 frame, paging from the first
//! row to the last by keyset, and peak resident memory of the real binary.

use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use jobledger::clock::Clock;
use jobledger::console::{self, Action, App, Move, Tab, update};
use jobledger::demo;
use jobledger::store::{CallbackFilter, Keyset, Ledger, Location, OpenMode, PageRequest};
use ratatui::Terminal;
use ratatui::backend::CrosstermBackend;

use super::measure::{median, peak_rss_kib, ratio, show, show_kib, thousands};
use super::{Config, Figure};
use terminal::{HEIGHT, WIDTH};

#[path = "../../tests/support/terminal.rs"]
mod terminal;

/// A terminal that diffs and writes like the real one, into nothing.
pub(super) type Screen = Terminal<CrosstermBackend<std::io::Sink>>;

/// Opens the ledger and the console's state and draws the first frame, as `review` does
/// (a file, or a schema on a server: the PostgreSQL part measures the same steps).
pub(super) fn first_frame(ledger: &Location) -> Result<(App, Screen, Duration)> {
    let started = Instant::now();
    let opened = Ledger::open_at(ledger, OpenMode::ReadWrite)?;
    let mut app = App::new(
        opened,
        Clock::Fixed(demo::demo_now()),
        "bench".to_owned(),
        false,
    )?;
    update(
        &mut app,
        Action::Resize {
            width: WIDTH,
            height: HEIGHT,
        },
    );
    let mut terminal = terminal::crossterm(std::io::sink());
    terminal.draw(|frame| console::view::draw(frame, app.model()))?;
    Ok((app, terminal, started.elapsed()))
}

/// The screen as text lines (for finding rows and the footer).
fn text_of(app: &App) -> Vec<String> {
    terminal::lines_at(app.model(), WIDTH, HEIGHT)
}

/// What one ledger gave.
struct Run {
    callbacks: u64,
    first_frame: Duration,
    /// From opening to the reconciliation counts on screen.
    glance: Duration,
    frame: Duration,
    page_mean: Duration,
    page_p99: Duration,
    page_max: Duration,
    pages: usize,
    footer: String,
}

fn measure(config: &Config, ledger: &Path) -> Result<Run> {
    let location = Location::File(ledger.to_path_buf());
    let mut opens = Vec::new();
    for _ in 0..config.reps {
        opens.push(first_frame(&location)?.2);
    }
    let (mut app, mut terminal, first) = first_frame(&location)?;
    opens.push(first);
    let footer = text_of(&app).last().cloned().context("an empty screen")?;

    // Render and diff: the selection moves between frames, so each frame differs.
    update(&mut app, Action::ShowTab(Tab::Callbacks));
    terminal.draw(|frame| console::view::draw(frame, app.model()))?;
    let mut frames = Vec::with_capacity(config.frames);
    for i in 0..config.frames {
        update(
            &mut app,
            if i % 2 == 0 {
                Action::Move(Move::Down)
            } else {
                Action::Move(Move::Up)
            },
        );
        let started = Instant::now();
        terminal.draw(|frame| console::view::draw(frame, app.model()))?;
        frames.push(started.elapsed());
    }

    // The reconciliation's counts on screen: read with the first frame from what the
    // ledger keeps (ticks until the Reconcile tab shows a number, should it not).
    let started = Instant::now();
    let glance = loop {
        update(&mut app, Action::Tick);
        let tabs = text_of(&app).into_iter().next().unwrap_or_default();
        if !tabs.contains("Reconcile …") {
            break started.elapsed() + first;
        }
        if started.elapsed() > Duration::from_secs(120) {
            bail!("the reconciliation glance never arrived");
        }
        std::thread::sleep(Duration::from_millis(5));
    };

    // Paging the whole list by keyset, first row to last.
    let counts = app.ledger().disposition_counts()?;
    let callbacks = u64::try_from(counts.total())?;
    let last_seq = app
        .ledger()
        .callbacks_page(&CallbackFilter::default(), PageRequest::at(Keyset::Last, 1))?
        .first()
        .map(|row| row.seq)
        .context("a ledger without callbacks")?;
    let height = console::layout::list_capacity(app.model());
    let pages = usize::try_from(callbacks)?.div_ceil(height);
    update(&mut app, Action::Move(Move::Home));
    let mut times = Vec::with_capacity(pages);
    for _ in 0..pages {
        let started = Instant::now();
        update(&mut app, Action::Move(Move::PageDown));
        times.push(started.elapsed());
    }
    let total: Duration = times.iter().sum();
    times.sort();
    let slowest = times.last().copied().unwrap_or_default();
    let p99 = times
        .get(times.len() * 99 / 100)
        .copied()
        .unwrap_or(slowest);
    if let Some(flash) = app.flash() {
        bail!("paging said: {}", flash.text);
    }
    let needle = format!("#{last_seq} ");
    if !text_of(&app).iter().any(|line| line.contains(&needle)) {
        bail!("after {pages} pages the last callback #{last_seq} is not on screen");
    }
    Ok(Run {
        callbacks,
        first_frame: median(opens),
        glance,
        frame: median(frames),
        page_mean: total / u32::try_from(pages.max(1))?,
        page_p99: p99,
        page_max: slowest,
        pages,
        footer,
    })
}

/// The real binary in a pseudo-terminal: time to its first whole frame, then its
/// peak memory after jumping to the end of the list and back.
fn real_console(config: &Config, ledger: &Path, footer: &str) -> Result<(Duration, Option<u64>)> {
    use portable_pty::CommandBuilder;

    let pty = terminal::pty()?;
    let mut cmd = CommandBuilder::new(&config.bin);
    cmd.arg("--db");
    cmd.arg(ledger);
    cmd.args(["--now", demo::DEMO_NOW, "review"]);
    cmd.env("TERM", "xterm-256color");
    cmd.env("JOBLEDGER_REVIEWER", "bench");
    let started = Instant::now();
    let mut child = pty
        .slave
        .spawn_command(cmd)
        .map_err(|e| anyhow::anyhow!("starting the console: {e}"))?;
    drop(pty.slave);
    let pid = child.process_id().context("the console's process id")?;
    let parser = Arc::new(Mutex::new(terminal::vt100_screen()));
    let first_frame: Arc<Mutex<Option<Duration>>> = Arc::default();
    let mut reader = pty
        .master
        .try_clone_reader()
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let pump = {
        let parser = Arc::clone(&parser);
        let first_frame = Arc::clone(&first_frame);
        let footer = footer.to_owned();
        std::thread::spawn(move || {
            let mut buf = [0u8; 16384];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                let mut parser = parser.lock().expect("screen lock");
                parser.process(&buf[..n]);
                let mut seen = first_frame.lock().expect("frame lock");
                if seen.is_none() {
                    let last_row = parser.screen().rows(0, WIDTH).last().unwrap_or_default();
                    if last_row.trim_end() == footer {
                        *seen = Some(started.elapsed());
                    }
                }
            }
        })
    };
    let mut writer = pty
        .master
        .take_writer()
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let deadline = Instant::now() + Duration::from_secs(if config.quick { 60 } else { 120 });
    let wait = |what: &str, done: &dyn Fn() -> bool| -> Result<()> {
        while !done() {
            if Instant::now() > deadline {
                bail!(
                    "the console did not show {what}; screen:\n{}",
                    parser.lock().expect("screen lock").screen().contents()
                );
            }
            std::thread::sleep(Duration::from_millis(1));
        }
        Ok(())
    };
    wait("its first frame", &|| {
        first_frame.lock().expect("frame lock").is_some()
    })?;
    // The longest list, to its end and back: memory must not grow with the rows passed.
    for keys in [&b"5"[..], b"G", b"g"] {
        writer.write_all(keys)?;
        writer.flush()?;
        std::thread::sleep(Duration::from_millis(300));
    }
    let peak = peak_rss_kib(pid);
    writer.write_all(b"q")?;
    writer.flush()?;
    let quit_by = Instant::now() + Duration::from_secs(20);
    loop {
        if child.try_wait()?.is_some() {
            break;
        }
        if Instant::now() > quit_by {
            let _ = child.kill();
            bail!("the console did not leave on q");
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    drop(pty.master);
    let _ = pump.join();
    let first = first_frame
        .lock()
        .expect("frame lock")
        .context("no first frame")?;
    Ok((first, peak))
}

pub fn run(config: &Config, small: &Path, big: &Path, figures: &mut Vec<Figure>) -> Result<()> {
    super::data::warm(small)?;
    super::data::warm(big)?;
    eprintln!("console: the small ledger");
    let base = measure(config, small)?;
    eprintln!("console: the large ledger");
    let ours = measure(config, big)?;
    eprintln!("console: the real binary in a pseudo-terminal");
    let (base_start, base_peak) = real_console(config, small, &base.footer)?;
    let (ours_start, ours_peak) = real_console(config, big, &ours.footer)?;
    let versus = |n: u64| format!("vs {} callbacks", thousands(n));
    let size = format!("{} callbacks", thousands(ours.callbacks));
    // A time on the large ledger against the same time on the small one.
    let timed = |what: &str, ours_t: Duration, base_t: Duration, target: &str, met| Figure {
        what: format!("console: {what}, {size}"),
        ours: show(ours_t),
        baseline: format!("{} {}", show(base_t), versus(base.callbacks)),
        ratio: Some(ratio(ours_t, base_t)),
        target: target.to_owned(),
        met,
    };
    let under_150_ms = |t: Duration| Some(t < Duration::from_millis(150));
    figures.push(timed(
        "start to first frame, real binary in a pty",
        ours_start,
        base_start,
        "< 150 ms",
        under_150_ms(ours_start),
    ));
    figures.push(timed(
        "open + first frame in process",
        ours.first_frame,
        base.first_frame,
        "< 150 ms",
        under_150_ms(ours.first_frame),
    ));
    figures.push(timed(
        "open to reconciliation counts on screen (read from what the ledger keeps)",
        ours.glance,
        base.glance,
        "(none: shown for what follows the first frame)",
        None,
    ));
    let frame_ratio = ratio(ours.frame, base.frame);
    figures.push(timed(
        &format!("render + diff of one {WIDTH}x{HEIGHT} frame"),
        ours.frame,
        base.frame,
        "≤ 2 ms, ratio ≤ 1.5",
        Some(ours.frame <= Duration::from_millis(2) && frame_ratio <= 1.5),
    ));
    figures.push(Figure {
        what: format!(
            "console: page down, first row to last by keyset ({} pages): mean / p99 / slowest",
            thousands(ours.pages as u64)
        ),
        ours: format!(
            "{} / {} / {}",
            show(ours.page_mean),
            show(ours.page_p99),
            show(ours.page_max)
        ),
        baseline: format!(
            "{} / {} / {} {}",
            show(base.page_mean),
            show(base.page_p99),
            show(base.page_max),
            versus(base.callbacks)
        ),
        ratio: Some(ratio(ours.page_mean, base.page_mean)),
        target: "each page < 1 ms (judged at p99)".to_owned(),
        met: Some(ours.page_p99 < Duration::from_millis(1)),
    });
    #[allow(clippy::cast_precision_loss)]
    let rss_ratio = ours_peak
        .zip(base_peak)
        .map(|(o, b)| o as f64 / b.max(1) as f64);
    figures.push(Figure {
        what: format!("console: peak RSS of the real binary, {size}, list paged to its end"),
        ours: ours_peak.map_or_else(|| "n/a".to_owned(), show_kib),
        baseline: base_peak.map_or_else(
            || "n/a".to_owned(),
            |b| format!("{} {}", show_kib(b), versus(base.callbacks)),
        ),
        ratio: rss_ratio,
        target: "< 50 MB".to_owned(),
        met: ours_peak.map(|kib| kib * 1024 < 50_000_000),
    });
    Ok(())
}
