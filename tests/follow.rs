//! `ingest --follow FILE`, with the real binary on a real disk: a
//! file read as it grows, as `tail -F` reads it.
//!
//! Lines written in pieces are committed once their end arrives and are seen by another
//! reader while the follower goes on; a truncated file is read again, a rotated one to
//! its end and then the new one; SIGTERM and SIGINT end it with exit 0, every whole line
//! committed and an unfinished last line left unread; after a SIGKILL, a plain ingest
//! of the whole file gives the ledger one clean ingest gives; a console open on the
//! ledger shows new callbacks as they arrive. Each ledger is compared, table by table,
//! with a clean ingest of the same lines.
//!
//! Waits are bounded generously and assert nothing about speed.

mod support;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use support::binary;
use support::crash::{ingest_command, ingest_to_the_end};
use support::disk::disk_dir;
use support::fixture::{self, NOW};
use support::pty::PtySession;

/// Long enough for a loaded 2-core machine running other tests; a pass takes far less.
const PATIENCE: Duration = Duration::from_secs(30);

/// The synthetic stream of `jobs` jobs, line by line, each with its LF.
fn stream_lines(jobs: u32) -> Vec<Vec<u8>> {
    fixture::synthetic_stream(jobs)
        .split_inclusive(|b| *b == b'\n')
        .map(<[u8]>::to_vec)
        .collect()
}

/// A running `jobledger ingest --follow FILE`, killed if a test fails while it runs.
struct Follower {
    child: Option<Child>,
    stderr: std::sync::mpsc::Receiver<String>,
}

