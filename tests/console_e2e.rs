//! The real binary in a pseudo-terminal: answer the held callback, leave, and find the
//! answer with the command line.

#[path = "support/terminal.rs"]
mod terminal;

/// The real binary in a pseudo-terminal: answer the held callback, leave, and find
/// the answer with the command line.
#[test]
fn end_to_end_in_a_pseudo_terminal() {
    use std::io::{Read, Write};
    use std::sync::{Arc, Mutex};
    use std::time::{Duration, Instant};

    use portable_pty::CommandBuilder;

    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("e2e.db");
    let bin = env!("CARGO_BIN_EXE_jobledger");
    let pty = terminal::pty().expect("a pseudo-terminal");
    let mut cmd = CommandBuilder::new(bin);
    cmd.args(["--db", db.to_str().unwrap(), "demo"]);
    cmd.env("JOBLEDGER_REVIEWER", "e2e-reviewer");
    cmd.env("TERM", "xterm-256color");
    cmd.cwd(dir.path());
    let mut child = pty.slave.spawn_command(cmd).expect("start jobledger");
    drop(pty.slave);
    let parser = Arc::new(Mutex::new(terminal::vt100_screen()));
    let mut reader = pty.master.try_clone_reader().unwrap();
    let screen_feed = Arc::clone(&parser);
    let pump = std::thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n) = reader.read(&mut buf) {
            if n == 0 {
                break;
            }
            screen_feed.lock().unwrap().process(&buf[..n]);
        }
    });
    let mut writer = pty.master.take_writer().unwrap();
    let wait_until = |what: &str, done: &dyn Fn(&str) -> bool| {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let contents = parser.lock().unwrap().screen().contents();
            if done(&contents) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {what}; screen:\n{contents}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    let wait_for = |needle: &str| wait_until(&format!("{needle:?}"), &|s| s.contains(needle));
    let mut send = |bytes: &[u8]| {
        writer.write_all(bytes).unwrap();
        writer.flush().unwrap();
    };
    wait_for("held for a person");
    send(b"1");
    wait_for("possible_duplicate_effect");
    send(b"a");
    wait_for("Answer callback #2");
    send(b"\x1b[B"); // Down: duplicate_effect
    send(b"\t");
    send(b"seen in e2e");
    wait_for("seen in e2e");
    send(b"\r");
    wait_for("Answer 1 written on callback #2");
    send(b"\r");
    // The confirmation names the answer too: wait for it to close and the row to show
    // the answer (its column may cut the reviewer's name short).
    wait_until("the held row to show the answer", &|s| {
        !s.contains("Answer 1 written") && s.contains("duplicate_effect by e2e-")
    });
    send(b"q");
    let deadline = Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(Instant::now() < deadline, "jobledger did not leave on q");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "jobledger exited with {status:?}");
    drop(pty.master);
    let _ = pump.join();

    let out = std::process::Command::new(bin)
        .args(["--db", db.to_str().unwrap(), "callbacks", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let list: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let held = list
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["seq"] == 2)
        .expect("callback #2");
    assert_eq!(held["answer"]["verdict"], "duplicate_effect");
    assert_eq!(held["answer"]["reviewer"], "e2e-reviewer");
    assert_eq!(held["answer"]["note"], "seen in e2e");
}
