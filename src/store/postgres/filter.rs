//! A query of the filter language ([`crate::filter`]) turned into a condition of a
//! list's statement on PostgreSQL: the SQLite engine's `filter.rs`, with `$n`
//! parameters. User text is never written into the SQL: every value is bound.
//!
//! Text is matched in any case by Unicode's rules exactly as the SQLite engine's
//! `jobledger_contains_lowered` does ([`lowered`], character by character). The
//! server's own `lower()` cannot do it: it lowers by the database's `LC_CTYPE`, which
//! under the C locale (the tests' server, and many a production one) lowers A to Z
//! alone, and under a libc locale folds per that libc's tables (no `İ` to `i̇`, its own
//! Unicode version). So the folding is written into the statement from Rust's own
//! tables: text of ASCII alone (nearly every id and reason) is lowered by `lower()` on
//! its C collation (ASCII only, locale-free); other text goes through `translate()`
//! with every one-character lowering Rust knows, bound as two parameters, after
//! `replace()` of the few letters whose lower case is longer (`İ`). Neither function
//! depends on the locale, so the result is the same on every server.

use std::fmt::Write as _;
use std::sync::LazyLock;

use postgres::types::ToSql;

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

/// The values a statement binds, numbered `$1`, `$2`, ... in the order bound.
#[derive(Default)]
pub(super) struct Params {
    values: Vec<Box<dyn ToSql + Sync>>,
    /// The parameters holding the folding table, once a text test needs them.
    fold: Option<(String, String)>,
}

impl Params {
    pub fn new() -> Self {
        Params::default()
    }

    /// Binds `value`; returns its placeholder (`$3`).
    pub fn bind(&mut self, value: impl ToSql + Sync + 'static) -> String {
        self.values.push(Box::new(value));
        format!("${}", self.values.len())
    }

    /// The values, for `query`.
    pub fn refs(&self) -> Vec<&(dyn ToSql + Sync)> {
        self.values
            .iter()
            .map(|v| v.as_ref() as &(dyn ToSql + Sync))
            .collect()
    }

    /// The placeholders of the folding table's two sides, bound once per statement.
    fn fold(&mut self) -> (String, String) {
        if let Some(fold) = &self.fold {
            return fold.clone();
        }
        let from = self.bind(FOLD.from.clone());
        let to = self.bind(FOLD.to.clone());
        self.fold = Some((from.clone(), to.clone()));
        (from, to)
    }
}

/// The condition `query` sets on a list whose fields read as `columns`, with ages
/// counted at `now` (an age term keeps no row without it), its values bound in
/// `params`; `None` when the query keeps every row.
pub(super) fn condition(
    query: &Query,
    columns: &Columns,
    now: Option<Timestamp>,
    params: &mut Params,
) -> Option<String> {
    let mut parts = Vec::new();
    for term in query.terms() {
        let test = test(&term.test, columns, now, params);
        parts.push(if term.negated {
            format!("NOT coalesce({test}, false)")
        } else {
            format!("coalesce({test}, false)")
        });
    }
    if parts.is_empty() {
        return None;
    }
    Some(format!("({})", all_of(&parts)))
}

/// `parts` joined by AND as a balanced tree, as the SQLite engine writes it (whose
/// parser refuses a chain of a thousand); the planner splits either shape.
fn all_of(parts: &[String]) -> String {
    match parts {
        [] => "true".to_owned(),
        [one] => one.clone(),
        _ => {
            let (left, right) = parts.split_at(parts.len() / 2);
            format!("({}) AND ({})", all_of(left), all_of(right))
        }
    }
}

fn test(test: &Test, columns: &Columns, now: Option<Timestamp>, params: &mut Params) -> String {
    match test {
        Test::Words(text) => {
            let q = params.bind(lowered(text));
            let mut sql = String::from("(");
            for (i, word) in columns.words.iter().enumerate() {
                let or = if i == 0 { "" } else { " OR " };
                let _ = write!(sql, "{or}{}", contains_lowered(word, &q, params));
            }
            sql.push(')');
            sql
        }
        Test::Is(field, value) => match ((columns.field)(*field), value) {
            (Some(Column::Text(expr)), Value::Text(text)) => {
                let q = params.bind(lowered(text));
                contains_lowered(expr, &q, params)
            }
            (Some(Column::Text(expr)), Value::Nothing) => format!("({expr}) IS NULL"),
            (Some(Column::Equals(expr)), value) => {
                let name = match value {
                    Value::Disposition(d) => d.as_str(),
                    Value::Outcome(o) => o.as_str(),
                    Value::Verdict(v) => v.as_str(),
                    Value::Text(_) | Value::Nothing | Value::Yes(_) => {
                        return "false".to_owned();
                    }
                };
                let q = params.bind(name.to_owned());
                format!("{expr} = {q}::text")
            }
            (Some(Column::Flag(expr)), Value::Yes(yes)) => {
                if *yes {
                    format!("({expr})")
                } else {
                    format!("NOT ({expr})")
                }
            }
            // A field the list lacks keeps no row; the parser refuses it first.
            _ => "false".to_owned(),
        },
        Test::Compare(field, op, bound) => compare(columns, *field, *op, *bound, now, params),
    }
}

