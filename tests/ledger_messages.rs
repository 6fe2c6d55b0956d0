//! What each command says when the ledger's path holds something it cannot use as it
//! is: a symbolic link to nothing, a directory, a file marked as a
//! ledger with none of its tables, a directory that takes no new files, and a ledger
//! others may read. Each message says what is wrong and what to do; nothing is written.
//! (A missing ledger, an empty file, another application's file and a read-only file
//! are in `cli_refusals.rs` and `ledger_file.rs`.)
//!
//! Tests run as root here, where permission bits do not stop writes: the directory
//! that takes no new files is made with `chattr +i` (see `support/disk.rs`; the test
//! fails, naming the package, where it cannot be).

mod support;

use std::path::Path;
use std::process::Output;

use jobledger::clock::Clock;
use jobledger::console::App;
use jobledger::store::Ledger;
use support::binary::{self, Workdir, refused, succeeded};
use support::disk::{Immutable, disk_dir};
use support::fixture::{self, NOW};

/// Every command that opens the ledger, each as a person would type it.
const EVERY_COMMAND: &[&[&str]] = &[
    &["summary"],
    &["callbacks", "--json"],
    &["reconcile"],
    &["outbox"],
    &["answer", "5", "--verdict", "noise"],
    &["owner", "booking-1043", "--owner", "ops:lee"],
    &["request", "retry", "booking-1043", "--by", "ana"],
    &["ingest", "/dev/null"],
    &["review"],
    &["demo", "--print"],
];

fn run(db: &Path, args: &[&str]) -> Output {
    binary::run_at(db, NOW, args)
}

#[test]
fn a_symbolic_link_to_a_missing_file_is_named_as_one_by_every_command() {
    let w = Workdir::new();
    let target = w.dir.path().join("moved-away.db");
    let link = w.dir.path().join("ledger-link.db");
    std::os::unix::fs::symlink(&target, &link).unwrap();
    for args in EVERY_COMMAND {
        let said = refused(
            &run(&link, args),
            &["symbolic link to", "moved-away.db", "does not exist"],
        );
        assert!(said.contains("point the link"), "{args:?}: {said}");
        assert!(!target.exists(), "{args:?} made the link's target");
    }
}

#[test]
fn a_loop_of_symbolic_links_is_named_as_one_by_every_command() {
    let w = Workdir::new();
    let (one, two) = (w.dir.path().join("one.db"), w.dir.path().join("two.db"));
    std::os::unix::fs::symlink(&two, &one).unwrap();
    std::os::unix::fs::symlink(&one, &two).unwrap();
    for args in EVERY_COMMAND {
        let said = refused(&run(&one, args), &["loop of symbolic links", "one.db"]);
        assert!(!said.contains("does not exist"), "{args:?}: {said}");
        assert!(!said.contains("os error"), "{args:?}: {said}");
    }
    assert_eq!(files_in(w.dir.path()), ["one.db", "two.db"], "nothing made");
}

/// The names in `dir`, sorted.
fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Runs a command on `db`, failing the test (not hanging it) should the command
/// wait for ever, as SQLite does on a named pipe.
fn run_within(db: &Path, args: &[&str]) -> Output {
    binary::run_at_within(db, NOW, args, 20)
}

#[test]
fn a_named_pipe_or_a_socket_at_the_ledger_path_is_refused_and_nothing_is_made_beside_it() {
    let w = Workdir::new();
    let pipe = w.dir.path().join("ledger.db");
    let made = support::disk::tool(
        "mkfifo",
        &[pipe.to_str().unwrap()],
        "apt-get install coreutils",
    );
    assert!(made.status.success(), "mkfifo: {made:?}");
    let socket = w.dir.path().join("ledger.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    for (db, what) in [(&pipe, "is a named pipe (FIFO)"), (&socket, "is a socket")] {
        for args in EVERY_COMMAND {
            let said = refused(&run_within(db, args), &[what, "not a ledger file"]);
            assert!(!said.contains("empty file"), "{args:?}: {said}");
        }
    }
    assert_eq!(
        files_in(w.dir.path()),
        ["ledger.db", "ledger.sock"],
        "no -journal, -wal, -shm or -waiting beside them"
    );
}

#[test]
fn a_device_at_the_ledger_path_is_refused_and_nothing_is_made_beside_it() {
    let beside = |device: &str| {
        ["-journal", "-wal", "-shm", "-waiting"].map(|suffix| format!("{device}{suffix}"))
    };
    let devices = ["/dev/null", "/dev/zero", "/dev/full"];
    for device in devices {
        for file in beside(device) {
            assert!(
                !Path::new(&file).exists(),
                "{file} is there before the test (left by an earlier jobledger, and anyone may write it): remove it, then run the test again"
            );
        }
    }
    let w = Workdir::new();
    let stream = w.file("s.ndjson", fixture::booking_afternoon().as_bytes());
    for device in devices {
        for args in [
            &["ingest", stream.to_str().unwrap()][..],
            &["summary"],
            &["callbacks", "--json"],
            &["answer", "5", "--verdict", "noise"],
            &["demo", "--print"],
        ] {
            let said = refused(
                &run_within(Path::new(device), args),
                &["is a character device", "not a ledger file", device],
            );
            assert!(!said.contains("I/O error"), "{args:?}: {said}");
            for file in beside(device) {
                assert!(!Path::new(&file).exists(), "{args:?} made {file}");
            }
        }
    }
}

