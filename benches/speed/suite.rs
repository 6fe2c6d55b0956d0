//! The suite: what is measured, at which sizes, and the table it prints.
//!
//! Every figure is taken beside a baseline in the same run, because absolute times on
//! a shared machine drift: a plain SQLite table for ingest, hand-written SQL through
//! the `sqlite3` shell for reconcile and the reports, and a ledger of a thousand
//! callbacks for the console; and for the ledger on PostgreSQL, the same ledger in a
//! SQLite file. Nothing here asserts a time; the table says which targets were met.

mod bulk;
mod cli;
mod console;
mod data;
mod ingest;
mod measure;
mod postgres;
mod query;
mod reconcile;
mod reports;

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::Result;

/// Sizes and places of one run.
pub struct Config {
    /// Tiny sizes: every step runs, nothing is meaningful but that it works.
    pub quick: bool,
    /// Generated streams and ledgers, reused between runs (a temporary directory when quick).
    pub cache: PathBuf,
    /// Keeps a quick run's temporary directory alive.
    _temp: Option<tempfile::TempDir>,
    /// The `jobledger` binary of this build.
    pub bin: PathBuf,
    pub seed: u64,
    /// Jobs in the ingest stream (at least a million lines).
    pub ingest_jobs: u64,
    /// Jobs in the small ingest stream (about a tenth of the lines), for flat memory.
    pub small_ingest_jobs: u64,
    /// Jobs in the large ledger (a million accepted jobs, a million callbacks).
    pub big_jobs: u64,
    /// Jobs in the console's baseline ledger (about a thousand callbacks).
    pub small_jobs: u64,
    /// Jobs in the search table's baseline ledger (about ten thousand callbacks).
    pub search_small_jobs: u64,
    /// Repetitions of the short measurements (the median is reported).
    pub reps: usize,
    /// Frames drawn for the render figure.
    pub frames: usize,
    /// Jobs in the ledger a bulk answer writes into (a copy): enough open questions
    /// for the bulk answer and its one-by-one baseline.
    pub bulk_jobs: u64,
    /// Answers in the bulk answer (and in its baseline).
    pub bulk_rows: usize,
    /// Jobs in the stream the PostgreSQL part ingests into both engines (about 4.9
    /// lines a job); `JOBLEDGER_BENCH_PG_JOBS` overrides it.
    pub pg_jobs: u64,
    /// Only this part of the suite (`--only ingest`, `--only bulk`, `--only query`,
    /// `--only search`, `--only cli`, `--only postgres`, `--only console`), when set.
    pub only: Option<String>,
}

impl Config {
    /// The full suite, or the quick smoke run.
    pub fn new(quick: bool) -> Config {
        let bin = PathBuf::from(env!("CARGO_BIN_EXE_jobledger"));
        if quick {
            let temp = tempfile::Builder::new()
                .prefix("jobledger-bench-")
                .tempdir()
                .expect("a temporary directory for the quick run");
            return Config {
                quick,
                cache: temp.path().to_path_buf(),
                _temp: Some(temp),
                bin,
                seed: 1,
                ingest_jobs: 400,
                small_ingest_jobs: 40,
                big_jobs: 600,
                small_jobs: 60,
                search_small_jobs: 60,
                reps: 2,
                frames: 10,
                bulk_jobs: 600,
                bulk_rows: 10_000,
                pg_jobs: pg_jobs(200),
                only: None,
            };
        }
        Config {
            quick,
            cache: data::cache_dir(),
            _temp: None,
            bin,
            seed: 1,
            // About 4.9 lines a job: 1.0 million lines, and a tenth of that.
            ingest_jobs: 205_000,
            small_ingest_jobs: 20_500,
            // About 0.94 callbacks a job: a million jobs and a million callbacks.
            big_jobs: 1_070_000,
            small_jobs: 1_070,
            search_small_jobs: 10_700,
            reps: 5,
            frames: 200,
            // About 7% of jobs leave an open question: some 21,000.
            bulk_jobs: 300_000,
            bulk_rows: 10_000,
            // About 245,000 lines: a server's ingest is slower than a file's, and the
            // part ingests the stream six times over (three orders, two engines).
            pg_jobs: pg_jobs(50_000),
            only: None,
        }
    }

