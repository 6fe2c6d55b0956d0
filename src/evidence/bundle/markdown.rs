//! The bundle as Markdown, for people: it reads as plain text and renders as a
//! document (GitHub, GitLab, Jira's and most trackers' Markdown).
//!
//! Text that came from outside (ids, payloads, names, notes, raw lines) is made inert
//! ([`crate::inert`]) and is shown literally, never as markup: in a code span or a
//! fenced block, each fenced by more backticks than the text holds in a row, with
//! `|` escaped inside table cells. A raw line longer than the bundle shows is cut,
//! with its whole length said.

use std::fmt::Write as _;

use crate::clock::format_gap;
use crate::decision::ReasonCode;
use crate::evidence::compare::{Comparison, pairs};
use crate::evidence::timeline;
use crate::inert::inert;
use crate::signed::signed;
use crate::store::{AnswerRow, CallbackRow, OutboxRow};

use super::{Bundle, Message, Subject, TIMES};

/// The bundle as a Markdown document.
pub fn markdown(bundle: &Bundle) -> String {
    let mut out = String::new();
    header(&mut out, bundle);
    if let Some(case) = bundle.case() {
        case_section(&mut out, &case.row);
    }
    job_section(&mut out, bundle);
    callbacks_section(&mut out, bundle);
    raw_section(&mut out, bundle);
    comparison_section(&mut out, bundle);
    timeline_section(&mut out, bundle);
    answers_section(&mut out, bundle);
    owner_section(&mut out, bundle);
    requests_section(&mut out, bundle);
    out
}

fn header(out: &mut String, bundle: &Bundle) {
    match &bundle.subject {
        Subject::Callback(seq) => {
            let _ = writeln!(out, "# Evidence bundle: callback #{seq}\n");
            let job = bundle
                .job_id
                .as_deref()
                .map_or_else(|| "no job".to_owned(), |j| format!("job {}", code(j)));
            let _ = writeln!(
                out,
                "Callback #{seq} of {job}, as the ledger holds it at {} UTC.\n",
                TIMES.of(bundle.exported_at)
            );
        }
        Subject::Job(job) => {
            let _ = writeln!(out, "# Evidence bundle: job {}\n", code(job));
            let _ = writeln!(
                out,
                "Job {} and its callbacks, as the ledger holds them at {} UTC.\n",
                code(job),
                TIMES.of(bundle.exported_at)
            );
        }
    }
    out.push_str(
        "Every time is UTC. Text that came from outside (the event stream, the names and\n\
         notes people gave) is shown as the ledger keeps it, with control characters made\n\
         inert (`^[` is an ESC).\n",
    );
}

/// A callback's disposition and whether its question is open, in words.
fn question(row: &CallbackRow) -> String {
    if !row.disposition.waits_for_a_person() {
        return format!("none: `{}` needs no person", row.disposition);
    }
    match &row.answer {
        None => "open, not answered yet".to_owned(),
        Some(a) if a.verdict.closes() => format!(
            "closed by answer {}: `{}` by {} at {}",
            a.id,
            a.verdict,
            code(&signed(&a.reviewer, a.written_by.as_deref())),
            TIMES.of(a.answered_at)
        ),
        Some(a) => format!(
            "open: answer {}, `{}` by {} at {}, leaves it open",
            a.id,
            a.verdict,
            code(&signed(&a.reviewer, a.written_by.as_deref())),
            TIMES.of(a.answered_at)
        ),
    }
}

