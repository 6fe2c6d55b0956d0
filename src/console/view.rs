//! Drawing a frame from the [`Model`] alone: read-only, never touches the database.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Tabs, Wrap};

use super::keymap;
use super::layout::{
    MIN_HEIGHT, MIN_WIDTH, TAB_DIVIDER, TAB_PADDING, TABS_GIVEN_WAY, body_areas, first_tab_shown,
    frame_areas, too_small,
};
use super::model::{Model, Overlay};
use super::views::{self, outside};

/// Draws the whole console.
pub fn draw(frame: &mut Frame<'_>, model: &Model) {
    let area = frame.area();
    if too_small((area.width, area.height)) {
        let text = format!(
            "The terminal is too small ({}x{}); jobledger needs at least {MIN_WIDTH}x{MIN_HEIGHT}. Enlarge it, or press q to leave.",
            area.width, area.height
        );
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return;
    }
    let [tabs, status, body, message, footer] = frame_areas(area);
    draw_tabs(frame, tabs, model);
    draw_status(frame, status, model);
    let (list, detail) = body_areas(body, model.detail.is_some());
    views::of(model.tab).draw(frame, list, model);
    if let (Some(area), Some(open)) = (detail, &model.detail) {
        views::detail::draw(frame, area, open, model);
    }
    draw_message(frame, message, model);
    draw_footer(frame, footer, model);
    match &model.overlay {
        Overlay::Form(form) => views::form::draw(frame, body, form, model),
        Overlay::Help { scroll } => views::help::draw(frame, body, *scroll),
        Overlay::SavedViews { views, selected } => {
            views::saved::draw(frame, body, views, *selected);
        }
        Overlay::Filter { .. } | Overlay::Command { .. } | Overlay::None => {}
    }
}

/// The tab bar. When the tabs do not all fit, those left of the selected one give
/// way (a `‹` says so), so the tab shown is always in the bar.
fn draw_tabs(frame: &mut Frame<'_>, area: Rect, model: &Model) {
    let titles = views::tab_titles(model);
    let selected = model.tab.index();
    let first = first_tab_shown(&titles, selected, area.width);
    let mut shown: Vec<Line<'_>> = titles.into_iter().skip(first).collect();
    if first > 0
        && let Some(head) = shown.first_mut()
    {
        head.spans.insert(0, Span::raw(TABS_GIVEN_WAY).dark_gray());
    }
    let tabs = Tabs::new(shown)
        .select(selected - first)
        .highlight_style(Style::new().fg(Color::Black).bg(Color::Cyan))
        .padding(TAB_PADDING, TAB_PADDING)
        .divider(TAB_DIVIDER);
    frame.render_widget(tabs, area);
}

fn draw_status(frame: &mut Frame<'_>, area: Rect, model: &Model) {
    let clock = match model.clock {
        crate::clock::Clock::Fixed(at) => format!("clock fixed at {}", at.short()),
        crate::clock::Clock::System => format!("now {}", model.now.short()),
    };
    let sep = || Span::raw(" │ ").dark_gray();
    let mut spans = vec![
        Span::raw("ledger ").dark_gray(),
        outside(&model.ledger_path),
        sep(),
        Span::raw("reviewer ").dark_gray(),
        outside(&model.reviewer),
        sep(),
        Span::raw(clock),
    ];
    if model.read_only {
        spans.push(sep());
        spans.push(Span::raw("READ-ONLY: writes disabled").black().on_yellow());
    }
    let b = &model.glance.backlog;
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

fn draw_message(frame: &mut Frame<'_>, area: Rect, model: &Model) {
    let line = if matches!(model.overlay, Overlay::Filter { .. }) {
        let mut spans = vec![
            Span::raw("/ filter ").bold(),
            Span::raw(format!("{}: ", model.tab.title())).dark_gray(),
            outside(model.filter().unwrap_or_default()),
            Span::raw("▏").cyan(),
        ];
        // While the text is no query, say why beside it (the rows are the last query's).
        if let Some(flash) = model.flash.as_ref().filter(|f| f.error) {
            spans.push(Span::raw("  "));
            spans.push(outside(&flash.text).yellow().bold());
        }
        Line::from(spans)
    } else if let Overlay::Command { text } = &model.overlay {
        Line::from(vec![
            Span::raw(":").bold(),
            outside(text),
            Span::raw("▏").cyan(),
        ])
    } else if let Some(flash) = &model.flash {
        let span = outside(&flash.text);
        Line::from(if flash.error {
            span.yellow().bold()
        } else {
            span.green()
        })
    } else if let Some(filter) = model.filter() {
        Line::from(vec![
            Span::raw("filtered by ").dark_gray(),
            outside(filter).bold(),
        ])
    } else {
        Line::default()
    };
    frame.render_widget(Paragraph::new(line), area);
}

fn draw_footer(frame: &mut Frame<'_>, area: Rect, model: &Model) {
    let mut spans = Vec::new();
    for (keys, help) in keymap::hints(model.context(), |a| model.offers(a)) {
        if !spans.is_empty() {
            spans.push(Span::raw("  "));
        }
        spans.push(Span::raw(keys).black().on_gray());
        spans.push(Span::raw(format!(" {help}")));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
