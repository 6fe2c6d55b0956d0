//! What the command line accepts: the commands, their flags and help texts.

use std::fmt::Write as _;
use std::path::PathBuf;

use clap::builder::PossibleValue;
use clap::{Parser, Subcommand, ValueEnum};

use crate::clock::{Timestamp, parse_duration};
use crate::console::theme::Palette;
use crate::decision::{DecisionVerdict, Disposition};
use crate::demo::synthetic::StreamOrder;
use crate::escalation::EscalationTime;
use crate::evidence::bundle::BundleFormat;
use crate::outbox::RequestKind;
use crate::reconcile::DEFAULT_REVIEW_CAPACITY;
use crate::report::ListFormat;
use crate::review::CaseKind;

const ABOUT: &str =
    "A review console over a ledger of asynchronous jobs and their callbacks, kept in a
SQLite file (one machine) or on a PostgreSQL server (a team).

Every callback gets exactly one disposition (apply, hold, record, quarantine); held and
quarantined ones wait for a person, who answers them in the console or with `answer`.";

fn verdict_help() -> String {
    let mut text = String::from("Verdicts, by the kind of question:\n");
    for kind in CaseKind::ALL {
        let _ = writeln!(text, "  {}:", kind.as_str());
        for v in kind.verdicts() {
            let _ = writeln!(text, "    {:<20} {}", v.as_str(), v.description());
        }
    }
    let _ = writeln!(text, "  divergent decisions of a job (--decisions JOB):");
    for v in DecisionVerdict::ALL {
        let _ = writeln!(text, "    {:<20} {}", v.as_str(), v.description());
    }
    text
}

