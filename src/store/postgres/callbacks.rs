//! The callbacks family on PostgreSQL: every read of the callback lists (pages in
//! ledger order or sorted, counts, the selections a bulk answer is given), the same
//! rows in the same order as the SQLite engine's `callbacks.rs`.

mod written;

use postgres::Row;

use super::columns::{CALLBACK_SORT_COLUMN, Read, callback_columns, callback_from};
use super::filter::{Column, Columns, Params, TextIndex, condition, text_lookups};
use super::keyset::{backwards, comparison, key};
use super::query::Select;
use super::{Ledger, Writer};
use crate::clock::Timestamp;
use crate::decision::{Disposition, Verdict};
use crate::filter::{Field, Sort, SortColumn};
use crate::store::{
    CallbackFilter, CallbackKey, CallbackRow, Keyset, PageRequest, SortValue, StoreError,
};

type Result<T> = std::result::Result<T, StoreError>;

/// The text terms a statement reads as the list of their rows ([`Params::few_text`]).
type FewText = std::collections::HashSet<String>;

/// A text term the planner expects at most this many rows of is read as the list of
/// them. Listed, its rows are read from the index and the table by each statement
/// (counting 1,316 callbacks so took 1.9-3.4 ms at a million, 14,111 took 19-21 ms);
/// joined, a page's one-row look past its key walked 400,000 rows to find none. The
/// estimates of the suite's searches at a million callbacks were 101 and 201 for ids
/// (1 to 124 rows) and 45,752 for words in tens of thousands of callbacks.
const FEW_TEXT_ROWS: f64 = 2_000.0;

/// Estimates kept per connection at most; all are forgotten past it.
const TEXT_ROWS_KEPT: usize = 256;

/// An estimate is asked again after this long: a console stays open while a ledger
/// grows from a few rows to a million, and the server's statistics follow it.
const TEXT_ROWS_FOR: std::time::Duration = std::time::Duration::from_secs(60);

/// The rows the first line of a plan (`EXPLAIN`'s text) expects, `... rows=101 ...`,
/// when the plan reads them through an index: a plan that reads the whole text table
/// gives none. At 50,000 callbacks the planner read the table whole for a listed term
/// (447 pages, three `LIKE`s a row, which it costs at a fortieth of their time): 14 ms
/// for `staff` in Held, against 1 ms walking the held callbacks with the term joined.
fn rows_through_index(line: &str) -> Option<f64> {
    if !line.contains("Index") && !line.contains("Bitmap") {
        return None;
    }
    let (_, after) = line.split_once(" rows=")?;
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// Callbacks read, in list order.
type Rows = Result<Vec<CallbackRow>>;

/// Lists held or quarantined callbacks only: a review list.
fn is_review(filter: &CallbackFilter) -> bool {
    filter
        .disposition
        .is_some_and(Disposition::waits_for_a_person)
}

/// Needs the standing answer joined: a query on answers. (An open question is asked
/// of the answers without it: [`answer_leaves_open`].)
fn needs_answer(filter: &CallbackFilter) -> bool {
    filter
        .query
        .names(&[Field::Verdict, Field::Reviewer, Field::Answered])
}

/// Arrival minus the attempt's timeout, in seconds (to the millisecond): the
/// migration's `ledger_gap_seconds`, SQLite's julianday expression's values.
const GAP_SECONDS: &str = "ledger_gap_seconds(c.arrived_at, c.timeout_at)";

/// The key a gap-sorted list is ordered by, NULL made a value so that the key
/// compares: the expression of the index `callbacks_review_by_gap`.
const GAP_SORT_KEY: &str = "coalesce(ledger_gap_seconds(c.arrived_at, c.timeout_at), -1e15)";

/// The gap sort key of a callback without a gap: [`GAP_SORT_KEY`]'s `-1e15`, below any
/// gap two times of years 0 to 9999 can have (about 3.2e11 seconds either way).
const GAP_NONE: i64 = -1_000_000_000_000_000;

fn callback_field(field: Field) -> Option<Column> {
    Some(match field {
        Field::Job => Column::IndexedText("c.job_id", "t.job"),
        Field::Delivery => Column::IndexedText("c.delivery_id", "t.delivery"),
        Field::Reason => Column::IndexedText("c.reason", "t.reason"),
        Field::Disposition => Column::Equals("c.disposition"),
        Field::Outcome => Column::Equals("c.outcome"),
        Field::Verdict => Column::Equals("a.verdict"),
        Field::Reviewer => Column::Text("a.reviewer"),
        Field::Answered => Column::Flag("a.id IS NOT NULL"),
        // NULL when nobody owns the job: `owner:none`, never a text to contain.
        Field::Owner => Column::Text(
            "(SELECT owner FROM owner_assignments
                        WHERE job_id = c.job_id ORDER BY id DESC LIMIT 1)",
        ),
        Field::By => Column::IndexedText("c.replacement_created_by", "t.\"by\""),
        // Compared through the key of `callbacks_gap_in_order` (every callback) and
        // `callbacks_review_by_gap` (the review lists), which keep the gap computed.
        Field::Gap => Column::KeyedSeconds {
            expr: GAP_SECONDS,
            key: GAP_SORT_KEY,
            none: GAP_NONE,
        },
        Field::Age => Column::AgeOf("c.arrived_at"),
        Field::Arrived => Column::Time("c.arrived_at"),
        Field::Timeout => Column::Time("c.timeout_at"),
        Field::Escalates | Field::Overdue => return None,
    })
}

