//! A list view's table: its columns, how they give way on a narrow terminal, and the
//! drawing of one page of rows.
//!
//! A value is never cut in the middle: a column is as wide as its widest value on the
//! page, and when the row does not fit, columns first take their shorter form and then
//! go, in the order of their rank (how little they are needed). What a row lost is
//! what the preview below the list shows ([`super::preview`]).

use ratatui::Frame;
use ratatui::layout::{Alignment, Constraint, Flex, Layout, Rect};
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, Paragraph, Row, Table, TableState};
use unicode_width::UnicodeWidthChar;

use super::{ListView, inert_span};
use crate::clock::Timestamp;
use crate::console::model::Model;
use crate::console::model::page::{Page, PageRow};
use crate::filter::SortColumn;

/// How a cell of a row is drawn, given the model's clock.
pub(crate) type CellFn<T> = for<'a> fn(&'a T, Timestamp) -> Line<'a>;

/// The narrowest a filling column (free text, which may be cut) is worth showing.
const FILL_AT_LEAST: u16 = 12;

/// Said at the right of the top border when rows are above the page.
const MORE_ABOVE: &str = "▲ more above";

/// Columns a table spends on the selection mark (`▶ `).
const SELECTION: u16 = 2;

/// Columns a table spends on its frame: the two borders and the selection mark.
const FRAME: u16 = 2 + SELECTION;

/// Kept free at the left of every row for a one-character mark column and its space
/// (bulk selection marks rows there), so adding it moves no other column.
pub(crate) const MARK_ROOM: u16 = 2;

/// The tour's labels of the worked example's callbacks (`C1`, `C1′`): as wide as the
/// widest of them.
const TAG_WIDTH: u16 = 3;

/// What the label column takes, with its space, while the tour runs on a page that
/// holds a labelled callback: the other columns fit in the rest.
const TAG_ROOM: u16 = TAG_WIDTH + 1;

/// The tour's label of `row`, while the tour runs and the row is one it labels.
fn tour_tag<'a, T: PageRow>(model: &'a Model, row: &T) -> Option<&'a str> {
    let seq = row.callback()?.seq;
    model.tour.shown.then(|| model.tour.label(seq)).flatten()
}

/// One column of a list view: its header, its width, how soon it gives way on a
/// narrow terminal, and how its cell is drawn. A view is a slice of these, so the
/// header, the rows and the narrow layouts cannot fall out of step.
pub(crate) struct Column<T> {
    pub header: &'static str,
    /// `Length(n)`: `n` wide (at least, when it grows); `Fill`/`Min`: free text that
    /// takes the room left and may be cut (the preview shows it whole).
    pub width: Constraint,
    /// While the row does not fit, columns give way in the order of this rank (1
    /// first): a narrow terminal shows fewer columns whole rather than every column
    /// cut short. `None`: the column always stays.
    pub gives_way: Option<u8>,
    /// Widens to its widest cell on the page, so no value is cut.
    pub grows: bool,
    /// The cell of a row.
    pub cell: CellFn<T>,
    /// A shorter cell, taken at this rank in the same order, before any column goes.
    pub short: Option<(u8, CellFn<T>)>,
    /// The order this column shows: while the list is sorted by it, it never gives
    /// way (a list sorted by a column it does not show hides why rows are where they are).
    pub sorts: Option<SortColumn>,
}

impl<T> Column<T> {
    /// A column of fixed `width` that never gives way.
    pub const fn new(header: &'static str, width: Constraint, cell: CellFn<T>) -> Self {
        Column {
            header,
            width,
            gives_way: None,
            grows: false,
            cell,
            short: None,
            sorts: None,
        }
    }

    /// The same column, giving way at rank `order` on a narrow terminal.
    pub const fn gives_way(self, order: u8) -> Self {
        Column {
            gives_way: Some(order),
            ..self
        }
    }

    /// The same column, widened to its widest cell.
    pub const fn grows(self) -> Self {
        Column {
            grows: true,
            ..self
        }
    }

    /// The same column, showing what a list sorted by `sort` is ordered by.
    pub const fn sorts(self, sort: SortColumn) -> Self {
        Column {
            sorts: Some(sort),
            ..self
        }
    }

    /// The same column, drawn with `cell` instead from rank `order` on.
    pub const fn shortens(self, order: u8, cell: CellFn<T>) -> Self {
        Column {
            short: Some((order, cell)),
            ..self
        }
    }
}

/// How a column ended up on a table of some width.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Form {
    Full,
    Short,
    Dropped,
}

/// The columns of one page fitted into a width: each column's form, and its width.
pub(crate) struct Fitted<'a> {
    pub forms: Vec<Form>,
    widths: Vec<Constraint>,
    /// Each row's cells, full and short (`None`: the column has no short form).
    cells: Vec<Vec<(Line<'a>, Option<Line<'a>>)>>,
}

