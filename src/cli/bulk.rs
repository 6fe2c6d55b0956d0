//! `answer` without a callback number: a bulk answer over a selection of open
//! questions, planned (`--dry-run`, which prints the command that writes that plan)
//! or written in one transaction (`--as-of MARK --expect N`).

use std::io::Write;
use std::process::ExitCode;

use anyhow::{Result, bail};

use super::args::BulkArgs;
use super::open_for_a_person;
use crate::clock::{Clock, Timestamp};
use crate::report::{self, BulkReport};
use crate::review::Verdict;
use crate::review::bulk::{self, BulkRequest, Selection};
use crate::store::{CallbackFilter, Location};

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
fn selection(args: &BulkArgs, now: Timestamp, me: &str) -> Result<CallbackFilter> {
    let filter = CallbackFilter {
        disposition: args.disposition,
        open: true,
        ..CallbackFilter::default()
    };
    match &args.query {
        None => Ok(filter),
        Some(query) => filter.with_query(query, now, me).map_err(|e| {
            let message = format!("--where {query:?}: {e}");
            anyhow::anyhow!(crate::inert::inert(&message).into_owned())
        }),
    }
}

/// Plans or writes the bulk answer and prints what came of it (as JSON with `json`).
pub(super) fn run(
    location: &Location,
    answer: &BulkAnswer<'_>,
    args: &BulkArgs,
    json: bool,
    clock: Clock,
    out: &mut impl Write,
) -> Result<ExitCode> {
    if answer.link_job.is_some() {
        bail!(
            "--job goes with `linked`, which names one job per callback: answer each alone (answer SEQ --verdict linked --job JOB)"
        );
    }
    if answer.seen.is_some() {
        bail!(
            "--seen names the standing answer of one callback; a bulk answer is marked with its plan instead: --dry-run prints the command to write it, with --as-of"
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
    let mut ledger = open_for_a_person(location)?;
    let now = super::reading_time(&ledger, clock)?;
    let filter = selection(args, now, answer.reviewer)?;
    if args.dry_run {
        let plan = bulk::read_plan(
            &ledger,
            Selection::Filter(&filter),
            verdict,
            answer.reviewer,
            now,
        )?;
        let command = (!plan.answered.is_empty())
            .then(|| write_command(location, answer, args, plan.as_of, plan.answered.len()));
        report::write(
            out,
            &BulkReport::new(&plan, answer.reviewer, None, command),
            json,
        )?;
    } else {
        let request = BulkRequest {
            selection: Selection::Filter(&filter),
            verdict,
            note: answer.note,
            reviewer: answer.reviewer,
            expect: args.expect,
            as_of: args.as_of,
        };
        let written = bulk::answer_bulk(&mut ledger, &request, now)?;
        let said = BulkReport::new(
            &written.plan,
            answer.reviewer,
            Some(&written.answer_ids),
            None,
        );
        report::write(out, &said, json)?;
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// The command that writes the plan a dry run printed: the same ledger, selection and
/// answer, marked `--as-of` the plan's newest answer and `--expect`ing its count.
fn write_command(
    location: &Location,
    answer: &BulkAnswer<'_>,
    args: &BulkArgs,
    as_of: Option<i64>,
    count: usize,
) -> String {
    let mut words: Vec<String> = vec!["jobledger".into(), "--db".into()];
    // Shown without a server's password: a plan is pasted into tickets and chats.
    words.push(location.to_string());
    words.push("answer".into());
    if let Some(disposition) = args.disposition {
        words.extend(["--disposition".into(), disposition.as_str().into()]);
    }
    if let Some(query) = &args.query {
        words.extend(["--where".into(), query.clone()]);
    }
    words.extend(["--verdict".into(), answer.verdict.into()]);
    if !answer.note.is_empty() {
        words.extend(["--note".into(), answer.note.into()]);
    }
    words.extend(["--reviewer".into(), answer.reviewer.into()]);
    if let Some(mark) = as_of {
        words.extend(["--as-of".into(), mark.to_string()]);
    }
    words.extend(["--expect".into(), count.to_string()]);
    let quoted: Vec<String> = words.iter().map(|word| shell_word(word)).collect();
    quoted.join(" ")
}

/// A word as a POSIX shell reads it back: as it is when it holds nothing the shell
/// acts on, else in single quotes (a quote inside written `'\''`).
fn shell_word(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::shell_word;

    #[test]
    fn a_word_is_quoted_only_when_the_shell_would_act_on_it() {
        assert_eq!(shell_word("single_effect"), "single_effect");
        assert_eq!(shell_word("./ledger.db"), "./ledger.db");
        assert_eq!(shell_word("gap>1h"), "'gap>1h'");
        assert_eq!(shell_word("lee's note"), r"'lee'\''s note'");
        assert_eq!(shell_word(""), "''");
    }
}
