//! Callbacks: each judged once, at ingest, and kept with its disposition.

mod selection;

use crate::store::CallbackFilter;
use rusqlite::{Connection, OptionalExtension, params};

use super::answers::closing_verdicts;
use super::closed_sets::{WAITING, WAITING_C};
use super::columns::{CALLBACK_SORT_COLUMN, callback_columns, callback_from};
use super::counts::disposition_counts;
use super::filter::{
    Column, Columns, Condition, NEAR_ROWS, Near, RangeIndex, TextIndex, bind_named,
    condition_reading, keys_of, query_named,
};
use super::query::Select;
use super::{Ledger, StoreError, Writer};
use crate::clock::Timestamp;
use crate::decision::{Disposition, Outcome};
use crate::filter::{Field, Sort, SortColumn};
use crate::store::{CallbackKey, Keyset, PageRequest, SortValue};
use crate::store::{CallbackRow, ClaimHistory, NewCallback};

type Result<T> = std::result::Result<T, StoreError>;

/// Callbacks read, in list order.
type Rows = Result<Vec<CallbackRow>>;

impl CallbackFilter {
    /// The condition the filter's query sets, each row checked against every
    /// comparison.
    fn condition(&self) -> Condition {
        self.condition_reading(None)
    }

    /// [`CallbackFilter::condition`], the comparison numbered `range` among its ranges
    /// read from the sorted index that keeps its column (the review lists have some).
    fn condition_reading(&self, range: Option<usize>) -> Condition {
        self.condition_with(range, true)
    }

    /// [`CallbackFilter::condition_reading`], text found through the text index only
    /// when `text_index` (else each row's text is checked).
    fn condition_with(&self, range: Option<usize>, text_index: bool) -> Condition {
        self.condition_near(range, text_index, None)
    }

    /// [`CallbackFilter::condition_with`], the text index's rows read only `near` a
    /// key when given.
    fn condition_near(
        &self,
        range: Option<usize>,
        text_index: bool,
        near: Option<Near>,
    ) -> Condition {
        let fields = if self.reads_review_list() {
            REVIEW_CALLBACK_FIELDS
        } else {
            CALLBACK_FIELDS
        };
        let columns = Columns {
            text_index: fields.text_index.filter(|_| text_index),
            ..fields
        };
        condition_reading(&self.query, &columns, self.now, range, near)
    }

    /// Lists held or quarantined callbacks only (a review list, or its open questions),
    /// which the review lists' partial indexes hold.
    fn reads_review_list(&self) -> bool {
        self.open || self.is_review()
    }

    /// Lists held or quarantined callbacks only: a review list, with its own indexes.
    fn is_review(&self) -> bool {
        self.disposition
            .is_some_and(Disposition::waits_for_a_person)
    }

    /// Needs the standing answer joined: open questions, or a query on answers.
    fn needs_answer(&self) -> bool {
        self.open
            || self
                .query
                .names(&[Field::Verdict, Field::Reviewer, Field::Answered])
    }
}

/// Arrival minus the attempt's timeout, in seconds (to the millisecond).
const GAP_SECONDS: &str = "round((julianday(c.arrived_at) - julianday(c.timeout_at)) * 86400.0, 3)";

/// The key a gap-sorted list is ordered by: [`GAP_SECONDS`], NULL made a value so that
/// the key compares. SQLite reads the list in order from `callbacks_review_by_gap`
/// (migration 007) only while this is that index's expression character for character
/// (there on `callbacks` unnamed, here on `c`): a test holds the two together.
const GAP_SORT_KEY: &str =
    "coalesce(round((julianday(c.arrived_at) - julianday(c.timeout_at)) * 86400.0, 3), -1e15)";

fn callback_field(field: Field) -> Option<Column> {
    Some(match field {
        Field::Job => Column::IndexedText("c.job_id", "job"),
        Field::Delivery => Column::IndexedText("c.delivery_id", "delivery"),
        Field::Reason => Column::Code("c.reason", reason_names),
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
        Field::By => Column::IndexedText("c.replacement_created_by", "by"),
        Field::Gap => Column::Ranged(&Column::Seconds(GAP_SECONDS), LATE_BY_GAP),
        Field::Age => Column::AgeOf("c.arrived_at"),
        Field::Arrived => Column::Time("c.arrived_at"),
        Field::Timeout => Column::Time("c.timeout_at"),
        Field::Escalates | Field::Overdue => return None,
    })
}

/// The names of the reason codes a callback may have.
fn reason_names() -> Vec<&'static str> {
    crate::decision::ReasonCode::ALL
        .iter()
        .map(|r| r.as_str())
        .collect()
}

/// The fields of a review list (held or quarantined callbacks): those of every
/// callback list, but a gap, an arrival time (or age), a timeout, a reason and an
/// outcome may be read along the review lists' partial indexes, whose keys are those
/// values where there are some (a callback without one sorts below every value, and
/// no comparison keeps it), when [`chosen_condition`] finds the range narrow enough.
fn review_callback_field(field: Field) -> Option<Column> {
    const GAP: Column = Column::Seconds(GAP_SECONDS);
    const ARRIVED: Column = Column::Time("c.arrived_at");
    const AGE: Column = Column::AgeOf("c.arrived_at");
    const TIMEOUT: Column = Column::Time("c.timeout_at");
    const REASON: Column = Column::Code("c.reason", reason_names);
    const OUTCOME: Column = Column::Equals("c.outcome");
    Some(match field {
        Field::Gap => Column::Ranged(&GAP, BY_GAP),
        Field::Arrived => Column::Ranged(&ARRIVED, BY_ARRIVAL),
        Field::Age => Column::Ranged(&AGE, BY_ARRIVAL),
        Field::Timeout => Column::Ranged(&TIMEOUT, BY_TIMEOUT),
        Field::Reason => Column::Ranged(&REASON, BY_REASON),
        Field::Outcome => Column::Ranged(&OUTCOME, BY_OUTCOME),
        field => return callback_field(field),
    })
}

/// The keys of the callbacks one of the review lists' sort indexes holds (it is
/// partial: held and quarantined callbacks only, named as its `WHERE` names them).
macro_rules! review_rows {
    ($index:literal) => {
        concat!(
            "SELECT seq FROM callbacks INDEXED BY ",
            $index,
            " WHERE (disposition = 'hold' OR disposition = 'quarantine')",
            " AND disposition IN ('hold', 'quarantine')"
        )
    };
}

/// The review lists' gap index, as it keeps the gap.
const BY_GAP: RangeIndex = RangeIndex {
    key: "c.seq",
    rows: review_rows!("callbacks_review_by_gap"),
    value: "coalesce(round((julianday(arrived_at) - julianday(timeout_at)) * 86400.0, 3), -1e15)",
    none: "-1e15",
    above: None,
};

/// The gaps of the callbacks that came after their timeout (migration 018), a partial
/// index of every callback list: the comparison is written before the index's own
/// `WHERE` (`value > 0`), so that SQLite seeks to the comparison's bound rather than
/// to 0.
const LATE_BY_GAP: RangeIndex = RangeIndex {
    key: "c.seq",
    rows: "SELECT seq FROM callbacks INDEXED BY callbacks_late_by_gap WHERE seq > 0",
    value: "round((julianday(arrived_at) - julianday(timeout_at)) * 86400.0, 3)",
    none: "0",
    above: Some(0),
};

/// The review lists' arrival index.
const BY_ARRIVAL: RangeIndex = RangeIndex {
    key: "c.seq",
    rows: review_rows!("callbacks_review_by_arrival_time"),
    value: "coalesce(arrived_at, '')",
    none: "''",
    above: None,
};

/// The review lists' timeout index.
const BY_TIMEOUT: RangeIndex = RangeIndex {
    key: "c.seq",
    rows: review_rows!("callbacks_review_by_timeout"),
    value: "coalesce(timeout_at, '')",
    none: "''",
    above: None,
};

/// The review lists' reason index.
const BY_REASON: RangeIndex = RangeIndex {
    key: "c.seq",
    rows: review_rows!("callbacks_review_by_reason"),
    value: "reason",
    none: "''",
    above: None,
};

/// The review lists' outcome index.
const BY_OUTCOME: RangeIndex = RangeIndex {
    key: "c.seq",
    rows: review_rows!("callbacks_review_by_outcome"),
    value: "outcome",
    none: "''",
    above: None,
};

pub(super) const REVIEW_CALLBACK_FIELDS: Columns = Columns {
    field: review_callback_field,
    ..CALLBACK_FIELDS
};

pub(super) const CALLBACK_FIELDS: Columns = Columns {
    field: callback_field,
    words: &["c.job_id", "c.delivery_id", "c.reason"],
    // Kept for every callback by migration 016's trigger.
    text_index: Some(TextIndex {
        table: "callback_text",
        key: "c.seq",
        words: &["job", "delivery"],
        coded_words: &[("c.reason", reason_names)],
    }),
};

