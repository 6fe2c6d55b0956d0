//! The preview below a list: the selected row's facts, whole, whatever the width (as
//! lazygit and k9s show the selected item under or beside their lists). A view names
//! the facts its preview always shows; after them come the columns the row itself had
//! to shorten or drop on this terminal, so nothing a wide terminal shows is lost on a
//! narrow one.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::table::{Fitted, Form};
use super::wrap::cut;
use super::{ListView, inert_span, role_span, when};
use crate::clock::{Timestamp, format_gap, relative_age};
use crate::console::model::Model;
use crate::console::model::page::{Page, PageRow};
use crate::store::AnswerRow;

/// One fact of the preview: its label and its value.
pub(crate) type Fact<'a> = (&'static str, Line<'a>);

/// The facts a view's preview always shows for a row, given the model's clock.
pub(crate) type FactsFn<T> = for<'a> fn(&'a T, Timestamp) -> Vec<Fact<'a>>;

/// A view whose preview shows only what its row had to leave out.
pub(crate) fn only_what_was_cut<T>(_: &T, _: Timestamp) -> Vec<Fact<'_>> {
    Vec::new()
}

/// The label of what a held callback's other reports say beside it.
const BESIDE: &str = "beside it";

/// Lines the preview is given when the list needs the room: seven facts and its frame.
pub const PREVIEW_HEIGHT: u16 = 9;

/// A time with how long ago it was: `11-27 13:16:45 (3 h ago)`.
pub(crate) fn when_ago(at: Timestamp, now: Timestamp) -> Vec<Span<'static>> {
    vec![
        Span::raw(when(at, now)),
        Span::raw(format!(" ({})", relative_age(at, now))).dark_gray(),
    ]
}

/// A standing answer in full: verdict, by whom, when and how long ago; or that none was given.
pub(crate) fn answer_fact(answer: Option<&AnswerRow>, now: Timestamp) -> Line<'_> {
    let Some(a) = answer else {
        return Line::from(Span::raw("unanswered").light_red());
    };
    let verdict = inert_span(a.verdict.as_str());
    let mut spans = vec![
        if a.verdict.closes() {
            verdict.green()
        } else {
            verdict.yellow()
        },
        Span::raw(" by "),
        inert_span(&a.reviewer),
    ];
    spans.extend(role_span(a.written_by.as_deref()));
    spans.push(Span::raw(" at "));
    spans.extend(when_ago(a.answered_at, now));
    if !a.verdict.closes() {
        spans.push(Span::raw(" · still open").yellow());
    }
    Line::from(spans)
}

/// A gap with its sign said in words: `+4m44s: arrived 4m44s after the timeout`.
pub(crate) fn gap_in_words(gap_s: i64) -> String {
    let signed = format_gap(gap_s);
    let length = signed.trim_start_matches(['+', '-']);
    match gap_s {
        0 => format!("{signed}: arrived at the timeout"),
        s if s > 0 => format!("{signed}: arrived {length} after the timeout"),
        _ => format!("{signed}: arrived {length} before the timeout"),
    }
}

/// The preview's lines for `row`: the view's facts, then what the row's columns had to
/// shorten or drop, each value whole after its label, wrapped under itself.
fn lines<'a, T>(
    view: &ListView<T>,
    row: &'a T,
    fitted: &Fitted<'a>,
    selected: usize,
    now: Timestamp,
    width: usize,
    beside: Option<&str>,
) -> Vec<Line<'static>> {
    let mut facts = (view.facts)(row, now);
    // A held callback's other reports, read for the selected row only: next to its
    // case, before the times, as the first thing to weigh.
    if let Some(reading) = beside {
        facts.insert(
            facts.len().min(1),
            (BESIDE, Line::from(inert_span(reading).content.into_owned())),
        );
    }
    for (i, column) in view.columns.iter().enumerate() {
        let cut_here = fitted.forms[i] != Form::Full;
        let named = facts.iter().any(|(label, _)| *label == column.header);
        if cut_here
            && !named
            && let Some(full) = fitted.full_cell(selected, i)
        {
            facts.push((column.header, full.clone()));
        }
    }
    let label_width = facts
        .iter()
        .map(|(label, _)| label.chars().count())
        .max()
        .unwrap_or(0)
        + 2;
    facts
        .into_iter()
        .flat_map(|(label, value)| {
            let mut spans = vec![Span::raw(format!("{label:<label_width$}")).dark_gray()];
            spans.extend(value.spans);
            // The reading beside a held callback is one line here, cut where the
            // line ends and marked so: the comparison (`C`) has it whole.
            if label == BESIDE {
                let room = width.saturating_sub(label_width);
                let text: String = spans[1..].iter().map(|s| s.content.as_ref()).collect();
                if text.chars().count() > room {
                    let kept: String = text.chars().take(room.saturating_sub(1)).collect();
                    spans.truncate(1);
                    spans.push(Span::raw(format!("{kept}…")));
                }
            }
            cut(&spans, width, label_width)
        })
        .collect()
}

/// Draws the preview of the page's selected row into `area`.
pub(crate) fn draw<T: PageRow>(
    frame: &mut Frame<'_>,
    area: Rect,
    model: &Model,
    view: &ListView<T>,
    page: &Page<T>,
    fitted: &Fitted<'_>,
) {
    let has_detail = page.current().and_then(PageRow::detail_key).is_some();
    let title = if has_detail {
        " Selected row · Enter opens its detail "
    } else {
        " Selected row "
    };
    let block = Block::bordered()
        .title(Line::from(title).dark_gray())
        .border_style(Style::new().fg(Color::DarkGray));
    let inner = block.inner(area);
    let shown = match page.current() {
        Some(row) => lines(
            view,
            row,
            fitted,
            page.selected,
            model.now,
            usize::from(inner.width),
            row.callback().and_then(|c| model.beside(c.seq)),
        ),
        None => vec![Line::from("No row selected.").dark_gray()],
    };
    frame.render_widget(Paragraph::new(shown).block(block), area);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sign_of_a_gap_is_said_in_words() {
        assert_eq!(gap_in_words(284), "+4m44s: arrived 4m44s after the timeout");
        assert_eq!(gap_in_words(-31), "-31s: arrived 31s before the timeout");
        assert_eq!(gap_in_words(0), "+0s: arrived at the timeout");
    }
}
