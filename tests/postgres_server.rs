//! The throwaway PostgreSQL server the tests of the ledger on PostgreSQL stand on:
//! it starts, takes the `postgres` crate over its socket (through the rustls
//! connector the ledger will use), is new enough, is gone when its test process is,
//! and a connection string with a password is printed without it.

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::postgres::{PgServer, redact};

/// The connector the ledger will give the `postgres` crate: rustls with ring and
/// Mozilla's roots, no OpenSSL.
fn rustls_connector() -> tokio_postgres_rustls::MakeRustlsConnect {
    let roots = rustls::RootCertStore {
        roots: webpki_roots::TLS_SERVER_ROOTS.to_vec(),
    };
    let config = rustls::ClientConfig::builder_with_provider(
        rustls::crypto::ring::default_provider().into(),
    )
    .with_safe_default_protocol_versions()
    .expect("ring's protocol versions")
    .with_root_certificates(roots)
    .with_no_client_auth();
    tokio_postgres_rustls::MakeRustlsConnect::new(config)
}

#[test]
fn a_row_written_in_the_jobledger_schema_reads_back() {
    let server = PgServer::shared();
    eprintln!("shared server started in {:?}", server.started_in());
    let db = server.fresh_database("a_row_written_in_the_jobledger_schema_reads_back");
    let mut client = postgres::Client::connect(&server.url(&db), rustls_connector())
        .unwrap_or_else(|e| panic!("connecting to {}: {e}", server.url(&db)));

    let version: i32 = client
        .query_one("SELECT current_setting('server_version_num')::int", &[])
        .unwrap()
        .get(0);
    assert!(
        version >= 150_000,
        "the ledger needs PostgreSQL 15 or newer; this server is {version}"
    );

    let mut tx = client.transaction().unwrap();
    tx.batch_execute(
        "CREATE SCHEMA jobledger;
         CREATE TABLE jobledger.jobs (id bigint PRIMARY KEY, name text NOT NULL);",
    )
    .unwrap();
    tx.execute(
        "INSERT INTO jobledger.jobs (id, name) VALUES ($1, $2)",
        &[&7_i64, &"nightly-export ✓"],
    )
    .unwrap();
    tx.commit().unwrap();

    let rows = client
        .query("SELECT id, name FROM jobledger.jobs", &[])
        .unwrap();
    let read: Vec<(i64, String)> = rows.iter().map(|r| (r.get(0), r.get(1))).collect();
    assert_eq!(read, vec![(7, "nightly-export ✓".to_owned())]);
}

#[test]
fn each_test_gets_a_database_of_its_own() {
    let server = PgServer::shared();
    let first = server.fresh_database("same name");
    let second = server.fresh_database("same name");
    assert_ne!(first, second);
    let mut client = server.connect(&first);
    client
        .batch_execute("CREATE TABLE only_here (x int)")
        .unwrap();
    let mut other = server.connect(&second);
    let found: i64 = other
        .query_one(
            "SELECT count(*) FROM pg_tables WHERE tablename = 'only_here'",
            &[],
        )
        .unwrap()
        .get(0);
    assert_eq!(found, 0, "{second} sees a table made in {first}");
}

#[test]
fn the_server_listens_on_no_tcp_port() {
    let server = PgServer::shared();
    let mut client = server.connect("postgres");
    let listen: String = client
        .query_one("SHOW listen_addresses", &[])
        .unwrap()
        .get(0);
    assert_eq!(listen, "");
    assert!(server.dir().join(".s.PGSQL.5432").exists());
}

/// A server dropped by its test is stopped, and its directory removed, before the
/// drop returns.
#[test]
fn a_server_of_its_own_is_gone_when_dropped() {
    let server = PgServer::start();
    eprintln!("own server started in {:?}", server.started_in());
    assert!(server.is_running());
    let pid = server.pid();
    let dir = server.dir().to_owned();
    drop(server);
    assert!(
        !process_exists(pid),
        "postmaster {pid} still runs after drop"
    );
    assert!(!dir.exists(), "{} is still there after drop", dir.display());
}

const CHILD: &str = "JOBLEDGER_PG_TEST_CHILD";

/// The shared server is a static, which is never dropped: ending its test process,
/// by an exit that runs no destructor or by SIGKILL, must still stop it and remove
/// its directory. This test runs itself again as that process.
#[test]
fn the_shared_server_ends_with_its_test_process() {
    if let Ok(report) = std::env::var(CHILD) {
        child_holds_the_shared_server(Path::new(&report));
    }
    for how in ["exit", "kill"] {
        let scratch = tempfile::tempdir().unwrap();
        let report = scratch.path().join("server");
        let mut child = Command::new(std::env::current_exe().unwrap())
            .args([
                "--exact",
                "the_shared_server_ends_with_its_test_process",
                "--nocapture",
            ])
            .env(CHILD, &report)
            .stdin(Stdio::null())
            .spawn()
            .unwrap();
        let (pid, dir) = wait_for_report(&report, &mut child);
        assert!(
            process_exists(pid),
            "the child's server {pid} is not running"
        );
        if how == "kill" {
            child.kill().unwrap();
        } else {
            std::fs::write(report.with_extension("exit"), "").unwrap();
        }
        child.wait().unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while (process_exists(pid) || dir.exists()) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            !process_exists(pid),
            "after the test process ended ({how}), its server {pid} still runs"
        );
        assert!(
            !dir.exists(),
            "after the test process ended ({how}), {} is still there",
            dir.display()
        );
    }
}

