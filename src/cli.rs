//! The command line (SPEC sec. 7): parses the arguments (`cli/args.rs`) and dispatches
//! each command to the module that does it and to [`crate::report`], which prints.

mod args;
mod bulk;
mod check_backup;
mod copy;
mod export;
mod follow;
mod ingest_command;
mod open;
mod restore;

use std::io::{self, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use clap::Parser;

use crate::clock::{Clock, Timestamp};
use crate::console::Theme;
use crate::console::theme::Palette;
use crate::decision::DecisionVerdict;
use crate::evidence::bundle::{BundleFormat, Subject};
use crate::outbox::{self, RequestKind};
use crate::reconcile::{self, DEFAULT_REVIEW_CAPACITY};
use crate::report::{self, ListFormat, Summary};
use crate::review::decisions::{DecisionAnswerError, DecisionAnswerRequest, answer_decisions};
use crate::review::{self, AnswerRequest};
use crate::store::{CallbackFilter, Ledger, Location};
use crate::{demo, escalation};
use args::{Cli, Command, RequestArgs, RequestCommand, ReviewArgs};
use ingest_command::{
    finish_progress, ingest_stopped, progress_printer, refuse_own_file, run_ingest,
};
use open::{
    note_upgrade, open_for_a_person, open_to_ingest, open_to_read, refuse_no_ledger, warn_if_shared,
};

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

/// The schema of a server's ledger (for a sentence that names it).
fn server_schema(location: &Location) -> &str {
    match location {
        Location::Server(address) => address.schema(),
        Location::File(_) => "",
    }
}

/// Where the ledger is: `--db`, else `JOBLEDGER_DB`, else `jobledger.db` here. A
/// `postgres://` URL names a ledger on a server.
fn ledger_location(flag: Option<PathBuf>) -> Result<Location> {
    let text = flag
        .or_else(|| std::env::var_os("JOBLEDGER_DB").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("jobledger.db"));
    Ok(Location::parse(text.as_os_str())?)
}

/// The exit status of `summary --exit-code` and `reconcile --exit-code` when the
/// report shows something for a person to do. Not 1, which says a command could not
/// run: a script must tell "look at this" from "this did not work".
const NEEDS_A_PERSON: u8 = 5;

/// Runs the command line; errors are printed, and the exit code says whether it worked.
pub fn main() -> ExitCode {
    let cli = match parse_plain() {
        Ok(cli) => cli,
        Err(error) => return argument_error(&error),
    };
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

/// Parses the command line with a parser that adds no styles of its own, so the only
/// escape sequences in an error are those of the argument typed, which
/// [`argument_error`] makes inert.
fn parse_plain() -> Result<Cli, clap::Error> {
    use clap::{CommandFactory as _, FromArgMatches as _};
    let matches = Cli::command()
        .styles(clap::builder::Styles::plain())
        .try_get_matches()?;
    Cli::from_arg_matches(&matches)
}

/// Prints what the argument parser said: help and version as clap prints them (our own
/// text, styled), an error made inert like every other message, since it quotes the
/// argument typed and a value pasted from a stream can carry escape sequences.
fn argument_error(error: &clap::Error) -> ExitCode {
    use clap::error::ErrorKind;
    if !error.use_stderr() {
        // Help or version: the styled parser says it again, in colour where wanted.
        let styled = Cli::try_parse().err();
        let _ = styled.as_ref().unwrap_or(error).print();
        return ExitCode::SUCCESS;
    }
    if error.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        let _ = error.print();
        return ExitCode::from(2);
    }
    let text = error.render().ansi().to_string();
    let mut err = io::stderr().lock();
    for line in text.lines() {
        let _ = writeln!(err, "{}", crate::inert::inert(line));
    }
    ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(2))
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
    let command = cli
        .command
        .unwrap_or(Command::Review(ReviewArgs::default()));
    if let Command::Demo {
        print,
        jobs,
        seed,
        stream_only,
        order,
        reviewer,
        tour,
    } = command
    {
        let data = jobs.map_or(demo::DemoData::Booking, |jobs| demo::DemoData::Synthetic {
            jobs,
            seed,
        });
        let stream_only = stream_only.then_some(order);
        let shown = DemoShown {
            print,
            stream_only,
            tour,
        };
        return run_demo(cli.db, cli.now, data, shown, reviewer, cli.theme);
    }
    let path = ledger_location(cli.db)?;
    let now = clock.now();
    // Buffered: a report of a large ledger is many small writes, and a locked stdout
    // alone wrote (and made a system call) at every line.
    let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
    // A report is printed whole or not at all: one that fails midway (a damaged row)
    // must not leave half a document on standard output.
    let mut whole = report::WholeOutput::new();
    let mut code = ExitCode::SUCCESS;
    match command {
        Command::Review(args) => review_console(&path, clock, args, cli.theme, false)?,
        Command::Ingest {
            file,
            complete,
            max_line_bytes,
            follow: true,
        } => follow::run(&path, file.as_deref(), complete, max_line_bytes, clock)?,
        Command::Ingest {
            file,
            complete,
            max_line_bytes,
            ..
        } => run_ingest(&path, file.as_deref(), complete, max_line_bytes, now)?,
        Command::Summary {
            json,
            review_capacity,
            exit_code,
        } => {
            let ledger = open_to_read(&path)?;
            let now = reading_time(&ledger, clock)?;
            let summary = Summary::gather(&ledger, now, review_capacity)?;
            report::write(&mut whole, &summary, json)?;
            if exit_code && summary.needs_a_person() {
                code = ExitCode::from(NEEDS_A_PERSON);
            }
        }
        Command::Callbacks {
            json,
            format,
            disposition,
            open,
            query,
        } => {
            let filter = CallbackFilter {
                disposition,
                open,
                ..CallbackFilter::default()
            };
            let filter = match query {
                Some(query) => filter
                    .with_query(&query, now, &reviewer_name(None))
                    .map_err(|e| {
                        // A query of thousands of terms is not worth quoting whole.
                        let message = format!("--where {:?}: {e}", report::clip(&query, 120));
                        anyhow::anyhow!(crate::inert::inert(&message).into_owned())
                    })?,
                None => filter,
            };
            let format = ListFormat::chosen(format, json);
            report::write_callbacks(&mut whole, &open_to_read(&path)?, &filter, format, now)?;
        }
        Command::Reconcile {
            json,
            format,
            window,
            review_capacity,
            exit_code,
        } => {
            let ledger = open_to_read(&path)?;
            let now = reading_time(&ledger, clock)?;
            let r = reconcile::reconcile(&ledger, now, window, review_capacity)?;
            report::write_list(&mut whole, &r, ListFormat::chosen(format, json))?;
            if exit_code && r.needs_a_person() {
                code = ExitCode::from(NEEDS_A_PERSON);
            }
        }
        Command::Answer {
            seq,
            verdict,
            note,
            reviewer,
            job,
            seen,
            bulk,
            decisions,
            json,
        } => {
            let reviewer = reviewer_name(reviewer);
            if let Some(job_id) = decisions {
                let request = DecisionAnswerRequest {
                    job_id: &job_id,
                    verdict: &verdict,
                    note: &note,
                    reviewer: &reviewer,
                    seen_answer: seen,
                };
                let mut ledger = open_for_a_person(&path)?;
                let now = reading_time(&ledger, clock)?;
                let id = answer_decisions(&mut ledger, &request, now).map_err(|e| match e {
                    DecisionAnswerError::AnsweredMeanwhile { ref answer, .. } => {
                        answer_over_it(&e, answer.id)
                    }
                    other => other.into(),
                })?;
                if json {
                    // The role that wrote it is the ledger's to say: read back.
                    let standing = ledger.decision_answer(&job_id)?.filter(|a| a.id == id);
                    let written = report::DecisionsAnsweredJson {
                        answered_at: now,
                        id,
                        job_id: &job_id,
                        note: &note,
                        reviewer: &reviewer,
                        // Checked against the closed set before it was written.
                        verdict: DecisionVerdict::parse(&verdict)
                            .context("the verdict written is not in the closed set")?,
                        written_by: standing.as_ref().and_then(|a| a.written_by.as_deref()),
                    };
                    report::write_json(&mut out, &written)?;
                } else {
                    let said = report::decisions_answered(id, &job_id, &verdict, &reviewer);
                    out.write_all(said.as_bytes())?;
                }
                out.flush()?;
                return Ok(ExitCode::SUCCESS);
            }
            let Some(seq) = seq else {
                let answers = bulk::BulkAnswer {
                    verdict: &verdict,
                    note: &note,
                    reviewer: &reviewer,
                    link_job: job.as_deref(),
                    seen,
                };
                return bulk::run(&path, &answers, &bulk, json, clock, &mut out);
            };
            let request = AnswerRequest {
                seq,
                verdict: &verdict,
                note: &note,
                reviewer: &reviewer,
                link_job: job.as_deref(),
                seen_answer: seen,
            };
            let mut ledger = open_for_a_person(&path)?;
            let now = reading_time(&ledger, clock)?;
            let written = review::answer(&mut ledger, &request, now).map_err(|e| match e {
                review::AnswerError::AnsweredMeanwhile(ref theirs) => answer_over_it(&e, theirs.id),
                other => other.into(),
            })?;
            if json {
                // Read back, so the JSON is the row as the ledger keeps it.
                let answers = ledger.answers(seq)?;
                let row = answers
                    .iter()
                    .find(|a| a.id == written.answer_id)
                    .context("the answer written is not in the ledger")?;
                report::write_json(&mut out, &report::AnswerJson::new(row, &written))?;
            } else {
                let said =
                    report::answer_written(seq, &verdict, &reviewer, job.as_deref(), &written);
                out.write_all(said.as_bytes())?;
            }
        }
        Command::Claim {
            seq,
            release,
            reviewer,
            json,
        } => {
            let mut ledger = open_for_a_person(&path)?;
            let now = reading_time(&ledger, clock)?;
            let reviewer = reviewer_name(reviewer);
            let claim = if release {
                crate::review::claims::release(&mut ledger, seq, &reviewer, now)?;
                None
            } else {
                Some(crate::review::claims::claim(
                    &mut ledger,
                    seq,
                    &reviewer,
                    now,
                )?)
            };
            if json {
                report::write_json(&mut out, &report::ClaimJson { claim, seq })?;
            } else {
                out.write_all(report::claim_said(seq, claim.as_ref()).as_bytes())?;
            }
        }
        Command::Owner {
            job: None,
            owner,
            escalate_at,
            by,
            query: Some(query),
            expect,
            dry_run,
            json,
            ..
        } => {
            let by = reviewer_name(by);
            let owner = owner.unwrap_or_default();
            let query = crate::filter::Query::parse_as(&query, crate::filter::Scope::AgedJobs, &by)
                .map_err(|e| {
                    let message = format!("--where {:?}: {e}", report::clip(&query, 120));
                    anyhow::anyhow!(crate::inert::inert(&message).into_owned())
                })?;
            let expect = match expect {
                Some(expect) => Some(expect),
                None if dry_run => None,
                None => anyhow::bail!(
                    "owner --where gives many jobs an owner: read the plan first with --dry-run, then write with --expect N, the count it gives"
                ),
            };
            let mut ledger = if dry_run {
                open_to_read(&path)?
            } else {
                open_for_a_person(&path)?
            };
            let now = reading_time(&ledger, clock)?;
            let escalate_at = escalate_at.map(|at| at.from(now));
            let selection = escalation::bulk::Selection::Query(&query);
            let plan = if let Some(expect) = expect.filter(|_| !dry_run) {
                escalation::bulk::assign(
                    &mut ledger,
                    selection,
                    &owner,
                    escalate_at,
                    &by,
                    now,
                    expect,
                )
                .map_err(|e| match e {
                    e @ escalation::bulk::BulkOwnerError::NotAsExpected { .. } => anyhow::anyhow!(
                        "{e} Read the plan again (--dry-run) and write with the count it gives."
                    ),
                    e => e.into(),
                })?
            } else {
                escalation::bulk::plan(&ledger, selection, &owner, escalate_at, now)?
            };
            if json {
                report::write_json(&mut out, &report::OwnerPlanJson::new(&plan, !dry_run))?;
            } else if dry_run {
                write!(out, "{plan}")?;
            } else {
                writeln!(
                    out,
                    "{} jobs now owned by {} ({} had that owner already)",
                    plan.assigned.len(),
                    crate::inert::inert(&plan.owner),
                    plan.unchanged.len()
                )?;
            }
        }
        Command::Owner {
            job,
            owner,
            escalate_at,
            clear,
            by,
            json,
            ..
        } => {
            let job = job.unwrap_or_default();
            let mut ledger = open_for_a_person(&path)?;
            let now = reading_time(&ledger, clock)?;
            let by = reviewer_name(by);
            if let Some(owner) = owner.filter(|_| !clear) {
                let escalate_at = escalate_at.map(|at| at.from(now));
                let set = escalation::set_owner(&mut ledger, &job, &owner, escalate_at, &by, now)?;
                if json {
                    report::write_json(&mut out, &report::OwnerJson::new(&job, &set))?;
                } else {
                    let said = match &set {
                        escalation::OwnerSet::Written(_) => {
                            report::owner_set(&job, &owner, escalate_at)
                        }
                        escalation::OwnerSet::Unchanged(standing) => {
                            report::owner_unchanged(&job, standing)
                        }
                    };
                    out.write_all(said.as_bytes())?;
                }
            } else {
                let cleared = escalation::clear_owner(&mut ledger, &job, &by, now)?;
                if json {
                    let said = report::OwnerJson::cleared(&job, &cleared, &by, now);
                    report::write_json(&mut out, &said)?;
                } else {
                    out.write_all(report::owner_cleared(&job, &cleared).as_bytes())?;
                }
            }
        }
        Command::Request {
            request: RequestCommand::Retry(args),
        } => run_request(&path, RequestKind::Retry, args, clock, &mut out)?,
        Command::Request {
            request: RequestCommand::Cancel(args),
        } => run_request(&path, RequestKind::Cancel, args, clock, &mut out)?,
        Command::Request {
            request:
                RequestCommand::Withdraw {
                    id,
                    note,
                    reviewer,
                    json,
                },
        } => {
            let by = reviewer_name(reviewer);
            let mut ledger = open_for_a_person(&path)?;
            let now = reading_time(&ledger, clock)?;
            let row = outbox::withdraw(&mut ledger, id, &by, &note, now)?;
            report::write(&mut out, &report::Withdrawn(row), json)?;
        }
        Command::Export {
            seq,
            job,
            format,
            json,
            output,
            force,
        } => {
            let subject = match (seq, job) {
                (Some(seq), None) => Subject::Callback(seq),
                (None, Some(job)) => Subject::Job(job),
                _ => bail!("export takes a callback's SEQ or --job JOB"),
            };
            let format = if json {
                BundleFormat::Json
            } else {
                format.unwrap_or(BundleFormat::Md)
            };
            let asked = export::Export {
                subject,
                format,
                output,
                force,
            };
            export::run(&path, &asked, clock, &mut whole, &mut out)?;
        }
        Command::Outbox { json, format } => {
            let rows = open_to_read(&path)?.outbox()?;
            report::write_list(
                &mut whole,
                rows.as_slice(),
                ListFormat::chosen(format, json),
            )?;
        }
        Command::Rejected { json } => {
            let rows = open_to_read(&path)?.rejected_lines(usize::MAX)?;
            report::write(&mut whole, rows.as_slice(), json)?;
        }
        Command::Views {
            delete: Some(name),
            reviewer,
            ..
        } => {
            let by = reviewer_name(reviewer);
            let mut ledger = open_for_a_person(&path)?;
            let now = reading_time(&ledger, clock)?;
            let mut writer = ledger.writer()?;
            let Some(view) = writer.delete_view(&name, &by, now)? else {
                bail!(
                    "no view is saved under {:?}: nothing deleted (see `jobledger views`)",
                    crate::inert::inert(&name)
                );
            };
            writer.commit()?;
            out.write_all(report::view_deleted(&view).as_bytes())?;
        }
        Command::Views { json, .. } => {
            let views = open_to_read(&path)?.saved_views()?;
            report::write(&mut whole, views.as_slice(), json)?;
        }
        Command::Check { json } => return check_backup::run_check(&path, json, &mut out),
        Command::Backup { dest, salvage } => {
            let Location::File(path) = &path else {
                bail!(
                    "{path} is a ledger on a PostgreSQL server: back it up with the server's own tools (`pg_dump --schema={schema}`), or copy it into a SQLite file with `jobledger copy --from LEDGER --to FILE.db`",
                    schema = server_schema(&path)
                );
            };
            return check_backup::run_backup(path, &dest, salvage, &mut out);
        }
        Command::Restore { backup } => {
            let Location::File(path) = &path else {
                bail!(
                    "{path} is a ledger on a PostgreSQL server: restore it with the server's own tools (`pg_restore`); `restore` puts a backup file in a ledger file's place"
                );
            };
            return restore::run(path, &backup, now, &mut out);
        }
        Command::Copy { from, to } => {
            let from = Location::parse(from.as_os_str())?;
            let to = Location::parse(to.as_os_str())?;
            return copy::run(&from, &to, &mut out);
        }
        Command::Roles { apply } => {
            let Location::Server(address) = &path else {
                bail!(
                    "{path} is a ledger file: roles are a PostgreSQL server's; give --db postgres://... (a file's readers and writers are whoever may read and write it)"
                );
            };
            let sql = crate::store::roles_sql(address.schema());
            if apply {
                let ledger = Ledger::open_at(&path, crate::store::OpenMode::ReadWrite)?;
                ledger.apply_roles()?;
                writeln!(
                    out,
                    "the roles jobledger_reader, jobledger_reviewer and jobledger_ingester are set up for the ledger {path}; grant one to each login role (GRANT jobledger_reviewer TO ana;)"
                )?;
            } else {
                out.write_all(sql.as_bytes())?;
            }
        }
        Command::Demo { .. } => unreachable!("handled above"),
    }
    whole.finish(&mut out)?;
    out.flush()?;
    Ok(code)
}

