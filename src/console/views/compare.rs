//! The comparison pane of a held callback: a time axis drawn to scale above (each
//! attempt a bar from its start to its timeout, each callback's arrival a mark, the
//! gap dotted), and below it the held report beside each report or record it
//! conflicts with, field by field, differing fields marked `≠`. Side by side on a
//! wide terminal, one above the other on a narrow one.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Clear, Paragraph, Wrap};

use super::inert_span;
use crate::clock::{TimeForm, Timestamp};
use crate::console::axis::Axis;
use crate::console::model::compare::{ComparePane, Comparison, Pair, Side, pairs};
use crate::inert::inert;

/// Width of the labels left of the axis.
const LABEL: usize = 14;
/// From this inner width on, the two sides stand side by side.
const SIDE_BY_SIDE: u16 = 110;
/// Width of a field's name in the comparison.
const NAME: usize = 22;
/// Callback rows the axis draws at most (the held one always among them).
const AXIS_CALLBACKS: usize = 4;

/// A row of cells the axis draws into, each a character and its style.
struct Strip(Vec<(char, Style)>);

impl Strip {
    fn new(width: usize) -> Strip {
        Strip(vec![(' ', Style::new()); width])
    }

    fn put(&mut self, at: usize, c: char, style: Style) {
        if let Some(cell) = self.0.get_mut(at) {
            *cell = (c, style);
        }
    }

    fn fill(&mut self, from: usize, to: usize, c: char, style: Style) {
        for at in from..=to {
            self.put(at, c, style);
        }
    }

    /// Writes `text` just right of `to` when it fits there, else just left of
    /// `from`, else nowhere (a label cut short misleads more than none).
    fn label(&mut self, (from, to): (usize, usize), text: &str, style: Style) {
        let len = text.chars().count();
        let start = if to + 2 + len <= self.0.len() {
            to + 2
        } else if from > len {
            from - len - 1
        } else {
            return;
        };
        for (i, c) in text.chars().enumerate() {
            if self.0.get(start + i).is_some_and(|(cell, _)| *cell == ' ') {
                self.put(start + i, c, style);
            }
        }
    }

    fn into_line(self, label: &str, label_style: Style) -> Line<'static> {
        let mut spans = vec![Span::styled(format!("{label:<LABEL$} "), label_style)];
        for (c, style) in self.0 {
            spans.push(Span::styled(c.to_string(), style));
        }
        Line::from(spans)
    }
}

fn column(axis: &Axis, at: Timestamp) -> usize {
    usize::from(axis.column(at))
}

/// A time as the axis labels it: `13:12` on whole minutes, else `13:12:30`.
fn clock(at: Timestamp) -> String {
    let short = at.short();
    let time = short.get(11..).unwrap_or_default();
    if at.millis() % 60_000 == 0 {
        time.get(..5).unwrap_or(time).to_owned()
    } else {
        time.to_owned()
    }
}