#[derive(Debug, Parser)]
#[command(name = "jobledger", version, about = ABOUT)]
pub(super) struct Cli {
    /// The ledger: a file (a regular file; a named pipe or a device is refused), or a
    /// ledger on a PostgreSQL server, postgres://USER@HOST[:PORT]/DB[?schema=NAME]
    /// [&sslmode=MODE] (the password from PGPASSWORD or the URL; never shown)
    /// [default: ./jobledger.db; env JOBLEDGER_DB]
    #[arg(long, global = true, value_name = "LEDGER")]
    pub(super) db: Option<PathBuf>,
    /// Fix the clock (RFC 3339), for reproducible reports
    #[arg(long, global = true, value_name = "TIME", value_parser = parse_time)]
    pub(super) now: Option<Timestamp>,
    /// The console's colours: dark for a dark terminal, light for a light one
    /// [default: env JOBLEDGER_THEME, else dark]. NO_COLOR set and not empty shows no
    /// colour at all, whatever this says
    #[arg(long, global = true, value_name = "THEME")]
    pub(super) theme: Option<Palette>,
    #[command(subcommand)]
    pub(super) command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub(super) enum Command {
    /// Open the review console (the default command)
    Review(ReviewArgs),
    /// Read an NDJSON event stream into the ledger (safe to re-run)
    Ingest {
        /// The stream to read; `-` or nothing reads standard input
        file: Option<PathBuf>,
        /// The input is the whole stream: take a last line with no line end (LF) as it
        /// is (quarantined when it is no JSON). Without it such a line is left unread,
        /// whatever it holds and from a file or a pipe alike, since it may still be
        /// being written: the next ingest reads it once its LF has arrived
        #[arg(long)]
        complete: bool,
        /// Keep reading FILE as it grows, as `tail -F` does: each line is taken once its
        /// end has arrived and committed within about a second; a truncated file is read
        /// again, a rotated one to its end and then the new one. Ctrl-C or SIGTERM stops
        /// it with every whole line committed
        #[arg(long)]
        follow: bool,
        /// A line longer than this many bytes is kept as its first bytes (64 KiB), its
        /// length and the SHA-256 of the whole (quarantined or rejected as `oversized`),
        /// for good: a later ingest with a larger limit finds it by its SHA-256 and does
        /// not take it again. From 65536 (64 KiB, far above any ordinary event line) to
        /// 268435456 (256 MiB)
        #[arg(long, value_name = "N", default_value_t = crate::ingest::MAX_LINE_BYTES,
              value_parser = crate::ingest::parse_max_line_bytes)]
        max_line_bytes: usize,
    },
    /// Totals: callbacks by disposition, jobs by state, outbox, backlog alarm
    #[command(after_help = SUMMARY_EXIT)]
    Summary {
        /// Print JSON instead of a table (its shape: the README, "JSON for scripts")
        #[arg(long)]
        json: bool,
        /// Held + quarantined arrivals an hour that reviewers can take
        #[arg(long, default_value_t = DEFAULT_REVIEW_CAPACITY, value_name = "N")]
        review_capacity: i64,
        /// Exit with 5 (not 0) when a person is needed: the backlog alarm is raised or
        /// a question is open (a held or quarantined callback without a closing answer)
        #[arg(long)]
        exit_code: bool,
    },
    /// List callbacks in ingest order, with disposition, timeout, arrival and answer
    Callbacks {
        /// Print JSON instead of a table (its shape: the README, "JSON for scripts")
        #[arg(long, conflicts_with = "format")]
        json: bool,
        /// table (the default), json (as --json) or csv (RFC 4180: a header row, then
        /// the keys of the JSON a column each, the replacement and answer spelt out)
        #[arg(long, value_name = "FORMAT")]
        format: Option<ListFormat>,
        /// Only callbacks with this disposition
        #[arg(long, value_enum)]
        disposition: Option<Disposition>,
        /// Only open questions: held or quarantined callbacks without an answer that
        /// closes them (needs_remote_check leaves a question open)
        #[arg(long)]
        open: bool,
        /// Only callbacks the query keeps, e.g. 'reason:possible_duplicate_effect gap>1h
        /// -answered:yes owner:none' (the console's `/` language, in any case, at most
        /// 10000 terms; the README lists the fields)
        #[arg(long = "where", value_name = "QUERY", allow_hyphen_values = true)]
        query: Option<String>,
    },
    /// Account for every accepted job: missing terminal records, outputs, notifications, aged jobs
    #[command(after_help = RECONCILE_EXIT)]
    Reconcile {
        /// Print JSON instead of a table (its shape: the README, "JSON for scripts")
        #[arg(long, conflicts_with = "format")]
        json: bool,
        /// table (the default), json (as --json) or csv: the aged jobs, a row each
        /// (RFC 4180: a header row, then the keys of the JSON's `aged`), for a
        /// spreadsheet
        #[arg(long, value_name = "FORMAT")]
        format: Option<ListFormat>,
        /// Submission window width: 15m, 1h, 1d, ... (1h, the default, is read from what
        /// the ledger keeps; another width counts every job again)
        #[arg(long, default_value = "1h", value_parser = parse_window)]
        window: i64,
        /// Held + quarantined arrivals an hour that reviewers can take
        #[arg(long, default_value_t = DEFAULT_REVIEW_CAPACITY, value_name = "N")]
        review_capacity: i64,
        /// Exit with 5 (not 0) when a person is needed: the report is NOT COMPLETE (a
        /// job without a terminal record, aged jobs among them, or a success without
        /// its output object), or a job's divergent decisions have no closing answer
        #[arg(long)]
        exit_code: bool,
    },
    /// Answer a held or quarantined callback (append-only), or many at once, or a job's
    /// divergent decisions
    #[command(
        after_help = verdict_help(),
        override_usage = ANSWER_USAGE,
        group(clap::ArgGroup::new("selection").multiple(true).args(BULK_SELECTION))
    )]
    Answer {
        /// The callback's sequence number (see `callbacks`); without it, a selection
        /// (the selection flags below) is answered in bulk
        #[arg(required_unless_present_any = ANSWER_WITHOUT_SEQ, conflicts_with_all = BULK_SELECTION)]
        seq: Option<i64>,
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
        #[command(flatten)]
        bulk: BulkArgs,
        /// Answer the divergent decisions of this job (see `reconcile`) instead of a
        /// callback: one of first_stands, second_stands, both_intended, needs_remote_check
        #[arg(long, value_name = "JOB", conflicts_with_all = ["seq", "job", "disposition", "query"])]
        decisions: Option<String>,
        /// Print JSON instead of text: the answer written (the `answer` of its row in
        /// the JSON of `callbacks`, with `linked`), the answer on the decisions (with
        /// `job_id`), or the bulk report (on a dry run, its plan)
        #[arg(long)]
        json: bool,
    },
    /// Claim a held or quarantined callback ("on it", shown to everyone on its row) for
    /// 30 minutes, or release your claim; answering it releases it too
    Claim {
        /// The callback's sequence number (see `callbacks`)
        seq: i64,
        /// Release your claim instead of taking one
        #[arg(long)]
        release: bool,
        /// Who claims [default: env JOBLEDGER_REVIEWER, else the login name]
        #[arg(long)]
        reviewer: Option<String>,
        /// Print the claim as JSON (seq, claim: reviewer, since, until; claim null once
        /// released)
        #[arg(long)]
        json: bool,
    },
    /// Set the owner and escalation time of a (stuck) job (appended: the latest stands)
    #[command(
        after_help = "Many jobs at once: --where QUERY gives every aged job the query keeps (as the \
Aged view's filter reads it: owner:none, overdue:yes, age>2h, escalates<+1h ...) the owner \
and escalation time. --dry-run prints the plan and its count; the write needs that count \
as --expect N, and writes nothing when the ledger no longer gives it."
    )]
    Owner {
        /// The job's id (or --where QUERY for many)
        #[arg(required_unless_present = "query", conflicts_with = "query")]
        job: Option<String>,
        /// Who owns the job from now on (e.g. ops:lee)
        #[arg(long, required_unless_present = "clear")]
        owner: Option<String>,
        /// When it escalates: a delay from now (30m, 2h, 1d) or a time (RFC 3339, e.g.
        /// 2026-11-27T18:00:00Z); without it, no escalation time
        #[arg(long, value_name = "WHEN", value_parser = parse_escalate_at)]
        escalate_at: Option<EscalationTime>,
        /// Clear the job's owner and escalation time: the job is unowned from now on
        /// (kept in its history; nothing is written when it has no owner)
        #[arg(long, conflicts_with_all = ["owner", "escalate_at"])]
        clear: bool,
        /// Who sets it [default: env JOBLEDGER_REVIEWER, else the login name]
        #[arg(long = "reviewer", visible_alias = "by", value_name = "NAME")]
        by: Option<String>,
        /// Every aged job this query keeps (the Aged view's language; owner:me is you)
        #[arg(long = "where", value_name = "QUERY", conflicts_with = "clear")]
        query: Option<String>,
        /// With --where: write only if exactly N jobs take the owner (the plan's count)
        #[arg(long, value_name = "N", requires = "query")]
        expect: Option<usize>,
        /// With --where: print the plan, write nothing
        #[arg(long, requires = "query", conflicts_with = "expect")]
        dry_run: bool,
        /// Print the assignment written as JSON (job_id, owner, escalate_at, set_by, set_at,
        /// written; owner null when cleared; written false when nothing was written); with
        /// --where, the plan (owner, escalate_at, assigned, unchanged, written)
        #[arg(long)]
        json: bool,
    },
    /// Ask the outside to retry or cancel a job (checked; goes to the outbox), or
    /// withdraw a pending request
    Request {
        #[command(subcommand)]
        request: RequestCommand,
    },
    /// One document of everything the ledger holds on a case (a callback) or a job, to
    /// attach to an incident ticket
    #[command(
        after_help = EXPORT_HELP,
        group(clap::ArgGroup::new("subject").required(true).args(["seq", "job"]))
    )]
    Export {
        /// The callback's sequence number (see `callbacks`)
        seq: Option<i64>,
        /// A job instead of a callback: the job with every callback of it
        #[arg(long, value_name = "JOB")]
        job: Option<String>,
        /// md (Markdown, for people; the default) or json (for scripts)
        #[arg(long, value_name = "FORMAT")]
        format: Option<BundleFormat>,
        /// The same as --format json
        #[arg(long, conflicts_with = "format")]
        json: bool,
        /// Write the bundle to FILE (owner-only, whole or not at all) instead of
        /// standard output; a FILE that is there is refused, unless --force
        #[arg(short = 'o', long = "output", value_name = "FILE")]
        output: Option<PathBuf>,
        /// With -o: replace FILE when it is there
        #[arg(long, requires = "output")]
        force: bool,
    },
    /// List requests waiting in the outbox
    Outbox {
        /// Print JSON instead of a table (its shape: the README, "JSON for scripts")
        #[arg(long, conflicts_with = "format")]
        json: bool,
        /// table (the default), json (as --json) or csv (RFC 4180: a header row, then
        /// the keys of the JSON a column each, the withdrawal spelt out)
        #[arg(long, value_name = "FORMAT")]
        format: Option<ListFormat>,
    },
    /// List rejected events (malformed, or for unknown jobs) with their reasons
    Rejected {
        /// Print JSON instead of a table (its shape: the README, "JSON for scripts")
        #[arg(long)]
        json: bool,
    },
    /// List the saved views (named tab and query; in the console, :save NAME and '), or
    /// delete one
    Views {
        /// Print JSON instead of a table
        #[arg(long)]
        json: bool,
        /// Delete the view saved under NAME (append-only: a deletion row says who and
        /// when, and keeps the tab and query it took away)
        #[arg(long, value_name = "NAME", conflicts_with = "json")]
        delete: Option<String>,
        /// Who deletes it [default: env JOBLEDGER_REVIEWER, else the login name]
        #[arg(long, value_name = "NAME", requires = "delete")]
        reviewer: Option<String>,
    },
    /// Check the ledger: the kept counts against recounts, one row per line identity,
    /// every reference, and what its engine keeps (writes nothing)
    #[command(
        after_help = "Every ledger: its identity and schema version, the kept counts recounted from their tables, every line identity on one row, every callback on a line marked callback and every such line with its callback, every job's latest attempt on record, every answer on a held or quarantined callback, every callback in the trigram index its text is searched through (and no other), and what the ledger keeps for the reconciliation's glance (each finding's jobs and count, each hour's jobs by state) against a walk over every job (kept_reconciliation; a failure names the command that makes it again from the rows).