/// The fields of a callback list (`c`, with its standing answer `a`).
const CALLBACK_FIELDS: Columns = Columns {
    field: callback_field,
    words: &["c.job_id", "c.delivery_id", "c.reason"],
    // Kept for every callback by whatever keeps it (`text_index.rs`).
    text_index: Some(TextIndex {
        join: "LEFT JOIN callback_text t ON t.seq = c.seq",
        words: &["t.job", "t.delivery", "t.reason"],
        table: "callback_text t",
        key: "t.seq",
        list_key: "c.seq",
    }),
};

/// The value a sorted callback list is ordered by (never NULL, so the key compares):
/// the expressions of the review lists' indexes (migration 001).
fn sort_column(column: SortColumn) -> &'static str {
    match column {
        // A job list's columns are not a callback list's: its own order.
        SortColumn::Ledger | SortColumn::Escalation | SortColumn::Accepted | SortColumn::Owner => {
            "c.seq"
        }
        SortColumn::Gap => GAP_SORT_KEY,
        SortColumn::Arrival => "coalesce(c.arrived_at, '')",
        SortColumn::Timeout => "coalesce(c.timeout_at, '')",
        SortColumn::Reason => "c.reason",
    }
}

/// The sort value as SQLite gives it for the same row: the sequence number an
/// integer, the gap a real (SQLite's `round()` gives one, and so does its `-1e15`),
/// the rest text.
fn sort_value(column: SortColumn, row: &Row, i: usize) -> Read<SortValue> {
    Ok(match column {
        SortColumn::Ledger | SortColumn::Escalation | SortColumn::Accepted | SortColumn::Owner => {
            SortValue::Integer(row.try_get(i)?)
        }
        SortColumn::Gap => SortValue::Real(row.try_get(i)?),
        SortColumn::Arrival | SortColumn::Timeout | SortColumn::Reason => {
            SortValue::Text(row.try_get(i)?)
        }
    })
}

/// Binds a page's sort value as the sort column's SQL type; returns its placeholder.
fn bind_sort_value(params: &mut Params, column: SortColumn, value: &SortValue) -> String {
    match (column, value) {
        (
            SortColumn::Ledger | SortColumn::Escalation | SortColumn::Accepted | SortColumn::Owner,
            SortValue::Integer(n),
        ) => format!("{}::bigint", params.bind(*n)),
        #[allow(clippy::cast_precision_loss)] // as SQLite compares an integer with a real
        (_, SortValue::Integer(n)) => format!("{}::float8", params.bind(*n as f64)),
        (_, SortValue::Real(x)) => format!("{}::float8", params.bind(*x)),
        (_, SortValue::Text(s)) => format!("{}::text", params.bind(s.clone())),
    }
}

