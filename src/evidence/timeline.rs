//! How a job's timeline is worded, in the console and in an evidence bundle alike:
//! one line per event, from the facts the ledger gives (see [`TimelineFact`]); a
//! state move is told with the event that caused it. Times inside a line are written
//! in the form the caller asks ([`TimeForm`]), without the zone: the console's status
//! line, or the document, says they are UTC. A person's row says who wrote it: the
//! name they gave and, on a ledger that knows it, the database role (`ana (as
//! reviewer_ana)`).

use crate::clock::{TimeForm, Timestamp};
use crate::signed::signed;
use crate::store::{TimelineEntry, TimelineFact};

/// The line said for `fact`, its times written in `times`.
pub fn text(fact: &TimelineFact, times: TimeForm) -> String {
    match fact {
        TimelineFact::Moved {
            from,
            to,
            applied,
            cause,
        } => {
            let to = to.as_str();
            match (from, *applied) {
                (None, _) => format!("{to} ({cause})"),
                (Some(from), true) => format!("state {from} -> {to} ({cause})"),
                (Some(from), false) => {
                    format!("not applied: {to} asked by {cause}; {from} stands")
                }
            }
        }
        TimelineFact::AttemptStarted {
            attempt,
            created_by,
            timeout_at,
        } => {
            let due = timeout_at.map_or_else(String::new, |t| {
                format!(", due to time out {}", times.of(t))
            });
            format!("attempt {attempt} started by {created_by}{due}")
        }
        TimelineFact::AttemptTimedOut { attempt } => format!("attempt {attempt} timed out"),
        TimelineFact::Callback {
            seq,
            outcome,
            attempt,
            disposition,
            reason,
        } => format!(
            "callback #{seq} {} for attempt {}: {} ({})",
            outcome.map_or("?", |o| o.as_str()),
            attempt.map_or_else(|| "?".to_owned(), |a| a.to_string()),
            disposition.as_str(),
            reason.as_str()
        ),
        TimelineFact::Answer {
            callback_seq,
            verdict,
            reviewer,
            note,
            written_by,
        } => format!(
            "answer on #{callback_seq}: {verdict} by {}{}",
            signed(reviewer, written_by.as_deref()),
            dash_note(note)
        ),
        TimelineFact::OutputStored {
            reference,
            retention_until,
        } => {
            let kept = retention_until
                .map_or_else(String::new, |t| format!(" (kept until {})", times.of(t)));
            format!("output stored: {reference}{kept}")
        }
        TimelineFact::OutputChecked { exists: true } => "output checked: exists".to_owned(),
        TimelineFact::OutputChecked { exists: false } => "output checked: MISSING".to_owned(),
        TimelineFact::NotificationSent { kind } => format!("notification sent: {kind}"),
        TimelineFact::OwnerSet {
            owner: None,
            set_by,
            written_by,
            ..
        } => format!("owner cleared by {}", signed(set_by, written_by.as_deref())),
        TimelineFact::OwnerSet {
            owner: Some(owner),
            set_by,
            escalate_at,
            written_by,
        } => {
            let escalate =
                escalate_at.map_or_else(String::new, |t| format!(", escalate at {}", times.of(t)));
            format!(
                "owner {owner} set by {}{escalate}",
                signed(set_by, written_by.as_deref())
            )
        }
        TimelineFact::Requested {
            request,
            requested_by,
            status,
            written_by,
        } => format!(
            "{request} requested by {} ({status})",
            signed(requested_by, written_by.as_deref())
        ),
        TimelineFact::Withdrawn {
            request_id,
            request,
            withdrawn_by,
            note,
            written_by,
        } => format!(
            "{request} request {request_id} withdrawn by {}{}",
            signed(withdrawn_by, written_by.as_deref()),
            dash_note(note)
        ),
        TimelineFact::Submitted {
            line_seq,
            input_digest,
            model_digest,
            policy_revision,
            conflicting,
        } => {
            let said = match conflicting {
                None => "first submission",
                Some(false) => "submitted again, same identity (rejected: the first stands)",
                Some(true) => {
                    "submitted again with ANOTHER identity (rejected: conflicting_submission)"
                }
            };
            let shown = |value: &Option<String>| value.as_deref().unwrap_or("-").to_owned();
            format!(
                "{said} on line {line_seq}: input {}, model {}, policy {}",
                shown(input_digest),
                shown(model_digest),
                shown(policy_revision)
            )
        }
        TimelineFact::Decision {
            decision_id,
            action,
            route,
            suppressed,
        } => {
            let route = route
                .as_deref()
                .map_or_else(String::new, |r| format!(" via {r}"));
            let suppressed = if *suppressed {
                " (suppressed: a repeated id, not acted on)"
            } else {
                ""
            };
            format!("decision {decision_id}: {action}{route}{suppressed}")
        }
        TimelineFact::DecisionAnswer {
            verdict,
            reviewer,
            note,
            written_by,
        } => format!(
            "answer on the divergent decisions: {verdict} by {}{}",
            signed(reviewer, written_by.as_deref()),
            dash_note(note)
        ),
    }
}

