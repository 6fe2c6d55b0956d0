//! One page of a view's rows, read by keyset: exactly the rows that fit on screen.
//!
//! A page never holds more than the list area shows, so drawing costs the same at the
//! first row and the millionth. Moving past its edge reads the next row (or page) by
//! key; a refresh re-reads the page from its first key and finds the selected row again
//! by key, not by index, so rows arriving underneath never move the selection.

use crate::filter::{self, FilterError, Sort};
use crate::store::{Keyset, PageRequest, StoreError};

use super::counts::Count;
use crate::console::action::Move;

pub use super::rows::{
    CallbackItem, CallbackList, FailedItem, PageRow, Query, RAW_HEAD_BYTES, RowSource, RowsRead,
};

/// The page a view holds, its filter and its selection.
#[derive(Clone)]
pub struct Page<T: PageRow> {
    /// Which list the page reads.
    pub source: T::Source,
    /// The view's filter as typed, kept while other views are shown.
    pub filter: Option<String>,
    /// The last query typed that parsed: the rows shown are the rows it keeps.
    pub query: filter::Query,
    /// Why the filter as typed is not a query (yet): the rows held are then those of
    /// an earlier text, and must not be shown as if they matched this one.
    pub invalid: Option<FilterError>,
    /// The order of the rows.
    pub sort: Sort,
    /// The rows on screen, no more.
    pub rows: Vec<T>,
    /// The selected row's index in `rows`.
    pub selected: usize,
    /// Rows before the first one shown.
    pub more_before: bool,
    /// Rows after the last one shown.
    pub more_after: bool,
    /// How many rows the list holds, and how many match its filter.
    pub count: Count,
    /// Changes to the rows, the selection, the filter or the order made so far: a
    /// page read elsewhere from a copy goes back only over the revision it copied
    /// (else it would undo the keys pressed meanwhile).
    pub revision: u64,
}

/// What the reading of a page found beyond its edges: `Some(more)` when it knows
/// whether rows lie beyond that edge, `None` when it must be looked for.
#[derive(Default, Clone, Copy)]
struct Edges {
    before: Option<bool>,
    after: Option<bool>,
}

impl<T: PageRow> Page<T> {
    /// An empty page of the list `source`, read on the first refresh.
    pub fn new(source: T::Source) -> Self {
        Page {
            source,
            filter: None,
            query: filter::Query::all(T::SCOPE),
            invalid: None,
            sort: Sort::default(),
            rows: Vec::new(),
            selected: 0,
            more_before: false,
            more_after: false,
            count: Count::default(),
            revision: 0,
        }
    }

    /// The selected row, if the page has any.
    pub fn current(&self) -> Option<&T> {
        self.rows.get(self.selected)
    }

