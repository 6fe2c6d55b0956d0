//! A time axis drawn to scale: which column of a strip `width` cells wide stands for
//! a time, so bars and marks placed by it show gaps as distances. Pure arithmetic,
//! no drawing: the comparison pane places its bars and marks with it.

use crate::clock::Timestamp;

/// Steps a tick may be apart, in seconds: round numbers a person reads at a glance.
const TICK_STEPS_S: [i64; 16] = [
    1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 21_600, 86_400,
];

/// A strip of `width` cells standing for the times `start..=end`, linearly.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Axis {
    start_ms: i64,
    end_ms: i64,
    width: u16,
}

impl Axis {
    /// The axis over the earliest to the latest of `times`, with a margin of a
    /// twentieth on either side so no mark sits on the edge (a single time gets a
    /// minute either side). `None` without times or cells.
    pub fn spanning(times: &[Timestamp], width: u16) -> Option<Axis> {
        let first = times.iter().map(|t| t.millis()).min()?;
        let last = times.iter().map(|t| t.millis()).max()?;
        if width == 0 {
            return None;
        }
        let margin = ((last - first) / 20).max(if last == first { 60_000 } else { 1 });
        Some(Axis {
            start_ms: first - margin,
            end_ms: last + margin,
            width,
        })
    }

    /// The column that stands for `at`, clamped to the strip (`0..width`).
    pub fn column(&self, at: Timestamp) -> u16 {
        let span = (self.end_ms - self.start_ms).max(1);
        let last = i64::from(self.width - 1);
        let offset = (at.millis() - self.start_ms).clamp(0, span);
        // Rounded to the nearest cell: `offset / span` of the way from 0 to `last`.
        let column = (offset * last + span / 2) / span;
        u16::try_from(column.clamp(0, last)).unwrap_or(self.width - 1)
    }

    /// The columns a bar from `from` to `to` covers, first and last (at least one cell).
    pub fn bar(&self, from: Timestamp, to: Timestamp) -> (u16, u16) {
        let (a, b) = (self.column(from), self.column(to));
        (a.min(b), a.max(b))
    }

    /// Seconds one cell stands for.
    pub fn seconds_per_cell(&self) -> f64 {
        #[allow(clippy::cast_precision_loss)] // a scale shown to a person
        let span = (self.end_ms - self.start_ms) as f64 / 1000.0;
        span / f64::from(self.width.max(1))
    }

    /// Round times to label, and their columns: the smallest round step that keeps
    /// labels at least `min_gap` cells apart, from the first multiple of it on.
    pub fn ticks(&self, min_gap: u16) -> Vec<(u16, Timestamp)> {
        let span_ms = (self.end_ms - self.start_ms).max(1);
        let cells = i64::from(self.width.max(1));
        let step_s = TICK_STEPS_S
            .into_iter()
            .find(|step| step * 1000 * cells >= span_ms * i64::from(min_gap))
            .unwrap_or(86_400);
        let step_ms = step_s * 1000;
        let mut at = self.start_ms.div_euclid(step_ms) * step_ms;
        if at < self.start_ms {
            at += step_ms;
        }
        let mut ticks = Vec::new();
        while at <= self.end_ms {
            if let Some(time) = Timestamp::from_millis(at) {
                ticks.push((self.column(time), time));
            }
            at += step_ms;
        }
        ticks
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Timestamp {
        Timestamp::parse(text).unwrap()
    }

    /// The worked example: attempt 1 from 13:10:01 to its timeout at 13:12:01, the
    /// replacement at 13:14:30, the held success at 13:16:45.
    fn example(width: u16) -> Axis {
        let times = [
            at("2026-11-27T13:10:01Z"),
            at("2026-11-27T13:12:01Z"),
            at("2026-11-27T13:14:30Z"),
            at("2026-11-27T13:16:45Z"),
        ];
        Axis::spanning(&times, width).unwrap()
    }

    #[test]
    fn the_earliest_and_latest_times_sit_inside_the_margins() {
        let axis = example(101);
        let first = axis.column(at("2026-11-27T13:10:01Z"));
        let last = axis.column(at("2026-11-27T13:16:45Z"));
        // A twentieth of the span either side: about 4.5 of 100 cells.
        assert_eq!((first, last), (5, 95));
        // Outside the span: clamped to the edges, never past them.
        assert_eq!(axis.column(at("2026-11-27T12:00:00Z")), 0);
        assert_eq!(axis.column(at("2026-11-27T15:00:00Z")), 100);
    }

    #[test]
    fn distances_are_to_scale() {
        let axis = example(201);
        let col = |t| i32::from(axis.column(at(t)));
        // The attempt's two minutes, the gap of 4m44s between timeout and arrival.
        let attempt = col("2026-11-27T13:12:01Z") - col("2026-11-27T13:10:01Z");
        let gap = col("2026-11-27T13:16:45Z") - col("2026-11-27T13:12:01Z");
        let ratio = f64::from(gap) / f64::from(attempt);
        assert!(
            (ratio - 284.0 / 120.0).abs() < 0.05,
            "{gap} / {attempt} = {ratio}"
        );
        // Later is never left of earlier.
        let mut previous = 0;
        for second in (0..404).step_by(7) {
            let column = axis.column(at("2026-11-27T13:10:01Z").plus_seconds(second));
            assert!(column >= previous);
            previous = column;
        }
    }

    #[test]
    fn a_bar_is_at_least_a_cell_and_keeps_its_order() {
        let axis = example(40);
        let start = at("2026-11-27T13:10:01Z");
        let end = at("2026-11-27T13:12:01Z");
        let (a, b) = axis.bar(start, end);
        assert!(a < b);
        assert_eq!(axis.bar(end, start), (a, b));
        let (c, d) = axis.bar(start, start);
        assert_eq!(c, d);
    }

    #[test]
    fn one_time_alone_gets_a_minute_either_side() {
        let t = at("2026-11-27T13:10:01Z");
        let axis = Axis::spanning(&[t, t], 61).unwrap();
        assert_eq!(axis.column(t), 30);
        assert!((axis.seconds_per_cell() - 120.0 / 61.0).abs() < 1e-9);
        assert_eq!(Axis::spanning(&[], 61), None);
        assert_eq!(Axis::spanning(&[t], 0), None);
    }

    #[test]
    fn ticks_are_round_times_at_least_the_gap_apart() {
        let axis = example(60);
        let ticks = axis.ticks(10);
        assert!(ticks.len() >= 3, "{ticks:?}");
        for pair in ticks.windows(2) {
            assert!(pair[1].0 - pair[0].0 >= 9, "{ticks:?}");
            let step = pair[1].1.seconds_since(pair[0].1);
            assert!(TICK_STEPS_S.contains(&step), "{step}");
        }
        // Whole minutes on a span of about seven minutes, sixty cells.
        assert!(
            ticks.iter().all(|(_, t)| t.millis() % 60_000 == 0),
            "{ticks:?}"
        );
    }
}
