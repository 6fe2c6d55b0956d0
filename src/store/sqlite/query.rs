//! `SELECT` statements assembled from their parts, for the lists whose filters and
//! paging change from call to call.
//!
//! Each distinct statement text is prepared once and cached, so the parts must come
//! out the same for the same request; values are bound as parameters, except the
//! limit (see [`Select::limit`]).

use std::borrow::Cow;
use std::fmt::Write as _;

use rusqlite::Row;

use super::filter::{Condition, query_named};
use super::{Ledger, StoreError};
use crate::store::PageRequest;

type Part = Cow<'static, str>;

/// A `SELECT` being assembled: columns, the table (with an index to read it by),
/// joins, conditions (all must hold), order and limit.
#[derive(Debug, Clone)]
pub(super) struct Select {
    columns: Part,
    table: &'static str,
    indexed_by: Option<&'static str>,
    joins: Vec<&'static str>,
    conditions: Vec<Part>,
    order: Vec<Part>,
    limit: Option<i64>,
}

impl Select {
    /// `SELECT columns FROM table` (the table with its alias, as `"callbacks c"`).
    pub fn new(columns: impl Into<Part>, table: &'static str) -> Self {
        Select {
            columns: columns.into(),
            table,
            indexed_by: None,
            joins: Vec::new(),
            conditions: Vec::new(),
            order: Vec::new(),
            limit: None,
        }
    }

    /// Reads the table by this index: where the planner, without statistics, would
    /// take a worse one.
    pub fn indexed_by(mut self, index: &'static str) -> Self {
        self.indexed_by = Some(index);
        self
    }

    /// Adds a join clause, written whole (`"LEFT JOIN answers a ON ..."`).
    pub fn join(mut self, join: &'static str) -> Self {
        self.joins.push(join);
        self
    }

    /// Adds a condition every row must meet.
    pub fn filter(mut self, condition: impl Into<Part>) -> Self {
        self.conditions.push(condition.into());
        self
    }

    /// Adds a condition when `wanted`.
    pub fn filter_if(self, wanted: bool, condition: impl Into<Part>) -> Self {
        if wanted { self.filter(condition) } else { self }
    }

    /// Orders by these columns, each in `direction` (`"ASC"` or `"DESC"`).
    pub fn order_by(mut self, columns: &[&str], direction: &str) -> Self {
        self.order.extend(
            columns
                .iter()
                .map(|c| Cow::Owned(format!("{c} {direction}"))),
        );
        self
    }

    /// At most `limit` rows. Written into the statement: bound as a parameter, it
    /// made SQLite prepare the statement again on every page.
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = Some(i64::try_from(limit).unwrap_or(i64::MAX));
        self
    }

    /// The statement's text.
    pub fn sql(&self) -> String {
        let mut sql = format!("SELECT {} FROM {}", self.columns, self.table);
        if let Some(index) = self.indexed_by {
            sql.push_str(" INDEXED BY ");
            sql.push_str(index);
        }
        for join in &self.joins {
            sql.push(' ');
            sql.push_str(join);
        }
        push_list(&mut sql, " WHERE ", " AND ", &self.conditions);
        push_list(&mut sql, " ORDER BY ", ", ", &self.order);
        if let Some(limit) = self.limit {
            let _ = write!(sql, " LIMIT {limit}");
        }
        sql
    }
}

impl Ledger {
    /// One page of a list ordered by the unique `key` column alone (a sequence
    /// number, a row id, a job id): `select` names the list, `query` (with its values)
    /// the rows a filter keeps; the page's key is bound as `:key` (a name: a number could
    /// be the one SQLite gives the filter's first `:qN`).
    pub(super) fn seq_page<T, K: rusqlite::ToSql + Clone>(
        &self,
        select: Select,
        key: &str,
        query: &Condition,
        page: &PageRequest<K>,
        from_row: fn(&Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>, StoreError> {
        let keyset = &page.keyset;
        let select = match keyset.comparison() {
            Some(op) => select.filter(format!("{key} {op} :key")),
            None => select,
        };
        let select = match &query.sql {
            Some(sql) => select.filter(sql.clone()),
            None => select,
        };
        let sql = select
            .order_by(&[key], keyset.direction())
            .limit(page.limit)
            .sql();
        let bound = keyset.key().cloned();
        let mut rows: Vec<T> = self.run(|c| {
            let mut st = c.prepare_cached(&sql)?;
            let mut named: Vec<(&str, &dyn rusqlite::ToSql)> = vec![(":key", &bound)];
            named.extend(query.named());
            query_named(&mut st, &named, from_row)
        })?;
        if keyset.backwards() {
            rows.reverse();
        }
        Ok(rows)
    }

    /// How many rows `select` (a `count(*)`) counts under `query`.
    pub(super) fn count_matching(
        &self,
        select: Select,
        query: &Condition,
    ) -> Result<i64, StoreError> {
        let select = match &query.sql {
            Some(sql) => select.filter(sql.clone()),
            None => select,
        };
        let sql = select.sql();
        self.run(|c| {
            let mut st = c.prepare_cached(&sql)?;
            let named: Vec<(&str, &dyn rusqlite::ToSql)> = query.named().collect();
            Ok(query_named(&mut st, &named, |row| row.get(0))?
                .first()
                .copied()
                .unwrap_or(0))
        })
    }
}

fn push_list(sql: &mut String, head: &str, separator: &str, parts: &[Part]) {
    for (i, part) in parts.iter().enumerate() {
        sql.push_str(if i == 0 { head } else { separator });
        sql.push_str(part);
    }
}

#[cfg(test)]
mod tests {
    use super::Select;

    #[test]
    fn parts_come_out_in_statement_order() {
        let sql = Select::new("c.seq", "callbacks c")
            .indexed_by("callbacks_review_list")
            .join("LEFT JOIN answers a ON a.callback_seq = c.seq")
            .filter("c.seq > ?1")
            .filter_if(false, "never")
            .filter_if(true, "c.disposition = ?2")
            .order_by(&["c.seq"], "DESC")
            .limit(5)
            .sql();
        assert_eq!(
            sql,
            "SELECT c.seq FROM callbacks c INDEXED BY callbacks_review_list \
             LEFT JOIN answers a ON a.callback_seq = c.seq \
             WHERE c.seq > ?1 AND c.disposition = ?2 ORDER BY c.seq DESC LIMIT 5"
        );
    }
}
