//! The Reconcile view: the ledger accounts for every accepted job (SPEC sec. 4).

use std::fmt::Write as _;

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph, Wrap};

use super::{inert_span, trend};
use crate::clock::Timestamp;
use crate::console::model::Model;
use crate::console::model::counts::ReconcileSummary;
use crate::console::tab::Tab;
use crate::decision::JobState;
use crate::store::Finding;

fn finding<'a>(
    lines: &mut Vec<Line<'a>>,
    mark: &'static str,
    label: &'static str,
    count: i64,
    first: &'a [String],
    why: &str,
) {
    let style = if count > 0 {
        Style::new().fg(Color::LightRed).bold()
    } else {
        Style::new().fg(Color::Green)
    };
    lines.push(Line::from(vec![
        Span::raw(mark).cyan().bold(),
        Span::styled(format!("{count:>4}  "), style),
        Span::raw(label).bold(),
        Span::raw(format!("  {why}")).dark_gray(),
    ]));
    if first.is_empty() {
        return;
    }
    let mut ids = vec![Span::raw("        ")];
    for (i, id) in first.iter().enumerate() {
        if i > 0 {
            ids.push(Span::raw(", "));
        }
        ids.push(inert_span(id));
    }
    let shown = i64::try_from(first.len()).unwrap_or(i64::MAX);
    if count > shown {
        ids.push(
            Span::raw(format!(
                " … and {} more (jobledger reconcile lists all)",
                count - shown
            ))
            .dark_gray(),
        );
    }
    lines.push(Line::from(ids));
}

/// Draws the reconciliation at a glance.
/// The Reconcile view: it lists no rows of its own, it is drawn from the summary.
pub(crate) struct Reconcile;

impl super::TabView for Reconcile {
    fn draw(&self, frame: &mut Frame<'_>, area: Rect, preview: Option<Rect>, model: &Model) {
        match &model.findings.jobs {
            Some(jobs) => super::findings::draw(frame, area, preview, model, jobs),
            None => draw(frame, area, model),
        }
    }
}

/// The Reconcile view's frame.
fn block() -> Block<'static> {
    Block::bordered()
        .title(" Reconcile · the ledger accounts for every accepted job ".bold())
        .border_style(Style::new().fg(Color::Cyan))
        .padding(ratatui::widgets::Padding::horizontal(1))
}

/// The view's text, and where the text and the backlog chart go inside its frame.
struct Laid<'a> {
    text: Paragraph<'a>,
    text_area: Rect,
    chart: Option<Rect>,
    /// Rows of the text above the backlog line.
    backlog_at: usize,
}

impl Laid<'_> {
    /// The furthest the text scrolls: its last line at the bottom of its area.
    fn last_scroll(&self) -> usize {
        self.text
            .line_count(self.text_area.width)
            .saturating_sub(usize::from(self.text_area.height))
    }
}

fn laid_out(model: &Model, area: Rect) -> Laid<'_> {
    let g = &model.summary;
    let inner = block().inner(area);
    let mut lines = Vec::new();
    if g.counted {
        findings(&mut lines, g, model.findings.selected);
    } else {
        lines.push(Line::from(
            Span::raw("Counting what every accepted job is missing (a large ledger: the findings follow in a moment)…").bold(),
        ));
        lines.push(Line::default());
    }
    let aged = model.count(Tab::Aged).all;
    lines.push(Line::from(vec![
        Span::raw(format!("{aged:>6}  ")).bold(),
        Span::raw("aged").bold(),
        Span::raw("  open past their expected age (view 3 lists them with owners)").dark_gray(),
    ]));
    lines.push(Line::default());
    let b = &g.backlog;
    let backlog_at = lines.len();
    lines.push(Line::from(vec![
        Span::raw("backlog  ").bold(),
        if b.raised {
            Span::raw("ALARM RAISED").white().on_red().bold()
        } else {
            Span::raw("quiet").green()
        },
        Span::raw(format!(
            "  {} held/quarantined arrived in the last hour against a review capacity of {}; {} answered; {} questions open",
            b.arrivals, b.capacity, b.answered, b.open
        )),
    ]));
    let (text, chart) = split_for_trend(inner, g, rows_wrapped(&lines, inner.width));
    if chart.is_none() && !g.trend.is_empty() {
        let mut day = vec![Span::raw("last 24 h  ").bold()];
        let colours = model.theme.colours();
        day.extend(trend::sparkline(&g.trend, b.capacity, colours));
        day.push(
            Span::raw(format!(
                "  arrivals per hour; {} above capacity",
                trend::above_capacity(colours)
            ))
            .dark_gray(),
        );
        lines.push(Line::from(day));
    }
    lines.push(Line::default());
    if g.counted {
        windows(&mut lines, model, usize::from(text.width));
    }
    let backlog_at = usize::from(rows_wrapped(&lines[..backlog_at], text.width));
    Laid {
        text: Paragraph::new(lines).wrap(Wrap { trim: false }),
        text_area: text,
        chart,
        backlog_at,
    }
}

