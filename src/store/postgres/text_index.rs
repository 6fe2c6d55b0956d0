//! The trigram index of callbacks' text (`callback_text`, migration 005): each
//! callback's job id, delivery id, reason and replacement's maker, lowered by
//! [`lowered`], with a GIN index of `pg_trgm`'s trigrams on each, which a text search
//! of callbacks goes through (`filter.rs`).
//!
//! The table is filled by jobledger, not by a trigger: the server's own `lower()`
//! follows the database's locale, and the query language lowers by Rust's rules. Every
//! writer of callbacks (an ingest's batch, a copy into the server) puts their text here
//! in the same transaction, one statement for all of them; the callbacks a ledger held
//! before the index was made are put here by the migration, with the SQL twin of
//! [`lowered`] that searches compare with ([`lowered_sql`]).

use postgres::Transaction;
use postgres::error::SqlState;

use super::filter::{Params, lowered_sql};
use super::{Writer, classify};
use crate::filter::lowered;
use crate::store::{Location, StoreError};

/// A callback's text as it is searched, not lowered yet.
#[derive(Debug, Clone, Copy)]
pub(super) struct CallbackText<'a> {
    pub seq: i64,
    pub job: Option<&'a str>,
    pub delivery: Option<&'a str>,
    pub reason: Option<&'a str>,
    pub by: Option<&'a str>,
}

impl Writer<'_> {
    /// Puts `texts` in the index, lowered by [`lowered`], in one statement.
    pub(super) fn index_callback_texts<'a>(
        &self,
        texts: &[CallbackText<'a>],
    ) -> Result<(), StoreError> {
        if texts.is_empty() {
            return Ok(());
        }
        let lowered_each = |text: fn(&CallbackText<'a>) -> Option<&'a str>| -> Vec<Option<String>> {
            texts.iter().map(|t| text(t).map(lowered)).collect()
        };
        let seqs: Vec<i64> = texts.iter().map(|t| t.seq).collect();
        self.execute_direct(
            "INSERT INTO callback_text (seq, job, delivery, reason, \"by\")
             SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[])",
            &[
                &seqs,
                &lowered_each(|t| t.job),
                &lowered_each(|t| t.delivery),
                &lowered_each(|t| t.reason),
                &lowered_each(|t| t.by),
            ],
        )?;
        Ok(())
    }
}

/// Before migration 005: the database has `pg_trgm`, which this role may use, or it is
/// created in the ledger's `schema`. When neither can be, the error says who can make
/// it so, and how.
pub(super) fn need_trigrams(
    tx: &mut Transaction<'_>,
    schema: &str,
    location: &Location,
) -> Result<(), StoreError> {
    let who = tx
        .query_one(
            "SELECT quote_ident(current_user), quote_ident(current_database())",
            &[],
        )
        .map_err(|e| classify(location, e))?;
    let (role, database): (String, String) = (who.get(0), who.get(1));
    let found = tx
        .query_opt(
            "SELECT quote_ident(n.nspname), has_schema_privilege(n.oid, 'USAGE')
               FROM pg_catalog.pg_extension e
               JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace
              WHERE e.extname = 'pg_trgm'",
            &[],
        )
        .map_err(|e| classify(location, e))?;
    let what = match found {
        Some(row) if row.get::<_, bool>(1) => return Ok(()),
        Some(row) => {
            let in_schema: String = row.get(0);
            format!(
                "{NEEDED}, which database {database} has in schema {in_schema}, and role {role} may not use that schema: ask the owner of schema {in_schema} (or a superuser) to run `GRANT USAGE ON SCHEMA {in_schema} TO {role};`{AGAIN}"
            )
        }
        None => {
            // The schema's name was checked to need no quotes when the address was read.
            let made = tx.batch_execute(&format!("CREATE EXTENSION pg_trgm SCHEMA {schema}"));
            let Err(e) = made else {
                return Ok(());
            };
            let Some(db) = e.as_db_error() else {
                return Err(classify(location, e));
            };
            match cannot_create(db.code(), db.message(), &role, &database) {
                Some(what) => what,
                None => return Err(classify(location, e)),
            }
        }
    };
    Err(StoreError::Unsupported {
        ledger: location.clone(),
        what,
    })
}

/// What every refusal of [`need_trigrams`] starts with.
const NEEDED: &str =
    "the ledger's text searches need PostgreSQL's extension pg_trgm (its trigram index)";

/// What every refusal of [`need_trigrams`] ends with.
const AGAIN: &str = ", then run the command again. The ledger was left as it was";

/// Why `CREATE EXTENSION pg_trgm` failed with `code` and the server's `said`, and who
/// can fix it: a role without the right to create it, or a server without the
/// extension. `None` for any other failure, told as it is.
fn cannot_create(code: &SqlState, said: &str, role: &str, database: &str) -> Option<String> {
    if *code == SqlState::INSUFFICIENT_PRIVILEGE {
        return Some(format!(
            "{NEEDED}, which role {role} may not create in database {database} ({said}): ask a superuser to run `CREATE EXTENSION pg_trgm;` in database {database}, or to let the ledger's owner create it with `GRANT CREATE ON DATABASE {database} TO {role};`{AGAIN}"
        ));
    }
    // PostgreSQL 15 cannot open the extension's control file; later ones say it is
    // not available.
    if *code == SqlState::UNDEFINED_FILE || *code == SqlState::FEATURE_NOT_SUPPORTED {
        return Some(format!(
            "{NEEDED}, which this server does not have ({said}): install PostgreSQL's contrib modules on the server (Debian's and Ubuntu's postgresql package has them; elsewhere a package such as postgresql-contrib){AGAIN}"
        ));
    }
    None
}

/// After migration 005: every callback the ledger held is put in the index, lowered
/// by [`lowered_sql`], the twin of [`lowered`] (one statement, on the server).
pub(super) fn index_callbacks_kept(tx: &mut Transaction<'_>) -> Result<u64, postgres::Error> {
    let mut params = Params::new();
    let job = lowered_sql("c.job_id", &mut params);
    let delivery = lowered_sql("c.delivery_id", &mut params);
    let reason = lowered_sql("c.reason", &mut params);
    let by = lowered_sql("c.replacement_created_by", &mut params);
    let sql = format!(
        "INSERT INTO callback_text (seq, job, delivery, reason, \"by\")
         SELECT c.seq, {job}, {delivery}, {reason}, {by} FROM callbacks c"
    );
    tx.execute(sql.as_str(), &params.refs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_names_the_fix_and_who_can_make_it() {
        let said = "permission denied to create extension \"pg_trgm\"";
        let what = cannot_create(&SqlState::INSUFFICIENT_PRIVILEGE, said, "weak", "\"Ops\"")
            .expect("a privilege is named");
        assert!(what.contains(said), "{what}");
        assert!(
            what.contains("ask a superuser to run `CREATE EXTENSION pg_trgm;` in database \"Ops\""),
            "{what}"
        );
        assert!(
            what.contains("GRANT CREATE ON DATABASE \"Ops\" TO weak;"),
            "{what}"
        );
        for code in [SqlState::UNDEFINED_FILE, SqlState::FEATURE_NOT_SUPPORTED] {
            let what = cannot_create(&code, "extension \"pg_trgm\" is not available", "r", "d")
                .expect("a missing extension is named");
            assert!(
                what.contains("install PostgreSQL's contrib modules"),
                "{what}"
            );
        }
        assert_eq!(cannot_create(&SqlState::DISK_FULL, "", "r", "d"), None);
    }
}
