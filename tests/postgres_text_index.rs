//! The trigram index of callbacks' text on PostgreSQL (migration 005), as only a server
//! has it: a ledger of schema 4 indexed whole as it is upgraded, its text lowered as
//! Rust lowers it for every character there is; pg_trgm found wherever the database
//! has it, or made, or a refusal that says who can make it; the roles of a team still
//! reading and writing after the upgrade; and a search that reads the index's few rows
//! rather than every callback. What the index finds, the same on either engine, is the
//! contract suite's (`search::` stories).

mod support;

use std::process::Output;

use jobledger::filter::lowered;
use serde_json::{Value, json};
use support::binary::{bare, refused, run_at, succeeded};
use support::fixture::NOW;
use support::postgres::PgServer;

/// `jobledger --db URL --now NOW ARGS...`.
fn run(url: &str, args: &[&str]) -> Output {
    run_at(url, NOW, args)
}

fn ok(url: &str, args: &[&str]) -> String {
    succeeded(&run(url, args), args)
}

/// Ingests `stream` (written to a file of `dir`) into the ledger at `url`.
fn ingest(url: &str, dir: &std::path::Path, name: &str, stream: &str) -> String {
    let path = dir.join(name);
    std::fs::write(&path, stream).unwrap();
    ok(url, &["ingest", "--complete", path.to_str().unwrap()])
}

/// `url` logged in as `role`, with a password (the tests' server trusts the socket,
/// so any works; it must never be shown).
fn as_role(url: &str, role: &str) -> String {
    url.replacen(
        &format!("{}@", support::postgres::USER),
        &format!("{role}:pw-{role}-s3cret@"),
        1,
    )
}

/// Quarantined callbacks whose job ids are `ids`, their delivery ids the ids reversed.
fn callbacks_for(ids: &[String], at: &str) -> String {
    let mut out = String::new();
    for id in ids {
        let delivery: String = id.chars().rev().collect();
        let line = json!({
            "event": "callback", "delivery_id": delivery, "job_id": id,
            "attempt": 1, "outcome": "success", "at": at,
        });
        out.push_str(&line.to_string());
        out.push('\n');
    }
    out
}

/// Ids that hold every character there is (but NUL, which PostgreSQL's text cannot
/// hold), some hundreds a id, and ids of ASCII alone (lowered by another branch of the
/// SQL), of letters whose lower case is longer (`İ`) or is another letter's (the
/// Kelvin sign, `ß`, final sigma).
fn every_character() -> Vec<String> {
    let all: Vec<char> = (1..=u32::from(char::MAX))
        .filter_map(char::from_u32)
        .collect();
    let mut ids: Vec<String> = all.chunks(250).map(|c| c.iter().collect()).collect();
    ids.push((1..=127_u8).map(char::from).collect());
    ids.push("JOB-ÀÉÎ-İSTANBUL-\u{212a}ELVIN-STRASSE-straße-ΣΊΣΥΦΟΣ".to_owned());
    ids.push("Plain-ASCII-Id-42".to_owned());
    ids
}

/// Every callback's four texts and, beside them, what the index holds for it.
type IndexedRow = ([Option<String>; 4], [Option<String>; 4]);

fn indexed(server: &PgServer, db: &str) -> Vec<IndexedRow> {
    server
        .connect(db)
        .query(
            "SELECT c.job_id, c.delivery_id, c.reason, c.replacement_created_by,
                    t.job, t.delivery, t.reason, t.\"by\"
               FROM jobledger.callbacks c
               LEFT JOIN jobledger.callback_text t ON t.seq = c.seq
              ORDER BY c.seq",
            &[],
        )
        .unwrap()
        .iter()
        .map(|r| {
            (
                [r.get(0), r.get(1), r.get(2), r.get(3)],
                [r.get(4), r.get(5), r.get(6), r.get(7)],
            )
        })
        .collect()
}

/// Every callback is in the index, each text lowered as [`lowered`] lowers it; the
/// number of callbacks.
fn assert_indexed_as_rust_lowers(server: &PgServer, db: &str) -> usize {
    let rows = indexed(server, db);
    for (n, (texts, index)) in rows.iter().enumerate() {
        for (column, (text, held)) in texts.iter().zip(index).enumerate() {
            let want = text.as_deref().map(lowered);
            if *held == want {
                continue;
            }
            // Where they part, rather than two long texts of every character.
            let (held, want) = (held.clone().unwrap_or_default(), want.unwrap_or_default());
            let at = held
                .chars()
                .zip(want.chars())
                .take_while(|(h, w)| h == w)
                .count();
            let near = |t: &str| {
                t.chars()
                    .skip(at.saturating_sub(3))
                    .take(8)
                    .collect::<String>()
            };
            panic!(
                "callback {n}, column {column}: the index holds {:?}, lowered is {:?} (character {at})",
                near(&held),
                near(&want)
            );
        }
    }
    rows.len()
}

