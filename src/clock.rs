//! Time in the ledger: one representation, injected by the caller.
//!
//! Every time is stored as UTC text of one fixed width
//! (`2026-11-27T13:02:01.000Z`), so it reads plainly in the `sqlite3` shell and
//! sorts correctly as text. Nothing reads the wall clock except [`Clock::System`].

use std::fmt;

use chrono::{DateTime, SecondsFormat, TimeZone, Utc};

/// A point in time, in UTC, with millisecond precision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(DateTime<Utc>);

impl Timestamp {
    /// Parses RFC 3339 text (any offset), normalised to UTC and truncated to milliseconds.
    ///
    /// A time whose UTC form falls outside the years 0000 to 9999 is refused: the
    /// ledger's fixed-width text could not hold it (`9999-12-31T23:59:59-23:00` is
    /// in the year 10000 in UTC), and one such row would make every report fail.
    pub fn parse(text: &str) -> Option<Timestamp> {
        let parsed = DateTime::parse_from_rfc3339(text.trim()).ok()?;
        let at = Timestamp::from_utc(parsed.with_timezone(&Utc));
        (Timestamp::EARLIEST..=Timestamp::LATEST)
            .contains(&at)
            .then_some(at)
    }

    /// The earliest time the ledger's text form holds: `0000-01-01T00:00:00.000Z`.
    pub const EARLIEST: Timestamp = Timestamp(
        chrono::NaiveDate::from_ymd_opt(0, 1, 1)
            .expect("a valid date")
            .and_time(chrono::NaiveTime::MIN)
            .and_utc(),
    );

    /// The latest time the ledger's text form holds: `9999-12-31T23:59:59.999Z`.
    pub const LATEST: Timestamp = Timestamp(
        chrono::NaiveDate::from_ymd_opt(9999, 12, 31)
            .expect("a valid date")
            .and_hms_milli_opt(23, 59, 59, 999)
            .expect("a valid time")
            .and_utc(),
    );

    fn from_utc(at: DateTime<Utc>) -> Timestamp {
        let millis = at.timestamp_millis();
        Timestamp(Utc.timestamp_millis_opt(millis).single().unwrap_or(at))
    }

    /// Reads the stored form quickly (ledger reads are hot), falling back to RFC 3339.
    pub fn from_ledger_text(text: &str) -> Option<Timestamp> {
        let b = text.as_bytes();
        let fixed = b.len() == 24
            && b[4] == b'-'
            && b[7] == b'-'
            && b[10] == b'T'
            && b[13] == b':'
            && b[16] == b':'
            && b[19] == b'.'
            && b[23] == b'Z';
        if !fixed {
            return Timestamp::parse(text);
        }
        let num = |from: usize, to: usize| -> Option<u32> {
            b[from..to].iter().try_fold(0u32, |n, d| {
                d.is_ascii_digit().then(|| n * 10 + u32::from(d - b'0'))
            })
        };
        let date = chrono::NaiveDate::from_ymd_opt(
            i32::try_from(num(0, 4)?).ok()?,
            num(5, 7)?,
            num(8, 10)?,
        )?;
        let time = chrono::NaiveTime::from_hms_milli_opt(
            num(11, 13)?,
            num(14, 16)?,
            num(17, 19)?,
            num(20, 23)?,
        )?;
        Some(Timestamp(date.and_time(time).and_utc()))
    }

    /// Milliseconds since the Unix epoch.
    pub fn millis(self) -> i64 {
        self.0.timestamp_millis()
    }

    /// The instant `millis` after the Unix epoch, if the ledger can hold it.
    pub fn from_millis(millis: i64) -> Option<Timestamp> {
        Utc.timestamp_millis_opt(millis)
            .single()
            .map(Timestamp)
            .filter(|at| (Timestamp::EARLIEST..=Timestamp::LATEST).contains(at))
    }

