//! The command line's queries on the large ledger: `callbacks --json` under a fixed
//! set of `--where` queries, with and without `--disposition hold`, each beside
//! hand-written SQL asking the `sqlite3` shell (in its JSON mode) for the same rows.
//!
//! The hand-written SQL is what a person who knows the schema writes, having tried the
//! plans there are: it reads the index that serves each term best (the trigram index
//! of callbacks' text for ids, makers and bare words; a range of the held list's gap
//! index for a gap few held callbacks have) and gives every column the report shows,
//! the standing answer and claim included. Both sides must give the same number of
//! rows, or the run fails.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use jobledger::decision::Verdict;
use jobledger::demo;

use super::measure::{have, median, ratio, run_child, show, thousands};
use super::{Config, Figure};

/// The held list, as the shell reads it.
const HELD: &str = "c.disposition = 'hold'";

/// A gap term on the held list, in the expression `callbacks_review_by_gap` keeps,
/// so that the index's range serves it.
const GAP_KEY: &str =
    "coalesce(round((julianday(c.arrived_at) - julianday(c.timeout_at)) * 86400.0, 3), -1e15)";

/// A gap term on all callbacks, which no index keeps.
const GAP: &str = "round((julianday(c.arrived_at) - julianday(c.timeout_at)) * 86400.0, 3)";

/// Callbacks whose job id contains `123456`, through the trigram index.
const JOB_123456: &str = "c.seq IN (SELECT rowid FROM callback_text
        WHERE callback_text MATCH '{job} : (\"123\" \"234\" \"345\" \"456\")')
    AND c.job_id LIKE '%123456%'";

/// Callbacks whose replacement was made by someone named `staff`, through the index.
const BY_STAFF: &str = "c.seq IN (SELECT rowid FROM callback_text
        WHERE callback_text MATCH '{by} : (\"sta\" \"taf\" \"aff\")')
    AND c.replacement_created_by LIKE '%staff%'";

/// One query of the table: the command's arguments after `callbacks --json`, and the
/// hand-written SQL's table (with the index it reads, if named) and condition.
struct CliQuery {
    args: &'static [&'static str],
    from: &'static str,
    condition: String,
}

fn query(args: &'static [&'static str], condition: impl Into<String>) -> CliQuery {
    CliQuery {
        args,
        from: "callbacks c",
        condition: condition.into(),
    }
}

/// Held and quarantined callbacks with no standing answer that closes them.
fn open_questions() -> String {
    let closing: Vec<String> = Verdict::ALL
        .iter()
        .filter(|v| v.closes())
        .map(|v| format!("'{}'", v.as_str()))
        .collect();
    format!(
        "(c.disposition = 'hold' OR c.disposition = 'quarantine')
         AND (a.verdict IS NULL OR a.verdict NOT IN ({}))",
        closing.join(", ")
    )
}

