//! A query of the filter language ([`crate::filter`]) turned into a condition of a
//! list's statement. User text is never written into the SQL: every value is bound
//! (`:q0`, `:q1`, ...), so the same shape of query is the same
//! statement, prepared once.

use std::fmt::Write as _;

use rusqlite::types::Value as SqlValue;
use rusqlite::{Row, Statement, ToSql};

use crate::clock::Timestamp;
use crate::filter::{Bound, Comparison, Field, Query, Test, Value};

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
                let q = self.bind(SqlValue::Text(text.clone()));
                let mut sql = String::from("(");
                for (i, word) in columns.words.iter().enumerate() {
                    let or = if i == 0 { "" } else { " OR " };
                    let _ = write!(sql, "{or}instr(lower({word}), lower({q})) > 0");
                }
                sql.push(')');
                sql
            }
            Test::Is(field, value) => match ((columns.field)(*field), value) {
                (Some(Column::Text(expr)), Value::Text(text)) => {
                    let q = self.bind(SqlValue::Text(text.clone()));
                    format!("instr(lower({expr}), lower({q})) > 0")
                }
                (Some(Column::Equals(expr)), value) => {
                    let name = match value {
                        Value::Disposition(d) => d.as_str(),
                        Value::Outcome(o) => o.as_str(),
                        Value::Verdict(v) => v.as_str(),
                        Value::Text(_) | Value::Yes(_) => return "0".to_owned(),
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
