//! A damaged ledger: every command that meets one says the
//! ledger is damaged, names `check` and `backup`, never advises running it again, and
//! leaves the file's bytes as they were. Two cases: a truncated file (SQLite's
//! `CORRUPT` at once), and two bytes changed in a callbacks leaf page, which SQLite
//! reads without an error (a listing came out 48 rows short with exit 0, and answer
//! and ingest wrote on).
//!
//! The advice works: a plain `backup` of a damaged ledger refuses to name a copy that
//! fails its check and names `backup --salvage`, which saves every row SQLite can still
//! read and names the rows it could not, on four kinds of damage.

mod support;

use std::path::{Path, PathBuf};

use rusqlite::Connection;
use support::binary::{self, Workdir};
use support::damage::{PAGE, damage_a_callbacks_leaf, file_and_root};
use support::fixture::{self, NOW};

/// A ledger of the generated stream of 1,000 jobs (931 callbacks), its WAL folded in.
fn ledger() -> (Workdir, std::path::PathBuf) {
    let w = Workdir::new();
    let stream = w.file("stream.ndjson", &fixture::synthetic_stream(1000));
    w.ok(&["ingest", stream.to_str().unwrap()]);
    fixture::fold_log(&w.db);
    (w, stream)
}

/// Every command a person or a script runs on a ledger.
fn commands(stream: &Path, w: &Workdir) -> Vec<Vec<String>> {
    let copy = w.dir.path().join("copy.db");
    [
        vec!["summary"],
        vec!["summary", "--json"],
        vec!["callbacks"],
        vec!["callbacks", "--json"],
        vec!["callbacks", "--disposition", "hold", "--json"],
        vec!["reconcile", "--json"],
        vec!["outbox"],
        vec!["rejected"],
        vec!["views"],
        vec!["answer", "5", "--verdict", "noise", "--reviewer", "ana"],
        vec![
            "answer",
            "--disposition",
            "quarantine",
            "--verdict",
            "noise",
        ],
        vec!["owner", "job-0000001", "--owner", "ops:lee", "--by", "ana"],
        vec!["request", "retry", "job-0000001", "--by", "ana"],
        vec!["request", "withdraw", "1", "--by", "ana"],
        vec!["ingest", stream.to_str().unwrap()],
        vec!["backup", copy.to_str().unwrap()],
    ]
    .into_iter()
    .map(|args| args.into_iter().map(str::to_owned).collect())
    .collect()
}

/// Runs every command on the damaged ledger: each fails, says "damaged", names
/// `check` and `backup`, never advises a re-run, and writes nothing into the file.
fn every_command_says_damaged(w: &Workdir, stream: &Path) {
    let before = std::fs::read(&w.db).unwrap();
    for args in commands(stream, w) {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = w.run(&args);
        let stderr = binary::failed(&out, &args);
        for word in ["damaged", "check", "backup"] {
            assert!(stderr.contains(word), "{args:?} lacks {word:?}: {stderr}");
        }
        let lower = stderr.to_lowercase();
        assert!(
            !lower.contains("re-run") && !lower.contains("error code"),
            "{args:?}: {stderr}"
        );
        assert!(
            std::fs::read(&w.db).unwrap() == before,
            "{args:?} changed the ledger file"
        );
    }
    let out = w.run(&["check"]);
    assert_eq!(out.status.code(), Some(3));
    let report = String::from_utf8(out.stdout).unwrap();
    assert!(
        report.contains("WRONG") && report.contains("backup"),
        "{report}"
    );
    assert!(
        std::fs::read(&w.db).unwrap() == before,
        "check changed the file"
    );
}

#[test]
fn a_truncated_ledger_is_named_damaged_by_every_command() {
    let (w, stream) = ledger();
    let bytes = std::fs::read(&w.db).unwrap();
    std::fs::write(&w.db, &bytes[..bytes.len() / 2]).unwrap();
    every_command_says_damaged(&w, &stream);
}