fn case_section(out: &mut String, row: &CallbackRow) {
    out.push_str("\n## The case\n\n");
    let delivery = row.delivery_id.as_deref().map_or_else(
        || "no delivery id".to_owned(),
        |d| format!("delivery {}", code(d)),
    );
    let _ = writeln!(
        out,
        "- Callback: #{}, {delivery}, input line {}",
        row.seq, row.line_seq
    );
    let outcome = row.outcome.map_or("no valid outcome", |o| o.as_str());
    let attempt = row
        .attempt
        .map_or_else(|| "no attempt".to_owned(), |a| format!("attempt {a}"));
    let job = row
        .job_id
        .as_deref()
        .map_or_else(|| "no job".to_owned(), |j| format!("job {}", code(j)));
    let _ = writeln!(out, "- Reports: `{outcome}` for {attempt} of {job}");
    let _ = writeln!(
        out,
        "- Disposition: {}, `{}`",
        row.disposition.as_str(),
        row.reason
    );
    if let Some(detail) = &row.detail {
        let _ = writeln!(out, "- Detail: {}", code(detail));
    }
    if let Some(first) = row.first_report_seq {
        let _ = writeln!(out, "- Repeats: callback #{first}, the first of this claim");
    }
    if let Some(from) = row.linked_from_seq {
        let _ = writeln!(
            out,
            "- Linked: judged again from callback #{from}, by a `linked` answer"
        );
    }
    if let Some(timeout) = row.timeout_at {
        let _ = writeln!(out, "- Timeout of the attempt: {}", TIMES.of(timeout));
    }
    if let Some(arrived) = row.arrived_at {
        let gap = row.timeout_at.map_or_else(String::new, |timeout| {
            let gap = arrived.seconds_since(timeout);
            let side = if gap >= 0 { "after" } else { "before" };
            format!(", {} {side} the timeout", format_gap(gap))
        });
        let _ = writeln!(out, "- Arrival: {}{gap}", TIMES.of(arrived));
    }
    if let Some(r) = &row.replacement {
        let _ = writeln!(
            out,
            "- Replacement: attempt {}, started by {} at {}",
            r.attempt,
            code(&r.created_by),
            TIMES.of(r.started_at)
        );
    }
    let _ = writeln!(out, "- Question: {}", question(row));
}

fn job_section(out: &mut String, bundle: &Bundle) {
    out.push_str("\n## The job\n\n");
    let Some(job) = &bundle.job else {
        match &bundle.job_id {
            Some(id) => {
                let _ = writeln!(
                    out,
                    "The callback names job {}, which is not in the ledger: there is no timeline, owner or request to show.",
                    code(id)
                );
            }
            None => out.push_str(
                "The callback names no job: there is no timeline, owner or request to show.\n",
            ),
        }
        return;
    };
    let _ = writeln!(
        out,
        "- State: `{}` since {}",
        job.state,
        TIMES.of(job.state_changed_at)
    );
    let timeout = job.timeout_s.map_or_else(
        || "no timeout".to_owned(),
        |t| format!("timeout {}", gap_of(t)),
    );
    let _ = writeln!(
        out,
        "- Accepted: {}; {timeout}, expected age {}, attempt budget {}",
        TIMES.of(job.accepted_at),
        gap_of(job.expected_age_s),
        job.attempt_budget
    );
    let shown = |v: &Option<String>| v.as_deref().map_or_else(|| "-".to_owned(), code);
    let _ = writeln!(
        out,
        "- Identity: input {}, model {}, policy {}",
        shown(&job.input_digest),
        shown(&job.model_digest),
        shown(&job.policy_revision)
    );
    if let Some(result) = &job.result_ref {
        let _ = writeln!(out, "- Result: {}", code(result));
    }
    if let Some(cause) = &job.failure_cause {
        let permanent = if job.failure_permanent == Some(true) {
            " (permanent)"
        } else {
            ""
        };
        let _ = writeln!(out, "- Failure: {}{permanent}", code(cause));
    }
    let output = &bundle.output;
    let _ = match &output.reference {
        None => writeln!(out, "- Output: none on record"),
        Some(reference) => {
            let kept = output
                .retention_until
                .map_or_else(String::new, |t| format!(", kept until {}", TIMES.of(t)));
            let check = match output.last_check_exists {
                None => "",
                Some(true) => "; last check: exists",
                Some(false) => "; last check: MISSING",
            };
            writeln!(out, "- Output: {}{kept}{check}", code(reference))
        }
    };
    out.push_str("\n| attempt | started | by | timeout | state |\n|---|---|---|---|---|\n");
    for a in &bundle.attempts {
        let timeout = match (a.timeout_at, a.timed_out_at) {
            (_, Some(at)) => format!("timed out {}", TIMES.of(at)),
            (Some(due), None) => format!("due {}", TIMES.of(due)),
            (None, None) => "none".to_owned(),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {timeout} | {} |",
            a.attempt,
            TIMES.of(a.started_at),
            cell(&a.created_by),
            a.state
        );
    }
}

