//! The query language of every list (the console's `/`, `callbacks --where`), parsed
//! into plain terms: no SQL and no I/O here; the store turns a [`Query`] into SQL.
//!
//! A query is terms joined by AND: `field:value` (`job:`, `reason:`, `verdict:`, ...),
//! comparisons on durations and times (`gap>1h`, `age>=2d`, `arrived<2026-11-27T14:00`),
//! bare words (kept when an id or reason contains them), `-` before a term to negate
//! it, and `"double quotes"` around a value with spaces or a colon. A query is parsed
//! for one [`Scope`] (a kind of list): a field the list does not have, a word written
//! like a field that is none, or a name outside a closed set, is an error naming what
//! is allowed. Case never counts: not in field names, closed-set names or text.
//!
//! A time term is parsed to a bound in whole milliseconds, as the ledger stores times,
//! with its operator chosen so the rows kept are those the written time says: a day
//! alone is the whole day for `<=` and `>`, its start for `<` and `>=`; a time finer
//! than a millisecond falls between two stored ones.

mod field;
mod parse;
mod sort;

use std::fmt;

pub use field::{Field, Kind, Scope};
pub use parse::MAX_TERMS;
pub use sort::{Sort, SortColumn};

use crate::clock::Timestamp;
use crate::decision::{Disposition, Outcome, Verdict};

/// A parsed query: every term must hold. The empty query keeps every row.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Query {
    scope: Scope,
    terms: Vec<Term>,
}

/// One term of a query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    /// Written with a leading `-`: rows the test keeps are left out.
    pub negated: bool,
    /// What a row is tested for.
    pub test: Test,
}

/// What a term tests a row for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Test {
    /// A bare word: some id or reason of the row contains it (any case).
    Words(String),
    /// `field:value`.
    Is(Field, Value),
    /// `field>bound` and the like, on a duration or a time.
    Compare(Field, Comparison, Bound),
}

/// The value of a `field:value` term, checked against the field's kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Value {
    /// Text the field contains (any case).
    Text(String),
    /// No value at all: `owner:none`, a job nobody owns.
    Nothing,
    Disposition(Disposition),
    Outcome(Outcome),
    Verdict(Verdict),
    /// `yes` or `no`.
    Yes(bool),
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Comparison {
    Less,
    LessOrEqual,
    Greater,
    GreaterOrEqual,
}

impl Comparison {
    /// The operator as SQL (and the query language) writes it.
    pub fn symbol(self) -> &'static str {
        match self {
            Comparison::Less => "<",
            Comparison::LessOrEqual => "<=",
            Comparison::Greater => ">",
            Comparison::GreaterOrEqual => ">=",
        }
    }

    /// The comparison with its sides swapped (`a < b` is `b > a`).
    pub fn flipped(self) -> Comparison {
        match self {
            Comparison::Less => Comparison::Greater,
            Comparison::LessOrEqual => Comparison::GreaterOrEqual,
            Comparison::Greater => Comparison::Less,
            Comparison::GreaterOrEqual => Comparison::LessOrEqual,
        }
    }
}

/// `text` in lower case by Unicode's rules, character by character (so a letter
/// lowers the same wherever it stands): the one folding of case the query language
/// uses, for names and for text alike.
pub fn lowered(text: &str) -> String {
    text.chars().flat_map(char::to_lowercase).collect()
}

/// What a comparison compares with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Bound {
    /// A signed duration, in seconds.
    Seconds(i64),
    /// A time, in UTC.
    At(Timestamp),
    /// A time relative to the clock the query is read at, in seconds from it:
    /// `escalates<now` is 0, `escalates<+1h` 3,600, `arrived>-2h` -7,200.
    FromNow(i64),
}

/// Why a query was not understood: where (a column of the query, from 1) and what.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterError {
    /// The column of the query where the trouble starts, counted in characters from 1.
    pub column: usize,
    /// What is wrong, and what would be right. It quotes the query: show it inert.
    pub message: String,
}

impl fmt::Display for FilterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at column {}: {}", self.column, self.message)
    }
}

impl std::error::Error for FilterError {}

impl Query {
    /// Parses `text` as a query on a list of `scope`.
    ///
    /// ```
    /// use jobledger::filter::{Query, Scope};
    /// let q = Query::parse("-reason:possible_duplicate_effect gap>1h", Scope::Callbacks).unwrap();
    /// assert_eq!(q.terms().len(), 2);
    /// let e = Query::parse("verdict:single", Scope::Callbacks).unwrap_err();
    /// assert!(e.message.contains("single_effect"));
    /// ```
    pub fn parse(text: &str, scope: Scope) -> Result<Query, FilterError> {
        Ok(Query {
            scope,
            terms: parse::terms(text, scope, None)?,
        })
    }

    /// Parses `text` as `me` asks it: `owner:me` is the jobs `me` owns (`owner:"me"`
    /// stays an owner whose name contains "me").
    ///
    /// ```
    /// use jobledger::filter::{Query, Scope, Test, Value, Field};
    /// let q = Query::parse_as("owner:me", Scope::AgedJobs, "ops:lee").unwrap();
    /// assert_eq!(q.terms()[0].test, Test::Is(Field::Owner, Value::Text("ops:lee".into())));
    /// ```
    pub fn parse_as(text: &str, scope: Scope, me: &str) -> Result<Query, FilterError> {
        Ok(Query {
            scope,
            terms: parse::terms(text, scope, Some(me))?,
        })
    }

    /// An empty query on a list of `scope`: it keeps every row.
    pub fn all(scope: Scope) -> Query {
        Query {
            scope,
            terms: Vec::new(),
        }
    }

    /// The kind of list the query was parsed for.
    pub fn scope(&self) -> Scope {
        self.scope
    }

    /// The terms, every one of which must hold.
    pub fn terms(&self) -> &[Term] {
        &self.terms
    }

    /// Keeps every row.
    pub fn is_empty(&self) -> bool {
        self.terms.is_empty()
    }

    /// Names the field anywhere (the store joins what a field needs only then).
    pub fn names(&self, fields: &[Field]) -> bool {
        self.terms.iter().any(|t| match &t.test {
            Test::Is(f, _) | Test::Compare(f, _, _) => fields.contains(f),
            Test::Words(_) => false,
        })
    }
}
