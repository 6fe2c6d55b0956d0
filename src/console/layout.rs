//! Where each part of the screen goes, for a screen of a given size: what the views
//! draw into, and what the update step asks (how many rows fit, how far a pane
//! scrolls), so that a page always holds exactly the rows drawn.

use ratatui::layout::{Constraint, Layout, Rect};

use super::model::Model;
use super::model::detail::Detail;
use super::tab::Tab;
use super::views;

/// Below this size the console shows only a request for more room.
pub const MIN_WIDTH: u16 = 60;
/// Below this size the console shows only a request for more room.
pub const MIN_HEIGHT: u16 = 15;

/// Tabs, status, body, message, footer.
pub(crate) fn frame_areas(area: Rect) -> [Rect; 5] {
    area.layout(&Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
        Constraint::Length(1),
    ]))
}

/// The list and, when the detail pane is open, the detail below it.
pub(crate) fn body_areas(body: Rect, detail_open: bool) -> (Rect, Option<Rect>) {
    if !detail_open {
        return (body, None);
    }
    let [list, detail] = body.layout(&Layout::vertical([
        Constraint::Percentage(40),
        Constraint::Percentage(60),
    ]));
    (list, Some(detail))
}

/// The space on each side of a tab's title in the tab bar.
pub(crate) const TAB_PADDING: &str = " ";
/// What stands between two tab titles.
pub(crate) const TAB_DIVIDER: &str = "│";

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
    let [bar, _, _, _, _] = frame_areas(screen(model.size));
    if row != bar.y {
        return None;
    }
    let width = |w: usize| u16::try_from(w).unwrap_or(u16::MAX);
    let padding = width(TAB_PADDING.chars().count());
    let divider = width(TAB_DIVIDER.chars().count());
    let mut x = bar.x;
    for (&tab, title) in Tab::ALL.iter().zip(views::tab_titles(model)) {
        let end = x
            .saturating_add(padding.saturating_mul(2))
            .saturating_add(width(title.width()))
            .min(bar.right());
        if (x..end).contains(&column) {
            return Some(tab);
        }
        x = end.saturating_add(divider);
    }
    None
}

/// The index in the page of the list row drawn at (`column`, `row`), inside the list's
/// borders and below its header. The page holds exactly the rows drawn, from its
/// first, so this is the row's place on the page, whatever the scroll.
pub fn list_row_at(size: (u16, u16), detail_open: bool, column: u16, row: u16) -> Option<usize> {
    if too_small(size) {
        return None;
    }
    let [_, _, body, _, _] = frame_areas(screen(size));
    let (list, _) = body_areas(body, detail_open);
    // Top border and header above the rows, the bottom border below them.
    let first = list.y.saturating_add(2);
    let inside = column > list.x && column < list.right().saturating_sub(1);
    if !inside || row < first || row >= list.bottom().saturating_sub(1) {
        return None;
    }
    Some(usize::from(row - first))
}

/// How many rows of a list fit on a screen of `size` (borders and header taken off).
pub fn list_capacity(size: (u16, u16), detail_open: bool) -> usize {
    let [_, _, body, _, _] = frame_areas(screen(size));
    let (list, _) = body_areas(body, detail_open);
    usize::from(list.height.saturating_sub(3)).max(1)
}

/// How many lines of the detail pane fit on a screen of `size`.
pub fn detail_capacity(size: (u16, u16)) -> usize {
    let [_, _, body, _, _] = frame_areas(screen(size));
    let (_, detail) = body_areas(body, true);
    detail.map_or(0, |d| usize::from(d.height.saturating_sub(2)))
}

/// The furthest the help can scroll on a screen of `size` (its last line at the bottom).
pub fn help_last_scroll(size: (u16, u16)) -> usize {
    let [_, _, body, _, _] = frame_areas(screen(size));
    views::help::last_scroll(body)
}

/// The furthest the detail pane of `detail` can scroll on a screen of `size`.
pub fn detail_last_scroll(size: (u16, u16), detail: &Detail) -> usize {
    let lines = views::detail::lines(detail, size.0).len();
    lines.saturating_sub(detail_capacity(size).max(1))
}
