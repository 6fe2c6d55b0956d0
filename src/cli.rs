//! The command line (SPEC sec. 7).

use std::fmt::Write as _;
use std::io::{self, BufReader, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand, ValueEnum};

use crate::clock::{Clock, Timestamp, parse_duration};
use crate::decision::Disposition;
use crate::outbox::{self, RequestKind};
use crate::reconcile::{self, DEFAULT_REVIEW_CAPACITY};
use crate::report::{self, Summary};
use crate::review::{self, AnswerRequest, CaseKind};
use crate::store::{CallbackFilter, Keyset, Ledger, PageRequest, StoreError};
use crate::{demo, escalation, ingest};

const ABOUT: &str =
    "A review console over a SQLite ledger of asynchronous jobs and their callbacks.

Every callback gets exactly one disposition (apply, hold, record, quarantine); held and
quarantined ones wait for a person, who answers them in the console or with `answer`.";

fn verdict_help() -> String {
    let mut text = String::from("Verdicts, by the kind of question:\n");
    for kind in CaseKind::ALL {
        let _ = writeln!(text, "  {}:", kind.label());
        for v in kind.verdicts() {
            let _ = writeln!(text, "    {:<20} {}", v.name, v.description);
        }
    }
    text
}

#[derive(Debug, Parser)]
#[command(name = "jobledger", version, about = ABOUT)]
struct Cli {
    /// The ledger file [default: ./jobledger.db; env JOBLEDGER_DB]
    #[arg(long, global = true, value_name = "PATH")]
    db: Option<PathBuf>,
    /// Fix the clock (RFC 3339), for reproducible reports
    #[arg(long, global = true, value_name = "TIME", value_parser = parse_time)]
    now: Option<Timestamp>,
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Open the review console (the default command)
    Review(ReviewArgs),
    /// Read an NDJSON event stream into the ledger (safe to re-run)
    Ingest {
        /// The stream to read; `-` or nothing reads standard input
        file: Option<PathBuf>,
    },
    /// Totals: callbacks by disposition, jobs by state, outbox, backlog alarm
    Summary {
        #[arg(long)]
        json: bool,
        /// Held + quarantined arrivals an hour that reviewers can take
        #[arg(long, default_value_t = DEFAULT_REVIEW_CAPACITY, value_name = "N")]
        review_capacity: i64,
    },
    /// List callbacks in ingest order, with disposition, timeout, arrival and answer
    Callbacks {
        #[arg(long)]
        json: bool,
        /// Only callbacks with this disposition
        #[arg(long, value_enum)]
        disposition: Option<DispositionArg>,
    },
    /// Account for every accepted job: missing terminal records, outputs, notifications, aged jobs
    Reconcile {
        #[arg(long)]
        json: bool,
        /// Submission window width: 15m, 1h, 1d, ...
        #[arg(long, default_value = "1h", value_parser = parse_window)]
        window: i64,
        /// Held + quarantined arrivals an hour that reviewers can take
        #[arg(long, default_value_t = DEFAULT_REVIEW_CAPACITY, value_name = "N")]
        review_capacity: i64,
    },
    /// Answer a held or quarantined callback (append-only)
    #[command(after_help = verdict_help())]
    Answer {
        /// The callback's sequence number (see `callbacks`)
        seq: i64,
        /// The verdict, from the closed set for the callback's kind (below)
        #[arg(long)]
        verdict: String,
        /// A note kept beside the answer
        #[arg(long, default_value = "")]
        note: String,
        /// Who answers [default: env JOBLEDGER_REVIEWER, else the login name]
        #[arg(long)]
        reviewer: Option<String>,
        /// For `linked`: the job the callback belongs to
        #[arg(long, value_name = "JOB")]
        job: Option<String>,
        /// The id of the standing answer you read and are answering over
        #[arg(long, value_name = "ANSWER_ID")]
        seen: Option<i64>,
    },
    /// Set the owner and escalation time of a (stuck) job
    Owner {
        job: String,
        #[arg(long)]
        owner: String,
        /// When it escalates (RFC 3339)
        #[arg(long, value_name = "TIME", value_parser = parse_time)]
        escalate_at: Option<Timestamp>,
        /// Who sets it [default: the login name]
        #[arg(long)]
        by: Option<String>,
    },
    /// Ask the outside to retry or cancel a job (checked; goes to the outbox)
    Request {
        #[arg(value_enum)]
        kind: RequestArg,
        job: String,
        /// Who asks
        #[arg(long)]
        by: String,
    },
    /// List requests waiting in the outbox
    Outbox {
        #[arg(long)]
        json: bool,
    },
    /// List rejected events (malformed, or for unknown jobs) with their reasons
    Rejected {
        #[arg(long)]
        json: bool,
    },
    /// Build a fresh demo ledger (default ./jobledger-demo.db) and open the console on it
    Demo {
        /// Print the summary and reconciliation instead of opening the console
        #[arg(long)]
        print: bool,
        /// Instead of the booking afternoon, generate a realistic stream of N jobs
        #[arg(long, value_name = "N")]
        jobs: Option<u64>,
        /// Seed of the generated stream (same seed, same stream)
        #[arg(long, default_value_t = 1, value_name = "S")]
        seed: u64,
        /// With --jobs: write only the NDJSON stream to standard output
        #[arg(long, requires = "jobs")]
        stream_only: bool,
    },
}

