//! `check` and `backup`: the two tools an operator reaches for when something went
//! wrong. Both only read the ledger.

use std::fmt::Write as _;
use std::io::{self, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result, bail};

use crate::inert::inert_path;
use crate::report::{self, CheckReport};
use crate::store::{CHECKS, CheckFinding, Ledger, StoreError, with_suffix};

/// The exit status of a check that found something wrong (1 is a check that could
/// not run, as for every command; 2 a wrong argument).
pub(super) const CHECK_FAILED: u8 = 3;

/// Runs every check on the ledger at `path` (opened read-only), prints the report,
/// and says by the exit status whether the ledger passed.
pub(super) fn run_check(
    location: &crate::store::Location,
    json: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let started = Instant::now();
    let path = match location {
        crate::store::Location::File(path) => path,
        crate::store::Location::Server(address) => {
            let ledger = Ledger::open_at(location, crate::store::OpenMode::ReadOnly)?;
            note(&format!("checking {location}…"));
            let findings = ledger.check(|_| {});
            let report = CheckReport::on_server(location.to_string(), address.schema(), findings);
            return finish_check(&report, json, started, out);
        }
    };
    super::refuse_no_ledger(path)?;
    // A file cut short is refused whole by SQLite's every read; opened as a salvage
    // opens it, the checks read what is there and name what is not.
    let opened = Ledger::open_read_only(path).or_else(|e| match e {
        StoreError::Damaged { .. } => Ledger::open_to_salvage(path).map_err(|_| e),
        e => Err(e),
    });
    let findings = match opened {
        Ok(ledger) => {
            let size = ledger.size_bytes().unwrap_or(0);
            note(&format!(
                "checking {} ({})…",
                inert_path(path),
                report::megabytes(u64::try_from(size).unwrap_or(0))
            ));
            let show = io::stderr().is_terminal();
            let findings = ledger.check(|check| {
                if show {
                    let step = CHECKS.iter().position(|c| *c == check).unwrap_or(0) + 1;
                    eprint!(
                        "\r\x1b[Kchecking {check} ({step}/{}, {:.0} s)…",
                        CHECKS.len(),
                        started.elapsed().as_secs_f64()
                    );
                }
            });
            if show {
                eprint!("\r\x1b[K");
            }
            findings
        }
        // A file SQLite cannot even open as a ledger fails the first check.
        Err(StoreError::Damaged { detail, .. }) => vec![CheckFinding {
            check: "open",
            examined: 0,
            problems: vec![format!("the file is damaged ({detail})")],
            seconds: started.elapsed().as_secs_f64(),
        }],
        Err(e) => return Err(e.into()),
    };
    finish_check(&CheckReport::new(path, findings), json, started, out)
}

/// Prints the report of a check, and says by the exit status whether it passed.
fn finish_check(
    report: &CheckReport,
    json: bool,
    started: Instant,
    out: &mut impl Write,
) -> Result<ExitCode> {
    report::write(out, report, json)?;
    out.flush()?;
    note(&format!(
        "checked in {:.1} s",
        started.elapsed().as_secs_f64()
    ));
    Ok(if report.ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(CHECK_FAILED)
    })
}

/// The exit status of a salvage that wrote its copy without some rows (listed).
pub(super) const SALVAGE_LOST_ROWS: u8 = 4;

/// How many of the problems a copy's check found a refusal quotes.
const PROBLEMS_SHOWN: usize = 3;

