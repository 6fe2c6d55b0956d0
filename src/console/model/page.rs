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
        self.filter = text;
        self.invalid = parsed.as_ref().err().cloned();
        self.query = parsed?;
        Ok(())
    }

    /// Sets the filter's text alone, keeping the query (and so the rows) of the last
    /// text searched; whether the text is a query is known at once (parsing is cheap).
    pub fn set_filter_text(&mut self, text: Option<String>, me: &str) {
        self.invalid = filter::Query::parse_as(text.as_deref().unwrap_or(""), T::SCOPE, me).err();
        self.filter = text;
    }

    /// Orders the rows by `sort`, from the top of the list.
    pub fn set_sort(&mut self, sort: Sort) {
        self.sort = sort;
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
        // The page holds every row the count knows of: nothing beyond it to look for
        // (under a query that keeps few of a million rows, each look read them all).
        // A count still being made is the previous filter's: it says nothing here.
        let known = self.count.matching.unwrap_or(self.count.all);
        if !self.count.counting && usize::try_from(known).is_ok_and(|n| n <= self.rows.len()) {
            self.more_before = false;
            self.more_after = false;
            return Ok(());
        }
        self.more_before = !self.beyond(reader, false, 1)?.is_empty();
        self.more_after = !self.beyond(reader, true, 1)?.is_empty();
        Ok(())
    }

    /// Re-reads the page in place (after a change to the ledger, the filter or the
    /// screen), keeping the selection on the same row when it is still listed.
    pub fn reload(&mut self, reader: &dyn RowSource, height: usize) -> Result<(), StoreError> {
        let height = height.max(1);
        let keep = self.current().map(PageRow::key);
        // Start so that the selected row stays on screen when the page got shorter.
        let start = if self.rows.is_empty() {
            Keyset::First
        } else {
            let top = (self.selected + 1).saturating_sub(height);
            Keyset::From(self.rows[top.min(self.rows.len() - 1)].key())
        };
        let mut rows = self.fetch(reader, start, height)?;
        if rows.len() < height {
            // Fill the page from above, e.g. at the end of a list whose rows left it.
            let above = match rows.first() {
                Some(first) => Keyset::Before(first.key()),
                None => Keyset::Last,
            };
            let mut before = self.fetch(reader, above, height - rows.len())?;
            before.append(&mut rows);
            rows = before;
        }
        if let Some(key) = keep
            .as_ref()
            .filter(|k| !rows.iter().any(|r| r.key() == **k))
        {
            // Rows came back above the selected one (a filter widened): read the page
            // around it, so the cursor stays on its row while it still matches.
            let mut around = self.fetch(reader, Keyset::From(key.clone()), height)?;
            if around.first().is_some_and(|r| r.key() == *key) {
                let mut above = self.fetch(reader, Keyset::Before(key.clone()), self.selected)?;
                above.append(&mut around);
                above.truncate(height);
                rows = above;
            }
        }
        self.rows = rows;
        self.selected = keep
            .and_then(|k| self.rows.iter().position(|r| r.key() == k))
            .unwrap_or_else(|| self.selected.min(self.rows.len().saturating_sub(1)));
        self.probe(reader)
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