fn passes_check(url: &str) {
    let said = ok(url, &["check"]);
    assert!(said.contains("passed every check"), "{said}");
}

/// The name of the schema holding the operator class of the index's GIN index.
fn trigram_schema(server: &PgServer, db: &str, schema: &str) -> String {
    server
        .connect(db)
        .query_one(
            "SELECT n.nspname::text
               FROM pg_index i
               JOIN pg_opclass o ON o.oid = i.indclass[0]
               JOIN pg_namespace n ON n.oid = o.opcnamespace
              WHERE i.indexrelid = to_regclass(quote_ident($1) || '.callback_text_trigrams')",
            &[&schema],
        )
        .unwrap()
        .get(0)
}

/// Makes a login role unless the cluster (shared by the tests) has it.
fn login_role(server: &PgServer, db: &str, role: &str) {
    server
        .connect(db)
        .batch_execute(&format!(
            "DO $$ BEGIN
               IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = '{role}') THEN
                 CREATE ROLE {role} LOGIN; END IF;
             END $$;"
        ))
        .unwrap();
}

/// A team's ledger of schema 4, with callbacks of every character and the three roles,
/// is indexed whole by the open that upgrades it: each text lowered by the SQL the
/// migration lowers with, the same as Rust's `lowered`. The callbacks kept after it
/// are indexed by the writer, the roles read and write the index, and a search finds
/// what was there before the index was made.
#[test]
fn a_ledger_of_schema_4_is_indexed_whole_as_it_is_upgraded_lowered_as_rust_lowers() {
    let (server, db, url) = PgServer::fresh_ledger("schema_4_upgraded");
    let dir = tempfile::tempdir().unwrap();
    let ids = every_character();
    ingest(
        &url,
        dir.path(),
        "every.ndjson",
        &callbacks_for(&ids, "2026-11-27T13:00:00.000Z"),
    );
    ok(&url, &["roles", "--apply"]);
    // The ledger as schema 4 left it: migration 005 made the table (and its grants,
    // index and triggers) and the extension, migration 006 an index of the review
    // lists (and a function's cost, which it sets again), migration 007 the kept
    // reconciliation's table, function and two indexes, migration 008 an index of
    // every callback's gap, migration 009 the reconciliation's counts' two tables,
    // migration 010 three indexes of callbacks (in place of 006's), and nothing else.
    server
        .connect(&db)
        .batch_execute(
            "DROP TABLE jobledger.callback_text;
             DROP EXTENSION pg_trgm;
             DROP INDEX jobledger.callbacks_review_gap_in_order;
             DROP INDEX jobledger.callbacks_review_by_outcome;
             DROP INDEX jobledger.callbacks_late_by_gap;
             DROP TABLE jobledger.reconcile_hours;
             DROP TABLE jobledger.reconcile_counts;
             DROP TABLE jobledger.reconcile_findings;
             DROP FUNCTION jobledger.reconcile_output_exists(text);
             DROP INDEX jobledger.jobs_open_by_id;
             DROP INDEX jobledger.jobs_by_acceptance;
             DROP INDEX jobledger.callbacks_gap_in_order;
             UPDATE jobledger.ledger_meta SET schema_version = 4;",
        )
        .unwrap();
    // Upgraded by the next open that may write, here an ingest of more callbacks.
    let later: Vec<String> = ids
        .iter()
        .take(40)
        .map(|id| format!("{id}/later"))
        .collect();
    ingest(
        &url,
        dir.path(),
        "later.ndjson",
        &callbacks_for(&later, "2026-11-27T14:00:00.000Z"),
    );
    let version: i32 = server
        .connect(&db)
        .query_one("SELECT schema_version FROM jobledger.ledger_meta", &[])
        .unwrap()
        .get(0);
    assert_eq!(i64::from(version), jobledger::store::SERVER_SCHEMA_VERSION);
    assert_eq!(trigram_schema(server, &db, "jobledger"), "jobledger");
    let n = assert_indexed_as_rust_lowers(server, &db);
    assert_eq!(n, ids.len() + later.len());
    // Not vacuous: the ledger kept the ids whole, every character of them.
    let kept: usize = indexed(server, &db)
        .iter()
        .filter_map(|(texts, _)| texts[0].as_ref().map(|t| t.chars().count()))
        .sum();
    let given: usize = ids.iter().chain(&later).map(|id| id.chars().count()).sum();
    assert_eq!(kept, given);
    passes_check(&url);
    // A search finds callbacks the migration indexed, and those kept after it.
    let found = |url: &str, query: &str| -> Vec<Value> {
        match serde_json::from_str(&ok(url, &["callbacks", "--json", "--where", query])) {
            Ok(Value::Array(rows)) => rows,
            other => panic!("{query}: {other:?}"),
        }
    };
    assert_eq!(found(&url, "job:i̇stanbul").len(), 1);
    assert_eq!(found(&url, "job:\"\u{212a}elvin\"").len(), 1);
    assert_eq!(found(&url, "job:plain-ascii").len(), 1);
    assert_eq!(found(&url, "job:/later").len(), later.len());
    // The roles granted before the upgrade still read and write: a reader searches, an
    // ingester keeps callbacks (and their text).
    login_role(server, &db, "trgm_rita");
    login_role(server, &db, "trgm_ingest");
    server
        .connect(&db)
        .batch_execute(
            "GRANT jobledger_reader TO trgm_rita; GRANT jobledger_ingester TO trgm_ingest;",
        )
        .unwrap();
    assert_eq!(
        found(&as_role(&url, "trgm_rita"), "job:plain-ascii").len(),
        1
    );
    let third = callbacks_for(&["Third-İD".to_owned()], "2026-11-27T15:00:00.000Z");
    ingest(
        &as_role(&url, "trgm_ingest"),
        dir.path(),
        "third.ndjson",
        &third,
    );
    assert_eq!(found(&as_role(&url, "trgm_rita"), "job:third-i̇d").len(), 1);
    assert_eq!(assert_indexed_as_rust_lowers(server, &db), n + 1);
    passes_check(&url);
}