/// A leaf that lost cells reads without an error; what reads the table whole notices
/// (a listing counts what it read against the kept count), and `check` does. The
/// commands that read only the kept counts, or other pages, do not read every page
/// before they start: that cost grows with the ledger, and is `check`'s.
#[test]
fn two_bytes_changed_in_a_callbacks_leaf_are_noticed_by_what_reads_the_leaf() {
    let (w, _) = ledger();
    assert_eq!(w.json(&["summary", "--json"])["callbacks"], 931);
    damage_a_callbacks_leaf(&w.db);
    let before = std::fs::read(&w.db).unwrap();
    for args in [vec!["callbacks"], vec!["callbacks", "--json"]] {
        let out = w.run(&args);
        let stderr = binary::failed(&out, &args);
        for word in ["damaged", "check", "backup"] {
            assert!(stderr.contains(word), "{args:?} lacks {word:?}: {stderr}");
        }
        assert!(
            std::fs::read(&w.db).unwrap() == before,
            "{args:?} changed the file"
        );
    }
    let (code, report) = {
        let out = binary::run_at(&w.db, NOW, &["check", "--json"]);
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        (out.status.code(), report)
    };
    assert_eq!(code, Some(3));
    let failed: Vec<&str> = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| !c["problems"].as_array().unwrap().is_empty())
        .map(|c| c["check"].as_str().unwrap())
        .collect();
    assert!(
        failed.contains(&"integrity") && failed.contains(&"kept_counts"),
        "{report}"
    );
}

/// The callbacks read last lost: the probe every command runs first finds the newest
/// callback's number short of the kept count, in one walk down the table.
#[test]
fn callbacks_lost_from_the_end_are_named_damaged_by_every_command() {
    let (w, stream) = ledger();
    let (mut file, root) = file_and_root(&w.db, "callbacks");
    assert_eq!(file[root], 0x05, "the callbacks root is an interior page");
    // The right-most child of an interior page is named in its header (bytes 8..12).
    let last =
        (u32::from_be_bytes(file[root + 8..root + 12].try_into().unwrap()) as usize - 1) * PAGE;
    assert_eq!(file[last], 0x0D, "the last leaf of the callbacks table");
    file[last + 3..last + 5].copy_from_slice(&[0x00, 0x01]);
    std::fs::write(&w.db, file).unwrap();
    every_command_says_damaged(&w, &stream);
}

#[test]
fn a_list_read_short_from_a_damaged_index_fails() {
    let (w, _) = ledger();
    // The held list reads its own index: lose cells of its first leaf.
    let (mut file, page) = file_and_root(&w.db, "callbacks_review_list");
    // A small index may fit its root alone (a leaf, 0x0A); a larger one has an
    // interior root (0x02) whose first cell names the first leaf.
    let leaf = if file[page] == 0x0A {
        page
    } else {
        let cell = page + usize::from(u16::from_be_bytes([file[page + 12], file[page + 13]]));
        (u32::from_be_bytes(file[cell..cell + 4].try_into().unwrap()) as usize - 1) * PAGE
    };
    assert_eq!(file[leaf], 0x0A, "a leaf of the index");
    file[leaf + 3..leaf + 5].copy_from_slice(&[0x00, 0x01]);
    std::fs::write(&w.db, file).unwrap();
    let out = w.run(&["callbacks", "--disposition", "hold", "--json"]);
    let stderr = binary::failed(&out, &["callbacks"]);
    assert!(
        stderr.contains("damaged") && stderr.contains("were read"),
        "{stderr}"
    );
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        serde_json::from_str::<serde_json::Value>(&stdout).is_err(),
        "a short list is no valid JSON"
    );
}

#[test]
fn ingest_that_meets_a_damaged_page_midway_never_advises_a_re_run() {
    let (w, stream) = ledger();
    // The line identities' index: summary never reads it, ingest reads it for every line.
    let (mut file, at) = file_and_root(&w.db, "sqlite_autoindex_input_lines_1");
    file[at..at + 2].copy_from_slice(&[0, 0]);
    std::fs::write(&w.db, &file).unwrap();
    w.ok(&["summary"]);
    let stderr = w.fails(&["ingest", stream.to_str().unwrap()]);
    assert!(
        stderr.contains("damaged") && stderr.contains("check"),
        "{stderr}"
    );
    assert!(!stderr.contains("re-run"), "{stderr}");
    assert!(
        std::fs::read(&w.db).unwrap() == file,
        "ingest changed the file"
    );
}

