//! Looks on PostgreSQL: the SQLite engine's statements (`sqlite/looks.rs`).

use super::answers::{time_at, value_at};
use super::writer::time_text;
use super::{Ledger, Writer};
use crate::decision::Disposition;
use crate::store::{LookRow, StoreError};

type Result<T> = std::result::Result<T, StoreError>;

impl Ledger {
    /// The latest look of `reviewer` at `list`, if they ever looked.
    pub fn last_look(&self, reviewer: &str, list: &str) -> Result<Option<LookRow>> {
        let Some(row) = self.row(
            "SELECT reviewer, list, looked_at, callback_seq, answer_id FROM looks
              WHERE reviewer = $1 AND list = $2 ORDER BY id DESC LIMIT 1",
            &[&reviewer, &list],
        )?
        else {
            return Ok(None);
        };
        let location = self.location();
        Ok(Some(LookRow {
            reviewer: value_at(location, &row, 0)?,
            list: value_at(location, &row, 1)?,
            looked_at: time_at(location, &row, 2)?,
            callback_seq: value_at(location, &row, 3)?,
            answer_id: value_at(location, &row, 4)?,
        }))
    }

    /// The newest callback's number (0 when there is none).
    pub fn newest_callback_seq(&self) -> Result<i64> {
        let row = self.row("SELECT coalesce(max(seq), 0) FROM callbacks", &[])?;
        match row {
            Some(row) => value_at(self.location(), &row, 0),
            None => Ok(0),
        }
    }

    /// Callbacks given `disposition` that are new since `look` for `me`, counted from
    /// what came after the look (as the file's ledger counts them).
    pub fn count_new_since(
        &self,
        disposition: Disposition,
        look: &LookRow,
        me: &str,
    ) -> Result<i64> {
        let row = self.row(
            "SELECT (SELECT count(*) FROM callbacks WHERE disposition = $1 AND seq > $2)
                  + (SELECT count(*) FROM answers a JOIN callbacks c ON c.seq = a.callback_seq
                      WHERE a.id > $3 AND a.reviewer <> $4
                        AND c.disposition = $1 AND c.seq <= $2
                        AND a.id = (SELECT max(id) FROM answers
                                     WHERE callback_seq = a.callback_seq))",
            &[
                &disposition.as_str(),
                &look.callback_seq,
                &look.answer_id,
                &me,
            ],
        )?;
        match row {
            Some(row) => value_at(self.location(), &row, 0),
            None => Ok(0),
        }
    }
}

impl Writer<'_> {
    /// Appends a look.
    pub fn insert_look(&mut self, look: &LookRow) -> Result<()> {
        self.execute(
            "INSERT INTO looks (reviewer, list, looked_at, callback_seq, answer_id)
                 VALUES ($1, $2, $3, $4, $5)",
            &[
                &look.reviewer,
                &look.list,
                &time_text(look.looked_at),
                &look.callback_seq,
                &look.answer_id,
            ],
        )?;
        Ok(())
    }
}
