//! The job lists of the review console: keyset pages of aged and of failed jobs with
//! a text filter, and their counts under the filter.
//!
//! Every list is read by keyset, never by OFFSET, along an index holding its whole
//! key; the conditions that decide which jobs are aged or failed are the same as in
//! the counts.

use rusqlite::Row;
use rusqlite::types::Value;

use super::super::closed_sets::OPEN_JOB_J;
use super::super::columns::{aged_from, failed_from};
use super::super::filter::{Column, Columns, condition, query_named};
use super::super::query::Select;
use super::super::{Ledger, StoreError};
use crate::clock::Timestamp;
use crate::filter::{Field, Query, Sort, SortColumn};
use crate::store::{AgedJobRow, FailedJobRow};
use crate::store::{JobKey, JobOrder, PageRequest};

type Result<T> = std::result::Result<T, StoreError>;

/// One job list: which jobs it holds and what it is ordered by.
struct JobList {
    /// The columns shown.
    columns: &'static str,
    /// The joins the columns or the filter need.
    joins: &'static [&'static str],
    /// Which jobs are on the list, `:now` now.
    ///
    /// Every value the list binds has a name: SQLite numbers a `:name` one past the
    /// highest `?N` seen before it, so the query's `:q0` after a `?2` here was the
    /// same parameter as a page key's `?3`, and every page read from a key under a
    /// filter came back empty (the cursor left its row for the list's last page).
    filter: fn() -> String,
    /// How the list's query fields read.
    fields: Columns,
    /// What the list is ordered by, before the job id.
    order: &'static [&'static str],
}

/// The latest owner assignment of each job.
const LATEST_OWNER: &str = "LEFT JOIN owner_assignments o
      ON o.id = (SELECT max(id) FROM owner_assignments WHERE job_id = j.job_id)";

const AGED: JobList = JobList {
    columns: "j.job_id, j.state, j.accepted_at, j.aged_at, j.expected_age_s,
        o.owner, o.escalate_at, o.set_by, o.set_at, o.written_by",
    joins: &[LATEST_OWNER],
    filter: || format!("{} AND j.aged_at <= :now", *OPEN_JOB_J),
    fields: Columns {
        field: aged_field,
        words: &["j.job_id", "j.state", "o.owner"],
        text_index: None,
    },
    order: &["j.aged_at"],
};

fn aged_field(field: Field) -> Option<Column> {
    match field {
        Field::Job => Some(Column::Text("j.job_id")),
        // NULL when nobody owns the job: `owner:none`, never a text to contain.
        Field::Owner => Some(Column::Text("o.owner")),
        Field::Age => Some(Column::AgeOf("j.accepted_at")),
        Field::Escalates => Some(Column::Time("o.escalate_at")),
        _ => None,
    }
}

fn failed_field(field: Field) -> Option<Column> {
    match field {
        Field::Job => Some(Column::Text("j.job_id")),
        Field::Reason => Some(Column::Text("j.failure_cause")),
        Field::Age => Some(Column::AgeOf("j.accepted_at")),
        _ => None,
    }
}

const FAILED: JobList = JobList {
    columns: "j.job_id, j.state_changed_at, j.failure_cause,
        j.failure_permanent, j.latest_attempt, j.attempt_budget, j.accepted_at",
    joins: &[],
    filter: || "j.state = 'failed'".to_owned(),
    fields: Columns {
        field: failed_field,
        words: &["j.job_id", "j.failure_cause"],
        text_index: None,
    },
    order: &["j.accepted_at"],
};

impl JobList {
    /// The jobs on the list that `query` keeps (`sql`, its condition), with `columns`.
    fn select(&self, columns: &'static str, query: Option<String>) -> Select {
        let select = self
            .joins
            .iter()
            .fold(Select::new(columns, "jobs j"), |select, join| {
                select.join(join)
            })
            .filter((self.filter)());
        match query {
            Some(sql) => select.filter(sql),
            None => select,
        }
    }

    /// One page, ordered by `order` (then the job id), the largest first when
    /// `descending`; `key` names the values of the page's key (see [`key_values`]).
    fn page(
        &self,
        page: &PageRequest<JobKey>,
        key: &[String],
        query: Option<String>,
        (order, descending): (&[&str], bool),
    ) -> Select {
        let keyset = &page.keyset;
        let order = [order, &["j.job_id"]].concat();
        let select = match keyset.comparison() {
            // As many values as the key has: a key of another order is refused by
            // SQLite (the rows compared differ in size), never read as one of this.
            Some(op) => self.select(self.columns, query).filter(format!(
                "({}) {} ({})",
                order.join(", "),
                if descending { flipped(op) } else { op },
                key.join(", ")
            )),
            None => self.select(self.columns, query),
        };
        let direction = match (keyset.direction(), descending) {
            ("ASC", true) => "DESC",
            ("DESC", true) => "ASC",
            (direction, _) => direction,
        };
        select.order_by(&order, direction).limit(page.limit)
    }
}

