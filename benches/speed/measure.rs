//! Clocks, child processes and their peak resident memory.

use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};

use super::Figure;

/// The middle of some durations.
pub fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

/// The longest of some durations.
pub fn slowest(times: &[Duration]) -> Duration {
    times.iter().max().copied().unwrap_or_default()
}

/// Peak resident memory of a live process (`VmHWM`), in KiB, where `/proc` tells.
pub fn peak_rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
}

/// Bytes a process has caused to be written to storage (`write_bytes` of
/// `/proc/PID/io`; `self` for this one): rusage has no such figure on Linux.
pub fn written_bytes(pid: &str) -> Option<u64> {
    let io = std::fs::read_to_string(format!("/proc/{pid}/io")).ok()?;
    io.lines()
        .find_map(|line| line.strip_prefix("write_bytes:"))
        .and_then(|rest| rest.trim().parse().ok())
}

/// A finished child process: how long it ran and the most memory it held.
pub struct ChildRun {
    pub wall: Duration,
    /// The last `VmHWM` read before it exited (it only grows), in KiB.
    pub peak_rss_kib: Option<u64>,
    /// The last `write_bytes` read before it exited (it only grows; what the child
    /// wrote in its last 2 ms is missed).
    pub written_bytes: Option<u64>,
}

/// Runs `command` to its end with standard output into `stdout` (a file, or
/// `/dev/null`), watching its peak memory from a second thread.
pub fn run_child(mut command: Command, stdout: &Path) -> Result<ChildRun> {
    let out =
        std::fs::File::create(stdout).with_context(|| format!("creating {}", stdout.display()))?;
    command
        .stdin(Stdio::null())
        .stdout(Stdio::from(out))
        .stderr(Stdio::piped());
    let started = Instant::now();
    let mut child = command
        .spawn()
        .with_context(|| format!("starting {command:?}"))?;
    let pid = child.id();
    let done = AtomicBool::new(false);
    let (mut peak, mut written) = (None, None);
    let mut stderr = String::new();
    let status = std::thread::scope(|scope| {
        let watcher = scope.spawn(|| {
            let (mut peak, mut written) = (None, None);
            let pid_text = pid.to_string();
            while !done.load(Ordering::Relaxed) {
                if let Some(kib) = peak_rss_kib(pid) {
                    peak = Some(kib);
                }
                if let Some(bytes) = written_bytes(&pid_text) {
                    written = Some(bytes);
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            (peak, written)
        });
        if let Some(mut err) = child.stderr.take() {
            let _ = std::io::Read::read_to_string(&mut err, &mut stderr);
        }
        let status = child.wait();
        done.store(true, Ordering::Relaxed);
        (peak, written) = watcher.join().unwrap_or_default();
        status
    })?;
    let wall = started.elapsed();
    if !status.success() {
        bail!("{command:?} failed ({status}): {stderr}");
    }
    Ok(ChildRun {
        wall,
        peak_rss_kib: peak,
        written_bytes: written,
    })
}

/// Is a program on the `PATH`?
pub fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// A duration for the table: `1.23 s`, `45.6 ms` or `789 µs`.
pub fn show(d: Duration) -> String {
    let secs = d.as_secs_f64();
    if secs >= 1.0 {
        format!("{secs:.2} s")
    } else if secs >= 0.001 {
        format!("{:.1} ms", secs * 1e3)
    } else {
        format!("{:.0} µs", secs * 1e6)
    }
}

/// Memory for the table, in MB (10^6 bytes).
pub fn show_kib(kib: u64) -> String {
    #[allow(clippy::cast_precision_loss)] // a figure shown to a person
    let mb = kib as f64 * 1024.0 / 1e6;
    format!("{mb:.1} MB")
}

/// A count with thousands separated: `1,024,515`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `a / b` for two durations.
pub fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64().max(1e-9)
}

/// A time of ours beside the same answer from the `sqlite3` shell (`None` when the
/// shell is not on PATH), against `target`.
pub fn against_shell(
    what: String,
    ours: Duration,
    theirs: Option<Duration>,
    target: &str,
    met: Option<bool>,
) -> Figure {
    Figure {
        what,
        ours: show(ours),
        baseline: theirs.map_or_else(
            || "n/a (no sqlite3 on PATH)".to_owned(),
            |t| format!("{} sqlite3 shell", show(t)),
        ),
        ratio: theirs.map(|t| ratio(ours, t)),
        target: target.to_owned(),
        met,
    }
}
