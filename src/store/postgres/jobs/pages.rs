//! Pages of the aged and failed jobs on PostgreSQL, under a query: the SQLite
//! engine's `jobs/pages.rs`, read by keyset along the same key.

use std::sync::LazyLock;

use crate::clock::Timestamp;
use crate::decision::JobState;
use crate::filter::{Field, Query, Sort, SortColumn};
use crate::store::postgres::Ledger;
use crate::store::postgres::columns::{Read, aged_from, failed_from};
use crate::store::postgres::filter::{Column, Columns, Params, condition};
use crate::store::postgres::keyset::{backwards, comparison, direction, key};
use crate::store::postgres::query::Select;
use crate::store::{AgedJobRow, FailedJobRow, JobKey, JobOrder, PageRequest, StoreError};

type Result<T> = std::result::Result<T, StoreError>;

/// One job list: which jobs it holds and what it is ordered by.
struct JobList {
    /// The columns shown.
    columns: &'static str,
    /// The joins the columns or the filter need.
    joins: &'static [&'static str],
    /// Which jobs are on the list, the time bound as `now` (`$1`).
    filter: fn() -> String,
    /// How the list's query fields read.
    fields: Columns,
    /// What the list is ordered by, before the job id.
    order: &'static [&'static str],
}

/// [`Ledger::open_and_not_aged`]'s statement, its states from the closed set.
static OPEN_AND_NOT_AGED: LazyLock<String> = LazyLock::new(|| {
    let names: Vec<String> = JobState::ALL
        .into_iter()
        .filter(|s| s.is_open())
        .map(|s| format!("'jobs.{}'", s.as_str()))
        .collect();
    format!(
        "WITH open (n) AS (SELECT coalesce(sum(n), 0)::bigint FROM ledger_counts
                            WHERE name IN ({}))
         SELECT (SELECT n FROM open),
                (SELECT count(*) FROM (SELECT 1 FROM jobs j WHERE {} AND j.aged_at > $1::text
                                        LIMIT (SELECT n / 2 + 1 FROM open)) younger),
                (SELECT n / 2 + 1 FROM open)",
        names.join(", "),
        open_job_j()
    )
});

/// The latest owner assignment of each job.
const LATEST_OWNER: &str = "LEFT JOIN owner_assignments o
      ON o.id = (SELECT max(id) FROM owner_assignments WHERE job_id = j.job_id)";

/// `(j.state = 'accepted' OR ...)`: an open job, from the closed set.
fn open_job_j() -> String {
    let terms: Vec<String> = JobState::ALL
        .into_iter()
        .filter(|s| s.is_open())
        .map(|s| format!("j.state = '{}'", s.as_str()))
        .collect();
    format!("({})", terms.join(" OR "))
}

const AGED: JobList = JobList {
    columns: "j.job_id, j.state, j.accepted_at, j.aged_at, j.expected_age_s,
        o.owner, o.escalate_at, o.set_by, o.set_at, o.written_by",
    joins: &[LATEST_OWNER],
    filter: || format!("{} AND j.aged_at <= $1::text", open_job_j()),
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
    // `$1` is bound on every list; this one has no use for it.
    filter: || "j.state = 'failed' AND $1::text IS NOT NULL".to_owned(),
    fields: Columns {
        field: failed_field,
        words: &["j.job_id", "j.failure_cause"],
        text_index: None,
    },
    order: &["j.accepted_at"],
};

impl JobList {
    /// The jobs on the list that `query` keeps, with `columns`; `now` bound first.
    fn select(
        &self,
        columns: &'static str,
        now: Timestamp,
        query: &Query,
        params: &mut Params,
    ) -> Select {
        params.bind(now.to_ledger_text());
        let select = self
            .joins
            .iter()
            .fold(Select::new(columns, "jobs j"), |select, join| {
                select.join(*join)
            })
            .filter((self.filter)());
        select.filter_some(condition(query, &self.fields, Some(now), params))
    }

