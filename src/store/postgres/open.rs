//! Finding the ledger's schema on the server, or making it: a schema that is not a
//! ledger, or is a newer one, is refused untouched; an older one is migrated, by one
//! connection at a time (a lock held for the migration), in one transaction.

use postgres::{Client, Transaction};

use super::{ServerAddress, classify, text_index};
use crate::store::{Location, OpenMode, StoreError};

/// One migration: its SQL, and what jobledger does beside it that SQL alone cannot,
/// in the same transaction.
struct Migration {
    sql: &'static str,
    /// Run before the SQL: what it needs that the ledger's owner may be unable to make.
    before: Option<Before>,
    /// Run after the SQL: rows only jobledger can compute.
    after: Option<After>,
}

/// A step before a migration's SQL, given the ledger's schema and where it is.
type Before = fn(&mut Transaction<'_>, &str, &Location) -> Result<(), StoreError>;

/// A step after a migration's SQL; the rows it wrote.
type After = fn(&mut Transaction<'_>) -> Result<u64, postgres::Error>;

impl Migration {
    const fn sql(sql: &'static str) -> Migration {
        Migration {
            sql,
            before: None,
            after: None,
        }
    }
}

/// The migrations, in order: the ledger's schema version is their count. Append
/// only: a migration once released is never edited.
const MIGRATIONS: &[Migration] = &[
    Migration::sql(include_str!("migrations/001_ledger.sql")),
    Migration::sql(include_str!("migrations/002_gap_in_plpgsql.sql")),
    Migration::sql(include_str!("migrations/003_claims.sql")),
    Migration::sql(include_str!("migrations/004_looks.sql")),
    // The callbacks' text in a trigram index: pg_trgm first, the callbacks already
    // kept put in it after (lowered by the query language's rules, which SQL lacks).
    Migration {
        sql: include_str!("migrations/005_callback_text_index.sql"),
        before: Some(text_index::need_trigrams),
        after: Some(text_index::index_callbacks_kept),
    },
    Migration::sql(include_str!("migrations/006_review_plans.sql")),
    Migration::sql(include_str!("migrations/007_reconciliation_kept.sql")),
    Migration::sql(include_str!("migrations/008_gap_in_ledger_order.sql")),
    Migration::sql(include_str!(
        "migrations/009_reconciliation_counts_kept.sql"
    )),
    Migration::sql(include_str!("migrations/010_plans_at_a_million.sql")),
];

/// The schema version this build writes and understands.
#[allow(clippy::cast_possible_wrap)] // a handful of migrations
pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

/// What the ledger's schema holds, before anything is made in it.
enum Found {
    /// No schema of that name, or an empty one.
    Nothing,
    /// A ledger of this schema version.
    Ledger(i64),
    /// Tables of something else.
    Other,
}

/// A connection to the ledger at `address`, its `search_path` the ledger's schema,
/// made and migrated first where `mode` allows.
pub fn open(address: &ServerAddress, mode: OpenMode) -> Result<Client, StoreError> {
    let location = Location::Server(Box::new(address.clone()));
    let mut client = address.connect().map_err(|e| classify(&location, e))?;
    let schema = address.schema();
    let found = find(&mut client, schema).map_err(|e| classify(&location, e))?;
    match (found, mode) {
        (Found::Other, _) => return Err(StoreError::SchemaNotALedger { ledger: location }),
        (Found::Ledger(v), _) if v > SCHEMA_VERSION => {
            return Err(StoreError::NewerSchema {
                ledger: location,
                found: v,
                known: SCHEMA_VERSION,
            });
        }
        (Found::Nothing, OpenMode::ReadOnly) => {
            return Err(StoreError::Missing { ledger: location });
        }
        (Found::Ledger(v), _) if v == SCHEMA_VERSION => {}
        (_, OpenMode::ReadOnly) => {
            return Err(StoreError::ReadOnly {
                ledger: location,
                detail: "its schema is older than this jobledger's and must be upgraded by a read-write open first".to_owned(),
            });
        }
        (Found::Nothing | Found::Ledger(_), OpenMode::ReadWrite) => {
            migrate(&mut client, schema, &location)?;
        }
    }
    // The schema name was checked to need no quotes when the address was read. One
    // round trip for both settings.
    let read_only = if mode == OpenMode::ReadOnly {
        "; SET default_transaction_read_only = on"
    } else {
        ""
    };
    client
        .batch_execute(&format!("SET search_path TO {schema}{read_only}"))
        .map_err(|e| classify(&location, e))?;
    Ok(client)
}

/// What the schema named `schema` holds: one look at the catalog (whether it has
/// `ledger_meta`, whether it has tables at all), then the ledger's own row. The
/// catalog is asked of `pg_class` alone: the `pg_tables` view joins three catalogs,
/// and planning it was a millisecond of every open on a new connection.
fn find(client: &mut Client, schema: &str) -> Result<Found, postgres::Error> {
    let row = client.query_one(
        "SELECT to_regclass(quote_ident($1) || '.ledger_meta') IS NOT NULL,
                EXISTS (SELECT 1 FROM pg_catalog.pg_class
                         WHERE relnamespace = to_regnamespace(quote_ident($1))
                           AND relkind IN ('r', 'p'))",
        &[&schema],
    )?;
    let (meta, tables): (bool, bool) = (row.get(0), row.get(1));
    if !tables {
        return Ok(Found::Nothing);
    }
    if !meta {
        return Ok(Found::Other);
    }
    let row = client.query_opt(
        &format!("SELECT application, schema_version FROM {schema}.ledger_meta WHERE id = 1"),
        &[],
    )?;
    Ok(match row {
        Some(row) if row.get::<_, String>(0) == "jobledger" => {
            Found::Ledger(i64::from(row.get::<_, i32>(1)))
        }
        _ => Found::Other,
    })
}

/// Makes the schema if need be and applies the migrations it lacks, holding a lock
/// for the ledger's schema so that two first opens do not both make it.
fn migrate(client: &mut Client, schema: &str, location: &Location) -> Result<(), StoreError> {
    let failed = |e| classify(location, e);
    let mut tx = client.transaction().map_err(failed)?;
    tx.execute(
        "SELECT pg_advisory_xact_lock(hashtext('jobledger schema ' || $1))",
        &[&schema],
    )
    .map_err(failed)?;
    // A schema an administrator made for the ledger's owner is used as it is: CREATE
    // SCHEMA, even IF NOT EXISTS, asks for the right to create in the database, which
    // such an owner need not have.
    let schema_exists: bool = tx
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_namespace WHERE nspname = $1)",
            &[&schema],
        )
        .map_err(failed)?
        .get(0);
    if !schema_exists {
        tx.batch_execute(&format!("CREATE SCHEMA {schema}"))
            .map_err(failed)?;
    }
    tx.batch_execute(&format!("SET LOCAL search_path TO {schema}"))
        .map_err(failed)?;
    let has_meta: bool = tx
        .query_one(
            "SELECT to_regclass(quote_ident($1) || '.ledger_meta') IS NOT NULL",
            &[&schema],
        )
        .map_err(failed)?
        .get(0);
    let version = if has_meta {
        i64::from(
            tx.query_one("SELECT schema_version FROM ledger_meta WHERE id = 1", &[])
                .map_err(failed)?
                .get::<_, i32>(0),
        )
    } else {
        0
    };
    for (i, migration) in MIGRATIONS.iter().enumerate() {
        let number = i64::try_from(i).expect("few migrations") + 1;
        if number <= version {
            continue;
        }
        if let Some(before) = migration.before {
            before(&mut tx, schema, location)?;
        }
        tx.batch_execute(migration.sql).map_err(failed)?;
        if let Some(after) = migration.after {
            after(&mut tx).map_err(failed)?;
        }
        tx.execute(
            "UPDATE ledger_meta SET schema_version = $1 WHERE id = 1",
            &[&i32::try_from(number).expect("few migrations")],
        )
        .map_err(failed)?;
    }
    tx.commit().map_err(failed)
}