/// The operator class is pg_trgm's wherever the database has it: in a schema of the
/// administrator's, or in the schema of the ledger that made it first.
#[test]
fn pg_trgm_is_used_from_the_schema_that_holds_it() {
    let (server, db, url) = PgServer::fresh_ledger("pg_trgm_elsewhere");
    let dir = tempfile::tempdir().unwrap();
    let stream = callbacks_for(&["Job-Α-1".to_owned()], "2026-11-27T13:00:00.000Z");
    server
        .connect(&db)
        .batch_execute("CREATE SCHEMA tools; CREATE EXTENSION pg_trgm SCHEMA tools;")
        .unwrap();
    ingest(&url, dir.path(), "one.ndjson", &stream);
    assert_eq!(trigram_schema(server, &db, "jobledger"), "tools");
    passes_check(&url);

    // A database without it: the first ledger makes it in its own schema, and a second
    // ledger of the same database uses it from there.
    let (server, db, url) = PgServer::fresh_ledger("pg_trgm_of_another_ledger");
    ingest(&url, dir.path(), "one.ndjson", &stream);
    assert_eq!(trigram_schema(server, &db, "jobledger"), "jobledger");
    let second = format!("{url}&schema=second");
    ingest(&second, dir.path(), "one.ndjson", &stream);
    assert_eq!(trigram_schema(server, &db, "second"), "jobledger");
    for url in [&url, &second] {
        let rows = ok(url, &["callbacks", "--json", "--where", "job:job-α"]);
        assert!(rows.contains("Job-Α-1"), "{rows}");
        passes_check(url);
    }
}

