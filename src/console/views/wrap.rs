//! Breaking a line of styled spans into lines of a width, at spaces, with a hanging
//! indent: the detail pane's and the preview's long lines continue under their text,
//! not under their time or label.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthChar;

/// How far the continuation lines of `spans` hang: under the text after its first
/// span, when that span is a label or time before more text (`  13:10:00  `), and it
/// leaves at least half the width for the text; else under nothing.
pub(crate) fn hang_of(spans: &[Span<'_>], width: usize) -> usize {
    match spans {
        [label, _, ..] if label.width() <= width / 2 => label.width(),
        _ => 0,
    }
}

/// Breaks a line of spans into lines at most `width` columns wide, at the last space
/// that fits (the space itself is dropped); a word longer than a whole line (a digest, a
/// long id) is cut where the line ends. Continuation lines start `hang` columns in.
pub(crate) fn cut(spans: &[Span<'_>], width: usize, hang: usize) -> Vec<Line<'static>> {
    let width = width.max(1);
    let hang = if hang < width { hang } else { 0 };
    let indent = || vec![(' ', Style::default()); hang];
    let mut lines: Vec<Vec<(char, Style)>> = Vec::new();
    let mut current: Vec<(char, Style)> = Vec::new();
    let mut used = 0;
    for span in spans {
        for c in span.content.chars() {
            let w = c.width().unwrap_or(0);
            if used + w > width {
                if c == ' ' {
                    lines.push(std::mem::replace(&mut current, indent()));
                    used = hang;
                    continue;
                }
                let mut rest = indent();
                // The last space past the hang (a label's or a time's padding, or
                // the continuation's indent): breaking there would leave the label
                // alone, or a blank line.
                let text_from = hang.min(current.len());
                let space = current[text_from..]
                    .iter()
                    .rposition(|&(c, _)| c == ' ')
                    .map(|at| text_from + at);
                if let Some(space) = space
                    && current[text_from..space].iter().any(|&(c, _)| c != ' ')
                {
                    rest.extend(current.split_off(space + 1));
                    current.pop();
                }
                lines.push(std::mem::replace(&mut current, rest));
                used = current.iter().map(|&(c, _)| c.width().unwrap_or(0)).sum();
                if used + w > width {
                    // The word moved down fills its line under the hang: cut it there.
                    lines.push(std::mem::replace(&mut current, indent()));
                    used = hang;
                }
            }
            current.push((c, span.style));
            used += w;
        }
    }
    lines.push(current);
    lines.into_iter().map(styled_line).collect()
}

/// Characters with their styles, as a line of one span per run of a style.
fn styled_line(chars: Vec<(char, Style)>) -> Line<'static> {
    let mut spans: Vec<Span<'static>> = Vec::new();
    let mut text = String::new();
    let mut style = chars.first().map_or_else(Style::default, |&(_, s)| s);
    for (c, s) in chars {
        if s != style {
            spans.push(Span::styled(std::mem::take(&mut text), style));
            style = s;
        }
        text.push(c);
    }
    spans.push(Span::styled(text, style));
    Line::from(spans)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(lines: &[Line<'_>]) -> Vec<String> {
        lines.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn continuation_lines_hang_under_the_text_not_the_time() {
        let spans = [
            Span::raw("  13:10:01  "),
            Span::raw("attempt 1 started by system, due to time out 13:12:01"),
        ];
        let hang = hang_of(&spans, 40);
        assert_eq!(hang, 12);
        assert_eq!(
            text(&cut(&spans, 40, hang)),
            [
                "  13:10:01  attempt 1 started by system,",
                "            due to time out 13:12:01",
            ]
        );
    }

    #[test]
    fn a_word_longer_than_the_text_column_is_cut_and_continues_under_it() {
        let spans = [Span::raw("label "), Span::raw("0123456789abcdef")];
        assert_eq!(
            text(&cut(&spans, 12, hang_of(&spans, 12))),
            ["label 012345", "      6789ab", "      cdef"]
        );
    }

    #[test]
    fn a_line_of_one_span_does_not_hang() {
        let spans = [Span::raw("  \"event\": \"callback\", \"job\": 1")];
        assert_eq!(hang_of(&spans, 20), 0);
        assert_eq!(
            text(&cut(&spans, 20, 0)),
            ["  \"event\":", "\"callback\", \"job\": 1"]
        );
    }
}
