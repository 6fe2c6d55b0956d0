//! The real binary in a pseudo-terminal, its screen read back through a terminal
//! emulator (`vt100`): what a reviewer would see, keys and all, with the real terminal
//! loop (no action sent by hand).

use std::io::{Read, Write};
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use portable_pty::{Child, CommandBuilder, MasterPty, PtySize, native_pty_system};

/// How long a screen may take to show what a test waits for: generous, since a debug
/// build on a loaded two-core machine draws slowly; a test that passes takes far less.
const PATIENCE: Duration = Duration::from_secs(60);

/// A running `jobledger` in a pseudo-terminal of a fixed size.
pub struct PtySession {
    child: Box<dyn Child + Send + Sync>,
    master: Option<Box<dyn MasterPty + Send>>,
    writer: Box<dyn Write + Send>,
    screen: Arc<Mutex<vt100::Parser>>,
    pump: Option<JoinHandle<()>>,
}

impl PtySession {
    /// Starts the binary with `args` (from `cwd`) in a `cols` x `rows` terminal.
    pub fn spawn(args: &[&str], cwd: &Path, size: (u16, u16), env: &[(&str, &str)]) -> PtySession {
        let (cols, rows) = size;
        let pty = native_pty_system()
            .openpty(PtySize {
                rows,
                cols,
                pixel_width: 0,
                pixel_height: 0,
            })
            .expect("a pseudo-terminal");
        let mut cmd = CommandBuilder::new(super::binary::bin());
        cmd.args(args);
        cmd.env_remove("JOBLEDGER_DB");
        cmd.env_remove("JOBLEDGER_REVIEWER");
        cmd.env("TERM", "xterm-256color");
        for (key, value) in env {
            cmd.env(key, value);
        }
        cmd.cwd(cwd);
        let child = pty.slave.spawn_command(cmd).expect("start jobledger");
        drop(pty.slave);
        let screen = Arc::new(Mutex::new(vt100::Parser::new(
            std::num::NonZero::new(rows).expect("rows"),
            std::num::NonZero::new(cols).expect("columns"),
            0,
        )));
        let mut reader = pty
            .master
            .try_clone_reader()
            .expect("the terminal's output");
        let feed = Arc::clone(&screen);
        let pump = std::thread::spawn(move || {
            let mut buf = [0u8; 8192];
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 {
                    break;
                }
                feed.lock().unwrap().process(&buf[..n]);
            }
        });
        let writer = pty.master.take_writer().expect("the terminal's input");
        PtySession {
            child,
            master: Some(pty.master),
            writer,
            screen,
            pump: Some(pump),
        }
    }

    /// The text on screen now.
    pub fn contents(&self) -> String {
        self.screen.lock().unwrap().screen().contents()
    }

    /// Reads the screen now, cell by cell (colours and all).
    pub fn inspect<R>(&self, read: impl FnOnce(&vt100::Screen) -> R) -> R {
        read(self.screen.lock().unwrap().screen())
    }

    /// Waits until the screen satisfies `done`; fails showing the screen after a minute.
    pub fn wait_until(&self, what: &str, done: &dyn Fn(&str) -> bool) -> String {
        self.wait_within(PATIENCE, what, done)
    }

    /// Waits until the screen satisfies `done`; fails showing the screen after `limit`.
    pub fn wait_within(&self, limit: Duration, what: &str, done: &dyn Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + limit;
        loop {
            let contents = self.contents();
            if done(&contents) {
                return contents;
            }
            assert!(
                Instant::now() < deadline,
                "waited {limit:?} for {what}; screen:\n{contents}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until `needle` is on screen.
    pub fn wait_for(&self, needle: &str) -> String {
        self.wait_until(&format!("{needle:?}"), &|s| s.contains(needle))
    }

    /// Types `bytes` (keys, or escape sequences for arrows).
    pub fn send(&mut self, bytes: &[u8]) {
        self.writer.write_all(bytes).unwrap();
        self.writer.flush().unwrap();
    }

    /// Answers the demo's held callback #2 as a reviewer would: view 1, `a`, `downs`
    /// verdicts down, `note` typed into the note, and written with one Enter: the
    /// form closes and the confirmation on the message line goes by itself, no key
    /// pressed; the answer closed the question, so `O` lists all held rows again until
    /// the row shows `shown` (its column may cut the reviewer's name short).
    pub fn answer_held_callback(&mut self, downs: usize, note: &str, shown: &str) {
        self.wait_for("held still open");
        self.send(b"1");
        self.wait_for("possible_duplicate_effect");
        self.send(b"a");
        self.wait_for("Answer callback #2");
        for _ in 0..downs {
            self.send(b"\x1b[B");
        }
        self.send(b"\t");
        self.send(note.as_bytes());
        self.wait_for(note);
        self.send(b"\r");
        self.wait_until("the form to close on the confirmation", &|s| {
            s.contains("Answer 1 written on callback #2") && !s.contains("Answer callback #2")
        });
        self.wait_until("the confirmation to go by itself", &|s| {
            !s.contains("Answer 1 written")
        });
        self.send(b"O");
        // The confirmation names the answer too: wait for it to close.
        self.wait_until("the held row to show the answer", &|s| {
            !s.contains("Answer 1 written") && s.contains(shown)
        });
    }

    /// Presses `q` and waits for the program to leave; fails unless it exits cleanly
    /// and gives the terminal back. The screen it leaves (what it printed after).
    pub fn quit(self) -> String {
        self.leave_with(b"q", "q")
    }

    /// Types `keys` (called `what`) and waits for the program to leave; fails unless it
    /// exits cleanly and gives the terminal back: the alternate screen left, the mouse
    /// released, the cursor shown. The screen it leaves (what it printed after).
    pub fn leave_with(mut self, keys: &[u8], what: &str) -> String {
        self.send(keys);
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(
                Instant::now() < deadline,
                "jobledger did not leave on {what}"
            );
            std::thread::sleep(Duration::from_millis(50));
        };
        assert!(
            status.success(),
            "jobledger exited with {status:?} on {what}"
        );
        // The last bytes may still be on their way through the pump, which ends once
        // the program's side of the terminal is closed: what it printed as it left is
        // on the screen then.
        while self.pump.as_ref().is_some_and(|p| !p.is_finished()) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(20));
        }
        loop {
            let given_back = {
                let parser = self.screen.lock().unwrap();
                let screen = parser.screen();
                !screen.alternate_screen()
                    && !screen.hide_cursor()
                    && screen.mouse_protocol_mode() == vt100::MouseProtocolMode::None
            };
            if given_back {
                return self.contents();
            }
            assert!(
                Instant::now() < deadline,
                "after {what} the terminal was not given back (alternate screen, hidden \
                 cursor or mouse capture left on):\n{}",
                self.contents()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for PtySession {
    fn drop(&mut self) {
        // A failed test must not leave a console running.
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
        drop(self.master.take());
        if let Some(pump) = self.pump.take() {
            let _ = pump.join();
        }
    }
}