#[derive(Debug, clap::Args)]
struct ReviewArgs {
    /// Open with every write disabled
    #[arg(long)]
    read_only: bool,
    /// Who answers [default: env JOBLEDGER_REVIEWER, else the login name]
    #[arg(long)]
    reviewer: Option<String>,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum DispositionArg {
    Apply,
    Hold,
    Record,
    Quarantine,
}

impl From<DispositionArg> for Disposition {
    fn from(d: DispositionArg) -> Self {
        match d {
            DispositionArg::Apply => Disposition::Apply,
            DispositionArg::Hold => Disposition::Hold,
            DispositionArg::Record => Disposition::Record,
            DispositionArg::Quarantine => Disposition::Quarantine,
        }
    }
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum RequestArg {
    Retry,
    Cancel,
}

fn parse_time(text: &str) -> Result<Timestamp, String> {
    Timestamp::parse(text)
        .ok_or_else(|| format!("{text:?} is not an RFC 3339 time (e.g. 2026-11-27T17:00:00Z)"))
}

fn parse_window(text: &str) -> Result<i64, String> {
    parse_duration(text).ok_or_else(|| format!("{text:?} is not a window such as 15m, 1h or 1d"))
}

/// The reviewer's name: the flag, else `JOBLEDGER_REVIEWER`, else the login name.
pub fn reviewer_name(flag: Option<String>) -> String {
    flag.filter(|n| !n.trim().is_empty())
        .or_else(|| {
            std::env::var("JOBLEDGER_REVIEWER")
                .ok()
                .filter(|n| !n.trim().is_empty())
        })
        .or_else(|| std::env::var("USER").ok().filter(|n| !n.is_empty()))
        .or_else(|| std::env::var("LOGNAME").ok().filter(|n| !n.is_empty()))
        .or_else(|| std::env::var("USERNAME").ok().filter(|n| !n.is_empty()))
        // Terminals started without a login (tmux, containers) may set none of
        // these; the home directory's name is usually the login name.
        .or_else(|| {
            std::env::var_os("HOME")
                .map(PathBuf::from)
                .and_then(|home| home.file_name().map(|n| n.to_string_lossy().into_owned()))
                .filter(|n| !n.is_empty())
        })
        .unwrap_or_else(|| "unknown".to_owned())
}

fn ledger_path(flag: Option<PathBuf>) -> PathBuf {
    flag.or_else(|| std::env::var_os("JOBLEDGER_DB").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("jobledger.db"))
}

/// Runs the command line; errors are printed, and the exit code says whether it worked.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        // A reader that stopped early (`jobledger callbacks | head`) is no failure of ours.
        Err(error) if is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            // Messages may quote the stream (job ids, refs): never let them drive the terminal.
            for line in format!("{error:#}").lines() {
                eprintln!("jobledger: {}", crate::inert::inert(line));
            }
            ExitCode::FAILURE
        }
    }
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

