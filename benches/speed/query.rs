//! The query language and sorting on a million callbacks, beside the same on a
//! thousand: each keystroke of a query typed into a view's `/` (the view's count and
//! page read again under the query as typed so far), and sorting a view by each of its
//! columns then paging down by key (the review lists: every callback stays in ledger
//! order).

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use jobledger::clock::Clock;
use jobledger::console::model::List;
use jobledger::console::{Action, App, Move, Tab, update};
use jobledger::demo;
use jobledger::store::{Ledger, Location, OpenMode};

use super::measure::{median, ratio, show, slowest};
use super::{Config, Figure};

/// The queries typed, and where.
const QUERIES: [(Tab, &str); 3] = [
    (
        Tab::Held,
        "reason:possible_duplicate_effect -answered:yes gap>1m",
    ),
    (Tab::Callbacks, "job:job-00123 outcome:success"),
    (Tab::Callbacks, "-disposition:apply age>2h"),
];

/// The console on `ledger` (a file or a server's database), 160x48, showing `tab`.
fn open(ledger: &Location, tab: Tab) -> Result<App> {
    let mut app = App::new(
        Ledger::open_at(ledger, OpenMode::ReadWrite)?,
        Clock::Fixed(demo::demo_now()),
        "bench".to_owned(),
        false,
    )?;
    update(
        &mut app,
        Action::Resize {
            width: 160,
            height: 48,
        },
    );
    update(&mut app, Action::ShowTab(tab));
    Ok(app)
}

/// Typing `query` into `tab`'s filter: the time the input thread spends on each
/// keystroke (and on Enter), and the time until the search of the query typed so far
/// is on screen (Enter searches at once; a view this large searches on a pause, not at
/// every key, and on another thread).
fn keystrokes(ledger: &Path, tab: Tab, query: &str) -> Result<(Vec<Duration>, Vec<Duration>)> {
    let mut app = open(&Location::File(ledger.to_owned()), tab)?;
    let mut keys = Vec::new();
    let mut searches = Vec::new();
    for c in query.chars() {
        update(&mut app, Action::Filter);
        let started = Instant::now();
        update(&mut app, Action::Input(c));
        keys.push(started.elapsed());
        // Enter: what the input thread spends (a large view hands the search to
        // another thread), then the time until the search's page is back.
        let started = Instant::now();
        update(&mut app, Action::Submit);
        keys.push(started.elapsed());
        while app.searching() {
            std::thread::sleep(Duration::from_micros(200));
            update(&mut app, Action::Tick);
        }
        searches.push(started.elapsed());
    }
    if let Some(flash) = app.flash().filter(|f| f.error) {
        bail!("typing {query:?} said: {}", flash.text);
    }
    Ok((keys, searches))
}

/// The time of each `s` (the first page in the next order), then of each page down
/// of `pages` in the last order but one (reason is the last; gap the first).
fn sorting(ledger: &Path, tab: Tab, pages: usize) -> Result<(Vec<Duration>, Vec<Duration>)> {
    let mut app = open(&Location::File(ledger.to_owned()), tab)?;
    let mut sorts = Vec::new();
    let started = Instant::now();
    update(&mut app, Action::SortNext); // gap
    sorts.push(started.elapsed());
    let mut paging = Vec::new();
    for _ in 0..pages {
        let started = Instant::now();
        update(&mut app, Action::Move(Move::PageDown));
        paging.push(started.elapsed());
    }
    for _ in 0..3 {
        let started = Instant::now();
        update(&mut app, Action::SortNext); // arrival, timeout, reason
        sorts.push(started.elapsed());
    }
    let started = Instant::now();
    update(&mut app, Action::SortReverse);
    sorts.push(started.elapsed());
    if let Some(flash) = app.flash().filter(|f| f.error) {
        bail!("sorting said: {}", flash.text);
    }
    Ok((sorts, paging))
}

/// The search table's queries: selective ids, substrings, bare words, negations,
/// comparisons and combinations, each typed into Held and into All callbacks (on
/// SQLite files here, and on a server beside a file in the PostgreSQL part).
pub const SEARCHES: [&str; 12] = [
    "job:0012345",
    "job:12345",
    "delivery:d-4242",
    "123456",
    "staff",
    "reason:duplicate",
    "outcome:failure",
    "-answered:yes",
    "gap>1h",
    "job:00123 outcome:success",
    "-disposition:apply 9876",
    "by:staff gap>5m",
];

/// What a search put on screen: its count, the rows on the page and the row
/// selected, to hold two engines' answers to the same query side by side.
#[derive(Debug, PartialEq, Eq)]
pub struct Shown {
    pub matching: Option<i64>,
    pub rows: usize,
    pub selected: Option<i64>,
}

/// The last key of a search to its rows on screen and to their count.
pub struct KeyToRows {
    pub rows: Duration,
    pub counted: Duration,
    pub shown: Shown,
}

/// Typing `query` into `tab`'s filter on `ledger`, all but its last key first (their
/// searches left to end), then the last key: the time from that key until the rows
/// are on screen, as the console's loop takes them from the search (or at once, in a
/// view small enough to be searched in place), and until their count is.
pub fn last_key_to_rows(ledger: &Location, tab: Tab, query: &str) -> Result<KeyToRows> {
    let mut app = open(ledger, tab)?;
    update(&mut app, Action::Filter);
    let mut chars: Vec<char> = query.chars().collect();
    let last = chars.pop().unwrap_or(' ');
    for c in chars {
        update(&mut app, Action::Input(c));
    }
    while app.searching() {
        std::thread::sleep(Duration::from_micros(200));
        update(&mut app, Action::Searched);
    }
    let started = Instant::now();
    update(&mut app, Action::Input(last));
    while app.search_rows_pending() {
        std::thread::sleep(Duration::from_micros(100));
        update(&mut app, Action::Searched);
    }
    let rows = started.elapsed();
    while app.searching() {
        std::thread::sleep(Duration::from_micros(100));
        update(&mut app, Action::Searched);
    }
    let counted = started.elapsed();
    if let Some(flash) = app.flash().filter(|f| f.error) {
        bail!("typing {query:?} said: {}", flash.text);
    }
    let list = app.model().list();
    let shown = Shown {
        matching: list.and_then(|list| list.count().matching),
        rows: list.map_or(0, List::rows_on_page),
        selected: list.and_then(List::callback).map(|row| row.seq),
    };
    Ok(KeyToRows {
        rows,
        counted,
        shown,
    })
}

