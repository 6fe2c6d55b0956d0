//! Where each part of the screen goes, for a screen of a given size: what the views
//! draw into, and what the update step asks (how many rows fit, how far a pane
//! scrolls), so that a page always holds exactly the rows drawn.

use ratatui::layout::{Constraint, Layout, Rect};

use super::model::detail::Detail;
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

fn screen(size: (u16, u16)) -> Rect {
    Rect::new(0, 0, size.0, size.1)
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
