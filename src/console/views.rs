//! The drawing of each view, the detail pane, forms and help; and the few helpers
//! they share. Every string that came from outside becomes a span through [`outside`].

pub(crate) mod callbacks;
pub(crate) mod detail;
pub(crate) mod form;
pub(crate) mod help;
pub(crate) mod jobs;
pub(crate) mod reconcile;

use ratatui::Frame;
use ratatui::layout::{Alignment, Constraint, Rect};
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, Paragraph, Row, Table, TableState};

use crate::clock::Timestamp;
use crate::inert::inert;
use crate::store::AnswerRow;

/// The characters of one outside string drawn at most. A screen shows a few thousand;
/// a megabyte-long job id, made inert and laid out whole, cost every frame a tenth of
/// a second (tests/hostile_input.rs).
const OUTSIDE_CHARS: usize = 4096;

/// Text that came from an event (ids, payloads, notes, names), made inert for the terminal.
pub(crate) fn outside(text: &str) -> Span<'_> {
    match text.char_indices().nth(OUTSIDE_CHARS) {
        None => Span::raw(inert(text)),
        Some((cut, _)) => Span::raw(format!(
            "{}… ({} bytes in all)",
            inert(&text[..cut]),
            text.len()
        )),
    }
}

/// A time in a table cell: month, day and time of day (`11-27 13:12:01`).
pub(crate) fn when(at: Timestamp) -> String {
    let full = at.short();
    full.get(5..).map_or_else(|| full.clone(), str::to_owned)
}

/// A time that may be missing.
pub(crate) fn when_or_dash(at: Option<Timestamp>) -> String {
    at.map_or_else(|| "-".to_owned(), when)
}

/// The standing answer of a row: verdict, by whom, when; or that none was given.
pub(crate) fn answer_cell(answer: Option<&AnswerRow>) -> Line<'_> {
    let Some(a) = answer else {
        return Line::from(Span::raw("unanswered").light_red());
    };
    let verdict = outside(a.verdict.as_str());
    let verdict = if a.verdict.closes() {
        verdict.green()
    } else {
        verdict.yellow()
    };
    Line::from(vec![
        verdict,
        Span::raw(" by ").dark_gray(),
        outside(&a.reviewer),
        Span::raw(format!(" {}", when(a.answered_at))).dark_gray(),
    ])
}

/// The narrowest a filling column is worth showing.
const FILL_AT_LEAST: u16 = 12;

/// The columns of a table `width` wide: all of them when they fit (borders, the
/// selection mark, one space between columns), else without `drops` in turn.
fn kept_columns(widths: &[Constraint], drops: &[usize], width: u16) -> Vec<usize> {
    let least = |c: &Constraint| match *c {
        Constraint::Length(n) | Constraint::Min(n) => n,
        Constraint::Fill(_) => FILL_AT_LEAST,
        _ => 0,
    };
    let needed = |keep: &[usize]| -> u16 {
        let columns: u16 = keep.iter().map(|&i| least(&widths[i])).sum();
        let gaps = u16::try_from(keep.len().saturating_sub(1)).unwrap_or(u16::MAX);
        columns.saturating_add(gaps).saturating_add(4)
    };
    let mut keep: Vec<usize> = (0..widths.len()).collect();
    for drop in drops {
        if needed(&keep) <= width {
            break;
        }
        keep.retain(|i| i != drop);
    }
    keep
}

/// A list view: its frame with title and paging marks, the header, and the rows, or
/// a sentence when there are none.
pub(crate) struct ListFrame<'a> {
    pub title: String,
    pub header: &'a [&'a str],
    pub widths: &'a [Constraint],
    /// Each row's cells, one per column.
    pub rows: Vec<Vec<Cell<'a>>>,
    /// The columns left out, in this order, while the table does not fit the width: a
    /// narrow terminal shows fewer columns whole rather than every column cut short.
    pub narrow_drops: &'a [usize],
    pub selected: usize,
    pub more_before: bool,
    pub more_after: bool,
    pub empty: &'a str,
    /// Dimmed while the detail pane has the keyboard.
    pub focused: bool,
}

impl ListFrame<'_> {
    pub fn draw(self, frame: &mut Frame<'_>, area: Rect) {
        let mut block = Block::bordered()
            .title(Line::from(self.title).bold())
            .border_style(if self.focused {
                Style::new().fg(Color::Cyan)
            } else {
                Style::new().fg(Color::DarkGray)
            });
        if self.more_before {
            block = block.title_top(
                Line::from("▲ more above")
                    .alignment(Alignment::Right)
                    .dark_gray(),
            );
        }
        if self.more_after {
            block = block.title_bottom(
                Line::from("▼ more below")
                    .alignment(Alignment::Right)
                    .dark_gray(),
            );
        }
        if self.rows.is_empty() {
            let inner = block.inner(area);
            frame.render_widget(block, area);
            frame.render_widget(Paragraph::new(self.empty).dark_gray(), inner);
            return;
        }
        let keep = kept_columns(self.widths, self.narrow_drops, area.width);
        let header = Row::new(keep.iter().map(|&i| self.header[i]))
            .style(Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED));
        let rows = self.rows.into_iter().map(|cells| {
            Row::new(
                cells
                    .into_iter()
                    .enumerate()
                    .filter(|(i, _)| keep.contains(i))
                    .map(|(_, cell)| cell),
            )
        });
        let table = Table::new(rows, keep.iter().map(|&i| self.widths[i]))
            .header(header)
            .block(block)
            .column_spacing(1)
            .row_highlight_style(if self.focused {
                Style::new().bg(Color::Blue).fg(Color::White)
            } else {
                Style::new().bg(Color::DarkGray)
            })
            .highlight_symbol("▶ ");
        let mut state = TableState::default().with_selected(Some(self.selected));
        frame.render_stateful_widget(table, area, &mut state);
    }
}
