//! Ingest: events a second over a stream of a million lines in three orders (each
//! job's events together, time order with callbacks days late, shuffled), beside a
//! plain SQLite table fed the same raw lines; bytes written to disk a line, peak
//! memory (100k lines against a million), and a reviewer's answers meanwhile.

use std::io::BufRead;
use std::path::Path;
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use jobledger::decision::Disposition;
use jobledger::demo::synthetic::StreamOrder;
use jobledger::ingest::BATCH_LINES;
use jobledger::store::{CallbackFilter, Ledger, PageRequest};
use rusqlite::{Connection, TransactionBehavior, params};
use sha2::{Digest, Sha256};

use super::data::{self, Stream};
use super::measure::{run_child, show, show_kib, thousands, written_bytes};
use super::{Config, Figure};

/// The ledger's pragmas (`store/open.rs`, and `Ledger::use_bulk_cache` for ingest).
fn pragmas() -> String {
    format!(
        "PRAGMA page_size = {}; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
         PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -{}; \
         PRAGMA wal_autocheckpoint = {};",
        jobledger::store::PAGE_SIZE,
        jobledger::store::BULK_CACHE_KIB,
        jobledger::store::BULK_CHECKPOINT_PAGES
    )
}

/// How the plain table finds a line it already holds.
#[derive(Debug, Clone, Copy)]
enum Keying {
    /// A unique SHA-256 column: the baseline since the suite began, and how the ledger
    /// kept lines up to schema 4.
    Sha256,
    /// Unique (time_key, SHA-256), time_key the same generated column as the ledger's
    /// (schema 5): the same work as jobledger's own line insert.
    TimeThenSha256,
}

impl Keying {
    fn schema(self) -> &'static str {
        match self {
            Keying::Sha256 => {
                "CREATE TABLE lines (seq INTEGER PRIMARY KEY, line_sha256 BLOB NOT NULL UNIQUE, raw BLOB NOT NULL) STRICT"
            }
            Keying::TimeThenSha256 => {
                "CREATE TABLE lines (seq INTEGER PRIMARY KEY, line_sha256 BLOB NOT NULL, raw BLOB NOT NULL,
                    time_key BLOB GENERATED ALWAYS AS (substr(raw, instr(raw, X'226174223A22') + 6, 16)) VIRTUAL,
                    UNIQUE (time_key, line_sha256)) STRICT"
            }
        }
    }

    fn name(self) -> &'static str {
        match self {
            Keying::Sha256 => "plain table, unique SHA-256",
            Keying::TimeThenSha256 => {
                "plain table keyed like the ledger, unique (time_key, SHA-256)"
            }
        }
    }
}

/// The baseline: every raw line into one table that keeps each line once, in batches
/// of [`BATCH_LINES`], with the ledger's pragmas. Returns the lines kept.
fn plain_table(stream: &Path, db: &Path, keying: Keying) -> Result<u64> {
    remove_db(db);
    let mut conn = Connection::open(db)?;
    conn.execute_batch(&pragmas())?;
    conn.execute_batch(keying.schema())?;
    let mut input = std::io::BufReader::with_capacity(1 << 16, std::fs::File::open(stream)?);
    let mut line = Vec::with_capacity(512);
    let mut kept = 0u64;
    let mut done = false;
    while !done {
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO lines (line_sha256, raw) VALUES (?1, ?2) ON CONFLICT DO NOTHING",
            )?;
            for _ in 0..BATCH_LINES {
                line.clear();
                if input.read_until(b'\n', &mut line)? == 0 {
                    done = true;
                    break;
                }
                if line.last() == Some(&b'\n') {
                    line.pop();
                }
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let sha: [u8; 32] = Sha256::digest(&line).into();
                kept += u64::try_from(insert.execute(params![&sha[..], &line])?)?;
            }
        }
        tx.commit()?;
    }
    drop(conn);
    remove_db(db);
    Ok(kept)
}

fn remove_db(db: &Path) {
    for suffix in ["", "-wal", "-shm"] {
        let mut file = db.as_os_str().to_owned();
        file.push(suffix);
        let _ = std::fs::remove_file(file);
    }
}

