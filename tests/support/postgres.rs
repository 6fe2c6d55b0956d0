//! A throwaway PostgreSQL server for the tests of the ledger on PostgreSQL: its own
//! cluster in a temporary directory, reached only through a Unix socket in that
//! directory (no TCP port, so parallel test binaries never collide), with a fresh
//! database for each test.
//!
//! The server's programs come from `pg_config --bindir`; a machine without PostgreSQL
//! 15 or newer fails the test, saying what to install: a test that returned early
//! would report `ok` for a promise it never checked.
//!
//! A server never outlives its test process. Each one has a reaper: a small shell,
//! started before the server, that waits for end-of-file on a pipe only this process
//! holds, then stops the server (`pg_ctl stop -m immediate`) and removes its directory.
//! Dropping the `PgServer` closes the pipe and waits for the reaper; a process that
//! ends without dropping it (the shared server is a static, and statics are never
//! dropped; a panic that aborts; a kill) closes the pipe by ending. The reaper runs in
//! a process group of its own, so a Ctrl-C meant for the tests does not stop it
//! before it has done its work. Should a reaper itself have been killed, the next
//! server started here stops what was left by test processes that have ended, and
//! PostgreSQL shuts itself down within a minute of its directory being removed.

use std::fmt::Write as _;
use std::os::unix::fs::MetadataExt as _;
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Output, Stdio};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

/// The cluster's only role: a superuser, trusted without a password over the socket.
pub const USER: &str = "jobledger";

/// The oldest major version the ledger supports.
pub const MIN_MAJOR: u32 = 15;

const INSTALL: &str = "install PostgreSQL 15 or newer with its server programs \
     (Debian/Ubuntu: `apt-get install postgresql`; the tests need `pg_config`, \
     `initdb` and `pg_ctl`, not a running service)";

const PREFIX: &str = "jobledger-pg-";

/// A PostgreSQL server of this test process, in a directory of its own.
pub struct PgServer {
    dir: PathBuf,
    bindir: PathBuf,
    runner: Runner,
    started_in: Duration,
    databases: AtomicU32,
    reaper: Reaper,
}

