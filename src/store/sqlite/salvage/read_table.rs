//! One table of a damaged ledger read into the new one: by rowid ranges (by key in a
//! table WITHOUT ROWID), straight through while pages read and around the rows that
//! do not, each row read inserted into the new ledger's table and each row lost named.

use rusqlite::types::{ToSqlOutput, Value, ValueRef};
use rusqlite::{Connection, Statement};

use super::{Lost, TableSalvage};
use crate::store::StoreError;
use crate::store::sqlite::Ledger;

impl Ledger {
    /// Copies what can be read of `table` into the same table of `into`, in one
    /// transaction of `into`.
    pub(super) fn salvage_table(
        &self,
        into: &Ledger,
        table: &str,
    ) -> Result<TableSalvage, StoreError> {
        let shape = Shape::of(&self.conn, &into.conn, table).map_err(|e| self.err(e))?;
        into.conn
            .execute_batch("BEGIN IMMEDIATE")
            .map_err(|e| into.err(e))?;
        let mut copy = TableCopy {
            from: self,
            into,
            insert: into
                .conn
                .prepare(&shape.insert_sql())
                .map_err(|e| into.err(e))?,
            shape: &shape,
            found: TableSalvage {
                table: table.to_owned(),
                saved: 0,
                lost: Vec::new(),
            },
            expected: shape.dense.then_some(1),
        };
        let copied = if shape.keys.is_empty() {
            copy.by_rowid()
        } else {
            copy.by_key()
        };
        let found = copy.found;
        drop(copy.insert);
        match copied {
            Ok(()) => into.conn.execute_batch("COMMIT").map_err(|e| into.err(e))?,
            Err(e) => {
                let _ = into.conn.execute_batch("ROLLBACK");
                return Err(e);
            }
        }
        Ok(found)
    }
}

/// How a table is read and written.
struct Shape {
    table: String,
    /// The columns copied: those of the new table that are stored (not generated).
    columns: Vec<String>,
    /// The key's columns of a table WITHOUT ROWID, in key order (empty: by rowid).
    keys: Vec<String>,
    /// The rowid is written too: a rowid table whose rowid no column holds.
    rowid_apart: bool,
    /// Rows numbered 1, 2, 3… (an `INTEGER PRIMARY KEY` the ledger never deletes a
    /// row of): a number not found between two found is a row lost.
    dense: bool,
}

impl Shape {
    fn of(from: &Connection, into: &Connection, table: &str) -> rusqlite::Result<Shape> {
        // hidden: 0 a column, 1 hidden, 2 and 3 generated (virtual, stored).
        let info = |conn: &Connection| -> rusqlite::Result<Vec<(String, String, i64, i64)>> {
            conn.prepare(
                "SELECT name, upper(type), pk, hidden FROM pragma_table_xinfo(?1) ORDER BY cid",
            )?
            .query_map([table], |row| {
                Ok((row.get(0)?, row.get(1)?, row.get(2)?, row.get(3)?))
            })?
            .collect()
        };
        let theirs = info(from)?;
        let ours = info(into)?;
        let stored = |cols: &[(String, String, i64, i64)]| -> Vec<String> {
            cols.iter()
                .filter(|c| c.3 == 0)
                .map(|c| c.0.clone())
                .collect()
        };
        let in_theirs = stored(&theirs);
        let columns: Vec<String> = stored(&ours)
            .into_iter()
            .filter(|c| in_theirs.contains(c))
            .collect();
        let without_rowid: bool = into.query_row(
            "SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = ?1",
            [table],
            |row| row.get(0),
        )?;
        let mut pk: Vec<(i64, String, String)> = ours
            .iter()
            .filter(|c| c.2 > 0)
            .map(|c| (c.2, c.0.clone(), c.1.clone()))
            .collect();
        pk.sort();
        let alias = !without_rowid && pk.len() == 1 && pk[0].2 == "INTEGER";
        Ok(Shape {
            table: table.to_owned(),
            columns,
            keys: if without_rowid {
                pk.into_iter().map(|(_, name, _)| name).collect()
            } else {
                Vec::new()
            },
            rowid_apart: !without_rowid && !alias,
            dense: alias,
        })
    }

    fn quoted(&self) -> String {
        quote(&self.table)
    }

    fn column_list(&self) -> String {
        self.columns
            .iter()
            .map(|c| quote(c))
            .collect::<Vec<_>>()
            .join(", ")
    }

