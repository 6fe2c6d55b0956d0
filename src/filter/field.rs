//! The fields of the query language, what kind of value each takes, and which lists
//! each applies to.

use std::fmt;

/// A field a term can name (`job:`, `gap>`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, strum::VariantArray)]
pub enum Field {
    /// The job id (contains).
    Job,
    /// The callback's delivery id (contains).
    Delivery,
    /// The reason code, failure cause or rejection reason (contains).
    Reason,
    /// The callback's disposition (one of the closed set).
    Disposition,
    /// The outcome a callback reports (one of the closed set).
    Outcome,
    /// The standing answer's verdict (one of the closed set).
    Verdict,
    /// Who gave the standing answer (contains).
    Reviewer,
    /// The job's latest owner (contains; `owner:none` when there is none).
    Owner,
    /// Whether the callback has an answer at all (`yes`/`no`).
    Answered,
    /// Who started the replacement attempt, or who made a request (contains).
    By,
    /// Arrival minus the attempt's timeout (a duration).
    Gap,
    /// Time since the row began: arrival, acceptance, request, ingest (a duration).
    Age,
    /// When the callback arrived (a time).
    Arrived,
    /// When the attempt reported on timed out (a time).
    Timeout,
    /// When the job's owner escalates it (a time).
    Escalates,
    /// Past its escalation time now (`overdue:yes`), or not (`overdue:no`, a job with
    /// none too): `escalates<now` and its negation.
    Overdue,
}

/// What a field's values are, and so how a term on it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `field:text`, kept when the field contains the text (any case).
    Text,
    /// `field:name`, one of a closed set.
    Closed,
    /// `field:yes` or `field:no`.
    YesNo,
    /// `field>1h` and the like: a signed duration.
    Duration,
    /// `field<2026-11-27T14:00` and the like: a time (UTC).
    Time,
}

impl Field {
    /// Every field, in the order help lists them.
    pub const ALL: &'static [Field] = <Field as strum::VariantArray>::VARIANTS;

    /// The name written before `:` or the comparison.
    pub fn name(self) -> &'static str {
        match self {
            Field::Job => "job",
            Field::Delivery => "delivery",
            Field::Reason => "reason",
            Field::Disposition => "disposition",
            Field::Outcome => "outcome",
            Field::Verdict => "verdict",
            Field::Reviewer => "reviewer",
            Field::Owner => "owner",
            Field::Answered => "answered",
            Field::By => "by",
            Field::Gap => "gap",
            Field::Age => "age",
            Field::Arrived => "arrived",
            Field::Timeout => "timeout",
            Field::Escalates => "escalates",
            Field::Overdue => "overdue",
        }
    }

    /// The field named `name`, in any case, if there is one.
    pub fn named(name: &str) -> Option<Field> {
        Field::ALL
            .iter()
            .copied()
            .find(|f| f.name().eq_ignore_ascii_case(name))
    }

    /// What the field's values are.
    pub fn kind(self) -> Kind {
        match self {
            Field::Job
            | Field::Delivery
            | Field::Reason
            | Field::Reviewer
            | Field::Owner
            | Field::By => Kind::Text,
            Field::Disposition | Field::Outcome | Field::Verdict => Kind::Closed,
            Field::Answered | Field::Overdue => Kind::YesNo,
            Field::Gap | Field::Age => Kind::Duration,
            Field::Arrived | Field::Timeout | Field::Escalates => Kind::Time,
        }
    }

    /// How a term on the field is written, for error messages.
    pub fn usage(self) -> String {
        let name = self.name();
        match self.kind() {
            Kind::Text if self == Field::Owner => {
                format!("{name}:TEXT, or {name}:none for no owner")
            }
            Kind::Text => format!("{name}:TEXT"),
            Kind::Closed => format!("{name}:NAME"),
            Kind::YesNo => format!("{name}:yes or {name}:no"),
            Kind::Duration => format!("{name}>1h, {name}<30m, {name}>=2d or {name}<=90s"),
            Kind::Time => format!(
                "{name}<2026-11-27T14:00, {name}>=2026-11-27 (UTC), {name}<now or {name}<+1h (from now)"
            ),
        }
    }
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Which kind of list a query is for: each has its own fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Scope {
    /// Callbacks (Held, Quarantined, All callbacks; `jobledger callbacks`).
    #[default]
    Callbacks,
    /// Open jobs past their expected age (Aged).
    AgedJobs,
    /// Failed jobs (Failed).
    FailedJobs,
    /// Requests in the outbox (Outbox).
    Requests,
    /// Rejected event lines (Rejected).
    RejectedLines,
    /// The jobs behind a reconciliation finding (Enter on a finding in Reconcile).
    FindingJobs,
}

impl Scope {
    /// The fields a query on this list may name.
    pub fn fields(self) -> &'static [Field] {
        use Field::{Age, By, Escalates, Job, Overdue, Owner, Reason};
        match self {
            // Every field but the last two, `escalates` and `overdue` (a job owner's).
            Scope::Callbacks => &Field::ALL[..Field::ALL.len() - 2],
            Scope::AgedJobs => &[Job, Owner, Age, Escalates, Overdue],
            Scope::FailedJobs => &[Job, Reason, Age],
            Scope::Requests => &[Job, By, Age],
            Scope::RejectedLines => &[Reason, Age],
            Scope::FindingJobs => &[Job, Age],
        }
    }

    /// What a bare word is looked for in, for help and error messages.
    pub fn words(self) -> &'static str {
        match self {
            Scope::Callbacks => "job id, delivery id, reason",
            Scope::AgedJobs => "job id, state, owner",
            Scope::FailedJobs => "job id, cause",
            Scope::Requests => "job id, request, status, who asked",
            Scope::RejectedLines => "reason, event kind, the line",
            Scope::FindingJobs => "job id, state",
        }
    }

    /// The fields as a list to read: `job, delivery, reason`.
    pub fn field_list(self) -> String {
        self.fields()
            .iter()
            .map(|f| f.name())
            .collect::<Vec<_>>()
            .join(", ")
    }
}
