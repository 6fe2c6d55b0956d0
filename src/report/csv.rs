//! Lists as CSV (RFC 4180's fields and quoting), for spreadsheets and scripts: one
//! header row, then a row per item. Every field is made inert first (a control
//! character becomes visible text, so a value never breaks its row), then quoted when
//! it holds a comma, a double quote or a line break, a double quote doubled inside. An
//! absent value is an empty field; times are the ledger's RFC 3339 text; yes and no
//! are `true` and `false`.
//!
//! A spreadsheet runs a field that starts with `=`, `+`, `-` or `@` as a formula, and a
//! job id, a reason or a note comes from outside: such a field that is not a number
//! starts with a `'` (what the sheets themselves use to say "text"), so opening the
//! file never runs what a remote service or a colleague wrote. The JSON keeps every
//! value as it is.
//!
//! Rows end in LF, not the RFC's CRLF: like every other report, a CSV printed to a
//! terminal holds no control character but the line end, and it reads line by line
//! with `grep` and `wc -l`; spreadsheets and CSV readers take either end.
//!
//! Columns are written once, as a list ([`Column`]), as the text tables are.

use std::borrow::Cow;

use crate::inert::inert;

/// The end of every row.
const END: &str = "\n";

/// One column of a CSV list: its header and how a field is drawn from an item
/// (`None`: empty).
pub struct Column<T> {
    pub header: &'static str,
    pub field: fn(&T) -> Option<String>,
}

impl<T> Column<T> {
    /// A column: its header and its field.
    pub const fn new(header: &'static str, field: fn(&T) -> Option<String>) -> Self {
        Column { header, field }
    }
}

/// `value` as one CSV field: inert, a would-be formula marked as text, and quoted
/// when it must be.
pub fn field(value: &str) -> Cow<'_, str> {
    let value = inert(value);
    let value = if reads_as_formula(&value) {
        Cow::Owned(format!("'{value}"))
    } else {
        value
    };
    if value.contains([',', '"', '\r', '\n']) {
        Cow::Owned(format!("\"{}\"", value.replace('"', "\"\"")))
    } else {
        value
    }
}

/// Would a spreadsheet take `value` for a formula? It starts with a formula's sign
/// and is not a plain number (a negative gap, `-120`, stays a number).
fn reads_as_formula(value: &str) -> bool {
    value.starts_with(['=', '+', '-', '@']) && value.parse::<f64>().is_err()
}

/// The header row, with its line end.
pub fn header<T>(columns: &[Column<T>]) -> String {
    line(columns.iter().map(|c| Cow::Borrowed(c.header)))
}

/// The row of one item, with its line end.
pub fn row<T>(columns: &[Column<T>], item: &T) -> String {
    line(
        columns
            .iter()
            .map(|c| (c.field)(item).map_or(Cow::Borrowed(""), Cow::Owned)),
    )
}

fn line<'a>(values: impl Iterator<Item = Cow<'a, str>>) -> String {
    let mut out = String::new();
    for (i, value) in values.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&field(&value));
    }
    out.push_str(END);
    out
}

/// A list as CSV: its header and a row per item.
pub fn list<T>(columns: &[Column<T>], items: &[T]) -> String {
    let mut out = header(columns);
    for item in items {
        out.push_str(&row(columns, item));
    }
    out
}

/// A value as a field: its `to_string`.
pub fn shown(value: Option<impl ToString>) -> Option<String> {
    value.map(|v| v.to_string())
}

#[cfg(test)]
mod tests {
    use super::{Column, field, list};

    #[test]
    fn fields_are_quoted_as_rfc_4180_says() {
        assert_eq!(field("plain"), "plain");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field(""), "");
    }

    #[test]
    fn a_field_a_spreadsheet_would_run_is_marked_as_text() {
        assert_eq!(
            field("=HYPERLINK(\"http://x\")"),
            "\"'=HYPERLINK(\"\"http://x\"\")\""
        );
        assert_eq!(field("+1+cmd|' /C calc'!A0"), "'+1+cmd|' /C calc'!A0");
        assert_eq!(field("@SUM(A1)"), "'@SUM(A1)");
        assert_eq!(field("-2+3"), "'-2+3");
        // Numbers stay numbers; a sign inside a value is no formula.
        assert_eq!(field("-120"), "-120");
        assert_eq!(field("+3.5"), "+3.5");
        assert_eq!(field("job-1=2"), "job-1=2");
        // A tab or carriage return in front is made inert before the check.
        assert_eq!(field("\t=1"), "^I=1");
    }

    #[test]
    fn a_control_character_is_made_inert_and_never_breaks_the_row() {
        // A line break becomes visible text: the row stays one line.
        assert_eq!(field("one\ntwo"), "one^Jtwo");
        assert_eq!(field("esc\u{1b}[2J, then"), "\"esc^[[2J, then\"");
        assert_eq!(field("\u{202e}evil"), "\\u{202e}evil");
    }

    #[test]
    fn a_list_is_a_header_and_a_row_per_item_each_on_its_line() {
        const COLUMNS: [Column<(i64, Option<&str>)>; 2] = [
            Column::new("n", |r| Some(r.0.to_string())),
            Column::new("note", |r| r.1.map(str::to_owned)),
        ];
        assert_eq!(
            list(&COLUMNS, &[(1, Some("a, b")), (2, None)]),
            "n,note\n1,\"a, b\"\n2,\n"
        );
    }
}