/// Copies the ledger at `path` to `dest`: one consistent snapshot, taken while others
/// write, into an owner-only file that appears under its name only when whole and
/// checked. With `salvage`, what can still be read of a damaged ledger, table by table
/// ([`run_salvage`]).
pub(super) fn run_backup(
    path: &Path,
    dest: &Path,
    salvage: bool,
    out: &mut impl Write,
) -> Result<ExitCode> {
    refuse_the_ledgers_own(path, dest)?;
    if std::fs::symlink_metadata(dest).is_ok_and(|m| !m.is_file() || m.len() > 0) {
        bail!(
            "{} already exists; backup never writes over a file: give the name of a new one",
            inert_path(dest)
        );
    }
    super::refuse_no_ledger(path)?;
    let started = Instant::now();
    let opened = if salvage {
        Ledger::open_to_salvage(path)
    } else {
        Ledger::open_read_only(path)
    };
    let ledger = opened.map_err(|e| match e {
        // A file cut short: SQLite refuses to read any of it, a salvage reads it.
        StoreError::Damaged { detail, .. }
            if !salvage && Ledger::open_to_salvage(path).is_ok() =>
        {
            refused_as_damaged(
                path,
                dest,
                &format!("SQLite refuses to read it as it is ({detail})"),
            )
            .context(format!(
                "no backup was written ({} was left as it was)",
                inert_path(dest)
            ))
        }
        // The advice of a damaged ledger is a salvage: say that it cannot help here.
        StoreError::Damaged { detail, .. } => anyhow::anyhow!(
            "the ledger {} is damaged where SQLite begins to read it ({}), so neither a backup nor a salvage can read any of it; no copy was written and the file was left as it was. Keep the file itself (cp), and restore an earlier backup",
            inert_path(path),
            detail
        ),
        e => e.into(),
    })?;
    if salvage {
        return run_salvage(&ledger, dest, started, out);
    }
    let size = u64::try_from(ledger.size_bytes()?).unwrap_or(0);
    note(&format!(
        "copying {} of {} to {}…",
        report::megabytes(size),
        inert_path(path),
        inert_path(dest)
    ));
    remove_stale_partials(dest);
    let partial = partial_name(dest);
    let copied =
        checked_copy(&ledger, path, &partial, dest, dest).and_then(|()| place(&partial, dest));
    remove_partial(&partial);
    if let Err(e) = copied {
        return Err(e.context(format!(
            "no backup was written ({} was left as it was)",
            inert_path(dest)
        )));
    }
    let bytes = std::fs::metadata(dest).map_or(0, |m| m.len());
    out.write_all(report::backup_written(dest, bytes, started.elapsed()).as_bytes())?;
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}

/// Makes the new file `partial` a copy of the ledger at `path` that passed its check:
/// one snapshot (`VACUUM INTO`), owner-only, synced, then checked as a backup is
/// before it gets its name (a copy of a damaged ledger holds what SQLite could read,
/// and can look whole). `dest` is where the copy is going (its disk is the one that
/// fills), `salvage_to` the name a refusal offers for the salvage.
pub(super) fn checked_copy(
    ledger: &Ledger,
    path: &Path,
    partial: &Path,
    dest: &Path,
    salvage_to: &Path,
) -> Result<()> {
    create_private(partial)?;
    ledger
        .copy_into(partial)
        .map_err(|e| match e {
            // SQLite names the ledger's disk, and ingest's batch: it is the copy's.
            StoreError::DiskFull { .. } => anyhow::anyhow!(
                "the disk holding {} is full: the copy did not fit there. The ledger {} was only read and is as it was; free some space on that disk, or give a name on another disk",
                inert_path(dest),
                inert_path(path)
            ),
            // SQLite's copy stops at the first page it cannot read.
            StoreError::Damaged { detail, .. } => refused_as_damaged(
                path,
                salvage_to,
                &format!("SQLite stopped copying it at a page it cannot read ({detail})"),
            ),
            e => e.into(),
        })?;
    std::fs::File::open(partial)
        .and_then(|f| f.sync_all())
        .with_context(|| format!("syncing {}", inert_path(partial)))?;
    let problems = Ledger::open_read_only(partial)?.copy_problems()?;
    if problems.is_empty() {
        return Ok(());
    }
    Err(refused_as_damaged(
        path,
        salvage_to,
        &format!("its copy failed the check: {}", first_problems(&problems)),
    ))
}

/// The refusal of a copy of a damaged ledger: what was found, and the command that
/// saves what can still be read (a plain backup would only be refused again).
fn refused_as_damaged(path: &Path, dest: &Path, found: &str) -> anyhow::Error {
    anyhow::anyhow!(
        "the ledger {} is damaged: {found}. The ledger was only read and is as it was. Save what can still be read with `jobledger --db {} backup --salvage {}`, which copies it table by table around what cannot be read and lists what was lost; `jobledger --db {} check` shows every problem",
        inert_path(path),
        inert_path(path),
        inert_path(dest),
        inert_path(path)
    )
}