/// The table's queries: selective ids, substrings, bare words, closed sets,
/// negations, comparisons and combinations, on every callback, on the held list and
/// on the open questions.
fn queries() -> Vec<CliQuery> {
    let week_ago = demo::demo_now().plus_seconds(-7 * 86_400).to_ledger_text();
    vec![
        query(&["--where", "job:123456"], JOB_123456),
        query(
            &["--where", "delivery:d-4242"],
            "c.seq IN (SELECT rowid FROM callback_text
                WHERE callback_text MATCH '{delivery} : (\"d-4\" \"-42\" \"424\" \"242\")')
            AND c.delivery_id LIKE '%d-4242%'",
        ),
        query(
            &["--where", "98765"],
            "c.seq IN (SELECT rowid FROM callback_text
                WHERE callback_text MATCH '{job delivery} : (\"987\" \"876\" \"765\")')
            AND (c.job_id LIKE '%98765%' OR c.delivery_id LIKE '%98765%')",
        ),
        query(&["--where", "by:staff"], BY_STAFF),
        query(
            &["--where", "reason:duplicate"],
            "c.reason = 'possible_duplicate_effect'",
        ),
        query(
            &["--where", "outcome:failure -answered:yes"],
            "c.outcome = 'failure' AND a.id IS NULL",
        ),
        query(&["--where", "gap>5m"], format!("{GAP} > 300")),
        query(&["--disposition", "hold"], HELD),
        query(
            &["--disposition", "hold", "--where", "job:123456"],
            format!("{HELD} AND {JOB_123456}"),
        ),
        query(
            &["--disposition", "hold", "--where", "12345"],
            format!(
                "{HELD} AND c.seq IN (SELECT rowid FROM callback_text
                    WHERE callback_text MATCH '{{job delivery}} : (\"123\" \"234\" \"345\")')
                AND (c.job_id LIKE '%12345%' OR c.delivery_id LIKE '%12345%')"
            ),
        ),
        query(
            &["--disposition", "hold", "--where", "outcome:failure"],
            format!("{HELD} AND c.outcome = 'failure'"),
        ),
        query(
            &["--disposition", "hold", "--where", "reason:duplicate"],
            format!("{HELD} AND c.reason = 'possible_duplicate_effect'"),
        ),
        query(
            &["--disposition", "hold", "--where", "-answered:yes"],
            format!("{HELD} AND a.id IS NULL"),
        ),
        CliQuery {
            args: &["--disposition", "hold", "--where", "gap>1h"],
            from: "callbacks c INDEXED BY callbacks_review_by_gap",
            condition: format!("{HELD} AND {GAP_KEY} > 3600"),
        },
        query(
            &["--disposition", "hold", "--where", "by:staff"],
            format!("{HELD} AND {BY_STAFF}"),
        ),
        // Two thirds of the held list: its rows are read faster in ledger order from
        // the list's own index than looked up one by one from a range of the gap's.
        query(
            &[
                "--disposition",
                "hold",
                "--where",
                "reason:duplicate -answered:yes gap>1m",
            ],
            format!(
                "{HELD} AND c.reason = 'possible_duplicate_effect' AND a.id IS NULL
                 AND {GAP_KEY} > 60"
            ),
        ),
        query(&["--open"], open_questions()),
        // A week of arrivals among the open questions: a range of the index that keeps
        // the review lists by arrival.
        CliQuery {
            args: &["--open", "--where", "age<7d"],
            from: "callbacks c INDEXED BY callbacks_review_by_arrival_time",
            condition: format!(
                "{} AND coalesce(c.arrived_at, '') > '{week_ago}' AND c.arrived_at > '{week_ago}'",
                open_questions()
            ),
        },
    ]
}

/// The hand-written statement of `q`: every column `callbacks --json` shows (the gap
/// worked out, the replacement, the standing answer and the claim standing at `now`),
/// in ledger order.
fn hand_sql(q: &CliQuery, now: &str) -> String {
    format!(
        ".mode json
SELECT c.seq, c.delivery_id, c.job_id, c.attempt, c.outcome, c.arrived_at, c.timeout_at,
       CAST(round((julianday(c.arrived_at) - julianday(c.timeout_at)) * 86400) AS INTEGER) AS gap_s,
       c.disposition, c.reason, c.detail, c.first_report_seq, c.linked_from_seq,
       c.replacement_attempt, c.replacement_created_by, c.replacement_started_at,
       a.id AS answer, a.verdict, a.note, a.reviewer, a.written_by, a.answered_at,
       a.linked_job_id,
       k.reviewer AS claimed_by, k.at AS claimed_at, k.until AS claimed_until,
       k.written_by AS claim_written_by
  FROM {from}
  LEFT JOIN answers a ON a.id = (SELECT max(id) FROM answers WHERE callback_seq = c.seq)
  LEFT JOIN claims k ON k.id = (SELECT max(id) FROM claims WHERE callback_seq = c.seq)
       AND k.action = 'claim' AND k.until > '{now}'
       AND (a.id IS NULL OR a.answered_at < k.at)
 WHERE {condition}
 ORDER BY c.seq;
",
        from = q.from,
        condition = q.condition,
    )
}