/// The value a sorted callback list is ordered by (never NULL, so the key compares),
/// and the review lists' index that holds it in order. The expressions are those of
/// the indexes in migration 007, letter for letter in meaning.
fn sort_column(column: SortColumn) -> (&'static str, &'static str) {
    match column {
        // A job list's columns are not a callback list's: its own order.
        SortColumn::Ledger | SortColumn::Escalation | SortColumn::Accepted | SortColumn::Owner => {
            ("c.seq", "callbacks_review_list")
        }
        SortColumn::Gap => (GAP_SORT_KEY, "callbacks_review_by_gap"),
        SortColumn::Arrival => (
            "coalesce(c.arrived_at, '')",
            "callbacks_review_by_arrival_time",
        ),
        SortColumn::Timeout => ("coalesce(c.timeout_at, '')", "callbacks_review_by_timeout"),
        SortColumn::Reason => ("c.reason", "callbacks_review_by_reason"),
    }
}

/// Kept when the callback (`c`, with its standing answer `a`) is a question still open:
/// held or quarantined, and no standing answer that closes it.
fn open_question() -> String {
    format!(
        "{} AND (a.verdict IS NULL OR a.verdict NOT IN ({}))",
        *WAITING_C,
        closing_verdicts()
    )
}

/// A statement of `columns` over every callback `filter` keeps, with the condition
/// whose values it binds ([`filtered_values`]): the one statement behind a filter's
/// count and behind the rows a bulk answer is given, so what is counted is what is
/// marked.
pub(super) fn filtered(
    conn: &Connection,
    filter: &CallbackFilter,
    columns: &'static str,
    chosen: Option<&LastChoice>,
) -> rusqlite::Result<(Select, Condition)> {
    let condition = whole_list_condition(conn, filter, chosen)?;
    let select = Select::new(columns, "callbacks c");
    // A review list reads only its partial index and the rows it names.
    let select = if filter.is_review() {
        select.indexed_by("callbacks_review_list")
    } else {
        select
    };
    let select = if filter.needs_answer() && filter.answers_as_of.is_some() {
        select.join(STANDING_ANSWER_AS_OF)
    } else if filter.needs_answer() {
        select.join(STANDING_ANSWER)
    } else {
        select
    };
    let select = kept_by(select, filter, &condition, filter.is_review());
    Ok((select, condition))
}

/// The condition `filter` sets, with the narrowest of its comparisons that a review
/// list's sorted index keeps read from that index when it holds at most a quarter of
/// the list, each counted through its index first.
///
/// Rows read from a range are looked up one by one and put back in ledger order,
/// where the list's own index (which holds every column shown, in ledger order) is
/// read straight through: a range holding most of the list is the slower way. On a
/// million callbacks, the first page of Held under `gap>1h` (which keeps none of its
/// 60,090 rows) took 115 ms checking each row and 11 ms from the range, but a page
/// under `gap>-1h` (which keeps nearly all) 1 ms checking each row and 38 ms from the
/// range; a report of 40,295 rows took 70 ms by the range, 35 ms by the list.
/// Counting a range reads its index alone (2 ms for those 40,295 rows): the choice a
/// planner with statistics would make, made with the counts themselves. Either way
/// gives the same rows.
///
/// A range of at most [`CHECKED_TEXT_ROWS`] callbacks has each one's text checked,
/// rather than the text index's rows for a text term looked up too: a word that many
/// callbacks hold gave the text index tens of thousands of rows to put in a list
/// before the first page (`by:staff gap>5m` in Held, 40,295 of them, none in the
/// range: 41 ms a page).
///
/// `last` keeps the narrowest range's count for the next statement of the same
/// condition: a search reads up to three pages and a count, and each counted the
/// range again (15 ms for a range of 42,980 held callbacks).
///
/// A page of `page` rows is read from a range only when the range is narrower still
/// (see [`worth_reading`]).
pub(super) fn chosen_condition(
    conn: &Connection,
    filter: &CallbackFilter,
    last: Option<&LastChoice>,
    page: Option<usize>,
) -> rusqlite::Result<Condition> {
    let condition = filter.condition();
    let narrowest = kept_narrowest(conn, filter, &condition, last)?;
    Ok(match worth_it(narrowest, page) {
        Some((range, held)) => filter.condition_with(Some(range), held > CHECKED_TEXT_ROWS),
        None => condition,
    })
}

/// The key a condition's choices are kept under in a [`LastChoice`].
fn choice_key(filter: &CallbackFilter, condition: &Condition) -> String {
    format!(
        "{:?} {} {:?} {:?}",
        filter.disposition, filter.open, condition.sql, condition.values
    )
}

/// [`narrowest_range`] of `condition` (the filter's), counted once and kept in
/// `last` for the condition's next statements.
fn kept_narrowest(
    conn: &Connection,
    filter: &CallbackFilter,
    condition: &Condition,
    last: Option<&LastChoice>,
) -> rusqlite::Result<Narrowest> {
    let key = choice_key(filter, condition);
    let kept = last.and_then(|last| last.get(&key));
    let narrowest = match kept {
        Some(narrowest) => narrowest,
        None => narrowest_range(conn, filter, condition)?,
    };
    if let (None, Some(last)) = (kept, last) {
        last.keep(key, narrowest);
    }
    Ok(narrowest)
}

/// The condition a whole list is read under (its count, a report, a bulk answer's
/// selection): among the callbacks its indexes give ([`among_indexes`])
/// when it has them, else [`chosen_condition`]'s.
fn whole_list_condition(
    conn: &Connection,
    filter: &CallbackFilter,
    last: Option<&LastChoice>,
) -> rusqlite::Result<Condition> {
    Ok(match among_indexes(conn, filter, last, false)? {
        Some(keys) => filter.condition_with(None, false).among(
            "c.seq",
            serde_json::Value::from(keys.as_slice()).to_string(),
        ),
        None => chosen_condition(conn, filter, last, None)?,
    })
}

/// Callbacks found from the indexes of `filter`'s query alone, in ledger order: a
/// superset of those it keeps, among those kept when it is read; `None` when its
/// indexes give none that small.
///
/// Each text term's rows of the text index are read when they are few (at most
/// [`FEW_TEXT_ROWS`]), or all of them when the query's narrowest range, read from its
/// index, holds more than [`CHECKED_TEXT_ROWS`] callbacks and at most a quarter of
/// the list: the callbacks in all of those are the ones to read and check.
///
/// A word few callbacks hold was looked for near each page's key, two or three
/// statements a page each walking the word's trigrams (`staff`, in no job or
/// delivery id but in 42,980 replacement makers' names: 8 ms); a word many callbacks
/// hold beside a range that holds many more, with few in both, read each of the
/// word's callbacks to check the range (`by:staff gap>5m` in every callback of a
/// million: 42,980 read to find none, 99 ms), where the range's 66,119 keys and the
/// word's rows, side by side, take a few milliseconds.
///
/// Kept in `last` while no callback is added: a callback never changes, so the
/// callbacks numbered up to the last one kept stay the same. `only_kept`: `None`
/// unless they are kept.
fn among_indexes(
    conn: &Connection,
    filter: &CallbackFilter,
    last: Option<&LastChoice>,
    only_kept: bool,
) -> rusqlite::Result<Option<Keys>> {
    let condition = filter.condition();
    if condition.text_rows.is_empty() {
        return Ok(None);
    }
    // Read first: every callback numbered up to it is in the indexes, whichever
    // later moment they are read at.
    let newest: i64 = conn
        .prepare_cached("SELECT coalesce(max(seq), 0) FROM callbacks")?
        .query_row([], |row| row.get(0))?;
    let key = format!("{} {newest}", choice_key(filter, &condition));
    if let Some(kept) = last.and_then(|last| last.keys(&key)) {
        return Ok(kept.few());
    }
    if only_kept {
        return Ok(None);
    }
    let range = range_beside_text(conn, filter, &condition, last)?;
    let named: Vec<(&str, &dyn rusqlite::ToSql)> = condition.named().collect();
    let read = |sql: &str| -> rusqlite::Result<Vec<i64>> {
        let mut keys = keys_of(conn, sql, &named)?;
        keys.retain(|&seq| seq <= newest);
        if !keys.is_sorted() {
            keys.sort_unstable();
        }
        Ok(keys)
    };
    let mut found: Option<Vec<i64>> = match &range {
        Some(range_rows) => Some(read(range_rows)?),
        None => None,
    };
    for (text_rows, asked) in &condition.text_rows {
        // Kept for the next query asking the same of the index: typing a range's
        // bound after a word asks the word's rows again at every key.
        let text_key = format!("{asked} {newest} {}", range.is_some());
        let given = if let Some(given) = last.and_then(|last| last.text_rows(&text_key)) {
            given.few()
        } else {
            // All of them beside a range; else whether there are few.
            let given = if range.is_some() {
                Some(read(text_rows)?)
            } else {
                let few = format!("{text_rows} LIMIT {}", FEW_TEXT_ROWS + 1);
                Some(read(&few)?).filter(|rows| rows.len() <= FEW_TEXT_ROWS)
            };
            let given = given.map(std::sync::Arc::new);
            if let Some(last) = last {
                last.keep_text_rows(text_key, IndexRows::of(given.clone()));
            }
            given
        };
        if let Some(given) = given {
            found = Some(match found {
                Some(keys) => in_both(&keys, &given),
                None => given.as_ref().clone(),
            });
        }
    }
    let keys = found.map(std::sync::Arc::new);
    if let Some(last) = last {
        last.keep_keys(key, IndexRows::of(keys.clone()));
    }
    Ok(keys)
}