fn text_width(line: &Line<'_>) -> u16 {
    u16::try_from(line.width()).unwrap_or(u16::MAX)
}

/// How wide a column must be (and its constraint), for cells of these widths.
fn need<T>(column: &Column<T>, widest: u16) -> (u16, Constraint) {
    let header = u16::try_from(column.header.chars().count()).unwrap_or(u16::MAX);
    match column.width {
        Constraint::Length(n) if column.grows => {
            let n = n.max(header).max(widest);
            (n, Constraint::Length(n))
        }
        Constraint::Length(n) => (n, Constraint::Length(n)),
        Constraint::Min(n) => (n, Constraint::Min(n)),
        Constraint::Fill(k) => (FILL_AT_LEAST, Constraint::Fill(k)),
        other => (0, other),
    }
}

/// Fits `columns` for `rows` into a table `width` wide (its borders included); the
/// column a list `sorted` by shows stays (others go in its place).
pub(crate) fn fit<'a, T>(
    columns: &[Column<T>],
    rows: &'a [T],
    now: Timestamp,
    width: u16,
    sorted: SortColumn,
) -> Fitted<'a> {
    let cells: Vec<Vec<(Line<'a>, Option<Line<'a>>)>> = rows
        .iter()
        .map(|row| {
            columns
                .iter()
                .map(|c| ((c.cell)(row, now), c.short.map(|(_, s)| s(row, now))))
                .collect()
        })
        .collect();
    let widest = |i: usize, short: bool| -> u16 {
        cells
            .iter()
            .map(|r| match (short, &r[i]) {
                (true, (_, Some(s))) => text_width(s),
                (_, (full, _)) => text_width(full),
            })
            .max()
            .unwrap_or(0)
    };
    let mut forms = vec![Form::Full; columns.len()];
    let needed = |forms: &[Form]| -> u16 {
        let kept = forms.iter().filter(|f| **f != Form::Dropped).count();
        let gaps = u16::try_from(kept.saturating_sub(1)).unwrap_or(u16::MAX);
        columns
            .iter()
            .enumerate()
            .filter(|(i, _)| forms[*i] != Form::Dropped)
            .map(|(i, c)| need(c, widest(i, forms[i] == Form::Short)).0)
            .fold(gaps.saturating_add(FRAME + MARK_ROOM), u16::saturating_add)
    };
    let mut steps: Vec<(u8, usize, Form)> = columns
        .iter()
        .enumerate()
        .flat_map(|(i, c)| {
            let short = c.short.map(|(order, _)| (order, i, Form::Short));
            let drop = c
                .gives_way
                .filter(|_| c.sorts != Some(sorted))
                .map(|order| (order, i, Form::Dropped));
            short.into_iter().chain(drop)
        })
        .collect();
    steps.sort_unstable_by_key(|&(order, i, _)| (order, i));
    for (_, i, form) in steps {
        if needed(&forms) <= width {
            break;
        }
        forms[i] = form;
    }
    let widths = columns
        .iter()
        .enumerate()
        .map(|(i, c)| need(c, widest(i, forms[i] == Form::Short)).1)
        .collect();
    Fitted {
        forms,
        widths,
        cells,
    }
}

impl<'a> Fitted<'a> {
    /// The full cell of column `column` in the page's `row`th row.
    pub(crate) fn full_cell(&self, row: usize, column: usize) -> Option<&Line<'a>> {
        self.cells.get(row)?.get(column).map(|(full, _)| full)
    }

    fn kept(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.forms.len()).filter(|&i| self.forms[i] != Form::Dropped)
    }
}

/// The room each kept column gets in a table whose inside is `inner` wide, laid out
/// as ratatui's `Table` lays it out (the selection mark first, then the columns from
/// the left, one space apart).
fn cell_room(fitted: &Fitted<'_>, inner: u16) -> Vec<u16> {
    let columns = Rect::new(0, 0, inner.saturating_sub(SELECTION), 1);
    Layout::horizontal(fitted.kept().map(|i| fitted.widths[i]))
        .flex(Flex::Start)
        .spacing(1)
        .split(columns)
        .iter()
        .map(|r| r.width)
        .collect()
}

/// `line` as it fits in `room` columns: whole, or (free text in a column that takes
/// what is left) cut with a `…` that says so.
fn ellipsized<'a>(line: &Line<'a>, room: u16) -> Line<'a> {
    let room = usize::from(room);
    if line.width() <= room {
        return line.clone();
    }
    let mut left = room.saturating_sub(1);
    let mut spans = Vec::new();
    for span in &line.spans {
        let mut text = String::new();
        for c in span.content.chars() {
            let w = c.width().unwrap_or(0);
            if w > left {
                break;
            }
            left -= w;
            text.push(c);
        }
        let whole = text.len() == span.content.len();
        spans.push(Span::styled(text, span.style));
        if !whole {
            break;
        }
    }
    spans.push(Span::raw("…").dark_gray());
    Line::from(spans).style(line.style)
}