/// `(column = 'a' OR column = 'b' ...)`: the dispositions that wait for a person, the
/// condition of the review lists' partial indexes.
fn waiting_c() -> String {
    let terms: Vec<String> = Disposition::ALL
        .into_iter()
        .filter(|d| d.waits_for_a_person())
        .map(|d| format!("c.disposition = '{}'", d.as_str()))
        .collect();
    format!("({})", terms.join(" OR "))
}

/// How a statement asks whether a callback's question is open.
#[derive(Clone, Copy)]
enum OpenAsked<'a> {
    /// Of the standing answer the statement joins as `a` (a page shows its columns).
    ByJoinedAnswer,
    /// Of the answers themselves, up to the one whose id is bound at this placeholder
    /// when there is one: a statement that joins no answer (a count).
    ByAnswers(Option<&'a str>),
}

/// Kept when the callback's standing answer leaves its question open: there is none,
/// or it does not close it.
///
/// A statement without the standing answer (a count, the callbacks a bulk answer is
/// given) asks it as an anti-join: no answer closing the question with no later
/// answer after it. Joined for the question alone, the standing answer was a `max(id)`
/// subquery for every row: counting the open questions under `outcome:failure` among
/// 3,051 held callbacks, all open, called it 3,051 times (2.5 ms, where the rows alone
/// took 0.4 ms); the anti-join reads the closing answers once. A page joins the
/// standing answer for its columns, and reads a page's worth of rows: asked of that,
/// the statement has two tables fewer to plan (0.52 ms to plan against 0.36 ms).
fn answer_leaves_open(asked: OpenAsked<'_>) -> String {
    let closing: Vec<String> = Verdict::ALL
        .iter()
        .filter(|v| v.closes())
        .map(|v| format!("'{}'", v.as_str()))
        .collect();
    let closing = closing.join(", ");
    let as_of = match asked {
        OpenAsked::ByJoinedAnswer => {
            return format!("(a.verdict IS NULL OR a.verdict NOT IN ({closing}))");
        }
        OpenAsked::ByAnswers(as_of) => as_of,
    };
    let (x_as_of, y_as_of) = match as_of {
        Some(as_of) => (
            format!(" AND x.id <= {as_of}::bigint"),
            format!(" AND y.id <= {as_of}::bigint"),
        ),
        None => (String::new(), String::new()),
    };
    format!(
        "NOT EXISTS (SELECT 1 FROM answers x \
                      WHERE x.callback_seq = c.seq{x_as_of} AND x.verdict IN ({closing}) \
                        AND NOT EXISTS (SELECT 1 FROM answers y \
                                         WHERE y.callback_seq = x.callback_seq \
                                           AND y.id > x.id{y_as_of}))"
    )
}

/// The standing answer of each callback.
const STANDING_ANSWER: &str =
    "LEFT JOIN answers a ON a.id = (SELECT max(id) FROM answers WHERE callback_seq = c.seq)";

/// `select` narrowed to the callbacks `filter` keeps, its values bound in `params`:
/// the conditions of every callback list, its pages, counts and selections.
///
/// The disposition is said once, by name: a list of held callbacks is
/// `c.disposition = 'hold'` alone, which implies the review lists' partial indexes'
/// condition in any plan. Said again beside it (the dispositions that wait, then an
/// open question's), the planner multiplied the selectivities as if independent and
/// expected 227 of 3,045 held callbacks, 17 with all three: it planned for a handful
/// of rows, a bitmap scan of every held callback sorted for the page, where the
/// list's index read in order stops when the page is full.
fn kept_by(
    select: Select,
    filter: &CallbackFilter,
    open_asked: OpenAsked<'_>,
    params: &mut Params,
) -> Select {
    let select = match filter.disposition {
        Some(d) => select.filter(format!("c.disposition = '{}'", d.as_str())),
        None => select,
    };
    // An open question waits for a person: said here only when the disposition does
    // not say it already.
    let select = if filter.open && !is_review(filter) {
        select.filter(waiting_c())
    } else {
        select
    };
    let select = if filter.open {
        select.filter(answer_leaves_open(open_asked))
    } else {
        select
    };
    let condition = condition(&filter.query, &CALLBACK_FIELDS, filter.now, params);
    let select = match params.text_join() {
        Some(join) => select.join(join),
        None => select,
    };
    select.filter_some(condition)
}

