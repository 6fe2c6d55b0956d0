//! Ingest: events a second over a stream of a million lines, beside a plain SQLite
//! table fed the same raw lines; and peak memory, 100k lines against a million.

use std::io::BufRead;
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use jobledger::ingest::BATCH_LINES;
use rusqlite::{Connection, TransactionBehavior, params};
use sha2::{Digest, Sha256};

use super::data::{self, Stream};
use super::measure::{run_child, show, show_kib, thousands};
use super::{Config, Figure};

/// The ledger's pragmas (`store/open.rs`, and `Ledger::use_bulk_cache` for ingest).
fn pragmas() -> String {
    format!(
        "PRAGMA page_size = {}; PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; \
         PRAGMA foreign_keys = ON; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -65536;",
        jobledger::store::PAGE_SIZE
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
}

/// The real binary ingesting `stream` into a fresh ledger.
fn ours(config: &Config, stream: &Stream, db: &Path) -> Result<Ours> {
    remove_db(db);
    let report = config.cache.join("ingest-report.txt");
    let mut command = Command::new(&config.bin);
    command
        .arg("--db")
        .arg(db)
        .args(["--now", jobledger::demo::DEMO_NOW, "ingest"])
        .arg(&stream.path);
    let run = run_child(command, &report)?;
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
    })
}

#[allow(clippy::cast_precision_loss)] // rates shown to a person
fn rate(lines: u64, wall: Duration) -> f64 {
    lines as f64 / wall.as_secs_f64().max(1e-9)
}

#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)] // a rate shown to a person
fn per_second(rate: f64) -> String {
    thousands(rate.round() as u64)
}

pub fn run(config: &Config, figures: &mut Vec<Figure>) -> Result<()> {
    let big = data::stream(config, config.ingest_jobs)?;
    let small = data::stream(config, config.small_ingest_jobs)?;
    let db = config.cache.join("ingest-run.db");
    let plain_db = config.cache.join("ingest-plain.db");
    let mut plain = Vec::new();
    for keying in [Keying::Sha256, Keying::TimeThenSha256] {
        eprintln!("ingest: {} lines, {}", thousands(big.lines), keying.name());
        let started = Instant::now();
        let kept = plain_table(&big.path, &plain_db, keying)?;
        plain.push((keying, started.elapsed()));
        if kept != big.lines {
            bail!("the plain table kept {kept} of {} lines", big.lines);
        }
    }
    eprintln!("ingest: jobledger ingest, {} lines", thousands(big.lines));
    let ours_big = ours(config, &big, &db)?;
    eprintln!("ingest: jobledger ingest, {} lines", thousands(small.lines));
    let ours_small = ours(config, &small, &db)?;

    let ours_rate = rate(big.lines, ours_big.wall);
    for (keying, plain_wall) in plain {
        let plain_rate = rate(big.lines, plain_wall);
        let share = ours_rate / plain_rate;
        figures.push(Figure {
            what: format!(
                "ingest: events/s over {} lines, beside the {}",
                thousands(big.lines),
                keying.name()
            ),
            ours: format!("{}/s ({})", per_second(ours_rate), show(ours_big.wall)),
            baseline: format!("{}/s ({})", per_second(plain_rate), show(plain_wall)),
            ratio: Some(share),
            target: "≥ 150,000/s and ≥ 0.4 of baseline".to_owned(),
            met: Some(ours_rate >= 150_000.0 && share >= 0.4),
        });
    }
    let (ours_peak, small_peak) = (ours_big.peak_kib, ours_small.peak_kib);
    #[allow(clippy::cast_precision_loss)]
    let growth = ours_peak
        .zip(small_peak)
        .map(|(big, small)| big as f64 / small.max(1) as f64);
    figures.push(Figure {
        what: format!(
            "ingest: peak RSS, {} lines vs {} lines",
            thousands(big.lines),
            thousands(small.lines)
        ),
        ours: ours_peak.map_or_else(|| "n/a".to_owned(), show_kib),
        baseline: small_peak.map_or_else(|| "n/a".to_owned(), show_kib),
        ratio: growth,
        target: "ratio ≤ 1.5".to_owned(),
        met: growth.map(|g| g <= 1.5),
    });
    Ok(())
}