fn child_holds_the_shared_server(report: &Path) -> ! {
    let server = PgServer::shared();
    let line = format!("{}\n{}\n", server.pid(), server.dir().display());
    let partial = report.with_extension("partial");
    std::fs::write(&partial, line).unwrap();
    std::fs::rename(&partial, report).unwrap();
    // Waits to be killed, or to be told to exit once the parent has seen the server.
    loop {
        if report.with_extension("exit").exists() {
            // As the test harness ends a process: no destructor of a static runs.
            std::process::exit(0);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn wait_for_report(report: &Path, child: &mut std::process::Child) -> (u32, PathBuf) {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(text) = std::fs::read_to_string(report) {
            let mut lines = text.lines();
            let pid = lines.next().unwrap().parse().unwrap();
            let dir = PathBuf::from(lines.next().unwrap());
            return (pid, dir);
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("the child test process ended ({status}) before its server started");
        }
        assert!(
            Instant::now() < deadline,
            "the child test process started no server within a minute"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Whether a process runs (a zombie is not running: the postmaster is reaped by init).
fn process_exists(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit_once(") ")
            .is_some_and(|(_, rest)| rest.starts_with('Z')),
        Err(_) => false,
    }
}

const SECRET: &str = "s3cr3t-Pw";

#[test]
fn redact_hides_the_password_of_a_url() {
    for (url, shown) in [
        (
            "postgresql://ledger:s3cr3t-Pw@db.example.com:5432/jobs?sslmode=verify-full",
            "postgresql://ledger:***@db.example.com:5432/jobs?sslmode=verify-full",
        ),
        (
            "postgres://ledger:s3cr3t-Pw@db/jobs",
            "postgres://ledger:***@db/jobs",
        ),
        // A raw `@` or `/` in the password still hides all of it.
        (
            "postgresql://ledger:s3c@r/3t-Pw@db/jobs",
            "postgresql://ledger:***@db/jobs",
        ),
        (
            "postgresql://ledger@/jobs?host=/run/pg&password=s3cr3t-Pw&application_name=jl",
            "postgresql://ledger@/jobs?host=/run/pg&password=***&application_name=jl",
        ),
        (
            "postgresql:///jobs?pass%77ord=s3cr3t-Pw#frag",
            "postgresql:///jobs?pass%77ord=***#frag",
        ),
        (
            "postgresql://h/jobs?sslpassword=s3cr3t-Pw",
            "postgresql://h/jobs?sslpassword=***",
        ),
        // A mistyped scheme is still read as a URL.
        (
            "postgresq://ledger:s3cr3t-Pw@db/jobs",
            "postgresq://ledger:***@db/jobs",
        ),
        ("postgresql://ledger@db/jobs", "postgresql://ledger@db/jobs"),
    ] {
        assert_eq!(redact(url), shown, "{url}");
        assert!(!redact(url).contains("3t-Pw"), "{url}");
    }
}

#[test]
fn redact_hides_the_password_of_key_value_pairs() {
    for (conninfo, shown) in [
        (
            "host=db user=ledger password=s3cr3t-Pw dbname=jobs",
            "host=db user=ledger password=*** dbname=jobs",
        ),
        (
            "host=db password = 's3cr3t-Pw with \\' quote' dbname=jobs",
            "host=db password = *** dbname=jobs",
        ),
        ("password=s3cr3t\\ -Pw host=db", "password=*** host=db"),
        ("sslpassword=s3cr3t-Pw", "sslpassword=***"),
        ("host=db user=ledger", "host=db user=ledger"),
        // Anything it cannot read as key=value is hidden from there on.
        ("host=db !password=s3cr3t-Pw", "host=db ***"),
        ("host=db user s3cr3t-Pw", "host=db user ***"),
    ] {
        assert_eq!(redact(conninfo), shown, "{conninfo}");
        assert!(!redact(conninfo).contains("3t-Pw"), "{conninfo}");
    }
}

/// What the ledger would print about a connection: the crate's parsed `Config`
/// (Debug), and the error of a connection that failed (Display and Debug).
#[test]
fn the_postgres_crate_prints_no_password() {
    let url = format!("postgresql://ledger:{SECRET}@/jobs?host=/nonexistent-jobledger-socket");
    let config: postgres::Config = url.parse().unwrap();
    let debug = format!("{config:?}");
    assert!(!debug.contains(SECRET), "Config's Debug shows it: {debug}");

    let err = postgres::Client::connect(&url, rustls_connector())
        .err()
        .expect("no server listens there");
    for shown in [err.to_string(), format!("{err:?}")] {
        assert!(!shown.contains(SECRET), "the error shows it: {shown}");
    }

    let pairs = format!("host=/nonexistent-jobledger-socket user=ledger password={SECRET}");
    let config: postgres::Config = pairs.parse().unwrap();
    assert!(!format!("{config:?}").contains(SECRET));
}
