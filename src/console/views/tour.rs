//! The tour's band: above the message line and the key hints, the step's place and
//! title on a rule, and what it says in two or three lines, wrapped to the screen.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph, Wrap};

use crate::console::model::Model;
use crate::console::model::tour::STEPS;

/// Lines of text the band holds at most: the steps are written for three at 80
/// columns, and a narrower screen (down to 60) wraps them into a fourth.
const MOST_LINES: u16 = 4;

fn text(model: &Model) -> Paragraph<'static> {
    Paragraph::new(model.tour.current().text).wrap(Wrap { trim: true })
}

/// How tall the band is on a screen `width` wide: its rule and the step's lines, or
/// nothing while no tour runs.
pub(crate) fn height(model: &Model, width: u16) -> u16 {
    if !model.tour.shown {
        return 0;
    }
    let lines = u16::try_from(text(model).line_count(width)).unwrap_or(MOST_LINES);
    1 + lines.clamp(1, MOST_LINES)
}

/// Draws the band into `area` (nothing while no tour runs).
pub(crate) fn draw(frame: &mut Frame<'_>, area: Rect, model: &Model) {
    if !model.tour.shown || area.height == 0 {
        return;
    }
    let step = model.tour.current();
    let place = format!(
        " Tour {}/{} · ",
        model.tour.step.min(STEPS.len() - 1) + 1,
        STEPS.len()
    );
    let title = Line::from(vec![
        Span::raw(place).bold(),
        Span::raw(step.title).bold(),
        Span::raw(" "),
    ]);
    let block = Block::new()
        .borders(Borders::TOP)
        .title(title)
        .border_style(Style::new().fg(Color::Cyan));
    frame.render_widget(text(model).block(block), area);
}
