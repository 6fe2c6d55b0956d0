//! `SELECT` statements assembled from their parts, for the lists whose filters and
//! paging change from call to call (the SQLite engine's `query.rs`; PostgreSQL has no
//! `INDEXED BY`: its planner has statistics).

use std::borrow::Cow;
use std::fmt::Write as _;

use postgres::types::ToSql;

use super::columns::Read;
use super::filter::Params;
use super::keyset::{backwards, comparison, direction, key};
use super::{Ledger, StoreError};
use crate::store::PageRequest;

type Part = Cow<'static, str>;

/// A `SELECT` being assembled: columns, the table, joins, conditions (all must hold),
/// order and limit.
#[derive(Debug, Clone)]
pub(super) struct Select {
    columns: Part,
    table: Part,
    joins: Vec<Part>,
    conditions: Vec<Part>,
    order: Vec<Part>,
    limit: Option<i64>,
}

impl Select {
    /// `SELECT columns FROM table` (the table with its alias, as `"callbacks c"`, or
    /// a subquery with its alias).
    pub fn new(columns: impl Into<Part>, table: impl Into<Part>) -> Self {
        Select {
            columns: columns.into(),
            table: table.into(),
            joins: Vec::new(),
            conditions: Vec::new(),
            order: Vec::new(),
            limit: None,
        }
    }

    /// Adds a join clause, written whole (`"LEFT JOIN answers a ON ..."`).
    pub fn join(mut self, join: impl Into<Part>) -> Self {
        self.joins.push(join.into());
        self
    }

    /// Adds a condition every row must meet.
    pub fn filter(mut self, condition: impl Into<Part>) -> Self {
        self.conditions.push(condition.into());
        self
    }

    /// Adds a condition when there is one.
    pub fn filter_some(self, condition: Option<String>) -> Self {
        match condition {
            Some(condition) => self.filter(condition),
            None => self,
        }
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

    /// At most `limit` rows.
    pub fn limit(mut self, limit: usize) -> Self {
        self.limit = Some(i64::try_from(limit).unwrap_or(i64::MAX));
        self
    }

    /// The statement's text.
    pub fn sql(&self) -> String {
        let mut sql = format!("SELECT {} FROM {}", self.columns, self.table);
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

fn push_list(sql: &mut String, head: &str, separator: &str, parts: &[Part]) {
    for (i, part) in parts.iter().enumerate() {
        sql.push_str(if i == 0 { head } else { separator });
        sql.push_str(part);
    }
}

impl Ledger {
    /// One page of a list ordered by the unique `key_column` alone (a sequence
    /// number, a row id, a job id): `select` names the list, `query` the condition a
    /// filter sets (its values bound in `params`).
    pub(super) fn seq_page<T, K: ToSql + Sync + Clone + 'static>(
        &self,
        select: Select,
        key_column: &str,
        query: Option<String>,
        mut params: Params,
        page: &PageRequest<K>,
        from_row: fn(&postgres::Row) -> Read<T>,
    ) -> Result<Vec<T>, StoreError> {
        let keyset = &page.keyset;
        let select = match (comparison(keyset), key(keyset)) {
            (Some(op), Some(k)) => {
                let k = params.bind(k.clone());
                select.filter(format!("{key_column} {op} {k}"))
            }
            _ => select,
        };
        let sql = select
            .filter_some(query)
            .order_by(&[key_column], direction(keyset))
            .limit(page.limit)
            .sql();
        let mut rows = self.read_rows(&sql, &params.refs(), from_row)?;
        if backwards(keyset) {
            rows.reverse();
        }
        Ok(rows)
    }

    /// How many rows `select` (a `count(*)`) counts under `query`.
    pub(super) fn count_matching(
        &self,
        select: Select,
        query: Option<String>,
        params: &Params,
    ) -> Result<i64, StoreError> {
        let sql = select.filter_some(query).sql();
        let rows = self.rows_of(&sql, &params.refs())?;
        Ok(rows.first().map_or(0, |row| row.get(0)))
    }
}

#[cfg(test)]
mod tests {
    use super::Select;

    #[test]
    fn parts_come_out_in_statement_order() {
        let sql = Select::new("c.seq", "callbacks c")
            .join("LEFT JOIN answers a ON a.callback_seq = c.seq")
            .filter("c.seq > $1")
            .filter_some(None)
            .filter_some(Some("c.disposition = $2".to_owned()))
            .order_by(&["c.seq"], "DESC")
            .limit(5)
            .sql();
        assert_eq!(
            sql,
            "SELECT c.seq FROM callbacks c \
             LEFT JOIN answers a ON a.callback_seq = c.seq \
             WHERE c.seq > $1 AND c.disposition = $2 ORDER BY c.seq DESC LIMIT 5"
        );
    }
}