fn run(cli: Cli) -> Result<ExitCode> {
    let clock = cli.now.map_or(Clock::System, Clock::Fixed);
    let command = cli.command.unwrap_or(Command::Review(ReviewArgs {
        read_only: false,
        reviewer: None,
    }));
    if let Command::Demo {
        print,
        jobs,
        seed,
        stream_only,
    } = command
    {
        let data = jobs.map_or(demo::DemoData::Booking, |jobs| demo::DemoData::Synthetic {
            jobs,
            seed,
        });
        return run_demo(cli.db, cli.now, data, print, stream_only);
    }
    let path = ledger_path(cli.db);
    let now = clock.now();
    // Buffered: a report of a large ledger is many small writes, and a locked stdout
    // alone wrote (and made a system call) at every line.
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    match command {
        Command::Review(args) => review_console(&path, clock, args)?,
        Command::Ingest { file } => run_ingest(&path, file.as_deref(), now)?,
        Command::Summary {
            json,
            review_capacity,
        } => {
            let ledger = open_existing(&path)?;
            let summary = Summary::gather(&ledger, now, review_capacity)?;
            if json {
                report::write_json(&mut out, &summary.to_json())?;
            } else {
                write!(out, "{}", summary.to_text())?;
            }
        }
        Command::Callbacks { json, disposition } => {
            let ledger = open_existing(&path)?;
            print_callbacks(&ledger, disposition.map(Into::into), json, &mut out)?;
        }
        Command::Reconcile {
            json,
            window,
            review_capacity,
        } => {
            let ledger = open_existing(&path)?;
            let r = reconcile::reconcile(&ledger, now, window, review_capacity)?;
            if json {
                report::write_json(&mut out, &report::ReconciliationJson::of(&r))?;
            } else {
                write!(out, "{}", report::reconciliation_text(&r))?;
            }
        }
        Command::Answer {
            seq,
            verdict,
            note,
            reviewer,
            job,
            seen,
        } => {
            let mut ledger = open_existing(&path)?;
            let reviewer = reviewer_name(reviewer);
            let request = AnswerRequest {
                seq,
                verdict: &verdict,
                note: &note,
                reviewer: &reviewer,
                link_job: job.as_deref(),
                seen_answer: seen,
            };
            let written = review::answer(&mut ledger, &request, now).map_err(|e| match e {
                review::AnswerError::AnsweredMeanwhile(ref theirs) => {
                    anyhow::anyhow!("{e}\n(to answer over it, add --seen {})", theirs.id)
                }
                other => other.into(),
            })?;
            writeln!(
                out,
                "answer {} written on callback #{seq}: {verdict} by {}",
                written.answer_id,
                crate::inert::inert(&reviewer)
            )?;
            if let Some((new_seq, decision)) = written.linked {
                writeln!(
                    out,
                    "linked: judged against job {} as callback #{new_seq}: {} ({})",
                    crate::inert::inert(job.as_deref().unwrap_or_default()),
                    decision.disposition,
                    decision.reason
                )?;
            }
        }
        Command::Owner {
            job,
            owner,
            escalate_at,
            by,
        } => {
            let mut ledger = open_existing(&path)?;
            escalation::set_owner(
                &mut ledger,
                &job,
                &owner,
                escalate_at,
                &reviewer_name(by),
                now,
            )?;
            let when = escalate_at.map_or_else(
                || "no escalation time".to_owned(),
                |t| format!("escalates at {t}"),
            );
            writeln!(
                out,
                "{} is owned by {}; {when}",
                crate::inert::inert(&job),
                crate::inert::inert(&owner)
            )?;
        }
        Command::Request { kind, job, by } => {
            let mut ledger = open_existing(&path)?;
            let kind = match kind {
                RequestArg::Retry => RequestKind::Retry,
                RequestArg::Cancel => RequestKind::Cancel,
            };
            let written = outbox::request(&mut ledger, kind, &job, &by, now)?;
            let attempt = written
                .attempt
                .map_or_else(String::new, |a| format!(" as attempt {a}"));
            writeln!(
                out,
                "{kind} of {} is in the outbox (request {}){attempt}",
                crate::inert::inert(&job),
                written.id
            )?;
        }
        Command::Outbox { json } => {
            let ledger = open_existing(&path)?;
            let rows = ledger.outbox()?;
            if json {
                report::write_json(&mut out, &rows)?;
            } else {
                write!(out, "{}", report::outbox_text(&rows))?;
            }
        }
        Command::Rejected { json } => {
            let ledger = open_existing(&path)?;
            let rows = ledger.rejected_lines(usize::MAX)?;
            if json {
                let list: Vec<_> = rows
                    .iter()
                    .map(|r| serde_json::json!({"line": r.seq, "event": r.event, "reason": r.reason, "ingested_at": r.ingested_at}))
                    .collect();
                report::write_json(&mut out, &list)?;
            } else if rows.is_empty() {
                writeln!(out, "No rejected events: every event line was taken.")?;
            } else {
                for r in rows {
                    writeln!(
                        out,
                        "line {:>6}  {:<18} {}",
                        r.seq,
                        r.event.as_deref().unwrap_or("?"),
                        crate::inert::inert(&r.reason)
                    )?;
                }
            }
        }
        Command::Demo { .. } => unreachable!("handled above"),
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

fn open_existing(path: &Path) -> Result<Ledger> {
    if !path.exists() {
        bail!(
            "no ledger at {} (create one with `jobledger ingest FILE`, or try `jobledger demo`)",
            path.display()
        );
    }
    Ok(open_upgrading(path)?)
}

/// Opens the ledger read-write, saying so first when that upgrades its schema.
fn open_upgrading(path: &Path) -> Result<Ledger, StoreError> {
    note_upgrade(path);
    Ledger::open(path)
}

/// Tells the person when opening `path` will upgrade it: on a ledger of millions of
/// lines that takes a minute, once, and a silent pause looks like a hang.
fn note_upgrade(path: &Path) {
    if let Some(version) = Ledger::upgrade_pending(path) {
        let _ = writeln!(
            io::stderr(),
            "upgrading the ledger {} from schema {version} to {} (once; on a ledger of millions of lines this takes a minute or two)…",
            crate::inert::inert(&path.display().to_string()),
            crate::store::SCHEMA_VERSION
        );
    }
}

fn print_callbacks(
    ledger: &Ledger,
    disposition: Option<Disposition>,
    json: bool,
    out: &mut impl Write,
) -> Result<()> {
    let filter = CallbackFilter {
        disposition,
        text: None,
    };
    let mut page = PageRequest::first(1000);
    if json {
        out.write_all(b"[")?;
    } else {
        writeln!(out, "{}", report::callbacks_header())?;
    }
    let mut first = true;
    loop {
        let rows = ledger.callbacks_report_page(&filter, page)?;
        for row in &rows {
            if json {
                if !first {
                    out.write_all(b",\n")?;
                }
                report::write_json_compact(out, &report::CallbackJson::of(row))?;
            } else {
                writeln!(out, "{}", report::callback_line(row))?;
            }
            first = false;
        }
        match rows.last() {
            Some(last) if rows.len() == page.limit => page.keyset = Keyset::After(last.seq),
            _ => break,
        }
    }
    if json {
        out.write_all(b"]\n")?;
    }
    Ok(())
}

fn run_ingest(path: &Path, file: Option<&Path>, now: Timestamp) -> Result<()> {
    // Read on ingest's reader thread: `Stdin` (not its lock) may move there.
    let input: Box<dyn io::BufRead + Send> = match file {
        None => Box::new(BufReader::with_capacity(1 << 16, io::stdin())),
        Some(p) if p == Path::new("-") => Box::new(BufReader::with_capacity(1 << 16, io::stdin())),
        Some(p) => Box::new(BufReader::with_capacity(
            1 << 16,
            std::fs::File::open(p).with_context(|| format!("cannot read {}", p.display()))?,
        )),
    };
    let mut ledger = open_upgrading(path)?;
    let report =
        ingest::ingest(&mut ledger, input, now, progress_printer()).with_context(|| {
            format!(
                "ingest into {} stopped; committed batches are kept, re-run to finish",
                path.display()
            )
        })?;
    finish_progress();
    // `println!` would panic on a closed standard output.
    writeln!(io::stdout(), "{report}")?;
    Ok(())
}

fn run_demo(
    db: Option<PathBuf>,
    now: Option<Timestamp>,
    data: demo::DemoData,
    print: bool,
    stream_only: bool,
) -> Result<ExitCode> {
    let path = db.unwrap_or_else(|| PathBuf::from(demo::DEFAULT_DEMO_DB));
    let now = now.unwrap_or_else(demo::demo_now);
    if let (true, demo::DemoData::Synthetic { jobs, seed }) = (stream_only, data) {
        let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
        demo::synthetic::write_stream(&mut out, jobs, seed, demo::synthetic_start(jobs, now))?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    let built = demo::build(&path, now, data, progress_printer())?;
    finish_progress();
    if print {
        let ledger = Ledger::open(&path)?;
        let mut out = io::stdout().lock();
        writeln!(out, "Demo ledger {} (clock fixed at {now})", path.display())?;
        writeln!(out, "ingest: {built}\n")?;
        write!(
            out,
            "{}",
            Summary::gather(&ledger, now, DEFAULT_REVIEW_CAPACITY)?.to_text()
        )?;
        writeln!(out)?;
        write!(
            out,
            "{}",
            report::reconciliation_text(&reconcile::reconcile(
                &ledger,
                now,
                3600,
                DEFAULT_REVIEW_CAPACITY
            )?)
        )?;
        return Ok(ExitCode::SUCCESS);
    }
    review_console(
        &path,
        Clock::Fixed(now),
        ReviewArgs {
            read_only: false,
            reviewer: None,
        },
    )?;
    Ok(ExitCode::SUCCESS)
}

fn review_console(path: &Path, clock: Clock, args: ReviewArgs) -> Result<()> {
    if !path.exists() {
        bail!(
            "no ledger at {} (create one with `jobledger ingest FILE`, or try `jobledger demo`)",
            path.display()
        );
    }
    if !io::stdout().is_terminal() || !io::stdin().is_terminal() {
        bail!(
            "the review console needs a terminal; for reports use `summary`, `callbacks` or `reconcile`"
        );
    }
    if !args.read_only {
        note_upgrade(path);
    }
    crate::console::run(path, clock, reviewer_name(args.reviewer), args.read_only)
}

/// Progress on stderr, when it is a terminal and the work takes more than a moment.
fn progress_printer() -> impl FnMut(&ingest::IngestReport) {
    let show = io::stderr().is_terminal();
    let started = std::time::Instant::now();
    move |so_far| {
        if show && started.elapsed().as_millis() > 500 {
            #[allow(clippy::cast_precision_loss)] // a rate shown to a person
            let rate = so_far.lines_read as f64 / started.elapsed().as_secs_f64().max(0.001);
            eprint!(
                "\ringesting: {} lines read ({rate:.0} lines/s)…",
                so_far.lines_read
            );
        }
    }
}

/// Clears the progress line, if one was drawn.
fn finish_progress() {
    if io::stderr().is_terminal() {
        eprint!("\r\x1b[K");
    }
}
