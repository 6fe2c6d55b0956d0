//! A bundle written to a file: whole or not at all, owner-only (it holds raw payloads
//! and people's notes), and never over a file that is there unless asked.
//!
//! The text goes to a hidden temporary file beside the destination, which then takes
//! the destination's name in one step: a link that fails when the name is taken (a
//! file, a directory or a symbolic link there, even one that appeared meanwhile), or,
//! when asked to replace it, a rename. A reader never sees half a bundle.

use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

/// Writes `text` to `path`: a new file, or with `replace` in place of what is there.
/// A name taken without `replace` is an [`io::ErrorKind::AlreadyExists`] error, and
/// nothing is written.
pub fn write(path: &Path, text: &[u8], replace: bool) -> io::Result<()> {
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut file = tempfile::Builder::new()
        .prefix(".jobledger-bundle-")
        .tempfile_in(dir)?;
    file.write_all(text)?;
    file.as_file().sync_all()?;
    let kept = if replace {
        file.persist(path)
    } else {
        file.persist_noclobber(path)
    };
    kept.map(drop).map_err(|e| e.error)
}

/// Writes `text` under the first free name of `dir/STEM.EXT`, `dir/STEM-2.EXT`,
/// `dir/STEM-3.EXT`, ...: nothing there is replaced. Returns the path written.
pub fn write_new(dir: &Path, stem: &str, ext: &str, text: &[u8]) -> io::Result<PathBuf> {
    /// Names tried before giving up: a directory holding this many is a mistake.
    const TRIES: u32 = 1000;
    for n in 1..=TRIES {
        let name = if n == 1 {
            format!("{stem}.{ext}")
        } else {
            format!("{stem}-{n}.{ext}")
        };
        let path = dir.join(name);
        match write(&path, text, false) {
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            written => return written.map(|()| path),
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!("{stem}.{ext} and {TRIES} more names after it are taken"),
    ))
}

/// A job id made fit to be part of a file name: letters, digits, `.`, `_` and `-`
/// kept, every other character (a slash, a space, a control character) an `_`, at
/// most 64 characters, and never a name of dots alone. Two ids may give one stem;
/// [`write_new`] then numbers the second file.
pub fn safe_stem(id: &str) -> String {
    const MOST: usize = 64;
    let stem: String = id
        .chars()
        .take(MOST)
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    if stem.chars().all(|c| c == '.') {
        stem.replace('.', "_")
    } else {
        stem
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt as _;

    use super::{safe_stem, write, write_new};

    #[test]
    fn a_job_id_becomes_a_file_name_without_separators_or_controls() {
        assert_eq!(safe_stem("job-0000029"), "job-0000029");
        assert_eq!(safe_stem("../etc/passwd"), ".._etc_passwd");
        assert_eq!(safe_stem("a b\u{1b}[2Jc"), "a_b__2Jc");
        assert_eq!(safe_stem(".."), "__");
        assert_eq!(safe_stem(""), "");
        assert_eq!(safe_stem(&"x".repeat(300)).len(), 64);
    }

    #[test]
    fn a_file_there_is_kept_unless_replacing_is_asked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("case.md");
        std::fs::write(&path, "theirs").unwrap();
        let refused = write(&path, b"ours", false).unwrap_err();
        assert_eq!(refused.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "theirs");
        write(&path, b"ours", true).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "ours");
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600, "owner-only");
        // No temporary file is left behind either way.
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_link_is_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("elsewhere.txt");
        std::fs::write(&target, "kept").unwrap();
        let link = dir.path().join("case.md");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(write(&link, b"ours", false).is_err());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "kept");
    }

    #[test]
    fn the_next_free_name_is_taken() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("jobledger-case-2.md"), "earlier").unwrap();
        let path = write_new(dir.path(), "jobledger-case-2", "md", b"new").unwrap();
        assert_eq!(path, dir.path().join("jobledger-case-2-2.md"));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("jobledger-case-2.md")).unwrap(),
            "earlier"
        );
        let third = write_new(dir.path(), "jobledger-case-2", "md", b"newer").unwrap();
        assert_eq!(third, dir.path().join("jobledger-case-2-3.md"));
    }
}