/// A text term whose text index gives at most this many callbacks is read among
/// them ([`among_indexes`]): reading them is one walk of its trigrams, about what a
/// page's first look near its key costs.
const FEW_TEXT_ROWS: usize = if cfg!(test) { 8 } else { 4096 };

/// The statement of the rows of `condition`'s narrowest range (the filter's), when
/// [`among_indexes`] reads that range beside its text terms: it holds more than
/// [`CHECKED_TEXT_ROWS`] callbacks (fewer are each checked) and at most a quarter of
/// the list.
fn range_beside_text(
    conn: &Connection,
    filter: &CallbackFilter,
    condition: &Condition,
    last: Option<&LastChoice>,
) -> rusqlite::Result<Option<String>> {
    if condition.text_rows.is_empty() {
        return Ok(None);
    }
    let Some((number, held, listed)) = kept_narrowest(conn, filter, condition, last)? else {
        return Ok(None);
    };
    let serves = held > CHECKED_TEXT_ROWS && worth_reading(held, listed, None);
    Ok(condition.ranges[number].rows().filter(|_| serves))
}

/// The numbers in both `a` and `b`, each in ascending order.
fn in_both(a: &[i64], b: &[i64]) -> Vec<i64> {
    let mut both = Vec::with_capacity(a.len().min(b.len()));
    let (mut i, mut j) = (0, 0);
    while let (Some(x), Some(y)) = (a.get(i), b.get(j)) {
        match x.cmp(y) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                both.push(*x);
                i += 1;
                j += 1;
            }
        }
    }
    both
}

/// A range holding at most this many callbacks has their text checked one by one
/// (about a millisecond), not looked up in the text index too (a handful in the unit
/// tests, whose ledgers are small, so that their ranges are read both ways).
const CHECKED_TEXT_ROWS: i64 = if cfg!(test) { 8 } else { 4096 };

/// What was found out about a condition, kept for its next statement on the same
/// connection: the narrowest range [`chosen_condition`] counted (the choice it leads
/// to changes the speed of a statement, never its rows, so a count made before a
/// write still serves), and what [`among_indexes`] read (kept under the number of
/// the newest callback, so a write of callbacks reads it again).
#[derive(Debug, Default)]
pub(super) struct LastChoice {
    narrowest: std::cell::RefCell<Option<(String, Narrowest)>>,
    /// [`among_indexes`]'s callbacks for a condition (none: not few enough), under
    /// its key and the number of the newest callback.
    keys: std::cell::RefCell<Option<(String, IndexRows)>>,
    /// The rows the text index gave for the last query asked of it in
    /// [`among_indexes`] (none: too many), under that query and the number of the
    /// newest callback.
    text_rows: std::cell::RefCell<Option<(String, IndexRows)>>,
}

/// The range read and the callbacks it holds, or none.
type Chosen = Option<(usize, i64)>;

/// The narrowest range an index could read: its number, the callbacks it holds and
/// the callbacks of the list; or none.
type Narrowest = Option<(usize, i64, i64)>;

impl LastChoice {
    fn get(&self, key: &str) -> Option<Narrowest> {
        let last = self.narrowest.borrow();
        last.as_ref()
            .filter(|(kept, _)| kept == key)
            .map(|(_, narrowest)| *narrowest)
    }

    fn keep(&self, key: String, narrowest: Narrowest) {
        *self.narrowest.borrow_mut() = Some((key, narrowest));
    }

    fn keys(&self, key: &str) -> Option<IndexRows> {
        kept_under(&self.keys, key)
    }

    fn keep_keys(&self, key: String, keys: IndexRows) {
        *self.keys.borrow_mut() = Some((key, keys));
    }

    fn text_rows(&self, key: &str) -> Option<IndexRows> {
        kept_under(&self.text_rows, key)
    }

    fn keep_text_rows(&self, key: String, rows: IndexRows) {
        *self.text_rows.borrow_mut() = Some((key, rows));
    }
}

/// What the indexes gave [`among_indexes`], kept: callbacks' numbers, or too many to
/// read among.
#[derive(Debug, Clone)]
enum IndexRows {
    Few(Keys),
    Many,
}

impl IndexRows {
    fn of(keys: Option<Keys>) -> Self {
        keys.map_or(IndexRows::Many, IndexRows::Few)
    }

    fn few(self) -> Option<Keys> {
        match self {
            IndexRows::Few(keys) => Some(keys),
            IndexRows::Many => None,
        }
    }
}

/// Callbacks' numbers in ascending order, shared with a [`LastChoice`].
type Keys = std::sync::Arc<Vec<i64>>;

/// What `kept` holds, when it holds it under `key`.
fn kept_under(
    kept: &std::cell::RefCell<Option<(String, IndexRows)>>,
    key: &str,
) -> Option<IndexRows> {
    kept.borrow()
        .as_ref()
        .filter(|(under, _)| under == key)
        .map(|(_, keys)| keys.clone())
}

/// The number of the range [`chosen_condition`] reads from its index, with the
/// callbacks it holds: the narrowest, when it is worth reading for `page` rows ([`worth_reading`]).
fn worth_it(narrowest: Narrowest, page: Option<usize>) -> Chosen {
    narrowest
        .filter(|(_, held, listed)| worth_reading(*held, *listed, page))
        .map(|(number, held, _)| (number, held))
}

/// The range of `condition` that holds fewest of `filter`'s list, each counted
/// through its index, with the list's size.
fn narrowest_range(
    conn: &Connection,
    filter: &CallbackFilter,
    condition: &Condition,
) -> rusqlite::Result<Narrowest> {
    let mut narrowest: Option<(i64, usize)> = None;
    for (number, range) in condition.ranges.iter().enumerate() {
        let Some(rows) = range.rows() else { continue };
        let sql = match filter.disposition {
            Some(_) => format!("SELECT count(*) FROM ({rows} AND disposition = :disposition)"),
            None => format!("SELECT count(*) FROM ({rows})"),
        };
        let mut st = conn.prepare_cached(&sql)?;
        let mut named: Vec<(&str, &dyn rusqlite::ToSql)> =
            vec![(":disposition", &filter.disposition)];
        named.extend(condition.named());
        let held = query_named(&mut st, &named, |row| row.get::<_, i64>(0))?;
        let held = held.first().copied().unwrap_or(0);
        if narrowest.is_none_or(|(n, _)| held < n) {
            narrowest = Some((held, number));
        }
    }
    let Some((held, number)) = narrowest else {
        return Ok(None);
    };
    let counts = disposition_counts(conn)?;
    let listed = match filter.disposition {
        Some(d) => counts.get(d),
        None if filter.open => counts.held + counts.quarantined,
        None => counts.total(),
    };
    Ok(Some((number, held, listed)))
}

/// Whether a range holding `held` of the `listed` callbacks of a list is worth
/// reading from its index, for the whole list or for a page of `page` rows.
///
/// For the whole list (a count, a report), when it holds at most a quarter of it.
/// A page read along the list checks rows until it has `page` of them: about
/// `page * listed / held` rows, where the range costs `held` (a row of either about
/// the same, 0.6 µs). So a page reads the range only when `held` is at most four
/// times `sqrt(page * listed)`, four because the range's cost is known where the
/// walk's rests on the rows being spread evenly along the list (newer rows last,
/// an age is not): 27,000 of a million callbacks for a page of 48, 7,000 of 64,000
/// held ones.
fn worth_reading(held: i64, listed: i64, page: Option<usize>) -> bool {
    let quarter = held.saturating_mul(4) <= listed;
    match page {
        None => quarter,
        Some(page) => {
            #[allow(clippy::cast_precision_loss)] // counts far below 2^52
            let walk = (page as f64 * listed as f64).sqrt() * 4.0;
            #[allow(clippy::cast_precision_loss)]
            let narrow = (held as f64) <= walk;
            quarter && narrow
        }
    }
}

/// `select` narrowed to the callbacks `filter` keeps (its `condition` compiled from the
/// query): the conditions of every callback list, its pages, counts and selections.
/// `review` names the review lists' rows outright, so their partial indexes serve.
fn kept_by(select: Select, filter: &CallbackFilter, condition: &Condition, review: bool) -> Select {
    select
        .filter_if(filter.disposition.is_some(), "c.disposition = :disposition")
        .filter_if(review, WAITING_C.as_str())
        .filter_if(filter.open, open_question())
        .filter_if(
            condition.sql.is_some(),
            condition.sql.clone().unwrap_or_default(),
        )
}

/// The values a [`filtered`] statement binds.
pub(super) fn filtered_values<'a>(
    filter: &'a CallbackFilter,
    condition: &'a Condition,
) -> Vec<(&'a str, &'a dyn rusqlite::ToSql)> {
    let mut named: Vec<(&str, &dyn rusqlite::ToSql)> = vec![
        (":disposition", &filter.disposition),
        (":answers_as_of", &filter.answers_as_of),
    ];
    named.extend(condition.named());
    named
}

/// The standing answer of each callback.
const STANDING_ANSWER: &str =
    "LEFT JOIN answers a ON a.id = (SELECT max(id) FROM answers WHERE callback_seq = c.seq)";

