//! The speed suite: every speed figure (ingest, reconciliation, reports, the console,
//! filter and sort, bulk answers, the ledger on PostgreSQL beside SQLite) beside its
//! baseline, measured in one run.
//!
//! `cargo bench --bench speed` runs it at full size (a million jobs; the ledgers are
//! generated once into `target/bench-cache/` and reused) and prints a Markdown table.
//! `cargo bench --bench speed -- --quick` (or `JOBLEDGER_BENCH_QUICK=1`) runs every
//! step at a tiny size in seconds; `tests/bench_smoke.rs` runs that in CI.

#[path = "speed/suite.rs"]
mod suite;

fn main() -> anyhow::Result<()> {
    // Cargo passes `--bench`; anything else is ours.
    let args: Vec<String> = std::env::args().skip(1).collect();
    let quick = args.iter().any(|a| a == "--quick")
        || std::env::var_os("JOBLEDGER_BENCH_QUICK").is_some_and(|v| !v.is_empty() && v != "0");
    if args.iter().any(|a| a == "--help" || a == "-h") {
        println!(
            "cargo bench --bench speed [-- --quick] [--only ingest|bulk|query|search|cli|postgres]\n\n\
             Measures ingest, reconcile, the console and the CLI reports beside their\n\
             baselines and prints a Markdown table. --quick (or JOBLEDGER_BENCH_QUICK=1)\n\
             runs every step at a tiny size; --only query measures only filtering and\n\
             sorting (and the search table), --only search only the search table (the\n\
             last key to rows of twelve queries in Held and All callbacks, at 10k and\n\
             1M jobs), --only cli only the command line's queries beside hand-written\n\
             SQL (JOBLEDGER_BENCH_CLI_LEDGER names a ledger to read instead of the\n\
             generated one), --only ingest only ingest of the three streams, --only postgres\n\
             the ledger on a PostgreSQL server of its own beside the same in SQLite\n\
             (JOBLEDGER_BENCH_PG_JOBS jobs, 50,000 by default; needs postgresql-15).\n\
             JOBLEDGER_BENCH_DIR sets the cache directory."
        );
        return Ok(());
    }
    let mut config = suite::Config::new(quick);
    // `--only ingest`, `--only bulk`, `--only query`, `--only search`, `--only cli`, `--only postgres`: one part of the suite, without building the others' data.
    config.only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1).cloned());
    let figures = suite::run(&config)?;
    print!("{}", suite::table(&figures));
    Ok(())
}
