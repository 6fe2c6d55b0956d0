//! Reading a query's text into terms, checking each value against its field.

use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};

use super::{Bound, Comparison, Field, FilterError, Kind, Scope, Term, Test, Value, lowered};
use crate::clock::Timestamp;
use crate::closed_set::ClosedSet;
use crate::decision::{Disposition, Outcome, Verdict};

type Parsed<T> = Result<T, FilterError>;

/// The query's characters and where the reader is.
struct Reader {
    chars: Vec<char>,
    at: usize,
}

fn error(at: usize, message: impl Into<String>) -> FilterError {
    FilterError {
        column: at + 1,
        message: message.into(),
    }
}

impl Reader {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn skip_spaces(&mut self) {
        while self.peek().is_some_and(char::is_whitespace) {
            self.at += 1;
        }
    }

    fn at_gap(&self) -> bool {
        self.peek().is_none_or(char::is_whitespace)
    }

    /// Text up to the next space (`"quoted"`: up to the closing quote, spaces and all),
    /// and whether it was quoted.
    fn value(&mut self) -> Parsed<(String, bool)> {
        if self.peek() == Some('"') {
            let open = self.at;
            self.at += 1;
            let start = self.at;
            while self.peek().is_some_and(|c| c != '"') {
                self.at += 1;
            }
            if self.peek().is_none() {
                return Err(error(open, "this quote is never closed"));
            }
            let text: String = self.chars[start..self.at].iter().collect();
            self.at += 1;
            if !self.at_gap() {
                return Err(error(self.at, "a space must follow a closing quote"));
            }
            return Ok((text, true));
        }
        let start = self.at;
        while !self.at_gap() {
            self.at += 1;
        }
        Ok((self.chars[start..self.at].iter().collect(), false))
    }

    /// A word that could name a field (a letter, then letters, digits and
    /// underscores, in any case): a field's name when `:`, `=`, `<` or `>` follows.
    fn name(&mut self) -> String {
        let start = self.at;
        if self.peek().is_some_and(|c| c.is_ascii_alphabetic()) {
            while self
                .peek()
                .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
            {
                self.at += 1;
            }
        }
        self.chars[start..self.at].iter().collect()
    }

    fn comparison(&mut self) -> Option<Comparison> {
        let op = match self.peek()? {
            '<' => Comparison::Less,
            '>' => Comparison::Greater,
            _ => return None,
        };
        self.at += 1;
        if self.peek() == Some('=') {
            self.at += 1;
            return Some(match op {
                Comparison::Less => Comparison::LessOrEqual,
                _ => Comparison::GreaterOrEqual,
            });
        }
        Some(op)
    }
}

/// The most terms a query holds. Each binds a value, and SQLite takes at most 32,766
/// in one statement; a longer query is refused here, at the term past the limit,
/// rather than by SQLite in the middle of a list.
pub const MAX_TERMS: usize = 10_000;

/// Every term of `text`, each checked against the fields of `scope`.
pub(super) fn terms(text: &str, scope: Scope, me: Option<&str>) -> Parsed<Vec<Term>> {
    let mut reader = Reader {
        chars: text.chars().collect(),
        at: 0,
    };
    let mut terms = Vec::new();
    loop {
        reader.skip_spaces();
        if reader.peek().is_none() {
            return Ok(terms);
        }
        if terms.len() == MAX_TERMS {
            return Err(error(
                reader.at,
                format!(
                    "a query holds at most {MAX_TERMS} terms, and this is one more; shorten the query (a bare word or a `field:` text matches any part of a value, so one term may cover several)"
                ),
            ));
        }
        terms.push(term(&mut reader, scope, me)?);
    }
}