/// The timeline as the detail pane and the evidence bundle show it: one line per
/// event. A state move that an event caused at the same moment (an attempt started or
/// timed out, a callback applied) is said on that event's line instead of on a line
/// of its own.
pub fn lines(entries: &[TimelineEntry], times: TimeForm) -> Vec<(Timestamp, String)> {
    let mut out = Vec::with_capacity(entries.len());
    let mut i = 0;
    while i < entries.len() {
        let entry = &entries[i];
        let merged = entries
            .get(i + 1)
            .filter(|next| next.at == entry.at)
            .and_then(|next| {
                together(&entry.fact, &next.fact, times)
                    .or_else(|| together(&next.fact, &entry.fact, times))
            });
        if let Some(line) = merged {
            out.push((entry.at, line));
            i += 2;
        } else {
            out.push((entry.at, text(&entry.fact, times)));
            i += 1;
        }
    }
    out
}

/// One line for `event` and the state move it caused, when `moved` is that move
/// (ingest names the event in the move's cause).
fn together(moved: &TimelineFact, event: &TimelineFact, times: TimeForm) -> Option<String> {
    let TimelineFact::Moved {
        from: Some(from),
        to,
        applied: true,
        cause,
    } = moved
    else {
        return None;
    };
    let caused = match event {
        TimelineFact::AttemptStarted {
            attempt,
            created_by,
            ..
        } => *cause == format!("attempt {attempt} started by {created_by}"),
        TimelineFact::AttemptTimedOut { attempt } => {
            *cause == format!("attempt {attempt} timed out")
        }
        TimelineFact::Callback { seq, .. } => cause.starts_with(&format!("callback #{seq}:")),
        _ => false,
    };
    caused.then(|| format!("{}; state {from} -> {to}", text(event, times)))
}

/// A person's note after what they did (` - why`), or nothing.
fn dash_note(note: &str) -> String {
    if note.is_empty() {
        String::new()
    } else {
        format!(" - {note}")
    }
}

#[cfg(test)]
mod tests {
    use super::{lines, text};
    use crate::clock::{TimeForm, Timestamp};
    use crate::decision::JobState;
    use crate::store::{TimelineEntry, TimelineFact};

    fn at(text: &str) -> Timestamp {
        Timestamp::parse(text).unwrap()
    }

    fn entry(time: &str, fact: TimelineFact) -> TimelineEntry {
        TimelineEntry { at: at(time), fact }
    }

    fn moved(from: JobState, to: JobState, cause: &str) -> TimelineFact {
        TimelineFact::Moved {
            from: Some(from),
            to,
            applied: true,
            cause: cause.to_owned(),
        }
    }

