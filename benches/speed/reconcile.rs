//! Reconcile: `jobledger reconcile --json` on the large ledger, beside the same
//! report written by hand in SQL and run through the `sqlite3` shell on the same file.

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};
use jobledger::clock::Timestamp;
use jobledger::demo;
use jobledger::reconcile::BACKLOG_WINDOW_S;

use super::measure::{against_shell, have, median, ratio, run_child, thousands};
use super::{Config, Figure};

/// The reconciliation of SPEC sec. 4, as a person would write it for the shell: one
/// section a finding, each headed by its name so the rows can be counted.
fn script(now: Timestamp) -> String {
    let now_text = now.to_ledger_text();
    let since = now.plus_seconds(-BACKLOG_WINDOW_S).to_ledger_text();
    format!(
        "
.print '## accepted'
SELECT count(*) FROM jobs;
.print '## missing_terminal'
SELECT job_id FROM jobs WHERE state IN ('accepted', 'running', 'timed_out') ORDER BY job_id;
.print '## missing_output'
SELECT j.job_id FROM jobs j
  LEFT JOIN outputs o ON o.id = (SELECT max(id) FROM outputs WHERE job_id = j.job_id)
 WHERE j.state IN ('succeeded', 'completed_late')
   AND (o.id IS NULL OR coalesce((SELECT object_exists FROM output_checks k
            WHERE k.job_id = j.job_id AND k.checked_at >= o.stored_at
            ORDER BY k.id DESC LIMIT 1), 1) = 0)
 ORDER BY j.job_id;
.print '## missing_notification'
SELECT job_id FROM jobs j
 WHERE state IN ('succeeded', 'completed_late', 'failed', 'expired', 'cancelled')
   AND NOT EXISTS (SELECT 1 FROM notifications n WHERE n.job_id = j.job_id)
 ORDER BY job_id;
.print '## aged'
SELECT j.job_id, j.state, j.accepted_at, j.expected_age_s, o.owner, o.escalate_at
  FROM jobs j
  LEFT JOIN owner_assignments o ON o.id = (SELECT max(id) FROM owner_assignments WHERE job_id = j.job_id)
 WHERE j.state IN ('accepted', 'running', 'timed_out') AND j.aged_at <= '{now_text}'
 ORDER BY j.aged_at, j.job_id;
.print '## divergent_decisions'
SELECT job_id, group_concat(decision_id || ' ' || action || ' ' || coalesce(route, '-') || ' ' || at, '; ')
  FROM (SELECT job_id, decision_id, action, route, at FROM decisions
         WHERE suppressed = 0 AND job_id IN
               (SELECT job_id FROM decisions WHERE suppressed = 0 GROUP BY job_id HAVING count(*) > 1)
         ORDER BY job_id, at)
 GROUP BY job_id ORDER BY job_id;
.print '## conflicting_submissions'
SELECT j.job_id, j.input_digest, j.model_digest, j.policy_revision,
       group_concat(coalesce(r.input_digest, '-') || ' ' || coalesce(r.model_digest, '-') || ' '
                    || coalesce(r.policy_revision, '-') || ' ' || r.submitted_at, '; ')
  FROM repeated_submissions r JOIN jobs j ON j.job_id = r.job_id
 WHERE r.conflicting = 1 GROUP BY j.job_id ORDER BY j.job_id;
.print '## windows'
SELECT unixepoch(accepted_at) / 3600 * 3600 AS start, state, count(*)
  FROM jobs GROUP BY start, state ORDER BY start, state;
.print '## backlog'
SELECT count(*) FROM callbacks c JOIN input_lines l ON l.seq = c.line_seq
 WHERE c.disposition IN ('hold', 'quarantine')
   AND coalesce(c.arrived_at, l.ingested_at) > '{since}'
   AND coalesce(c.arrived_at, l.ingested_at) <= '{now_text}';
SELECT count(*) FROM answers WHERE answered_at > '{since}' AND answered_at <= '{now_text}';
SELECT count(*) FROM callbacks c
 WHERE c.disposition IN ('hold', 'quarantine')
   AND coalesce((SELECT verdict FROM answers WHERE callback_seq = c.seq ORDER BY id DESC LIMIT 1),
                'needs_remote_check') = 'needs_remote_check';
"
    )
}

/// Rows under each `## name` heading of the shell's output.
fn section_rows(output: &str, name: &str) -> usize {
    output
        .split("## ")
        .find(|s| s.starts_with(name) && s[name.len()..].starts_with('\n'))
        .map_or(0, |s| s.lines().skip(1).filter(|l| !l.is_empty()).count())
}

/// Runs `sqlite3 DB` with `script` on its standard input; returns the wall time.
pub fn shell(db: &Path, script: &str, out: &Path, cache: &Path) -> Result<std::time::Duration> {
    let script_path = cache.join("baseline.sql");
    std::fs::write(&script_path, script)?;
    let mut command = Command::new("sqlite3");
    command
        .arg("-batch")
        .arg(db)
        .arg(format!(".read '{}'", script_path.display()));
    Ok(run_child(command, out)?.wall)
}

pub fn run(config: &Config, ledger: &Path, figures: &mut Vec<Figure>) -> Result<()> {
    let now = demo::demo_now();
    let ours_out = config.cache.join("reconcile-ours.json");
    let shell_out = config.cache.join("reconcile-shell.txt");
    let sql = script(now);
    let sqlite = have("sqlite3");
    let mut ours_times = Vec::new();
    let mut shell_times = Vec::new();
    eprintln!("reconcile: {} runs each", config.reps);
    super::data::warm(ledger)?;
    for _ in 0..config.reps {
        // Alternate, so that drift touches both alike.
        let mut command = Command::new(&config.bin);
        command
            .arg("--db")
            .arg(ledger)
            .args(["--now", demo::DEMO_NOW, "reconcile", "--json"]);
        ours_times.push(run_child(command, &ours_out)?.wall);
        if sqlite {
            shell_times.push(shell(ledger, &sql, &shell_out, &config.cache)?);
        }
    }
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&ours_out)?)
        .context("reading our reconcile --json")?;
    let accepted = report["accepted"].as_u64().unwrap_or(0);
    if sqlite {
        let text = std::fs::read_to_string(&shell_out)?;
        for list in [
            "missing_terminal",
            "missing_output",
            "missing_notification",
            "aged",
            "divergent_decisions",
            "conflicting_submissions",
        ] {
            let ours = report[list].as_array().map_or(0, Vec::len);
            let theirs = section_rows(&text, list);
            if ours != theirs {
                bail!("reconcile: {list} has {ours} jobs, the hand-written SQL {theirs}");
            }
        }
    }
    let ours = median(ours_times);
    let theirs = (!shell_times.is_empty()).then(|| median(shell_times));
    let what = format!("reconcile --json, {} accepted jobs", thousands(accepted));
    let met = theirs.map(|t| ours.as_secs_f64() < 1.0 && ratio(ours, t) <= 1.5);
    let target = "< 1 s and ≤ 1.5 × SQL";
    figures.push(against_shell(what, ours, theirs, target, met));
    Ok(())
}
