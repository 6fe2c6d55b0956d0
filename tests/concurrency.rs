//! Concurrency (SPEC sec. 1.2 and 5): an ingest writer, two reviewers, a
//! reader paging like the console and the console itself at work on one ledger at
//! once. (Racing terminal reports and two reviewers on one row: `concurrency_races.rs`.)
//!
//! Nothing here asserts a duration. The mixed run goes on for a few seconds by default
//! and for 30 seconds in its `#[ignore]`d long version (`cargo test --release --test
//! concurrency -- --ignored --nocapture`); what it checks holds however far it got.

mod support;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Output;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use support::concurrent::{assert_not_locked, questions, stream_chunks};
use support::disk::disk_dir;
use support::{binary, fixture};

use fixture::{NOW, now};
use jobledger::store::{CallbackFilter, Keyset, Ledger, PageRequest};

fn jobledger(db: &Path, args: &[&str]) -> Output {
    binary::run_at(db, NOW, args)
}

#[derive(Debug, Default)]
struct Figures {
    ingest_runs: u32,
    lines_ingested: u64,
    answers_written: u32,
    told_answered_meanwhile: u32,
    reader_pages: u32,
    reader_saw_changes: u32,
    /// Times the reader's count of callbacks went up: it saw the writer's batches.
    reader_saw_more: u32,
    console_frames: u32,
    console_saw_changes: u32,
}