/// A statement of `columns` over every callback `filter` keeps, with the values it
/// binds: the one statement behind a filter's count and behind the rows a bulk
/// answer is given, so what is counted is what is marked.
fn filtered(filter: &CallbackFilter, columns: &'static str, few_text: FewText) -> (Select, Params) {
    let mut params = Params::new();
    params.few_text = few_text;
    let select = Select::new(columns, "callbacks c");
    // The standing answer when answer `as_of` was the newest (answer ids only grow:
    // the table is append-only).
    // (Bound only when read: a parameter no statement names has no type.)
    let as_of = filter
        .answers_as_of
        .filter(|_| filter.open || needs_answer(filter))
        .map(|as_of| params.bind(as_of));
    let select = match (needs_answer(filter), &as_of) {
        (true, Some(as_of)) => select.join(format!(
            "LEFT JOIN answers a ON a.id = \
             (SELECT max(id) FROM answers WHERE callback_seq = c.seq AND id <= {as_of}::bigint)"
        )),
        (true, None) => select.join(STANDING_ANSWER),
        (false, _) => select,
    };
    let open_asked = if needs_answer(filter) {
        OpenAsked::ByJoinedAnswer
    } else {
        OpenAsked::ByAnswers(as_of.as_deref())
    };
    let select = kept_by(select, filter, open_asked, &mut params);
    (select, params)
}

/// The columns of [`CallbackRow`] and the tables they come from, then `sort` (the
/// value the list is ordered by). The replacement attempt's live state is read only
/// when `attempt_state` is asked for (reports do not show it).
fn callback_select(attempt_state: bool, sort: &str) -> Select {
    callback_select_from(attempt_state, sort, "callbacks c".to_owned())
}

/// [`callback_select`] of the callbacks `from` gives (a table or a subquery, as `c`).
fn callback_select_from(attempt_state: bool, sort: &str, from: String) -> Select {
    let state = if attempt_state { "r.state" } else { "NULL" };
    let select = Select::new(format!("{}, {sort}", callback_columns(state)), from);
    let select = if attempt_state {
        select.join(
            "LEFT JOIN attempts r ON r.job_id = c.job_id AND r.attempt = c.replacement_attempt",
        )
    } else {
        select
    };
    select.join(STANDING_ANSWER)
}

/// A page in ledger order, as a page of the general, sorted kind.
fn by_seq(page: PageRequest<i64>) -> PageRequest<CallbackKey> {
    let key = CallbackKey::in_ledger_order;
    let keyset = match page.keyset {
        Keyset::First => Keyset::First,
        Keyset::Last => Keyset::Last,
        Keyset::From(seq) => Keyset::From(key(seq)),
        Keyset::After(seq) => Keyset::After(key(seq)),
        Keyset::Before(seq) => Keyset::Before(key(seq)),
    };
    PageRequest::at(keyset, page.limit)
}

