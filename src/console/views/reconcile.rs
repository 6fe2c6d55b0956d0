//! The Reconcile view: the ledger accounts for every accepted job (SPEC sec. 4).

use std::collections::BTreeMap;
use std::fmt::Write as _;

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Paragraph};

use super::outside;
use crate::clock::Timestamp;
use crate::console::model::Model;
use crate::console::model::counts::Glance;
use crate::console::tab::Tab;
use crate::decision::JobState;
use crate::store::Finding;

fn finding<'a>(
    lines: &mut Vec<Line<'a>>,
    mark: &'static str,
    label: &'static str,
    count: i64,
    first: &'a [String],
    why: &'static str,
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
        ids.push(outside(id));
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
/// The Reconcile view: it lists no rows of its own, it is drawn from the glance.
pub(crate) struct Reconcile;

impl super::TabView for Reconcile {
    fn draw(&self, frame: &mut Frame<'_>, area: Rect, model: &Model) {
        draw(frame, area, model);
    }
}

fn draw(frame: &mut Frame<'_>, area: Rect, model: &Model) {
    if let Some(jobs) = &model.findings.jobs {
        return super::findings::draw(frame, area, model, jobs);
    }
    let g = &model.glance;
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
    lines.push(Line::default());
    if g.counted {
        windows(&mut lines, model);
    }
    let paragraph = Paragraph::new(lines)
        .block(
            Block::bordered()
                .title(" Reconcile · the ledger accounts for every accepted job ".bold())
                .border_style(Style::new().fg(Color::Cyan))
                .padding(ratatui::widgets::Padding::horizontal(1)),
        )
        .scroll((u16::try_from(model.reconcile_scroll).unwrap_or(u16::MAX), 0));
    frame.render_widget(paragraph, area);
}

/// The counts of each finding and the first jobs of each.
fn findings<'a>(lines: &mut Vec<Line<'a>>, g: &'a Glance, selected: Finding) {
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
    ] {
        let mark = if kind == selected { "▶ " } else { "  " };
        finding(lines, mark, kind.label(), count, first, why);
    }
}

fn windows(lines: &mut Vec<Line<'_>>, model: &Model) {
    let mut by_window: BTreeMap<std::cmp::Reverse<Timestamp>, BTreeMap<JobState, i64>> =
        BTreeMap::new();
    for w in &model.glance.windows {
        *by_window
            .entry(std::cmp::Reverse(w.start))
            .or_default()
            .entry(w.state)
            .or_default() += w.jobs;
    }
    let mut header = format!("{:<17} {:>8}", "submitted (1h)", "jobs");
    for state in JobState::ALL {
        let _ = write!(header, " {:>14}", state.as_str());
    }
    lines.push(Line::from(Span::raw(header).bold().underlined()));
    for (std::cmp::Reverse(start), states) in by_window {
        let total: i64 = states.values().sum();
        let mut row = format!(
            "{:<17} {total:>8}",
            start.short().get(..16).unwrap_or_default()
        );
        for state in JobState::ALL {
            let _ = write!(row, " {:>14}", states.get(&state).copied().unwrap_or(0));
        }
        lines.push(Line::from(row));
    }
}