fn term(reader: &mut Reader, scope: Scope, me: Option<&str>) -> Parsed<Term> {
    let negated = reader.peek() == Some('-');
    if negated {
        reader.at += 1;
        if reader.at_gap() {
            return Err(error(reader.at - 1, "`-` needs a term right after it"));
        }
    }
    let start = reader.at;
    let name = reader.name();
    let field_at = || -> Parsed<Field> {
        let field = Field::named(&name).ok_or_else(|| {
            error(
                start,
                format!(
                    "no field `{name}`; this view's fields: {} (to look for the text itself, put it in \"quotes\")",
                    scope.field_list()
                ),
            )
        })?;
        if !scope.fields().contains(&field) {
            return Err(error(
                start,
                format!(
                    "`{name}` does not apply to this view; its fields: {}",
                    scope.field_list()
                ),
            ));
        }
        Ok(field)
    };
    let test = if !name.is_empty() && reader.peek() == Some(':') {
        let field = field_at()?;
        reader.at += 1;
        let value_at = reader.at;
        let (value, quoted) = reader.value()?;
        match (field, is_value(field, &value, quoted, value_at)?) {
            // The person asking: their own queue.
            (Field::Owner, Value::Text(text)) if !quoted && text.eq_ignore_ascii_case("me") => {
                Test::Is(Field::Owner, Value::Text(me.unwrap_or(&text).to_owned()))
            }
            // Overdue is past the escalation time now: a comparison, kept or left out.
            (Field::Overdue, Value::Yes(yes)) => {
                return Ok(Term {
                    negated: negated ^ !yes,
                    test: Test::Compare(Field::Escalates, Comparison::Less, Bound::FromNow(0)),
                });
            }
            (field, value) => Test::Is(field, value),
        }
    } else if !name.is_empty() && reader.peek() == Some('=') {
        // `gap=1h` read as a bare word would keep nothing, and say nothing of why.
        let field = field_at()?;
        let how = match field.kind() {
            Kind::Duration | Kind::Time => "is compared with >, <, >= or <=",
            Kind::Text | Kind::Closed | Kind::YesNo => "is matched with `:`",
        };
        return Err(error(
            reader.at,
            format!("`{field}` {how}, not `=`: {}", field.usage()),
        ));
    } else if let Some(op) = (!name.is_empty()).then(|| reader.comparison()).flatten() {
        let field = field_at()?;
        let value_at = reader.at;
        let (value, _) = reader.value()?;
        let (op, bound) = bound(field, op, &value, value_at)?;
        Test::Compare(field, op, bound)
    } else {
        reader.at = start;
        let (value, _) = reader.value()?;
        if value.is_empty() {
            return Err(error(
                start,
                "an empty word matches everything: write some text",
            ));
        }
        Test::Words(value)
    };
    Ok(Term { negated, test })
}

/// The value of `field:value`; `quoted` when it was written in quotes (`owner:"none"`
/// is an owner called none, `owner:none` no owner at all).
fn is_value(field: Field, value: &str, quoted: bool, at: usize) -> Parsed<Value> {
    if value.is_empty() {
        return Err(error(
            at,
            format!("`{field}:` needs a value: {}", field.usage()),
        ));
    }
    match field.kind() {
        Kind::Text if field == Field::Owner && !quoted && value.eq_ignore_ascii_case("none") => {
            Ok(Value::Nothing)
        }
        Kind::Text => Ok(Value::Text(value.to_owned())),
        Kind::YesNo => match lowered(value).as_str() {
            "yes" => Ok(Value::Yes(true)),
            "no" => Ok(Value::Yes(false)),
            _ => Err(error(
                at,
                format!("`{field}:` takes yes or no, not `{value}`"),
            )),
        },
        Kind::Closed => match field {
            Field::Disposition => closed::<Disposition>(value, at).map(Value::Disposition),
            Field::Outcome => closed::<Outcome>(value, at).map(Value::Outcome),
            _ => closed::<Verdict>(value, at).map(Value::Verdict),
        },
        Kind::Duration | Kind::Time => Err(error(
            at - 1,
            format!("`{field}` is compared, not matched: {}", field.usage()),
        )),
    }
}

/// A name of the closed set `S`, or an error listing them all.
fn closed<S: ClosedSet>(value: &str, at: usize) -> Parsed<S> {
    S::parse(&lowered(value)).ok_or_else(|| {
        let names: Vec<&str> = S::ALL.iter().map(|s| s.as_str()).collect();
        error(
            at,
            format!(
                "`{value}` is not a {}; one of: {}",
                S::WHAT,
                names.join(", ")
            ),
        )
    })
}

/// The bound of `field op value`, with the operator that keeps what it says.
fn bound(field: Field, op: Comparison, value: &str, at: usize) -> Parsed<(Comparison, Bound)> {
    let parsed = match field.kind() {
        Kind::Duration => seconds(value).map(|s| (op, Bound::Seconds(s))),
        Kind::Time => match from_now(value) {
            Some(seconds) => Some((op, Bound::FromNow(seconds))),
            None => time(value).and_then(|(time, whole_day)| in_millis(op, time, whole_day)),
        },
        Kind::Text | Kind::Closed | Kind::YesNo => {
            return Err(error(
                at,
                format!("`{field}` is matched, not compared: {}", field.usage()),
            ));
        }
    };
    parsed.ok_or_else(|| {
        let what = if value.is_empty() {
            "nothing to compare with".to_owned()
        } else {
            format!("cannot read {value:?}")
        };
        error(at, format!("{what} here: {}", field.usage()))
    })
}