    fn insert_sql(&self) -> String {
        let mut columns = self.column_list();
        let mut n = self.columns.len();
        if self.rowid_apart {
            columns = format!("rowid, {columns}");
            n += 1;
        }
        let places = (1..=n).map(|i| format!("?{i}")).collect::<Vec<_>>();
        format!(
            "INSERT INTO main.{} ({columns}) VALUES ({})",
            self.quoted(),
            places.join(", ")
        )
    }

    /// Rows by rowid from `?1` to `?2`, the rowid first, read from the table's own
    /// b-tree (`NOT INDEXED`: an index may be damaged where the table is whole).
    fn by_rowid_sql(&self) -> String {
        format!(
            "SELECT rowid, {} FROM main.{} NOT INDEXED WHERE rowid BETWEEN ?1 AND ?2 ORDER BY rowid",
            self.column_list(),
            self.quoted()
        )
    }

    /// Rows in key order, after the key bound to `?1…` when `after`, backwards when
    /// `backwards`.
    fn by_key_sql(&self, after: bool, backwards: bool) -> String {
        let keys = self
            .keys
            .iter()
            .map(|k| quote(k))
            .collect::<Vec<_>>()
            .join(", ");
        let order = if backwards { " DESC" } else { "" };
        let order = self
            .keys
            .iter()
            .map(|k| format!("{}{order}", quote(k)))
            .collect::<Vec<_>>()
            .join(", ");
        let places = (1..=self.keys.len())
            .map(|i| format!("?{i}"))
            .collect::<Vec<_>>()
            .join(", ");
        let filter = if after {
            format!("WHERE ({keys}) > ({places})")
        } else {
            String::new()
        };
        format!(
            "SELECT {} FROM main.{} NOT INDEXED {filter} ORDER BY {order}",
            self.column_list(),
            self.quoted()
        )
    }

    /// Where each key column is among the columns read.
    fn key_places(&self) -> Vec<usize> {
        self.keys
            .iter()
            .filter_map(|k| self.columns.iter().position(|c| c == k))
            .collect()
    }
}

fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// Rows between two probes for a readable page near a break: a leaf of the
/// ledger's tables (8 KiB) holds more rows than this unless its rows are long.
const STRIDE: i64 = 16;

/// How far past a break the probes stay [`STRIDE`] apart (65,536 probes at most, a
/// b-tree descent each); further on they go twice as far each time.
const NEAR: i64 = 1 << 20;

/// One table being copied.
struct TableCopy<'a> {
    from: &'a Ledger,
    into: &'a Ledger,
    insert: Statement<'a>,
    shape: &'a Shape,
    found: TableSalvage,
    /// The rowid the next row has, in a table whose rows are numbered 1, 2, 3…
    expected: Option<i64>,
}

/// Why a read stopped: a page it could not read (or the end).
enum Read {
    Whole,
    /// The first rowid not read: the row there, or the page it would be on, could
    /// not be read.
    BrokeAt(i64),
}