A SQLite file: also SQLite's integrity_check (it reads every page), foreign_key_check, and every CHECK constraint of every table. A failure names `backup --salvage`, which saves what can still be read.

A PostgreSQL ledger: the server keeps its own pages and constraints; also every foreign key and every trigger the ledger is made with (those keeping evidence append-only, those recording the role that wrote a person's row) is in place and enabled, every row holds its foreign keys (rows written with them off are found), and the text index's GIN index is in place. A failure names pg_dump of the schema as it is, then pg_restore of a good dump or `copy` from a sound ledger.

Exit status: 0 when every check passes, 3 when any check finds something wrong, 1 when the check could not run."
    )]
    Check {
        /// Print JSON instead of a report
        #[arg(long)]
        json: bool,
    },
    /// Copy the ledger to DEST while others go on writing, checked (--salvage: a damaged one)
    #[command(
        after_help = "One consistent snapshot, owner-only; DEST must not exist or be empty, nor be one of the ledger's own files; the ledger is only read.

A plain backup copies the ledger as SQLite reads it, then checks the copy (SQLite's quick_check, and the kept counts against the rows) before naming it DEST: a copy that fails is removed, and the message says what was found.

With --salvage, DEST is a new ledger (this jobledger's schema) into which every table is copied row by row, around the pages SQLite cannot read: a damaged index loses nothing, a damaged page only its own rows. Each table's rows saved, and the rows that could not be read, are listed. Saved rows whose parent row was lost are kept as read, and `jobledger --db DEST check` names them.

Exit status: 0 when the copy is written (with --salvage: every row was saved), 4 with --salvage when the copy is written without some rows (listed), 1 when nothing was written."
    )]
    Backup {
        /// The new file
        dest: PathBuf,
        /// Save what can still be read of a damaged ledger: a new ledger, its tables
        /// copied row by row around what cannot be read, what was lost listed
        #[arg(long)]
        salvage: bool,
    },
    /// Put a backup in the ledger's place; the ledger as it was is kept, with its log
    #[command(
        after_help = "The ledger as it was is kept beside it, with its -wal and -shm, as LEDGER.before-restore-TIME (nothing is deleted), and no log written for it is ever applied to the backup, which is copied (the backup file stays as it is) and checked as a backup is. Stop every jobledger using the ledger first: restore refuses while one has it open."
    )]
    Restore {
        /// The backup to put in place (it is copied: the backup file stays as it is)
        backup: PathBuf,
    },
    /// Copy a ledger into a new one, from a SQLite file to a PostgreSQL server or back
    #[command(
        after_help = "Every row of every table is copied as it is: raw lines byte for byte, answers with their reviewers and times, ids kept. The destination must hold no lines yet (a file that does not exist, or a schema with no ledger: ?schema=NAME). The copy is one transaction (a copy that stops leaves nothing) and is checked before it is said to be done.

