//! Looks in a ledger file: appended, the latest of a reviewer and list read.

use rusqlite::{OptionalExtension, params};

use super::{Ledger, StoreError, Writer};
use crate::decision::Disposition;
use crate::store::LookRow;

type Result<T> = std::result::Result<T, StoreError>;

impl Ledger {
    /// The latest look of `reviewer` at `list`, if they ever looked.
    pub fn last_look(&self, reviewer: &str, list: &str) -> Result<Option<LookRow>> {
        self.run(|c| {
            c.prepare_cached(
                "SELECT reviewer, list, looked_at, callback_seq, answer_id FROM looks
                  WHERE reviewer = ?1 AND list = ?2 ORDER BY id DESC LIMIT 1",
            )?
            .query_row(params![reviewer, list], |row| {
                Ok(LookRow {
                    reviewer: row.get(0)?,
                    list: row.get(1)?,
                    looked_at: row.get(2)?,
                    callback_seq: row.get(3)?,
                    answer_id: row.get(4)?,
                })
            })
            .optional()
        })
    }

    /// The newest callback's number (0 when there is none).
    pub fn newest_callback_seq(&self) -> Result<i64> {
        self.run(|c| {
            c.prepare_cached("SELECT coalesce(max(seq), 0) FROM callbacks")?
                .query_row([], |row| row.get(0))
        })
    }

    /// Callbacks given `disposition` that are new since `look` for `me`: newer than
    /// the newest callback then, or whose standing answer is someone else's, given
    /// since.
    ///
    /// Counted from what came after the look, never from the whole list: the
    /// callbacks past its number (a range of the disposition's index), and the older
    /// ones among the answers given since. Asking every held callback for its
    /// standing answer cost seven milliseconds of each start at a million jobs.
    /// (`CROSS JOIN` keeps the answers outside: the planner, seeing few answers,
    /// would walk every held callback and look for its answers.)
    pub fn count_new_since(
        &self,
        disposition: Disposition,
        look: &LookRow,
        me: &str,
    ) -> Result<i64> {
        self.run(|c| {
            c.prepare_cached(
                "SELECT (SELECT count(*) FROM callbacks WHERE disposition = ?1 AND seq > ?2)
                      + (SELECT count(*) FROM answers a CROSS JOIN callbacks c ON c.seq = a.callback_seq
                          WHERE a.id > ?3 AND a.reviewer <> ?4
                            AND c.disposition = ?1 AND c.seq <= ?2
                            AND a.id = (SELECT max(id) FROM answers
                                         WHERE callback_seq = a.callback_seq))",
            )?
            .query_row(
                params![disposition, look.callback_seq, look.answer_id, me],
                |row| row.get(0),
            )
        })
    }
}

impl Writer<'_> {
    /// Appends a look.
    pub fn insert_look(&mut self, look: &LookRow) -> Result<()> {
        self.execute(
            "INSERT INTO looks (reviewer, list, looked_at, callback_seq, answer_id)
                 VALUES (?1, ?2, ?3, ?4, ?5)",
            params![
                look.reviewer,
                look.list,
                look.looked_at,
                look.callback_seq,
                look.answer_id
            ],
        )?;
        Ok(())
    }
}
