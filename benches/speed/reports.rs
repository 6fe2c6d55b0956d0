//! The command line's reports on the large ledger: `summary --json` and
//! `callbacks --json --disposition hold`, each beside the same question asked of the
//! `sqlite3` shell in its JSON mode.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};
use jobledger::demo;
use jobledger::reconcile::BACKLOG_WINDOW_S;

use super::measure::{against_shell, have, median, run_child, thousands};
use super::reconcile::shell;
use super::{Config, Figure};

fn summary_sql() -> String {
    let now = demo::demo_now();
    let now_text = now.to_ledger_text();
    let since = now.plus_seconds(-BACKLOG_WINDOW_S).to_ledger_text();
    format!(
        ".mode json
SELECT disposition, count(*) AS n FROM callbacks GROUP BY disposition;
SELECT state, count(*) AS n FROM jobs GROUP BY state;
SELECT count(*) AS outbox FROM outbox o WHERE o.status = 'pending'
   AND NOT EXISTS (SELECT 1 FROM request_withdrawals w WHERE w.request_id = o.id);
SELECT count(*) AS decisions_suppressed FROM decisions WHERE suppressed = 1;
SELECT count(*) AS rejected_events FROM input_lines WHERE status = 'rejected';
SELECT count(*) AS arrivals FROM callbacks c JOIN input_lines l ON l.seq = c.line_seq
 WHERE c.disposition IN ('hold', 'quarantine')
   AND coalesce(c.arrived_at, l.ingested_at) > '{since}'
   AND coalesce(c.arrived_at, l.ingested_at) <= '{now_text}';
SELECT count(*) AS answered FROM answers WHERE answered_at > '{since}' AND answered_at <= '{now_text}';
SELECT count(*) AS open FROM callbacks c
 WHERE c.disposition IN ('hold', 'quarantine')
   AND coalesce((SELECT verdict FROM answers WHERE callback_seq = c.seq ORDER BY id DESC LIMIT 1),
                'needs_remote_check') = 'needs_remote_check';
"
    )
}

const HELD_SQL: &str = ".mode json
SELECT c.seq, c.delivery_id, c.job_id, c.attempt, c.outcome, c.arrived_at, c.timeout_at,
       c.disposition, c.reason, c.detail, c.first_report_seq, c.linked_from_seq,
       r.attempt AS replacement_attempt, r.created_by, r.started_at, r.state,
       a.id AS answer, a.verdict, a.note, a.reviewer, a.answered_at, a.linked_job_id
  FROM callbacks c
  LEFT JOIN attempts r ON r.job_id = c.job_id AND r.attempt = c.replacement_attempt
  LEFT JOIN answers a ON a.id = (SELECT max(id) FROM answers WHERE callback_seq = c.seq)
 WHERE c.disposition = 'hold'
 ORDER BY c.seq;
";

/// One report: ours and the shell's, alternating, medians of `reps`.
fn compare(
    config: &Config,
    ledger: &Path,
    args: &[&str],
    sql: &str,
    name: &str,
) -> Result<(std::time::Duration, Option<std::time::Duration>, usize)> {
    let sqlite = have("sqlite3");
    let ours_out = config.cache.join(format!("{name}-ours.json"));
    let shell_out = config.cache.join(format!("{name}-shell.json"));
    let mut ours = Vec::new();
    let mut theirs = Vec::new();
    for _ in 0..config.reps {
        let mut command = Command::new(&config.bin);
        command
            .arg("--db")
            .arg(ledger)
            .args(["--now", demo::DEMO_NOW])
            .args(args);
        ours.push(run_child(command, &ours_out)?.wall);
        if sqlite {
            theirs.push(shell(ledger, sql, &shell_out, &config.cache)?);
        }
    }
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&ours_out)?)
        .with_context(|| format!("reading our {name}"))?;
    let rows = report.as_array().map_or(0, Vec::len);
    if sqlite && report.is_array() {
        let shell: serde_json::Value = serde_json::from_slice(&std::fs::read(&shell_out)?)
            .with_context(|| format!("reading the shell's {name}"))?;
        let theirs = shell.as_array().map_or(0, Vec::len);
        if theirs != rows {
            bail!("{name}: {rows} rows from jobledger, {theirs} from the shell");
        }
    }
    Ok((
        median(ours),
        (!theirs.is_empty()).then(|| median(theirs)),
        rows,
    ))
}

fn figure(what: String, ours: std::time::Duration, theirs: Option<std::time::Duration>) -> Figure {
    let met = Some(ours.as_secs_f64() < 0.2);
    against_shell(what, ours, theirs, "< 200 ms", met)
}

pub fn run(config: &Config, ledger: &Path, figures: &mut Vec<Figure>) -> Result<()> {
    eprintln!(
        "reports: summary and held callbacks, {} runs each",
        config.reps
    );
    super::data::warm(ledger)?;
    let (ours, theirs, _) = compare(
        config,
        ledger,
        &["summary", "--json"],
        &summary_sql(),
        "summary",
    )?;
    let summary: serde_json::Value =
        serde_json::from_slice(&std::fs::read(config.cache.join("summary-ours.json"))?)?;
    let callbacks = summary["callbacks"].as_u64().unwrap_or(0);
    let jobs: u64 = summary["jobs"].as_object().map_or(0, |m| {
        m.values().filter_map(serde_json::Value::as_u64).sum()
    });
    figures.push(figure(
        format!(
            "summary --json ({} jobs, {} callbacks)",
            thousands(jobs),
            thousands(callbacks)
        ),
        ours,
        theirs,
    ));
    let (ours, theirs, rows) = compare(
        config,
        ledger,
        &["callbacks", "--json", "--disposition", "hold"],
        HELD_SQL,
        "held",
    )?;
    figures.push(figure(
        format!(
            "callbacks --json --disposition hold ({} rows)",
            thousands(rows as u64)
        ),
        ours,
        theirs,
    ));
    Ok(())
}