impl PgServer {
    /// The server every test of this test binary shares, started by the first test
    /// that asks; each test takes a database of its own with
    /// [`PgServer::fresh_database`]. A start (initdb, then pg_ctl) takes under a
    /// second on an idle machine and 1.5 to 3 seconds on a busy two-core one, a new
    /// database a tenth to a third of a second: a server per test would cost more
    /// than the tests themselves.
    pub fn shared() -> &'static PgServer {
        // A OnceLock rather than a LazyLock: a start that panics leaves it empty, so
        // every later test fails with the same message rather than a poisoned lock.
        static SHARED: OnceLock<PgServer> = OnceLock::new();
        SHARED.get_or_init(PgServer::start)
    }

    /// A new server of its own, stopped and removed when dropped. Slower than
    /// [`PgServer::shared`]: for a test that stops, kills or reconfigures its server.
    pub fn start() -> PgServer {
        let began = Instant::now();
        let bindir = bindir();
        let runner = Runner::here();
        sweep_ended(&bindir, runner);

        let dir = tempfile::Builder::new()
            .prefix(&format!("{PREFIX}{}-", std::process::id()))
            .tempdir()
            .expect("a temporary directory for the PostgreSQL server")
            .keep();
        // The reaper first: from here on, whatever happens, the directory and any
        // server in it go when this process does.
        let reaper = Reaper::spawn(&bindir, &dir, runner);
        runner.give(&dir);
        let socket = dir.join(".s.PGSQL.5432");
        assert!(
            socket.as_os_str().len() < 100,
            "the socket path {} is too long for a Unix socket; set TMPDIR to a shorter directory",
            socket.display()
        );
        assert!(
            !dir.to_string_lossy().contains(['\'', '\\', '"']),
            "{} has a quote in its name, which pg_ctl's -o cannot carry; set TMPDIR",
            dir.display()
        );

        // --no-sync: a test cluster is thrown away, so flushing it to disk only costs
        // time (most of initdb's). The C locale makes sorting the same on every machine.
        let out = runner.run(
            &bindir.join("initdb"),
            &[
                "--pgdata".as_ref(),
                dir.as_os_str(),
                "--auth=trust".as_ref(),
                format!("--username={USER}").as_ref(),
                "--encoding=UTF8".as_ref(),
                "--no-locale".as_ref(),
                "--no-sync".as_ref(),
            ],
        );
        assert!(
            out.status.success(),
            "initdb in {} failed ({}): {}{}",
            dir.display(),
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );

        pg_ctl_start(runner, &bindir, &dir);

        PgServer {
            dir,
            bindir,
            runner,
            started_in: began.elapsed(),
            databases: AtomicU32::new(0),
            reaper,
        }
    }

    /// The directory of the cluster, which holds its socket too.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// How long initdb and the start took.
    pub fn started_in(&self) -> Duration {
        self.started_in
    }

    /// The postmaster's process id, from the first line of `postmaster.pid`.
    pub fn pid(&self) -> u32 {
        let text = std::fs::read_to_string(self.dir.join("postmaster.pid"))
            .expect("postmaster.pid of a running server");
        text.lines()
            .next()
            .and_then(|line| line.trim().parse().ok())
            .unwrap_or_else(|| panic!("postmaster.pid starts with no process id: {text:?}"))
    }

    /// A connection string for database `dbname` over the socket, as the ledger's
    /// `--db` takes it: `postgresql://jobledger@/DB?host=DIR`.
    pub fn url(&self, dbname: &str) -> String {
        format!(
            "postgresql://{USER}@/{}?host={}",
            encode(dbname),
            encode(&self.dir.to_string_lossy())
        )
    }

    /// A client of database `dbname`, without TLS (there is none on a Unix socket).
    pub fn connect(&self, dbname: &str) -> ::postgres::Client {
        ::postgres::Client::connect(&self.url(dbname), ::postgres::NoTls)
            .unwrap_or_else(|e| panic!("connecting to {}: {e}", self.url(dbname)))
    }

    /// A client of database `dbname` logged in as `role` (a role the test made).
    pub fn connect_as(&self, dbname: &str, role: &str) -> ::postgres::Client {
        let url = self
            .url(dbname)
            .replacen(&format!("{USER}@"), &format!("{role}@"), 1);
        ::postgres::Client::connect(&url, ::postgres::NoTls)
            .unwrap_or_else(|e| panic!("connecting to {url}: {e}"))
    }

    /// Creates a new, empty database for one test and gives its name: `test` (the
    /// test's name, any text) made into an identifier, numbered so that no two are
    /// the same.
    pub fn fresh_database(&self, test: &str) -> String {
        let n = self.databases.fetch_add(1, Ordering::Relaxed);
        let mut name: String = test
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '_'
                }
            })
            .take(40)
            .collect();
        name = format!("t{n:04}_{name}");
        // Connecting to `postgres`, never to template1: CREATE DATABASE refuses to copy
        // a template another session is connected to.
        self.connect("postgres")
            .batch_execute(&format!("CREATE DATABASE \"{name}\""))
            .unwrap_or_else(|e| panic!("CREATE DATABASE {name}: {e}"));
        name
    }

    /// A database of its own for `test` on the shared server: the server, the
    /// database's name and its URL.
    pub fn fresh_ledger(test: &str) -> (&'static PgServer, String, String) {
        let server = PgServer::shared();
        let db = server.fresh_database(test);
        let url = server.url(&db);
        (server, db, url)
    }

    /// Whether the server answers, by `pg_ctl status`.
    /// Stops the server (`pg_ctl stop -m fast`: connections are cut, as in a restart
    /// or a lost network), keeping its directory to start it again.
    pub fn stop(&self) {
        let out = self.runner.run(
            &self.bindir.join("pg_ctl"),
            &[
                "--pgdata".as_ref(),
                self.dir.as_os_str(),
                "-m".as_ref(),
                "fast".as_ref(),
                "-w".as_ref(),
                "stop".as_ref(),
            ],
        );
        assert!(
            out.status.success(),
            "pg_ctl stop failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// Starts a server stopped by [`PgServer::stop`] again, on the same directory.
    pub fn start_again(&self) {
        pg_ctl_start(self.runner, &self.bindir, &self.dir);
    }

    pub fn is_running(&self) -> bool {
        self.runner
            .run(
                &self.bindir.join("pg_ctl"),
                &["--pgdata".as_ref(), self.dir.as_os_str(), "status".as_ref()],
            )
            .status
            .success()
    }
}

/// Starts the server of the cluster in `dir` and waits until it answers.
fn pg_ctl_start(runner: Runner, bindir: &Path, dir: &Path) {
    // No TCP at all (listen_addresses empty), the socket in the cluster's own
    // directory; fsync off for the same reason as --no-sync (a killed server
    // still keeps what it wrote: only the machine crashing would lose it).
    let options = format!(
        "-c listen_addresses='' -k '{}' -c fsync=off -c full_page_writes=off",
        dir.display()
    );
    let log = dir.join("server.log");
    let out = runner.run(
        &bindir.join("pg_ctl"),
        &[
            "--pgdata".as_ref(),
            dir.as_os_str(),
            "-o".as_ref(),
            options.as_ref(),
            "-l".as_ref(),
            log.as_os_str(),
            "-w".as_ref(),
            "-t".as_ref(),
            "60".as_ref(),
            "start".as_ref(),
        ],
    );
    assert!(
        out.status.success(),
        "pg_ctl start in {} failed ({}): {}{}\nserver log:\n{}",
        dir.display(),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
        std::fs::read_to_string(&log).unwrap_or_default()
    );
}

impl Drop for PgServer {
    fn drop(&mut self) {
        self.reaper.finish();
    }
}

/// The shell that stops a server and removes its directory once the pipe to it
/// closes: when its `PgServer` is dropped or this process ends, however it ends.
struct Reaper {
    pipe: Option<ChildStdin>,
    child: Child,
}

impl Reaper {
    fn spawn(bindir: &Path, dir: &Path, runner: Runner) -> Reaper {
        // The pipe's end in this process is close-on-exec (as every pipe Rust makes),
        // so no server or other child keeps it open after this process is gone.
        let script = r#"
            trap '' INT HUP TERM PIPE
            cat >/dev/null
            if [ -f "$2/postmaster.pid" ]; then
                if [ "$3" = root ]; then
                    runuser -u postgres -- "$1/pg_ctl" --pgdata "$2" stop -m immediate -w
                else
                    "$1/pg_ctl" --pgdata "$2" stop -m immediate -w
                fi
            fi >/dev/null 2>&1
            rm -rf "$2"
        "#;
        let mut child = Command::new("sh")
            .args(["-c", script, "jobledger-pg-reaper"])
            .arg(bindir)
            .arg(dir)
            .arg(match runner {
                Runner::Root => "root",
                Runner::Me => "me",
            })
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .current_dir("/")
            .process_group(0)
            .spawn()
            .unwrap_or_else(|e| panic!("starting the server's reaper with sh: {e}"));
        let pipe = child.stdin.take();
        Reaper { pipe, child }
    }

    /// Closes the pipe and waits until the server is stopped and its directory gone.
    fn finish(&mut self) {
        drop(self.pipe.take());
        let _ = self.child.wait();
    }
}

/// Who runs the server's programs: initdb and pg_ctl refuse root, so a test process
/// running as root (as CI does) runs them as the `postgres` system user.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Runner {
    Root,
    Me,
}