The database role that wrote each answer, owner assignment, request, withdrawal and saved view (written_by) goes into a file as the server recorded it. A PostgreSQL server sets it itself on every such row written into it, whatever a client sends: a copy into PostgreSQL records the role that ran the copy, the role that wrote those rows into that ledger (a file's own rows have none to bring). Examples:\n  jobledger copy --from jobledger.db --to postgres://ana@db.example/ops\n  jobledger copy --from postgres://ana@db.example/ops --to snapshot.db"
    )]
    Copy {
        /// The ledger copied: a file or a postgres:// URL
        #[arg(long, value_name = "LEDGER")]
        from: PathBuf,
        /// The new ledger: a file or a postgres:// URL
        #[arg(long, value_name = "LEDGER")]
        to: PathBuf,
    },
    /// The SQL of a team ledger's three PostgreSQL roles (reader, reviewer, ingester):
    /// printed, or applied with --apply
    #[command(
        after_help = "Grant a role to each person's or service's own login role (GRANT jobledger_reviewer TO ana;): every row a person writes records the role that wrote it. A console opened by a role that may not write says READ-ONLY. The SQL is also in assets/postgres-roles.sql."
    )]
    Roles {
        /// Run the SQL on the --db server (as a role allowed to create roles and grant
        /// on the ledger's schema) instead of printing it
        #[arg(long)]
        apply: bool,
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
        /// With --stream-only: time (as a ledger meets it, callbacks up to three days
        /// late), shuffled (all jobs' events in random order, each job's in order) or
        /// local (each job's events together)
        #[arg(
            long,
            requires = "stream_only",
            default_value = "time",
            value_name = "ORDER"
        )]
        order: StreamOrder,
        /// Who answers in the console [default: env JOBLEDGER_REVIEWER, else the login name]
        #[arg(long, value_name = "NAME")]
        reviewer: Option<String>,
        /// Open the console in the guided tour of the booking afternoon: each step moves
        /// the console to what it says (→ or Space next, ← back, Esc leaves the tour and
        /// keeps the console; T in the console walks through it again)
        #[arg(long, conflicts_with_all = ["print", "jobs"])]
        tour: bool,
    },
}

