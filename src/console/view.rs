//! Drawing a frame from the [`Model`] alone: read-only, never touches the database.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Tabs, Wrap};

use super::action::Action;
use super::keymap;
use super::layout::{
    MIN_HEIGHT, MIN_WIDTH, Shape, TAB_DIVIDER, TAB_PADDING, TABS_GIVEN_WAY, TABS_MORE, body_areas,
    frame_areas, tab_bar, too_small,
};
use super::model::{Model, Overlay, ViewChange};
use super::views::{self, inert_span};

/// Draws the whole console.
pub fn draw(frame: &mut Frame<'_>, model: &Model) {
    let area = frame.area();
    if too_small((area.width, area.height)) {
        let text = format!(
            "The terminal is too small ({}x{}); jobledger needs at least {MIN_WIDTH}x{MIN_HEIGHT}. Enlarge it, or press Ctrl-C to leave.",
            area.width, area.height
        );
        frame.render_widget(Paragraph::new(text).wrap(Wrap { trim: true }), area);
        return;
    }
    let band = views::tour::height(model, area.width);
    let [tabs, status, body, tour, message, footer] = frame_areas(area, band);
    draw_tabs(frame, tabs, model);
    views::status::draw(frame, status, model);
    let areas = body_areas(body, Shape::of(model));
    views::of(model.tab).draw(frame, areas.list, areas.preview, model);
    if let (Some(area), Some(open)) = (areas.detail, &model.detail) {
        views::detail::draw(frame, area, open, model);
    }
    views::tour::draw(frame, tour, model);
    draw_message(frame, message, model);
    draw_footer(frame, footer, model);
    match &model.overlay {
        Overlay::Form(form) => views::form::draw(frame, body, form, model),
        Overlay::Help { scroll } => views::help::draw(frame, body, *scroll),
        Overlay::Compare(comparison) => views::compare::draw(frame, body, comparison, model.now),
        Overlay::SavedViews { views, selected } => {
            views::saved::draw(frame, body, views, *selected, model.now);
        }
        Overlay::ConfirmView(change) => {
            if let ViewChange::Delete { views, selected } = &**change {
                views::saved::draw(frame, body, views, *selected, model.now);
            }
        }
        Overlay::Filter { .. } | Overlay::Command { .. } | Overlay::None => {}
    }
    // Last, over everything drawn: the named colours become the theme's.
    model.theme.paint(frame.buffer_mut());
}

/// The tab bar. When the tabs do not all fit, those left of the selected one give
/// way (a `‹` says so), so the tab shown is always in the bar, and a `›` at its end
/// says that tabs on the right did not fit.
fn draw_tabs(frame: &mut Frame<'_>, area: Rect, model: &Model) {
    let titles = views::tab_titles(model);
    let selected = model.tab.index();
    let bar = tab_bar(&titles, selected, area.width);
    let first = bar.shown.start;
    let mut shown: Vec<Line<'_>> = titles.into_iter().take(bar.shown.end).skip(first).collect();
    if first > 0
        && let Some(head) = shown.first_mut()
    {
        head.spans.insert(0, Span::raw(TABS_GIVEN_WAY).bold());
    }
    // In the text's own colour: dark grey was too faint on a dark background, and the
    // marks are all that says more tabs exist.
    if bar.more {
        shown.push(Line::from(Span::raw(TABS_MORE).bold()));
    }
    let tabs = Tabs::new(shown)
        .select(selected - first)
        .highlight_style(Style::new().fg(Color::Black).bg(Color::Cyan))
        .padding(TAB_PADDING, TAB_PADDING)
        .divider(TAB_DIVIDER);
    frame.render_widget(tabs, area);
}

fn draw_message(frame: &mut Frame<'_>, area: Rect, model: &Model) {
    let line = if let Overlay::Filter { field, .. } = &model.overlay {
        let mut spans = vec![
            Span::raw("/ filter ").bold(),
            Span::raw(format!("{}: ", model.tab.title())).dark_gray(),
        ];
        let room = usize::from(area.width).saturating_sub(Line::from(spans.clone()).width());
        spans.extend(views::text_line(field, room));
        // While the text is no query, say so and where beside it; the list's place
        // says why, whole (a message cut at the screen's edge hid it).
        if let Some(flash) = model.flash.as_ref().filter(|f| f.error) {
            spans.push(Span::raw("  "));
            spans.push(inert_span(&flash.text).yellow().bold());
        } else if let Some(error) = model.invalid_filter() {
            spans.push(Span::raw("  "));
            spans.push(
                Span::raw(format!("not a query yet, at column {}", error.column))
                    .yellow()
                    .bold(),
            );
        } else if model.searching_shown() {
            spans.push(Span::raw("  searching…").dark_gray());
        } else if model.counting_shown() {
            spans.push(Span::raw("  counting…").dark_gray());
        }
        Line::from(spans)
    } else if let Overlay::Command { text } = &model.overlay {
        let mut spans = vec![Span::raw(":").bold()];
        spans.extend(views::text_line(
            text,
            usize::from(area.width).saturating_sub(1),
        ));
        Line::from(spans)
    } else if let Overlay::ConfirmView(change) = &model.overlay {
        views::saved::question(change, model.now)
    } else if let Some(flash) = &model.flash {
        let span = inert_span(&flash.text);
        Line::from(if flash.error {
            span.yellow().bold()
        } else {
            span.green()
        })
    } else if model.searching_shown() {
        let rows = model.list().map_or(0, |l| l.count().all);
        Line::from(match model.filter() {
            Some(filter) => vec![
                Span::raw(format!("searching {rows} rows for ")),
                inert_span(filter).bold(),
                Span::raw("…"),
            ],
            None => vec![Span::raw(format!("reading all {rows} rows…"))],
        })
    } else if let Some(filter) = model.filter().filter(|_| model.counting_shown()) {
        Line::from(vec![
            Span::raw("counting the rows that match ").dark_gray(),
            inert_span(filter).bold(),
            Span::raw("…").dark_gray(),
        ])
    } else if let Some(filter) = model.filter() {
        Line::from(vec![
            Span::raw("filtered by ").dark_gray(),
            inert_span(filter).bold(),
        ])
    } else {
        Line::default()
    };
    frame.render_widget(Paragraph::new(line), area);
}

/// The footer's hints, in the key table's order. A hint that does not fit whole is
/// left out (a cut "Space m" says nothing), the ways out and to the help last of all;
/// `?` lists every key anyway.
fn draw_footer(frame: &mut Frame<'_>, area: Rect, model: &Model) {
    let mut hints = keymap::hints(model.context(), |a| model.offers(a));
    // `q` in a finding's jobs goes back to the findings, and says so.
    if model.findings.jobs.is_some() {
        for hint in hints.iter_mut().filter(|h| h.action == Action::BackOrQuit) {
            hint.help = "back";
        }
    }
    let width = |h: &keymap::Hint| h.keys.chars().count() + 1 + h.help.chars().count() + 2;
    let mut room = usize::from(area.width) + 2;
    let mut shown = vec![false; hints.len()];
    for essential in [true, false] {
        for (i, hint) in hints.iter().enumerate() {
            if hint.essential == essential && width(hint) <= room {
                room -= width(hint);
                shown[i] = true;
            }
        }
    }
    let mut spans = Vec::new();
    for hint in hints
        .iter()
        .zip(shown)
        .filter_map(|(h, shown)| shown.then_some(h))
    {
        if !spans.is_empty() {
            spans.push(Span::raw("  "));
        }
        spans.push(Span::raw(hint.keys.clone()).black().on_gray());
        spans.push(Span::raw(format!(" {}", hint.help)));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}
