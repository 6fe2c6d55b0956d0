//! The list of saved views (`'`), drawn over the body: name, tab, query, who saved it
//! and when. Names and queries are outside text, drawn inert.

use ratatui::Frame;
use ratatui::layout::{Constraint, Rect};
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph};

use crate::clock::Timestamp;
use crate::console::model::ViewChange;
use crate::inert::inert;
use crate::store::SavedView;

/// A view as one phrase: its tab and query (`All callbacks "reason:late"`).
fn shown(view: &SavedView) -> String {
    if view.query.is_empty() {
        format!("{} (no filter)", view.tab)
    } else {
        format!("{} {:?}", view.tab, inert(&view.query))
    }
}

/// The question on the message line while a change to a saved view waits for y or n.
pub(crate) fn question(change: &ViewChange, now: Timestamp) -> Line<'static> {
    let asked = match change {
        ViewChange::Replace { view, standing } => format!(
            "Replace the view {} with {}? It is {}, saved by {} at {}.",
            inert(&view.name),
            shown(view),
            shown(standing),
            inert(&standing.saved_by),
            standing.saved_at.readable(now)
        ),
        ViewChange::Delete { views, selected } => match views.get(*selected) {
            Some(view) => format!(
                "Delete the view {} ({})? It goes for everyone on this ledger.",
                inert(&view.name),
                shown(view)
            ),
            None => "No view to delete.".to_owned(),
        },
    };
    Line::from(Span::raw(asked).yellow().bold())
}

/// Draws the saved views over `area`, `selected` marked.
pub(crate) fn draw(
    frame: &mut Frame<'_>,
    area: Rect,
    views: &[SavedView],
    selected: usize,
    now: Timestamp,
) {
    let popup = area.centered(Constraint::Max(100), Constraint::Percentage(80));
    frame.render_widget(Clear, popup);
    let visible = usize::from(popup.height.saturating_sub(2)).max(1);
    let first = (selected + 1).saturating_sub(visible);
    let lines: Vec<Line<'_>> = if views.is_empty() {
        vec![Line::from("No saved views yet: :save NAME saves the view shown.").dark_gray()]
    } else {
        views
            .iter()
            .enumerate()
            .skip(first)
            .take(visible)
            .map(|(i, v)| {
                let mark = if i == selected { "▶ " } else { "  " };
                let query = if v.query.is_empty() {
                    "(no filter)".to_owned()
                } else {
                    inert(&v.query).into_owned()
                };
                let line = Line::from(vec![
                    Span::raw(mark),
                    Span::raw(format!("{:<16} ", inert(&v.name))).bold(),
                    Span::raw(format!("{:<14} ", v.tab)).cyan(),
                    Span::raw(query),
                    Span::raw(format!(
                        "  {} {}",
                        inert(&v.saved_by),
                        v.saved_at.readable(now)
                    ))
                    .dark_gray(),
                ]);
                if i == selected { line.reversed() } else { line }
            })
            .collect()
    };
    let block = Block::bordered()
        .title(" Saved views ".bold())
        .border_style(Style::new().fg(Color::Cyan))
        .style(Style::new().bg(Color::Black));
    frame.render_widget(Paragraph::new(lines).block(block), popup);
}