/// `request retry|cancel JOB [--by NAME]`, or `request withdraw ID`.
#[derive(Debug, Subcommand)]
pub(super) enum RequestCommand {
    /// Ask the outside to run the job again (checked; goes to the outbox)
    Retry(RequestArgs),
    /// Ask the outside to stop the job (checked; goes to the outbox)
    Cancel(RequestArgs),
    /// Take back a pending request before it is sent (append-only: the request stays
    /// in the outbox, marked withdrawn by you, now)
    Withdraw {
        /// The request's id (see `outbox`)
        id: i64,
        /// Why it is taken back, kept beside the withdrawal
        #[arg(long, default_value = "")]
        note: String,
        /// Who withdraws it [default: env JOBLEDGER_REVIEWER, else the login name]
        #[arg(long, visible_alias = "by")]
        reviewer: Option<String>,
        /// Print the withdrawn request as JSON (an `outbox --json` row)
        #[arg(long)]
        json: bool,
    },
}

/// What a retry or cancel names.
#[derive(Debug, clap::Args)]
pub(super) struct RequestArgs {
    /// The job's id
    pub(super) job: String,
    /// Who asks [default: env JOBLEDGER_REVIEWER, else the login name]
    #[arg(long = "reviewer", visible_alias = "by", value_name = "NAME")]
    pub(super) by: Option<String>,
    /// Print the request written as JSON (an `outbox --json` row)
    #[arg(long)]
    pub(super) json: bool,
}

#[derive(Debug, Default, clap::Args)]
pub(super) struct ReviewArgs {
    /// Open with every write disabled
    #[arg(long)]
    pub(super) read_only: bool,
    /// Who answers [default: env JOBLEDGER_REVIEWER, else the login name]
    #[arg(long)]
    pub(super) reviewer: Option<String>,
}

/// What `export` puts in a bundle.
const EXPORT_HELP: &str = "The bundle holds: the case (disposition, timeout, arrival, gap, replacement, whether its question is open), the job and its attempts, the job's callbacks, each callback's raw message as it arrived (control characters made inert; a line longer than 16 KiB cut, with its whole length said), each held callback set side by side with what it conflicts with (the console's comparison, C), the job's timeline, every answer with reviewer, time and note, the owner and its history, and every request made for the job. Times are UTC, with the year. It names no ledger: the same rows give the same bundle from a file or a server.

In the console, e on a callback writes its bundle to jobledger-case-SEQ.md in the current directory (the next free name when that one is taken).

Examples:
  jobledger export 2 -o case-2.md
  jobledger export --job booking-1042 --format json";