/// Checks and writes a retry or cancel; says what was written (with `--json`, the
/// request as `outbox --json` lists it).
fn run_request(
    location: &Location,
    kind: RequestKind,
    args: RequestArgs,
    clock: Clock,
    out: &mut impl Write,
) -> Result<()> {
    let by = reviewer_name(args.by);
    let mut ledger = open_for_a_person(location)?;
    let now = reading_time(&ledger, clock)?;
    let written = outbox::request(&mut ledger, kind, &args.job, &by, now)?;
    if args.json {
        let row = ledger
            .outbox_request(written.id)?
            .context("the request written is not in the outbox")?;
        report::write_json(out, &row)?;
    } else {
        out.write_all(report::request_written(kind, &args.job, &written).as_bytes())?;
    }
    Ok(())
}

/// An answer refused over one the reviewer had not seen, with how to answer over it.
fn answer_over_it(refused: &dyn std::fmt::Display, standing: i64) -> anyhow::Error {
    anyhow::anyhow!("{refused}\n(to answer over it, add --seen {standing})")
}

/// The time a report reads the ledger at, and a person's write is stamped with:
/// `--now`, else the clock the ledger keeps (a demo's afternoon: an answer written
/// from the command line lands in it, as one written in its console does), else the
/// system's.
pub(super) fn reading_time(ledger: &Ledger, clock: Clock) -> Result<Timestamp> {
    Ok(match clock {
        Clock::Fixed(at) => at,
        Clock::System => ledger.kept_clock()?.unwrap_or_else(|| clock.now()),
    })
}

