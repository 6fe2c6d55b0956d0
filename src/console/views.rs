//! The drawing of each view, the detail pane, forms and help; and the few helpers
//! they share. Every string that came from outside becomes a span through [`outside`].

pub(crate) mod callbacks;
pub(crate) mod detail;
pub(crate) mod form;
pub(crate) mod help;
pub(crate) mod jobs;
pub(crate) mod outbox;
pub(crate) mod reconcile;
pub(crate) mod saved;

use ratatui::Frame;
use ratatui::layout::{Alignment, Constraint, Rect};
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Cell, Paragraph, Row, Table, TableState};

use super::model::Model;
use super::model::page::{Page, PageRow};
use super::tab::Tab;
use crate::clock::Timestamp;
use crate::inert::inert;
use crate::store::AnswerRow;

/// How `tab` is drawn: the one place a view is named for its tab (beside the
/// `mod` line its file needs anyway). The model names the tab's page in `tab.rs`,
/// and cannot name its drawing without importing the views.
pub(crate) fn of(tab: Tab) -> &'static dyn TabView {
    match tab {
        Tab::Held => &callbacks::HELD,
        Tab::Quarantined => &callbacks::QUARANTINED,
        Tab::Aged => &jobs::AGED,
        Tab::Failed => &jobs::FAILED,
        Tab::Callbacks => &callbacks::ALL,
        Tab::Reconcile => &reconcile::Reconcile,
        Tab::Outbox => &outbox::OUTBOX,
        Tab::Rejected => &outbox::REJECTED,
    }
}

/// A tab's view: draws the tab's part of the model into the list area.
pub(crate) trait TabView: Sync {
    /// Draws the current tab (`model.tab`) into `area`.
    fn draw(&self, frame: &mut Frame<'_>, area: Rect, model: &Model);
}

impl<T: PageRow + 'static> TabView for ListView<T> {
    fn draw(&self, frame: &mut Frame<'_>, area: Rect, model: &Model) {
        // A tab whose page holds other rows than its view draws would be a slip in
        // `views::of`; the console test draws every tab, so it shows there as a blank.
        if let Some(page) = model.lists.page::<T>(model.tab) {
            draw_list(frame, area, model, self, page);
        }
    }
}

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

/// One column of a list view: its header, its width, how soon it gives way on a
/// narrow terminal, and how its cell is drawn. A view is a slice of these, so the
/// header, the rows and the narrow layouts cannot fall out of step.
pub(crate) struct Column<T> {
    pub header: &'static str,
    pub width: Constraint,
    /// While the table does not fit the width, columns give way in the order of this
    /// number (1 first): a narrow terminal shows fewer columns whole rather than every
    /// column cut short. `None`: the column always stays.
    pub gives_way: Option<u8>,
    /// Widens to its widest cell on the page (past #9999 a fixed width cut the
    /// callback number a reviewer types into `answer`).
    pub grows: bool,
    /// The cell of a row, given the model's clock.
    pub cell: for<'a> fn(&'a T, Timestamp) -> Line<'a>,
}

impl<T> Column<T> {
    /// A column of fixed `width` that never gives way.
    pub const fn new(
        header: &'static str,
        width: Constraint,
        cell: for<'a> fn(&'a T, Timestamp) -> Line<'a>,
    ) -> Self {
        Column {
            header,
            width,
            gives_way: None,
            grows: false,
            cell,
        }
    }

    /// The same column, giving way `order`th on a narrow terminal.
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
}

/// A list view: what its title says, its columns, and the sentence when it is empty.
pub(crate) struct ListView<T: 'static> {
    /// Said after the count in the title ("held for a person").
    pub what: &'static str,
    pub columns: &'static [Column<T>],
    pub empty: &'static str,
}

/// The columns of a table `width` wide: all of them when they fit (borders, the
/// selection mark, one space between columns), else without those that give way, in
/// their order.
fn kept_columns<T>(columns: &[Column<T>], widths: &[Constraint], width: u16) -> Vec<usize> {
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
    let mut drops: Vec<(u8, usize)> = columns
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.gives_way.map(|order| (order, i)))
        .collect();
    drops.sort_unstable();
    let mut keep: Vec<usize> = (0..columns.len()).collect();
    for (_, drop) in drops {
        if needed(&keep) <= width {
            break;
        }
        keep.retain(|i| *i != drop);
    }
    keep
}

