//! The `?` help screen, written from the key table itself.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use crate::console::keymap::{self, Context};

/// How the console writes a view's count, said here once for the tabs, the list
/// titles and the messages alike ([`crate::console::model::counts::Count::shown_of_all`]).
pub(crate) const COUNTS: &str = "12/40 (in a tab, a list's title or a message): the view \
shows 12 rows, those its filter keeps or the questions still open, of the 40 it holds. \
One number: it shows them all. … : not counted yet (a search is running, or the filter \
typed is not a query yet).";

/// Every line of the help: how counts read, then the keys from [`keymap::keymap`].
pub(crate) fn lines() -> Vec<Line<'static>> {
    let mut lines = vec![Line::from(Span::raw("Counts").bold().underlined())];
    for part in wrapped(COUNTS, HELP_WIDTH + 24) {
        lines.push(Line::from(format!("  {part}")));
    }
    for context in Context::ALL {
        if !lines.is_empty() {
            lines.push(Line::default());
        }
        lines.push(Line::from(Span::raw(context.heading()).bold().underlined()));
        for binding in keymap::bindings(context) {
            // A long help (the filter's) goes on under itself, broken at spaces.
            for (i, part) in wrapped(&binding.help, HELP_WIDTH).into_iter().enumerate() {
                let keys = if i == 0 {
                    keymap::keys_label(binding)
                } else {
                    String::new()
                };
                lines.push(Line::from(vec![
                    Span::raw(format!("  {keys:<24}")).cyan(),
                    Span::raw(part),
                ]));
            }
        }
    }
    lines
}

/// Columns of help text beside the keys in the 80-column popup.
const HELP_WIDTH: usize = 52;

/// `text` in lines of at most `width` characters, broken at spaces.
fn wrapped(text: &str, width: usize) -> Vec<String> {
    let mut lines = vec![String::new()];
    for word in text.split(' ') {
        let line = lines.last_mut().expect("one line at least");
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(word.to_owned());
        } else {
            if !line.is_empty() {
                line.push(' ');
            }
            line.push_str(word);
        }
    }
    lines
}

/// The popup the help is drawn in, over `area`.
fn popup(area: Rect) -> Rect {
    area.centered(Constraint::Max(80), Constraint::Percentage(100))
}

/// The furthest the help drawn over `area` can scroll: its last line at the bottom.
pub(crate) fn last_scroll(area: Rect) -> usize {
    let visible = usize::from(popup(area).height.saturating_sub(2));
    lines().len().saturating_sub(visible)
}

/// Draws the help over `area`, scrolled down `scroll` lines.
pub(crate) fn draw(frame: &mut Frame<'_>, area: Rect, scroll: usize) {
    let lines = lines();
    let popup = popup(area);
    let visible = usize::from(popup.height.saturating_sub(2));
    let scroll = scroll.min(last_scroll(area));
    frame.render_widget(Clear, popup);
    let block = Block::bordered()
        .title(" Keys ".bold())
        .title_bottom(
            Line::from(format!(
                " {}–{} of {} ",
                scroll + 1,
                (scroll + visible).min(lines.len()),
                lines.len()
            ))
            .dark_gray(),
        )
        .border_style(Style::new().fg(Color::Cyan))
        .style(Style::new().bg(Color::Black));
    frame.render_widget(
        Paragraph::new(lines)
            .block(block)
            .scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0)),
        popup,
    );
}