/// The comparison the other way round, for a list read largest first.
fn flipped(op: &'static str) -> &'static str {
    match op {
        ">=" => "<=",
        ">" => "<",
        "<" => ">",
        "<=" => ">=",
        other => other,
    }
}

/// What an Aged list sorted by `column` is ordered by, before the job id: the SQL of
/// [`AgedJobRow::order_for`]. A job nobody owns has a NULL owner, which no row value
/// compares with: a flag puts it last, and its name is read as empty.
fn aged_order(column: SortColumn) -> &'static [&'static str] {
    match column {
        SortColumn::Escalation => &["coalesce(o.escalate_at, '9999-12-31T23:59:59.999Z')"],
        SortColumn::Accepted => &["j.accepted_at"],
        SortColumn::Owner => &["o.owner IS NULL", "coalesce(o.owner, '')", "j.aged_at"],
        _ => &["j.aged_at"],
    }
}

/// A page key's values, as the list's order (see [`aged_order`]) then the job id
/// compare them.
fn key_values((order, job_id): &JobKey) -> Vec<Value> {
    let mut values = match order {
        JobOrder::At(at) => vec![Value::Text(at.to_ledger_text())],
        JobOrder::Owner(owner, aged_at) => vec![
            Value::Integer(owner.is_none().into()),
            Value::Text(owner.clone().unwrap_or_default()),
            Value::Text(aged_at.to_ledger_text()),
        ],
    };
    values.push(Value::Text(job_id.clone()));
    values
}

impl Ledger {
    /// One page of open jobs past their expected age at `now`, ordered by when they aged,
    /// kept when `query` keeps them.
    pub fn aged_jobs_page(
        &self,
        now: Timestamp,
        query: &Query,
        page: &PageRequest<JobKey>,
    ) -> Result<Vec<AgedJobRow>> {
        self.aged_jobs_sorted_page(now, query, Sort::default(), page)
    }

    /// [`Ledger::aged_jobs_page`] sorted by `sort`: the page's key is each row's
    /// [`AgedJobRow::order`], then its id.
    pub fn aged_jobs_sorted_page(
        &self,
        now: Timestamp,
        query: &Query,
        sort: Sort,
        page: &PageRequest<JobKey>,
    ) -> Result<Vec<AgedJobRow>> {
        let order = aged_order(sort.column);
        let mut rows =
            self.job_page(&AGED, now, query, page, (order, sort.descending), aged_from)?;
        for row in &mut rows {
            row.order = row.order_for(sort.column);
        }
        Ok(rows)
    }

    /// One page of failed jobs in order of acceptance (the key's time is `accepted_at`),
    /// kept when `query` keeps them (ages at `now`); each row comes with its key time.
    pub fn failed_jobs_page(
        &self,
        now: Timestamp,
        query: &Query,
        page: &PageRequest<JobKey>,
    ) -> Result<Vec<(FailedJobRow, Timestamp)>> {
        self.job_page(
            &FAILED,
            now,
            query,
            page,
            (FAILED.order, false),
            failed_from,
        )
    }

    fn job_page<T>(
        &self,
        list: &JobList,
        now: Timestamp,
        query: &Query,
        page: &PageRequest<JobKey>,
        order: (&[&str], bool),
        from_row: fn(&Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>> {
        let condition = condition(query, &list.fields, Some(now));
        let key = page.keyset.key().map(key_values).unwrap_or_default();
        let key_names: Vec<String> = (0..key.len()).map(|i| format!(":key_{i}")).collect();
        let sql = list
            .page(page, &key_names, condition.sql.clone(), order)
            .sql();
        let mut rows: Vec<T> = self.run(|c| {
            let mut st = c.prepare_cached(&sql)?;
            let mut named: Vec<(&str, &dyn rusqlite::ToSql)> = vec![(":now", &now)];
            named.extend(
                key_names
                    .iter()
                    .map(String::as_str)
                    .zip(key.iter().map(|v| v as &dyn rusqlite::ToSql)),
            );
            named.extend(condition.named());
            query_named(&mut st, &named, from_row)
        })?;
        if page.keyset.backwards() {
            rows.reverse();
        }
        Ok(rows)
    }

    fn job_list_count(&self, list: &JobList, now: Timestamp, query: &Query) -> Result<i64> {
        let condition = condition(query, &list.fields, Some(now));
        let sql = list.select("count(*)", condition.sql.clone()).sql();
        self.run(|c| {
            let mut st = c.prepare_cached(&sql)?;
            let mut named: Vec<(&str, &dyn rusqlite::ToSql)> = vec![(":now", &now)];
            named.extend(condition.named());
            Ok(query_named(&mut st, &named, |row| row.get(0))?
                .first()
                .copied()
                .unwrap_or(0))
        })
    }

    /// Aged jobs at `now` that `query` keeps.
    pub fn aged_count_matching(&self, now: Timestamp, query: &Query) -> Result<i64> {
        self.job_list_count(&AGED, now, query)
    }

    /// Failed jobs that `query` keeps (ages at `now`).
    pub fn failed_count_matching(&self, now: Timestamp, query: &Query) -> Result<i64> {
        self.job_list_count(&FAILED, now, query)
    }
}
