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
    /// A closed-set name that must equal the value.
    Equals(&'static str),
    /// A condition that `yes` asks to hold and `no` not to.
    Flag(&'static str),
    /// A signed number of seconds.
    Seconds(&'static str),
    /// A time.
    Time(&'static str),
    /// A time, compared as the age it has at `now`.
    AgeOf(&'static str),
}

/// How the fields and bare words of one kind of list read in SQL.
pub(super) struct Columns {
    /// The column of each field the list has.
    pub field: fn(Field) -> Option<Column>,
    /// Where a bare word is looked for.
    pub words: &'static [&'static str],
}

/// A condition with the values it binds.
#[derive(Debug, Default)]
pub(super) struct Condition {
    /// SQL for the `WHERE` clause; `None` when the query keeps every row.
    pub sql: Option<String>,
    /// Values bound by name.
    pub values: Vec<(String, SqlValue)>,
    /// The time ages are counted at.
    now: Option<Timestamp>,
}

/// The condition `query` sets on a list whose fields read as `columns`, with ages
/// counted at `now` (an age term keeps no row without it).
pub(super) fn condition(query: &Query, columns: &Columns, now: Option<Timestamp>) -> Condition {
    let mut compiled = Condition {
        now,
        ..Condition::default()
    };
    let mut parts = Vec::new();
    for term in query.terms() {
        let test = compiled.test(&term.test, columns);
        parts.push(if term.negated {
            format!("NOT coalesce({test}, 0)")
        } else {
            format!("coalesce({test}, 0)")
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
                let q = self.bind(SqlValue::Text(lowered(text)));
                let mut sql = String::from("(");
                for (i, word) in columns.words.iter().enumerate() {
                    let or = if i == 0 { "" } else { " OR " };
                    let _ = write!(sql, "{or}{CONTAINS_LOWERED}({word}, {q})");
                }
                sql.push(')');
                sql
            }
            Test::Is(field, value) => match ((columns.field)(*field), value) {
                (Some(Column::Text(expr)), Value::Text(text)) => {
                    let q = self.bind(SqlValue::Text(lowered(text)));
                    format!("{CONTAINS_LOWERED}({expr}, {q})")
                }
                (Some(Column::Text(expr)), Value::Nothing) => format!("({expr}) IS NULL"),
                (Some(Column::Equals(expr)), value) => {
                    let name = match value {
                        Value::Disposition(d) => d.as_str(),
                        Value::Outcome(o) => o.as_str(),
                        Value::Verdict(v) => v.as_str(),
                        Value::Text(_) | Value::Nothing | Value::Yes(_) => {
                            return "0".to_owned();
                        }
                    };
                    let q = self.bind(SqlValue::Text(name.to_owned()));
                    format!("{expr} = {q}")
                }
                (Some(Column::Flag(expr)), Value::Yes(yes)) => {
                    if *yes {
                        format!("({expr})")
                    } else {
                        format!("NOT ({expr})")
                    }
                }
                // A field the list lacks keeps no row; the parser refuses it first.
                _ => "0".to_owned(),
            },
            Test::Compare(field, op, bound) => self.compare(columns, *field, *op, *bound),
        }
    }

    fn compare(&mut self, columns: &Columns, field: Field, op: Comparison, bound: Bound) -> String {
        match ((columns.field)(field), bound) {
            (Some(Column::Seconds(expr)), Bound::Seconds(s)) => {
                let q = self.bind(SqlValue::Integer(s));
                format!("{expr} {} {q}", op.symbol())
            }
            (Some(Column::Time(expr)), Bound::At(at)) => {
                let q = self.bind(SqlValue::Text(at.to_ledger_text()));
                format!("{expr} {} {q}", op.symbol())
            }
            // A time from now: with no clock, no row is kept (as with an age).
            (Some(Column::Time(expr)), Bound::FromNow(s)) => {
                let at = self.now.map(|now| now.plus_seconds(s));
                let q =
                    self.bind(at.map_or(SqlValue::Null, |t| SqlValue::Text(t.to_ledger_text())));
                format!("{expr} {} {q}", op.symbol())
            }
            // Older than `s` is a start before `now - s`: compared as times, along an
            // index where the list has one.
            (Some(Column::AgeOf(expr)), Bound::Seconds(s)) => {
                let start = self.now.map(|now| now.plus_seconds(s.saturating_neg()));
                let q =
                    self.bind(start.map_or(SqlValue::Null, |t| SqlValue::Text(t.to_ledger_text())));
                format!("{expr} {} {q}", op.flipped().symbol())
            }
            _ => "0".to_owned(),
        }
    }
}

/// The SQL function that tells whether its first argument, in lower case by
/// [`lowered`], contains its second (already lowered): SQLite's own `lower()` lowers
/// A to Z alone, so `job:über` missed `Job-ÜBER-1`. NULL for a NULL text.
const CONTAINS_LOWERED: &str = "jobledger_contains_lowered";

/// Makes [`CONTAINS_LOWERED`] known to `conn`, which every query's SQL needs.
pub(super) fn register_functions(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    use rusqlite::functions::FunctionFlags;
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
    for (name, value) in named {
        if let Some(i) = st.parameter_index(name)? {
            st.raw_bind_parameter(i, value)?;
        }
    }
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

impl Condition {
    /// The bound values with their names, to add to a statement's own.
    pub fn named(&self) -> impl Iterator<Item = (&str, &dyn ToSql)> {
        self.values
            .iter()
            .map(|(name, value)| (name.as_str(), value as &dyn ToSql))
    }
}

#[cfg(test)]
mod tests {
    use super::contains_lowered;
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