impl Runner {
    fn here() -> Runner {
        let uid = std::fs::metadata("/proc/self")
            .expect("/proc/self, to learn whether the tests run as root")
            .uid();
        if uid != 0 {
            return Runner::Me;
        }
        let out = Command::new("id")
            .args(["-u", "postgres"])
            .output()
            .expect("`id`, to find the postgres system user");
        assert!(
            out.status.success(),
            "the tests run as root, and initdb refuses root, but there is no `postgres` \
             system user to run it as: {INSTALL}, which creates that user"
        );
        Runner::Root
    }

    /// Makes `dir` the server user's, as initdb wants its directory.
    fn give(self, dir: &Path) {
        if self == Runner::Root {
            let ids = |flag: &str| -> u32 {
                let out = Command::new("id")
                    .args([flag, "postgres"])
                    .output()
                    .unwrap();
                String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
            };
            std::os::unix::fs::chown(dir, Some(ids("-u")), Some(ids("-g")))
                .unwrap_or_else(|e| panic!("giving {} to postgres: {e}", dir.display()));
        }
    }

    fn command(self, program: &Path) -> Command {
        match self {
            Runner::Root => {
                let mut command = Command::new("runuser");
                command.args(["-u", "postgres", "--"]).arg(program);
                command
            }
            Runner::Me => Command::new(program),
        }
    }

