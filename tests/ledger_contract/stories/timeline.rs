//! A job's timeline: its whole story, in time order, from every table that tells part.

use jobledger::escalation::set_owner;
use jobledger::outbox::{RequestKind, request, withdraw};
use jobledger::store::{TimelineEntry, TimelineFact};

use super::{seq_of, with_demo_streams};
use crate::location::Location;
use crate::support::fixture::at;

/// One entry in a line: its time of day and what it says.
fn told(entry: &TimelineEntry) -> String {
    use TimelineFact as F;
    let what = match &entry.fact {
        F::Moved {
            from,
            to,
            applied,
            cause,
        } => format!(
            "{} -> {to}{} ({cause})",
            from.map_or("-", |s| s.as_str()),
            if *applied { "" } else { ", kept beside" }
        ),
        F::AttemptStarted {
            attempt,
            created_by,
            timeout_at,
        } => format!(
            "attempt {attempt} started by {created_by}, times out {}",
            timeout_at.map_or("never".to_owned(), |t| t.to_string())
        ),
        F::AttemptTimedOut { attempt } => format!("attempt {attempt} timed out"),
        F::Callback {
            outcome,
            attempt,
            disposition,
            reason,
            ..
        } => format!(
            "callback {} on attempt {}: {disposition} {reason}",
            outcome.map_or("-", |o| o.as_str()),
            attempt.unwrap_or(0)
        ),
        F::Answer {
            verdict, reviewer, ..
        } => format!("answer {verdict} by {reviewer}"),
        F::OwnerSet { owner, set_by, .. } => {
            format!(
                "owner {} set by {set_by}",
                owner.as_deref().unwrap_or("none")
            )
        }
        F::Requested {
            request,
            requested_by,
            status,
            ..
        } => format!("{request} requested by {requested_by} ({status})"),
        F::Withdrawn {
            request,
            withdrawn_by,
            note,
            ..
        } => format!("{request} withdrawn by {withdrawn_by}: {note}"),
        other => format!("{other:?}"),
    };
    format!("{} {what}", &entry.at.to_string()[11..19])
}

/// booking-1042's story: accepted, attempt 1 started and timed out, staff's attempt 2,
/// the held callback on attempt 1; then an owner, a cancel asked and withdrawn, and the
/// answer on the held callback, each in its place in time whichever front end wrote it.
pub fn a_jobs_timeline_tells_its_story_in_time_order(location: &Location) {
    with_demo_streams(location);
    {
        let mut ledger = location.open();
        set_owner(
            &mut ledger,
            "booking-1042",
            "ops:kim",
            None,
            "ops:lead",
            at("2026-11-27T16:10:00Z"),
        )
        .expect("the owner is set");
        let cancel = request(
            &mut ledger,
            RequestKind::Cancel,
            "booking-1042",
            "ops:kim",
            at("2026-11-27T16:20:00Z"),
        )
        .expect("a cancel of a running job is allowed");
        withdraw(
            &mut ledger,
            cancel.id,
            "ops:kim",
            "the hotel confirmed",
            at("2026-11-27T16:30:00Z"),
        )
        .expect("the cancel is withdrawn");
    }
    let seq = seq_of(location, "d-1042-a").to_string();
    location.ok(&[
        "answer",
        &seq,
        "--verdict",
        "single_effect",
        "--reviewer",
        "ann",
    ]);

    let timeline = location.open_read_only().timeline("booking-1042").unwrap();
    let times: Vec<_> = timeline.iter().map(|e| e.at).collect();
    assert!(times.is_sorted(), "in time order: {timeline:#?}");
    let story: Vec<String> = timeline.iter().map(told).collect();
    assert_eq!(
        story,
        [
            "13:10:00 - -> accepted (job_accepted)",
            "13:10:01 accepted -> running (attempt 1 started by system)",
            "13:10:01 attempt 1 started by system, times out 2026-11-27T13:12:01.000Z",
            "13:12:01 running -> timed_out (attempt 1 timed out)",
            "13:12:01 attempt 1 timed out",
            "13:14:30 timed_out -> running (attempt 2 started by staff:maria)",
            "13:14:30 attempt 2 started by staff:maria, times out 2026-11-27T13:16:30.000Z",
            "13:16:45 callback success on attempt 1: hold possible_duplicate_effect",
            "16:10:00 owner ops:kim set by ops:lead",
            "16:20:00 cancel requested by ops:kim (withdrawn)",
            "16:30:00 cancel withdrawn by ops:kim: the hotel confirmed",
            "17:00:00 answer single_effect by ann",
        ],
        "{story:#?}"
    );
}
