//! The backlog as a picture: questions for people arriving against answers, per hour
//! over the last day, with the review capacity as a line, so an escalation owner sees
//! the trend at a glance instead of one hour's figure.

use ratatui::Frame;
use ratatui::layout::Rect;
use ratatui::style::{Color, Style, Stylize};
use ratatui::symbols::Marker;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Axis, Chart, Dataset, GraphType, Paragraph};

use crate::reconcile::ReviewHour;

/// Rows the chart needs to say anything: a title, a few rows of plot, the time axis.
pub(crate) const CHART_MIN_ROWS: u16 = 7;

/// The arrivals' colour, the answers' and the capacity's, the same in chart and key.
const ARRIVALS: Color = Color::LightRed;
const ANSWERS: Color = Color::Green;
const CAPACITY: Color = Color::Yellow;

/// How one line of the chart is drawn, and the mark the key shows for it.
struct Series {
    colour: Color,
    marker: Marker,
    mark: &'static str,
}

/// The arrivals', answers' and capacity's lines. In colour, the colours tell them
/// apart; without it, each is drawn in marks of its own (the arrivals a fine braille
/// line, drawn last and so on top; the answers dots; the capacity a bar), and the key
/// shows the same marks.
fn series(colours: bool) -> [Series; 3] {
    let line = |colour| Series {
        colour,
        marker: Marker::Braille,
        mark: "━",
    };
    if colours {
        return [line(ARRIVALS), line(ANSWERS), line(CAPACITY)];
    }
    [
        Series {
            colour: ARRIVALS,
            marker: Marker::Braille,
            mark: "⠒",
        },
        Series {
            colour: ANSWERS,
            marker: Marker::Dot,
            mark: "•",
        },
        Series {
            colour: CAPACITY,
            marker: Marker::Bar,
            mark: "▄",
        },
    ]
}

/// The key above the chart: what each line is, and the day's totals.
pub(crate) fn key(trend: &[ReviewHour], capacity: i64, colours: bool) -> Line<'static> {
    let arrived: i64 = trend.iter().map(|h| h.arrivals).sum();
    let answered: i64 = trend.iter().map(|h| h.answered).sum();
    let [arrivals, answers, cap] = series(colours);
    Line::from(vec![
        Span::raw("last 24 h, per hour (UTC): ").bold(),
        Span::raw(format!("{} {arrived} arrived for people", arrivals.mark)).fg(arrivals.colour),
        Span::raw("  "),
        Span::raw(format!("{} {answered} answered", answers.mark)).fg(answers.colour),
        Span::raw("  "),
        Span::raw(format!("{} capacity {capacity}/h", cap.mark)).fg(cap.colour),
    ])
}

/// A count as a place on the plot. A plot is a few hundred dots tall: what an `f64`
/// cannot hold exactly (past 2^52) could not be drawn differently anyway.
#[allow(clippy::cast_precision_loss)]
fn plot(n: i64) -> f64 {
    n as f64
}

/// Points of one series: x is the hour's place (0 the oldest), y its count.
fn points(trend: &[ReviewHour], count: impl Fn(&ReviewHour) -> i64) -> Vec<(f64, f64)> {
    trend
        .iter()
        .enumerate()
        .map(|(i, hour)| (plot(i64::try_from(i).unwrap_or(0)), plot(count(hour))))
        .collect()
}

/// The top of the plot: room above the highest count and the capacity line, so the
/// line is never drawn on the frame.
fn ceiling(trend: &[ReviewHour], capacity: i64) -> i64 {
    let highest = trend
        .iter()
        .map(|h| h.arrivals.max(h.answered))
        .max()
        .unwrap_or(0)
        .max(capacity)
        .max(1);
    // Rounded up to a figure a person reads at a glance.
    let step = match highest {
        0..=10 => 2,
        11..=50 => 10,
        51..=200 => 25,
        _ => 10_i64.pow(highest.ilog10() - 1) * 5,
    };
    (highest + step) / step * step
}

/// Draws the chart into `area` (at least [`CHART_MIN_ROWS`] tall); the key goes on
/// its first row. Without `colours`, marks tell the lines apart.
pub(crate) fn draw(
    frame: &mut Frame<'_>,
    area: Rect,
    trend: &[ReviewHour],
    capacity: i64,
    colours: bool,
) {
    let Some(first) = trend.first() else {
        return;
    };
    let [key_area, plot_area] = ratatui::layout::Layout::vertical([
        ratatui::layout::Constraint::Length(1),
        ratatui::layout::Constraint::Fill(1),
    ])
    .areas(area);
    frame.render_widget(Paragraph::new(key(trend, capacity, colours)), key_area);
    let arrivals = points(trend, |h| h.arrivals);
    let answered = points(trend, |h| h.answered);
    let last = plot(i64::try_from(trend.len().max(2) - 1).unwrap_or(1));
    let cap = plot(capacity);
    let capacity_line = [(0.0, cap), (last, cap)];
    let top = ceiling(trend, capacity);
    let start = first.start.short();
    let middle = trend
        .get(trend.len() / 2)
        .map(|h| h.start.short())
        .unwrap_or_default();
    let hour = |text: &str| text.get(11..16).unwrap_or_default().to_owned();
    let [arrivals_line, answers_line, capacity_series] = series(colours);
    let dataset = |series: &Series, data| {
        Dataset::default()
            .marker(series.marker)
            .graph_type(GraphType::Line)
            .style(Style::new().fg(series.colour))
            .data(data)
    };
    let datasets = vec![
        dataset(&capacity_series, &capacity_line),
        dataset(&answers_line, &answered),
        dataset(&arrivals_line, &arrivals),
    ];
    let chart = Chart::new(datasets)
        .legend_position(None)
        .x_axis(
            Axis::default()
                .bounds([0.0, last])
                .labels([hour(&start), hour(&middle), "now".to_owned()])
                .style(Style::new().dark_gray()),
        )
        .y_axis(
            Axis::default()
                .bounds([0.0, plot(top)])
                .labels(["0".to_owned(), (top / 2).to_string(), top.to_string()])
                .style(Style::new().dark_gray()),
        );
    frame.render_widget(chart, plot_area);
}

