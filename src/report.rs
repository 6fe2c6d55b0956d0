//! What the command line prints: readable tables, or the JSON shapes of SPEC sec. 7.
//!
//! Each report is one type that serializes to its JSON shape (`Serialize`) and
//! draws its text ([`Report`]); tables are drawn from one column list
//! ([`table::Column`]). Every string that came from outside goes through
//! [`crate::inert`] in tables; JSON escapes the same characters as `\u`
//! sequences, so a report printed to a terminal can never drive it.

mod bulk;
mod callbacks;
mod check;
pub mod csv;
mod outbox;
mod reconciliation;
mod summary;
pub mod table;
mod views;
mod whole;
mod writes;

use std::io;

use serde::Serialize;

use crate::closed_set::closed_set;
use crate::inert::is_dangerous;

pub use bulk::BulkReport;
pub use callbacks::write_callbacks;
pub use check::{CheckReport, backup_written, megabytes, salvage_written};
pub use summary::{Summary, backlog_line};
pub use views::view_deleted;
pub use whole::{MEMORY_BOUND, WholeOutput};
pub use writes::{
    AnswerJson, ClaimJson, DecisionsAnsweredJson, OwnerJson, OwnerPlanJson, Withdrawn,
    answer_written, claim_said, decisions_answered, owner_cleared, owner_set, owner_unchanged,
    request_written, withdrawn_line,
};

/// A report: JSON from its `Serialize`, or readable text.
pub trait Report: Serialize {
    /// The readable report, each line ending in a newline.
    fn text(&self) -> String;
}

/// A report that is a list of rows, which a spreadsheet takes as CSV too.
pub trait CsvReport: Report {
    /// The rows as CSV ([`csv`]): a header row, then a row each.
    fn csv(&self) -> String;
}

closed_set! {
    /// How a list is printed (`--format`): a readable table, JSON, or CSV.
    pub enum ListFormat("list format") {
        Table,
        Json,
        Csv,
    }
}

impl ListFormat {
    /// `--format` if given, else JSON for `--json`, else the table.
    pub fn chosen(format: Option<ListFormat>, json: bool) -> ListFormat {
        match (format, json) {
            (Some(format), _) => format,
            (None, true) => ListFormat::Json,
            (None, false) => ListFormat::Table,
        }
    }
}

/// Writes a list report in `format`.
pub fn write_list(
    out: &mut impl io::Write,
    report: &(impl CsvReport + ?Sized),
    format: ListFormat,
) -> io::Result<()> {
    match format {
        ListFormat::Table => out.write_all(report.text().as_bytes()),
        ListFormat::Json => write_json(out, report),
        ListFormat::Csv => out.write_all(report.csv().as_bytes()),
    }
}

/// Writes a report as JSON (`--json`) or as text.
pub fn write(
    out: &mut impl io::Write,
    report: &(impl Report + ?Sized),
    json: bool,
) -> io::Result<()> {
    if json {
        write_json(out, report)
    } else {
        out.write_all(report.text().as_bytes())
    }
}

/// Shortens a string to `width` characters, marking the cut with `…`.
pub fn clip(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        s.to_owned()
    } else {
        let mut cut: String = s.chars().take(width.saturating_sub(1)).collect();
        cut.push('…');
        cut
    }
}

/// Writes `value` as JSON with every character that could drive a terminal escaped.
pub fn write_json(out: &mut impl io::Write, value: &(impl Serialize + ?Sized)) -> io::Result<()> {
    let mut serializer = serde_json::Serializer::with_formatter(&mut *out, InertJson);
    value.serialize(&mut serializer).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

/// Writes `value` as compact JSON without the closing newline (an item of a list).
pub fn write_json_compact(
    out: &mut impl io::Write,
    value: &(impl Serialize + ?Sized),
) -> io::Result<()> {
    // `io::Error::from` gives back the writer's own error (a broken pipe stays one).
    let mut serializer = serde_json::Serializer::with_formatter(&mut *out, InertJson);
    value.serialize(&mut serializer).map_err(io::Error::from)
}

/// A compact JSON formatter that writes dangerous characters as `\u` escapes.
struct InertJson;

impl serde_json::ser::Formatter for InertJson {
    fn write_string_fragment<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> io::Result<()> {
        // Printable ASCII, by far the most text, holds nothing dangerous.
        if fragment.bytes().all(|b| (0x20..0x7f).contains(&b)) {
            return writer.write_all(fragment.as_bytes());
        }
        let mut start = 0;
        for (i, c) in fragment.char_indices() {
            if is_dangerous(c) {
                writer.write_all(&fragment.as_bytes()[start..i])?;
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(writer, "\\u{unit:04x}")?;
                }
                start = i + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }
}