/// What `demo` shows of the ledger it builds.
#[derive(Debug, Clone, Copy)]
struct DemoShown {
    /// The summary and reconciliation printed, instead of the console.
    print: bool,
    /// The generated stream alone, in this order, and no ledger.
    stream_only: Option<demo::synthetic::StreamOrder>,
    /// The console opened in the guided tour.
    tour: bool,
}

fn run_demo(
    db: Option<PathBuf>,
    now: Option<Timestamp>,
    data: demo::DemoData,
    shown: DemoShown,
    reviewer: Option<String>,
    theme: Option<Palette>,
) -> Result<ExitCode> {
    let DemoShown {
        print,
        stream_only,
        tour,
    } = shown;
    let path = db.unwrap_or_else(|| PathBuf::from(demo::DEFAULT_DEMO_DB));
    let now = now.unwrap_or_else(demo::demo_now);
    if let (Some(order), demo::DemoData::Synthetic { jobs, seed }) = (stream_only, data) {
        let mut out = io::BufWriter::with_capacity(1 << 16, io::stdout().lock());
        let start = demo::synthetic::stream_start(jobs, now);
        demo::synthetic::write_ordered(&mut out, jobs, seed, start, order)?;
        out.flush()?;
        return Ok(ExitCode::SUCCESS);
    }
    // The demo ledger is a file made afresh, the one it replaces removed: a server's
    // ledger is never that (and its URL, password and all, is no file name to show).
    let location = Location::parse(path.as_os_str())?;
    if let Location::Server(_) = location {
        bail!(
            "{location} is a ledger on a PostgreSQL server; the demo builds a ledger file of its own (--db FILE.db, default {file}). To look at the demo on the server, copy it there: `jobledger demo --print`, then `jobledger copy --from {file} --to LEDGER`",
            file = demo::DEFAULT_DEMO_DB
        );
    }
    let dropped = demo::work_on_replaced_demo(&path).ok().flatten();
    let built = demo::build(&path, now, data, progress_printer())?;
    if let Some((answers, owners, requests)) = dropped.filter(|&work| work != (0, 0, 0)) {
        let _ = writeln!(
            io::stderr(),
            "replaced the demo ledger {}: dropped {answers} answers, {owners} owner assignments and {requests} requests given on its rows",
            crate::inert::inert_path(&path)
        );
    }
    finish_progress();
    if print {
        let ledger = Ledger::open(&path)?;
        let mut out = io::stdout().lock();
        let shown = crate::inert::inert_path(&path);
        writeln!(out, "Demo ledger {shown} (clock fixed at {now})")?;
        writeln!(out, "ingest: {built}\n")?;
        let summary = Summary::gather(&ledger, now, DEFAULT_REVIEW_CAPACITY)?;
        report::write(&mut out, &summary, false)?;
        writeln!(out)?;
        let r = reconcile::reconcile(&ledger, now, 3600, DEFAULT_REVIEW_CAPACITY)?;
        report::write(&mut out, &r, false)?;
        return Ok(ExitCode::SUCCESS);
    }
    let args = ReviewArgs {
        reviewer,
        ..ReviewArgs::default()
    };
    review_console(
        &Location::File(path.clone()),
        Clock::Fixed(now),
        args,
        theme,
        tour,
    )?;
    // The walkthrough's answers are in the file: say how to come back to them.
    writeln!(
        io::stdout(),
        "The demo ledger {shown} keeps the demo's clock. To open it again:\n    jobledger --db {shown}",
        shown = shell_word(&crate::inert::inert_path(&path))
    )?;
    Ok(ExitCode::SUCCESS)
}