/// The exit statuses of `summary`.
const SUMMARY_EXIT: &str = "Exit status: 0 when the summary is printed; with --exit-code, 5 instead when the backlog alarm is raised or a question is open; 1 when the summary could not be read.";

/// The exit statuses of `reconcile`.
const RECONCILE_EXIT: &str = "Exit status: 0 when the report is printed; with --exit-code, 5 instead when it is NOT COMPLETE or a job's divergent decisions have no closing answer (a missing notification alone does not count); 1 when the report could not be read.";

/// `answer`'s two forms: one callback, or every open one a selection keeps.
const ANSWER_USAGE: &str = "jobledger answer <SEQ> --verdict <VERDICT> [OPTIONS]
       jobledger answer [--disposition <DISPOSITION>] [--where <QUERY>] --verdict <VERDICT> [--dry-run | --as-of <ANSWER_ID>] [--expect <N>] [OPTIONS]
       jobledger answer --decisions <JOB> --verdict <VERDICT> [--note <NOTE>] [--seen <ANSWER_ID>] [--json]";

/// What `answer` may be given instead of a callback number: a selection, or a job's
/// divergent decisions.
const ANSWER_WITHOUT_SEQ: [&str; 3] = ["disposition", "query", "decisions"];

/// The flags that select callbacks for a bulk answer instead of naming one: the
/// selection flags of [`BulkArgs`].
const BULK_SELECTION: [&str; 2] = ["disposition", "query"];

/// `answer` without a callback number: every open question the selection keeps
/// (held or quarantined, no closing answer), answered in one transaction.
#[derive(Debug, Default, clap::Args)]
pub(super) struct BulkArgs {
    /// Answer every open callback with this disposition (hold or quarantine)
    #[arg(long, value_enum)]
    pub(super) disposition: Option<Disposition>,
    /// Answer every open callback the query keeps, e.g. 'reason:possible_duplicate_effect
    /// gap>1h' (the console's `/` language; the README lists the fields)
    #[arg(long = "where", value_name = "QUERY", allow_hyphen_values = true)]
    pub(super) query: Option<String>,
    /// Print how many would be answered, the first rows and those left out, and the
    /// command that writes exactly that plan (with --as-of and --expect); write nothing
    #[arg(long, requires = "selection")]
    pub(super) dry_run: bool,
    /// Write only if exactly N callbacks take the verdict when written, rows left out
    /// not counted (as the dry run counted); otherwise write nothing and name the rows
    /// answered since the plan
    #[arg(long, value_name = "N", requires = "selection")]
    pub(super) expect: Option<usize>,
    /// The plan's mark, as the dry run printed it (the newest answer then): a row
    /// another reviewer answered after it is left out and named, as a single answer
    /// over one not seen is refused. Without it, every row another reviewer has
    /// answered is left out and named (no plan showed it); your own answers never are
    #[arg(
        long,
        value_name = "ANSWER_ID",
        requires = "selection",
        conflicts_with = "dry_run"
    )]
    pub(super) as_of: Option<i64>,
}

/// The closed sets the command line takes as values: their stored names are the
/// words on the command line, so the possible values are listed from the set.
macro_rules! value_enum {
    ($($set:ty),+) => {$(
        impl ValueEnum for $set {
            fn value_variants<'a>() -> &'a [Self] {
                &<$set>::ALL
            }

            fn to_possible_value(&self) -> Option<PossibleValue> {
                Some(PossibleValue::new(self.as_str()))
            }
        }
    )+};
}

value_enum!(Disposition, RequestKind);
value_enum!(StreamOrder, Palette, BundleFormat, ListFormat);

fn parse_time(text: &str) -> Result<Timestamp, String> {
    Timestamp::parse(text)
        .ok_or_else(|| format!("{text:?} is not an RFC 3339 time (e.g. 2026-11-27T17:00:00Z)"))
}

/// `--escalate-at`: the console's owner form reads it (a delay is counted from the
/// clock when the owner is written).
fn parse_escalate_at(text: &str) -> Result<EscalationTime, String> {
    EscalationTime::parse(text)?
        .ok_or_else(|| "an empty escalation time; leave out --escalate-at for none".to_owned())
}

fn parse_window(text: &str) -> Result<i64, String> {
    parse_duration(text).ok_or_else(|| format!("{text:?} is not a window such as 15m, 1h or 1d"))
}