/// The search table: for each query in Held and in All callbacks, the last key to
/// its rows at a million jobs (median and slowest of the repetitions) beside the same
/// on ten thousand, and the growth.
pub fn search_table(
    config: &Config,
    small: &Path,
    big: &Path,
    figures: &mut Vec<Figure>,
) -> Result<()> {
    super::data::warm(small)?;
    super::data::warm(big)?;
    let (small, big) = (
        Location::File(small.to_owned()),
        Location::File(big.to_owned()),
    );
    let frame = Duration::from_millis(16);
    for tab in [Tab::Held, Tab::Callbacks] {
        for query in SEARCHES {
            eprintln!("search: {query:?} in {}", tab.title());
            let (mut ours, mut ours_counted) = (Vec::new(), Vec::new());
            let (mut base, mut base_counted) = (Vec::new(), Vec::new());
            for _ in 0..config.reps {
                let on_small = last_key_to_rows(&small, tab, query)?;
                base.push(on_small.rows);
                base_counted.push(on_small.counted);
                let on_big = last_key_to_rows(&big, tab, query)?;
                ours.push(on_big.rows);
                ours_counted.push(on_big.counted);
            }
            let (worst, base_worst) = (slowest(&ours), slowest(&base));
            let growth = ratio(median(ours.clone()), median(base.clone()));
            figures.push(Figure {
                what: format!(
                    "search: `{query}` in {}, last key to rows, 1M jobs: median / slowest of {} \
                     (then to the count, median)",
                    tab.title(),
                    config.reps
                ),
                ours: format!(
                    "{} / {} ({})",
                    show(median(ours)),
                    show(worst),
                    show(median(ours_counted))
                ),
                baseline: format!(
                    "{} / {} ({}) (10k jobs)",
                    show(median(base)),
                    show(base_worst),
                    show(median(base_counted))
                ),
                ratio: Some(growth),
                target: "< 16 ms, growth <= 3x".to_owned(),
                met: Some(worst < frame && growth <= 3.0),
            });
        }
    }
    Ok(())
}

/// Adds the filter and sort figures.
pub fn run(config: &Config, small: &Path, big: &Path, figures: &mut Vec<Figure>) -> Result<()> {
    super::data::warm(small)?;
    super::data::warm(big)?;
    let under_100_ms = |t: Duration| Some(t < Duration::from_millis(100));
    for (tab, query) in QUERIES {
        eprintln!("query: typing {query:?} into {}", tab.title());
        let (base_keys, base) = keystrokes(small, tab, query)?;
        let (keys, ours) = keystrokes(big, tab, query)?;
        let worst = slowest(&ours);
        figures.push(Figure {
            what: format!(
                "filter: typing `{query}` in {}, 1M callbacks: a keystroke (slowest) / the search after Enter (median / slowest)",
                tab.title()
            ),
            ours: format!(
                "{} / {} / {}",
                show(slowest(&keys)),
                show(median(ours)),
                show(worst)
            ),
            baseline: format!(
                "{} / {} / {} (1k callbacks, searched at every key)",
                show(slowest(&base_keys)),
                show(median(base.clone())),
                show(slowest(&base))
            ),
            // The search of a million rows beside the same key searched at once on a
            // thousand: what a pause costs against what a small list costs a key.
            ratio: Some(ratio(worst, slowest(&base_keys))),
            target: "< 100 ms a keystroke".to_owned(),
            met: under_100_ms(slowest(&keys)),
        });
    }
    let pages = if config.quick { 3 } else { 200 };
    for tab in [Tab::Held, Tab::Quarantined] {
        eprintln!("query: sorting {}", tab.title());
        let (base_sorts, base_pages) = sorting(small, tab, pages.min(5))?;
        let (sorts, paging) = sorting(big, tab, pages)?;
        figures.push(Figure {
            what: format!(
                "sort: `s`/`S` in {} (first page in the new order), 1M callbacks: slowest of 5",
                tab.title()
            ),
            ours: show(slowest(&sorts)),
            baseline: format!("{} (1k callbacks)", show(slowest(&base_sorts))),
            ratio: Some(ratio(slowest(&sorts), slowest(&base_sorts))),
            target: "< 100 ms".to_owned(),
            met: under_100_ms(slowest(&sorts)),
        });
        figures.push(Figure {
            what: format!(
                "sort: page down sorted by gap in {} ({pages} pages), 1M callbacks: median / slowest",
                tab.title()
            ),
            ours: format!("{} / {}", show(median(paging.clone())), show(slowest(&paging))),
            baseline: format!(
                "{} / {} (1k callbacks)",
                show(median(base_pages.clone())),
                show(slowest(&base_pages))
            ),
            ratio: Some(ratio(slowest(&paging), slowest(&base_pages))),
            target: "< 100 ms a page".to_owned(),
            met: under_100_ms(slowest(&paging)),
        });
    }
    Ok(())
}