/// The axis, `width` cells wide in all (labels included).
fn axis_lines(c: &Comparison, width: u16) -> Vec<Line<'static>> {
    let strip_width = usize::from(width).saturating_sub(LABEL + 1).max(10);
    let Some(axis) = Axis::spanning(&c.times(), u16::try_from(strip_width).unwrap_or(u16::MAX))
    else {
        return vec![Line::from("No times on record to draw.").dark_gray()];
    };
    let end = Timestamp::from_millis(c.times().iter().map(|t| t.millis()).max().unwrap_or(0));
    let mut header = vec![
        Span::raw("Time axis to scale").bold(),
        Span::raw(format!(" · one cell ≈ {:.0} s", axis.seconds_per_cell())).dark_gray(),
    ];
    if let Some(gap) = c.gap() {
        header.push(Span::raw(format!(" · #{} arrived ", c.held.row.seq)));
        header.push(Span::raw(gap).yellow().bold());
    }
    let mut lines = vec![Line::from(header)];
    let held_attempt = c.held.row.attempt;
    for a in &c.attempts {
        let mut strip = Strip::new(strip_width);
        let replacement = held_attempt.is_some_and(|h| a.attempt > h);
        let style = if replacement {
            Style::new().fg(Color::LightMagenta)
        } else {
            Style::new().fg(Color::Cyan)
        };
        let until = a
            .timeout_at
            .or(a.timed_out_at)
            .or(end)
            .unwrap_or(a.started_at);
        let (from, to) = axis.bar(a.started_at, until);
        let (from, to) = (usize::from(from), usize::from(to));
        strip.fill(from, to, '━', style);
        strip.put(from, '┣', style.bold());
        if a.timeout_at.is_some() {
            strip.put(to, '┫', style.bold());
        }
        let what = if replacement {
            format!("started by {}", inert(&a.created_by))
        } else {
            format!(
                "{} · timeout {}",
                a.state,
                a.timeout_at.map_or_else(|| "-".to_owned(), clock)
            )
        };
        strip.label((from, to), &what, Style::new().dark_gray());
        lines.push(strip.into_line(&format!("attempt {}", a.attempt), style.bold()));
    }
    let timeout = c.held_attempt().and_then(|a| a.timeout_at);
    let mut shown: Vec<_> = c
        .others
        .iter()
        .filter(|o| o.row.arrived_at.is_some())
        .take(AXIS_CALLBACKS - 1)
        .collect();
    shown.push(&c.held);
    shown.sort_by_key(|r| r.row.seq);
    for report in shown {
        let row = &report.row;
        let Some(arrived) = row.arrived_at else {
            continue;
        };
        let held = row.seq == c.held.row.seq;
        let mut strip = Strip::new(strip_width);
        let at = column(&axis, arrived);
        let outcome = row.outcome.map_or("?", |o| o.as_str());
        if held {
            let style = Style::new().fg(Color::Yellow).bold();
            if let Some(timeout) = timeout {
                let t = column(&axis, timeout);
                strip.fill(t.min(at), t.max(at), '┄', Style::new().fg(Color::Yellow));
            }
            strip.put(at, '●', style);
            let from = timeout.map_or(at, |t| column(&axis, t).min(at));
            strip.label((from, at), outcome, style);
            lines.push(strip.into_line(&format!("#{} held", row.seq), style));
        } else {
            strip.put(at, '○', Style::new().white());
            let text = format!("{outcome} {}", clock(arrived));
            strip.label((at, at), &text, Style::new().dark_gray());
            lines.push(strip.into_line(&format!("#{} {}", row.seq, row.disposition), Style::new()));
        }
    }
    if let Some(job) = c.job.as_ref().filter(|j| j.state.is_terminal()) {
        let mut strip = Strip::new(strip_width);
        let at = column(&axis, job.state_changed_at);
        strip.put(at, '■', Style::new().light_red().bold());
        strip.label((at, at), job.state.as_str(), Style::new().dark_gray());
        lines.push(strip.into_line("terminal", Style::new().bold()));
    }
    let mut base = Strip::new(strip_width);
    base.fill(0, strip_width - 1, '─', Style::new().dark_gray());
    let mut labels = Strip::new(strip_width);
    let mut free_from = 0;
    for (at, time) in axis.ticks(10) {
        let at = usize::from(at);
        base.put(at, '┬', Style::new().dark_gray());
        let text = clock(time);
        let start = at.saturating_sub(text.chars().count() / 2);
        if start >= free_from && start + text.chars().count() <= strip_width {
            for (i, ch) in text.chars().enumerate() {
                labels.put(start + i, ch, Style::new().dark_gray());
            }
            free_from = start + text.chars().count() + 1;
        }
    }
    lines.push(base.into_line("", Style::new()));
    lines.push(labels.into_line("UTC", Style::new().dark_gray()));
    lines
}

fn fit(text: &str, width: usize) -> String {
    let text = inert(text);
    if text.chars().count() <= width {
        format!("{text:<width$}")
    } else {
        let cut: String = text.chars().take(width.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

/// Between two values: `≠` when they differ, `=` when they are compared and equal,
/// a plain rule when they are only shown side by side.
fn mark(pair: &Pair) -> Span<'static> {
    if pair.differs {
        Span::raw(" ≠ ").light_red().bold()
    } else if pair.same {
        Span::raw(" = ").green()
    } else {
        Span::raw(" │ ").dark_gray()
    }
}

/// The held side beside each counterpart, a row per field.
fn side_by_side(held: &Side, counterparts: &[Side], width: u16) -> Vec<Line<'static>> {
    let value = (usize::from(width).saturating_sub(NAME + 3) / 2).max(8);
    let mut lines = Vec::new();
    for theirs in counterparts {
        lines.push(Line::from(vec![
            Span::raw(format!("{:<NAME$}", "")),
            Span::raw(fit(&held.title, value)).yellow().bold(),
            Span::raw("   "),
            Span::raw(fit(&theirs.title, value)).bold(),
        ]));
        for pair in pairs(held, theirs) {
            lines.push(Line::from(vec![
                Span::raw(fit(&pair.name, NAME)).dark_gray(),
                Span::raw(fit(pair.held.as_deref().unwrap_or("—"), value)),
                mark(&pair),
                Span::raw(fit(pair.theirs.as_deref().unwrap_or("—"), value)),
            ]));
        }
        lines.push(Line::default());
    }
    lines
}

/// The held side, then each counterpart below it, its differing fields marked.
fn stacked(held: &Side, counterparts: &[Side]) -> Vec<Line<'static>> {
    let mut lines = vec![Line::from(
        Span::raw(inert(&held.title).into_owned()).yellow().bold(),
    )];
    for f in &held.fields {
        lines.push(Line::from(vec![
            Span::raw(format!("   {}", fit(&f.name, NAME))).dark_gray(),
            Span::raw(inert(&f.value).into_owned()),
        ]));
    }
    for theirs in counterparts {
        lines.push(Line::default());
        lines.push(Line::from(
            Span::raw(inert(&theirs.title).into_owned()).bold(),
        ));
        // The held side is listed in full above: here only what this side has.
        for pair in pairs(held, theirs)
            .into_iter()
            .filter(|p| p.theirs.is_some() || p.differs)
        {
            let mut spans = vec![
                if pair.differs || pair.same {
                    mark(&pair)
                } else {
                    Span::raw("   ")
                },
                Span::raw(fit(&pair.name, NAME)).dark_gray(),
                Span::raw(inert(pair.theirs.as_deref().unwrap_or("—")).into_owned()),
            ];
            if pair.differs {
                spans.push(
                    Span::raw(format!(
                        " (held: {})",
                        inert(pair.held.as_deref().unwrap_or("—"))
                    ))
                    .dark_gray(),
                );
            }
            lines.push(Line::from(spans));
        }
    }
    lines
}