#[test]
fn a_directory_is_named_as_one_by_every_command() {
    let w = Workdir::new();
    let dir = w.dir.path().join("ledgers");
    std::fs::create_dir(&dir).unwrap();
    for args in EVERY_COMMAND {
        let said = refused(&run(&dir, args), &["is a directory"]);
        assert!(!said.contains("unable to open"), "{args:?}: {said}");
    }
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0, "nothing made");
}

#[test]
fn a_file_marked_as_a_ledger_without_its_tables_is_called_incomplete_and_left_as_it_was() {
    let w = Workdir::new();
    {
        let conn = rusqlite::Connection::open(&w.db).unwrap();
        conn.execute_batch(&format!(
            "PRAGMA application_id = {}; PRAGMA user_version = {};",
            jobledger::store::APPLICATION_ID,
            jobledger::store::SCHEMA_VERSION
        ))
        .unwrap();
    }
    let before = std::fs::read(&w.db).unwrap();
    // The console needs a terminal before it opens anything; the demo builds its own.
    for args in EVERY_COMMAND
        .iter()
        .filter(|a| a[0] != "demo" && a[0] != "review")
    {
        let said = refused(&run(&w.db, args), &["incomplete or damaged", "check"]);
        assert!(!said.contains("no such table"), "{args:?}: {said}");
    }
    assert_eq!(
        std::fs::read(&w.db).unwrap(),
        before,
        "the file is unchanged"
    );
}

#[test]
fn a_ledger_in_a_directory_that_takes_no_files_is_read_and_a_write_says_why_not() {
    let dir = disk_dir("ledger-messages-");
    // A name SQLite would read as URI syntax, were it one: `?`, `#` and `%`.
    let db = dir.path().join("odd?name#1%20.db");
    succeeded(&run(&db, &["demo", "--print"]), &["demo"]);
    let before = fixture::dump(&db);
    {
        let _guard = Immutable::set(dir.path());
        let out = run(&db, &["summary", "--json"]);
        let summary: serde_json::Value =
            serde_json::from_str(&succeeded(&out, &["summary"])).unwrap();
        assert_eq!(summary["callbacks"], 15, "{summary}");
        let said = refused(
            &run(&db, &["answer", "5", "--verdict", "noise"]),
            &["is not writable", "--read-only"],
        );
        assert!(!said.contains("unable to open"), "{said}");
        // The console, read-only, opens it and shows its rows.
        let app = App::open(
            &jobledger::store::Location::File(db.clone()),
            Clock::Fixed(fixture::now()),
            "ana".into(),
            true,
        )
        .expect("the console opens read-only");
        assert_eq!(app.ledger().callback(15).unwrap().map(|c| c.seq), Some(15));
        drop(app);
        assert!(Ledger::open(&db).is_err(), "a write open is refused there");
    }
    assert_eq!(fixture::dump(&db), before, "nothing was written");
}

#[cfg(unix)]
#[test]
fn a_ledger_others_may_read_is_named_once_and_its_wal_and_shm_are_owner_only() {
    use std::os::unix::fs::PermissionsExt;
    let (w, _) = Workdir::with_demo();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&w.db), 0o600);
    let out = w.run(&["summary"]);
    assert!(out.stderr.is_empty(), "no warning for an owner-only ledger");

    std::fs::set_permissions(&w.db, std::fs::Permissions::from_mode(0o644)).unwrap();
    for args in [&["summary"][..], &["answer", "5", "--verdict", "noise"][..]] {
        let out = w.run(args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{args:?}: {stderr}");
        let fix = format!("chmod 600 {}", w.db.display());
        assert_eq!(stderr.matches(&fix).count(), 1, "{args:?}: {stderr}");
        assert!(stderr.contains("can be read by others"), "{stderr}");
    }
    // The files made beside it while it is open are owner-only, whatever its mode.
    let ledger = Ledger::open(&w.db).unwrap();
    ledger.data_version().unwrap();
    for suffix in ["-wal", "-shm"] {
        let mut side = w.db.clone().into_os_string();
        side.push(suffix);
        assert_eq!(mode(Path::new(&side)), 0o600, "{side:?}");
    }
    assert_eq!(
        mode(&w.db),
        0o644,
        "the ledger's own mode is the person's to change"
    );
}

#[cfg(unix)]
#[test]
fn a_ledger_opened_through_a_link_keeps_its_wal_and_shm_owner_only_beside_the_file() {
    use std::os::unix::fs::PermissionsExt;
    let (w, _) = Workdir::with_demo();
    let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
    std::fs::set_permissions(&w.db, std::fs::Permissions::from_mode(0o644)).unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let link = elsewhere.path().join("link.db");
    std::os::unix::fs::symlink(&w.db, &link).unwrap();
    // SQLite keeps the log and index beside the file the link leads to.
    let ledger = Ledger::open(&link).unwrap();
    ledger.data_version().unwrap();
    for suffix in ["-wal", "-shm"] {
        let mut side = w.db.clone().into_os_string();
        side.push(suffix);
        assert_eq!(mode(Path::new(&side)), 0o600, "{side:?}");
    }
}