fn callbacks_section(out: &mut String, bundle: &Bundle) {
    out.push_str("\n## Callbacks of the job\n\n");
    if bundle.messages.is_empty() {
        out.push_str("No callback on record for the job.\n");
        return;
    }
    if bundle.more_messages {
        let _ = writeln!(
            out,
            "The first {} of the job's callbacks (the ledger holds more).\n",
            bundle.messages.len()
        );
    }
    out.push_str(
        "| # | attempt | outcome | arrived | gap | disposition | reason | answer |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    let case = bundle.case().map(|m| m.row.seq);
    for m in &bundle.messages {
        let r = &m.row;
        let seq = if Some(r.seq) == case {
            format!("**{}** (this case)", r.seq)
        } else {
            r.seq.to_string()
        };
        let gap = r
            .arrived_at
            .zip(r.timeout_at)
            .map_or_else(|| "-".to_owned(), |(a, t)| format_gap(a.seconds_since(t)));
        let answer = r.answer.as_ref().map_or_else(
            || "-".to_owned(),
            |a| {
                format!(
                    "`{}` by {}",
                    a.verdict,
                    cell(&signed(&a.reviewer, a.written_by.as_deref()))
                )
            },
        );
        let _ = writeln!(
            out,
            "| {seq} | {} | {} | {} | {gap} | {} | {} | {answer} |",
            r.attempt.map_or_else(|| "-".to_owned(), |a| a.to_string()),
            r.outcome.map_or("-", |o| o.as_str()),
            r.arrived_at.map_or_else(|| "-".to_owned(), |t| TIMES.of(t)),
            r.disposition,
            r.reason
        );
    }
}

fn raw_section(out: &mut String, bundle: &Bundle) {
    out.push_str("\n## Raw messages\n");
    if bundle.messages.is_empty() {
        out.push_str("\nNo callback, so no message.\n");
    }
    for m in &bundle.messages {
        raw_message(out, m);
    }
}

fn raw_message(out: &mut String, m: &Message) {
    let Some(raw) = &m.raw else {
        let _ = writeln!(
            out,
            "\n### Callback #{}\n\nIts line {} is not in the ledger.",
            m.row.seq, m.row.line_seq
        );
        return;
    };
    let _ = write!(
        out,
        "\n### Callback #{} · input line {} · {} bytes\n\n",
        m.row.seq, raw.line_seq, raw.len
    );
    let (text, utf8) = raw.text();
    if raw.cut() {
        // A line over the ingest's limit was kept as its first bytes alone.
        let kept = if m.row.reason == ReasonCode::Oversized {
            "the ledger kept only its first bytes and the SHA-256 of the whole (it was over the ingest's line limit)"
        } else {
            "the ledger keeps the whole line"
        };
        let _ = writeln!(
            out,
            "The line is {} bytes long: its first {} bytes are shown; {kept}.\n",
            raw.len,
            raw.bytes.len()
        );
    }
    if !utf8 {
        out.push_str("The line is not UTF-8: each byte outside it is written `\\xNN`.\n\n");
    }
    let json = !raw.cut() && serde_json::from_slice::<serde::de::IgnoredAny>(&raw.bytes).is_ok();
    fenced(out, if json { "json" } else { "text" }, &inert(&text));
}

fn comparison_section(out: &mut String, bundle: &Bundle) {
    out.push_str("\n## Side by side\n");
    if bundle.comparisons.is_empty() {
        let said = match bundle.case() {
            Some(case) => format!(
                "\nThe comparison sets a held callback beside what it conflicts with; callback #{} was given `{}`.\n",
                case.row.seq, case.row.disposition
            ),
            None => "\nNo callback of the job is held: there is nothing to set side by side.\n"
                .to_owned(),
        };
        out.push_str(&said);
    }
    for c in &bundle.comparisons {
        comparison(out, c);
    }
}

fn comparison(out: &mut String, c: &Comparison) {
    let held = c.held_side(TIMES);
    let _ = write!(
        out,
        "\n### Held callback #{}\n\nBeside it: {}",
        c.held.row.seq,
        code(&c.reading())
    );
    if let Some(gap) = c.gap() {
        let _ = write!(out, "\n\nIt arrived {gap}.");
    }
    out.push('\n');
    let counterparts = c.counterparts(TIMES);
    if counterparts.is_empty() {
        out.push_str(
            "\nNothing on record conflicts with it: no other report, attempt or terminal record.\n",
        );
    }
    for side in &counterparts {
        // The titles are the comparison's own words (numbers and relations).
        let _ = writeln!(
            out,
            "\n| field | {} | {} | |\n|---|---|---|---|",
            held.title, side.title
        );
        for pair in pairs(&held, side) {
            let value = |v: &Option<String>| v.as_deref().map_or_else(|| "—".to_owned(), cell);
            let mark = if pair.differs {
                "≠"
            } else if pair.same {
                "="
            } else {
                ""
            };
            let _ = writeln!(
                out,
                "| {} | {} | {} | {mark} |",
                cell(&pair.name),
                value(&pair.held),
                value(&pair.theirs)
            );
        }
    }
}

fn timeline_section(out: &mut String, bundle: &Bundle) {
    out.push_str("\n## Timeline of the job\n\n");
    if bundle.timeline.is_empty() {
        out.push_str("Nothing on record.\n");
        return;
    }
    let mut text = String::new();
    for (at, line) in timeline::lines(&bundle.timeline, TIMES) {
        let _ = writeln!(text, "{}  {}", TIMES.of(at), inert(&line));
    }
    fenced(out, "text", text.trim_end());
}

fn answers_section(out: &mut String, bundle: &Bundle) {
    out.push_str("\n## Answers\n\n");
    let decisions = bundle.decision_answers();
    if bundle.answers.is_empty() && decisions.is_empty() {
        out.push_str("No answer on record.\n");
        return;
    }
    out.push_str("| answer | on | verdict | by | at | note |\n|---|---|---|---|---|---|\n");
    for a in &bundle.answers {
        let _ = writeln!(
            out,
            "| {} | callback #{} | {} | {} | {} | {} |",
            a.id,
            a.callback_seq,
            verdict(a),
            cell(&signed(&a.reviewer, a.written_by.as_deref())),
            TIMES.of(a.answered_at),
            note(&a.note)
        );
    }
    for d in &decisions {
        let _ = writeln!(
            out,
            "| - | the job's decisions | `{}` | {} | {} | {} |",
            d.verdict,
            cell(&signed(d.reviewer, d.written_by)),
            TIMES.of(d.at),
            note(d.note)
        );
    }
}

fn verdict(a: &AnswerRow) -> String {
    match &a.linked_job_id {
        Some(job) => format!("`{}` to job {}", a.verdict, cell(job)),
        None => format!("`{}`", a.verdict),
    }
}

fn note(note: &str) -> String {
    if note.is_empty() {
        "-".to_owned()
    } else {
        cell(note)
    }
}

fn owner_section(out: &mut String, bundle: &Bundle) {
    out.push_str("\n## Owner\n\n");
    if bundle.job.is_none() {
        out.push_str("No job: no owner.\n");
        return;
    }
    match &bundle.owner {
        None => out.push_str("Nobody owns the job.\n"),
        Some(o) => {
            let escalate = o.escalate_at.map_or_else(
                || "no escalation time".to_owned(),
                |t| {
                    let overdue = if t <= bundle.exported_at {
                        " (overdue)"
                    } else {
                        ""
                    };
                    format!("escalates at {}{overdue}", TIMES.of(t))
                },
            );
            let _ = writeln!(
                out,
                "{} owns the job, {escalate}; set by {} at {}.",
                code(&o.owner),
                code(&signed(&o.set_by, o.written_by.as_deref())),
                TIMES.of(o.set_at)
            );
        }
    }
    let history = bundle.owner_history();
    if history.is_empty() {
        return;
    }
    out.push_str("\n| at | owner | escalates at | set by |\n|---|---|---|---|\n");
    for change in history {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            TIMES.of(change.at),
            change.owner.map_or_else(|| "cleared".to_owned(), cell),
            change
                .escalate_at
                .map_or_else(|| "-".to_owned(), |t| TIMES.of(t)),
            cell(&signed(change.set_by, change.written_by))
        );
    }
}

