//! Where each part of the screen goes, for a screen of a given size: what the views
//! draw into, and what the update step asks (how many rows fit, how far a pane
//! scrolls), so that a page always holds exactly the rows drawn.

use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::text::Line;

use super::model::Model;
use super::model::detail::Detail;
use super::tab::Tab;
use super::views;
use super::views::preview::PREVIEW_HEIGHT;

/// Below this size the console shows only a request for more room.
pub const MIN_WIDTH: u16 = 60;
/// Below this size the console shows only a request for more room.
pub const MIN_HEIGHT: u16 = 15;

/// Tabs, status, body, the tour's band (`band` lines; none while no tour runs),
/// message, footer.
pub(crate) fn frame_areas(area: Rect, band: u16) -> [Rect; 6] {
    area.layout(&Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(band),
        Constraint::Length(1),
        Constraint::Length(1),
    ]))
}

/// The parts of the model's screen, as [`frame_areas`] lays them out.
fn areas(model: &Model) -> [Rect; 6] {
    frame_areas(screen(model.size), views::tour::height(model, model.size.0))
}

/// Where the views, the comparison and the help are drawn on the model's screen.
pub(crate) fn body_area(model: &Model) -> Rect {
    areas(model)[2]
}

/// What decides how the body is shared: the detail pane, and how many rows the list
/// of the view shown has (a view with no list has no preview).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Shape {
    detail_open: bool,
    /// Rows the list holds, when the view lists rows.
    rows: Option<usize>,
    /// The least the preview is given when the list needs the room.
    preview: u16,
}

/// The least the preview keeps while the tour runs: its band took lines of the body,
/// and the rows its step talks about (C1–C5 among the callbacks) stay in the list.
const PREVIEW_HEIGHT_IN_TOUR: u16 = 5;

impl Shape {
    /// The shape of the model's screen.
    pub(crate) fn of(model: &Model) -> Shape {
        Shape {
            detail_open: model.detail.is_some(),
            // A filter that is no query: the list's place says why, whole.
            rows: model
                .list()
                .filter(|list| list.invalid().is_none())
                .map(|list| {
                    // The page may hold rows the count has not caught up with yet;
                    // a count still being made is the previous filter's.
                    let count = list.count();
                    let counted = if count.counting {
                        0
                    } else {
                        usize::try_from(count.listed()).unwrap_or(usize::MAX)
                    };
                    counted.max(list.rows_on_page())
                }),
            preview: if model.tour.shown {
                PREVIEW_HEIGHT_IN_TOUR
            } else {
                PREVIEW_HEIGHT
            },
        }
    }
}

/// The parts of the body: the list, and below it either the detail pane (when open) or
/// the preview of the selected row.
pub(crate) struct BodyAreas {
    pub list: Rect,
    pub preview: Option<Rect>,
    pub detail: Option<Rect>,
}

/// Lines of a list that are not rows: its borders and its header.
const LIST_FRAME: u16 = 3;

/// The list and, below it, the detail pane when it is open, else the preview. The list
/// is only as tall as its rows need: the preview takes the rest (two held rows leave
/// no screen of empty lines), and never less than [`PREVIEW_HEIGHT`] while there is
/// room for a row of the list beside it (fewer while the tour runs).
pub(crate) fn body_areas(body: Rect, shape: Shape) -> BodyAreas {
    let only_list = BodyAreas {
        list: body,
        preview: None,
        detail: None,
    };
    if shape.detail_open {
        let [list, detail] = body.layout(&Layout::vertical([
            Constraint::Percentage(40),
            Constraint::Percentage(60),
        ]));
        return BodyAreas {
            list,
            preview: None,
            detail: Some(detail),
        };
    }
    let Some(rows) = shape.rows else {
        return only_list;
    };
    // One row of the list at least, and a preview with at least a line in it.
    let least_list = LIST_FRAME + 1;
    if body.height < least_list + 3 {
        return only_list;
    }
    let wanted = u16::try_from(rows)
        .unwrap_or(u16::MAX)
        .max(1)
        .saturating_add(LIST_FRAME);
    let preview = shape.preview.min(body.height - least_list);
    let list_height = wanted.min(body.height - preview);
    let [list, preview] = body.layout(&Layout::vertical([
        Constraint::Length(list_height),
        Constraint::Fill(1),
    ]));
    BodyAreas {
        list,
        preview: Some(preview),
        detail: None,
    }
}