/// A ledger's owner that may not create pg_trgm, or may not use the schema holding
/// it, is told who can make it so and how, never the password; nothing of the ledger
/// is made until it can be.
#[test]
fn an_owner_who_cannot_have_pg_trgm_is_told_who_can_and_the_ledger_is_not_made() {
    let (server, db, url) = PgServer::fresh_ledger("pg_trgm_refused");
    let dir = tempfile::tempdir().unwrap();
    let stream = dir.path().join("one.ndjson");
    std::fs::write(
        &stream,
        callbacks_for(&["job-1".to_owned()], "2026-11-27T13:00:00.000Z"),
    )
    .unwrap();
    let stream = stream.to_str().unwrap();
    // Its own schema, and no right to create in the database (PUBLIC has none).
    login_role(server, &db, "trgm_owner");
    server
        .connect(&db)
        .batch_execute("CREATE SCHEMA jobledger AUTHORIZATION trgm_owner;")
        .unwrap();
    let owner = as_role(&url, "trgm_owner");
    let tables = || -> i64 {
        server
            .connect(&db)
            .query_one(
                "SELECT count(*) FROM pg_tables WHERE schemaname = 'jobledger'",
                &[],
            )
            .unwrap()
            .get(0)
    };
    let said = refused(
        &run(&owner, &["ingest", stream]),
        &[
            "pg_trgm",
            "may not create in database",
            &format!("ask a superuser to run `CREATE EXTENSION pg_trgm;` in database {db}"),
            &format!("GRANT CREATE ON DATABASE {db} TO trgm_owner;"),
            "left as it was",
        ],
    );
    assert!(!said.contains("s3cret"), "the password was shown: {said}");
    assert_eq!(tables(), 0, "a ledger was made in part");
    // Made by an administrator in a schema the owner may not use.
    server
        .connect(&db)
        .batch_execute("CREATE SCHEMA hidden; CREATE EXTENSION pg_trgm SCHEMA hidden;")
        .unwrap();
    let said = refused(
        &run(&owner, &["ingest", stream]),
        &[
            "in schema hidden",
            "GRANT USAGE ON SCHEMA hidden TO trgm_owner;",
        ],
    );
    assert!(!said.contains("s3cret"), "the password was shown: {said}");
    assert_eq!(tables(), 0, "a ledger was made in part");
    // Granted, the ledger is made, its index from that schema.
    server
        .connect(&db)
        .batch_execute("GRANT USAGE ON SCHEMA hidden TO trgm_owner;")
        .unwrap();
    ok(&owner, &["ingest", stream]);
    assert_eq!(trigram_schema(server, &db, "jobledger"), "hidden");
    passes_check(&owner);
}

/// A search for a rare text reads the callbacks the index gives, not every callback:
/// the server's own counts of rows read from `callbacks` move by a handful.
#[test]
fn a_search_for_a_rare_text_reads_only_the_callbacks_that_hold_it() {
    let (server, db, url) = PgServer::fresh_ledger("reads_few_callbacks");
    let dir = tempfile::tempdir().unwrap();
    let out = bare()
        .args(["demo", "--jobs", "3000", "--seed", "3", "--stream-only"])
        .output()
        .expect("the binary runs");
    let stream = succeeded(&out, &["demo --stream-only"]);
    ingest(&url, dir.path(), "demo.ndjson", &stream);
    let mut client = server.connect(&db);
    client.batch_execute("ANALYZE").unwrap();
    let callbacks: i64 = client
        .query_one("SELECT count(*) FROM jobledger.callbacks", &[])
        .unwrap()
        .get(0);
    assert!(callbacks > 2000, "{callbacks}");
    // A job id of the middle of the ledger, without its `job-` (a text inside it).
    let job: String = client
        .query_one(
            "SELECT job_id FROM jobledger.callbacks WHERE seq = (SELECT max(seq) / 2 FROM jobledger.callbacks)",
            &[],
        )
        .unwrap()
        .get(0);
    let digits = job.trim_start_matches("job-");
    assert!(digits.len() >= 5, "{job}");
    // Rows of callbacks read so far, by a scan of the table or through an index.
    let mut read = || -> i64 {
        client
            .query_one(
                "SELECT pg_stat_clear_snapshot(), (SELECT coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0)
                   FROM pg_stat_user_tables WHERE schemaname = 'jobledger' AND relname = 'callbacks')",
                &[],
            )
            .unwrap()
            .get(1)
    };
    let before = read();
    let rows = ok(
        &url,
        &["callbacks", "--json", "--where", &format!("job:{digits}")],
    );
    assert!(rows.contains(&job), "{rows}");
    // The server counts a session's reads as it ends, a moment after the binary does.
    let started = std::time::Instant::now();
    let mut after = read();
    while after == before && started.elapsed() < std::time::Duration::from_secs(10) {
        std::thread::sleep(std::time::Duration::from_millis(50));
        after = read();
    }
    assert!(
        after > before && after - before < 20,
        "the search read {} rows of {callbacks} callbacks",
        after - before
    );
}