    /// This time moved by a number of seconds, saturating at the range the ledger
    /// holds: a `timeout_s` of `i64::MAX` from the stream means "never", not a panic.
    pub fn plus_seconds(self, seconds: i64) -> Timestamp {
        let limit = if seconds < 0 {
            Timestamp::EARLIEST
        } else {
            Timestamp::LATEST
        };
        chrono::TimeDelta::try_seconds(seconds)
            .and_then(|delta| self.0.checked_add_signed(delta))
            .map(Timestamp)
            .filter(|at| (Timestamp::EARLIEST..=Timestamp::LATEST).contains(at))
            .unwrap_or(limit)
    }

    /// Seconds from `earlier` to `self` (negative when `self` is earlier).
    pub fn seconds_since(self, earlier: Timestamp) -> i64 {
        (self.0 - earlier.0).num_seconds()
    }

    /// The stored form: fixed-width UTC text.
    ///
    /// Written digit by digit: every row of an ingest stores several times, and
    /// chrono's general RFC 3339 writer was a twentieth of ingest time.
    pub fn to_ledger_text(self) -> String {
        match self.fixed_ledger_text() {
            Some(text) => String::from_utf8_lossy(&text).into_owned(),
            // Outside what the ledger holds, or a leap second: the general writer.
            None => self.0.to_rfc3339_opts(SecondsFormat::Millis, true),
        }
    }

    /// The ledger text without allocating, for times of years 0 to 9999 (all but
    /// hostile input) and no leap second.
    fn fixed_ledger_text(self) -> Option<[u8; 24]> {
        use chrono::{Datelike, Timelike};
        let (date, time) = (self.0.date_naive(), self.0.time());
        let year = u32::try_from(date.year()).ok().filter(|y| *y <= 9999)?;
        let nanos = time.nanosecond();
        if nanos >= 1_000_000_000 {
            return None;
        }
        let mut text = *b"0000-00-00T00:00:00.000Z";
        let mut put = |at: usize, width: usize, mut n: u32| {
            for digit in text[at..at + width].iter_mut().rev() {
                *digit = b'0' + u8::try_from(n % 10).unwrap_or(0);
                n /= 10;
            }
        };
        put(0, 4, year);
        put(5, 2, date.month());
        put(8, 2, date.day());
        put(11, 2, time.hour());
        put(14, 2, time.minute());
        put(17, 2, time.second());
        put(20, 3, nanos / 1_000_000);
        Some(text)
    }

    /// A short human form for tables: `2026-11-27 13:02:01`.
    pub fn short(self) -> String {
        self.0.format("%Y-%m-%d %H:%M:%S").to_string()
    }

    /// The one form a person reads a time in: month, day and time of day when it falls
    /// in the year of `now` (`11-27 13:02:01`), the year first when it does not
    /// (`2027-02-27 00:00:00`), so a date is never read in the wrong year. `now` is the
    /// clock the program runs by (fixed in tests), never the wall clock behind it.
    /// The console's status line says once that times are UTC.
    pub fn readable(self, now: Timestamp) -> String {
        use chrono::Datelike;
        let form = if self.0.year() == now.0.year() {
            "%m-%d %H:%M:%S"
        } else {
            "%Y-%m-%d %H:%M:%S"
        };
        self.0.format(form).to_string()
    }

    /// The start of the window of `width_s` seconds that holds this time.
    pub fn window_start(self, width_s: i64) -> Timestamp {
        let width_ms = width_s.max(1) * 1000;
        let start = self.millis().div_euclid(width_ms) * width_ms;
        Timestamp::from_millis(start).unwrap_or(self)
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_ledger_text())
    }
}

impl serde::Serialize for Timestamp {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.fixed_ledger_text() {
            // Digits and punctuation only: always UTF-8.
            Some(text) => serializer.serialize_str(std::str::from_utf8(&text).unwrap_or_default()),
            None => serializer.serialize_str(&self.to_ledger_text()),
        }
    }
}

/// How the times inside a sentence are written: as the console writes them, for a
/// person reading now, or as a document read long after writes them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeForm {
    /// The year only when it is not the year of this clock reading
    /// ([`Timestamp::readable`]).
    Readable(Timestamp),
    /// Always the year ([`Timestamp::short`]): an exported document may be read in
    /// another year than the one it was written in.
    Dated,
}