/// The first problems of a check, and how many more there are.
fn first_problems(problems: &[String]) -> String {
    let mut text = problems
        .iter()
        .take(PROBLEMS_SHOWN)
        .map(|p| crate::inert::inert(p))
        .collect::<Vec<_>>()
        .join("; ");
    if problems.len() > PROBLEMS_SHOWN {
        let _ = write!(text, "; and {} more", problems.len() - PROBLEMS_SHOWN);
    }
    text
}

/// Saves what can still be read of `ledger` into a new ledger named `dest`: each
/// table copied row by row around what SQLite cannot read, the kept counts recounted
/// from the rows saved, checked as a backup is before it gets its name. Says per
/// table what was saved and lost; exit [`SALVAGE_LOST_ROWS`] when rows were lost.
fn run_salvage(
    ledger: &Ledger,
    dest: &Path,
    started: Instant,
    out: &mut impl Write,
) -> Result<ExitCode> {
    let path = ledger.file().expect("only a ledger file is salvaged");
    note(&format!(
        "saving what can be read of {} into a new ledger {}, table by table…",
        inert_path(path),
        inert_path(dest)
    ));
    remove_stale_partials(dest);
    let partial = partial_name(dest);
    create_private(&partial)?;
    let saved = (|| -> Result<crate::store::Salvage> {
        let into = Ledger::open(&partial).map_err(|e| match e {
            StoreError::DiskFull { .. } => anyhow::anyhow!(
                "the disk holding {} is full: the new ledger did not fit there; free some space on that disk, or give a name on another disk",
                inert_path(dest)
            ),
            e => e.into(),
        })?;
        let show = io::stderr().is_terminal();
        let salvage = ledger.salvage_into(&into, |table| {
            if show {
                eprint!("\r\x1b[Ksaving {table}…");
            }
        });
        if show {
            eprint!("\r\x1b[K");
        }
        drop(into);
        let salvage = salvage.map_err(|e| match e {
            StoreError::DiskFull { .. } => anyhow::anyhow!(
                "the disk holding {} is full: the new ledger did not fit there; free some space on that disk, or give a name on another disk",
                inert_path(dest)
            ),
            e => e.into(),
        })?;
        std::fs::File::open(&partial)
            .and_then(|f| f.sync_all())
            .with_context(|| format!("syncing {}", inert_path(&partial)))?;
        let problems = Ledger::open_read_only(&partial)?.copy_problems()?;
        if !problems.is_empty() {
            bail!(
                "the new ledger failed the check a copy passes before it is named ({}), though it was written from the rows read",
                first_problems(&problems)
            );
        }
        place(&partial, dest)?;
        Ok(salvage)
    })();
    remove_partial(&partial);
    let salvage = saved.map_err(|e| {
        e.context(format!(
            "nothing was saved ({} was left as it was, and the ledger {} was only read)",
            inert_path(dest),
            inert_path(path)
        ))
    })?;
    let bytes = std::fs::metadata(dest).map_or(0, |m| m.len());
    out.write_all(
        report::salvage_written(path, dest, &salvage, bytes, started.elapsed()).as_bytes(),
    )?;
    out.flush()?;
    Ok(if salvage.complete() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(SALVAGE_LOST_ROWS)
    })
}

/// The name the copy is written under until it is whole: beside `dest` (a rename
/// within one directory), hidden, and this process's own.
pub(super) fn partial_name(dest: &Path) -> PathBuf {
    let name = dest
        .file_name()
        .map_or_else(|| "backup".into(), |n| n.to_string_lossy().into_owned());
    dest.with_file_name(format!(".{name}.partial-{}", std::process::id()))
}

/// Removes the partial copy and whatever SQLite kept beside it while writing it.
pub(super) fn remove_partial(partial: &Path) {
    let _ = std::fs::remove_file(partial);
    for suffix in ["-journal", "-wal", "-shm"] {
        let _ = std::fs::remove_file(with_suffix(partial, suffix));
    }
}