fn requests_section(out: &mut String, bundle: &Bundle) {
    out.push_str("\n## Requests\n\n");
    if bundle.requests.is_empty() {
        out.push_str("No request to the outside was made for this job.\n");
        return;
    }
    out.push_str(
        "| id | request | attempt | asked by | at | status |\n|---|---|---|---|---|---|\n",
    );
    for r in &bundle.requests {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            r.id,
            r.request,
            r.attempt.map_or_else(|| "-".to_owned(), |a| a.to_string()),
            cell(&signed(&r.requested_by, r.written_by.as_deref())),
            TIMES.of(r.requested_at),
            status(r)
        );
    }
}

fn status(r: &OutboxRow) -> String {
    match &r.withdrawal {
        None => r.status.to_string(),
        Some(w) => {
            let why = if w.note.is_empty() {
                String::new()
            } else {
                format!(": {}", cell(&w.note))
            };
            format!(
                "withdrawn by {} at {}{why}",
                cell(&signed(&w.withdrawn_by, w.written_by.as_deref())),
                TIMES.of(w.withdrawn_at)
            )
        }
    }
}

/// A duration in seconds as a reviewer reads it: `2m00s`, `1h00m`.
fn gap_of(seconds: i64) -> String {
    format_gap(seconds).trim_start_matches('+').to_owned()
}