    /// One page, ordered by `order` (then the job id), the largest first when
    /// `descending`.
    fn page(
        &self,
        now: Timestamp,
        query: &Query,
        page: &PageRequest<JobKey>,
        (order, descending): (&[&str], bool),
        params: &mut Params,
    ) -> Select {
        let keyset = &page.keyset;
        let order = [order, &["j.job_id"]].concat();
        let select = self.select(self.columns, now, query, params);
        let select = match (comparison(keyset), key(keyset)) {
            // As many values as the key has: a key of another order is refused by the
            // server (the rows compared differ in size), never read as one of this.
            (Some(op), Some(key)) => {
                let key = bind_key(key, params);
                let op = if descending { flipped(op) } else { op };
                select.filter(format!("({}) {op} ({})", order.join(", "), key.join(", ")))
            }
            _ => select,
        };
        let direction = match (direction(keyset), descending) {
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
/// [`AgedJobRow::order_for`] (the ledger file's, letter for letter; `false` sorts
/// before `true` as SQLite's 0 before 1). A job nobody owns has a NULL owner, which no
/// row value compares with: a flag puts it last, and its name is read as empty. The
/// owner column's collation is "C": names compare by their bytes.
fn aged_order(column: SortColumn) -> &'static [&'static str] {
    match column {
        SortColumn::Escalation => &["coalesce(o.escalate_at, '9999-12-31T23:59:59.999Z')"],
        SortColumn::Accepted => &["j.accepted_at"],
        SortColumn::Owner => &["o.owner IS NULL", "coalesce(o.owner, '')", "j.aged_at"],
        _ => &["j.aged_at"],
    }
}

/// Binds a page key's values, as the list's order (see [`aged_order`]) then the job
/// id compare them; returns their placeholders.
fn bind_key((order, job_id): &JobKey, params: &mut Params) -> Vec<String> {
    let mut key = match order {
        JobOrder::At(at) => vec![format!("{}::text", params.bind(at.to_ledger_text()))],
        JobOrder::Owner(owner, aged_at) => vec![
            format!("{}::boolean", params.bind(owner.is_none())),
            format!("{}::text", params.bind(owner.clone().unwrap_or_default())),
            format!("{}::text", params.bind(aged_at.to_ledger_text())),
        ],
    };
    key.push(format!("{}::text", params.bind(job_id.clone())));
    key
}

impl Ledger {
    /// One page of open jobs past their expected age at `now`, ordered by when they
    /// aged, kept when `query` keeps them.
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

    /// One page of failed jobs in order of acceptance, kept when `query` keeps them
    /// (ages at `now`); each row comes with its key time.
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
        from_row: fn(&postgres::Row) -> Read<T>,
    ) -> Result<Vec<T>> {
        let mut params = Params::new();
        let sql = list.page(now, query, page, order, &mut params).sql();
        let mut rows = self.read_rows(&sql, &params.refs(), from_row)?;
        if backwards(&page.keyset) {
            rows.reverse();
        }
        Ok(rows)
    }

    fn job_list_count(&self, list: &JobList, now: Timestamp, query: &Query) -> Result<i64> {
        let mut params = Params::new();
        let sql = list.select("count(*)", now, query, &mut params).sql();
        let rows = self.rows_of(&sql, &params.refs())?;
        Ok(rows.first().map_or(0, |row| row.get(0)))
    }

    /// The open jobs (kept counts), and those of them not aged yet at `now` counted up
    /// to half of them and one more (the bound, returned last), at one moment (one
    /// statement). See [`crate::store::Ledger::aged_count`].
    pub fn open_and_not_aged(&self, now: Timestamp) -> Result<(i64, i64, i64)> {
        let row = self.row(&OPEN_AND_NOT_AGED, &[&now.to_ledger_text()])?;
        Ok(row.map_or((0, 0, 1), |row| (row.get(0), row.get(1), row.get(2))))
    }

    /// Open jobs past their expected age at `now`.
    pub fn aged_count(&self, now: Timestamp) -> Result<i64> {
        self.job_list_count(&AGED, now, &Query::all(crate::filter::Scope::AgedJobs))
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