/// The furthest the Reconcile view drawn into `area` scrolls: the last line of its
/// text at the bottom (further, it showed an empty box).
pub(crate) fn last_scroll(model: &Model, area: Rect) -> usize {
    laid_out(model, area).last_scroll()
}

/// How far the Reconcile view drawn into `area` scrolls to show the backlog line with
/// the two lines above it (none when it is in sight unscrolled).
pub(crate) fn backlog_scroll(model: &Model, area: Rect) -> usize {
    let laid = laid_out(model, area);
    let below_it = laid.backlog_at + 3;
    if below_it <= usize::from(laid.text_area.height) {
        return 0;
    }
    laid.backlog_at.saturating_sub(2).min(laid.last_scroll())
}

fn draw(frame: &mut Frame<'_>, area: Rect, model: &Model) {
    let g = &model.summary;
    frame.render_widget(block(), area);
    let laid = laid_out(model, area);
    let scroll = model.reconcile_scroll.min(laid.last_scroll());
    let text_area = laid.text_area;
    let chart = laid.chart;
    frame.render_widget(
        laid.text
            .scroll((u16::try_from(scroll).unwrap_or(u16::MAX), 0)),
        text_area,
    );
    if let Some(chart) = chart {
        trend::draw(
            frame,
            chart,
            &g.trend,
            g.backlog.capacity,
            model.theme.colours(),
        );
    }
}

/// The rows `lines` take wrapped at `width` columns.
fn rows_wrapped(lines: &[Line<'_>], width: u16) -> u16 {
    let width = usize::from(width.max(1));
    let rows: usize = lines.iter().map(|l| l.width().div_ceil(width).max(1)).sum();
    u16::try_from(rows).unwrap_or(u16::MAX)
}

/// Where the findings go and where the backlog chart goes: the chart takes the bottom
/// third when the findings and the backlog line (`essential` rows) still fit above
/// it; on a short screen the backlog line carries a one-line picture of the day
/// instead.
fn split_for_trend(inner: Rect, g: &ReconcileSummary, essential: u16) -> (Rect, Option<Rect>) {
    let rows = (inner.height / 3).clamp(trend::CHART_MIN_ROWS, 14);
    if g.trend.is_empty() || inner.height < rows.saturating_add(essential).saturating_add(1) {
        return (inner, None);
    }
    let [text, _, chart] = Layout::vertical([
        Constraint::Fill(1),
        Constraint::Length(1),
        Constraint::Length(rows),
    ])
    .areas(inner);
    (text, Some(chart))
}

/// The counts of each finding and the first jobs of each.
fn findings<'a>(lines: &mut Vec<Line<'a>>, g: &'a ReconcileSummary, selected: Finding) {
    let m = &g.missing;
    let complete = m.missing_terminal == 0 && m.missing_output == 0;
    lines.push(Line::from(vec![
        Span::raw(format!("{} accepted jobs", m.accepted)).bold(),
        Span::raw(" — "),
        if complete {
            Span::raw("every accepted job is accounted for").green()
        } else {
            Span::raw(format!(
                "NOT COMPLETE: jobs without a terminal record: {}; successes without an output object: {}",
                m.missing_terminal, m.missing_output
            ))
            .light_red()
            .bold()
        },
    ]));
    lines.push(Line::from(
        Span::raw("Completion is proven by terminal records and output objects, never by counting notifications.").dark_gray(),
    ));
    lines.push(Line::from(
        Span::raw("↑↓ pick a finding, Enter lists its jobs.").dark_gray(),
    ));
    lines.push(Line::default());
    let divergent_why = format!(
        "decided under more than one decision id; {} open",
        m.divergent_open
    );
    for (kind, count, first, why) in [
        (
            Finding::MissingTerminal,
            m.missing_terminal,
            &g.first_missing_terminal,
            "accepted, no terminal record yet",
        ),
        (
            Finding::MissingOutput,
            m.missing_output,
            &g.first_missing_output,
            "success on record but no output: a consistency incident",
        ),
        (
            Finding::MissingNotification,
            m.missing_notification,
            &g.first_missing_notification,
            "terminal but never notified (informational)",
        ),
        (
            Finding::DivergentDecisions,
            m.divergent_decisions,
            &g.first_divergent_decisions,
            divergent_why.as_str(),
        ),
        (
            Finding::ConflictingSubmissions,
            m.conflicting_submissions,
            &g.first_conflicting_submissions,
            "same id, another identity; the first stands",
        ),
    ] {
        let mark = if kind == selected { "▶ " } else { "  " };
        finding(lines, mark, kind.label(), count, first, why);
    }
}