/// The longest run of backticks in `text`.
fn longest_backtick_run(text: &str) -> usize {
    text.split(|c| c != '`').map(str::len).max().unwrap_or(0)
}

/// `text`, made inert, as a code span: shown literally, whatever it holds.
fn code(text: &str) -> String {
    let text = inert(text);
    if text.trim().is_empty() {
        // A code span of spaces alone, or of nothing, shows nothing: say it.
        return format!("(\"{text}\")");
    }
    let ticks = "`".repeat(longest_backtick_run(&text) + 1);
    // A span that begins or ends with a backtick needs a space inside its fence.
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

/// `text` as a table cell: a code span whose `|` cannot end the cell.
fn cell(text: &str) -> String {
    code(text).replace('|', "\\|")
}

/// `text` (inert already) as a fenced block, fenced by more backticks than any run in it.
fn fenced(out: &mut String, info: &str, text: &str) {
    let ticks = "`".repeat(longest_backtick_run(text).max(2) + 1);
    let _ = writeln!(out, "{ticks}{info}\n{text}\n{ticks}");
}

#[cfg(test)]
mod tests {
    use super::{cell, code, fenced};

    #[test]
    fn outside_text_is_a_code_span_that_holds_any_backticks_and_pipes() {
        assert_eq!(code("booking-1042"), "`booking-1042`");
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x``"), "``` `x`` ```");
        assert_eq!(code("[click](http://x)"), "`[click](http://x)`");
        assert_eq!(code("esc\u{1b}[2J\nnext"), "`esc^[[2J^Jnext`");
        assert_eq!(code(""), "(\"\")");
        assert_eq!(cell("a|b"), "`a\\|b`");
    }

    #[test]
    fn a_fence_is_longer_than_any_run_of_backticks_inside() {
        let mut out = String::new();
        fenced(&mut out, "text", "```\nnot the end");
        assert_eq!(out, "````text\n```\nnot the end\n````\n");
    }
}