/// What the sparkline's hours above the capacity look like, in words.
pub(crate) fn above_capacity(colours: bool) -> &'static str {
    if colours { "red" } else { "underlined" }
}

/// The day's arrivals in one line of bars, for where a chart does not fit: the hours
/// above the capacity are drawn red, or underlined without `colours`.
pub(crate) fn sparkline(trend: &[ReviewHour], capacity: i64, colours: bool) -> Vec<Span<'static>> {
    const BARS: [char; 8] = ['▁', '▂', '▃', '▄', '▅', '▆', '▇', '█'];
    let top = trend
        .iter()
        .map(|h| h.arrivals)
        .max()
        .unwrap_or(0)
        .max(capacity)
        .max(1);
    trend
        .iter()
        .map(|h| {
            let level = usize::try_from(h.arrivals * 7 / top).unwrap_or(0).min(7);
            let bar = if h.arrivals == 0 { ' ' } else { BARS[level] };
            let span = Span::raw(bar.to_string());
            if h.arrivals > capacity && colours {
                span.fg(ARRIVALS)
            } else if h.arrivals > capacity {
                span.underlined()
            } else {
                span.dark_gray()
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::Timestamp;
    use ratatui::style::Modifier;

    fn hours(arrivals: &[i64]) -> Vec<ReviewHour> {
        let start = Timestamp::parse("2026-11-27T00:00:00Z").unwrap_or(Timestamp::EARLIEST);
        arrivals
            .iter()
            .enumerate()
            .map(|(i, &a)| ReviewHour {
                start: start.plus_seconds(3600 * i64::try_from(i).unwrap_or(0)),
                arrivals: a,
                answered: 0,
            })
            .collect()
    }

    #[test]
    fn the_plot_rises_above_the_highest_count_and_the_capacity() {
        assert_eq!(ceiling(&hours(&[0, 3, 1]), 0), 4);
        assert_eq!(ceiling(&hours(&[0, 3, 1]), 30), 40);
        assert_eq!(ceiling(&hours(&[120]), 30), 125);
        assert_eq!(ceiling(&hours(&[4_300]), 30), 4_500);
        assert!(ceiling(&[], 0) > 0);
    }

    #[test]
    fn the_sparkline_marks_hours_over_capacity_and_leaves_empty_hours_blank() {
        let line = sparkline(&hours(&[0, 10, 40]), 30, true);
        let text: String = line.iter().map(|s| s.content.as_ref()).collect();
        assert_eq!(text, " ▂█");
        assert_eq!(line[2].style.fg, Some(ARRIVALS));
        assert_ne!(line[1].style.fg, Some(ARRIVALS));
        // Without colour, underlined instead (and the text says so).
        let plain = sparkline(&hours(&[0, 10, 40]), 30, false);
        assert!(plain[2].style.add_modifier.contains(Modifier::UNDERLINED));
        assert!(!plain[1].style.add_modifier.contains(Modifier::UNDERLINED));
        assert_eq!(above_capacity(false), "underlined");
    }

    #[test]
    fn without_colour_the_key_tells_the_lines_apart_by_their_marks() {
        let marks = |colours| {
            let line = key(&hours(&[2, 5]), 30, colours);
            [1, 3, 5].map(|i| line.spans[i].content.chars().next().unwrap_or(' '))
        };
        let [a, b, c] = marks(false);
        assert!(a != b && b != c && a != c, "{a} {b} {c}");
        // In colour, one mark in three colours.
        let line = key(&hours(&[2, 5]), 30, true);
        let colours: Vec<_> = [1, 3, 5].iter().map(|&i| line.spans[i].style.fg).collect();
        assert!(colours[0] != colours[1] && colours[1] != colours[2]);
    }

    #[test]
    fn the_key_totals_the_day() {
        let mut trend = hours(&[2, 5]);
        trend[1].answered = 4;
        let text: String = key(&trend, 30, true)
            .spans
            .iter()
            .map(|s| s.content.as_ref())
            .collect();
        assert!(text.contains("7 arrived for people"), "{text}");
        assert!(text.contains("4 answered"), "{text}");
        assert!(text.contains("capacity 30/h"), "{text}");
    }
}
