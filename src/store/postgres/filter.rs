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
//!
//! A list with a trigram index of its text (callbacks: `text_index.rs`) tests that text
//! in the index's own table, joined to the list by its key: the table holds each row's
//! text lowered by [`lowered`] already, so a term is `t.job LIKE '%text%'` (for a text
//! of three characters or more, which the index answers) or `strpos(t.job, 'te') > 0`,
//! with no lowering left to do for any row. The planner chooses, by the statistics it
//! keeps of the index table's columns, between walking the list in its order testing
//! each row, and starting from the rows the index gives.
//!
//! A term that holds is written bare, a term left out (`-field:value`) inside
//! `NOT coalesce(..., false)`: a condition is only ever one of a statement's
//! conditions, all of which must hold, where NULL keeps no row as false does; bare,
//! the planner estimates a term from statistics and can answer it from an index.
//!
//! A text term that holds and that the planner expects few rows of (the statement's
//! [`Params::few_text`], each asked of the planner by [`text_lookups`]) is written as
//! the list of those rows instead: `c.seq = ANY(ARRAY(SELECT t.seq FROM callback_text t
//! WHERE ...))`. Joined, such a term let the planner walk the list, or the index's
//! table, in order testing every row, expecting a match every few thousand, for a
//! page's first row past a key, and at a million callbacks it read 400,000 rows to find
//! none (65 ms). The list of rows is read once, from the index, and every read after
//! it is bounded by it. A term many rows meet stays joined: listing its rows would
//! read them all, where a page walking in order stops when it is full.

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
    /// [`Column::Text`] that the list's [`TextIndex`] also holds, in this column of
    /// the index.
    IndexedText(&'static str, &'static str),
    /// A closed-set name that must equal the value.
    Equals(&'static str),
    /// A condition that `yes` asks to hold and `no` not to.
    Flag(&'static str),
    /// A signed number of seconds, `expr`, that an index of the list keeps as `key`:
    /// `expr` with NULL made `none`, below every value it takes. Compared through the
    /// key, the index can answer; a NULL is left out as a comparison of `expr` leaves
    /// it out.
    KeyedSeconds {
        expr: &'static str,
        key: &'static str,
        none: i64,
    },
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
    /// The list's trigram index of its text, when it has one.
    pub text_index: Option<TextIndex>,
}

/// A trigram index of a list's text: a table holding each row's text lowered by
/// [`lowered`], with a GIN index of `pg_trgm`'s trigrams on each column, joined to the
/// list by the list row's key. Asked whether a column is `LIKE '%needle%'`, the index
/// gives the rows holding every trigram of the needle and the server keeps those that
/// contain it. A needle of fewer than three characters has no trigram: it is looked
/// for in each row's lowered text (as on SQLite).
#[derive(Debug, Clone, Copy)]
pub(super) struct TextIndex {
    /// The join of the index's table to the list, under the alias the columns below
    /// are named with: `LEFT JOIN callback_text t ON t.seq = c.seq`. A left join, so
    /// that a term left out keeps a row the table lacks, as a NULL text keeps it;
    /// under a term that holds, the planner makes it an inner join.
    pub join: &'static str,
    /// The index's columns that hold the list's [`Columns::words`], in their order,
    /// named with the join's alias.
    pub words: &'static [&'static str],
    /// The index's table under the join's alias, and its key: `callback_text t`,
    /// `t.seq`.
    pub table: &'static str,
    pub key: &'static str,
    /// The list row's key the index's key names: `c.seq`.
    pub list_key: &'static str,
}

/// A text term of a query that the text index answers and that holds (not left out):
/// asked of the planner how many rows it keeps, by [`text_lookups`], before the
/// statement that reads it is written.
pub(super) struct TextLookup {
    /// What names the term among a statement's [`Params::few_text`].
    pub key: String,
    /// `SELECT 1 FROM` the index's table `WHERE` the term holds.
    pub sql: String,
    pub params: Params,
}

/// The index's columns a text term reads and its needle (lowered), when the list's text
/// index answers it: a needle of three characters or more.
fn indexed_needle(test: &Test, columns: &Columns) -> Option<(Vec<&'static str>, String)> {
    let index = columns.text_index?;
    let (read, needle) = match test {
        Test::Words(text) => (index.words.to_vec(), lowered(text)),
        Test::Is(field, Value::Text(text)) => match (columns.field)(*field) {
            Some(Column::IndexedText(_, column)) => (vec![column], lowered(text)),
            _ => return None,
        },
        _ => return None,
    };
    needle.chars().nth(2).is_some().then_some((read, needle))
}