/// What an empty page says: the view's own sentence, or, under a filter, that nothing
/// matches it (an empty result is no empty ledger).
fn empty_line<'a, T>(view: &ListView<T>, filter: Option<&'a str>) -> Line<'a> {
    match filter {
        None => Line::from(view.empty).dark_gray(),
        Some(query) => Line::from(vec![
            Span::raw("Nothing here matches the filter ").dark_gray(),
            outside(query).bold(),
        ]),
    }
}

/// Draws the page of a list view into `area`: its frame with title and paging marks,
/// the header, and the rows, or a sentence when there are none.
fn draw_list<T: PageRow>(
    frame: &mut Frame<'_>,
    area: Rect,
    model: &Model,
    view: &ListView<T>,
    page: &Page<T>,
) {
    let count = page.count;
    let filtered = if model.filter().is_some() {
        " (filtered)"
    } else {
        ""
    };
    let sorted = page
        .sort
        .short_label()
        .map_or_else(String::new, |label| format!(" · {label}"));
    let title = format!(
        " {} · {} {}{filtered}{sorted} ",
        model.tab.title(),
        count.matching.unwrap_or(count.all),
        view.what
    );
    let focused = model.detail.is_none();
    let mut block = Block::bordered()
        .title(Line::from(title).bold())
        .border_style(if focused {
            Style::new().fg(Color::Cyan)
        } else {
            Style::new().fg(Color::DarkGray)
        });
    if page.more_before {
        block = block.title_top(
            Line::from("▲ more above")
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
    if page.rows.is_empty() {
        let inner = block.inner(area);
        frame.render_widget(block, area);
        frame.render_widget(Paragraph::new(empty_line(view, model.filter())), inner);
        return;
    }
    let now = model.now;
    let rows: Vec<Vec<Line<'_>>> = page
        .rows
        .iter()
        .map(|row| view.columns.iter().map(|c| (c.cell)(row, now)).collect())
        .collect();
    let widths: Vec<Constraint> = view
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| match c.width {
            Constraint::Length(n) if c.grows => {
                let widest = rows.iter().map(|cells| cells[i].width()).max().unwrap_or(0);
                Constraint::Length(n.max(u16::try_from(widest).unwrap_or(u16::MAX)))
            }
            width => width,
        })
        .collect();
    let keep = kept_columns(view.columns, &widths, area.width);
    let header = Row::new(keep.iter().map(|&i| view.columns[i].header))
        .style(Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED));
    let rows = rows.into_iter().map(|cells| {
        Row::new(
            cells
                .into_iter()
                .enumerate()
                .filter(|(i, _)| keep.contains(i))
                .map(|(_, cell)| Cell::from(cell)),
        )
    });
    let table = Table::new(rows, keep.iter().map(|&i| widths[i]))
        .header(header)
        .block(block)
        .column_spacing(1)
        .row_highlight_style(if focused {
            Style::new().bg(Color::Blue).fg(Color::White)
        } else {
            Style::new().bg(Color::DarkGray)
        })
        .highlight_symbol("▶ ");
    let mut state = TableState::default().with_selected(Some(page.selected));
    frame.render_stateful_widget(table, area, &mut state);
}

/// The title of each tab, in the order of the tabs: what the tab bar draws, and what
/// a click on it is measured against (`layout::tab_at`).
pub(crate) fn tab_titles(model: &Model) -> Vec<Line<'static>> {
    Tab::ALL
        .iter()
        .map(|tab| {
            let count = model.count(*tab);
            let shown = match count.matching {
                _ if *tab == Tab::Reconcile && !model.glance.counted => "…".to_owned(),
                Some(matching) => format!("{matching}/{}", count.all),
                None => count.all.to_string(),
            };
            Line::from(vec![
                Span::raw(format!("{} ", tab.index() + 1)).dark_gray(),
                Span::raw(tab.title()),
                Span::raw(format!(" {shown}")).bold(),
            ])
        })
        .collect()
}