    #[test]
    fn a_state_move_is_told_on_the_line_of_the_event_that_caused_it() {
        let timeline = [
            entry(
                "2026-11-27T13:20:00Z",
                TimelineFact::Moved {
                    from: None,
                    to: JobState::Accepted,
                    applied: true,
                    cause: "job_accepted".to_owned(),
                },
            ),
            entry(
                "2026-11-27T13:20:01Z",
                moved(
                    JobState::Accepted,
                    JobState::Running,
                    "attempt 1 started by system",
                ),
            ),
            entry(
                "2026-11-27T13:20:01Z",
                TimelineFact::AttemptStarted {
                    attempt: 1,
                    created_by: "system".to_owned(),
                    timeout_at: Some(at("2026-11-27T13:22:01Z")),
                },
            ),
            entry(
                "2026-11-27T13:22:01Z",
                moved(JobState::Running, JobState::TimedOut, "attempt 1 timed out"),
            ),
            entry(
                "2026-11-27T13:22:01Z",
                TimelineFact::AttemptTimedOut { attempt: 1 },
            ),
            // Same moment, but not what caused the move: two lines.
            entry(
                "2026-11-27T13:30:00Z",
                moved(JobState::TimedOut, JobState::Expired, "job expired"),
            ),
            entry(
                "2026-11-27T13:30:00Z",
                TimelineFact::AttemptTimedOut { attempt: 2 },
            ),
        ];
        let shown: Vec<String> = lines(&timeline, TimeForm::Readable(at("2026-11-27T17:00:00Z")))
            .into_iter()
            .map(|(at, line)| format!("{} {line}", at.short()))
            .collect();
        assert_eq!(
            shown,
            [
                "2026-11-27 13:20:00 accepted (job_accepted)",
                "2026-11-27 13:20:01 attempt 1 started by system, due to time out 11-27 13:22:01; state accepted -> running",
                "2026-11-27 13:22:01 attempt 1 timed out; state running -> timed_out",
                "2026-11-27 13:30:00 state timed_out -> expired (job expired)",
                "2026-11-27 13:30:00 attempt 2 timed out",
            ]
        );
        // A document read long after says the year inside the line too.
        assert_eq!(
            lines(&timeline, TimeForm::Dated)[1].1,
            "attempt 1 started by system, due to time out 2026-11-27 13:22:01; state accepted -> running"
        );
    }

    #[test]
    fn a_persons_row_says_the_role_that_wrote_it_only_where_it_is_known() {
        let now = TimeForm::Readable(at("2026-11-27T17:00:00Z"));
        let answer = |written_by: Option<&str>| TimelineFact::Answer {
            callback_seq: 2,
            verdict: crate::decision::Verdict::SingleEffect,
            reviewer: "ana".to_owned(),
            note: String::new(),
            written_by: written_by.map(str::to_owned),
        };
        assert_eq!(
            text(&answer(None), now),
            "answer on #2: single_effect by ana"
        );
        assert_eq!(
            text(&answer(Some("desk_ana")), now),
            "answer on #2: single_effect by ana (as desk_ana)"
        );
        let owner = TimelineFact::OwnerSet {
            owner: None,
            set_by: "lead".to_owned(),
            escalate_at: None,
            written_by: Some("desk\u{1b}[2J".to_owned()),
        };
        assert_eq!(text(&owner, now), "owner cleared by lead (as desk^[[2J)");
    }

    #[test]
    fn a_move_not_taken_names_the_state_that_stands() {
        let fact = TimelineFact::Moved {
            from: Some(JobState::Succeeded),
            to: JobState::Failed,
            applied: false,
            cause: "worker recorded failure".to_owned(),
        };
        assert_eq!(
            text(&fact, TimeForm::Readable(at("2026-11-27T17:00:00Z"))),
            "not applied: failed asked by worker recorded failure; succeeded stands"
        );
    }
}