/// One reviewer: answers the questions in its own order, each time over the answer it
/// last read (as the console does), until told to stop. A refusal because the other
/// reviewer answered meanwhile is expected; anything else is a failure.
fn reviewer(
    db: &Path,
    name: &'static str,
    questions: &[(i64, &'static str)],
    stop: &AtomicBool,
) -> (Vec<(i64, String)>, u32) {
    let mut written = Vec::new();
    let mut refused = 0;
    let mut round = 0;
    while !stop.load(Ordering::Relaxed) {
        for (seq, verdict) in questions {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let seen = {
                let ledger = Ledger::open_read_only(db).unwrap();
                ledger.answers(*seq).unwrap().last().map(|a| a.id)
            };
            let note = format!("{name} round {round} on #{seq}");
            let mut args = vec![
                "answer".to_owned(),
                seq.to_string(),
                "--verdict".to_owned(),
                (*verdict).to_owned(),
                "--note".to_owned(),
                note.clone(),
                "--reviewer".to_owned(),
                name.to_owned(),
            ];
            if let Some(seen) = seen {
                args.extend(["--seen".to_owned(), seen.to_string()]);
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = jobledger(db, &args);
            assert_not_locked(name, &out);
            if out.status.success() {
                written.push((*seq, note));
            } else {
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert!(
                    stderr.contains("answered meanwhile"),
                    "{name}: answer failed: {stderr}"
                );
                refused += 1;
            }
        }
        round += 1;
    }
    (written, refused)
}

/// A console-style reader: pages through every callback by keyset and watches
/// `data_version`, checking that what it reads is consistent.
fn reader(db: &Path, stop: &AtomicBool) -> (u32, u32, u32) {
    let ledger = Ledger::open_read_only(db).unwrap();
    let mut version = ledger.data_version().unwrap();
    let (mut pages, mut changes, mut more) = (0, 0, 0);
    let mut last_total = ledger.disposition_counts().unwrap().total();
    while !stop.load(Ordering::Relaxed) {
        let counts = ledger.disposition_counts().unwrap();
        assert!(counts.total() >= last_total, "callbacks disappeared");
        if counts.total() > last_total {
            more += 1;
        }
        last_total = counts.total();
        let filter = CallbackFilter::default();
        let mut page = PageRequest::first(200);
        let mut previous = 0;
        loop {
            let rows = ledger.callbacks_page(&filter, page).unwrap();
            pages += 1;
            for row in &rows {
                assert!(row.seq > previous, "keyset paging went back");
                previous = row.seq;
            }
            match rows.last() {
                Some(last) if rows.len() == page.limit => page.keyset = Keyset::After(last.seq),
                _ => break,
            }
        }
        let now_version = ledger.data_version().unwrap();
        if now_version != version {
            changes += 1;
            version = now_version;
        }
    }
    (pages, changes, more)
}

/// The console itself, read-only, refreshing on every tick as it does in a terminal
/// and drawing each view in turn: it must never show an error while others write.
fn console_reader(db: &Path, stop: &AtomicBool) -> (u32, u32) {
    use jobledger::clock::Clock;
    use jobledger::console::{self, Action, App, Tab, update};
    use ratatui::Terminal;
    use ratatui::backend::TestBackend;

    let ledger = Ledger::open_read_only(db).unwrap();
    let mut app = App::new(ledger, Clock::Fixed(now()), "carol".to_owned(), true).unwrap();
    update(
        &mut app,
        Action::Resize {
            width: 160,
            height: 48,
        },
    );
    let mut terminal = Terminal::new(TestBackend::new(160, 48)).unwrap();
    let (mut frames, mut refreshed) = (0u32, 0u32);
    let mut version = app.ledger().data_version().unwrap();
    while !stop.load(Ordering::Relaxed) {
        update(&mut app, Action::Tick);
        if let Some(flash) = app.flash() {
            assert!(!flash.error, "the console showed an error: {}", flash.text);
        }
        let tab = Tab::ALL[usize::try_from(frames).unwrap() % Tab::ALL.len()];
        update(&mut app, Action::ShowTab(tab));
        terminal
            .draw(|frame| console::view::draw(frame, app.model()))
            .unwrap();
        frames += 1;
        let now_version = app.ledger().data_version().unwrap();
        if now_version != version {
            refreshed += 1;
            version = now_version;
        }
    }
    (frames, refreshed)
}

fn run_together(run_for: Duration, jobs: u32, chunk_lines: usize) -> Figures {
    let dir = disk_dir("concurrency-");
    let db = dir.path().join("ledger.db");
    let chunks = stream_chunks(dir.path(), jobs, chunk_lines);
    // The first chunk is in before anyone starts: it holds the questions.
    let out = jobledger(&db, &["ingest", chunks[0].to_str().unwrap()]);
    assert!(out.status.success());
    let asked = questions(&db);
    assert!(asked.len() >= 10, "{asked:?}");
    let mut reversed = asked.clone();
    reversed.reverse();

    let stop = Arc::new(AtomicBool::new(false));
    let reviewers = [("ana", asked), ("bob", reversed)].map(|(name, qs)| {
        let (db, stop) = (db.clone(), Arc::clone(&stop));
        std::thread::spawn(move || reviewer(&db, name, &qs, &stop))
    });
    let reading = {
        let (db, stop) = (db.clone(), Arc::clone(&stop));
        std::thread::spawn(move || reader(&db, &stop))
    };
    let console = {
        let (db, stop) = (db.clone(), Arc::clone(&stop));
        std::thread::spawn(move || console_reader(&db, &stop))
    };
    let mut figures = Figures::default();
    let started = Instant::now();
    let mut next = 1;
    // The writer: chunk after chunk, then the whole stream again (all already there),
    // until the time is up and at least one new chunk went in.
    while started.elapsed() < run_for || next < 2 {
        let chunk = &chunks[next % chunks.len()];
        let out = jobledger(&db, &["ingest", chunk.to_str().unwrap()]);
        assert_not_locked("ingest", &out);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        figures.ingest_runs += 1;
        next += 1;
    }
    stop.store(true, Ordering::Relaxed);
    let mut written = Vec::new();
    for handle in reviewers {
        let (mine, refused) = handle.join().expect("a reviewer panicked");
        figures.told_answered_meanwhile += refused;
        written.extend(mine);
    }
    let (pages, changes, more) = reading.join().expect("the reader panicked");
    let (frames, console_changes) = console.join().expect("the console panicked");
    figures.console_frames = frames;
    figures.console_saw_changes = console_changes;
    figures.reader_pages = pages;
    figures.reader_saw_changes = changes;
    figures.reader_saw_more = more;
    figures.answers_written = u32::try_from(written.len()).unwrap();

    // No answer lost: each one reported written is in the ledger, once.
    let conn = rusqlite::Connection::open(&db).unwrap();
    let stored: BTreeMap<String, i64> = conn
        .prepare("SELECT note, callback_seq FROM answers")
        .unwrap()
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(stored.len(), written.len(), "answers lost or invented");
    for (seq, note) in &written {
        assert_eq!(stored.get(note), Some(seq), "answer {note:?} lost");
    }
    // Nobody answered over an answer they had not seen: each answer names the one
    // before it on its row, so the answers of a row form one chain.
    let forks: i64 = conn
        .query_row(
            "SELECT count(*) FROM answers a WHERE a.previous_answer IS NOT
               (SELECT max(b.id) FROM answers b WHERE b.callback_seq = a.callback_seq AND b.id < a.id)",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(
        forks, 0,
        "an answer overwrote one its reviewer had not seen"
    );
    let check: String = conn
        .query_row("PRAGMA integrity_check", [], |row| row.get(0))
        .unwrap();
    assert_eq!(check, "ok");
    figures.lines_ingested = u64::try_from(fixture::query_i64(
        &db,
        "SELECT count(*) FROM input_lines",
        [],
    ))
    .unwrap();
    let totals = Ledger::open_read_only(&db)
        .unwrap()
        .disposition_counts()
        .unwrap();
    assert_eq!(
        totals.total(),
        fixture::query_i64(&db, "SELECT count(*) FROM callbacks", [])
    );
    eprintln!("together for {:?}: {figures:?}", started.elapsed());
    // The readers read a ledger that was changing under them, not a finished one.
    assert!(
        figures.reader_saw_more > 0 && figures.console_saw_changes > 0,
        "the readers never saw the ledger change: {figures:?}"
    );
    figures
}

#[test]
fn a_writer_two_reviewers_and_a_reader_at_once_lose_nothing() {
    let figures = run_together(Duration::from_secs(4), 2_000, 2_000);
    assert!(figures.answers_written > 0 && figures.ingest_runs >= 2);
}

#[test]
#[ignore = "long: 30 seconds of a writer with full 50,000-line batches, two reviewers and a reader"]
fn a_writer_two_reviewers_and_a_reader_for_30_seconds_lose_nothing() {
    let figures = run_together(Duration::from_secs(30), 30_000, 60_000);
    assert!(figures.answers_written > 0 && figures.ingest_runs >= 2);
}