/// What one run of `jobledger ingest` took.
struct Ours {
    wall: Duration,
    peak_kib: Option<u64>,
    written_bytes: Option<u64>,
    /// How long each reviewer's answer written during the ingest took.
    answers: Vec<Duration>,
    /// Answers refused as busy or locked (the concurrency promise: none).
    answers_refused: usize,
}

/// How often the reviewer answers during the ingest that measures answers: four times a
/// second, faster than any person resolves a case. Each answer makes the ingest commit
/// early (`store/turns.rs`), so lines a second and bytes a line are measured in a run
/// of their own, with no one else writing.
const ANSWER_EVERY: Duration = Duration::from_millis(250);

/// The real binary ingesting `stream` into a fresh ledger, with `answer_every` a
/// reviewer answering a held callback over and over meanwhile (`jobledger answer`, as a
/// person at the command line would; the held callback is the worked example's,
/// ingested first).
fn ours(
    config: &Config,
    stream: &Stream,
    db: &Path,
    answer_every: Option<Duration>,
) -> Result<Ours> {
    remove_db(db);
    let held = {
        let mut ledger = Ledger::open(db)?;
        jobledger::ingest::ingest(
            &mut ledger,
            jobledger::demo::BOOKING_AFTERNOON.as_bytes(),
            jobledger::demo::demo_now(),
            |_| {},
        )?;
        let filter = CallbackFilter {
            disposition: Some(Disposition::Hold),
            ..CallbackFilter::default()
        };
        let rows = ledger.callbacks_page(&filter, PageRequest::first(1))?;
        rows.first()
            .map(|row| row.seq)
            .context("the worked example holds a callback")?
    };
    let report = config.cache.join("ingest-report.txt");
    let mut command = Command::new(&config.bin);
    command
        .arg("--db")
        .arg(db)
        .args(["--now", jobledger::demo::DEMO_NOW, "ingest"])
        .arg(&stream.path);
    let ingesting = AtomicBool::new(true);
    let (run, (answers, answers_refused)) = std::thread::scope(|scope| {
        let ingesting = &ingesting;
        let reviewer = answer_every
            .map(|every| scope.spawn(move || reviewer(config, db, held, every, ingesting)));
        let run = run_child(command, &report);
        ingesting.store(false, Ordering::Relaxed);
        let answers = reviewer
            .and_then(|reviewer| reviewer.join().ok())
            .unwrap_or_default();
        (run, answers)
    });
    let run = run?;
    let said = std::fs::read_to_string(&report)?;
    let read: u64 = said
        .split(" lines read")
        .next()
        .and_then(|n| n.trim().parse().ok())
        .with_context(|| format!("unexpected ingest report: {said}"))?;
    if read != stream.lines {
        bail!("ingest read {read} lines of {}", stream.lines);
    }
    remove_db(db);
    Ok(Ours {
        wall: run.wall,
        peak_kib: run.peak_rss_kib,
        written_bytes: run.written_bytes,
        answers,
        answers_refused,
    })
}

/// Answers callback `seq` every `every` while `ingesting`, each over the answer it last
/// read; returns how long each took and how many were refused.
fn reviewer(
    config: &Config,
    db: &Path,
    seq: i64,
    every: Duration,
    ingesting: &AtomicBool,
) -> (Vec<Duration>, usize) {
    let mut times = Vec::new();
    let mut refused = 0;
    while ingesting.load(Ordering::Relaxed) {
        let seen = Ledger::open_read_only(db)
            .and_then(|ledger| ledger.answers(seq))
            .ok()
            .and_then(|answers| answers.last().map(|a| a.id));
        let mut command = Command::new(&config.bin);
        command
            .arg("--db")
            .arg(db)
            .args([
                "--now",
                jobledger::demo::DEMO_NOW,
                "answer",
                &seq.to_string(),
            ])
            .args([
                "--verdict",
                "needs_remote_check",
                "--note",
                "asked while ingesting",
            ])
            .args(["--reviewer", "bench"]);
        if let Some(seen) = seen {
            command.args(["--seen", &seen.to_string()]);
        }
        let started = Instant::now();
        let Ok(out) = command.output() else { break };
        let took = started.elapsed();
        if out.status.success() {
            times.push(took);
        } else {
            refused += 1;
        }
        std::thread::sleep(every);
    }
    (times, refused)
}

