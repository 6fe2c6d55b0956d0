//! Text tables from one column list: the header and every row are drawn from the
//! same widths, so they cannot drift apart.

use std::fmt::Write as _;

/// Which side of its width a cell keeps to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

/// One column of a text table.
pub struct Column<T> {
    /// Printed over the column.
    pub header: &'static str,
    /// The width cells are padded to (in characters; `0`: not padded, for the last column).
    pub width: usize,
    pub align: Align,
    /// Printed before the cell: the space between this column and the one before it.
    pub gap: &'static str,
    /// How a cell of this column is drawn.
    pub cell: fn(&T) -> String,
}

impl<T> Column<T> {
    /// A column: the gap before it, its header, width and alignment, and its cells.
    pub const fn new(
        gap: &'static str,
        header: &'static str,
        width: usize,
        align: Align,
        cell: fn(&T) -> String,
    ) -> Self {
        Column {
            header,
            width,
            align,
            gap,
            cell,
        }
    }
}

/// The header line (without its newline).
pub fn header<T>(columns: &[Column<T>]) -> String {
    line(columns, |column| column.header.to_owned())
}

/// The line of one item (without its newline).
pub fn row<T>(columns: &[Column<T>], item: &T) -> String {
    line(columns, |column| (column.cell)(item))
}

fn line<T>(columns: &[Column<T>], text: impl Fn(&Column<T>) -> String) -> String {
    let mut out = String::new();
    for column in columns {
        out.push_str(column.gap);
        let text = text(column);
        let width = column.width;
        let _ = match column.align {
            Align::Left => write!(out, "{text:<width$}"),
            Align::Right => write!(out, "{text:>width$}"),
        };
    }
    out
}

/// A count or a missing value (`-`), as tables show them.
pub fn or_dash(value: Option<impl ToString>) -> String {
    value.map_or_else(|| "-".to_owned(), |v| v.to_string())
}