    /// The list the page reads, under its filter.
    pub fn query(&self) -> Query<'_, T::Source> {
        Query {
            list: self.source,
            filter: &self.query,
            sort: self.sort,
        }
    }

    /// Sets the filter to `text`, and the query to what it says when it parses (an
    /// empty text keeps every row). On an error the rows stay those of the last query
    /// that parsed.
    pub fn set_filter(&mut self, text: Option<String>, me: &str) -> Result<(), FilterError> {
        let parsed = filter::Query::parse_as(text.as_deref().unwrap_or(""), T::SCOPE, me);
        self.revision += 1;
        self.filter = text;
        self.invalid = parsed.as_ref().err().cloned();
        self.query = parsed?;
        Ok(())
    }

    /// Sets the filter's text alone, keeping the query (and so the rows) of the last
    /// text searched; whether the text is a query is known at once (parsing is cheap).
    pub fn set_filter_text(&mut self, text: Option<String>, me: &str) {
        self.invalid = filter::Query::parse_as(text.as_deref().unwrap_or(""), T::SCOPE, me).err();
        self.revision += 1;
        self.filter = text;
    }

    /// Orders the rows by `sort`, from the top of the list.
    pub fn set_sort(&mut self, sort: Sort) {
        self.sort = sort;
        self.revision += 1;
        // The keys of the rows held are keys of the old order.
        self.rows.clear();
        self.selected = 0;
    }

    fn fetch(&self, reader: &dyn RowSource, keyset: Keyset<T::Key>, limit: usize) -> RowsRead<T> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        T::fetch(reader, self.query(), PageRequest::at(keyset, limit))
    }

    /// Rows past the page's last row (`forward`) or before its first, at most `limit`
    /// (none when the page is empty).
    fn beyond(&self, reader: &dyn RowSource, forward: bool, limit: usize) -> RowsRead<T> {
        let edge = if forward {
            self.rows.last()
        } else {
            self.rows.first()
        };
        let Some(edge) = edge.map(PageRow::key) else {
            return Ok(Vec::new());
        };
        let keyset = if forward {
            Keyset::After(edge)
        } else {
            Keyset::Before(edge)
        };
        self.fetch(reader, keyset, limit)
    }

    /// Are there rows beyond either edge of the page?
    fn probe(&mut self, reader: &dyn RowSource) -> Result<(), StoreError> {
        self.probe_knowing(reader, Edges::default())
    }

    /// [`Page::probe`], where the reading of the page already told what lies beyond
    /// one edge or both: those are not looked for again.
    fn probe_knowing(&mut self, reader: &dyn RowSource, edges: Edges) -> Result<(), StoreError> {
        // The page holds every row the count knows of: nothing beyond it to look for
        // (under a query that keeps few of a million rows, each look read them all).
        // A count still being made is the previous filter's: it says nothing here.
        let known = self.count.matching.unwrap_or(self.count.all);
        if !self.count.counting && usize::try_from(known).is_ok_and(|n| n <= self.rows.len()) {
            self.more_before = false;
            self.more_after = false;
            return Ok(());
        }
        self.more_before = match edges.before {
            Some(more) => more,
            None => !self.beyond(reader, false, 1)?.is_empty(),
        };
        self.more_after = match edges.after {
            Some(more) => more,
            None => !self.beyond(reader, true, 1)?.is_empty(),
        };
        Ok(())
    }

    /// Re-reads the page in place (after a change to the ledger, the filter or the
    /// screen), keeping the selection on the same row when it is still listed.
    pub fn reload(&mut self, reader: &dyn RowSource, height: usize) -> Result<(), StoreError> {
        let height = height.max(1);
        self.revision += 1;
        let keep = self.current().map(PageRow::key);
        // Start so that the selected row stays on screen when the page got shorter.
        let start = (!self.rows.is_empty()).then(|| {
            let top = (self.selected + 1).saturating_sub(height);
            self.rows[top.min(self.rows.len() - 1)].key()
        });
        let mut rows = self.fetch(
            reader,
            start.clone().map_or(Keyset::First, Keyset::From),
            height,
        )?;
        // Fewer rows than asked: every row from the start on has been read. Under a
        // filter that keeps few of a million rows each read below walks the list, so
        // none is made twice over the same rows.
        let read_to_end = rows.len() < height;
        let mut known = Edges {
            // Read from the first row: nothing is above it.
            before: start.is_none().then_some(false),
            after: read_to_end.then_some(false),
        };
        if let Some(start) = start.as_ref().filter(|_| read_to_end) {
            // Fill the page from above, e.g. at the end of a list whose rows left it:
            // the rows before where the reading started (from the first row there are
            // none).
            let wanted = height - rows.len();
            let mut before = self.fetch(reader, Keyset::Before(start.clone()), wanted)?;
            if before.len() < wanted {
                known.before = Some(false);
            }
            before.append(&mut rows);
            rows = before;
        }
        if let Some(key) = keep
            .as_ref()
            .filter(|k| !read_to_end && !rows.iter().any(|r| r.key() == **k))
        {
            // Rows came back above the selected one (a filter widened): read the page
            // around it, so the cursor stays on its row while it still matches. (Read
            // to the end from a row above it, it was not found: it no longer matches.)
            let mut around = self.fetch(reader, Keyset::From(key.clone()), height)?;
            if around.first().is_some_and(|r| r.key() == *key) {
                let mut above = self.fetch(reader, Keyset::Before(key.clone()), self.selected)?;
                above.append(&mut around);
                above.truncate(height);
                rows = above;
                known = Edges::default();
            }
        }
        self.rows = rows;
        self.selected = keep
            .and_then(|k| self.rows.iter().position(|r| r.key() == k))
            .unwrap_or_else(|| self.selected.min(self.rows.len().saturating_sub(1)));
        self.probe_knowing(reader, known)
    }

    /// Selects the row of `key` with the rows around it: up to half a page above it
    /// (more at the end of the list, so the page is full); `false`, and the page as
    /// it was, when the list does not hold that row.
    pub fn select_key(
        &mut self,
        reader: &dyn RowSource,
        key: &T::Key,
        height: usize,
    ) -> Result<bool, StoreError> {
        let height = height.max(1);
        self.revision += 1;
        let mut below = self.fetch(reader, Keyset::From(key.clone()), height)?;
        if below.first().map(PageRow::key).as_ref() != Some(key) {
            return Ok(false);
        }
        let wanted_above = (height - below.len()).max((height - 1) / 2);
        let mut rows = self.fetch(reader, Keyset::Before(key.clone()), wanted_above)?;
        let selected = rows.len();
        rows.append(&mut below);
        rows.truncate(height);
        self.rows = rows;
        self.selected = selected;
        self.probe(reader)?;
        Ok(true)
    }

    /// Moves the selection, reading beyond the page's edge when needed.
    pub fn step(
        &mut self,
        reader: &dyn RowSource,
        height: usize,
        movement: Move,
    ) -> Result<(), StoreError> {
        let height = height.max(1);
        self.revision += 1;
        let last = self.rows.len().saturating_sub(1);
        match movement {
            Move::Down if self.selected < last => self.selected += 1,
            Move::Up if self.selected > 0 => self.selected -= 1,
            Move::Down => {
                let mut next = self.beyond(reader, true, 1)?;
                if next.is_empty() {
                    return Ok(());
                }
                self.rows.append(&mut next);
                if self.rows.len() > height {
                    let excess = self.rows.len() - height;
                    self.rows.drain(..excess);
                }
                self.selected = self.rows.len() - 1;
            }
            Move::Up => {
                let mut rows = self.beyond(reader, false, 1)?;
                if rows.is_empty() {
                    return Ok(());
                }
                rows.append(&mut self.rows);
                rows.truncate(height);
                self.rows = rows;
                self.selected = 0;
            }
            Move::PageDown | Move::PageUp => {
                let forward = movement == Move::PageDown;
                let page = self.beyond(reader, forward, height)?;
                if page.is_empty() {
                    self.selected = if forward { last } else { 0 };
                    return Ok(());
                }
                self.rows = if page.len() < height {
                    // Short of a page: the list's last (or first) page instead.
                    let end = if forward { Keyset::Last } else { Keyset::First };
                    self.fetch(reader, end, height)?
                } else {
                    page
                };
                self.selected = self.selected.min(self.rows.len().saturating_sub(1));
            }
            Move::Home => {
                self.rows = self.fetch(reader, Keyset::First, height)?;
                self.selected = 0;
            }
            Move::End => {
                self.rows = self.fetch(reader, Keyset::Last, height)?;
                self.selected = self.rows.len().saturating_sub(1);
            }
        }
        self.probe(reader)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::{Cell, RefCell};

    use super::*;
    use crate::console::model::lists::List;
    use crate::console::model::rows::{CallbackItem, CallbackList, FailedItem};
    use crate::decision::RejectionCode;
    use crate::store::{
        AgedJobRow, CallbackKey, Finding, FindingJob, JobKey, OutboxRow, RejectedLine,
    };

    /// A list of lines `0..len` of which a filter keeps those `kept` says, read as the
    /// store reads it (by keyset, walking the list from the key): it counts the lines
    /// each read walks past, which is what a read costs under a filter an index cannot
    /// serve.
    struct Lines {
        len: i64,
        kept: fn(i64) -> bool,
        walked: Cell<i64>,
        reads: RefCell<Vec<String>>,
    }

    impl Lines {
        fn new(len: i64, kept: fn(i64) -> bool) -> Self {
            Lines {
                len,
                kept,
                walked: Cell::new(0),
                reads: RefCell::new(Vec::new()),
            }
        }

        fn line(seq: i64) -> RejectedLine {
            RejectedLine {
                code: RejectionCode::Malformed,
                event: None,
                ingested_at: crate::clock::Timestamp::parse("2026-11-27T17:00:00Z")
                    .expect("a time"),
                seq,
                reason: String::new(),
            }
        }

        /// The kept lines from `from` towards `to` (exclusive), at most `limit`.
        fn walk(&self, from: i64, forward: bool, limit: usize) -> Vec<i64> {
            let mut found = Vec::new();
            let mut seq = from;
            while found.len() < limit && (0..self.len).contains(&seq) {
                self.walked.set(self.walked.get() + 1);
                if (self.kept)(seq) {
                    found.push(seq);
                }
                seq += if forward { 1 } else { -1 };
            }
            if !forward {
                found.reverse();
            }
            found
        }
    }

    impl RowSource for Lines {
        fn rejected(&self, _: Query<'_, ()>, page: PageRequest<i64>) -> RowsRead<RejectedLine> {
            self.reads.borrow_mut().push(format!("{:?}", page.keyset));
            let limit = page.limit;
            let seqs = match page.keyset {
                Keyset::First => self.walk(0, true, limit),
                Keyset::From(k) => self.walk(k, true, limit),
                Keyset::After(k) => self.walk(k + 1, true, limit),
                Keyset::Before(k) => self.walk(k - 1, false, limit),
                Keyset::Last => self.walk(self.len - 1, false, limit),
            };
            Ok(seqs.into_iter().map(Lines::line).collect())
        }

        fn count_rejected(&self, _: Query<'_, ()>) -> Result<Count, StoreError> {
            let matching = (0..self.len).filter(|s| (self.kept)(*s)).count();
            Ok(Count {
                all: self.len,
                matching: Some(i64::try_from(matching).expect("a count")),
                ..Count::default()
            })
        }

        fn callbacks(
            &self,
            _: Query<'_, CallbackList>,
            _: PageRequest<CallbackKey>,
        ) -> RowsRead<CallbackItem> {
            unreachable!("only rejected lines are listed here")
        }
        fn aged_jobs(&self, _: Query<'_, ()>, _: PageRequest<JobKey>) -> RowsRead<AgedJobRow> {
            unreachable!("only rejected lines are listed here")
        }
        fn failed_jobs(&self, _: Query<'_, ()>, _: PageRequest<JobKey>) -> RowsRead<FailedItem> {
            unreachable!("only rejected lines are listed here")
        }
        fn count_callbacks(&self, _: Query<'_, CallbackList>) -> Result<Count, StoreError> {
            unreachable!("only rejected lines are listed here")
        }
        fn count_aged_jobs(&self, _: Query<'_, ()>) -> Result<Count, StoreError> {
            unreachable!("only rejected lines are listed here")
        }
        fn count_failed_jobs(&self, _: Query<'_, ()>) -> Result<Count, StoreError> {
            unreachable!("only rejected lines are listed here")
        }
        fn outbox(&self, _: Query<'_, ()>, _: PageRequest<i64>) -> RowsRead<OutboxRow> {
            unreachable!("only rejected lines are listed here")
        }
        fn count_outbox(&self, _: Query<'_, ()>) -> Result<Count, StoreError> {
            unreachable!("only rejected lines are listed here")
        }
        fn finding_jobs(
            &self,
            _: Query<'_, Finding>,
            _: PageRequest<String>,
        ) -> RowsRead<FindingJob> {
            unreachable!("only rejected lines are listed here")
        }
        fn count_finding_jobs(&self, _: Query<'_, Finding>) -> Result<Count, StoreError> {
            unreachable!("only rejected lines are listed here")
        }
    }

    /// A page of every line, 10 tall, moved down to `selected`.
    fn page_at(selected: usize) -> Page<RejectedLine> {
        let every = Lines::new(1000, |_| true);
        let mut page = Page::new(());
        List::recount(&mut page, &every).expect("counted");
        page.reload(&every, 10).expect("read");
        for _ in 0..selected {
            page.step(&every, 10, Move::Down).expect("moved");
        }
        page
    }

    /// The page read again under a new filter (`lines`), its count still being made.
    fn searched(mut page: Page<RejectedLine>, lines: &Lines) -> Page<RejectedLine> {
        page.count.counting = true;
        lines.walked.set(0);
        page.reload(lines, 10).expect("read");
        page
    }

    fn seqs(page: &Page<RejectedLine>) -> Vec<i64> {
        page.rows.iter().map(|r| r.seq).collect()
    }

    #[test]
    fn a_filter_that_keeps_nothing_walks_the_list_once_not_three_times() {
        let none = Lines::new(1000, |_| false);
        let page = searched(page_at(40), &none);
        assert!(page.rows.is_empty());
        assert!(!page.more_before && !page.more_after);
        assert_eq!(none.walked.get(), 1000, "{:?}", none.reads.borrow());
    }

    #[test]
    fn a_filter_that_keeps_few_reads_each_line_once_and_knows_its_edges() {
        // Lines 3, 203, 403, 603 and 803: the page holds them all.
        let few = Lines::new(1000, |s| s % 200 == 3);
        let page = searched(page_at(40), &few);
        assert_eq!(seqs(&page), vec![3, 203, 403, 603, 803]);
        assert!(!page.more_before && !page.more_after);
        assert_eq!(few.walked.get(), 1000, "{:?}", few.reads.borrow());
        // From the top, the same.
        let page = searched(Page::new(()), &few);
        assert_eq!(seqs(&page), vec![3, 203, 403, 603, 803]);
        assert!(!page.more_before && !page.more_after);
        assert_eq!(few.walked.get(), 1000, "{:?}", few.reads.borrow());
    }

    #[test]
    fn a_reload_under_any_filter_reads_the_rows_and_edges_a_full_reading_finds() {
        let filters: [fn(i64) -> bool; 5] = [
            |_| true,
            |s| s % 7 == 0,
            |s| s > 980,
            |s| s < 15,
            |s| (30..45).contains(&s),
        ];
        for kept in filters {
            for selected in [0, 5, 9, 35, 300] {
                let lines = Lines::new(1000, kept);
                let page = searched(page_at(selected), &lines);
                let all: Vec<i64> = (0..1000).filter(|s| kept(*s)).collect();
                let shown = seqs(&page);
                let first = all.iter().position(|s| Some(s) == shown.first());
                // The rows are consecutive kept lines, a full page when there are
                // enough, and the edges say truly whether more lie beyond.
                match first {
                    Some(at) => {
                        assert_eq!(shown, all[at..(at + shown.len())], "{selected}");
                        assert_eq!(shown.len(), all.len().min(10), "{selected}");
                        assert_eq!(page.more_before, at > 0, "{selected}: {shown:?}");
                        assert_eq!(
                            page.more_after,
                            at + shown.len() < all.len(),
                            "{selected}: {shown:?}"
                        );
                    }
                    None => assert!(all.is_empty() && shown.is_empty()),
                }
            }
        }
    }
}