/// What names a text term among a statement's [`Params::few_text`].
fn lookup_key(read: &[&str], needle: &str) -> String {
    format!("{}\u{1f}{needle}", read.join(","))
}

/// Each text term of `query` that holds and that the list's text index answers, as the
/// statement that asks the planner how many rows it keeps.
pub(super) fn text_lookups(query: &Query, columns: &Columns) -> Vec<TextLookup> {
    let Some(index) = columns.text_index else {
        return Vec::new();
    };
    query
        .terms()
        .iter()
        .filter(|term| !term.negated)
        .filter_map(|term| indexed_needle(&term.test, columns))
        .map(|(read, needle)| {
            let mut params = Params::new();
            let check = indexed_contains(&read, &needle, &mut params);
            TextLookup {
                key: lookup_key(&read, &needle),
                sql: format!("SELECT 1 FROM {} WHERE {check}", index.table),
                params,
            }
        })
        .collect()
}

/// A text term that holds, written as the list of the rows it keeps when it is one of
/// `params`'s [`Params::few_text`].
fn few_rows(test: &Test, columns: &Columns, params: &mut Params) -> Option<String> {
    let index = columns.text_index?;
    let (read, needle) = indexed_needle(test, columns)?;
    if !params.few_text.contains(&lookup_key(&read, &needle)) {
        return None;
    }
    let check = indexed_contains(&read, &needle, params);
    Some(format!(
        "{} = ANY(ARRAY(SELECT {} FROM {} WHERE {check}))",
        index.list_key, index.key, index.table
    ))
}

/// The `LIKE` pattern of the text holding `needle` (lowered already) anywhere: the
/// characters `LIKE` reads as its own (`%`, `_` and its escape, `\`) escaped.
fn like_pattern(needle: &str) -> String {
    let mut pattern = String::with_capacity(needle.len() + 2);
    pattern.push('%');
    for c in needle.chars() {
        if matches!(c, '%' | '_' | '\\') {
            pattern.push('\\');
        }
        pattern.push(c);
    }
    pattern.push('%');
    pattern
}

/// Whether one of `columns` of a text index (lowered text) contains `needle` (lowered
/// already): `LIKE`, which the trigram index answers, for a needle with a trigram;
/// `strpos()` for a shorter one, which no index answers (a `LIKE` of no trigram is a
/// scan of the whole index). NULL for a NULL text.
fn indexed_contains(columns: &[&str], needle: &str, params: &mut Params) -> String {
    let (value, trigram) = if needle.chars().nth(2).is_some() {
        (params.bind(like_pattern(needle)), true)
    } else {
        (params.bind(needle.to_owned()), false)
    };
    let mut found = String::from("(");
    for (i, column) in columns.iter().enumerate() {
        let or = if i == 0 { "" } else { " OR " };
        if trigram {
            let _ = write!(found, "{or}{column} LIKE {value}::text");
        } else {
            let _ = write!(found, "{or}strpos({column}, {value}::text) > 0");
        }
    }
    found.push(')');
    found
}

/// A term's test: what a row must satisfy (NULL for a NULL text, which the term reads
/// as false, unless the check is never NULL).
struct Tested {
    check: String,
    /// The check is true or false for every row: left out, it is negated as it is.
    never_null: bool,
}

impl From<String> for Tested {
    fn from(check: String) -> Self {
        Tested {
            check,
            never_null: false,
        }
    }
}

/// The values a statement binds, numbered `$1`, `$2`, ... in the order bound.
#[derive(Default)]
pub(super) struct Params {
    values: Vec<Box<dyn ToSql + Sync>>,
    /// The parameters holding the folding table, once a text test needs them.
    fold: Option<(String, String)>,
    /// The join of the list's text index, once a term reads it.
    text_join: Option<&'static str>,
    /// The text terms ([`TextLookup::key`]) written as the list of their rows: those
    /// the planner expects few rows of.
    pub few_text: std::collections::HashSet<String>,
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