/// What an empty page says: the view's own sentence, or, under a filter, that nothing
/// matches it (an empty result is no empty ledger).
fn empty_line<'a, T>(view: &ListView<T>, filter: Option<&'a str>) -> Line<'a> {
    match filter {
        None => Line::from(view.empty).dark_gray(),
        Some(query) => Line::from(vec![
            Span::raw("Nothing here matches the filter ").dark_gray(),
            inert_span(query).bold(),
        ]),
    }
}

/// In the list's place while the filter typed is not a query (yet): that it is not,
/// why, and where, whole and wrapped. The rows held are those of an earlier text; shown
/// under this one they claimed to match what nobody searched.
fn not_a_query(
    frame: &mut Frame<'_>,
    area: Rect,
    model: &Model,
    error: &crate::filter::FilterError,
    text: Option<&str>,
) {
    let title = format!(" {} · not a query yet ", model.tab.title());
    let block = Block::bordered()
        .title(Line::from(title).bold())
        .border_style(Style::new().fg(Color::Yellow));
    let text = text.unwrap_or_default();
    let mut lines = vec![
        Line::from(vec![
            Span::raw("Not a query yet: ").yellow().bold(),
            Span::raw(crate::inert::inert(&error.message)),
            Span::raw(format!(", at column {}.", error.column)),
        ]),
        Line::default(),
    ];
    // The text with a mark under the column, when the text fits on one line.
    let inner = block.inner(area);
    let chars = text.chars().count();
    if chars + 2 <= usize::from(inner.width) {
        lines.push(Line::from(vec![Span::raw("  "), inert_span(text).bold()]));
        let under = " ".repeat(error.column.saturating_sub(1).min(chars) + 2);
        lines.push(Line::from(vec![
            Span::raw(under),
            Span::raw("^").yellow().bold(),
        ]));
        lines.push(Line::default());
    }
    let before = match &model.overlay {
        crate::console::model::Overlay::Filter {
            before: Some(before),
            ..
        } => {
            vec![Span::raw("the filter "), inert_span(before).bold()]
        }
        _ => vec![Span::raw("no filter")],
    };
    let mut back = vec![Span::raw(
        "No rows are shown until it is one. Enter keeps only a query; Esc puts back ",
    )];
    back.extend(before);
    back.push(Span::raw("."));
    lines.push(Line::from(back).dark_gray());
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .wrap(ratatui::widgets::Wrap { trim: false }),
        area,
    );
}