/// The space on each side of a tab's title in the tab bar.
pub(crate) const TAB_PADDING: &str = " ";
/// What stands between two tab titles.
pub(crate) const TAB_DIVIDER: &str = "│";
/// Put before the first tab shown when tabs left of it gave way.
pub(crate) const TABS_GIVEN_WAY: &str = "‹ ";
/// Drawn as one more tab after the last one shown when tabs right of it do not fit; a
/// click on it shows the first of them.
pub(crate) const TABS_MORE: &str = "›";

/// How the tab bar is laid out: the tabs it shows (whole ones only), and whether tabs
/// on the right did not fit (a `›` after them says so).
pub(crate) struct TabBar {
    pub shown: std::ops::Range<usize>,
    pub more: bool,
}

/// The tab bar of tabs titled `titles` in `width` columns, the selected one always in
/// it. When they do not all fit, the columns of the `›` are kept for it.
pub(crate) fn tab_bar(titles: &[Line<'_>], selected: usize, width: u16) -> TabBar {
    let chars = |s: &str| s.chars().count();
    let drawn = |tabs: std::ops::Range<usize>| -> usize {
        let cells: usize = titles[tabs.clone()]
            .iter()
            .map(|t| t.width() + 2 * chars(TAB_PADDING) + chars(TAB_DIVIDER))
            .sum();
        let mark = if tabs.start == 0 {
            0
        } else {
            chars(TABS_GIVEN_WAY)
        };
        (cells + mark).saturating_sub(chars(TAB_DIVIDER))
    };
    // No `›` when the tabs from the first one shown to the last all fit.
    let first = first_tab_shown(titles, selected, width);
    if drawn(first..titles.len()) <= usize::from(width) {
        return TabBar {
            shown: first..titles.len(),
            more: false,
        };
    }
    let more = chars(TABS_MORE) + 2 * chars(TAB_PADDING) + chars(TAB_DIVIDER);
    let bar = width.saturating_sub(u16::try_from(more).unwrap_or(u16::MAX));
    let first = first_tab_shown(titles, selected, bar);
    let end = (first + 1..=titles.len())
        .rev()
        .find(|&end| drawn(first..end) <= usize::from(bar))
        .unwrap_or(first + 1);
    TabBar {
        shown: first..end,
        more: end < titles.len(),
    }
}

/// The first tab the bar shows, of tabs titled `titles`: the first of all when the
/// tabs up to the selected one fit in `width`; else the fewest on the left give way,
/// so that the selected tab is always in the bar.
fn first_tab_shown(titles: &[Line<'_>], selected: usize, width: u16) -> usize {
    let chars = |s: &str| s.chars().count();
    // A title takes its text, the padding either side and the divider.
    let through_selected = |first: usize| -> usize {
        titles[first..=selected]
            .iter()
            .map(|t| t.width() + 2 * chars(TAB_PADDING) + chars(TAB_DIVIDER))
            .sum::<usize>()
    };
    let mark = |first: usize| if first == 0 { 0 } else { chars(TABS_GIVEN_WAY) };
    (0..selected)
        .find(|&first| through_selected(first) + mark(first) <= usize::from(width))
        .unwrap_or(selected)
}

fn screen(size: (u16, u16)) -> Rect {
    Rect::new(0, 0, size.0, size.1)
}

/// Is the screen too small to draw the console (so nothing on it can be clicked)?
pub(crate) fn too_small(size: (u16, u16)) -> bool {
    size.0 < MIN_WIDTH || size.1 < MIN_HEIGHT
}

/// The tab whose title (with its padding) is drawn at (`column`, `row`), laid out as
/// ratatui's `Tabs` lays out the titles the view draws, and cut where the bar ends.
pub fn tab_at(model: &Model, column: u16, row: u16) -> Option<Tab> {
    if too_small(model.size) {
        return None;
    }
    let [bar, ..] = areas(model);
    if row != bar.y {
        return None;
    }
    let width = |w: usize| u16::try_from(w).unwrap_or(u16::MAX);
    let padding = width(TAB_PADDING.chars().count());
    let divider = width(TAB_DIVIDER.chars().count());
    let titles = views::tab_titles(model);
    let layout = tab_bar(&titles, model.tab.index(), bar.width);
    let first = layout.shown.start;
    let mut x = bar.x;
    for (i, (&tab, title)) in Tab::ALL
        .iter()
        .zip(&titles)
        .enumerate()
        .take(layout.shown.end)
        .skip(first)
    {
        let mark = if i == first && first > 0 {
            width(TABS_GIVEN_WAY.chars().count())
        } else {
            0
        };
        let end = x
            .saturating_add(padding.saturating_mul(2))
            .saturating_add(width(title.width()))
            .saturating_add(mark)
            .min(bar.right());
        if (x..end).contains(&column) {
            return Some(tab);
        }
        x = end.saturating_add(divider);
    }
    // The `›` after the last tab shown, and the bar after it, show the next tab.
    (layout.more && (x..bar.right()).contains(&column)).then(|| Tab::ALL[layout.shown.end])
}

/// The index in the page of the list row drawn at (`column`, `row`), inside the list's
/// borders and below its header. The page holds exactly the rows drawn, from its
/// first, so this is the row's place on the page, whatever the scroll.
pub fn list_row_at(model: &Model, column: u16, row: u16) -> Option<usize> {
    if too_small(model.size) {
        return None;
    }
    let body = body_area(model);
    let list = body_areas(body, Shape::of(model)).list;
    // Top border and header above the rows, the bottom border below them.
    let first = list.y.saturating_add(2);
    let inside = column > list.x && column < list.right().saturating_sub(1);
    if !inside || row < first || row >= list.bottom().saturating_sub(1) {
        return None;
    }
    Some(usize::from(row - first))
}

/// How many rows of the current view's list fit on the model's screen (borders and
/// header taken off).
pub fn list_capacity(model: &Model) -> usize {
    let list = body_areas(body_area(model), Shape::of(model)).list;
    usize::from(list.height.saturating_sub(LIST_FRAME)).max(1)
}

/// How many rows of the current view's list fit on the model's screen when the list
/// has rows enough to fill it: the page a search reads, whose rows are not counted
/// yet (the list's room now is sized by the previous filter's count).
pub fn search_capacity(model: &Model) -> usize {
    let shape = Shape::of(model);
    let shape = Shape {
        rows: shape.rows.map(|_| usize::MAX),
        ..shape
    };
    let list = body_areas(body_area(model), shape).list;
    usize::from(list.height.saturating_sub(LIST_FRAME)).max(1)
}

/// How many lines of the body fit on the model's screen (a page of the help).
pub fn body_capacity(model: &Model) -> usize {
    usize::from(body_area(model).height.saturating_sub(LIST_FRAME)).max(1)
}

/// How many lines of the detail pane fit on the model's screen.
pub fn detail_capacity(model: &Model) -> usize {
    let shape = Shape {
        detail_open: true,
        rows: None,
        preview: PREVIEW_HEIGHT,
    };
    body_areas(body_area(model), shape)
        .detail
        .map_or(0, |d| usize::from(d.height.saturating_sub(2)))
}

/// The furthest the help can scroll on the model's screen (its last line at the bottom).
pub fn help_last_scroll(model: &Model) -> usize {
    views::help::last_scroll(body_area(model))
}

/// The furthest the Reconcile view can scroll on the model's screen (its last line
/// at the bottom).
pub fn reconcile_last_scroll(model: &Model) -> usize {
    views::reconcile::last_scroll(model, body_area(model))
}

/// Where the Reconcile view scrolls to show its backlog of questions for people (the
/// line, the picture of the day below it) on the model's screen.
pub fn reconcile_backlog_scroll(model: &Model) -> usize {
    views::reconcile::backlog_scroll(model, body_area(model))
}

/// The furthest the detail pane of `detail` can scroll on the model's screen (its
/// times read at the model's clock: a time in another year is a longer line).
pub fn detail_last_scroll(model: &Model, detail: &Detail) -> usize {
    let lines = views::detail::lines(detail, model.size.0, model.now).len();
    lines.saturating_sub(detail_capacity(model).max(1))
}
