//! The ledger on PostgreSQL beside the same ledger in a SQLite file, in one run on one
//! generated stream: ingest of its three orders, a bare COPY of the lines as the floor
//! of what the server takes, `reconcile --json` and `callbacks --json --disposition
//! hold`, the console's first frame, the search table (each search's last key to its
//! rows and their count, on the server beside the file), and `copy` of the file's
//! ledger onto the server.
//!
//! The server is the suite's own, started as the tests start theirs
//! (`tests/support/postgres.rs`: a cluster in a temporary directory, reached only
//! through a Unix socket there, stopped and removed when the part ends).

use std::ffi::OsStr;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use ::postgres::binary_copy::BinaryCopyInWriter;
use ::postgres::types::Type;
use anyhow::{Context, Result, bail};
use jobledger::console::Tab;
use jobledger::demo::{self, synthetic::StreamOrder};
use jobledger::store::{Ledger, Location};
use sha2::{Digest, Sha256};

use super::data::{self, Stream};
use super::ingest::{per_second, rate};
use super::measure::{median, ratio, run_child, show, slowest, thousands};
use super::query::{SEARCHES, last_key_to_rows};
use super::{Config, Figure};
use server::PgServer;

// The part uses the server's start and databases, not the rest of the tests' module.
#[allow(dead_code)]
#[path = "../../tests/support/postgres.rs"]
mod server;

/// What to install when the server's programs are missing.
const INSTALL: &str = "install postgresql-15 (Debian/Ubuntu: `apt-get install postgresql-15`; \
     the part needs `pg_config`, `initdb` and `pg_ctl`, not a running service), \
     or measure another part with `--only ingest|query|bulk`";

/// The three orders of the stream, as `demo --stream-only --order` writes them.
const ORDERS: [(StreamOrder, &str); 3] = [
    (
        StreamOrder::Local,
        "local stream (each job's events together)",
    ),
    (
        StreamOrder::Time,
        "time-ordered stream (callbacks up to 3 days late)",
    ),
    (
        StreamOrder::Shuffled,
        "shuffled stream (each job's events in order)",
    ),
];