#[allow(clippy::cast_precision_loss)] // rates shown to a person
pub(super) fn rate(lines: u64, wall: Duration) -> f64 {
    lines as f64 / wall.as_secs_f64().max(1e-9)
}

#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // a rate shown to a person
pub(super) fn per_second(rate: f64) -> String {
    thousands(rate.round() as u64)
}

/// Kilobytes (10^3) written per line, where measured.
#[allow(clippy::cast_precision_loss)] // a figure shown to a person
fn kb_per_line(bytes: Option<u64>, lines: u64) -> Option<f64> {
    bytes.map(|b| b as f64 / 1e3 / lines.max(1) as f64)
}

fn show_kb(kb: Option<f64>) -> String {
    kb.map_or_else(|| "n/a".to_owned(), |kb| format!("{kb:.2} KB"))
}

/// The 99th percentile, and the slowest.
fn p99(mut times: Vec<Duration>) -> Option<(Duration, Duration)> {
    times.sort();
    let at = (times.len() * 99).div_ceil(100).checked_sub(1)?;
    Some((times[at], *times.last()?))
}

/// The three orders of one generated stream, as `demo --stream-only --order` writes them.
const ORDERS: [(StreamOrder, &str, &str); 3] = [
    (
        StreamOrder::Local,
        "local stream (each job's events together)",
        "-",
    ),
    (
        StreamOrder::Time,
        "time-ordered stream (callbacks up to 3 days late)",
        "≥ 0.8 of the local stream",
    ),
    (
        StreamOrder::Shuffled,
        "shuffled stream (each job's events in order)",
        "≥ 0.5 of the local stream",
    ),
];