/// The recent submission windows, one row each: the population, the two findings a
/// person answers (first, so they stay on screen at 80 columns), then the jobs by state
/// now, as many states as fit in `width` (a row too long would wrap into two). When
/// some do not fit, a `›` ends the header and a line under the table names them.
fn windows(lines: &mut Vec<Line<'_>>, model: &Model, width: usize) {
    const MORE: &str = " ›";
    let mut header = format!(
        "{:<14} {:>7} {:>9} {:>11}",
        "submitted (1h)", "jobs", "divergent", "conflicting"
    );
    let fitting = |room: usize| -> Vec<JobState> {
        JobState::ALL
            .iter()
            .copied()
            .scan(header.len(), |used, state| {
                *used += state.as_str().len() + 1;
                Some((state, *used))
            })
            .take_while(|&(_, used)| used <= room)
            .map(|(state, _)| state)
            .collect()
    };
    let mut states = fitting(width);
    let cut = states.len() < JobState::ALL.len();
    if cut {
        states = fitting(width.saturating_sub(MORE.chars().count()));
    }
    for state in &states {
        let _ = write!(header, " {}", state.as_str());
    }
    let mut head = vec![Span::raw(header).bold().underlined()];
    if cut {
        head.push(Span::raw(MORE).bold());
    }
    lines.push(Line::from(head));
    for w in &model.summary.windows {
        let total: i64 = w.states.values().sum();
        if total == 0 {
            continue;
        }
        let mut row = format!(
            "{:<14} {total:>7} {:>9} {:>11}",
            window_start(w.start, model.now),
            w.divergent_decisions,
            w.conflicting_submissions,
        );
        for state in &states {
            let count = w.states.get(state.as_str()).copied().unwrap_or(0);
            let _ = write!(row, " {count:>w$}", w = state.as_str().len());
        }
        lines.push(Line::from(row));
    }
    let left_out = &JobState::ALL[states.len()..];
    if let (Some(first), Some(last)) = (left_out.first(), left_out.last()) {
        let (names, what) = if left_out.len() == 1 {
            (first.as_str().to_owned(), "state does")
        } else {
            (
                format!("{} … {}", first.as_str(), last.as_str()),
                "states do",
            )
        };
        lines.push(Line::from(
            Span::raw(format!(
                "› {} more {what} not fit ({names}): a wider terminal shows them, as does `jobledger reconcile`",
                left_out.len()
            ))
            .dark_gray(),
        ));
    }
}

/// The start of a window as the table labels it: its time without the seconds
/// (`11-27 13:00`, `2025-11-27 13:00` in another year).
fn window_start(start: Timestamp, now: Timestamp) -> String {
    let shown = start.readable(now);
    shown
        .get(..shown.len().saturating_sub(3))
        .unwrap_or_default()
        .to_owned()
}