    /// The join the condition's terms read the list's text index through, when one
    /// does: for the statement the condition is set on.
    pub fn text_join(&self) -> Option<&'static str> {
        self.text_join
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
        if !term.negated
            && let Some(rows) = few_rows(&term.test, columns, params)
        {
            parts.push(format!("({rows})"));
            continue;
        }
        let Tested { check, never_null } = test(&term.test, columns, now, params);
        // A term that holds stands bare: NULL keeps no row, as false does, among
        // conditions that must all hold. Left out, a NULL text keeps the row.
        parts.push(match (term.negated, never_null) {
            (false, _) => format!("({check})"),
            (true, true) => format!("NOT ({check})"),
            (true, false) => format!("NOT coalesce({check}, false)"),
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

fn test(test: &Test, columns: &Columns, now: Option<Timestamp>, params: &mut Params) -> Tested {
    match test {
        Test::Words(text) => {
            let needle = lowered(text);
            if let Some(index) = columns.text_index {
                params.text_join = Some(index.join);
                return indexed_contains(index.words, &needle, params).into();
            }
            let q = params.bind(needle);
            let mut check = String::from("(");
            for (i, word) in columns.words.iter().enumerate() {
                let or = if i == 0 { "" } else { " OR " };
                let _ = write!(check, "{or}{}", contains_lowered(word, &q, params));
            }
            check.push(')');
            check.into()
        }
        Test::Is(field, value) => match ((columns.field)(*field), value) {
            (Some(Column::Text(expr)), Value::Text(text)) => {
                let q = params.bind(lowered(text));
                contains_lowered(expr, &q, params).into()
            }
            (Some(Column::IndexedText(expr, column)), Value::Text(text)) => {
                let needle = lowered(text);
                if let Some(index) = columns.text_index {
                    params.text_join = Some(index.join);
                    indexed_contains(&[column], &needle, params).into()
                } else {
                    let q = params.bind(needle);
                    contains_lowered(expr, &q, params).into()
                }
            }
            (Some(Column::Text(expr) | Column::IndexedText(expr, _)), Value::Nothing) => {
                format!("({expr}) IS NULL").into()
            }
            (Some(Column::Equals(expr)), value) => {
                let name = match value {
                    Value::Disposition(d) => d.as_str(),
                    Value::Outcome(o) => o.as_str(),
                    Value::Verdict(v) => v.as_str(),
                    Value::Text(_) | Value::Nothing | Value::Yes(_) => {
                        return "false".to_owned().into();
                    }
                };
                let q = params.bind(name.to_owned());
                format!("{expr} = {q}::text").into()
            }
            (Some(Column::Flag(expr)), Value::Yes(yes)) => {
                if *yes {
                    format!("({expr})").into()
                } else {
                    format!("NOT ({expr})").into()
                }
            }
            // A field the list lacks keeps no row; the parser refuses it first.
            _ => "false".to_owned().into(),
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
) -> Tested {
    let check = match ((columns.field)(field), bound) {
        // The key is `none` for a NULL: `>` and `>=` a bound above it leave it out, and
        // `<` and `<=` leave it out by a second bound on the key (both bounds of one
        // index column, evaluated in the index).
        (Some(Column::KeyedSeconds { key, none, .. }), Bound::Seconds(s)) if s > none => {
            let q = params.bind(s);
            let check = match op {
                Comparison::Greater | Comparison::GreaterOrEqual => {
                    format!("{key} {} {q}::bigint", op.symbol())
                }
                Comparison::Less | Comparison::LessOrEqual => {
                    format!("{key} > {none} AND {key} {} {q}::bigint", op.symbol())
                }
            };
            return Tested {
                check,
                never_null: true,
            };
        }
        (Some(Column::KeyedSeconds { expr, .. }), Bound::Seconds(s)) => {
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
    };
    check.into()
}

/// Whether `expr`, lowered by [`lowered`], contains the text bound as `needle`
/// (lowered already); NULL for a NULL text, true for an empty needle, as SQLite's
/// `jobledger_contains_lowered`.
fn contains_lowered(expr: &str, needle: &str, params: &mut Params) -> String {
    format!(
        "(strpos({}, {needle}::text) > 0)",
        lowered_sql(expr, params)
    )
}

/// `expr` lowered by [`lowered`], in SQL (NULL stays NULL), whatever the server's
/// locale: what a search compares, and what the trigram index of callbacks' text was
/// first filled with (migration 005).
pub(super) fn lowered_sql(expr: &str, params: &mut Params) -> String {
    let (from, to) = params.fold();
    let mut replaced = format!("({expr})");
    for (upper, lower) in &FOLD.longer {
        replaced = format!("replace({replaced}, '{upper}', '{lower}')");
    }
    format!(
        "CASE WHEN octet_length({expr}) = char_length({expr}) \
              THEN lower(({expr}) COLLATE \"C\") \
              ELSE translate({replaced}, {from}::text, {to}::text) END"
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
    use super::{
        Column, Columns, FOLD, Params, TextIndex, condition, indexed_contains, like_pattern,
        text_lookups,
    };
    use crate::filter::{Field, Query, Scope, lowered};

    #[test]
    fn a_needle_is_looked_for_as_a_like_pattern_with_likes_own_characters_escaped() {
        assert_eq!(like_pattern("abc"), "%abc%");
        assert_eq!(like_pattern(r"a%b_c\d"), r"%a\%b\_c\\d%");
        assert_eq!(like_pattern("école*"), "%école*%");
    }

    #[test]
    fn a_needle_of_three_characters_or_more_is_looked_for_through_the_index() {
        let mut params = Params::new();
        // Characters, not bytes: two letters of two bytes each have no trigram.
        assert_eq!(
            indexed_contains(&["t.job"], "éé", &mut params),
            "(strpos(t.job, $1::text) > 0)"
        );
        assert_eq!(
            indexed_contains(&["t.job", "t.delivery"], "abc", &mut params),
            "(t.job LIKE $2::text OR t.delivery LIKE $2::text)"
        );
        assert_eq!(params.refs().len(), 2);
        // Neither reads the folding table: the index's text is lowered already.
        assert!(params.fold.is_none());
    }

    /// A list whose one field, `job:`, and whose bare words are in a text index.
    fn job_columns() -> Columns {
        Columns {
            field: |field| match field {
                Field::Job => Some(Column::IndexedText("c.job_id", "t.job")),
                _ => None,
            },
            words: &["c.job_id"],
            text_index: Some(TextIndex {
                join: "LEFT JOIN callback_text t ON t.seq = c.seq",
                words: &["t.job"],
                table: "callback_text t",
                key: "t.seq",
                list_key: "c.seq",
            }),
        }
    }

    /// A term that holds stands bare (the planner estimates and indexes it); a term
    /// left out keeps a row whose text is NULL.
    #[test]
    fn a_term_that_holds_is_bare_and_one_left_out_keeps_a_null() {
        let columns = job_columns();
        let query = Query::parse("job:abc -job:xyz", Scope::Callbacks).unwrap();
        let mut params = Params::new();
        let sql = condition(&query, &columns, None, &mut params).unwrap();
        assert_eq!(
            sql,
            "((((t.job LIKE $1::text))) AND (NOT coalesce((t.job LIKE $2::text), false)))"
        );
        assert_eq!(params.text_join(), columns.text_index.map(|i| i.join));
    }

    /// A text term that holds, among the statement's few, is the list of its rows from
    /// the index and joins nothing; one left out, or not among them, stays joined.
    #[test]
    fn a_term_few_rows_meet_is_the_list_of_its_rows() {
        let columns = job_columns();
        let query = Query::parse("job:abc -job:xyz abcd ab", Scope::Callbacks).unwrap();
        let lookups = text_lookups(&query, &columns);
        // The term left out and the needle of two characters are never asked.
        assert_eq!(lookups.len(), 2);
        assert_eq!(
            lookups[0].sql,
            "SELECT 1 FROM callback_text t WHERE (t.job LIKE $1::text)"
        );
        assert_eq!(lookups[0].params.refs().len(), 1);

        let mut params = Params::new();
        params.few_text.insert(lookups[0].key.clone());
        let sql = condition(&query, &columns, None, &mut params).unwrap();
        assert!(
            sql.contains(
                "(c.seq = ANY(ARRAY(SELECT t.seq FROM callback_text t WHERE (t.job LIKE $1::text))))"
            ),
            "{sql}"
        );
        assert!(
            sql.contains("NOT coalesce((t.job LIKE $2::text), false)"),
            "{sql}"
        );
        assert!(sql.contains("((t.job LIKE $3::text))"), "{sql}");
        assert_eq!(params.text_join(), columns.text_index.map(|i| i.join));

        // Every term listed: nothing is joined.
        let query = Query::parse("job:abc", Scope::Callbacks).unwrap();
        let mut params = Params::new();
        params.few_text = text_lookups(&query, &columns)
            .into_iter()
            .map(|l| l.key)
            .collect();
        condition(&query, &columns, None, &mut params).unwrap();
        assert_eq!(params.text_join(), None);
    }

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