pub fn run(config: &Config, figures: &mut Vec<Figure>) -> Result<()> {
    let local = data::stream(config, config.ingest_jobs, StreamOrder::Local)?;
    let small = data::stream(config, config.small_ingest_jobs, StreamOrder::Local)?;
    let db = config.cache.join("ingest-run.db");
    let plain_db = config.cache.join("ingest-plain.db");
    let mut plain = Vec::new();
    for keying in [Keying::Sha256, Keying::TimeThenSha256] {
        eprintln!(
            "ingest: {} lines, {}",
            thousands(local.lines),
            keying.name()
        );
        let (started, written) = (Instant::now(), written_bytes("self"));
        let kept = plain_table(&local.path, &plain_db, keying)?;
        let written = written_bytes("self")
            .zip(written)
            .map(|(after, before)| after - before);
        plain.push((keying, started.elapsed(), written));
        if kept != local.lines {
            bail!("the plain table kept {kept} of {} lines", local.lines);
        }
    }
    let mut runs = Vec::new();
    let mut answered = Vec::new();
    for (order, name, _) in ORDERS {
        let stream = data::stream(config, config.ingest_jobs, order)?;
        if stream.lines != local.lines {
            bail!(
                "the {order} stream holds {} lines, the local {}",
                stream.lines,
                local.lines
            );
        }
        eprintln!(
            "ingest: jobledger ingest, {} lines, {name}",
            thousands(stream.lines)
        );
        data::warm(&stream.path)?;
        runs.push(ours(config, &stream, &db, None)?);
        eprintln!("ingest: again, a reviewer answering every {ANSWER_EVERY:?}");
        answered.push(ours(config, &stream, &db, Some(ANSWER_EVERY))?);
    }
    eprintln!("ingest: jobledger ingest, {} lines", thousands(small.lines));
    let ours_small = ours(config, &small, &db, None)?;
    let answered_small = ours(config, &small, &db, Some(ANSWER_EVERY))?;

    let lines = local.lines;
    let local_rate = rate(lines, runs[0].wall);
    let (_, plain_wall, plain_written) = plain[0];
    let plain_rate = rate(lines, plain_wall);
    for (keying, wall, _) in &plain {
        let baseline = rate(lines, *wall);
        figures.push(Figure {
            what: format!(
                "ingest: events/s over {} lines of the {}, beside the {}",
                thousands(lines),
                ORDERS[0].1,
                keying.name()
            ),
            ours: format!("{}/s ({})", per_second(local_rate), show(runs[0].wall)),
            baseline: format!("{}/s ({})", per_second(baseline), show(*wall)),
            ratio: Some(local_rate / baseline),
            target: match keying {
                Keying::Sha256 => "≥ 0.38 of baseline (as before issue 13)",
                Keying::TimeThenSha256 => "-",
            }
            .to_owned(),
            met: matches!(keying, Keying::Sha256).then_some(local_rate / baseline >= 0.38),
        });
    }
    for ((order, name, target), run) in ORDERS.iter().zip(&runs).skip(1) {
        let ours_rate = rate(lines, run.wall);
        let share = ours_rate / local_rate;
        figures.push(Figure {
            what: format!(
                "ingest: events/s over {} lines of the {name}",
                thousands(lines)
            ),
            ours: format!(
                "{}/s ({}; {:.2} of the plain table)",
                per_second(ours_rate),
                show(run.wall),
                ours_rate / plain_rate
            ),
            baseline: format!("{}/s, the local stream", per_second(local_rate)),
            ratio: Some(share),
            target: (*target).to_owned(),
            met: Some(
                share
                    >= if *order == StreamOrder::Time {
                        0.8
                    } else {
                        0.5
                    },
            ),
        });
    }
    let plain_kb = kb_per_line(plain_written, lines);
    for ((order, name, _), run) in ORDERS.iter().zip(&runs) {
        let kb = kb_per_line(run.written_bytes, lines);
        figures.push(Figure {
            what: format!("ingest: written to disk per line, {name}"),
            ours: show_kb(kb),
            baseline: format!("{}, the plain table", show_kb(plain_kb)),
            ratio: kb.zip(plain_kb).map(|(ours, plain)| ours / plain.max(1e-9)),
            target: if *order == StreamOrder::Shuffled {
                "≤ 4 KB a line"
            } else {
                "-"
            }
            .to_owned(),
            met: (*order == StreamOrder::Shuffled).then(|| kb.is_some_and(|kb| kb <= 4.0)),
        });
    }
    for ((_, name, _), run) in ORDERS.iter().zip(&runs) {
        #[allow(clippy::cast_precision_loss)]
        let growth = run
            .peak_kib
            .zip(ours_small.peak_kib)
            .map(|(big, small)| big as f64 / small.max(1) as f64);
        figures.push(Figure {
            what: format!(
                "ingest: peak RSS, {} lines of the {name} vs {} lines",
                thousands(lines),
                thousands(small.lines)
            ),
            ours: run.peak_kib.map_or_else(|| "n/a".to_owned(), show_kib),
            baseline: ours_small
                .peak_kib
                .map_or_else(|| "n/a".to_owned(), show_kib),
            ratio: growth,
            target: "ratio ≤ 1.5, < 300 MB".to_owned(),
            met: growth
                .zip(run.peak_kib)
                .map(|(g, kib)| g <= 1.5 && kib * 1024 < 300_000_000),
        });
    }
    let idle = p99(answered_small.answers.clone());
    for ((_, name, _), run) in ORDERS.iter().zip(&answered) {
        let during = p99(run.answers.clone());
        figures.push(Figure {
            what: format!(
                "ingest: a reviewer's answer (`jobledger answer`, every {ANSWER_EVERY:?}) while ingesting the {name}: p99 / slowest of {}, {} refused; the ingest meanwhile {}/s",
                run.answers.len(),
                run.answers_refused,
                per_second(rate(lines, run.wall))
            ),
            ours: during.map_or_else(|| "n/a".to_owned(), |(p, max)| format!("{} / {}", show(p), show(max))),
            baseline: idle.map_or_else(
                || "n/a".to_owned(),
                |(p, _)| format!("{} p99 during the {}-line ingest", show(p), thousands(small.lines)),
            ),
            ratio: during.zip(idle).map(|((p, _), (q, _))| super::measure::ratio(p, q)),
            target: "p99 < 2 s, none refused".to_owned(),
            met: during.map(|(p, _)| p < Duration::from_secs(2) && run.answers_refused == 0),
        });
    }
    Ok(())
}