    /// Is `part` of the suite to run?
    pub fn wants(&self, part: &str) -> bool {
        self.only.as_deref().is_none_or(|only| only == part)
    }
}

/// `JOBLEDGER_BENCH_PG_JOBS` when set to a number, else `default`.
fn pg_jobs(default: u64) -> u64 {
    match std::env::var("JOBLEDGER_BENCH_PG_JOBS") {
        Ok(text) if !text.trim().is_empty() => text.trim().parse().unwrap_or_else(|_| {
            panic!("JOBLEDGER_BENCH_PG_JOBS is {text:?}: a number of jobs, such as 50000")
        }),
        _ => default,
    }
}

/// One line of the table.
pub struct Figure {
    pub what: String,
    /// jobledger's figure.
    pub ours: String,
    /// The baseline's figure, measured in the same run.
    pub baseline: String,
    /// ours / baseline in the sense of the target (rates: ours / baseline; times and
    /// memory: ours / baseline too, so lower is better there).
    pub ratio: Option<f64>,
    pub target: String,
    /// Whether the target was met (`None` when it could not be measured here).
    pub met: Option<bool>,
}

/// Runs every measurement and returns the figures in table order.
pub fn run(config: &Config) -> Result<Vec<Figure>> {
    std::fs::create_dir_all(&config.cache)?;
    let mut figures = Vec::new();
    eprintln!(
        "speed suite ({}), cache {}",
        if config.quick { "quick" } else { "full" },
        config.cache.display()
    );
    if config.wants("ingest") {
        ingest::run(config, &mut figures)?;
    }
    if config.only.is_none() {
        let big = data::ledger(config, config.big_jobs)?;
        let small = data::ledger(config, config.small_jobs)?;
        reconcile::run(config, &big, &mut figures)?;
        console::run(config, &small, &big, &mut figures)?;
        reports::run(config, &big, &mut figures)?;
    } else if config.wants("console") {
        let big = data::ledger(config, config.big_jobs)?;
        let small = data::ledger(config, config.small_jobs)?;
        console::run(config, &small, &big, &mut figures)?;
    }
    if config.wants("cli") {
        let big = match cli::ledger_given() {
            Some(given) => given,
            None => data::ledger(config, config.big_jobs)?,
        };
        cli::run(config, &big, &mut figures)?;
    }
    if config.wants("query") {
        let big = data::ledger(config, config.big_jobs)?;
        let small = data::ledger(config, config.small_jobs)?;
        query::run(config, &small, &big, &mut figures)?;
    }
    if config.wants("query") || config.wants("search") {
        let big = data::ledger(config, config.big_jobs)?;
        let small = data::ledger(config, config.search_small_jobs)?;
        query::search_table(config, &small, &big, &mut figures)?;
    }
    if config.wants("bulk") {
        bulk::run(config, &mut figures)?;
    }
    if config.wants("postgres") {
        postgres::run(config, &mut figures)?;
    }
    Ok(figures)
}

/// The figures as a Markdown table.
pub fn table(figures: &[Figure]) -> String {
    let mut out = String::from(
        "| figure | jobledger | baseline (same run) | ratio | target | met |\n|---|---:|---:|---:|---|---|\n",
    );
    for f in figures {
        let ratio = f
            .ratio
            .map_or_else(|| "-".to_owned(), |r| format!("{r:.2}"));
        let met = match f.met {
            Some(true) => "yes",
            Some(false) => "**no**",
            None => "n/a",
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {ratio} | {} | {met} |",
            f.what, f.ours, f.baseline, f.target
        );
    }
    out
}
