//! The data the suite measures on: generated streams and ledgers, kept in a cache
//! directory and reused while the generator, seed, size and schema are the same.

use std::io::{BufRead, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{Context, Result};
use jobledger::demo::synthetic::StreamOrder;
use jobledger::demo::{self, DemoData, synthetic};
use jobledger::store::{PAGE_SIZE, SCHEMA_VERSION};

use super::Config;
use super::measure::{show, thousands};

/// `JOBLEDGER_BENCH_DIR`, else `bench-cache` in Cargo's target directory.
pub fn cache_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("JOBLEDGER_BENCH_DIR") {
        return PathBuf::from(dir);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("target"),
        PathBuf::from,
    );
    target.join("bench-cache")
}

/// A fingerprint of the generator: a changed generator must not reuse old data.
fn generator_print(seed: u64) -> u32 {
    let mut sample = Vec::new();
    let _ = synthetic::write_stream(
        &mut sample,
        100,
        seed,
        demo::synthetic_start(100, demo::demo_now()),
    );
    fold(&sample)
}

/// A fingerprint of the generator of ordered streams.
fn ordered_print(seed: u64, order: StreamOrder) -> u32 {
    let mut sample = Vec::new();
    let start = synthetic::stream_start(400, demo::demo_now());
    let _ = synthetic::write_ordered(&mut sample, 400, seed, start, order);
    fold(&sample)
}

fn fold(sample: &[u8]) -> u32 {
    // FNV-1a, folded to 32 bits.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in sample {
        hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
    }
    #[allow(clippy::cast_possible_truncation)] // folding on purpose
    let folded = (hash ^ (hash >> 32)) as u32;
    folded
}

/// Where the cache keeps a file named from the seed and the generator's print (so
/// that a changed generator never reuses an old file).
fn cached(config: &Config, name: impl FnOnce(u64, u32) -> String) -> PathBuf {
    config
        .cache
        .join(name(config.seed, generator_print(config.seed)))
}

/// A generated NDJSON stream on disk.
pub struct Stream {
    pub path: PathBuf,
    pub lines: u64,
}

/// The stream of `jobs` jobs in `order` (`demo --jobs N --stream-only --order
/// ORDER`), generated unless cached.
pub fn stream(config: &Config, jobs: u64, order: StreamOrder) -> Result<Stream> {
    let print = ordered_print(config.seed, order);
    let path = config.cache.join(format!(
        "stream-{jobs}j-s{}-{order}-g{print:08x}.ndjson",
        config.seed
    ));
    if !path.exists() {
        let partial = path.with_extension("partial");
        let file = std::fs::File::create(&partial)
            .with_context(|| format!("creating {}", partial.display()))?;
        let mut out = BufWriter::with_capacity(1 << 16, file);
        let start = synthetic::stream_start(jobs, demo::demo_now());
        synthetic::write_ordered(&mut out, jobs, config.seed, start, order)?;
        out.flush()?;
        drop(out);
        std::fs::rename(&partial, &path)?;
    }
    let mut lines = 0u64;
    let mut reader = std::io::BufReader::with_capacity(1 << 16, std::fs::File::open(&path)?);
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            break;
        }
        #[allow(clippy::naive_bytecount)] // once per run, over a cached file
        let newlines = buf.iter().filter(|b| **b == b'\n').count();
        lines += newlines as u64;
        let n = buf.len();
        reader.consume(n);
    }
    Ok(Stream { path, lines })
}

/// The demo ledger of `jobs` generated jobs (`jobledger demo --jobs N --seed S`),
/// built unless cached. Nothing in the suite writes to it.
pub fn ledger(config: &Config, jobs: u64) -> Result<PathBuf> {
    let path = cached(config, |seed, print| {
        format!("ledger-{jobs}j-s{seed}-v{SCHEMA_VERSION}-p{PAGE_SIZE}-g{print:08x}.db")
    });
    if path.exists() {
        return Ok(path);
    }
    let partial = path.with_extension("partial.db");
    for suffix in ["", "-wal", "-shm", ".ndjson"] {
        let mut file = partial.clone().into_os_string();
        file.push(suffix);
        let _ = std::fs::remove_file(file);
    }
    eprintln!(
        "building a ledger of {} jobs (once; cached in {})",
        thousands(jobs),
        config.cache.display()
    );
    let started = Instant::now();
    let mut last = Instant::now();
    let built = demo::build(
        &partial,
        demo::demo_now(),
        DemoData::Synthetic {
            jobs,
            seed: config.seed,
        },
        |so_far| {
            if last.elapsed().as_secs() >= 10 {
                eprintln!("  {} lines ingested", thousands(so_far.lines_read));
                last = Instant::now();
            }
        },
    )?;
    eprintln!("  built in {}: {built}", show(started.elapsed()));
    let mut stream = partial.clone().into_os_string();
    stream.push(".ndjson");
    let _ = std::fs::remove_file(stream);
    std::fs::rename(&partial, &path)?;
    Ok(path)
}

/// Reads a file once, so that its pages are in the operating system's cache: the
/// figures are of jobledger and SQLite, not of the disk. (This machine also evicts
/// idle file pages within minutes, so each part warms its ledger just before.)
pub fn warm(path: &Path) -> Result<()> {
    let mut file = std::fs::File::open(path)?;
    std::io::copy(&mut file, &mut std::io::sink())?;
    Ok(())
}
