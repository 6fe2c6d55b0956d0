//! The status line: the ledger, the reviewer, the clock (the one place the screen
//! says its times are UTC), READ-ONLY, the backlog alarm, and on a wide screen the
//! day's arrivals for people as a line of bars.
//!
//! The line gives way by how much each part is needed: the ledger's path and the
//! reviewer shorten and go first, the clock next; READ-ONLY and the backlog alarm only
//! shorten, and stay on screen at every width the console draws (from 60 columns).

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Modifier, Stylize};
use ratatui::text::{Line, Span};
use ratatui::widgets::Paragraph;

use super::{inert_span, when};
use crate::clock::Clock;
use crate::console::model::Model;

/// One part of the status line, in its forms from the longest to the shortest.
struct Part<'a> {
    forms: Vec<Vec<Span<'a>>>,
    /// The part may go altogether once its shortest form does not fit.
    may_go: bool,
    /// The part gives way before every other (a picture only a wide screen has room for).
    goes_first: bool,
}

fn width(spans: &[Span<'_>]) -> usize {
    spans.iter().map(Span::width).sum()
}

const SEPARATOR: &str = " │ ";

/// The parts of the line for `model`, in the order they are drawn.
fn parts(model: &Model) -> Vec<Part<'_>> {
    let at = when(model.now, model.now);
    let clock = match model.clock {
        Clock::Fixed(_) => vec![
            format!("clock fixed at {at} UTC"),
            format!("{at} UTC (fixed)"),
            format!("{at} UTC"),
        ],
        Clock::System => vec![format!("now {at} UTC"), format!("{at} UTC")],
    };
    let mut parts = vec![
        Part {
            forms: vec![
                vec![
                    Span::raw("ledger ").dark_gray(),
                    inert_span(&model.ledger_path),
                ],
                vec![
                    Span::raw("ledger ").dark_gray(),
                    Span::raw(inert_span(&model.ledger_name).content.into_owned()),
                ],
            ],
            may_go: true,
            goes_first: false,
        },
        Part {
            forms: vec![
                vec![
                    Span::raw("reviewer ").dark_gray(),
                    inert_span(&model.reviewer),
                ],
                vec![inert_span(&model.reviewer)],
            ],
            may_go: true,
            goes_first: false,
        },
        Part {
            forms: clock
                .into_iter()
                .map(|text| vec![Span::raw(text)])
                .collect(),
            may_go: true,
            goes_first: false,
        },
    ];
    if model.writes_off() {
        let flag = |text: &'static str| vec![Span::raw(text).black().on_yellow()];
        parts.push(Part {
            // The file gone from its path turns writes off too, and says why.
            forms: if model.server_away {
                vec![flag("SERVER AWAY: writes disabled"), flag("SERVER AWAY")]
            } else if model.ledger_gone {
                vec![flag("FILE GONE: writes disabled"), flag("FILE GONE")]
            } else {
                vec![flag("READ-ONLY: writes disabled"), flag("READ-ONLY")]
            },
            may_go: false,
            goes_first: false,
        });
    }
    let b = &model.summary.backlog;
    let alarm = |text: String| {
        vec![
            Span::raw(text)
                .white()
                .on_red()
                .add_modifier(Modifier::BOLD),
        ]
    };
    parts.push(if b.raised {
        Part {
            forms: vec![
                alarm(format!(
                    "BACKLOG ALARM: {} held/quarantined in the last hour > capacity {}; {} open",
                    b.arrivals, b.capacity, b.open
                )),
                alarm(format!(
                    "BACKLOG ALARM: {}/h > {}; {} open",
                    b.arrivals, b.capacity, b.open
                )),
                alarm("BACKLOG ALARM".to_owned()),
            ],
            may_go: false,
            goes_first: false,
        }
    } else {
        Part {
            forms: vec![
                vec![Span::raw(format!("backlog quiet ({} open)", b.open)).dark_gray()],
                vec![Span::raw("quiet").dark_gray()],
            ],
            may_go: true,
            goes_first: false,
        }
    });
    // The day's arrivals for people, hour by hour, where the line has room to spare.
    if !model.summary.trend.is_empty() {
        let mut day = vec![Span::raw("24 h ").dark_gray()];
        day.extend(super::trend::sparkline(
            &model.summary.trend,
            b.capacity,
            model.theme.colours(),
        ));
        parts.push(Part {
            forms: vec![day],
            may_go: true,
            goes_first: true,
        });
    }
    parts
}

/// Which part gives way next, in the order of how little it is needed: the index of
/// the part in [`parts`] (0 ledger, 1 reviewer, 2 clock, then the flags).
const GIVES_WAY: [usize; 3] = [0, 1, 2];

/// The spans of the status line for `model`, fitted into `room` columns.
pub(crate) fn line(model: &Model, room: usize) -> Line<'_> {
    let parts = parts(model);
    // Each part's chosen form; `None`: gone.
    let mut chosen: Vec<Option<usize>> = vec![Some(0); parts.len()];
    let total = |chosen: &[Option<usize>]| -> usize {
        let shown: Vec<usize> = parts
            .iter()
            .zip(chosen)
            .filter_map(|(p, c)| c.map(|form| width(&p.forms[form])))
            .collect();
        shown.iter().sum::<usize>() + SEPARATOR.chars().count() * shown.len().saturating_sub(1)
    };
    // The flags shorten first only when the others have given all they can.
    let first = (0..parts.len()).filter(|&i| parts[i].goes_first);
    let order: Vec<usize> = first
        .chain(GIVES_WAY.iter().copied())
        .chain((0..parts.len()).filter(|&i| !GIVES_WAY.contains(&i) && !parts[i].goes_first))
        .collect();
    for &i in &order {
        while total(&chosen) > room {
            match chosen[i] {
                Some(form) if form + 1 < parts[i].forms.len() => chosen[i] = Some(form + 1),
                Some(_) if parts[i].may_go => chosen[i] = None,
                _ => break,
            }
        }
    }
    let mut spans = Vec::new();
    for (part, form) in parts.into_iter().zip(chosen) {
        let Some(form) = form else { continue };
        if !spans.is_empty() {
            spans.push(Span::raw(SEPARATOR).dark_gray());
        }
        spans.extend(part.forms.into_iter().nth(form).unwrap_or_default());
    }
    Line::from(spans)
}

/// Draws the status line.
pub(crate) fn draw(frame: &mut Frame<'_>, area: Rect, model: &Model) {
    frame.render_widget(Paragraph::new(line(model, usize::from(area.width))), area);
}