/// Removes the partial copies ([`partial_name`]) beside `dest` that backups killed
/// before they finished left behind: only names of that exact form whose process is
/// no longer running (a backup still writing one keeps it), each a SQLite file or
/// empty. Killed backups left gigabytes that no later one removed.
fn remove_stale_partials(dest: &Path) {
    let dir = match dest.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = stale_partial_pid(&name) else {
            continue;
        };
        if pid == std::process::id() || Path::new("/proc").join(pid.to_string()).exists() {
            continue;
        }
        if !Path::new("/proc/self").exists() || !is_sqlite_or_empty(&entry.path()) {
            continue;
        }
        remove_partial(&entry.path());
    }
}

/// The process id in a name of the form `.NAME.partial-PID`.
fn stale_partial_pid(name: &str) -> Option<u32> {
    let (head, pid) = name.rsplit_once(".partial-")?;
    (head.starts_with('.') && head.len() > 1 && pid.bytes().all(|b| b.is_ascii_digit()))
        .then(|| pid.parse().ok())
        .flatten()
}

fn is_sqlite_or_empty(path: &Path) -> bool {
    use std::io::Read as _;
    let Ok(mut file) = std::fs::File::open(path) else {
        return false;
    };
    let mut head = [0_u8; 16];
    match file.read(&mut head) {
        Ok(0) => true,
        Ok(16) => &head == b"SQLite format 3\0",
        _ => false,
    }
}

/// Refuses a backup name that is the ledger itself or one of its own files (its log,
/// shared-memory index, or the lock file writers wait on): by the files' identity,
/// and by name (the ledger's name with a suffix, in its directory), for the ones not
/// made yet. `backup L.db-waiting` wrote over the ledger's lock file.
fn refuse_the_ledgers_own(path: &Path, dest: &Path) -> Result<()> {
    if is_the_ledgers_own(path, dest) {
        bail!(
            "{} is the ledger {} or one of its own files; backup writes only a new file of its own: give another name, e.g. {}",
            inert_path(dest),
            inert_path(path),
            inert_path(&path.with_extension("backup.db"))
        );
    }
    Ok(())
}

/// Is `dest` the ledger at `path` or one of its own files (`-wal`, `-shm`, `-waiting`,
/// `-journal`), by identity for those there and by name for those not made yet?
pub(super) fn is_the_ledgers_own(path: &Path, dest: &Path) -> bool {
    let own: Vec<PathBuf> = ["", "-wal", "-shm", "-waiting", "-journal"]
        .iter()
        .map(|suffix| with_suffix(path, suffix))
        .collect();
    let resolved = |p: &Path| -> Option<PathBuf> {
        let dir = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        Some(std::fs::canonicalize(dir).ok()?.join(p.file_name()?))
    };
    let dest_resolved = resolved(dest);
    let by_identity = std::fs::metadata(dest).is_ok_and(|m| Ledger::own_file(path, &m).is_some());
    by_identity || (dest_resolved.is_some() && own.iter().any(|o| resolved(o) == dest_resolved))
}

/// An empty file only its owner reads: `VACUUM INTO` writes into it and keeps its mode.
fn create_private(path: &Path) -> Result<()> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    options
        .open(path)
        .map(drop)
        .with_context(|| format!("cannot create {}", inert_path(path)))
}

/// Puts the whole copy under its name: a hard link, which never replaces a file that
/// appeared meanwhile (an empty `dest` given by the person is replaced).
pub(super) fn place(partial: &Path, dest: &Path) -> Result<()> {
    if std::fs::metadata(dest).is_ok_and(|m| m.is_file() && m.len() == 0) {
        std::fs::remove_file(dest)
            .with_context(|| format!("replacing the empty {}", inert_path(dest)))?;
    }
    std::fs::hard_link(partial, dest)
        .with_context(|| format!("naming the copy {}", inert_path(dest)))?;
    std::fs::remove_file(partial).with_context(|| format!("removing {}", inert_path(partial)))?;
    if let Some(dir) = dest.parent().filter(|d| !d.as_os_str().is_empty()) {
        let _ = std::fs::File::open(dir).and_then(|d| d.sync_all());
    }
    Ok(())
}

fn note(line: &str) {
    let _ = writeln!(io::stderr(), "{line}");
}