    fn run(self, program: &Path, args: &[&std::ffi::OsStr]) -> Output {
        self.command(program)
            .args(args)
            // A directory every user may enter: the test's own may be closed to postgres.
            .current_dir("/")
            .stdin(Stdio::null())
            .output()
            .unwrap_or_else(|e| panic!("running {}: {e} ({INSTALL})", program.display()))
    }
}

/// The directory of PostgreSQL's server programs, from `pg_config --bindir`, after
/// checking that they are there and new enough.
fn bindir() -> PathBuf {
    static BINDIR: OnceLock<PathBuf> = OnceLock::new();
    BINDIR
        .get_or_init(|| {
            let pg_config = |arg: &str| -> String {
                match Command::new("pg_config").arg(arg).output() {
                    Ok(out) if out.status.success() => {
                        String::from_utf8_lossy(&out.stdout).trim().to_owned()
                    }
                    Ok(out) => panic!(
                        "`pg_config {arg}` failed: {}; {INSTALL}",
                        String::from_utf8_lossy(&out.stderr)
                    ),
                    Err(e) => panic!(
                        "the PostgreSQL tests need `pg_config`, which is not here ({e}): {INSTALL}"
                    ),
                }
            };
            let version = pg_config("--version");
            let major: u32 = version
                .strip_prefix("PostgreSQL ")
                .and_then(|v| v.split(|c: char| !c.is_ascii_digit()).next())
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("`pg_config --version` said {version:?}; {INSTALL}"));
            assert!(
                major >= MIN_MAJOR,
                "these tests need PostgreSQL {MIN_MAJOR} or newer, and pg_config is of {version}: {INSTALL}"
            );
            let bindir = PathBuf::from(pg_config("--bindir"));
            for program in ["initdb", "pg_ctl", "postgres"] {
                assert!(
                    bindir.join(program).is_file(),
                    "{} is missing (pg_config says the server programs are there): {INSTALL}",
                    bindir.join(program).display()
                );
            }
            bindir
        })
        .clone()
}