/// Draws the page of a list view into `area`: its frame with title and paging marks,
/// the header, and the rows, or a sentence when there are none. Returns how its
/// columns were fitted, for the preview.
pub(crate) fn draw_list<'a, T: PageRow>(
    frame: &mut Frame<'_>,
    area: Rect,
    model: &Model,
    view: &ListView<T>,
    page: &'a Page<T>,
) -> Fitted<'a> {
    let focused = model.detail.is_none();
    if let Some(error) = &page.invalid {
        not_a_query(frame, area, model, error, page.filter.as_deref());
        return fit(view.columns, &[], model.now, area.width, page.sort.column);
    }
    // The title shares the top border with the "more above" mark at its right.
    let room = usize::from(area.width.saturating_sub(2)).saturating_sub(if page.more_before {
        MORE_ABOVE.chars().count() + 1
    } else {
        0
    });
    let mut block = Block::bordered()
        .title(
            Line::from(super::list_title(
                model,
                view.what,
                view.open_what,
                page.count,
                page.sort,
                room,
            ))
            .bold(),
        )
        .border_style(if focused {
            Style::new().fg(Color::Cyan)
        } else {
            Style::new().fg(Color::DarkGray)
        });
    if page.more_before {
        block = block.title_top(
            Line::from(MORE_ABOVE)
                .alignment(Alignment::Right)
                .dark_gray(),
        );
    }
    if page.more_after {
        block = block.title_bottom(
            Line::from("▼ more below")
                .alignment(Alignment::Right)
                .dark_gray(),
        );
    }
    // While the tour runs, the worked example's callbacks carry their labels (C1–C5)
    // in a column of their own at the left, and the others fit beside it.
    let tagged = page
        .rows
        .iter()
        .any(|row| tour_tag(model, row).is_some() || model.is_new(row.callback(), row.aged()));
    let tag_room = if tagged { TAG_ROOM } else { 0 };
    let fitted = fit(
        view.columns,
        &page.rows,
        model.now,
        area.width.saturating_sub(tag_room),
        page.sort.column,
    );
    if page.rows.is_empty() {
        let inner = block.inner(area);
        frame.render_widget(block, area);
        let line = if model.searching_shown() {
            Line::from("searching…").dark_gray()
        } else {
            empty_line(view, model.filter())
        };
        frame.render_widget(Paragraph::new(line), inner);
        return fitted;
    }
    // While rows are marked for a bulk write, a one-character column at the left
    // shows which: it takes the room every fit keeps free for it ([`MARK_ROOM`]).
    let marks = model.marked() > 0;
    let header = Row::new(
        marks
            .then_some("")
            .into_iter()
            .chain(tagged.then_some(""))
            .chain(fitted.kept().map(|i| view.columns[i].header)),
    )
    .style(Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED));
    let room = cell_room(&fitted, block.inner(area).width.saturating_sub(tag_room));
    let rows = fitted.cells.iter().zip(&page.rows).map(|(cells, row)| {
        let mark =
            marks.then(|| Cell::from(super::bulk::mark_cell(model, row.callback(), row.aged())));
        let tag = tagged.then(|| {
            Cell::from(match tour_tag(model, row) {
                Some(label) => Span::raw(label.to_owned()).cyan().bold(),
                // New since the reviewer last looked at the list.
                None if model.is_new(row.callback(), row.aged()) => {
                    Span::raw("new").yellow().bold()
                }
                None => Span::raw(""),
            })
        });
        Row::new(
            mark.into_iter()
                .chain(tag)
                .chain(fitted.kept().zip(&room).map(|(i, &room)| {
                    let (full, short) = &cells[i];
                    let line = match (fitted.forms[i], short) {
                        (Form::Short, Some(short)) => short,
                        _ => full,
                    };
                    Cell::from(ellipsized(line, room))
                })),
        )
    });
    let mark_column = marks.then_some(Constraint::Length(super::bulk::MARK_COLUMN));
    let tag_column = tagged.then_some(Constraint::Length(TAG_WIDTH));
    let table = Table::new(
        rows,
        mark_column
            .into_iter()
            .chain(tag_column)
            .chain(fitted.kept().map(|i| fitted.widths[i])),
    )
    .header(header)
    .block(block)
    // The previous filter's rows, until the search's come: dimmed, as the title says.
    .style(if model.searching_shown() {
        Style::new().add_modifier(Modifier::DIM)
    } else {
        Style::new()
    })
    .column_spacing(1)
    .row_highlight_style(if focused {
        Style::new().bg(Color::Blue).fg(Color::White)
    } else {
        Style::new().bg(Color::DarkGray)
    })
    .highlight_symbol("▶ ");
    let mut state = TableState::default().with_selected(Some(page.selected));
    frame.render_stateful_widget(table, area, &mut state);
    fitted
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Word(&'static str);

    const WORDS: &[Column<Word>] = &[
        Column::<Word>::new("a", Constraint::Length(1), |w, _| Line::from(w.0)).grows(),
        Column::<Word>::new("b", Constraint::Length(1), |w, _| Line::from(w.0))
            .grows()
            .shortens(1, |_, _| Line::from("b"))
            .gives_way(3),
        Column::<Word>::new("c", Constraint::Length(1), |w, _| Line::from(w.0))
            .grows()
            .gives_way(2),
    ];

    fn forms(width: u16) -> Vec<Form> {
        let rows = [Word("0123456789")];
        let now = Timestamp::parse("2026-11-27T17:00:00Z").expect("time");
        fit(WORDS, &rows, now, width, SortColumn::Ledger).forms
    }

    #[test]
    fn free_text_cut_short_says_so() {
        let line = Line::from(vec![Span::raw("invalid "), Span::raw("payload: guest")]);
        assert_eq!(ellipsized(&line, 30).to_string(), "invalid payload: guest");
        assert_eq!(ellipsized(&line, 22).to_string(), "invalid payload: guest");
        assert_eq!(ellipsized(&line, 12).to_string(), "invalid pay…");
        assert_eq!(ellipsized(&line, 5).to_string(), "inva…");
    }

    #[test]
    fn columns_shorten_then_go_by_rank_and_are_never_cut() {
        let all = FRAME + MARK_ROOM + 3 * 10 + 2;
        assert_eq!(forms(all), [Form::Full, Form::Full, Form::Full]);
        assert_eq!(forms(all - 1), [Form::Full, Form::Short, Form::Full]);
        // The short form saved 9; one less and the column of rank 2 goes whole.
        assert_eq!(forms(all - 10), [Form::Full, Form::Short, Form::Dropped]);
        assert_eq!(forms(all - 22), [Form::Full, Form::Dropped, Form::Dropped]);
    }
}