impl Follower {
    fn start(db: &Path, file: &Path) -> Follower {
        let mut child = binary::command(db, NOW)
            .arg("ingest")
            .arg("--follow")
            .arg(file)
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        // Read as it comes, so that a test can wait for a message and a full pipe never
        // stops the follower.
        let (sender, stderr) = std::sync::mpsc::channel();
        let pipe = child.stderr.take().expect("stderr piped");
        std::thread::spawn(move || {
            for line in BufReader::new(pipe).lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Follower {
            child: Some(child),
            stderr,
        }
    }

    fn pid(&self) -> String {
        self.child.as_ref().expect("running").id().to_string()
    }

    fn still_running(&mut self) -> bool {
        let child = self.child.as_mut().expect("running");
        child.try_wait().expect("the child can be asked").is_none()
    }

    /// Sends `signal` (`TERM`, `INT`, `KILL`) and waits for the end: exit status,
    /// standard output and standard error.
    fn signal(mut self, signal: &str) -> (Output, String) {
        let status = Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(self.pid())
            .status()
            .expect("kill runs");
        assert!(status.success(), "kill -{signal} failed");
        let mut child = self.child.take().expect("running");
        let mut stdout = Vec::new();
        let mut pipe = child.stdout.take().expect("stdout piped");
        let reading = std::thread::spawn(move || pipe.read_to_end(&mut stdout).map(|_| stdout));
        let started = Instant::now();
        let status = loop {
            if let Some(status) = child.try_wait().expect("the child can be asked") {
                break status;
            }
            if started.elapsed() > PATIENCE {
                let _ = child.kill();
                panic!("the follower did not end within {PATIENCE:?} of SIG{signal}");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        let stdout = reading.join().expect("reader").expect("stdout read");
        let stderr: Vec<String> = self.stderr.try_iter().collect();
        let output = Output {
            status,
            stdout,
            stderr: Vec::new(),
        };
        (output, stderr.join("\n"))
    }

    /// Waits until the follower has said something holding `words` on standard error.
    fn wait_to_hear(&self, words: &str) -> String {
        let deadline = Instant::now() + PATIENCE;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.stderr.recv_timeout(left) {
                Ok(line) if line.contains(words) => return line,
                Ok(_) => {}
                Err(_) => break,
            }
        }
        panic!("the follower never said {words:?}");
    }
}

impl Drop for Follower {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Rows of `table`, read as another reader reads the ledger (read-only, while the
/// follower writes); 0 while there is no ledger yet.
fn kept(db: &Path, table: &str) -> i64 {
    let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
    let sql = format!("SELECT count(*) FROM {table}");
    rusqlite::Connection::open_with_flags(db, flags)
        .and_then(|conn| conn.query_row(&sql, [], |r| r.get(0)))
        .unwrap_or(0)
}

/// Lines the ledger keeps.
fn kept_lines(db: &Path) -> i64 {
    kept(db, "input_lines")
}

/// Waits until the ledger keeps `want` lines, and fails if it ever keeps more.
fn wait_for_lines(db: &Path, want: usize) {
    let want = i64::try_from(want).unwrap();
    let deadline = Instant::now() + PATIENCE;
    loop {
        let kept = kept_lines(db);
        assert!(
            kept <= want,
            "{kept} lines kept, more than the {want} whole ones"
        );
        if kept == want {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{kept} of {want} lines kept after {PATIENCE:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

fn append(path: &Path, bytes: &[u8]) {
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(path)
        .unwrap();
    file.write_all(bytes).unwrap();
}

/// The ledger one clean, plain ingest of `lines` gives, dumped (at the same clock).
fn clean_ingest(
    dir: &Path,
    name: &str,
    lines: &[Vec<u8>],
) -> std::collections::BTreeMap<String, Vec<String>> {
    let file = dir.join(format!("{name}.ndjson"));
    std::fs::write(&file, lines.concat()).unwrap();
    let db = dir.join(format!("{name}.db"));
    ingest_to_the_end(&db, &file);
    fixture::dump(&db)
}

fn assert_same_ledger(db: &Path, clean: &std::collections::BTreeMap<String, Vec<String>>) {
    fixture::assert_sound(db);
    let followed = fixture::dump(db);
    for (table, rows) in clean {
        assert_eq!(
            followed.get(table),
            Some(rows),
            "table {table} differs from one clean ingest"
        );
    }
    assert_eq!(followed.len(), clean.len());
}

fn report_of(output: &Output) -> String {
    assert!(
        output.status.success(),
        "the follower should end with exit 0: {:?}",
        output.status
    );
    String::from_utf8(output.stdout.clone()).unwrap()
}

/// A directory on disk with a stream file and a ledger path, and the stream's lines.
struct Scene {
    dir: tempfile::TempDir,
    db: PathBuf,
    file: PathBuf,
    lines: Vec<Vec<u8>>,
}

impl Scene {
    /// The synthetic stream of `jobs` jobs, its first `first` lines in the file, and a
    /// follower of the file that has committed them.
    fn following(jobs: u32, first: usize) -> (Scene, Follower) {
        let dir = disk_dir("follow-");
        let (db, file) = (dir.path().join("f.db"), dir.path().join("events.ndjson"));
        let lines = stream_lines(jobs);
        std::fs::write(&file, lines[..first].concat()).unwrap();
        let follower = Follower::start(&db, &file);
        wait_for_lines(&db, first);
        let scene = Scene {
            dir,
            db,
            file,
            lines,
        };
        (scene, follower)
    }
}

#[test]
fn lines_written_in_pieces_are_committed_once_whole_and_seen_while_it_follows() {
    let (s, mut follower) = Scene::following(10, 5);
    // One line in two writes: the first half is no line yet, however long it waits.
    let (head, tail) = s.lines[5].split_at(s.lines[5].len() / 2);
    append(&s.file, head);
    std::thread::sleep(Duration::from_millis(1500));
    wait_for_lines(&s.db, 5);
    append(&s.file, tail);
    wait_for_lines(&s.db, 6);
    // Lines that trickle in, one at a time, each alone: each is committed and seen.
    for (n, line) in s.lines.iter().enumerate().skip(6) {
        append(&s.file, line);
        wait_for_lines(&s.db, n + 1);
    }
    assert!(follower.still_running(), "the follower goes on");
    let (output, stderr) = follower.signal("TERM");
    assert!(report_of(&output).starts_with(&format!("{} lines read", s.lines.len())));
    // Not a terminal: a line at the start and one at the stop, nothing per commit.
    assert_eq!(stderr.lines().count(), 2, "{stderr}");
    assert!(stderr.starts_with("following "), "{stderr}");
    assert!(stderr.ends_with("stopping"), "{stderr}");
    assert_same_ledger(&s.db, &clean_ingest(s.dir.path(), "clean", &s.lines));
}

#[test]
fn a_truncated_file_is_read_again_from_its_start() {
    let (s, follower) = Scene::following(10, 20);
    // Rewritten shorter, starting with a line the ledger holds already.
    let again: Vec<Vec<u8>> = std::iter::once(s.lines[0].clone())
        .chain(s.lines[20..24].iter().cloned())
        .collect();
    assert!(again.concat().len() < s.lines[..20].concat().len());
    std::fs::write(&s.file, again.concat()).unwrap();
    follower.wait_to_hear("truncated");
    wait_for_lines(&s.db, 24);
    let (output, _) = follower.signal("TERM");
    assert!(report_of(&output).contains("1 already ingested"));
    assert_same_ledger(&s.db, &clean_ingest(s.dir.path(), "clean", &s.lines[..24]));
}

#[test]
fn a_rotated_file_is_read_to_its_end_and_then_the_new_one_from_its_start() {
    let (s, follower) = Scene::following(10, 10);
    let rotated = s.dir.path().join("events.ndjson.1");
    // Renamed away; its writer still finishes two lines and starts a third there.
    std::fs::rename(&s.file, &rotated).unwrap();
    append(&rotated, &s.lines[10..12].concat());
    append(&rotated, b"{\"event\":\"callb");
    std::fs::write(&s.file, s.lines[12..20].concat()).unwrap();
    follower.wait_to_hear("rotated");
    let unfinished = follower.wait_to_hear("left unread");
    assert!(unfinished.contains("(15 bytes)"), "{unfinished}");
    wait_for_lines(&s.db, 20);
    let (output, _) = follower.signal("TERM");
    let report = report_of(&output);
    assert!(!report.contains("left unread"), "{report}");
    assert_same_ledger(&s.db, &clean_ingest(s.dir.path(), "clean", &s.lines[..20]));
}

#[test]
fn a_missing_file_is_waited_for() {
    let dir = disk_dir("follow-");
    let (db, file) = (dir.path().join("f.db"), dir.path().join("events.ndjson"));
    let lines = stream_lines(10);
    let follower = Follower::start(&db, &file);
    follower.wait_to_hear("waiting for one to appear");
    std::fs::write(&file, lines[..7].concat()).unwrap();
    follower.wait_to_hear("appeared");
    wait_for_lines(&db, 7);
    let (output, _) = follower.signal("INT");
    report_of(&output);
}

/// SIGTERM or SIGINT: lines written just before it are committed too, the unfinished
/// last line is left unread and reported, even when all of it but its LF is there (a
/// whole JSON value, which a writer may still follow with more); the next ingest of
/// the finished file reads it.
fn stopped_by(signal: &str, all_but_the_lf: bool) {
    let (s, mut follower) = Scene::following(10, 5);
    let cut = if all_but_the_lf {
        s.lines[15].len() - 1
    } else {
        s.lines[15].len() / 2
    };
    let (head, tail) = s.lines[15].split_at(cut);
    append(&s.file, &s.lines[5..15].concat());
    append(&s.file, head);
    assert!(follower.still_running());
    let (output, stderr) = follower.signal(signal);
    let report = report_of(&output);
    assert!(report.starts_with("15 lines read"), "{report}");
    assert!(
        report.contains(&format!("the last line ({} bytes)", head.len())),
        "{report}"
    );
    assert!(report.contains("left unread"), "{report}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    // At least the start of the last line was not read yet.
    assert!(stderr.contains("stopping once the "), "{stderr}");
    assert_eq!(kept_lines(&s.db), 15);
    append(&s.file, tail);
    ingest_to_the_end(&s.db, &s.file);
    assert_same_ledger(&s.db, &clean_ingest(s.dir.path(), "clean", &s.lines[..16]));
}

#[test]
fn sigterm_ends_it_with_every_whole_line_committed() {
    stopped_by("TERM", false);
}

#[test]
fn ctrl_c_ends_it_with_every_whole_line_committed() {
    stopped_by("INT", true);
}

#[test]
fn stopped_while_lines_pour_in_faster_than_it_reads_it_still_ends() {
    let (s, mut follower) = Scene::following(300, 100);
    let stream = s.lines.concat();
    let pouring = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true));
    let writing = {
        let (file, pouring) = (s.file.clone(), std::sync::Arc::clone(&pouring));
        std::thread::spawn(move || {
            // The same lines again and again (already ingested, still read), bounded.
            let mut poured = 0;
            while pouring.load(std::sync::atomic::Ordering::Relaxed) && poured < 128 << 20 {
                for piece in stream.chunks(32 << 10) {
                    append(&file, piece);
                    poured += piece.len();
                    std::thread::sleep(Duration::from_millis(2));
                }
            }
        })
    };
    std::thread::sleep(Duration::from_millis(500));
    assert!(follower.still_running());
    let (output, _) = follower.signal("TERM");
    pouring.store(false, std::sync::atomic::Ordering::Relaxed);
    writing.join().unwrap();
    let report = report_of(&output);
    assert!(report.contains("already ingested"), "{report}");
    fixture::assert_sound(&s.db);
}

#[test]
fn the_console_open_on_the_ledger_shows_new_callbacks_as_they_arrive() {
    let (s, follower) = Scene::following(100, 100);
    let db = s.db.to_str().expect("a UTF-8 path");
    let console = PtySession::spawn(
        &["--db", db, "--now", NOW, "review"],
        s.dir.path(),
        (160, 48),
        &[],
    );
    console.wait_for(&format!("All callbacks {}", kept(&s.db, "callbacks")));
    let mut from = 100;
    for end in [250, s.lines.len()] {
        let before = kept(&s.db, "callbacks");
        append(&s.file, &s.lines[from..end].concat());
        wait_for_lines(&s.db, end);
        let now = kept(&s.db, "callbacks");
        assert!(now > before, "the new lines hold callbacks");
        console.wait_for(&format!("All callbacks {now}"));
        from = end;
    }
    console.quit();
    let (output, _) = follower.signal("TERM");
    report_of(&output);
}

#[test]
fn killed_while_following_a_plain_ingest_finishes_to_the_clean_ledger() {
    let third = stream_lines(300).len() / 3;
    let (s, follower) = Scene::following(300, third);
    // Killed while lines pour in, in pieces that cut lines in two.
    let rest = s.lines[third..].concat();
    let writing = {
        let file = s.file.clone();
        std::thread::spawn(move || {
            for piece in rest.chunks(1000) {
                append(&file, piece);
                std::thread::sleep(Duration::from_millis(5));
            }
        })
    };
    // After a commit of the poured lines, most likely in the middle of the pouring.
    let deadline = Instant::now() + PATIENCE;
    while kept_lines(&s.db) <= i64::try_from(third).unwrap() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(10));
    }
    let (output, _) = follower.signal("KILL");
    assert!(!output.status.success(), "it was killed");
    writing.join().unwrap();
    // What the kill left: a sound file holding a prefix of the stream, whole batches.
    let mut seen = std::collections::BTreeSet::new();
    let order: Vec<&[u8]> = s
        .lines
        .iter()
        .map(|l| l.strip_suffix(b"\n").unwrap_or(l))
        .filter(|l| seen.insert(*l))
        .collect();
    let kept = fixture::kept_prefix(&s.db, &order);
    assert!(kept >= i64::try_from(third).unwrap());
    eprintln!("killed with {kept} of {} lines kept", order.len());
    let status = ingest_command(&s.db, &s.file).status().unwrap();
    assert!(status.success());
    assert_same_ledger(&s.db, &clean_ingest(s.dir.path(), "clean", &s.lines));
}

#[test]
fn following_standard_input_or_a_complete_input_is_refused_with_a_sentence() {
    let w = binary::Workdir::new();
    let file = w.file("events.ndjson", b"");
    let file = file.to_str().unwrap();
    binary::refused(
        &w.run(&["ingest", "--follow", "-"]),
        &["standard input cannot be followed"],
    );
    binary::refused(
        &w.run(&["ingest", "--follow"]),
        &["standard input cannot be followed"],
    );
    binary::refused(
        &w.run(&["ingest", "--follow", "--complete", file]),
        &["--complete", "never complete"],
    );
    binary::refused(
        &w.run(&["ingest", "--follow", w.dir.path().to_str().unwrap()]),
        &["cannot follow", "regular file"],
    );
    assert!(!w.db.exists(), "a refusal writes nothing");
    let help = w.ok(&["ingest", "--help"]);
    assert!(help.contains("--follow"), "{help}");
    assert!(help.contains("tail -F"), "{help}");
}