/// Stops the servers and removes the directories of test processes that have ended
/// and whose reaper did not finish (it was killed with them).
fn sweep_ended(bindir: &Path, runner: Runner) {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(pid) = name
            .strip_prefix(PREFIX)
            .and_then(|rest| rest.split('-').next())
        else {
            continue;
        };
        if pid.parse::<u32>().is_err() || Path::new("/proc").join(pid).exists() {
            continue;
        }
        let dir = entry.path();
        if dir.join("postmaster.pid").exists() {
            let _ = runner.run(
                &bindir.join("pg_ctl"),
                &[
                    "--pgdata".as_ref(),
                    dir.as_os_str(),
                    "stop".as_ref(),
                    "-m".as_ref(),
                    "immediate".as_ref(),
                ],
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// Percent-encodes what a URL's path or query value cannot hold as it is.
fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

/// A connection string with every password in it replaced by `***`, fit to print:
/// both forms libpq and the `postgres` crate take, a URL
/// (`postgresql://user:PASSWORD@host/db?password=…&sslpassword=…`) and key=value
/// pairs (`host=h password='it\'s'`). It hides too much rather than too little:
/// whatever follows a part it cannot read is shown as `***`.
pub fn redact(conninfo: &str) -> String {
    // Any scheme, even a mistyped one: its password must stay hidden all the same.
    if let Some(at) = conninfo.find("://") {
        let (scheme, rest) = conninfo.split_at(at + 3);
        return format!("{scheme}{}", redact_url_rest(rest));
    }
    redact_pairs(conninfo)
}

/// Whether a connection parameter holds a secret (`password`, `sslpassword`).
fn is_secret(key: &str) -> bool {
    key.to_ascii_lowercase().ends_with("password")
}

fn redact_url_rest(rest: &str) -> String {
    // The query starts at the first `?`; what comes before is user, password, hosts
    // and database. The userinfo ends at the last `@` before the query, so a password
    // holding a raw `/` or `@` is still hidden whole.
    let (head, query) = match rest.find('?') {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let mut out = String::new();
    match head.rfind('@') {
        Some(at) => {
            let userinfo = &head[..at];
            match userinfo.find(':') {
                Some(colon) => {
                    out.push_str(&userinfo[..=colon]);
                    out.push_str("***");
                }
                None => out.push_str(userinfo),
            }
            out.push_str(&head[at..]);
        }
        None => out.push_str(head),
    }
    if let Some(query) = query {
        out.push('?');
        let (query, fragment) = match query.find('#') {
            Some(i) => (&query[..i], Some(&query[i..])),
            None => (query, None),
        };
        let pairs: Vec<String> = query
            .split('&')
            .map(|pair| match pair.split_once('=') {
                Some((key, _)) if is_secret(&decode(key)) => format!("{key}=***"),
                _ => pair.to_owned(),
            })
            .collect();
        out.push_str(&pairs.join("&"));
        if let Some(fragment) = fragment {
            out.push_str(fragment);
        }
    }
    out
}

/// Percent-decodes a URL query key, as libpq does before reading it.
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && let Some(byte) = text
                .get(i + 1..i + 3)
                .and_then(|hex| u8::from_str_radix(hex, 16).ok())
        {
            out.push(byte);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// key=value pairs: a value is single-quoted (with `\'` and `\\` inside) or runs to
/// the next blank, a backslash escaping the character after it.
fn redact_pairs(conninfo: &str) -> String {
    let chars: Vec<char> = conninfo.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        while i < chars.len() && chars[i].is_whitespace() {
            out.push(chars[i]);
            i += 1;
        }
        let key_start = i;
        while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '_') {
            i += 1;
        }
        let key: String = chars[key_start..i].iter().collect();
        out.push_str(&key);
        if i < chars.len() && chars[i] != '=' && !chars[i].is_whitespace() {
            // Not a key: nothing after this can be read safely.
            out.push_str("***");
            break;
        }
        while i < chars.len() && chars[i].is_whitespace() {
            out.push(chars[i]);
            i += 1;
        }
        if i >= chars.len() {
            break;
        }
        if chars[i] != '=' {
            // Not key=value: nothing after this can be read safely.
            out.push_str("***");
            break;
        }
        out.push('=');
        i += 1;
        while i < chars.len() && chars[i].is_whitespace() {
            out.push(chars[i]);
            i += 1;
        }
        let value_start = i;
        if i < chars.len() && chars[i] == '\'' {
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i = (i + 1).min(chars.len());
        } else {
            while i < chars.len() && !chars[i].is_whitespace() {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i = i.min(chars.len());
        }
        if is_secret(&key) {
            out.push_str("***");
        } else {
            out.extend(&chars[value_start..i]);
        }
    }
    out
}
