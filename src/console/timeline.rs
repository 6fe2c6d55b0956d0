//! How the console words a job's timeline: one line of text per fact the ledger
//! gives (see [`TimelineFact`]).

use crate::store::TimelineFact;

/// The line the detail pane shows for `fact`.
pub(crate) fn text(fact: &TimelineFact) -> String {
    match fact {
        TimelineFact::Moved {
            from,
            to,
            applied,
            cause,
        } => {
            let from = from.map_or("-", |s| s.as_str());
            let to = to.as_str();
            if *applied {
                format!("state {from} -> {to} ({cause})")
            } else {
                format!("not applied: {to} asked by {cause}; {from} stands")
            }
        }
        TimelineFact::AttemptStarted {
            attempt,
            created_by,
            timeout_at,
        } => {
            let due = timeout_at.map_or_else(String::new, |t| format!(", due to time out {t}"));
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
        } => {
            let note = if note.is_empty() {
                String::new()
            } else {
                format!(" - {note}")
            };
            format!("answer on #{callback_seq}: {verdict} by {reviewer}{note}")
        }
        TimelineFact::OutputStored {
            reference,
            retention_until,
        } => {
            let kept = retention_until.map_or_else(String::new, |t| format!(" (kept until {t})"));
            format!("output stored: {reference}{kept}")
        }
        TimelineFact::OutputChecked { exists: true } => "output checked: exists".to_owned(),
        TimelineFact::OutputChecked { exists: false } => "output checked: MISSING".to_owned(),
        TimelineFact::NotificationSent { kind } => format!("notification sent: {kind}"),
        TimelineFact::OwnerSet {
            owner,
            set_by,
            escalate_at,
        } => {
            let escalate = escalate_at.map_or_else(String::new, |t| format!(", escalate at {t}"));
            format!("owner {owner} set by {set_by}{escalate}")
        }
        TimelineFact::Requested {
            request,
            requested_by,
            status,
        } => format!("{request} requested by {requested_by} ({status})"),
    }
}

#[cfg(test)]
mod tests {
    use super::text;
    use crate::decision::JobState;
    use crate::store::TimelineFact;

    #[test]
    fn a_move_not_taken_names_the_state_that_stands() {
        let fact = TimelineFact::Moved {
            from: Some(JobState::Succeeded),
            to: JobState::Failed,
            applied: false,
            cause: "worker recorded failure".to_owned(),
        };
        assert_eq!(
            text(&fact),
            "not applied: failed asked by worker recorded failure; succeeded stands"
        );
    }
}