/// `text` as one word of a shell command line: as it is when it needs no quoting,
/// else in single quotes.
fn shell_word(text: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_./:@%+=,-".contains(c);
    if !text.is_empty() && text.chars().all(plain) {
        text.to_owned()
    } else {
        format!("'{}'", text.replace('\'', "'\\''"))
    }
}

fn review_console(
    location: &Location,
    clock: Clock,
    args: ReviewArgs,
    palette: Option<Palette>,
    tour: bool,
) -> Result<()> {
    let theme = console_theme(palette)?;
    if let Location::File(path) = location {
        refuse_no_ledger(path)?;
    }
    if !io::stdout().is_terminal() || !io::stdin().is_terminal() {
        bail!(
            "the review console needs a terminal; for reports use `summary`, `callbacks` or `reconcile`"
        );
    }
    if let Location::File(path) = location {
        if !args.read_only {
            note_upgrade(path);
        }
        warn_if_shared(path);
    }
    crate::console::run(
        location,
        clock,
        reviewer_name(args.reviewer),
        args.read_only,
        theme,
        tour,
    )
}

/// The console's theme: `--theme`, else `JOBLEDGER_THEME` (empty counts as unset),
/// else dark; none at all when `NO_COLOR` is set and not empty (no-color.org).
fn console_theme(flag: Option<Palette>) -> Result<Theme> {
    let palette = match flag {
        Some(palette) => Some(palette),
        None => match std::env::var("JOBLEDGER_THEME") {
            Ok(name) if !name.trim().is_empty() => {
                Some(Palette::named(name.trim()).with_context(|| {
                    format!(
                        "JOBLEDGER_THEME is {:?}: the console's themes are dark and light",
                        crate::inert::inert(&name)
                    )
                })?)
            }
            _ => None,
        },
    };
    Ok(Theme::chosen(
        palette,
        std::env::var_os("NO_COLOR").as_deref(),
    ))
}