impl TimeForm {
    /// `at` in this form.
    pub fn of(self, at: Timestamp) -> String {
        match self {
            TimeForm::Readable(now) => at.readable(now),
            TimeForm::Dated => at.short(),
        }
    }
}

/// A signed duration shown the way reviewers read gaps: `+4m12s`, `-30s`, `+2h05m`, `+3d04h`.
pub fn format_gap(seconds: i64) -> String {
    let sign = if seconds < 0 { '-' } else { '+' };
    let s = seconds.unsigned_abs();
    let (d, h, m, sec) = (s / 86_400, (s / 3600) % 24, (s / 60) % 60, s % 60);
    if d > 0 {
        format!("{sign}{d}d{h:02}h")
    } else if h > 0 {
        format!("{sign}{h}h{m:02}m")
    } else if m > 0 {
        format!("{sign}{m}m{sec:02}s")
    } else {
        format!("{sign}{sec}s")
    }
}

/// How long ago `then` was, seen at `now`, in the one unit that reads at a glance:
/// `just now`, `45 s ago`, `12 min ago`, `3 h ago`, `2 d ago`; a time after `now`
/// (a clock fixed in the past, or skew) reads `in 5 min`. The console shows it beside
/// arrivals and answers, where "how long has this waited" is the question.
pub fn relative_age(then: Timestamp, now: Timestamp) -> String {
    let seconds = now.seconds_since(then);
    let s = seconds.unsigned_abs();
    let amount = match s {
        0..=4 => return "just now".to_owned(),
        5..=59 => format!("{s} s"),
        60..=3599 => format!("{} min", s / 60),
        3600..=86_399 => format!("{} h", s / 3600),
        _ => format!("{} d", s / 86_400),
    };
    if seconds < 0 {
        format!("in {amount}")
    } else {
        format!("{amount} ago")
    }
}

/// Parses a window or duration such as `15m`, `1h`, `1d`, `90s` into seconds.
pub fn parse_duration(text: &str) -> Option<i64> {
    let text = text.trim();
    let split = text.find(|c: char| !c.is_ascii_digit())?;
    let (number, unit) = text.split_at(split);
    let n: i64 = number.parse().ok()?;
    let scale = match unit {
        "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86_400,
        _ => return None,
    };
    let seconds = n.checked_mul(scale)?;
    (seconds > 0).then_some(seconds)
}

/// Where "now" comes from: the system clock, or a fixed time (`--now`, tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Clock {
    System,
    Fixed(Timestamp),
}