/// Rows in a JSON array written by either side (the shell writes nothing at all for
/// no rows).
fn rows_in(path: &Path) -> Result<usize> {
    let text = std::fs::read(path)?;
    if text.iter().all(u8::is_ascii_whitespace) {
        return Ok(0);
    }
    let value: serde_json::Value =
        serde_json::from_slice(&text).with_context(|| format!("reading {}", path.display()))?;
    value
        .as_array()
        .map(Vec::len)
        .with_context(|| format!("{} holds no JSON array", path.display()))
}

/// Times of one query: ours and the shell's, alternating, each side run at least
/// `reps` times and, while a pair takes under a second, on until a second has passed
/// (at most 40 pairs): a few milliseconds apart is noise unless the median is of many.
fn measure(
    config: &Config,
    ledger: &Path,
    q: &CliQuery,
    script: &Path,
    sqlite: bool,
) -> Result<(Duration, Option<Duration>, usize)> {
    let ours_out = config.cache.join("cli-ours.json");
    let shell_out = config.cache.join("cli-shell.json");
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    let started = Instant::now();
    while ours.len() < config.reps
        || (ours.len() < 40 && started.elapsed() < Duration::from_secs(1))
    {
        let mut command = Command::new(&config.bin);
        command
            .arg("--db")
            .arg(ledger)
            .args(["--now", demo::DEMO_NOW, "callbacks", "--json"])
            .args(q.args);
        ours.push(run_child(command, &ours_out)?.wall);
        if sqlite {
            let mut command = Command::new("sqlite3");
            command
                .args(["-readonly", "-batch"])
                .arg(ledger)
                .arg(format!(".read '{}'", script.display()));
            theirs.push(run_child(command, &shell_out)?.wall);
        }
    }
    let rows = rows_in(&ours_out)?;
    if sqlite {
        let theirs = rows_in(&shell_out)?;
        if theirs != rows {
            bail!(
                "callbacks --json {}: {rows} rows from jobledger, {theirs} from the hand-written SQL",
                q.args.join(" ")
            );
        }
    }
    Ok((
        median(ours),
        (!theirs.is_empty()).then(|| median(theirs)),
        rows,
    ))
}

/// `JOBLEDGER_BENCH_CLI_LEDGER` when set: a ledger to measure instead of the
/// generated one (only read, by the command's read-only open and `sqlite3 -readonly`).
pub fn ledger_given() -> Option<PathBuf> {
    std::env::var_os("JOBLEDGER_BENCH_CLI_LEDGER")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// Adds the CLI query table on `ledger`: each query's median beside the hand-written
/// SQL's.
pub fn run(config: &Config, ledger: &Path, figures: &mut Vec<Figure>) -> Result<()> {
    let sqlite = have("sqlite3");
    let now = demo::demo_now().to_ledger_text();
    super::data::warm(ledger)?;
    let script = config.cache.join("cli-hand.sql");
    for q in queries() {
        let shown = q.args.join(" ");
        eprintln!("cli: callbacks --json {shown}");
        std::fs::write(&script, hand_sql(&q, &now))?;
        let (ours, theirs, rows) = measure(config, ledger, &q, &script, sqlite)?;
        let quoted: Vec<String> = q
            .args
            .iter()
            .map(|a| {
                if a.contains([' ', '<', '>']) {
                    format!("'{a}'")
                } else {
                    (*a).to_owned()
                }
            })
            .collect();
        let ratio = theirs.map(|t| ratio(ours, t));
        figures.push(Figure {
            what: format!(
                "cli: `callbacks --json {}` ({} rows)",
                quoted.join(" "),
                thousands(rows as u64)
            ),
            ours: show(ours),
            baseline: theirs.map_or_else(
                || "n/a (no sqlite3 on PATH)".to_owned(),
                |t| format!("{} hand SQL, sqlite3 shell", show(t)),
            ),
            ratio,
            target: "<= 1.5x hand SQL".to_owned(),
            met: ratio.map(|r| r <= 1.5),
        });
    }
    Ok(())
}