/// The comparison below the axis, for an inner width of `width`.
fn comparison_lines(c: &Comparison, width: u16, now: Timestamp) -> Vec<Line<'static>> {
    let held = c.held_side(TimeForm::Readable(now));
    let counterparts = c.counterparts(TimeForm::Readable(now));
    let mut lines = if counterparts.is_empty() {
        vec![
            Line::from(
                "Nothing on record conflicts with it: no other report, attempt or terminal record.",
            )
            .dark_gray(),
        ]
    } else if width >= SIDE_BY_SIDE {
        side_by_side(&held, &counterparts, width)
    } else {
        stacked(&held, &counterparts)
    };
    // What the other reports say, in one line, above the fields it is read from.
    lines.insert(0, Line::default());
    lines.insert(0, reading_line(c));
    lines.insert(0, Line::default());
    lines
}

/// `Beside it: …`: what the job's other callbacks report beside the held one (see
/// [`Comparison::reading`]), made inert.
pub(crate) fn reading_line(c: &Comparison) -> Line<'static> {
    Line::from(vec![
        Span::raw("Beside it: ").bold(),
        Span::raw(inert(&c.reading()).into_owned()),
    ])
}

/// The pane's areas in the body: the frame, the axis inside it and the comparison.
fn areas(body: Rect, c: &Comparison) -> (Rect, Rect, Rect) {
    let inner = Block::bordered().inner(body);
    let axis = u16::try_from(axis_lines(c, inner.width).len()).unwrap_or(u16::MAX);
    let [top, rest] = inner.layout(&Layout::vertical([
        Constraint::Length(axis.min(inner.height / 2)),
        Constraint::Min(0),
    ]));
    (inner, top, rest)
}

/// How far the comparison drawn over `body` scrolls.
pub(crate) fn last_scroll(body: Rect, c: &Comparison, now: Timestamp) -> usize {
    let (_, _, rest) = areas(body, c);
    last_scroll_in(rest, c, now)
}

/// Draws the comparison pane over the body.
pub(crate) fn draw(frame: &mut Frame<'_>, body: Rect, pane: &ComparePane, now: Timestamp) {
    let c = &pane.comparison;
    frame.render_widget(Clear, body);
    let row = &c.held.row;
    let title = Line::from(vec![
        Span::raw(format!(" Compare held callback #{} · ", row.seq)).bold(),
        inert_span(row.job_id.as_deref().unwrap_or("no job")).bold(),
        Span::raw(format!(" · {} ", row.reason)).bold(),
    ]);
    let (_, top, rest) = areas(body, c);
    let last = last_scroll_in(rest, c, now);
    let scroll = pane.scroll.min(last);
    let mut block = Block::bordered()
        .title(title)
        .border_style(Style::new().fg(Color::Cyan));
    if scroll < last {
        block = block.title_bottom(
            Line::from("▼ more below")
                .alignment(ratatui::layout::Alignment::Right)
                .dark_gray(),
        );
    }
    frame.render_widget(block, body);
    frame.render_widget(Paragraph::new(axis_lines(c, top.width)), top);
    frame.render_widget(
        Paragraph::new(comparison_lines(c, rest.width, now))
            .wrap(Wrap { trim: false })
            .scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0)),
        rest,
    );
}

/// How far the comparison scrolls in `rest`: its rows as wrapped, less those shown.
fn last_scroll_in(rest: Rect, c: &Comparison, now: Timestamp) -> usize {
    let width = usize::from(rest.width.max(1));
    let rows: usize = comparison_lines(c, rest.width, now)
        .iter()
        .map(|l| l.width().div_ceil(width).max(1))
        .sum();
    rows.saturating_sub(usize::from(rest.height))
}