/// The standing answer of each callback when answer `:answers_as_of` was the newest
/// (answer ids only grow: the table is append-only).
const STANDING_ANSWER_AS_OF: &str = "LEFT JOIN answers a ON a.id = \
     (SELECT max(id) FROM answers WHERE callback_seq = c.seq AND id <= :answers_as_of)";

/// The columns of [`CallbackRow`] (with its replacement attempt and standing answer)
/// and the tables they come from, then `sort` (the value the list is ordered by). The
/// replacement attempt's live state is read only when `attempt_state` is asked for:
/// the console shows it, reports do not, and looking it up in the attempts table was a
/// third of the time of a long report.
fn callback_select(attempt_state: bool, sort: &str) -> Select {
    let state = if attempt_state { "r.state" } else { "NULL" };
    let select = Select::new(
        format!("{}, {sort}", callback_columns(state)),
        "callbacks c",
    );
    let select = if attempt_state {
        select.join(
            "LEFT JOIN attempts r ON r.job_id = c.job_id AND r.attempt = c.replacement_attempt",
        )
    } else {
        select
    };
    select.join(STANDING_ANSWER)
}

fn read_callback(conn: &Connection, seq: i64) -> rusqlite::Result<Option<CallbackRow>> {
    conn.prepare_cached(&callback_select(true, "NULL").filter("c.seq = ?1").sql())?
        .query_row([seq], callback_from)
        .optional()
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

impl Ledger {
    /// One callback with its replacement attempt and standing answer.
    pub fn callback(&self, seq: i64) -> Result<Option<CallbackRow>> {
        self.run(|c| read_callback(c, seq))
    }

    /// The first `limit` callbacks of a job, in ingest order: a held report's
    /// neighbours, as the comparison pane sets them side by side.
    pub fn callbacks_of_job(&self, job_id: &str, limit: usize) -> Rows {
        let sql = callback_select(true, "c.seq")
            .filter("c.job_id = ?1")
            .order_by(&["c.seq"], "ASC")
            .limit(limit)
            .sql();
        self.all_rows(&sql, [job_id], callback_from)
    }

    /// One page of callbacks in ingest order.
    pub fn callbacks_page(&self, filter: &CallbackFilter, page: PageRequest<i64>) -> Rows {
        self.unsorted(true, filter, page)
    }

    /// Every callback `filter` keeps, in ingest order, as a report lists them (the
    /// rows of [`Ledger::callbacks_page`], but a replacement attempt comes without its
    /// state): handed to `each` up to `batch` rows at a time, as they are read.
    ///
    /// One statement reads them all, so that the rows may come from whichever index
    /// serves the query best and be put in order once: read a page at a time, each
    /// page had to come in ledger order from its index, and a search through the
    /// text index or a range of a sorted one was done again for every page.
    pub fn callbacks_report<E: From<StoreError>>(
        &self,
        filter: &CallbackFilter,
        batch: usize,
        mut each: impl FnMut(&mut Vec<CallbackRow>) -> std::result::Result<(), E>,
    ) -> std::result::Result<(), E> {
        let condition = self.run(|c| whole_list_condition(c, filter, Some(&self.chosen)))?;
        let sql = report_statement(filter, &condition);
        let mut st = self.conn.prepare_cached(&sql).map_err(|e| self.err(e))?;
        let mut named: Vec<(&str, &dyn rusqlite::ToSql)> =
            vec![(":disposition", &filter.disposition)];
        named.extend(condition.named());
        bind_named(&mut st, &named).map_err(|e| self.err(e))?;
        let batch = batch.max(1);
        let mut rows = st.raw_query();
        let failed = loop {
            let mut read = Vec::with_capacity(batch);
            let more = (|| {
                while read.len() < batch {
                    match rows.next()? {
                        Some(row) => read.push(callback_from(row)?),
                        None => return Ok(false),
                    }
                }
                Ok(true)
            })();
            match more {
                Err(e) => break Some(e),
                Ok(more) => {
                    if !read.is_empty() {
                        each(&mut read)?;
                    }
                    if !more {
                        break None;
                    }
                }
            }
        };
        drop(rows);
        match failed {
            Some(e) => Err(self.err(super::name_the_column(e, &st)).into()),
            None => Ok(()),
        }
    }

    fn unsorted(&self, state: bool, filter: &CallbackFilter, page: PageRequest<i64>) -> Rows {
        let rows = self.callbacks_sorted(state, filter, Sort::default(), &by_seq(page))?;
        Ok(rows.into_iter().map(|(row, _)| row).collect())
    }

    /// One page of callbacks in the order `sort` asks, each with the value it is
    /// sorted by (its key, with its sequence number).
    pub fn callbacks_sorted_page(
        &self,
        filter: &CallbackFilter,
        sort: Sort,
        page: &PageRequest<CallbackKey>,
    ) -> Result<Vec<(CallbackRow, SortValue)>> {
        self.callbacks_sorted(true, filter, sort, page)
    }

    fn callbacks_sorted(
        &self,
        attempt_state: bool,
        filter: &CallbackFilter,
        sort: Sort,
        page: &PageRequest<CallbackKey>,
    ) -> Result<Vec<(CallbackRow, SortValue)>> {
        let page_rows = Some(page.limit);
        let condition = self.run(|c| chosen_condition(c, filter, Some(&self.chosen), page_rows))?;
        if sort.column == SortColumn::Ledger && condition.through_text_index {
            // The page before or after one read among them: no word's rows read again.
            let kept = self.among_index_rows(attempt_state, filter, sort, page, true)?;
            if let Some(rows) = kept {
                return Ok(rows);
            }
            let beside_range = self
                .run(|c| {
                    let query = filter.condition();
                    range_beside_text(c, filter, &query, Some(&self.chosen))
                })?
                .is_some();
            // Without a range to read, a word few callbacks hold is read among its
            // rows at once; beside one, only when a page near the key says so.
            if !beside_range
                && let Some(rows) =
                    self.among_index_rows(attempt_state, filter, sort, page, false)?
            {
                return Ok(rows);
            }
            let near =
                self.near_the_key(attempt_state, filter, sort, page, &condition, beside_range)?;
            if let Some(rows) = near {
                return Ok(rows);
            }
            if beside_range
                && let Some(rows) =
                    self.among_index_rows(attempt_state, filter, sort, page, false)?
            {
                return Ok(rows);
            }
        }
        let sql = sorted_statement(attempt_state, filter, sort, page, &condition);
        self.sorted_rows(&sql, filter, page, &condition)
    }

    /// A page of a list in ledger order read among the callbacks its query's indexes
    /// give ([`among_indexes`]), those past the page's key a few at a time, each
    /// checked against the whole query: `None` when they give none that few, or
    /// (`only_kept`) when they are not kept from an earlier page.
    fn among_index_rows(
        &self,
        attempt_state: bool,
        filter: &CallbackFilter,
        sort: Sort,
        page: &PageRequest<CallbackKey>,
        only_kept: bool,
    ) -> Result<Option<Vec<(CallbackRow, SortValue)>>> {
        let read = |c: &Connection| among_indexes(c, filter, Some(&self.chosen), only_kept);
        let Some(keys) = self.run(read)? else {
            return Ok(None);
        };
        let reading = Reading::of(&page.keyset, sort);
        let seq = page.keyset.key().map(|k| k.seq);
        let past: Vec<i64> = keys
            .iter()
            .copied()
            .filter(|&k| reading.passes(k, seq))
            .collect();
        let mut ahead = page.limit.saturating_mul(4).max(256);
        loop {
            let read = ahead.min(past.len());
            let batch = if reading.backwards {
                &past[past.len() - read..]
            } else {
                &past[..read]
            };
            let condition = filter
                .condition_with(None, false)
                .among("c.seq", serde_json::Value::from(batch).to_string());
            let sql = sorted_statement(attempt_state, filter, sort, page, &condition);
            let rows = self.sorted_rows(&sql, filter, page, &condition)?;
            if rows.len() >= page.limit || read == past.len() {
                return Ok(Some(rows));
            }
            ahead = ahead.saturating_mul(4);
        }
    }

    /// A page of a list in ledger order under a condition that searches text, read
    /// from the first [`NEAR_ROWS`] rows the text index gives for each text term from
    /// the page's key on: `None` when those hold less than a page and some term's
    /// rows go on past them, or (`beside_range`: the query's callbacks can be found
    /// from its text and range indexes instead, [`among_indexes`]) when what was
    /// read says a page needs that many.
    ///
    /// A word many callbacks hold gave the text index tens of thousands of rows to
    /// list before the first page was read (`by:staff` in Held: 42,980 rows, 87 ms a
    /// page, and a reload reads two or three pages); the text index gives its rows in
    /// key order, and stops at the limit (about a millisecond for 4,096 of them).
    fn near_the_key(
        &self,
        attempt_state: bool,
        filter: &CallbackFilter,
        sort: Sort,
        page: &PageRequest<CallbackKey>,
        condition: &Condition,
        beside_range: bool,
    ) -> Result<Option<Vec<(CallbackRow, SortValue)>>> {
        let keyset = &page.keyset;
        let reading = Reading::of(keyset, sort);
        let mut rows = self.first_near_rows(filter, page.limit)?;
        loop {
            let near = Near {
                bound: reading.seq_bound(),
                direction: reading.direction(),
                rows,
            };
            let near = filter.condition_near(condition.read_range, true, Some(near));
            let sql = sorted_statement(attempt_state, filter, sort, page, &near);
            let found = self.sorted_rows(&sql, filter, page, &near)?;
            // Fewer than a page is all there is only when every term's rows ended
            // short of the number read.
            if found.len() >= page.limit || self.every_term_ends_short(keyset, &near, rows)? {
                return Ok(Some(found));
            }
            if rows >= NEAR_ROWS {
                // Some term's rows go on past the most read near the key.
                return Ok(None);
            }
            // Twice as many as those read kept in a page would, or all there are to
            // read when they kept none.
            rows = match found.len() {
                0 => NEAR_ROWS,
                kept => (rows.saturating_mul(page.limit).saturating_mul(2) / kept).min(NEAR_ROWS),
            };
            if beside_range && rows == NEAR_ROWS {
                // Fewer than a page in every 2,048 rows of the word: the two indexes
                // side by side find them sooner.
                return Ok(None);
            }
        }
    }

    /// How many rows of each text term a page reads near its key first: about twice
    /// as many as a page of the list needs when the list's callbacks are spread evenly
    /// among all (a review list holds a few in a hundred). More are read as those read
    /// say, up to [`NEAR_ROWS`]: reading 4,096 rows of a word cost about 2 ms a
    /// statement at a million callbacks, and a page of every callback needs a page.
    fn first_near_rows(&self, filter: &CallbackFilter, page: usize) -> Result<usize> {
        let counts = self.disposition_counts()?;
        let listed = filter.disposition.map_or(counts.total(), |d| counts.get(d));
        let first = i64::try_from(page.max(1))
            .unwrap_or(i64::MAX)
            .saturating_mul(2)
            .saturating_mul(counts.total().max(1))
            / listed.max(1);
        Ok(usize::try_from(first)
            .unwrap_or(NEAR_ROWS)
            .clamp(1, NEAR_ROWS))
    }

    /// Did every text term's rows near the key (`near`, `rows` of each at most) end
    /// before that number?
    fn every_term_ends_short(
        &self,
        keyset: &crate::store::Keyset<CallbackKey>,
        near: &Condition,
        rows: usize,
    ) -> Result<bool> {
        let seq = keyset.key().map(|k| k.seq);
        for term_rows in &near.near_rows {
            let held = self.run(|c| {
                let mut st = c.prepare_cached(&format!("SELECT count(*) FROM ({term_rows})"))?;
                let mut named: Vec<(&str, &dyn rusqlite::ToSql)> = vec![(":seq", &seq)];
                named.extend(near.named());
                query_named(&mut st, &named, |row| row.get::<_, i64>(0))
            })?;
            let short = held
                .first()
                .and_then(|n| usize::try_from(*n).ok())
                .is_some_and(|n| n < rows);
            if !short {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// The rows of a page statement (`sql`, of [`sorted_statement`]) under
    /// `condition`, in list order.
    fn sorted_rows(
        &self,
        sql: &str,
        filter: &CallbackFilter,
        page: &PageRequest<CallbackKey>,
        condition: &Condition,
    ) -> Result<Vec<(CallbackRow, SortValue)>> {
        let keyset = &page.keyset;
        let (value, seq) = keyset.key().map(|k| (k.value.clone(), k.seq)).unzip();
        let mut rows = self.run(|c| {
            let mut st = c.prepare_cached(sql)?;
            let mut named: Vec<(&str, &dyn rusqlite::ToSql)> = vec![
                (":seq", &seq),
                (":value", &value),
                (":disposition", &filter.disposition),
            ];
            named.extend(condition.named());
            query_named(&mut st, &named, |row| {
                Ok((
                    callback_from(row)?,
                    row.get::<_, SortValue>(CALLBACK_SORT_COLUMN)?,
                ))
            })
        })?;
        if keyset.backwards() {
            rows.reverse();
        }
        Ok(rows)
    }

    /// Callbacks that pass `filter` (for tab counts under a filter, and open questions).
    pub fn count_callbacks(&self, filter: &CallbackFilter) -> Result<i64> {
        if !filter.open && filter.query.is_empty() {
            let counts = self.disposition_counts()?;
            return Ok(filter.disposition.map_or(counts.total(), |d| counts.get(d)));
        }
        self.run(|c| {
            let (select, condition) = filtered(c, filter, "count(*)", Some(&self.chosen))?;
            let mut st = c.prepare_cached(&select.sql())?;
            let named = filtered_values(filter, &condition);
            let counts = query_named(&mut st, &named, |row| row.get(0))?;
            Ok(counts.first().copied().unwrap_or(0))
        })
    }

    /// Held and quarantined callbacks that arrived in `(since, until]` (for the backlog alarm).
    /// A callback with no arrival time counts at the time its line was kept.
    pub fn review_arrivals_between(&self, since: Timestamp, until: Timestamp) -> Result<i64> {
        self.run(|c| {
            // Two ranges of one partial index (arrivals, then those without one),
            // instead of a look at every held callback and its input line. Named,
            // because without statistics the planner takes the disposition index.
            c.prepare_cached(&format!(
                "SELECT (SELECT count(*) FROM callbacks INDEXED BY callbacks_review_by_arrival
                          WHERE {waiting}
                            AND arrived_at > ?1 AND arrived_at <= ?2)
                      + (SELECT count(*) FROM callbacks c INDEXED BY callbacks_review_by_arrival
                          JOIN input_lines l ON l.seq = c.line_seq
                          WHERE {waiting_c}
                            AND c.arrived_at IS NULL
                            AND l.ingested_at > ?1 AND l.ingested_at <= ?2)",
                waiting = *WAITING,
                waiting_c = *WAITING_C,
            ))?
            .query_row([since, until], |row| row.get(0))
        })
    }
}

/// The statement of every callback `filter` keeps, in ledger order, for a report
/// ([`Ledger::callbacks_report`]); it binds `:disposition` and the values of
/// `condition` (the filter's, [`chosen_condition`]).
///
/// A review list is read by its own partial index, named (the planner, without
/// statistics, takes worse ones): `callbacks_review_list`, which holds every column
/// shown in ledger order, looked up by the rows of a range or of the text index when
/// the condition reads one.
fn report_statement(filter: &CallbackFilter, condition: &Condition) -> String {
    let review = filter.reads_review_list();
    let select = callback_select(false, "c.seq");
    let select = if review {
        select.indexed_by("callbacks_review_list")
    } else {
        select
    };
    kept_by(select, filter, condition, review)
        .order_by(&["c.seq"], "ASC")
        .sql()
}

/// How a page reads along its list.
struct Reading {
    /// Towards the start of the list: paging up, or a list largest first.
    backwards: bool,
    /// How a row's key compares with the page's key (`None` on the first or last
    /// page, which name no key).
    comparison: Option<&'static str>,
}

impl Reading {
    fn of(keyset: &Keyset<CallbackKey>, sort: Sort) -> Self {
        Reading {
            backwards: keyset.backwards() != sort.descending,
            comparison: keyset
                .comparison()
                .map(|op| if sort.descending { descending(op) } else { op }),
        }
    }

    fn direction(&self) -> &'static str {
        if self.backwards { "DESC" } else { "ASC" }
    }

    /// Whether a callback numbered `seq` is past the page's key (`key`, in ledger
    /// order; none on the first and last pages) in reading order.
    fn passes(&self, seq: i64, key: Option<i64>) -> bool {
        match (self.comparison, key) {
            (Some(">"), Some(key)) => seq > key,
            (Some(">="), Some(key)) => seq >= key,
            (Some("<"), Some(key)) => seq < key,
            (Some("<="), Some(key)) => seq <= key,
            _ => true,
        }
    }

    /// The page's bound on a key in ledger order (the operator and its value):
    /// `> :seq`, or on the first and last pages one past every key, so that the plan
    /// stays a range read.
    fn seq_bound(&self) -> String {
        match self.comparison {
            Some(op) => format!("{op} :seq"),
            None if self.backwards => format!("< {}", i64::MAX),
            None => "> 0".to_owned(),
        }
    }
}

/// The statement of one page of a sorted callback list under `condition` (the
/// filter's, [`chosen_condition`]), whose values it binds besides `:seq`, `:value`
/// and `:disposition`.
fn sorted_statement(
    attempt_state: bool,
    filter: &CallbackFilter,
    sort: Sort,
    page: &PageRequest<CallbackKey>,
    condition: &Condition,
) -> String {
    let review = filter.reads_review_list();
    let (sort_value, index) = sort_column(sort.column);
    let ledger_order = sort.column == SortColumn::Ledger;
    let reading = Reading::of(&page.keyset, sort);
    let direction = reading.direction();
    let bound = match reading.comparison {
        _ if ledger_order => Some(format!("c.seq {}", reading.seq_bound())),
        // `(value, seq) > (:value, :seq)` written so that its first half is a range
        // on the sort index: a page deep in the list reads no row before it.
        Some(op) => {
            let strict = &op[..1];
            Some(format!(
                "{sort_value} {strict}= :value AND ({sort_value} {strict} :value OR c.seq {op} :seq)"
            ))
        }
        None => None,
    };
    // A review list reads its own partial index: in ledger order one that holds
    // every column shown, sorted one that holds the list's order.
    let select = callback_select(attempt_state, sort_value);
    let select = if review {
        select.indexed_by(index)
    } else {
        select
    };
    let select = match bound {
        Some(bound) => select.filter(bound),
        None => select,
    };
    let mut order = vec![sort_value, "c.seq"];
    if ledger_order {
        order.truncate(1);
    }
    kept_by(select, filter, condition, review)
        .order_by(&order, direction)
        .limit(page.limit)
        .sql()
}

impl Writer<'_> {
    /// What earlier callbacks claimed about this job and attempt.
    pub fn claim_history(
        &self,
        job_id: &str,
        attempt: i64,
        outcome: Outcome,
    ) -> Result<ClaimHistory> {
        self.run(|c| {
            let mut history = ClaimHistory::default();
            // No ORDER BY: the index yields (outcome, seq) order, and sorting would
            // cost a temporary b-tree per callback; the minimum is taken below.
            let mut st = c.prepare_cached(
                "SELECT seq, outcome FROM callbacks
                 WHERE job_id = ?1 AND attempt = ?2 AND disposition <> 'quarantine'",
            )?;
            let mut rows = st.query(params![job_id, attempt])?;
            while let Some(row) = rows.next()? {
                let seq: i64 = row.get(0)?;
                // Read in place (`sql_values.rs`): no `String` per earlier claim.
                if row.get::<_, Outcome>(1)? == outcome {
                    history.first_same = Some(history.first_same.map_or(seq, |s| s.min(seq)));
                } else {
                    history.opposite = true;
                }
            }
            Ok(history)
        })
    }

    /// Puts the callbacks numbered past the last one indexed in the trigram index of
    /// callbacks' text, in one statement: at commit, so a batch of callbacks is one
    /// write to the index (FTS5 writes a segment of its own at every statement).
    pub(super) fn index_new_callbacks(&self) -> Result<usize> {
        self.run(|c| index_callbacks_from(c, None))
    }

    /// Keeps a judged callback; returns its sequence number.
    pub fn insert_callback(&mut self, cb: &NewCallback<'_>) -> Result<i64> {
        self.execute(
            "INSERT INTO callbacks (line_seq, delivery_id, job_id, attempt, outcome, arrived_at,
                    timeout_at, disposition, reason, detail, job_state_before, replacement_attempt,
                    first_report_seq, linked_from_seq, judged_at, replacement_created_by,
                    replacement_started_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
            params![
                cb.line_seq,
                cb.delivery_id,
                cb.job_id,
                cb.attempt,
                cb.outcome,
                cb.arrived_at,
                cb.timeout_at,
                cb.disposition,
                cb.reason,
                cb.detail,
                cb.job_state_before,
                cb.replacement_attempt,
                cb.first_report_seq,
                cb.linked_from_seq,
                cb.judged_at,
                cb.replacement_started.as_ref().map(|r| r.0.as_str()),
                cb.replacement_started.as_ref().map(|r| r.1)
            ],
        )?;
        self.counts.callback(cb.disposition);
        Ok(self.last_insert_rowid())
    }

    /// The callback with this sequence number.
    pub fn callback(&mut self, seq: i64) -> Result<Option<CallbackRow>> {
        // The row shows its replacement attempt, which may be kept behind.
        read_callback(self.flushed()?, seq).map_err(|e| self.err(e))
    }
}

/// Puts callbacks in the trigram index of callbacks' text (`callback_text`), their
/// job id, delivery id and replacement's maker lowered as the query language lowers
/// text: those numbered past `after`, or when `None` past the last one indexed.
/// Callbacks are numbered in the order they are kept and never change, so the
/// callbacks past the last indexed are exactly those not indexed yet.
pub(super) fn index_callbacks_from(
    conn: &Connection,
    after: Option<i64>,
) -> rusqlite::Result<usize> {
    conn.prepare_cached(
        "INSERT INTO callback_text (rowid, job, delivery, by)
         SELECT seq, jobledger_lowered(job_id), jobledger_lowered(delivery_id),
                jobledger_lowered(replacement_created_by)
           FROM callbacks
          WHERE seq > coalesce(?1, (SELECT max(id) FROM callback_text_docsize), 0)",
    )?
    .execute([after])
}

#[cfg(test)]
mod tests {
    use super::{GAP_SECONDS, GAP_SORT_KEY, narrowest_range, report_statement, sorted_statement};
    use crate::decision::Disposition;
    use crate::filter::{Sort, SortColumn};
    use crate::store::sqlite::Ledger;
    use crate::store::{CallbackFilter, CallbackKey, PageRequest};

    /// The gap sort key is the expression of `callbacks_review_by_gap` as a fresh
    /// ledger's schema holds it, and a gap-sorted page of a review list is read in
    /// order from that index, with no sort of its own.
    #[test]
    fn the_gap_sort_key_is_its_index_expression_and_a_gap_sorted_page_reads_the_index() {
        assert!(GAP_SORT_KEY.contains(GAP_SECONDS), "{GAP_SORT_KEY}");
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::open(&dir.path().join("l.db")).unwrap();
        let index: String = ledger
            .conn
            .query_row(
                "SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = 'callbacks_review_by_gap'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        let unnamed = GAP_SORT_KEY.replace("c.", "");
        assert!(index.contains(&unnamed), "{unnamed}\nnot in\n{index}");

        for descending in [false, true] {
            let filter = CallbackFilter {
                disposition: Some(Disposition::Hold),
                ..CallbackFilter::default()
            };
            let sort = Sort {
                column: SortColumn::Gap,
                descending,
            };
            let condition = filter.condition();
            let sql = sorted_statement(true, &filter, sort, &PageRequest::first(50), &condition);
            let mut st = ledger
                .conn
                .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
                .unwrap();
            let mut rows = st.raw_query();
            let mut plan = Vec::new();
            while let Some(row) = rows.next().unwrap() {
                plan.push(row.get::<_, String>(3).unwrap());
            }
            let plan = plan.join("\n");
            assert!(plan.contains("callbacks_review_by_gap"), "{plan}");
            assert!(!plan.contains("TEMP B-TREE"), "{plan}");
        }
    }

    /// A comparison of a gap, an arrival, an age or a timeout in a review list reads
    /// the callbacks in its range from the review lists' index of that value (by the
    /// same expression), not every callback's times; a negated one, and one in the
    /// list of every callback, check each row.
    #[test]
    fn a_comparison_in_a_review_list_reads_its_range_from_the_sort_index() {
        // Each index's value is its expression as a fresh ledger's schema holds it.
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::open(&dir.path().join("l.db")).unwrap();
        for (field, name) in [
            (crate::filter::Field::Gap, "callbacks_review_by_gap"),
            (
                crate::filter::Field::Arrived,
                "callbacks_review_by_arrival_time",
            ),
            (
                crate::filter::Field::Age,
                "callbacks_review_by_arrival_time",
            ),
            (crate::filter::Field::Timeout, "callbacks_review_by_timeout"),
            (crate::filter::Field::Reason, "callbacks_review_by_reason"),
            (crate::filter::Field::Outcome, "callbacks_review_by_outcome"),
        ] {
            let index = match super::review_callback_field(field) {
                Some(super::Column::Ranged(_, index)) => index,
                other => panic!("{field:?} of a review list is {other:?}"),
            };
            let schema: String = ledger
                .conn
                .query_row(
                    "SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ?1",
                    [name],
                    |row| row.get(0),
                )
                .unwrap();
            assert!(index.rows.contains(name), "{field:?}: {}", index.rows);
            assert!(
                schema.contains(index.value),
                "{}\nnot in\n{schema}",
                index.value
            );
            // A missing value is the one below every value: made so, or NULL.
            assert!(
                index.value.ends_with(&format!(", {})", index.none)) || !index.value.contains('('),
                "{}",
                index.value
            );
        }
        assert_eq!(super::BY_GAP.value, GAP_SORT_KEY.replace("c.", ""));
        // The late callbacks' index: the gap, kept where it is above 0.
        let late: String = ledger
            .conn
            .query_row(
                "SELECT sql FROM sqlite_schema WHERE name = 'callbacks_late_by_gap'",
                [],
                |row| row.get(0),
            )
            .unwrap();
        let index = super::LATE_BY_GAP;
        assert!(
            late.contains(&format!("{} > {}", index.value, index.none)),
            "{late}"
        );
        assert_eq!(index.value, GAP_SECONDS.replace("c.", ""));
        assert_eq!(index.above, Some(0));
        let plan = |disposition: Option<Disposition>, query: &str| {
            let filter = CallbackFilter {
                disposition,
                open: disposition.is_some(),
                query: crate::filter::Query::parse(query, crate::filter::Scope::Callbacks).unwrap(),
                ..CallbackFilter::default()
            };
            let condition = filter.condition_reading(Some(0));
            let page = PageRequest::first(50);
            let sql = sorted_statement(true, &filter, Sort::default(), &page, &condition);
            explain(&ledger, &sql, &filter, &condition)
        };
        for (query, index) in [
            ("gap>1h", "callbacks_review_by_gap"),
            ("gap<=-5m reason:late", "callbacks_review_by_gap"),
            (
                "arrived<2026-11-27T14:00",
                "callbacks_review_by_arrival_time",
            ),
            ("age>2h outcome:failure", "callbacks_review_by_arrival_time"),
            ("timeout>=2026-11-27T14:00", "callbacks_review_by_timeout"),
            ("outcome:failure", "callbacks_review_by_outcome"),
            ("reason:duplicate gap>1h", "callbacks_review_by_reason"),
        ] {
            for disposition in [Disposition::Hold, Disposition::Quarantine] {
                let read = plan(Some(disposition), query);
                assert!(
                    read.contains(&format!("{index} (disposition=? AND ")),
                    "{query}: {read}"
                );
            }
        }
        let read = plan(None, "gap>1h");
        assert!(
            read.contains("callbacks_late_by_gap (<expr>>?)"),
            "gap>1h: {read}"
        );
        for (disposition, query) in [
            (Some(Disposition::Hold), "-gap>1h"),
            (Some(Disposition::Hold), "-arrived<2026-11-27T14:00"),
            (None, "gap<1h"),
            (None, "gap>=0s"),
            (None, "timeout>=2026-11-27T14:00"),
        ] {
            let read = plan(disposition, query);
            assert!(!read.contains("LIST SUBQUERY"), "{query}: {read}");
        }
    }

    fn report_filter(disposition: Option<Disposition>, open: bool, query: &str) -> CallbackFilter {
        CallbackFilter {
            disposition,
            open,
            ..CallbackFilter::default()
        }
        .with_query(query, crate::demo::demo_now(), "ana")
        .unwrap()
    }

    /// How SQLite reads a report of `disposition` (or of open questions) under
    /// `query`, its first range read from its sorted index when `ranged`.
    fn report_plan(
        ledger: &Ledger,
        disposition: Option<Disposition>,
        open: bool,
        query: &str,
        ranged: bool,
    ) -> String {
        let filter = report_filter(disposition, open, query);
        let condition = filter.condition_reading(ranged.then_some(0));
        let sql = report_statement(&filter, &condition);
        explain(ledger, &sql, &filter, &condition)
    }

    /// The comparisons of `filter`'s query that a sorted index could read.
    fn indexed_ranges(filter: &CallbackFilter) -> usize {
        let condition = filter.condition();
        condition
            .ranges
            .iter()
            .filter(|r| r.index.is_some())
            .count()
    }

    /// How SQLite would read `sql`, a statement of `filter`'s callbacks under
    /// `condition`: its query plan, one step a line.
    fn explain(
        ledger: &Ledger,
        sql: &str,
        filter: &CallbackFilter,
        condition: &super::Condition,
    ) -> String {
        let mut st = ledger
            .conn
            .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .unwrap();
        let mut named: Vec<(&str, &dyn rusqlite::ToSql)> =
            vec![(":disposition", &filter.disposition)];
        named.extend(condition.named());
        super::query_named(&mut st, &named, |row| row.get::<_, String>(3))
            .unwrap()
            .join("\n")
    }

    /// A report of a review list can read the rows a comparison keeps as a range of
    /// the sorted index of the column compared (gaps, arrivals and ages, timeouts),
    /// looking them up in its own index in ledger order; a negated comparison makes
    /// no range. Without a range a review list is read from its own index in ledger
    /// order, looked up by the text index's rows for a text term; a report of every
    /// callback reads the text index for a text term, and never a review list's
    /// partial index.
    #[test]
    fn a_report_reads_the_index_that_serves_its_query() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::open(&dir.path().join("l.db")).unwrap();
        let hold = Some(Disposition::Hold);
        for (disposition, open, query, index) in [
            (hold, false, "gap>1h", "by_gap (disposition=? AND <expr>>?)"),
            (
                hold,
                false,
                "gap<=5m outcome:failure",
                "by_gap (disposition=? AND <expr>>? AND <expr><?)",
            ),
            (None, true, "gap>=1m", "by_gap (disposition=? AND <expr>>?)"),
            (
                hold,
                false,
                "age<7d",
                "by_arrival_time (disposition=? AND <expr>>?)",
            ),
            (
                hold,
                false,
                "arrived<2026-11-01",
                "by_arrival_time (disposition=? AND <expr>>? AND <expr><?)",
            ),
            (
                Some(Disposition::Quarantine),
                false,
                "timeout>=2026-11-01",
                "by_timeout (disposition=? AND <expr>>?)",
            ),
        ] {
            let plan = report_plan(&ledger, disposition, open, query, true);
            let index = format!("INDEX callbacks_review_{index}");
            assert!(plan.contains(&index), "{query}: {plan}");
            assert!(plan.contains("callbacks_review_list"), "{query}: {plan}");
            let plan = report_plan(&ledger, disposition, open, query, false);
            assert!(plan.contains("callbacks_review_list"), "{query}: {plan}");
            assert!(!plan.contains("callbacks_review_by"), "{query}: {plan}");
        }
        for query in ["", "-gap>1h", "-outcome:failure", "job:123456 -gap>1h"] {
            let filter = report_filter(hold, false, query);
            assert_eq!(indexed_ranges(&filter), 0, "{query}");
            let plan = report_plan(&ledger, hold, false, query, false);
            assert!(
                plan.contains("callbacks_review_list (disposition=?"),
                "{query}: {plan}"
            );
            assert!(!plan.contains("TEMP B-TREE"), "{query}: {plan}");
            let text = query.contains("job:");
            assert_eq!(plan.contains("VIRTUAL TABLE"), text, "{query}: {plan}");
        }
        for query in ["job:123456", "by:staff gap>1h", "hotel", "gap>1h"] {
            let filter = report_filter(None, false, query);
            // The late callbacks' gap index serves a gap above a bound of 0 or more.
            let late = usize::from(query.contains("gap>1h"));
            assert_eq!(indexed_ranges(&filter), late, "{query}");
            let plan = report_plan(&ledger, None, false, query, false);
            let text = !query.starts_with("gap");
            assert_eq!(
                plan.contains("VIRTUAL TABLE INDEX"),
                text,
                "{query}: {plan}"
            );
            assert!(!plan.contains("review"), "{query}: {plan}");
        }
    }

    /// A page of a text search reads the text index's rows near its key, and past
    /// them when they hold less than a page: every page, in every direction, is the
    /// page that checking each callback's text gives.
    #[test]
    fn a_text_search_near_the_key_gives_the_rows_of_checking_every_callback() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("l.db");
        crate::demo::build(
            &path,
            crate::demo::demo_now(),
            crate::demo::DemoData::Synthetic { jobs: 300, seed: 5 },
            |_| {},
        )
        .unwrap();
        let ledger = Ledger::open(&path).unwrap();
        let queries = [
            "by:staff",
            "job:job-00",
            "job:0012",
            "staff",
            "12",
            "hotel",
            "job:1 by:a",
            "job:9 staff",
            "job:2 -by:staff",
            // A word every callback holds, read through the index, beside one few
            // hold, checked row by row: the first rows near the key keep none.
            "job:job-000 delivery:-b",
            "job:job-000 -delivery:-a",
        ];
        for disposition in [None, Some(Disposition::Hold)] {
            for query in queries {
                let filter = report_filter(disposition, false, query);
                every_page_as_checked(&ledger, &filter, &[1, 2, 3, 5, 40]);
            }
        }
    }

    /// The callbacks `filter` keeps, each one's text and every comparison checked, in
    /// ledger order (`sort`) on `page`: what reading through an index must give.
    fn checked_page(
        ledger: &Ledger,
        filter: &CallbackFilter,
        sort: Sort,
        page: &PageRequest<CallbackKey>,
    ) -> Vec<i64> {
        let checked = filter.condition_with(None, false);
        let sql = sorted_statement(true, filter, sort, page, &checked);
        let rows = ledger.sorted_rows(&sql, filter, page, &checked).unwrap();
        rows.into_iter().map(|(row, _)| row.seq).collect()
    }

    /// Every page of `filter`'s list in ledger order, either way, from the first,
    /// the last and around its middle row, of each of `limits` rows, is the
    /// [`checked_page`]; returns every row it keeps.
    fn every_page_as_checked(
        ledger: &Ledger,
        filter: &CallbackFilter,
        limits: &[usize],
    ) -> Vec<i64> {
        use crate::store::Keyset;
        let seqs = checked_page(
            ledger,
            filter,
            Sort::default(),
            &PageRequest::first(100_000),
        );
        let middle = seqs.get(seqs.len() / 2).copied().unwrap_or(1);
        let key = CallbackKey::in_ledger_order(middle);
        for descending in [false, true] {
            let sort = Sort {
                descending,
                ..Sort::default()
            };
            for keyset in [
                Keyset::First,
                Keyset::Last,
                Keyset::After(key.clone()),
                Keyset::From(key.clone()),
                Keyset::Before(key.clone()),
            ] {
                for &limit in limits {
                    let page = PageRequest::at(keyset.clone(), limit);
                    let read: Vec<i64> = ledger
                        .callbacks_sorted_page(filter, sort, &page)
                        .unwrap()
                        .into_iter()
                        .map(|(row, _)| row.seq)
                        .collect();
                    let want = checked_page(ledger, filter, sort, &page);
                    assert_eq!(read, want, "{:?} {sort:?} {page:?}", filter.query);
                }
            }
        }
        seqs
    }

    /// Every page, count, report and selection read among the callbacks both a text
    /// term's index and a range's give is what checking each callback gives.
    #[test]
    fn a_search_among_the_rows_its_indexes_give_gives_the_rows_of_checking_every_callback() {
        use super::{among_indexes, filtered_values, query_named, report_statement};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("l.db");
        crate::demo::build(
            &path,
            crate::demo::demo_now(),
            crate::demo::DemoData::Synthetic {
                jobs: 2_000,
                seed: 7,
            },
            |_| {},
        )
        .unwrap();
        let ledger = Ledger::open(&path).unwrap();
        let cases = [
            (None, "by:staff gap>0"),
            (None, "staff gap>1s"),
            (None, "job:job-0 gap>0"),
            (None, "job:job-00 gap>1s -outcome:success"),
            (None, "job:job-1 delivery:d- gap>0"),
            (Some(Disposition::Hold), "job:job-0 outcome:failure"),
            (Some(Disposition::Hold), "by:staff gap>1s"),
            (Some(Disposition::Hold), "job:job-00 reason:duplicate"),
            (
                Some(Disposition::Hold),
                "job:job-0 arrived<2026-11-27T14:05:00Z",
            ),
            (
                Some(Disposition::Hold),
                "by:staff arrived>2026-11-27T15:30:00Z",
            ),
            (
                Some(Disposition::Hold),
                "job:job-2 -by:staff arrived<2026-11-27T14:10:00Z",
            ),
            // Words few callbacks hold, read among the text index's rows alone.
            (None, "job:0001999"),
            (None, "staff"),
            (None, "0001998 -outcome:success"),
            (Some(Disposition::Hold), "job:0000777"),
            (Some(Disposition::Hold), "staff -answered:yes"),
            (Some(Disposition::Hold), "job:0001777 gap>1s"),
        ];
        let mut through_both = 0;
        for (disposition, query) in cases {
            let filter = report_filter(disposition, false, query);
            let both = ledger
                .run(|c| among_indexes(c, &filter, None, false))
                .unwrap();
            through_both += usize::from(both.is_some());
            let seqs = every_page_as_checked(&ledger, &filter, &[1, 2, 3, 40]);
            assert_eq!(
                ledger.count_callbacks(&filter).unwrap(),
                i64::try_from(seqs.len()).unwrap(),
                "{query}"
            );
            assert_eq!(ledger.callback_seqs(&filter).unwrap(), seqs, "{query}");
            let checked = filter.condition_with(None, false);
            let report = report_statement(&filter, &checked);
            let reported: Vec<i64> = ledger
                .run(|c| {
                    let mut st = c.prepare_cached(&report)?;
                    query_named(&mut st, &filtered_values(&filter, &checked), |row| {
                        row.get(0)
                    })
                })
                .unwrap();
            assert_eq!(reported, seqs, "{query}");
        }
        assert_eq!(through_both, 14, "the cases read among their indexes' rows");
    }

    /// The callbacks found from both indexes, kept for the next statement, are
    /// found again once more callbacks are kept: a search made before half the
    /// stream was ingested counts and pages the rest once it is in.
    #[test]
    fn callbacks_kept_after_a_search_through_both_indexes_are_found_by_the_next() {
        use super::among_indexes;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("l.db");
        let now = crate::demo::demo_now();
        let mut stream = Vec::new();
        let start = crate::demo::synthetic_start(2_000, now);
        crate::demo::synthetic::write_stream(&mut stream, 2_000, 7, start).unwrap();
        let lines: Vec<&[u8]> = stream.split_inclusive(|b| *b == b'\n').collect();
        let (first, rest) = lines.split_at(lines.len() / 2);
        let mut writing = crate::store::Ledger::open(&path).unwrap();
        let ingest = |ledger: &mut crate::store::Ledger, lines: &[&[u8]]| {
            crate::ingest::ingest(ledger, lines.concat().as_slice(), now, |_| {}).unwrap();
        };
        ingest(&mut writing, first);
        let ledger = Ledger::open(&path).unwrap();
        let filter = report_filter(None, false, "job:job-0 gap>0");
        let checked = filter.condition_with(None, false);
        let every = |ledger: &Ledger| -> Vec<i64> {
            let page = PageRequest::first(100_000);
            let sql = sorted_statement(true, &filter, Sort::default(), &page, &checked);
            let rows = ledger.sorted_rows(&sql, &filter, &page, &checked).unwrap();
            rows.into_iter().map(|(row, _)| row.seq).collect()
        };
        let last_page = |ledger: &Ledger| -> Vec<i64> {
            let page = PageRequest::at(crate::store::Keyset::Last, 5);
            let rows = ledger.callbacks_sorted_page(&filter, Sort::default(), &page);
            rows.unwrap().into_iter().map(|(row, _)| row.seq).collect()
        };
        let before = every(&ledger);
        assert_eq!(
            ledger.count_callbacks(&filter).unwrap(),
            i64::try_from(before.len()).unwrap()
        );
        assert_eq!(last_page(&ledger), before[before.len() - 5..]);
        let kept = ledger.run(|c| among_indexes(c, &filter, Some(&ledger.chosen), true));
        assert!(kept.unwrap().is_some(), "the callbacks found are kept");
        ingest(&mut writing, rest);
        let after = every(&ledger);
        assert!(
            after.len() > before.len(),
            "the rest of the stream adds some"
        );
        assert_eq!(
            ledger.count_callbacks(&filter).unwrap(),
            i64::try_from(after.len()).unwrap()
        );
        assert_eq!(last_page(&ledger), after[after.len() - 5..]);
        assert_eq!(ledger.callback_seqs(&filter).unwrap(), after);
    }

    /// A page reads a range only when walking the list would read more rows than
    /// the range holds (four times over); a count or a report, when it holds at
    /// most a quarter of the list.
    #[test]
    fn a_page_reads_a_range_narrower_than_a_count_does() {
        use super::worth_reading;
        assert!(worth_reading(16_000, 64_000, None));
        assert!(!worth_reading(16_001, 64_000, None));
        assert!(worth_reading(7_000, 64_000, Some(48)));
        assert!(!worth_reading(8_000, 64_000, Some(48)));
        assert!(worth_reading(27_000, 1_000_000, Some(48)));
        assert!(!worth_reading(28_000, 1_000_000, Some(48)));
        // Never wider than a count's.
        assert!(!worth_reading(60, 200, Some(48)));
        assert!(worth_reading(0, 0, Some(48)));
    }

    /// A range is read only when it holds at most a quarter of the list (counted, the
    /// narrowest of them taken): a range that holds most of the list is slower to
    /// read, row by row, than the list's own index. Pages, counts and reports choose
    /// alike.
    #[test]
    fn a_range_is_read_only_when_it_holds_few_of_the_list() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("l.db");
        crate::demo::build(
            &path,
            crate::demo::demo_now(),
            crate::demo::DemoData::Synthetic { jobs: 400, seed: 3 },
            |_| {},
        )
        .unwrap();
        let ledger = Ledger::open(&path).unwrap();
        let hold = Some(Disposition::Hold);
        let gap_index = Some(super::BY_GAP);
        for (disposition, open, query, index) in [
            (hold, false, "gap>1h", gap_index),
            (hold, false, "gap>-1h", None),
            (hold, false, "gap>-1h gap>1h", gap_index),
            (hold, false, "-gap>1h", None),
            (None, true, "gap<-1h", gap_index),
            (hold, false, "age>400d", Some(super::BY_ARRIVAL)),
            (hold, false, "age>400d gap>1h", Some(super::BY_ARRIVAL)),
            (hold, false, "age<400d", None),
            (hold, false, "hotel gap>1h", gap_index),
            (hold, false, "outcome:failure", Some(super::BY_OUTCOME)),
            (hold, false, "outcome:success", None),
            (
                hold,
                false,
                "gap>-1h outcome:failure",
                Some(super::BY_OUTCOME),
            ),
            (None, false, "gap>1h", Some(super::LATE_BY_GAP)),
            (None, false, "gap>=1s", Some(super::LATE_BY_GAP)),
            (None, false, "gap>=0s", None),
            (None, false, "gap>-1h", None),
            (None, false, "gap<1h", None),
        ] {
            let filter = report_filter(disposition, open, query);
            let condition = filter.condition();
            let narrowest = narrowest_range(&ledger.conn, &filter, &condition).unwrap();
            let chosen = super::worth_it(narrowest, None)
                .and_then(|(number, _)| condition.ranges[number].index);
            assert_eq!(chosen, index, "{query}");
            let read = super::chosen_condition(&ledger.conn, &filter, None, None).unwrap();
            let sql = read.sql.as_deref().unwrap_or_default();
            assert_eq!(sql.contains("INDEXED BY"), index.is_some(), "{query}");
            // The few callbacks of a range are checked for text, not looked up in
            // the text index too.
            if query.contains("hotel") {
                assert!(!sql.contains("MATCH"), "{query}: {sql}");
            }
        }
    }
}