#[test]
fn text_that_is_not_utf8_in_a_column_is_named_damage() {
    let (w, _) = ledger();
    // What a changed byte inside a row's text leaves: a listing printed 330 KB and
    // then "invalid utf-8 sequence of 1 bytes from index 5", naming no damage.
    Connection::open(&w.db)
        .unwrap()
        .execute_batch(
            "DROP TRIGGER callbacks_keep_disposition;
             UPDATE callbacks SET reason = CAST(x'686f6cff64' AS TEXT) WHERE seq = 500;",
        )
        .unwrap();
    let out = w.run(&["callbacks", "--json"]);
    let stderr = binary::failed(&out, &["callbacks", "--json"]);
    assert!(
        stderr.contains("damaged") && stderr.contains("column reason"),
        "{stderr}"
    );
    assert!(
        !stderr.to_lowercase().contains("utf-8 sequence"),
        "{stderr}"
    );
}

/// The pages of each b-tree of a sound ledger: for each leaf page of a table, its
/// number, its ancestors' numbers and how many rows it holds (`dbstat`).
fn leaves(db: &Path) -> Vec<(String, i64, Vec<i64>, i64)> {
    let conn = Connection::open(db).unwrap();
    let pages: Vec<(String, String, i64, String, i64)> = conn
        .prepare("SELECT name, path, pageno, pagetype, ncell FROM dbstat ORDER BY name, path")
        .unwrap()
        .query_map([], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
        })
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap();
    assert!(
        pages.iter().all(|p| p.3 != "overflow"),
        "no row spills onto overflow pages here"
    );
    let page_of = |name: &str, path: &str| {
        pages
            .iter()
            .find(|p| p.0 == name && p.1 == path)
            .map(|p| p.2)
            .unwrap()
    };
    pages
        .iter()
        .filter(|p| p.3 == "leaf")
        .map(|(name, path, page, _, cells)| {
            // A path is '/', '/000/', '/000/01f/'…: each prefix is an ancestor.
            let ancestors = (1..path.len() - 1)
                .filter(|i| path.as_bytes()[*i] == b'/')
                .map(|i| page_of(name, &path[..=i]))
                .chain(std::iter::once(page_of(name, "/")))
                .collect();
            (name.clone(), *page, ancestors, *cells)
        })
        .collect()
}

/// Rows a table holds in a ledger whose pages `gone` cannot be read: those on the leaves
/// that neither are gone nor hang below a page that is.
fn rows_reachable(leaves: &[(String, i64, Vec<i64>, i64)], table: &str, gone: &[i64]) -> i64 {
    leaves
        .iter()
        .filter(|(name, page, ancestors, _)| {
            name == table && !gone.contains(page) && !ancestors.iter().any(|a| gone.contains(a))
        })
        .map(|l| l.3)
        .sum()
}