/// A signed duration such as `90s`, `1h`, `1h30m`, `2d`, `-5m`, `0`, in seconds.
fn seconds(text: &str) -> Option<i64> {
    let (sign, mut rest) = match text.strip_prefix('-') {
        Some(rest) => (-1, rest),
        None => (1, text),
    };
    if rest.is_empty() {
        return None;
    }
    let mut total: i64 = 0;
    while !rest.is_empty() {
        let digits = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        let n: i64 = rest[..digits].parse().ok()?;
        // A plain number is seconds (`gap<=0`).
        let unit = rest[digits..].chars().next().unwrap_or('s');
        let scale = match unit {
            's' => 1,
            'm' => 60,
            'h' => 3600,
            'd' => 86_400,
            'w' => 604_800,
            _ => return None,
        };
        total = total.checked_add(n.checked_mul(scale)?)?;
        rest = rest.get(digits + 1..).unwrap_or("");
    }
    Some(sign * total)
}

/// A time relative to the clock, in seconds from it: `now`, or a signed duration
/// (`+1h`, `-30m`; the sign is what tells it from a time).
fn from_now(text: &str) -> Option<i64> {
    if text.eq_ignore_ascii_case("now") {
        return Some(0);
    }
    match text.strip_prefix('+') {
        Some(rest) if !rest.starts_with('-') => seconds(rest),
        _ if text.starts_with('-') => seconds(text),
        _ => None,
    }
}

/// A UTC time as written, to the nanosecond: RFC 3339, or `2026-11-27`,
/// `2026-11-27T14:00`, `2026-11-27T14:00:05` (a trailing `Z` allowed); and whether
/// it was a day alone.
fn time(text: &str) -> Option<(DateTime<Utc>, bool)> {
    if let Ok(at) = DateTime::parse_from_rfc3339(text) {
        return Some((at.with_timezone(&Utc), false));
    }
    let text = text.strip_suffix('Z').unwrap_or(text);
    if let Some(at) = ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%dT%H:%M"]
        .iter()
        .find_map(|format| NaiveDateTime::parse_from_str(text, format).ok())
    {
        return Some((at.and_utc(), false));
    }
    let day = NaiveDate::parse_from_str(text, "%Y-%m-%d").ok()?;
    Some((day.and_time(chrono::NaiveTime::MIN).and_utc(), true))
}

/// `op time` as a comparison with a stored time, which has whole milliseconds.
///
/// A day alone is the whole day for `<=` and `>` (`<=2026-11-27` keeps the 27th's
/// evening: it is `<` the 28th) and its start for `<` and `>=`. A time between two
/// milliseconds keeps the stored times its operator says: `<14:00:00.0005` keeps
/// `14:00:00.000` (it is `<=` the millisecond below), `>=14:00:00.0005` does not.
/// A time outside what the ledger holds (years 0 to 9999) is refused.
fn in_millis(op: Comparison, time: DateTime<Utc>, whole_day: bool) -> Option<(Comparison, Bound)> {
    let below = Timestamp::from_millis(time.timestamp_millis())?;
    let between = !time.timestamp_subsec_nanos().is_multiple_of(1_000_000);
    let op = match op {
        Comparison::LessOrEqual | Comparison::Greater if whole_day => {
            let next = time.checked_add_signed(chrono::TimeDelta::days(1));
            return Some(
                match next.and_then(|t| Timestamp::from_millis(t.timestamp_millis())) {
                    Some(next) => (
                        if op == Comparison::Greater {
                            Comparison::GreaterOrEqual
                        } else {
                            Comparison::Less
                        },
                        Bound::At(next),
                    ),
                    // The ledger's last day: through its last millisecond.
                    None => (op, Bound::At(Timestamp::LATEST)),
                },
            );
        }
        Comparison::Less if between => Comparison::LessOrEqual,
        Comparison::GreaterOrEqual if between => Comparison::Greater,
        op => op,
    };
    Some((op, Bound::At(below)))
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