impl Clock {
    /// The current time by this clock.
    pub fn now(self) -> Timestamp {
        match self {
            Clock::System => Timestamp::from_utc(Utc::now()),
            Clock::Fixed(at) => at,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ledger_text_is_what_chrono_writes_across_the_whole_range() {
        let chrono_text = |at: Timestamp| at.0.to_rfc3339_opts(SecondsFormat::Millis, true);
        let last = Timestamp::LATEST.millis();
        // Strides that are no whole number of days, hours or seconds, so that every
        // field's digits come round: ~1000 days over the whole range, ~1 hour over a
        // year, plus both ends.
        for (from, stride) in [
            (Timestamp::EARLIEST.millis(), 86_425_997_123),
            (
                Timestamp::parse("2026-01-01T00:00:00Z").unwrap().millis(),
                3_661_001,
            ),
        ] {
            let mut at = from;
            for _ in 0..10_000 {
                if at > last {
                    break;
                }
                let t = Timestamp::from_millis(at).unwrap();
                assert_eq!(t.to_ledger_text(), chrono_text(t));
                at += stride;
            }
        }
        for t in [
            Timestamp::EARLIEST,
            Timestamp::LATEST,
            Timestamp::from_millis(0).unwrap(),
        ] {
            assert_eq!(t.to_ledger_text(), chrono_text(t));
        }
    }

    #[test]
    fn ledger_text_is_fixed_width_utc() {
        let at = Timestamp::parse("2026-11-27T15:02:01+02:00").unwrap();
        assert_eq!(at.to_ledger_text(), "2026-11-27T13:02:01.000Z");
        let fine = Timestamp::parse("2026-11-27T13:02:01.123456Z").unwrap();
        assert_eq!(fine.to_ledger_text(), "2026-11-27T13:02:01.123Z");
    }

    #[test]
    fn stored_form_reads_back_exactly() {
        for text in [
            "2026-11-27T13:02:01.123Z",
            "1999-01-01T00:00:00.000Z",
            "2026-11-27T15:02:01+02:00",
        ] {
            let at = Timestamp::parse(text).unwrap();
            assert_eq!(Timestamp::from_ledger_text(&at.to_ledger_text()), Some(at));
            assert_eq!(Timestamp::from_ledger_text(text), Some(at));
        }
        assert_eq!(
            Timestamp::from_ledger_text("2026-13-27T13:02:01.123Z"),
            None
        );
    }

    #[test]
    fn rejects_times_that_are_not_rfc3339() {
        for bad in [
            "",
            "yesterday",
            "2026-11-27",
            "1764248521",
            "2026-13-01T00:00:00Z",
        ] {
            assert!(Timestamp::parse(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn a_time_shows_its_year_when_it_is_not_the_current_one() {
        let now = Timestamp::parse("2026-11-27T17:00:00Z").unwrap();
        let at = |text: &str| Timestamp::parse(text).unwrap().readable(now);
        assert_eq!(at("2026-11-27T13:02:01Z"), "11-27 13:02:01");
        assert_eq!(at("2026-01-01T00:00:00Z"), "01-01 00:00:00");
        assert_eq!(at("2027-02-27T00:00:00Z"), "2027-02-27 00:00:00");
        assert_eq!(at("2025-12-31T23:59:59Z"), "2025-12-31 23:59:59");
    }

    #[test]
    fn gaps_read_like_a_reviewer_writes_them() {
        assert_eq!(format_gap(252), "+4m12s");
        assert_eq!(format_gap(-30), "-30s");
        assert_eq!(format_gap(7500), "+2h05m");
        assert_eq!(format_gap(273_600), "+3d04h");
    }

    #[test]
    fn relative_ages_take_the_largest_whole_unit() {
        let now = Timestamp::parse("2026-11-27T17:00:00Z").expect("time");
        let ago = |s: i64| relative_age(now.plus_seconds(-s), now);
        assert_eq!(ago(0), "just now");
        assert_eq!(ago(4), "just now");
        assert_eq!(ago(5), "5 s ago");
        assert_eq!(ago(59), "59 s ago");
        assert_eq!(ago(60), "1 min ago");
        assert_eq!(ago(3599), "59 min ago");
        assert_eq!(ago(3600), "1 h ago");
        assert_eq!(ago(3 * 3600 + 43 * 60), "3 h ago");
        assert_eq!(ago(86_399), "23 h ago");
        assert_eq!(ago(86_400), "1 d ago");
        assert_eq!(ago(9 * 86_400), "9 d ago");
        assert_eq!(ago(-300), "in 5 min");
    }

    #[test]
    fn durations_parse_with_units() {
        assert_eq!(parse_duration("15m"), Some(900));
        assert_eq!(parse_duration("1h"), Some(3600));
        assert_eq!(parse_duration("1d"), Some(86_400));
        assert_eq!(parse_duration("1x"), None);
        assert_eq!(parse_duration("0h"), None);
        assert_eq!(parse_duration("h"), None);
    }

    #[test]
    fn windows_align_to_their_width() {
        let at = Timestamp::parse("2026-11-27T13:47:10Z").unwrap();
        assert_eq!(
            at.window_start(900).to_ledger_text(),
            "2026-11-27T13:45:00.000Z"
        );
        assert_eq!(
            at.window_start(3600).to_ledger_text(),
            "2026-11-27T13:00:00.000Z"
        );
    }
}