/// The same comparison, for a list read largest first.
fn descending(op: &'static str) -> &'static str {
    match op {
        ">=" => "<=",
        ">" => "<",
        "<" => ">",
        _ => ">=",
    }
}

/// The statement of one page of a sorted callback list, with its values.
fn sorted_statement(
    attempt_state: bool,
    filter: &CallbackFilter,
    sort: Sort,
    page: &PageRequest<CallbackKey>,
    few_text: FewText,
) -> (String, Params) {
    let keyset = &page.keyset;
    let sort_value = sort_column(sort.column);
    let ledger_order = sort.column == SortColumn::Ledger;
    // Read towards the start of the list (paging up), or of a list largest first.
    let backwards = backwards(keyset) != sort.descending;
    let direction = if backwards { "DESC" } else { "ASC" };
    let op = comparison(keyset).map(|op| if sort.descending { descending(op) } else { op });
    let mut params = Params::new();
    params.few_text = few_text;
    let bound = match (op, key(keyset)) {
        (Some(op), Some(k)) if ledger_order => {
            Some(format!("c.seq {op} {}::bigint", params.bind(k.seq)))
        }
        // `(value, seq) > (:value, :seq)`, written as SQLite's statement writes it.
        (Some(op), Some(k)) => {
            let strict = &op[..1];
            let value = bind_sort_value(&mut params, sort.column, &k.value);
            let seq = params.bind(k.seq);
            Some(format!(
                "{sort_value} {strict}= {value} AND ({sort_value} {strict} {value} OR c.seq {op} {seq}::bigint)"
            ))
        }
        _ => None,
    };
    // The page's rows are chosen, ordered and cut to the page first, and only those
    // are joined to their replacement attempt and standing answer. Joined below the
    // sort, every row a sorted plan reads was: `by:staff gap>5m` in Held, 855 rows
    // sorted for a page of 32, went 5.0 -> 2.1 ms to execute.
    let kept = Select::new(format!("c.*, {sort_value} AS sort_key"), "callbacks c");
    let (kept, open_asked) = if needs_answer(filter) {
        (kept.join(STANDING_ANSWER), OpenAsked::ByJoinedAnswer)
    } else {
        (kept, OpenAsked::ByAnswers(None))
    };
    let kept = match bound {
        Some(bound) => kept.filter(bound),
        None => kept,
    };
    let mut order = vec![sort_value, "c.seq"];
    let mut outer_order = vec!["c.sort_key", "c.seq"];
    if ledger_order {
        order.truncate(1);
        outer_order.truncate(1);
    }
    let kept = kept_by(kept, filter, open_asked, &mut params)
        .order_by(&order, direction)
        .limit(page.limit)
        .sql();
    let sql = callback_select_from(attempt_state, "c.sort_key", format!("({kept}) c"))
        .order_by(&outer_order, direction)
        .sql();
    (sql, params)
}

/// Every callback `filter` keeps, in ingest order: the statement that counts the list.
fn matching_seqs(filter: &CallbackFilter, few_text: FewText) -> (String, Params) {
    let (select, params) = filtered(filter, "c.seq", few_text);
    (select.order_by(&["c.seq"], "ASC").sql(), params)
}

/// The callbacks numbered by the array bound as `$1`, in ingest order.
fn numbered_sql() -> String {
    callback_select(true, "c.seq")
        .filter("c.seq = ANY($1::bigint[])")
        .order_by(&["c.seq"], "ASC")
        .sql()
}

impl Ledger {
    /// One callback with its replacement attempt and standing answer.
    pub fn callback(&self, seq: i64) -> Result<Option<CallbackRow>> {
        let sql = callback_select(true, "NULL")
            .filter("c.seq = $1::bigint")
            .sql();
        Ok(self.read_rows(&sql, &[&seq], callback_from)?.pop())
    }

    /// The first `limit` callbacks of a job, in ingest order.
    pub fn callbacks_of_job(&self, job_id: &str, limit: usize) -> Rows {
        let sql = callback_select(true, "c.seq")
            .filter("c.job_id = $1::text")
            .order_by(&["c.seq"], "ASC")
            .limit(limit)
            .sql();
        self.read_rows(&sql, &[&job_id], callback_from)
    }

    /// One page of callbacks in ingest order.
    pub fn callbacks_page(&self, filter: &CallbackFilter, page: PageRequest<i64>) -> Rows {
        self.workers(false)?;
        self.unsorted(true, filter, page)
    }

    /// Every callback `filter` keeps, in ingest order, as a report lists them (a
    /// replacement attempt comes without its state): handed to `each` a page of up to
    /// `batch` rows at a time. Read by pages in ledger order, each a statement of its
    /// own: a server's planner, with statistics, reads each page by the index that
    /// serves it.
    pub fn callbacks_report<E: From<StoreError>>(
        &self,
        filter: &CallbackFilter,
        batch: usize,
        mut each: impl FnMut(&mut Vec<CallbackRow>) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let batch = batch.max(1);
        self.workers(true)?;
        let mut page = PageRequest::first(batch);
        loop {
            let mut rows = self.unsorted(false, filter, page)?;
            let next = match rows.last() {
                Some(last) if rows.len() == batch => Some(last.seq),
                _ => None,
            };
            if !rows.is_empty() {
                each(&mut rows)?;
            }
            match next {
                Some(seq) => page.keyset = Keyset::After(seq),
                None => return Ok(()),
            }
        }
    }

    fn unsorted(&self, state: bool, filter: &CallbackFilter, page: PageRequest<i64>) -> Rows {
        let rows = self.callbacks_sorted(state, filter, Sort::default(), &by_seq(page))?;
        Ok(rows.into_iter().map(|(row, _)| row).collect())
    }

    /// One page of callbacks in the order `sort` asks, each with the value it is
    /// sorted by.
    pub fn callbacks_sorted_page(
        &self,
        filter: &CallbackFilter,
        sort: Sort,
        page: &PageRequest<CallbackKey>,
    ) -> Result<Vec<(CallbackRow, SortValue)>> {
        self.workers(false)?;
        self.callbacks_sorted(true, filter, sort, page)
    }

    fn callbacks_sorted(
        &self,
        attempt_state: bool,
        filter: &CallbackFilter,
        sort: Sort,
        page: &PageRequest<CallbackKey>,
    ) -> Result<Vec<(CallbackRow, SortValue)>> {
        let few_text = self.few_text(filter)?;
        let (sql, params) = sorted_statement(attempt_state, filter, sort, page, few_text);
        let rows = self.rows_of(&sql, &params.refs())?;
        let mut read = rows
            .iter()
            .map(|row| {
                Ok((
                    callback_from(row)?,
                    sort_value(sort.column, row, CALLBACK_SORT_COLUMN)?,
                ))
            })
            .collect::<Read<Vec<_>>>()
            .map_err(|e| self.err(e))?;
        if backwards(&page.keyset) {
            read.reverse();
        }
        Ok(read)
    }

    /// The text terms of `filter` the planner expects at most [`FEW_TEXT_ROWS`] rows of,
    /// to be read as the list of their rows ([`super::filter`]). Each is asked once a
    /// minute per connection: the planner's estimate moves only when the server
    /// analyzes the table again, and a page, its looks before and after it and its
    /// count each ask the same terms.
    fn few_text(&self, filter: &CallbackFilter) -> Result<FewText> {
        let mut few = FewText::new();
        for lookup in text_lookups(&filter.query, &CALLBACK_FIELDS) {
            let known = (self.text_rows.borrow().get(&lookup.key).copied())
                .filter(|(_, asked)| asked.elapsed() < TEXT_ROWS_FOR);
            let rows = if let Some((rows, _)) = known {
                rows
            } else {
                let plan =
                    self.rows_of(&format!("EXPLAIN {}", lookup.sql), &lookup.params.refs())?;
                let first: Option<String> = plan.first().map(|row| row.get(0));
                // A plan that reads the whole table, or one not read as expected: the
                // term stays joined.
                let rows = first
                    .as_deref()
                    .and_then(rows_through_index)
                    .unwrap_or(f64::MAX);
                let mut kept = self.text_rows.borrow_mut();
                if kept.len() >= TEXT_ROWS_KEPT {
                    kept.clear();
                }
                kept.insert(lookup.key.clone(), (rows, std::time::Instant::now()));
                rows
            };
            if rows <= FEW_TEXT_ROWS {
                few.insert(lookup.key);
            }
        }
        Ok(few)
    }

    /// Callbacks that pass `filter` (for tab counts under a filter, and open questions).
    pub fn count_callbacks(&self, filter: &CallbackFilter) -> Result<i64> {
        if !filter.open && filter.query.is_empty() {
            let counts = self.disposition_counts()?;
            return Ok(filter.disposition.map_or(counts.total(), |d| counts.get(d)));
        }
        self.workers(true)?;
        let (select, params) = filtered(filter, "count(*)", self.few_text(filter)?);
        let rows = self.rows_of(&select.sql(), &params.refs())?;
        Ok(rows.first().map_or(0, |row| row.get(0)))
    }

    /// Held and quarantined callbacks that arrived in `(since, until]` (for the backlog
    /// alarm). A callback with no arrival time counts at the time its line was kept.
    pub fn review_arrivals_between(&self, since: Timestamp, until: Timestamp) -> Result<i64> {
        let sql = format!(
            "SELECT (SELECT count(*) FROM callbacks c
                      WHERE {waiting} AND c.arrived_at > $1::text AND c.arrived_at <= $2::text)
                  + (SELECT count(*) FROM callbacks c
                      JOIN input_lines l ON l.seq = c.line_seq
                      WHERE {waiting}
                        AND c.arrived_at IS NULL
                        AND l.ingested_at > $1::text AND l.ingested_at <= $2::text)",
            waiting = waiting_c(),
        );
        let rows = self.rows_of(&sql, &[&since.to_ledger_text(), &until.to_ledger_text()])?;
        Ok(rows.first().map_or(0, |row| row.get(0)))
    }

    /// For each window `(since, until]`: the held and quarantined callbacks that arrived
    /// in it (as [`Ledger::review_arrivals_between`] counts them) and the answers
    /// written in it, in one statement. The backlog trend's 24 hours were 48 round
    /// trips, most of a console's first frame.
    pub fn review_counts(&self, windows: &[(Timestamp, Timestamp)]) -> Result<Vec<(i64, i64)>> {
        let since: Vec<String> = windows.iter().map(|w| w.0.to_ledger_text()).collect();
        let until: Vec<String> = windows.iter().map(|w| w.1.to_ledger_text()).collect();
        let sql = format!(
            "SELECT (SELECT count(*) FROM callbacks c
                      WHERE {waiting} AND c.arrived_at > w.since AND c.arrived_at <= w.until)
                  + (SELECT count(*) FROM callbacks c
                      JOIN input_lines l ON l.seq = c.line_seq
                      WHERE {waiting}
                        AND c.arrived_at IS NULL
                        AND l.ingested_at > w.since AND l.ingested_at <= w.until),
                    (SELECT count(*) FROM answers a
                      WHERE a.answered_at > w.since AND a.answered_at <= w.until)
               FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS w (since, until, n)
              ORDER BY w.n",
            waiting = waiting_c(),
        );
        let rows = self.rows_of(&sql, &[&since, &until])?;
        Ok(rows.iter().map(|row| (row.get(0), row.get(1))).collect())
    }

    /// The sequence numbers of every callback `filter` keeps, in ingest order.
    pub fn callback_seqs(&self, filter: &CallbackFilter) -> Result<Vec<i64>> {
        self.workers(true)?;
        let (sql, params) = matching_seqs(filter, self.few_text(filter)?);
        let rows = self.rows_of(&sql, &params.refs())?;
        Ok(rows.iter().map(|row| row.get(0)).collect())
    }

    /// The callbacks numbered `seqs`, with their replacement attempts and standing
    /// answers, in ingest order; a number of no callback is left out.
    pub fn callbacks_numbered(&self, seqs: &[i64]) -> Rows {
        self.read_rows(&numbered_sql(), &[&seqs], callback_from)
    }
}

