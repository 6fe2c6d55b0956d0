//! A query of the filter language ([`crate::filter`]) turned into a condition of a
//! list's statement. User text is never written into the SQL: every value is bound
//! (`:q0`, `:q1`, ...), so the same shape of query is the same
//! statement, prepared once.

use std::fmt::Write as _;

use rusqlite::types::Value as SqlValue;
use rusqlite::{Row, Statement, ToSql};

use crate::clock::Timestamp;
use crate::filter::{Bound, Comparison, Field, Query, Test, Value, lowered};

/// How a field of one list reads in SQL.
#[derive(Debug, Clone, Copy)]
pub(super) enum Column {
    /// Text that must contain the value, in any case.
    Text(&'static str),
    /// [`Column::Text`] that the list's [`TextIndex`] also holds, in this column of
    /// the index.
    IndexedText(&'static str, &'static str),
    /// A code of a closed set, whose name must contain the value, in any case: the
    /// codes whose names do are found here and asked for by name.
    Code(&'static str, CodeNames),
    /// A closed-set name that must equal the value.
    Equals(&'static str),
    /// A condition that `yes` asks to hold and `no` not to.
    Flag(&'static str),
    /// A signed number of seconds.
    Seconds(&'static str),
    /// A column whose value an index also keeps, as [`RangeIndex`] says: one
    /// compared ([`Column::Seconds`], [`Column::Time`], [`Column::AgeOf`]) or one of a
    /// closed set ([`Column::Equals`], [`Column::Code`]).
    Ranged(&'static Column, RangeIndex),
    /// A time.
    Time(&'static str),
    /// A time, compared as the age it has at `now`.
    AgeOf(&'static str),
}

/// An index that keeps a value in order, a row without a value under a value of its
/// own below every real one: a comparison (or a closed-set name) is the rows whose
/// indexed value lies in its range (and above that one), read from the index, with no
/// check of each row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct RangeIndex {
    /// The list row's key.
    pub key: &'static str,
    /// A statement of the keys of the index's rows, its `WHERE` clause begun.
    pub rows: &'static str,
    /// The indexed expression: the value, or [`RangeIndex::none`] without one.
    pub value: &'static str,
    /// The value the index gives a row without one.
    pub none: &'static str,
    /// The index holds only the rows whose value is above this (its partial
    /// `WHERE` is `value > none`, `none` this number): it serves only a comparison
    /// that keeps no other row.
    pub above: Option<i64>,
}

impl RangeIndex {
    /// A statement of the keys of the index's rows whose value passes `test` (the
    /// value's side of it left out: `> :q0`, `IN (:q1, :q2)`).
    fn rows_where(&self, test: &str) -> String {
        format!(
            "{rows} AND {value} {test} AND {value} > {none}",
            rows = self.rows,
            value = self.value,
            none = self.none,
        )
    }
}

/// Every name of a closed set of codes.
pub(super) type CodeNames = fn() -> Vec<&'static str>;

/// How the fields and bare words of one kind of list read in SQL.
pub(super) struct Columns {
    /// The column of each field the list has.
    pub field: fn(Field) -> Option<Column>,
    /// Where a bare word is looked for.
    pub words: &'static [&'static str],
    /// The list's trigram index of its text, when it has one.
    pub text_index: Option<TextIndex>,
}

/// A trigram index of a list's text (a contentless FTS5 table with the `trigram`
/// tokenizer, holding the text lowered by [`lowered`]): it gives the rows that hold
/// every trigram of a needle, a superset of those that contain it, and only those
/// rows are then checked. A needle of fewer than three characters has no trigram:
/// every row is checked, as without an index.
#[derive(Debug, Clone, Copy)]
pub(super) struct TextIndex {
    /// The index's table.
    pub table: &'static str,
    /// The list row's key, which is the index's rowid.
    pub key: &'static str,
    /// The index's columns that hold some of the list's [`Columns::words`].
    pub words: &'static [&'static str],
    /// The list's other [`Columns::words`]: codes of closed sets, asked for by the
    /// names that contain a word.
    pub coded_words: &'static [(&'static str, CodeNames)],
}

/// Distinct trigrams asked of the index at most: more would narrow little further,
/// and the check that follows keeps the answer exact.
const MOST_TRIGRAMS: usize = 32;

/// The FTS5 query asking `columns` of an index for every trigram of `needle` (lowered
/// already), or `None` when it has none. Each trigram is a quoted string (a double
/// quote doubled), so no character of the needle is read as the query syntax's.
fn trigram_query(columns: &[&str], needle: &str) -> Option<String> {
    let chars: Vec<char> = needle.chars().collect();
    let mut seen = std::collections::HashSet::new();
    let trigrams: Vec<String> = chars
        .windows(3)
        .map(|w| w.iter().collect::<String>())
        .filter(|t| seen.insert(t.clone()))
        .take(MOST_TRIGRAMS)
        .collect();
    if trigrams.is_empty() {
        return None;
    }
    let quoted: Vec<String> = trigrams
        .iter()
        .map(|t| format!("\"{}\"", t.replace('"', "\"\"")))
        .collect();
    Some(format!(
        "{{{}}} : ({})",
        columns.join(" "),
        quoted.join(" ")
    ))
}

/// A condition with the values it binds.
#[derive(Debug, Default)]
pub(super) struct Condition {
    /// SQL for the `WHERE` clause; `None` when the query keeps every row.
    pub sql: Option<String>,
    /// Values bound by name.
    pub values: Vec<(String, SqlValue)>,
    /// Some term keeps only rows the list's [`TextIndex`] gives.
    pub through_text_index: bool,
    /// The number of the range read from its index, when one is.
    pub read_range: Option<usize>,
    /// The text index's rows are read only [`Near`] a key, when given.
    near: Option<Near>,
    /// Each text term's rows near the key, as statements ([`Condition::near`]).
    pub near_rows: Vec<String>,
    /// Every row the text index gives for each text term not negated, as statements,
    /// each with the index query it asks (on which alone its rows depend): each a
    /// superset of the rows its term keeps (a word that also names a code has none,
    /// its rows being those of the code as well).
    pub text_rows: Vec<(String, String)>,
    /// The comparisons and closed-set names every kept row meets (those of terms not
    /// negated), which an index holding the column in order could serve as a range.
    pub ranges: Vec<Range>,
    /// The time ages are counted at.
    now: Option<Timestamp>,
    /// The term just compiled is the comparison whose rows are read from its index.
    reading: bool,
    /// The index's rows for the term just compiled, when an index serves it.
    through: Option<String>,
    /// Those rows are exactly the term's: its check need not be asked of them.
    exact: bool,
    /// The comparison of the term just compiled, when it is one.
    compared: Option<Range>,
}

/// The first [`NEAR_ROWS`] rows the text index gives from a key on, in one
/// direction, in place of all it gives: a word most callbacks hold gives a page of
/// them within its first few thousand, where listing all of them cost tens of
/// milliseconds before a page was read.
#[derive(Debug, Clone)]
pub(super) struct Near {
    /// The rows' keys from the page's key on (`rowid > :seq`).
    pub bound: String,
    /// `ASC` reading on, `DESC` reading back.
    pub direction: &'static str,
    /// How many rows of each text term are read, at most [`NEAR_ROWS`] (bound, so
    /// the statement is the same whatever the number).
    pub rows: usize,
}

/// The rows of the text index read [`Near`] a key at most (a handful in the unit
/// tests, whose ledgers are small, so that a page is often read past them).
pub(super) const NEAR_ROWS: usize = if cfg!(test) { 8 } else { 4096 };

/// A test of a column's value that every kept row passes: a comparison with a bound
/// value, or the names of a closed set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Range {
    /// The test, the value's side left out (`> :q3`, `IN (:q1, :q2)`).
    pub test: String,
    /// The index that keeps the column in order, where the list has one.
    pub index: Option<RangeIndex>,
}

impl Range {
    /// A statement of the keys of the rows the test keeps, read from its index
    /// alone; `None` without one.
    pub fn rows(&self) -> Option<String> {
        self.index.map(|index| index.rows_where(&self.test))
    }
}

/// The condition `query` sets on a list whose fields read as `columns`, with ages
/// counted at `now` (an age term keeps no row without it). Each row is checked
/// against every comparison; [`condition_reading`] reads one from its index instead.
pub(super) fn condition(query: &Query, columns: &Columns, now: Option<Timestamp>) -> Condition {
    condition_reading(query, columns, now, None, None)
}

/// [`condition`], with the rows of the comparison numbered `range` among
/// [`Condition::ranges`] read from the index that keeps its column, as a term of
/// their own with no check of each row (when the list has that index), and the text
/// index's rows read only `near` a key when given.
pub(super) fn condition_reading(
    query: &Query,
    columns: &Columns,
    now: Option<Timestamp>,
    range: Option<usize>,
    near: Option<Near>,
) -> Condition {
    let mut compiled = Condition {
        now,
        read_range: range,
        near,
        ..Condition::default()
    };
    let mut parts = Vec::new();
    for term in query.terms() {
        compiled.through = None;
        compiled.exact = false;
        compiled.compared = None;
        // Only a term not negated is a range, numbered in the order they come.
        compiled.reading = !term.negated && range == Some(compiled.ranges.len());
        let (near_rows, text_rows) = (compiled.near_rows.len(), compiled.text_rows.len());
        let test = compiled.test(&term.test, columns);
        if term.negated {
            // A negated term reads no rows from the index.
            compiled.near_rows.truncate(near_rows);
            compiled.text_rows.truncate(text_rows);
        }
        if let (false, Some(range)) = (term.negated, compiled.compared.take()) {
            compiled.ranges.push(range);
        }
        parts.push(match (term.negated, compiled.through.take()) {
            (true, _) => format!("NOT coalesce({test}, 0)"),
            (false, Some(through)) if compiled.exact => through,
            // The index's rows as a term of its own, outside any function, where the
            // planner can read the list's rows by them; the check stays beside it.
            (false, Some(through)) => {
                compiled.through_text_index = true;
                format!("{through} AND coalesce({test}, 0)")
            }
            (false, None) => format!("coalesce({test}, 0)"),
        });
    }
    if parts.is_empty() {
        return compiled;
    }
    compiled.sql = Some(format!("({})", all_of(&parts)));
    compiled
}

/// `parts` joined by AND as a balanced tree, `(a AND b) AND (c AND d)`: SQLite reads
/// `a AND b AND c ...` as a chain one level deeper per term, and refuses a chain of
/// about a thousand ("Expression tree is too large", its depth limit of 1,000). A
/// balanced tree is log2(n) deep; the planner splits AND-ed terms from either shape.
fn all_of(parts: &[String]) -> String {
    match parts {
        [] => "1".to_owned(),
        [one] => one.clone(),
        _ => {
            let (left, right) = parts.split_at(parts.len() / 2);
            format!("({}) AND ({})", all_of(left), all_of(right))
        }
    }
}

impl Condition {
    fn bind(&mut self, value: SqlValue) -> String {
        let name = format!(":q{}", self.values.len());
        self.values.push((name.clone(), value));
        name
    }

    fn test(&mut self, test: &Test, columns: &Columns) -> String {
        match test {
            Test::Words(text) => {
                let needle = lowered(text);
                let q = self.bind(SqlValue::Text(needle.clone()));
                let mut sql = String::from("(");
                for (i, word) in columns.words.iter().enumerate() {
                    let or = if i == 0 { "" } else { " OR " };
                    let _ = write!(sql, "{or}{CONTAINS_LOWERED}({word}, {q})");
                }
                sql.push(')');
                let Some(index) = columns.text_index else {
                    return sql;
                };
                let check = self.through_index(index, index.words, &needle, sql);
                // A row may hold the word in a code instead: those rows too.
                if let Some(through) = self.through.take() {
                    let mut either = vec![through];
                    for (expr, names) in index.coded_words {
                        if let Some(named) = self.named_codes(expr, names(), &needle) {
                            either.push(named);
                        }
                    }
                    if either.len() > 1 {
                        // The index's rows are no longer all the term keeps.
                        self.text_rows.pop();
                    }
                    self.through = Some(format!("({})", either.join(" OR ")));
                }
                check
            }
            Test::Is(field, value) => self.is(columns, *field, value),
            Test::Compare(field, op, bound) => self.compare(columns, *field, *op, *bound),
        }
    }

    /// The test that `field` is `value`.
    fn is(&mut self, columns: &Columns, field: Field, value: &Value) -> String {
        let (column, index) = ranged((columns.field)(field));
        match (column, value) {
            (Some(Column::Text(expr)), Value::Text(text)) => {
                let q = self.bind(SqlValue::Text(lowered(text)));
                format!("{CONTAINS_LOWERED}({expr}, {q})")
            }
            (Some(Column::IndexedText(expr, column)), Value::Text(text)) => {
                let needle = lowered(text);
                let q = self.bind(SqlValue::Text(needle.clone()));
                let check = format!("{CONTAINS_LOWERED}({expr}, {q})");
                match columns.text_index {
                    Some(index) => self.through_index(index, &[column], &needle, check),
                    None => check,
                }
            }
            (Some(Column::Code(expr, names)), Value::Text(text)) => {
                match self.codes_in(names(), &lowered(text)) {
                    Some(test) => self.ranged(expr, test, index),
                    None => "0".to_owned(),
                }
            }
            (
                Some(Column::Text(expr) | Column::IndexedText(expr, _) | Column::Code(expr, _)),
                Value::Nothing,
            ) => {
                format!("({expr}) IS NULL")
            }
            (Some(Column::Equals(expr)), value) => match self.equals(value) {
                Some(test) => self.ranged(expr, test, index),
                None => "0".to_owned(),
            },
            (Some(Column::Flag(expr)), Value::Yes(yes)) => {
                if *yes {
                    format!("({expr})")
                } else {
                    format!("NOT ({expr})")
                }
            }
            // A field the list lacks keeps no row; the parser refuses it first.
            _ => "0".to_owned(),
        }
    }

    /// `expr IN (...)` the codes of `names` whose names contain `needle` (lowered
    /// already), or `None` when none does.
    fn named_codes(&mut self, expr: &str, names: Vec<&str>, needle: &str) -> Option<String> {
        self.codes_in(names, needle)
            .map(|test| format!("{expr} {test}"))
    }

    /// `IN (...)` the codes of `names` whose names contain `needle` (lowered already),
    /// or `None` when none does.
    fn codes_in(&mut self, names: Vec<&str>, needle: &str) -> Option<String> {
        let named: Vec<String> = names
            .into_iter()
            .filter(|name| lowered(name).contains(needle))
            .map(|name| self.bind(SqlValue::Text(name.to_owned())))
            .collect();
        (!named.is_empty()).then(|| format!("IN ({})", named.join(", ")))
    }

    /// `= :q`, `value` a closed set's name, or `None` for a value of no closed set.
    fn equals(&mut self, value: &Value) -> Option<String> {
        let name = match value {
            Value::Disposition(d) => d.as_str(),
            Value::Outcome(o) => o.as_str(),
            Value::Verdict(v) => v.as_str(),
            Value::Text(_) | Value::Nothing | Value::Yes(_) => return None,
        };
        let q = self.bind(SqlValue::Text(name.to_owned()));
        Some(format!("= {q}"))
    }

    /// `{expr} {test}`, the term's check, noted as a range of `index` (which keeps
    /// `expr`), and read from it instead when the term is the one to read.
    fn ranged(&mut self, expr: &str, test: String, index: Option<RangeIndex>) -> String {
        let range = Range { test, index };
        if let (true, Some(index), Some(rows)) = (self.reading, index, range.rows()) {
            self.through = Some(format!("{} IN ({rows})", index.key));
            self.exact = true;
        }
        let check = format!("{expr} {}", range.test);
        self.compared = Some(range);
        // Not asked of the rows an index gives.
        check
    }

    /// `check` (whether a row contains `needle`), with the rows `index` gives for
    /// `needle`'s trigrams in `in_columns` (when it has any) kept as the term's
    /// [`Condition::through`]: the check is then asked only of those rows.
    fn through_index(
        &mut self,
        index: TextIndex,
        in_columns: &[&str],
        needle: &str,
        check: String,
    ) -> String {
        if let Some(query) = trigram_query(in_columns, needle) {
            let m = self.bind(SqlValue::Text(query.clone()));
            let mut rows = format!(
                "SELECT rowid FROM {table} WHERE {table} MATCH {m}",
                table = index.table
            );
            self.text_rows.push((rows.clone(), query));
            if let Some(near) = self.near.clone() {
                let limit = self.bind(SqlValue::Integer(
                    i64::try_from(near.rows.min(NEAR_ROWS)).unwrap_or(0),
                ));
                let _ = write!(
                    rows,
                    " AND rowid {} ORDER BY rowid {} LIMIT {limit}",
                    near.bound, near.direction
                );
                self.near_rows.push(rows.clone());
            }
            self.through = Some(format!("{key} IN ({rows})", key = index.key));
        }
        check
    }

    fn compare(&mut self, columns: &Columns, field: Field, op: Comparison, bound: Bound) -> String {
        let (Some(column), index) = ranged((columns.field)(field)) else {
            return "0".to_owned();
        };
        let index = index.filter(|index| serves(index.above, op, bound));
        let Some((expr, op, q)) = self.comparison(column, op, bound) else {
            return "0".to_owned();
        };
        self.ranged(expr, format!("{op} {q}"), index)
    }

    /// A comparison of `column` with `bound`, as its expression, operator and bound
    /// value (bound here); `None` when the column is not compared with such a bound.
    fn comparison(
        &mut self,
        column: Column,
        op: Comparison,
        bound: Bound,
    ) -> Option<(&'static str, &'static str, String)> {
        Some(match (column, bound) {
            (Column::Seconds(expr), Bound::Seconds(s)) => {
                (expr, op.symbol(), self.bind(SqlValue::Integer(s)))
            }
            (Column::Time(expr), Bound::At(at)) => (
                expr,
                op.symbol(),
                self.bind(SqlValue::Text(at.to_ledger_text())),
            ),
            // A time from now: with no clock, no row is kept (as with an age).
            (Column::Time(expr), Bound::FromNow(s)) => {
                let at = self.now.map(|now| now.plus_seconds(s));
                let q =
                    self.bind(at.map_or(SqlValue::Null, |t| SqlValue::Text(t.to_ledger_text())));
                (expr, op.symbol(), q)
            }
            // Older than `s` is a start before `now - s`: compared as times, along an
            // index where the list has one.
            (Column::AgeOf(expr), Bound::Seconds(s)) => {
                let start = self.now.map(|now| now.plus_seconds(s.saturating_neg()));
                let q =
                    self.bind(start.map_or(SqlValue::Null, |t| SqlValue::Text(t.to_ledger_text())));
                (expr, op.flipped().symbol(), q)
            }
            _ => return None,
        })
    }
}

/// Whether an index holding only values above `above` (every value, without one)
/// holds every row that `op bound` keeps.
fn serves(above: Option<i64>, op: Comparison, bound: Bound) -> bool {
    match (above, op, bound) {
        (None, _, _) => true,
        (Some(above), Comparison::Greater, Bound::Seconds(s)) => s >= above,
        (Some(above), Comparison::GreaterOrEqual, Bound::Seconds(s)) => s > above,
        _ => false,
    }
}

/// A column, and the index that keeps its value when it is [`Column::Ranged`].
fn ranged(column: Option<Column>) -> (Option<Column>, Option<RangeIndex>) {
    match column {
        Some(Column::Ranged(column, index)) => (Some(*column), Some(index)),
        column => (column, None),
    }
}

/// The SQL function that tells whether its first argument, in lower case by
/// [`lowered`], contains its second (already lowered): SQLite's own `lower()` lowers
/// A to Z alone, so `job:über` missed `Job-ÜBER-1`. NULL for a NULL text.
const CONTAINS_LOWERED: &str = "jobledger_contains_lowered";

/// The SQL function that gives its argument lowered by [`lowered`] (NULL stays
/// NULL): what the trigram index of callbacks' text holds (migration 016's trigger).
const LOWERED: &str = "jobledger_lowered";

/// The SQL aggregate that gives the integers of its rows as one blob, each eight
/// bytes, little-endian, in the order read ([`keys_of`] reads it): tens of thousands
/// of keys read from an index in one row took half the instructions of a row each.
const KEYS: &str = "jobledger_keys";

/// The keys a statement of one integer column gives (`rows`, its values `named`),
/// in the order read, through [`KEYS`].
pub(super) fn keys_of(
    conn: &rusqlite::Connection,
    rows: &str,
    named: &[(&str, &dyn ToSql)],
) -> rusqlite::Result<Vec<i64>> {
    let mut st = conn.prepare_cached(&format!("WITH r(k) AS ({rows}) SELECT {KEYS}(k) FROM r"))?;
    let blob: Vec<Vec<u8>> = query_named(&mut st, named, |row| row.get(0))?;
    Ok(blob
        .first()
        .map(|blob| {
            blob.chunks_exact(8)
                .map(|key| i64::from_le_bytes(key.try_into().unwrap_or_default()))
                .collect()
        })
        .unwrap_or_default())
}

/// [`KEYS`]: each row's integer appended to a blob.
struct Keys;

impl rusqlite::functions::Aggregate<Vec<u8>, Vec<u8>> for Keys {
    fn init(&self, _: &mut rusqlite::functions::Context<'_>) -> rusqlite::Result<Vec<u8>> {
        Ok(Vec::new())
    }

    fn step(
        &self,
        ctx: &mut rusqlite::functions::Context<'_>,
        keys: &mut Vec<u8>,
    ) -> rusqlite::Result<()> {
        keys.extend_from_slice(&ctx.get::<i64>(0)?.to_le_bytes());
        Ok(())
    }

    fn finalize(
        &self,
        _: &mut rusqlite::functions::Context<'_>,
        keys: Option<Vec<u8>>,
    ) -> rusqlite::Result<Vec<u8>> {
        Ok(keys.unwrap_or_default())
    }
}

/// Makes [`CONTAINS_LOWERED`], [`LOWERED`] and [`KEYS`] known to `conn`: every
/// query's SQL needs the first, keeping a callback (its index trigger) the second,
/// a search through two indexes the third.
pub(super) fn register_functions(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    use rusqlite::functions::FunctionFlags;
    conn.create_aggregate_function(
        KEYS,
        1,
        FunctionFlags::SQLITE_UTF8
            | FunctionFlags::SQLITE_DETERMINISTIC
            | FunctionFlags::SQLITE_INNOCUOUS,
        Keys,
    )?;
    conn.create_scalar_function(
        LOWERED,
        1,
        FunctionFlags::SQLITE_UTF8
            | FunctionFlags::SQLITE_DETERMINISTIC
            | FunctionFlags::SQLITE_INNOCUOUS,
        |ctx| Ok(text_of(ctx.get_raw(0)).map(|text| lowered(&String::from_utf8_lossy(&text)))),
    )?;
    conn.create_scalar_function(
        CONTAINS_LOWERED,
        2,
        FunctionFlags::SQLITE_UTF8
            | FunctionFlags::SQLITE_DETERMINISTIC
            | FunctionFlags::SQLITE_INNOCUOUS,
        |ctx| {
            let needle = ctx.get_raw(1);
            let haystack = ctx.get_raw(0);
            Ok(match (text_of(haystack), text_of(needle)) {
                (Some(haystack), Some(needle)) => Some(contains_lowered(&haystack, &needle)),
                _ => None,
            })
        },
    )
}

/// A value's text, borrowed when it is text already (every column a query reads).
fn text_of(value: rusqlite::types::ValueRef<'_>) -> Option<std::borrow::Cow<'_, [u8]>> {
    use rusqlite::types::ValueRef;
    match value {
        ValueRef::Null => None,
        ValueRef::Text(t) | ValueRef::Blob(t) => Some(t.into()),
        ValueRef::Integer(i) => Some(i.to_string().into_bytes().into()),
        ValueRef::Real(r) => Some(r.to_string().into_bytes().into()),
    }
}

/// Whether `haystack`, lowered, contains `needle` (lowered already). Text of ASCII
/// alone (nearly every id and reason) is compared in place, allocating nothing; other
/// text is lowered by [`lowered`] first, as the needle was.
fn contains_lowered(haystack: &[u8], needle: &[u8]) -> bool {
    if needle.is_empty() {
        return true;
    }
    if haystack.is_ascii() {
        // ASCII lowers to ASCII alone: no other needle is in it.
        return needle.is_ascii()
            && haystack.windows(needle.len()).any(|w| {
                w.iter()
                    .zip(needle)
                    .all(|(h, n)| h.to_ascii_lowercase() == *n)
            });
    }
    let haystack = lowered(&String::from_utf8_lossy(haystack));
    let needle = String::from_utf8_lossy(needle);
    haystack.contains(needle.as_ref())
}

/// Runs `st` with the values named in `named` that it uses (a first page names no
/// key, an empty query no values), reading each row with `from_row`.
pub(super) fn query_named<T>(
    st: &mut Statement<'_>,
    named: &[(&str, &dyn ToSql)],
    from_row: impl Fn(&Row<'_>) -> rusqlite::Result<T>,
) -> rusqlite::Result<Vec<T>> {
    bind_named(st, named)?;
    let read = (|| {
        let mut rows = st.raw_query();
        let mut out = Vec::new();
        while let Some(row) = rows.next()? {
            out.push(from_row(row)?);
        }
        Ok(out)
    })();
    read.map_err(|e| super::name_the_column(e, st))
}

/// Binds the values named in `named` that `st` uses (a first page names no key, an
/// empty query no values).
pub(super) fn bind_named(
    st: &mut Statement<'_>,
    named: &[(&str, &dyn ToSql)],
) -> rusqlite::Result<()> {
    for (name, value) in named {
        if let Some(i) = st.parameter_index(name)? {
            st.raw_bind_parameter(i, value)?;
        }
    }
    Ok(())
}

impl Condition {
    /// This condition kept only by the rows whose `key` is one of `keys` (a JSON
    /// array, bound as `:keys`): a superset of the rows it keeps, found beforehand.
    pub fn among(mut self, key: &str, keys: String) -> Condition {
        let among = format!("{key} IN (SELECT value FROM json_each(:keys))");
        self.sql = Some(match self.sql {
            Some(sql) => format!("{among} AND {sql}"),
            None => among,
        });
        self.values.push((":keys".to_owned(), SqlValue::Text(keys)));
        self
    }

    /// The bound values with their names, to add to a statement's own.
    pub fn named(&self) -> impl Iterator<Item = (&str, &dyn ToSql)> {
        self.values
            .iter()
            .map(|(name, value)| (name.as_str(), value as &dyn ToSql))
    }
}

#[cfg(test)]
mod tests {
    use super::{contains_lowered, trigram_query};

    /// How SQLite would read a callback list's first page under `query`.
    fn plan_of(query: &str) -> String {
        use crate::filter::{Query, Scope};
        let dir = tempfile::tempdir().unwrap();
        let ledger = super::super::Ledger::open(&dir.path().join("l.db")).unwrap();
        let query = Query::parse(query, Scope::Callbacks).unwrap();
        let condition = super::condition(&query, &super::super::callbacks::CALLBACK_FIELDS, None);
        let sql = format!(
            "EXPLAIN QUERY PLAN SELECT c.seq FROM callbacks c WHERE {} ORDER BY c.seq LIMIT 50",
            condition.sql.as_deref().unwrap()
        );
        let mut st = ledger.conn.prepare(&sql).unwrap();
        let named: Vec<(&str, &dyn rusqlite::ToSql)> = condition.named().collect();
        super::query_named(&mut st, &named, |row| row.get::<_, String>(3))
            .unwrap()
            .join("\n")
    }

    /// Does the plan walk the whole callbacks table (or one of its indexes)?
    fn reads_every_callback(plan: &str) -> bool {
        plan.lines()
            .any(|l| l == "SCAN c" || l.starts_with("SCAN c "))
    }

    #[test]
    fn a_text_term_reads_the_callbacks_the_index_gives_not_every_callback() {
        // Kept apart from the check's coalesce(): inside a function, the planner read
        // every callback and asked the index of each.
        for query in ["job:123456", "delivery:d-12 outcome:success", "hotel"] {
            let plan = plan_of(query);
            assert!(plan.contains("VIRTUAL TABLE INDEX"), "{query}: {plan}");
            assert!(plan.contains("INTEGER PRIMARY KEY"), "{query}: {plan}");
            assert!(!reads_every_callback(&plan), "{query}: {plan}");
        }
        // Too short for a trigram, or negated: every callback is read.
        for query in ["job:12", "-job:123456"] {
            let plan = plan_of(query);
            assert!(reads_every_callback(&plan), "{query}: {plan}");
        }
    }

    #[test]
    fn a_needle_asks_the_index_for_each_of_its_trigrams_once_and_quoted() {
        assert_eq!(
            trigram_query(&["job"], "abcab").as_deref(),
            Some(r#"{job} : ("abc" "bca" "cab")"#)
        );
        // The index's own syntax is text inside quotes; a quote is doubled.
        assert_eq!(
            trigram_query(&["job", "delivery"], r#"a"b OR"#).as_deref(),
            Some(r#"{job delivery} : ("a""b" """b " "b O" " OR")"#)
        );
        // Trigrams of characters, not bytes.
        assert_eq!(
            trigram_query(&["job"], "école").as_deref(),
            Some(r#"{job} : ("éco" "col" "ole")"#)
        );
        // Fewer than three characters: no trigram, every row is checked.
        assert_eq!(trigram_query(&["job"], "ab"), None);
        assert_eq!(trigram_query(&["job"], ""), None);
    }
    use crate::filter::lowered;

    #[test]
    fn text_is_contained_in_any_case_by_unicodes_rules() {
        let holds = |haystack: &str, needle: &str| {
            contains_lowered(haystack.as_bytes(), lowered(needle).as_bytes())
        };
        assert!(holds("Job-ÜBER-1", "über"));
        assert!(holds("Ops:Ünal", "ÜNAL"));
        assert!(holds("BOOKING-1043", "king-10"));
        assert!(holds("ΟΔΟΣ", "σ"));
        // The Kelvin sign lowers to an ASCII k: non-ASCII text takes the slow path.
        assert!(holds("\u{212A}ELVIN", "kel"));
        assert!(!holds("booking", "bookings"));
        assert!(!holds("über", "uber"));
        assert!(!holds("uber", "über"));
        assert!(holds("x", ""));
    }
}
