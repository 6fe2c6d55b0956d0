//! A bulk answer of 10,000 open questions in one transaction, beside the same number
//! of answers given one by one through the same write (`review::answer`, a transaction
//! each), on a copy of a generated ledger with enough open questions for both.

use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use jobledger::decision::Verdict;
use jobledger::review::bulk::{self, BulkRequest, Selection};
use jobledger::review::{self, AnswerRequest};
use jobledger::store::{CallbackFilter, Ledger};

use super::measure::{ratio, show, thousands};
use super::{Config, Figure, data};

/// The target: 10,000 answers in one bulk under two seconds.
const TARGET: Duration = Duration::from_secs(2);

/// Measures the bulk answer and its baseline and adds the figure.
pub fn run(config: &Config, figures: &mut Vec<Figure>) -> Result<()> {
    let source = data::ledger(config, config.bulk_jobs)?;
    // Written into: a copy, so that the cached ledger stays as generated.
    let scratch = tempfile::Builder::new()
        .prefix("bulk-")
        .tempdir_in(&config.cache)?;
    let path = scratch.path().join("ledger.db");
    std::fs::copy(&source, &path)?;
    data::warm(&path)?;
    let mut ledger = Ledger::open(&path)?;
    let open = ledger.callback_seqs(&CallbackFilter {
        open: true,
        ..CallbackFilter::default()
    })?;
    let n = config.bulk_rows.min(open.len() / 2);
    if n == 0 {
        bail!(
            "the ledger of {} jobs holds no open question",
            config.bulk_jobs
        );
    }
    let (in_bulk, alone) = (&open[..n], &open[n..2 * n]);
    // needs_remote_check: every kind of question takes it, so every row is written.
    let verdict = Verdict::NeedsRemoteCheck;
    let now = jobledger::demo::demo_now();

    let started = Instant::now();
    let request = BulkRequest {
        selection: Selection::Seqs(in_bulk),
        verdict,
        note: "bench",
        reviewer: "bench",
        expect: Some(n),
        as_of: Some(ledger.newest_answer_id()?),
    };
    let written = bulk::answer_bulk(&mut ledger, &request, now)?;
    let ours = started.elapsed();
    if written.answer_ids.len() != n {
        bail!("the bulk answer wrote {} of {n}", written.answer_ids.len());
    }

    let started = Instant::now();
    for &seq in alone {
        let request = AnswerRequest {
            seq,
            verdict: verdict.as_str(),
            note: "bench",
            reviewer: "bench",
            link_job: None,
            seen_answer: None,
        };
        review::answer(&mut ledger, &request, now)?;
    }
    let baseline = started.elapsed();

    let rows = thousands(n as u64);
    figures.push(Figure {
        what: format!(
            "bulk answer: {rows} open questions in one transaction ({} open in the ledger)",
            thousands(open.len() as u64)
        ),
        ours: show(ours),
        baseline: format!("{} for {rows} answers one by one", show(baseline)),
        ratio: Some(ratio(ours, baseline)),
        target: "< 2 s".to_owned(),
        met: Some(ours < TARGET),
    });
    Ok(())
}
