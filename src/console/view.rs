//! Drawing a frame from `&App`: read-only, never touches the database.
//!
//! The layout functions here are also what [`super::update`] asks how many rows fit,
//! so a page always holds exactly the rows drawn.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Tabs, Wrap};

use super::app::App;
use super::keymap;
use super::tab::Tab;
use super::views::{self, outside};

/// Below this size the console shows only a request for more room.
pub const MIN_WIDTH: u16 = 60;
/// Below this size the console shows only a request for more room.
pub const MIN_HEIGHT: u16 = 15;

/// Tabs, status, body, message, footer.
fn frame_areas(area: Rect) -> [Rect; 5] {
    area.layout(&Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(1),
        Constraint::Length(1),
    ]))
}

/// The list and, when the detail pane is open, the detail below it.
fn body_areas(body: Rect, detail_open: bool) -> (Rect, Option<Rect>) {
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

/// Draws the whole console.
pub fn draw(frame: &mut Frame<'_>, app: &App) {
    let area = frame.area();
    if area.width < MIN_WIDTH || area.height < MIN_HEIGHT {
        let text = format!(
            "The terminal is too small ({}x{}); jobledger needs at least {MIN_WIDTH}x{MIN_HEIGHT}. Enlarge it, or press q to leave.",
            area.width, area.height
        );
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return;
    }
    let [tabs, status, body, message, footer] = frame_areas(area);
    draw_tabs(frame, tabs, app);
    draw_status(frame, status, app);
    let (list, detail) = body_areas(body, app.detail.is_some());
    match app.tab {
        Tab::Held => views::callbacks::held(frame, list, app),
        Tab::Quarantined => views::callbacks::quarantined(frame, list, app),
        Tab::Callbacks => views::callbacks::all(frame, list, app),
        Tab::Aged => views::jobs::aged(frame, list, app),
        Tab::Failed => views::jobs::failed(frame, list, app),
        Tab::Reconcile => views::reconcile::draw(frame, list, app),
    }
    if let (Some(area), Some(open)) = (detail, &app.detail) {
        views::detail::draw(frame, area, open, app);
    }
    draw_message(frame, message, app);
    draw_footer(frame, footer, app);
    if let Some(form) = &app.form {
        views::form::draw(frame, body, form, app);
    }
    if let Some(scroll) = app.help {
        views::help::draw(frame, body, scroll);
    }
}

fn draw_tabs(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let titles = Tab::ALL.iter().map(|tab| {
        let count = app.counts.of(*tab, &app.glance);
        let shown = match count.matching {
            _ if *tab == Tab::Reconcile && !app.glance.counted => "…".to_owned(),
            Some(matching) => format!("{matching}/{}", count.all),
            None => count.all.to_string(),
        };
        Line::from(vec![
            Span::raw(format!("{} ", tab.index() + 1)).dark_gray(),
            Span::raw(tab.title()),
            Span::raw(format!(" {shown}")).bold(),
        ])
    });
    let tabs = Tabs::new(titles)
        .select(app.tab.index())
        .highlight_style(Style::new().fg(Color::Black).bg(Color::Cyan))
        .divider("│");
    frame.render_widget(tabs, area);
}

fn draw_status(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let clock = match app.clock {
        crate::clock::Clock::Fixed(at) => format!("clock fixed at {}", at.short()),
        crate::clock::Clock::System => format!("now {}", app.now.short()),
    };
    let sep = || Span::raw(" │ ").dark_gray();
    let path = app.ledger.path().to_string_lossy();
    let mut spans = vec![
        Span::raw("ledger ").dark_gray(),
        outside(&path),
        sep(),
        Span::raw("reviewer ").dark_gray(),
        outside(&app.reviewer),
        sep(),
        Span::raw(clock),
    ];
    if app.read_only {
        spans.push(sep());
        spans.push(Span::raw("READ-ONLY: writes disabled").black().on_yellow());
    }
    let b = &app.glance.backlog;
    spans.push(sep());
    if b.raised {
        spans.push(
            Span::raw(format!(
                "BACKLOG ALARM: {} held/quarantined in the last hour > capacity {}; {} open",
                b.arrivals, b.capacity, b.open
            ))
            .white()
            .on_red()
            .add_modifier(Modifier::BOLD),
        );
    } else {
        spans.push(Span::raw(format!("backlog quiet ({} open)", b.open)).dark_gray());
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn draw_message(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let line = if app.filter_edit.is_some() {
        Line::from(vec![
            Span::raw("/ filter ").bold(),
            Span::raw(format!("{}: ", app.tab.title())).dark_gray(),
            outside(app.filter().unwrap_or_default()),
            Span::raw("▏").cyan(),
        ])
    } else if let Some(flash) = &app.flash {
        let span = outside(&flash.text);
        Line::from(if flash.error {
            span.yellow().bold()
        } else {
            span.green()
        })
    } else if let Some(filter) = app.filter() {
        Line::from(vec![
            Span::raw("filtered by ").dark_gray(),
            outside(filter).bold(),
        ])
    } else {
        Line::default()
    };
    frame.render_widget(Paragraph::new(line), area);
}

fn draw_footer(frame: &mut Frame<'_>, area: Rect, app: &App) {
    let mut spans = Vec::new();
    for (keys, help) in keymap::hints(app.context(), |a| app.offers(a)) {
        if !spans.is_empty() {
            spans.push(Span::raw("  "));
        }
        spans.push(Span::raw(keys).black().on_gray());
        spans.push(Span::raw(format!(" {help}")));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
