//! `answer` without a callback number: a bulk answer over a selection of open
//! questions, planned (`--dry-run`) or written in one transaction (`--expect N`).

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Result, bail};

use super::args::BulkArgs;
use super::open_for_a_person;
use crate::clock::Timestamp;
use crate::report::{self, BulkReport};
use crate::review::Verdict;
use crate::review::bulk::{self, BulkRequest, Selection};
use crate::store::CallbackFilter;

/// The answer given to every selected callback.
pub(super) struct BulkAnswer<'a> {
    pub verdict: &'a str,
    pub note: &'a str,
    pub reviewer: &'a str,
    /// `--job`, which only a single `linked` answer takes.
    pub link_job: Option<&'a str>,
    /// `--seen`, which names the standing answer of one callback.
    pub seen: Option<i64>,
}

/// The callbacks the selection flags keep: open questions only, so that `--expect`
/// counts what is still to answer. The one place the flags become a filter.
fn selection(args: &BulkArgs, now: Timestamp) -> Result<CallbackFilter> {
    let filter = CallbackFilter {
        disposition: args.disposition,
        open: true,
        ..CallbackFilter::default()
    };
    match &args.query {
        None => Ok(filter),
        Some(query) => filter.with_query(query, now).map_err(|e| {
            let message = format!("--where {query:?}: {e}");
            anyhow::anyhow!(crate::inert::inert(&message).into_owned())
        }),
    }
}

/// Plans or writes the bulk answer and prints what came of it.
pub(super) fn run(
    path: &Path,
    answer: &BulkAnswer<'_>,
    args: &BulkArgs,
    now: Timestamp,
    out: &mut impl Write,
) -> Result<ExitCode> {
    if answer.link_job.is_some() {
        bail!(
            "--job goes with `linked`, which names one job per callback: answer each alone (answer SEQ --verdict linked --job JOB)"
        );
    }
    if answer.seen.is_some() {
        bail!(
            "--seen names the standing answer of one callback; a bulk answer checks each row's own as it writes (and leaves out rows a closing answer stands on)"
        );
    }
    let Some(verdict) = Verdict::parse(answer.verdict) else {
        let known: Vec<&str> = Verdict::ALL.iter().map(|v| v.as_str()).collect();
        bail!(
            "`{}` is not a verdict; use one of: {}",
            crate::inert::inert(answer.verdict),
            known.join(", ")
        );
    };
    let filter = selection(args, now)?;
    let mut ledger = open_for_a_person(path)?;
    if args.dry_run {
        let plan = bulk::read_plan(&ledger, Selection::Filter(&filter), verdict)?;
        report::write(
            out,
            &BulkReport::new(&plan, answer.reviewer, None),
            args.json,
        )?;
    } else {
        let request = BulkRequest {
            selection: Selection::Filter(&filter),
            verdict,
            note: answer.note,
            reviewer: answer.reviewer,
            expect: args.expect,
        };
        let written = bulk::answer_bulk(&mut ledger, &request, now)?;
        let said = BulkReport::new(&written.plan, answer.reviewer, Some(&written.answer_ids));
        report::write(out, &said, args.json)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