/// The rowids of `table` in a (sound) ledger file.
fn rowids(db: &Path, table: &str) -> std::collections::BTreeSet<i64> {
    Connection::open(db)
        .unwrap()
        .prepare(&format!("SELECT rowid FROM \"{table}\""))
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

/// The tables of a ledger that have a rowid (every one but those WITHOUT ROWID).
/// (`ledger_file` names the file, and a salvage is a file of its own: never copied.)
fn rowid_tables(db: &Path) -> Vec<String> {
    Connection::open(db)
        .unwrap()
        .prepare(
            "SELECT name FROM pragma_table_list
              WHERE schema = 'main' AND type = 'table' AND NOT wr AND name NOT LIKE 'sqlite_%'
                AND name <> 'ledger_file'",
        )
        .unwrap()
        .query_map([], |r| r.get(0))
        .unwrap()
        .collect::<rusqlite::Result<_>>()
        .unwrap()
}

/// Does the salvage's line for a table name `rowid` among the rows not saved?
fn names_lost(line: &str, rowid: i64) -> bool {
    let Some((_, lost)) = line.split_once("not saved: ") else {
        return false;
    };
    let number = |s: &str| -> i64 {
        s.chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .unwrap()
    };
    lost.split("; ").any(|part| {
        if part.starts_with("no row could be read") {
            true
        } else if let Some(rest) = part.strip_prefix("the rows after rowid ") {
            rowid > number(rest)
        } else if let Some(rest) = part.strip_prefix("rowids ") {
            let (first, last) = rest.split_once('-').unwrap();
            (number(first)..=number(last)).contains(&rowid)
        } else if let Some(rest) = part.strip_prefix("rowid ") {
            number(rest) == rowid
        } else if let Some(rest) = part.strip_prefix("row ") {
            // A row read whose values its table refuses, named by its rowid.
            number(rest) == rowid
        } else {
            false
        }
    })
}

type Salvaged = (Option<i32>, String, Workdir, PathBuf, PathBuf);

/// The audit's damaged ledger, `damage` done to a copy of a sound one. A plain backup
/// refuses to name a copy and points to the salvage; the salvage writes a new ledger
/// holding only rows of the sound one, says per table what it saved and names every
/// row it lost; `check` passes on it but for rows that refer to lost ones; the
/// damaged file's bytes are as they were. Returns the salvage's exit code and report,
/// and the work directory, the sound ledger and the salvage.
fn salvaged(damage: impl FnOnce(&Path)) -> Salvaged {
    let (w, _) = ledger();
    let sound = w.dir.path().join("sound.db");
    std::fs::copy(&w.db, &sound).unwrap();
    damage(&w.db);
    let before = std::fs::read(&w.db).unwrap();

    let copy = w.dir.path().join("copy.db");
    let out = w.run(&["backup", copy.to_str().unwrap()]);
    let stderr = binary::refused(&out, &["damaged", "no backup was written"]);
    let salvage_command = format!(
        "jobledger --db {} backup --salvage {}",
        w.db.display(),
        copy.display()
    );
    assert!(stderr.contains(&salvage_command), "{stderr}");
    // What was found: SQLite's own refusal, or the check of the copy.
    assert!(
        stderr.contains("SQLite")
            || stderr.contains("its copy failed the check: kept_counts")
            || stderr.contains("its copy failed the check: quick_check"),
        "{stderr}"
    );
    assert!(!copy.exists(), "a copy that fails its check was named");
    let left: Vec<_> = std::fs::read_dir(w.dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().contains(".partial-"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
    assert!(
        std::fs::read(&w.db).unwrap() == before,
        "backup changed the ledger"
    );

    let saved = w.dir.path().join("saved.db");
    let out = w.run(&["backup", "--salvage", saved.to_str().unwrap()]);
    let salvage_code = out.status.code();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{stderr}");
    let report = String::from_utf8(out.stdout).unwrap();
    assert!(report.contains("salvage written to"), "{report}\n{stderr}");
    assert!(
        std::fs::read(&w.db).unwrap() == before,
        "salvage changed the ledger"
    );

    // Only rows of the sound ledger, and every one not saved is named.
    let (whole, kept) = (fixture::dump(&sound), fixture::dump(&saved));
    // The trigram index is not copied: the new ledger indexes each callback saved.
    assert_eq!(
        kept["callback_text_docsize"].len(),
        kept["callbacks"].len(),
        "every callback saved is in the new ledger's text index"
    );
    for (table, rows) in &kept {
        // Counts and what the reconciliation keeps are made again from the rows saved.
        if table == "ledger_counts"
            || table == "callback_text_docsize"
            || table.starts_with("reconcile_")
        {
            continue;
        }
        let line = report
            .lines()
            .find(|l| l.split_whitespace().next() == Some(table.as_str()))
            .unwrap_or_else(|| panic!("no line for {table}: {report}"));
        assert!(
            line.contains(&format!(" {} rows saved", rows.len())),
            "{line}"
        );
        let of_sound: std::collections::HashSet<&String> = whole[table].iter().collect();
        assert!(
            rows.iter().all(|r| of_sound.contains(r)),
            "{table} holds a row the ledger never had"
        );
        assert_eq!(
            rows.len() < whole[table].len(),
            line.contains("not saved"),
            "{line}"
        );
    }
    for table in rowid_tables(&sound) {
        let line = report
            .lines()
            .find(|l| l.split_whitespace().next() == Some(table.as_str()))
            .unwrap();
        let saved_rowids = rowids(&saved, &table);
        for lost in rowids(&sound, &table).difference(&saved_rowids) {
            assert!(
                names_lost(line, *lost),
                "{table} row {lost} lost unnamed: {line}"
            );
        }
    }

    // `check` passes but for rows whose parent was lost (kept as they were read).
    let out = binary::run_at(&saved, NOW, &["check", "--json"]);
    let checked: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let failed: Vec<&str> = checked["checks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| !c["problems"].as_array().unwrap().is_empty())
        .map(|c| c["check"].as_str().unwrap())
        .collect();
    for check in &failed {
        assert!(
            [
                "foreign_keys",
                "callback_lines",
                "latest_attempts",
                "answers"
            ]
            .contains(check),
            "{check} fails on the salvage: {checked}"
        );
    }
    if !failed.is_empty() {
        // Its pages are sound: the advice is no salvage of the salvage.
        let text = String::from_utf8(binary::run_at(&saved, NOW, &["check"]).stdout).unwrap();
        assert!(
            text.contains("as a salvage of a damaged ledger leaves them"),
            "{text}"
        );
        assert!(!text.contains("--salvage"), "{text}");
    }
    let dangling = report.contains("refer to rows that were lost");
    assert_eq!(failed.contains(&"foreign_keys"), dangling, "{report}");
    (salvage_code, report, w, sound, saved)
}

/// Each table that has a rowid holds every row on the pages that are not `gone`.
fn saves_every_reachable_row(sound: &Path, saved: &Path, gone: &[i64]) {
    let leaves = leaves(sound);
    for table in rowid_tables(sound) {
        let reachable = rows_reachable(&leaves, &table, gone);
        let kept = i64::try_from(rowids(saved, &table).len()).unwrap();
        assert_eq!(
            kept, reachable,
            "{table}: a damaged page lost more than its own rows"
        );
    }
}

#[test]
fn a_salvage_of_a_ledger_cut_to_half_saves_the_pages_that_are_there() {
    let mut pages = 0;
    let (code, report, _w, sound, saved) = salvaged(|db| {
        let bytes = std::fs::read(db).unwrap();
        pages = bytes.len() / PAGE;
        // Cut at a page's edge: the pages after it are gone whole, as the count of
        // reachable rows below assumes (a page cut through its middle may still give
        // some of its rows, more than that count).
        std::fs::write(db, &bytes[..pages / 2 * PAGE]).unwrap();
    });
    assert_eq!(code, Some(4), "{report}");
    assert!(
        report.contains("the ledger counted 931 callbacks"),
        "{report}"
    );
    let gone: Vec<i64> =
        (i64::try_from(pages / 2).unwrap() + 1..=i64::try_from(pages).unwrap()).collect();
    saves_every_reachable_row(&sound, &saved, &gone);
}

#[test]
fn a_salvage_of_a_ledger_with_twenty_zeroed_pages_loses_only_their_rows() {
    let mut gone = Vec::new();
    let (code, report, _w, sound, saved) = salvaged(|db| {
        let mut bytes = std::fs::read(db).unwrap();
        let middle = bytes.len() / PAGE / 2;
        for page in middle - 10..middle + 10 {
            bytes[page * PAGE..(page + 1) * PAGE].fill(0);
            gone.push(i64::try_from(page + 1).unwrap());
        }
        std::fs::write(db, bytes).unwrap();
    });
    assert_eq!(code, Some(4), "{report}");
    saves_every_reachable_row(&sound, &saved, &gone);
}

#[test]
fn a_salvage_of_a_ledger_with_a_zeroed_index_page_saves_every_row() {
    let (code, report, _w, sound, saved) = salvaged(|db| {
        let (mut file, root) = file_and_root(db, "sqlite_autoindex_input_lines_1");
        file[root..root + PAGE].fill(0);
        std::fs::write(db, file).unwrap();
    });
    assert_eq!(code, Some(0), "{report}");
    assert!(!report.contains("not saved"), "{report}");
    assert!(report.contains("every row of"), "{report}");
    assert_eq!(fixture::dump(&saved), fixture::dump(&sound));
    let out = binary::run_at(&saved, NOW, &["check"]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
}

#[test]
fn a_salvage_of_a_callbacks_leaf_that_lost_cells_names_the_rows_it_dropped() {
    let mut dropped = 0;
    let (code, report, _w, _sound, saved) = salvaged(|db| {
        dropped = damage_a_callbacks_leaf(db) - 6;
    });
    assert_eq!(code, Some(4), "{report}");
    let kept = rowids(&saved, "callbacks").len();
    assert_eq!(kept, 931 - usize::from(dropped));
    assert!(
        report.contains(&format!("the ledger counted 931 callbacks; {kept} of them")),
        "{report}"
    );
    assert!(report.contains("are missing between rows read"), "{report}");
}
