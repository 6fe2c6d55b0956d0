//! The job views: Aged (stuck jobs, for escalation owners) and Failed.

use ratatui::layout::Constraint;
use ratatui::style::Stylize;
use ratatui::text::{Line, Span};

use super::{Column, ListView, inert_span, when, when_or_dash};
use crate::clock::{Timestamp, format_gap};
use crate::console::model::page::FailedItem;
use crate::filter::SortColumn;
use crate::reconcile::AgedJob;
use crate::store::AgedJobRow;

/// A length of time without the sign of a gap: `3h50m`.
fn span_of(seconds: i64) -> String {
    format_gap(seconds)
        .trim_start_matches(['+', '-'])
        .to_owned()
}

fn owner(row: &AgedJobRow, _: Timestamp) -> Line<'_> {
    Line::from(row.owner.as_ref().map_or_else(
        || Span::raw("unowned").light_red().bold(),
        |o| inert_span(&o.owner),
    ))
}

fn escalation(row: &AgedJobRow, now: Timestamp) -> Line<'_> {
    let judged = AgedJob::at(row, now);
    Line::from(match judged.escalate_at {
        _ if judged.overdue => Span::raw("overdue").white().on_red().bold(),
        Some(at) => Span::raw(format!("in {}", span_of(at.seconds_since(now)))),
        None if judged.unowned => Span::raw("nobody will be told").light_red(),
        None => Span::raw("no escalation time").dark_gray(),
    })
}

/// The job's pending requests: `retry pending`, `cancel pending`, both, or nothing.
fn pending(row: &AgedJobRow, _: Timestamp) -> Line<'_> {
    let Some(p) = row.pending else {
        return Line::default();
    };
    let mut said = Vec::new();
    for (n, kind) in [(p.retries, "retry"), (p.cancels, "cancel")] {
        match n {
            0 => {}
            1 => said.push(format!("{kind} pending")),
            n => said.push(format!("{n} {kind}s pending")),
        }
    }
    if said.is_empty() {
        Line::from(Span::raw("-").dark_gray())
    } else {
        Line::from(Span::raw(said.join(", ")).yellow())
    }
}

fn escalates_at(row: &AgedJobRow, now: Timestamp) -> Line<'_> {
    Line::from(when_or_dash(AgedJob::at(row, now).escalate_at, now))
}

/// Open jobs past their expected age, with owner and escalation.
pub(crate) const AGED: ListView<AgedJobRow> = ListView {
    what: "open past their expected age",
    open_what: "still open",
    columns: &[
        Column::<AgedJobRow>::new("job", Constraint::Length(3), |row, _| {
            Line::from(inert_span(&row.job_id))
        })
        .grows(),
        Column::<AgedJobRow>::new("state", Constraint::Length(10), |row, _| {
            Line::from(row.state.as_str())
        }),
        Column::<AgedJobRow>::new("age", Constraint::Length(8), |row, now| {
            Line::from(span_of(AgedJob::at(row, now).age_s))
        }),
        Column::<AgedJobRow>::new("expected", Constraint::Length(8), |row, now| {
            Line::from(span_of(AgedJob::at(row, now).expected_age_s))
        })
        .gives_way(1),
        Column::<AgedJobRow>::new("owner", Constraint::Length(7), owner)
            .grows()
            .gives_way(4)
            .sorts(SortColumn::Owner),
        Column::<AgedJobRow>::new("escalates at", Constraint::Length(14), escalates_at)
            .grows()
            .gives_way(2),
        Column::<AgedJobRow>::new("escalation", Constraint::Length(10), escalation).grows(),
        // What was already asked gives way before who owns the job (the preview keeps
        // both whole).
        Column::<AgedJobRow>::new("request", Constraint::Length(7), pending)
            .grows()
            .gives_way(3),
    ],
    facts: |row, now| {
        vec![
            ("owner", owner(row, now)),
            ("escalates at", escalates_at(row, now)),
            ("request", pending(row, now)),
        ]
    },
    empty: "No job is past its expected age.",
};

fn kind(item: &FailedItem, _: Timestamp) -> Line<'_> {
    Line::from(match item.row.permanent {
        Some(true) => Span::raw("permanent").light_red(),
        Some(false) => Span::raw("transient").yellow(),
        None => Span::raw("unknown").dark_gray(),
    })
}

fn next(item: &FailedItem, _: Timestamp) -> Line<'_> {
    let r = &item.row;
    let left = r.attempts_used < r.attempt_budget;
    Line::from(match (r.permanent, left) {
        (Some(true), _) => Span::raw("review the cause"),
        (_, true) => Span::raw("retry possible").green(),
        (_, false) => Span::raw("budget spent").dark_gray(),
    })
}

fn cause(item: &FailedItem, _: Timestamp) -> Line<'_> {
    Line::from(
        item.row
            .cause
            .as_deref()
            .map_or_else(|| Span::raw("(no cause given)").dark_gray(), inert_span),
    )
}

/// Failed jobs: cause, permanent or transient, attempts used of the budget.
pub(crate) const FAILED: ListView<FailedItem> = ListView {
    what: "failed jobs",
    open_what: "still open",
    columns: &[
        Column::<FailedItem>::new("job", Constraint::Length(3), |item, _| {
            Line::from(inert_span(&item.row.job_id))
        })
        .grows(),
        Column::<FailedItem>::new("failed at", Constraint::Length(14), |item, now| {
            Line::from(when(item.row.failed_at, now))
        })
        .grows()
        .gives_way(2),
        Column::<FailedItem>::new("kind", Constraint::Length(9), kind),
        Column::<FailedItem>::new("attempts", Constraint::Length(8), |item, _| {
            Line::from(format!(
                "{} of {}",
                item.row.attempts_used, item.row.attempt_budget
            ))
        }),
        Column::<FailedItem>::new("next", Constraint::Length(4), next)
            .grows()
            .gives_way(1),
        Column::<FailedItem>::new("cause", Constraint::Fill(1), cause),
    ],
    facts: |item, now| vec![("next", next(item, now)), ("cause", cause(item, now))],
    empty: "No failed jobs.",
};

#[cfg(test)]
mod tests {
    use super::AGED;
    use crate::clock::Timestamp;
    use crate::console::views::table::{Form, fit};
    use crate::decision::JobState;
    use crate::filter::SortColumn;
    use crate::store::{AgedJobRow, JobOrder, OwnerRow};

    #[test]
    fn aged_sorted_by_owner_keeps_the_owner_column_on_a_narrow_screen() {
        let now = Timestamp::parse("2026-11-27T17:00:00Z").expect("time");
        let row = AgedJobRow {
            job_id: "booking-1042".to_owned(),
            state: JobState::Running,
            accepted_at: now.plus_seconds(-7200),
            aged_at: now.plus_seconds(-3600),
            expected_age_s: 3600,
            owner: Some(OwnerRow {
                owner: "ops:a-long-name-for-a-rota-of-escalation-owners".to_owned(),
                escalate_at: None,
                set_by: "lead".to_owned(),
                set_at: now,
                written_by: None,
            }),
            order: JobOrder::At(now),
            pending: None,
        };
        let owner = AGED
            .columns
            .iter()
            .position(|c| c.header == "owner")
            .unwrap();
        let form =
            |sorted| fit(AGED.columns, std::slice::from_ref(&row), now, 60, sorted).forms[owner];
        assert_eq!(form(SortColumn::Ledger), Form::Dropped, "a weak case");
        assert_ne!(form(SortColumn::Owner), Form::Dropped);
    }
}
