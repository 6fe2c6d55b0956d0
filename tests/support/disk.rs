//! Directories on a real disk, the system tools some tests need, and the hostile file
//! conditions (an immutable file, a full disk) that they build with those tools.
//!
//! A missing tool fails the test, naming what to install: a test that returned early
//! would report `ok` for a promise it never checked.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use tempfile::TempDir;

/// A temporary directory on a real disk (under the target directory), never tmpfs:
/// WAL, locking and a crash behave differently on memory. `prefix` names the test.
pub fn disk_dir(prefix: &str) -> TempDir {
    let dir = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .expect("a directory under the target directory");
    let out = Command::new("stat")
        .args(["-f", "-c", "%T"])
        .arg(dir.path())
        .output()
        .unwrap_or_else(|e| panic!("`stat -f` to check the file system: {e} (install coreutils)"));
    let fs = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    assert!(
        !matches!(fs.as_str(), "tmpfs" | "ramfs"),
        "{} is on {fs}; these tests need a real disk",
        dir.path().display()
    );
    dir
}

/// Runs `program args`; a program that is not installed fails the test, saying which
/// package to install (`install`, as in "apt-get install sqlite3").
pub fn tool(program: &str, args: &[&str], install: &str) -> Output {
    match Command::new(program).args(args).output() {
        Ok(output) => output,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            panic!("this test needs `{program}`, which is not installed here: {install}")
        }
        Err(e) => panic!("running {program}: {e}"),
    }
}

/// Fails the test unless `strace` is here and can inject faults (`-e inject=`), which
/// the tests use to place a kill on a chosen system call.
pub fn require_strace() {
    let out = tool(
        "strace",
        &["-o", "/dev/null", "-e", "inject=getpid:retval=1", "true"],
        "apt-get install strace",
    );
    assert!(
        out.status.success(),
        "this test needs strace with fault injection (strace 4.16 or later; apt-get install strace) and ptrace allowed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// `chattr +i` on a path (immutable: as root, permission bits alone do not stop writes),
/// undone when dropped, also when an assertion fails.
pub struct Immutable(PathBuf);

impl Immutable {
    /// Makes `path` immutable, or fails the test saying what is missing.
    pub fn set(path: &Path) -> Immutable {
        let out = tool(
            "chattr",
            &["+i", &path.to_string_lossy()],
            "apt-get install e2fsprogs",
        );
        assert!(
            out.status.success(),
            "`chattr +i {}` failed: this test needs root with CAP_LINUX_IMMUTABLE on a file system with the flag (ext4, xfs, btrfs): {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        Immutable(path.to_path_buf())
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = Command::new("chattr").arg("-i").arg(&self.0).status();
    }
}

/// A tmpfs of a given size mounted on a directory, unmounted when dropped: a disk that
/// fills up.
pub struct SmallDisk {
    dir: TempDir,
}

impl SmallDisk {
    /// Mounts a tmpfs of `size` (as `mount -o size=`), or fails the test saying why.
    pub fn mount(size: &str) -> SmallDisk {
        let dir = disk_dir("small-disk-");
        let out = tool(
            "mount",
            &[
                "-t",
                "tmpfs",
                "-o",
                &format!("size={size},mode=0700"),
                "tmpfs",
                &dir.path().to_string_lossy(),
            ],
            "apt-get install mount",
        );
        assert!(
            out.status.success(),
            "cannot mount a small tmpfs to fill: this test needs root with CAP_SYS_ADMIN (in a container: --privileged or --cap-add SYS_ADMIN): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        SmallDisk { dir }
    }

    /// Where the small disk is mounted.
    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Makes the disk larger, keeping what is on it.
    pub fn grow(&self, size: &str) {
        let status = Command::new("mount")
            .args(["-o"])
            .arg(format!("remount,size={size}"))
            .arg(self.dir.path())
            .stderr(Stdio::inherit())
            .status()
            .unwrap();
        assert!(status.success(), "remounting larger");
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}