impl Writer<'_> {
    /// [`Ledger::callbacks_numbered`], as the transaction sees the ledger now.
    pub fn callbacks_numbered(&mut self, seqs: &[i64]) -> Rows {
        let rows = self
            .tx()?
            .query(&numbered_sql(), &[&seqs])
            .map_err(|e| self.err(e))?;
        rows.iter()
            .map(|row| callback_from(row).map_err(|e| self.err(e)))
            .collect()
    }

    /// [`Ledger::callback_seqs`], as the transaction sees the ledger now.
    pub fn callback_seqs(&mut self, filter: &CallbackFilter) -> Result<Vec<i64>> {
        // Every text term joined: the rows are the same, and a bulk answer's
        // selection is no search a person waits on key by key.
        let (sql, params) = matching_seqs(filter, FewText::new());
        let rows = self
            .tx()?
            .query(&sql, &params.refs())
            .map_err(|e| self.err(e))?;
        Ok(rows.iter().map(|row| row.get(0)).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::{
        FewText, GAP_SORT_KEY, by_seq, filtered, rows_through_index, sorted_statement, waiting_c,
    };
    use crate::clock::Timestamp;
    use crate::decision::Disposition;
    use crate::filter::Sort;
    use crate::store::{CallbackFilter, PageRequest};

    /// Each way a callback list is read: its page and its count.
    fn statements(filter: &CallbackFilter) -> [String; 2] {
        let page = by_seq(PageRequest::first(32));
        let (page, _) = sorted_statement(true, filter, Sort::default(), &page, FewText::new());
        let (count, _) = filtered(filter, "count(*)", FewText::new());
        [page, count.sql()]
    }

    /// The planner takes conditions written twice as two, and expects a fifteenth of
    /// the rows (a handful with three): a list's disposition is said once.
    #[test]
    fn a_list_says_its_disposition_once() {
        let now = Timestamp::from_ledger_text("2026-11-27T17:00:00.000Z").unwrap();
        for disposition in [
            Disposition::Hold,
            Disposition::Quarantine,
            Disposition::Apply,
        ] {
            for open in [false, true] {
                let filter = CallbackFilter {
                    disposition: Some(disposition),
                    open,
                    ..CallbackFilter::default()
                }
                .with_query("gap>1h", now, "ana")
                .unwrap();
                for sql in statements(&filter) {
                    let said = sql.matches("c.disposition =").count();
                    let waits = disposition.waits_for_a_person();
                    // An open question of a disposition that does not wait: none.
                    let expected = if open && !waits { 3 } else { 1 };
                    assert_eq!(said, expected, "{disposition:?} open={open}: {sql}");
                }
            }
        }
        // The open questions of every view: the dispositions that wait, once.
        let open = CallbackFilter {
            open: true,
            ..CallbackFilter::default()
        };
        for sql in statements(&open) {
            assert_eq!(sql.matches(&waiting_c()).count(), 1, "{sql}");
            assert_eq!(sql.matches("c.disposition =").count(), 2, "{sql}");
        }
    }

    /// Every callback list compares a gap through the key its gap indexes keep
    /// (`callbacks_gap_in_order`, and the review lists' `callbacks_review_by_gap`),
    /// outside any `coalesce()`, where an index could not answer it: the gap is never
    /// computed for each row a search reads.
    #[test]
    fn every_callback_list_compares_a_gap_through_its_index_key() {
        let now = Timestamp::from_ledger_text("2026-11-27T17:00:00.000Z").unwrap();
        let list = |disposition, open, query| {
            CallbackFilter {
                disposition,
                open,
                ..CallbackFilter::default()
            }
            .with_query(query, now, "ana")
            .unwrap()
        };
        for (filter, op) in [
            (list(Some(Disposition::Hold), false, "gap>1h"), ">"),
            (list(Some(Disposition::Quarantine), true, "-gap>=5m"), ">="),
            (list(None, true, "gap<=0 by:staff"), "<="),
            (list(None, false, "gap>1h"), ">"),
            (list(Some(Disposition::Apply), false, "-gap<1m"), "<"),
        ] {
            for sql in statements(&filter) {
                let through_key = format!("({GAP_SORT_KEY} {op} $");
                let below_none = format!("{GAP_SORT_KEY} > -1000000000000000 AND");
                assert!(
                    sql.contains(&through_key) || sql.contains(&below_none),
                    "{op}: {sql}"
                );
                assert!(!sql.contains("coalesce(coalesce("), "{sql}");
            }
        }
    }

    /// The rows a plan expects are read from its first line when it reads them
    /// through an index; a plan that reads the whole table, or a line that says no
    /// rows, gives none (the term then stays joined).
    #[test]
    fn the_rows_a_plan_expects_are_read_from_its_first_line() {
        let line = "Bitmap Heap Scan on callback_text t  (cost=128.78..502.89 rows=101 width=4)";
        assert_eq!(rows_through_index(line), Some(101.0));
        assert_eq!(
            rows_through_index(
                "Index Scan using x on callback_text t  (cost=0.42..8.44 rows=7 width=4)"
            ),
            Some(7.0)
        );
        assert_eq!(
            rows_through_index("Seq Scan on callback_text t  (cost=0.00..1268.80 rows=9 width=4)"),
            None
        );
        assert_eq!(
            rows_through_index("Result  (cost=0.00..0.01 width=0)"),
            None
        );
        assert_eq!(
            rows_through_index("Bitmap Heap Scan on callback_text t"),
            None
        );
    }
}