/// Refuses, in a sentence naming the package, a machine without PostgreSQL's
/// programs (the tests' server module would panic on it in other words).
fn require_pg_config() -> Result<()> {
    match Command::new("pg_config").arg("--bindir").output() {
        Ok(out) if out.status.success() => Ok(()),
        Ok(out) => bail!(
            "the PostgreSQL part starts a server of its own, and `pg_config --bindir` failed ({}): {INSTALL}",
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(e) => bail!(
            "the PostgreSQL part starts a server of its own and finds its programs through `pg_config`, which is not here ({e}): {INSTALL}"
        ),
    }
}

/// The two ledgers of one stream: a SQLite file and a database on the server.
struct Pair {
    file: PathBuf,
    /// The server's ledger as `--db` takes it.
    url: String,
    server: Location,
    /// The server's database, to drop it when done.
    database: String,
}

impl Pair {
    fn new(config: &Config, server: &PgServer, name: &str) -> Result<Pair> {
        let file = config.cache.join(format!("pg-part-{name}.db"));
        Ledger::remove_with_sidecars(&file)?;
        let database = server.fresh_database(name);
        let url = server.url(&database);
        Ok(Pair {
            file,
            server: Location::parse(OsStr::new(&url))?,
            url,
            database,
        })
    }

    fn file_location(&self) -> Location {
        Location::File(self.file.clone())
    }

    /// Removes both ledgers.
    fn remove(self, server: &PgServer) -> Result<()> {
        Ledger::remove_with_sidecars(&self.file)?;
        server
            .connect("postgres")
            .batch_execute(&format!("DROP DATABASE \"{}\"", self.database))
            .with_context(|| format!("dropping the database {}", self.database))
    }
}

/// `jobledger` with `--db ledger` and `--now` set, and `args`.
fn jobledger(config: &Config, ledger: &OsStr, args: &[&str]) -> Command {
    let mut command = Command::new(&config.bin);
    command
        .arg("--db")
        .arg(ledger)
        .args(["--now", demo::DEMO_NOW])
        .args(args);
    command
}

/// The real binary ingesting `stream` into the (new) ledger `ledger` (a file or a
/// URL); its wall time.
fn ingest(config: &Config, stream: &Stream, ledger: &OsStr) -> Result<Duration> {
    let report = config.cache.join("pg-part-ingest-report.txt");
    let mut command = jobledger(config, ledger, &["ingest"]);
    command.arg(&stream.path);
    let run = run_child(command, &report)?;
    let said = std::fs::read_to_string(&report)?;
    let read: u64 = said
        .split(" lines read")
        .next()
        .and_then(|n| n.trim().parse().ok())
        .with_context(|| format!("unexpected ingest report: {said}"))?;
    if read != stream.lines {
        bail!(
            "ingest into {} read {read} lines of {}",
            ledger.display(),
            stream.lines
        );
    }
    Ok(run.wall)
}

/// The floor: every line of `stream` and its SHA-256 into a table keyed by the hash,
/// by one binary COPY, in a database of its own. Returns the wall time, hashing
/// included.
fn copy_floor(server: &PgServer, stream: &Stream) -> Result<Duration> {
    let database = server.fresh_database("copy floor");
    let mut client = server.connect(&database);
    client
        .batch_execute("CREATE TABLE lines (line_sha256 bytea PRIMARY KEY, raw bytea NOT NULL)")?;
    let started = Instant::now();
    let sink = client.copy_in("COPY lines (line_sha256, raw) FROM STDIN (FORMAT binary)")?;
    let mut writer = BinaryCopyInWriter::new(sink, &[Type::BYTEA, Type::BYTEA]);
    let mut input = std::io::BufReader::with_capacity(1 << 16, std::fs::File::open(&stream.path)?);
    let mut line = Vec::with_capacity(512);
    loop {
        line.clear();
        if input.read_until(b'\n', &mut line)? == 0 {
            break;
        }
        if line.last() == Some(&b'\n') {
            line.pop();
        }
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let sha: [u8; 32] = Sha256::digest(&line).into();
        writer.write(&[&&sha[..], &line.as_slice()])?;
    }
    let kept = writer.finish()?;
    let wall = started.elapsed();
    drop(client);
    server
        .connect("postgres")
        .batch_execute(&format!("DROP DATABASE \"{database}\""))?;
    if kept != stream.lines {
        bail!("the COPY kept {kept} of {} lines", stream.lines);
    }
    Ok(wall)
}

/// One report of the command line on both ledgers, alternating, medians of `reps`;
/// and both outputs, read as JSON.
fn report(
    config: &Config,
    pair: &Pair,
    args: &[&str],
    name: &str,
) -> Result<(Duration, Duration, serde_json::Value, serde_json::Value)> {
    let file_out = config.cache.join(format!("pg-part-{name}-sqlite.json"));
    let server_out = config.cache.join(format!("pg-part-{name}-postgres.json"));
    let (mut on_file, mut on_server) = (Vec::new(), Vec::new());
    for _ in 0..config.reps {
        on_file.push(run_child(jobledger(config, pair.file.as_os_str(), args), &file_out)?.wall);
        on_server
            .push(run_child(jobledger(config, OsStr::new(&pair.url), args), &server_out)?.wall);
    }
    let read = |path: &Path| -> Result<serde_json::Value> {
        serde_json::from_slice(&std::fs::read(path)?)
            .with_context(|| format!("reading {}", path.display()))
    };
    Ok((
        median(on_file),
        median(on_server),
        read(&file_out)?,
        read(&server_out)?,
    ))
}

/// The search table on both ledgers of one stream: each of the suite's searches in
/// Held and in All callbacks, the last key to its rows on screen and to their count,
/// on the server beside the file, alternating; what each engine put on screen must be
/// the same.
fn search_table(config: &Config, pair: &Pair, figures: &mut Vec<Figure>) -> Result<()> {
    let frame = Duration::from_millis(16);
    let file = pair.file_location();
    // A quick run only shows that each kind of search runs on both engines and finds
    // the same rows (an id through the index, a bare word, a text term beside a
    // comparison), once each: the server's console opens slowly, and CI waits.
    let (searches, reps) = if config.quick {
        (vec![SEARCHES[0], SEARCHES[4], SEARCHES[11]], 1)
    } else {
        (SEARCHES.to_vec(), config.reps)
    };
    for tab in [Tab::Held, Tab::Callbacks] {
        for &query in &searches {
            eprintln!("postgres: search {query:?} in {}", tab.title());
            let (mut file_rows, mut file_counted) = (Vec::new(), Vec::new());
            let (mut server_rows, mut server_counted) = (Vec::new(), Vec::new());
            for _ in 0..reps {
                let on_file = last_key_to_rows(&file, tab, query)?;
                let on_server = last_key_to_rows(&pair.server, tab, query)?;
                if on_file.shown != on_server.shown {
                    bail!(
                        "searching {query:?} in {} showed {:?} from SQLite, {:?} from PostgreSQL",
                        tab.title(),
                        on_file.shown,
                        on_server.shown
                    );
                }
                file_rows.push(on_file.rows);
                file_counted.push(on_file.counted);
                server_rows.push(on_server.rows);
                server_counted.push(on_server.counted);
            }
            let server_worst = slowest(&server_rows);
            let (file_worst, file_median) = (slowest(&file_rows), median(file_rows));
            let server_median = median(server_rows);
            let r = ratio(server_median, file_median);
            figures.push(Figure {
                what: format!(
                    "postgres: search: `{query}` in {}, last key to rows: median / slowest of {} \
                     (then to the count, median)",
                    tab.title(),
                    reps
                ),
                ours: format!(
                    "{} / {} ({}) PostgreSQL",
                    show(server_median),
                    show(server_worst),
                    show(median(server_counted))
                ),
                baseline: format!(
                    "{} / {} ({}) SQLite",
                    show(file_median),
                    show(file_worst),
                    show(median(file_counted))
                ),
                ratio: Some(r),
                target: "PostgreSQL ≤ 2 × SQLite, < 16 ms".to_owned(),
                met: Some(r <= 2.0 && server_worst < frame),
            });
        }
    }
    Ok(())
}

/// A row of PostgreSQL's time beside SQLite's, judged by "within 2x".
fn within_twice(what: String, on_server: Duration, on_file: Duration) -> Figure {
    let r = ratio(on_server, on_file);
    Figure {
        what,
        ours: format!("{} PostgreSQL", show(on_server)),
        baseline: format!("{} SQLite", show(on_file)),
        ratio: Some(r),
        target: "PostgreSQL ≤ 2 × SQLite".to_owned(),
        met: Some(r <= 2.0),
    }
}

/// The lengths of a reconcile report's lists of jobs, by name.
fn list_lengths(report: &serde_json::Value) -> Vec<(String, usize)> {
    report
        .as_object()
        .map(|fields| {
            fields
                .iter()
                .filter_map(|(name, value)| value.as_array().map(|a| (name.clone(), a.len())))
                .collect()
        })
        .unwrap_or_default()
}

pub fn run(config: &Config, figures: &mut Vec<Figure>) -> Result<()> {
    require_pg_config()?;
    let server = PgServer::start();
    eprintln!(
        "postgres: a server of its own in {} (up in {})",
        server.dir().display(),
        show(server.started_in())
    );

    // Ingest: each order into a new file and a new database, the two alternating.
    let mut ingests = Vec::new();
    let mut kept = None;
    let mut time_stream = None;
    for (order, name) in ORDERS {
        let stream = data::stream(config, config.pg_jobs, order)?;
        data::warm(&stream.path)?;
        let pair = Pair::new(config, &server, &format!("ingest-{order}"))?;
        eprintln!(
            "postgres: jobledger ingest, {} lines of the {name}, into SQLite then PostgreSQL",
            thousands(stream.lines)
        );
        let on_file = ingest(config, &stream, pair.file.as_os_str())?;
        let on_server = ingest(config, &stream, OsStr::new(&pair.url))?;
        ingests.push((order, name, stream.lines, on_file, on_server));
        if order == StreamOrder::Local {
            kept = Some(pair);
        } else {
            pair.remove(&server)?;
        }
        if order == StreamOrder::Time {
            time_stream = Some(stream);
        }
    }
    let pair = kept.context("the local stream's ledgers")?;
    let time_stream = time_stream.context("the time-ordered stream")?;
    for (order, name, lines, on_file, on_server) in &ingests {
        let (file_rate, server_rate) = (rate(*lines, *on_file), rate(*lines, *on_server));
        let share = server_rate / file_rate;
        let time_ordered = *order == StreamOrder::Time;
        figures.push(Figure {
            what: format!(
                "postgres: ingest lines/s, {} lines of the {name}: PostgreSQL beside SQLite",
                thousands(*lines)
            ),
            ours: format!("{}/s ({})", per_second(server_rate), show(*on_server)),
            baseline: format!("{}/s ({}) SQLite", per_second(file_rate), show(*on_file)),
            ratio: Some(share),
            target: if time_ordered {
                "PostgreSQL ≥ 0.5 × SQLite"
            } else {
                "-"
            }
            .to_owned(),
            met: time_ordered.then_some(share >= 0.5),
        });
    }

    eprintln!(
        "postgres: COPY of {} lines and their SHA-256 into a table keyed by the hash",
        thousands(time_stream.lines)
    );
    let floor = copy_floor(&server, &time_stream)?;
    let (_, _, lines, _, on_server) = ingests
        .iter()
        .find(|(order, ..)| *order == StreamOrder::Time)
        .context("the time-ordered ingest")?;
    let (server_rate, floor_rate) = (rate(*lines, *on_server), rate(*lines, floor));
    figures.push(Figure {
        what: format!(
            "postgres: ingest of the time-ordered stream beside one COPY of each line and its SHA-256 into a table keyed by the hash (the server's floor), {} lines",
            thousands(*lines)
        ),
        ours: format!("{}/s ({})", per_second(server_rate), show(*on_server)),
        baseline: format!("{}/s ({}) COPY", per_second(floor_rate), show(floor)),
        ratio: Some(server_rate / floor_rate),
        target: "-".to_owned(),
        met: None,
    });

    eprintln!(
        "postgres: reconcile and held callbacks, {} runs each on both",
        config.reps
    );
    data::warm(&pair.file)?;
    let (on_file, on_server, file_report, server_report) =
        report(config, &pair, &["reconcile", "--json"], "reconcile")?;
    let (file_lists, server_lists) = (list_lengths(&file_report), list_lengths(&server_report));
    if file_lists != server_lists {
        bail!(
            "reconcile of the same stream differs: SQLite's lists {file_lists:?}, PostgreSQL's {server_lists:?}"
        );
    }
    figures.push(within_twice(
        format!(
            "postgres: reconcile --json, {} accepted jobs",
            thousands(file_report["accepted"].as_u64().unwrap_or(0))
        ),
        on_server,
        on_file,
    ));
    let (on_file, on_server, file_held, server_held) = report(
        config,
        &pair,
        &["callbacks", "--json", "--disposition", "hold"],
        "held",
    )?;
    let rows = file_held.as_array().map_or(0, Vec::len);
    let server_rows = server_held.as_array().map_or(0, Vec::len);
    if rows != server_rows {
        bail!(
            "held callbacks of the same stream: {rows} from SQLite, {server_rows} from PostgreSQL"
        );
    }
    figures.push(within_twice(
        format!(
            "postgres: callbacks --json --disposition hold ({} rows)",
            thousands(rows as u64)
        ),
        on_server,
        on_file,
    ));

    eprintln!(
        "postgres: the console's first frame, {} times on both",
        config.reps
    );
    let (mut file_frames, mut server_frames) = (Vec::new(), Vec::new());
    for _ in 0..config.reps {
        file_frames.push(super::console::first_frame(&pair.file_location())?.2);
        server_frames.push(super::console::first_frame(&pair.server)?.2);
    }
    figures.push(within_twice(
        "postgres: console open + first frame in process".to_owned(),
        median(server_frames),
        median(file_frames),
    ));
    search_table(config, &pair, figures)?;

    eprintln!("postgres: copy --from the SQLite ledger --to a new database");
    let destination = server.fresh_database("copy destination");
    let to = server.url(&destination);
    let mut command = Command::new(&config.bin);
    command
        .arg("copy")
        .arg("--from")
        .arg(&pair.file)
        .arg("--to")
        .arg(&to);
    let copied = run_child(command, &config.cache.join("pg-part-copy.txt"))?.wall;
    let (_, _, lines, _, ingested) = ingests[0];
    figures.push(Figure {
        what: format!(
            "postgres: copy --from FILE --to postgres://… of the ledger of {} lines, beside ingesting them on the server",
            thousands(lines)
        ),
        ours: show(copied),
        baseline: format!("{} ingest", show(ingested)),
        ratio: Some(ratio(copied, ingested)),
        target: "-".to_owned(),
        met: None,
    });

    pair.remove(&server)?;
    drop(server);
    Ok(())
}