impl TableCopy<'_> {
    /// Reads the table by rowid ranges: straight through while pages read, around the
    /// rows that do not, one rowid at a time, so a damaged page loses only its own.
    fn by_rowid(&mut self) -> Result<(), StoreError> {
        let bound = |sql: &str| -> Result<Option<Option<i64>>, StoreError> {
            let sql = format!("{sql} FROM main.{} NOT INDEXED", self.shape.quoted());
            match self.from.conn.query_row(&sql, [], |row| row.get(0)) {
                Ok(v) => Ok(Some(v)),
                Err(e) => self.unreadable(e).map(|()| None),
            }
        };
        let (first, last) = (bound("SELECT min(rowid)")?, bound("SELECT max(rowid)")?);
        if first == Some(None) || last == Some(None) {
            return Ok(()); // an empty table
        }
        // The ledger's rowids start at 1: a table whose first row cannot be found is
        // read from there.
        let first = first.flatten().unwrap_or(1);
        let from = self.from;
        let mut select = from
            .conn
            .prepare(&self.shape.by_rowid_sql())
            .map_err(|e| from.err(e))?;
        if let Some(last) = last.flatten() {
            return self.read_span(&mut select, first, last);
        }
        // The last row cannot be found: read on until a page cannot be read, then
        // look further and further on for one that can.
        let mut at = first;
        while let Read::BrokeAt(broke) = self.read(&mut select, at, i64::MAX)? {
            let Some(from) = self.readable_after(broke)? else {
                self.found.lost.push(Lost::Tail {
                    after: broke.checked_sub(1).filter(|a| *a >= first),
                });
                return Ok(());
            };
            self.read_span(&mut select, broke, from - 1)?;
            at = from;
        }
        Ok(())
    }

    /// Reads every row from `first` to `last`, going around each rowid that cannot
    /// be read.
    fn read_span(
        &mut self,
        select: &mut Statement<'_>,
        first: i64,
        last: i64,
    ) -> Result<(), StoreError> {
        let mut at = first;
        while at <= last {
            let Read::BrokeAt(broke) = self.read(select, at, last)? else {
                return Ok(());
            };
            if broke > last {
                return Ok(());
            }
            self.account(broke);
            match self.found.lost.last_mut() {
                Some(Lost::Unreadable { last, .. }) if *last + 1 == broke => *last = broke,
                _ => self.found.lost.push(Lost::Unreadable {
                    first: broke,
                    last: broke,
                }),
            }
            let Some(next) = broke.checked_add(1) else {
                return Ok(());
            };
            at = next;
        }
        Ok(())
    }

    /// The first rowid after `broke`, at 1, 2, 4, 8 and 16 rows on, then every
    /// [`STRIDE`] rows up to [`NEAR`] rows on, then twice as far each time, from which
    /// the table reads again (rows or its end); none when nothing after it can be
    /// read. A probe lands on the leaf that would hold its rowid: probes only ever
    /// further apart would step over a readable leaf between two unreadable ones.
    fn readable_after(&mut self, broke: i64) -> Result<Option<i64>, StoreError> {
        let sql = format!(
            "SELECT rowid FROM main.{} NOT INDEXED WHERE rowid >= ?1 ORDER BY rowid LIMIT 1",
            self.shape.quoted()
        );
        let mut step = 1_i64;
        while let Some(at) = broke.checked_add(step) {
            let probe = self
                .from
                .conn
                .query_row(&sql, [at], |row| row.get::<_, i64>(0));
            match probe {
                Ok(_) | Err(rusqlite::Error::QueryReturnedNoRows) => return Ok(Some(at)),
                Err(e) => self.unreadable(e)?,
            }
            step = if (STRIDE..NEAR).contains(&step) {
                step + STRIDE
            } else {
                step.saturating_mul(2)
            };
            if step == i64::MAX {
                break;
            }
        }
        Ok(None)
    }

    /// Reads and saves the rows from rowid `first` to `last`, in order, until one or
    /// the page it is on cannot be read.
    fn read(
        &mut self,
        select: &mut Statement<'_>,
        first: i64,
        last: i64,
    ) -> Result<Read, StoreError> {
        let mut rows = select.query([first, last]).map_err(|e| self.from.err(e))?;
        let mut next = first;
        loop {
            let row = match rows.next() {
                Ok(Some(row)) => row,
                Ok(None) => return Ok(Read::Whole),
                Err(e) => {
                    self.unreadable(e)?;
                    return Ok(Read::BrokeAt(next));
                }
            };
            let Ok(ValueRef::Integer(rowid)) = row.get_ref(0) else {
                return Ok(Read::BrokeAt(next));
            };
            self.account(rowid);
            let skip = usize::from(!self.shape.rowid_apart);
            self.save(row, skip, || rowid.to_string())?;
            match rowid.checked_add(1) {
                Some(n) => next = n,
                None => return Ok(Read::Whole),
            }
        }
    }

    /// Notes that the row `rowid` was reached (saved, refused or unreadable): rows
    /// numbered between the one expected and it were not found.
    fn account(&mut self, rowid: i64) {
        let Some(expected) = self.expected else {
            return;
        };
        if rowid > expected {
            self.found.lost.push(Lost::Missing {
                first: expected,
                last: rowid - 1,
            });
        }
        self.expected = rowid.checked_add(1).map(|n| n.max(expected));
    }

    /// Reads a table WITHOUT ROWID in key order; where a page cannot be read, from its
    /// last row backwards, so only the rows between the two ends are lost.
    fn by_key(&mut self) -> Result<(), StoreError> {
        let places = self.shape.key_places();
        let (reached, broke) = self.read_keys(&places, None, false)?;
        if !broke {
            return Ok(());
        }
        let (back_to, broke) = self.read_keys(&places, reached.as_deref(), true)?;
        if !broke {
            return Ok(()); // read whole backwards, down to the row read last
        }
        self.found.lost.push(Lost::Between {
            after: reached.as_deref().map(show_key),
            before: back_to.as_deref().map(show_key),
        });
        Ok(())
    }

    /// Reads and saves rows in key order (after `after`; backwards when `backwards`)
    /// until a page cannot be read: the last key read, and whether one could not be.
    fn read_keys(
        &mut self,
        places: &[usize],
        after: Option<&[Value]>,
        backwards: bool,
    ) -> Result<(Option<Vec<Value>>, bool), StoreError> {
        let sql = self.shape.by_key_sql(after.is_some(), backwards);
        let from = self.from;
        let mut select = from.conn.prepare(&sql).map_err(|e| from.err(e))?;
        let params: Vec<&dyn rusqlite::ToSql> = after
            .unwrap_or_default()
            .iter()
            .map(|v| v as &dyn rusqlite::ToSql)
            .collect();
        let mut rows = select.query(params.as_slice()).map_err(|e| from.err(e))?;
        let mut reached = None;
        loop {
            match rows.next() {
                Ok(Some(row)) => {
                    let key: Vec<Value> = places
                        .iter()
                        .map(|i| row.get_ref(*i).map(owned))
                        .collect::<rusqlite::Result<_>>()
                        .map_err(|e| from.err(e))?;
                    self.save(row, 0, || show_key(&key))?;
                    reached = Some(key);
                }
                Ok(None) => return Ok((reached, false)),
                Err(e) => {
                    self.unreadable(e)?;
                    return Ok((reached, true));
                }
            }
        }
    }

    /// Writes one row read (its values from column `skip` on) into the new ledger;
    /// a row whose values the new table refuses is noted as lost, named by `name`.
    fn save(
        &mut self,
        row: &rusqlite::Row<'_>,
        skip: usize,
        name: impl FnOnce() -> String,
    ) -> Result<(), StoreError> {
        let columns = self.shape.columns.len() + usize::from(self.shape.rowid_apart);
        for i in 0..columns {
            let value = row.get_ref(i + skip).map_err(|e| self.from.err(e))?;
            self.insert
                .raw_bind_parameter(i + 1, ToSqlOutput::Borrowed(value))
                .map_err(|e| self.into.err(e))?;
        }
        match self.insert.raw_execute() {
            Ok(_) => {
                self.found.saved += 1;
                Ok(())
            }
            Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::ConstraintViolation) => {
                let why = match &e {
                    rusqlite::Error::SqliteFailure(_, Some(message)) => message.clone(),
                    other => other.to_string(),
                };
                self.found.lost.push(Lost::Refused { row: name(), why });
                Ok(())
            }
            Err(e) => Err(self.into.err(e)),
        }
    }

    /// Goes on past an error of the ledger read when it is damage (a page SQLite
    /// cannot read); any other error (the disk, the machine) ends the salvage.
    fn unreadable(&self, e: rusqlite::Error) -> Result<(), StoreError> {
        match self.from.err(e) {
            StoreError::Damaged { .. } => Ok(()),
            e => Err(e),
        }
    }
}

/// A value read, kept to be bound again (a key read last, to read on after it). Text
/// that is not UTF-8 is kept as near as can be: no key of the ledger's is such text.
fn owned(value: ValueRef<'_>) -> Value {
    match value {
        ValueRef::Null => Value::Null,
        ValueRef::Integer(n) => Value::Integer(n),
        ValueRef::Real(x) => Value::Real(x),
        ValueRef::Text(t) => Value::Text(String::from_utf8_lossy(t).into_owned()),
        ValueRef::Blob(b) => Value::Blob(b.to_vec()),
    }
}

/// A key of a table WITHOUT ROWID as a person reads it: `('job-7', 2)`.
fn show_key(key: &[Value]) -> String {
    let parts: Vec<String> = key
        .iter()
        .map(|v| match v {
            Value::Null => "NULL".to_owned(),
            Value::Integer(n) => n.to_string(),
            Value::Real(x) => x.to_string(),
            Value::Text(t) => format!("'{}'", t.replace('\'', "''")),
            Value::Blob(b) => format!("a blob of {} bytes", b.len()),
        })
        .collect();
    format!("({})", parts.join(", "))
}