fn compare(
    columns: &Columns,
    field: Field,
    op: Comparison,
    bound: Bound,
    now: Option<Timestamp>,
    params: &mut Params,
) -> String {
    match ((columns.field)(field), bound) {
        (Some(Column::Seconds(expr)), Bound::Seconds(s)) => {
            let q = params.bind(s);
            format!("{expr} {} {q}::bigint", op.symbol())
        }
        (Some(Column::Time(expr)), Bound::At(at)) => {
            let q = params.bind(at.to_ledger_text());
            format!("{expr} {} {q}::text", op.symbol())
        }
        // A time from now: with no clock, no row is kept (as with an age).
        (Some(Column::Time(expr)), Bound::FromNow(s)) => {
            let at = now.map(|now| now.plus_seconds(s).to_ledger_text());
            let q = params.bind(at);
            format!("{expr} {} {q}::text", op.symbol())
        }
        // Older than `s` is a start before `now - s`: compared as times.
        (Some(Column::AgeOf(expr)), Bound::Seconds(s)) => {
            let start = now.map(|now| now.plus_seconds(s.saturating_neg()).to_ledger_text());
            let q = params.bind(start);
            format!("{expr} {} {q}::text", op.flipped().symbol())
        }
        _ => "false".to_owned(),
    }
}

/// Whether `expr`, lowered by [`lowered`], contains the text bound as `needle`
/// (lowered already); NULL for a NULL text, true for an empty needle, as SQLite's
/// `jobledger_contains_lowered`.
fn contains_lowered(expr: &str, needle: &str, params: &mut Params) -> String {
    let (from, to) = params.fold();
    let mut replaced = format!("({expr})");
    for (upper, lower) in &FOLD.longer {
        replaced = format!("replace({replaced}, '{upper}', '{lower}')");
    }
    format!(
        "(strpos(CASE WHEN octet_length({expr}) = char_length({expr}) \
                      THEN lower(({expr}) COLLATE \"C\") \
                      ELSE translate({replaced}, {from}::text, {to}::text) END, {needle}::text) > 0)"
    )
}

/// Every letter Rust lowers to something else, as `translate()` and `replace()` take
/// them.
struct Fold {
    /// The letters that lower to one other character, in code point order...
    from: String,
    /// ...and that character, at the same position.
    to: String,
    /// The letters that lower to more than one character, with their lower case.
    longer: Vec<(char, String)>,
}

static FOLD: LazyLock<Fold> = LazyLock::new(|| {
    let mut fold = Fold {
        from: String::new(),
        to: String::new(),
        longer: Vec::new(),
    };
    for c in (0..=u32::from(char::MAX)).filter_map(char::from_u32) {
        let mut lower = c.to_lowercase();
        match (lower.next(), lower.len()) {
            (Some(l), 0) if l == c => {}
            (Some(l), 0) => {
                fold.from.push(c);
                fold.to.push(l);
            }
            _ => fold.longer.push((c, c.to_lowercase().collect())),
        }
    }
    fold
});

#[cfg(test)]
mod tests {
    use super::FOLD;
    use crate::filter::lowered;

    /// The folding table, applied as `replace()` then `translate()` apply it, is
    /// [`lowered`] on every character (the SQL applies it to non-ASCII text only; ASCII
    /// text is lowered by `lower()` on the C collation, A to Z alone, the same).
    #[test]
    fn the_folding_table_is_lowered_for_every_character() {
        let from: Vec<char> = FOLD.from.chars().collect();
        let to: Vec<char> = FOLD.to.chars().collect();
        assert_eq!(from.len(), to.len());
        for c in (0..=u32::from(char::MAX)).filter_map(char::from_u32) {
            let folded: String = match FOLD.longer.iter().find(|(u, _)| *u == c) {
                Some((_, l)) => l.clone(),
                None => match from.iter().position(|f| *f == c) {
                    Some(i) => to[i].to_string(),
                    None => c.to_string(),
                },
            };
            assert_eq!(folded, lowered(&c.to_string()), "U+{:04X}", u32::from(c));
        }
        // No longer lowering produces a letter translate() would change again.
        for (_, l) in &FOLD.longer {
            assert!(l.chars().all(|c| !from.contains(&c)), "{l}");
        }
        assert!(!FOLD.longer.is_empty());
    }
}
