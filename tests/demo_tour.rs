//! `jobledger demo --tour` from the command line, as a presenter runs it: the real
//! binary in a pseudo-terminal opens in the tour, says on leaving how to open the
//! demo ledger again, and the ledger opened again later with `review` keeps the
//! demo's fixed clock ("3 h ago", not the days since it was built).

mod support;

use support::binary::{Workdir, bare, succeeded};
use support::pty::PtySession;

/// The demo's ledger file, made by `demo` in the working directory.
const DEMO_DB: &str = "jobledger-demo.db";

#[test]
fn demo_help_names_the_tour_and_the_tour_wants_the_console() {
    let w = Workdir::new();
    let help = succeeded(
        &w.command().args(["demo", "--help"]).output().unwrap(),
        &["demo", "--help"],
    );
    assert!(help.contains("--tour"), "{help}");
    assert!(
        help.contains("guided tour of the booking afternoon"),
        "{help}"
    );
    // The tour is of the console on the booking afternoon: not of a printout, nor of a
    // generated stream.
    for other in [&["--print"][..], &["--jobs", "10"][..]] {
        let mut args = vec!["demo", "--tour"];
        args.extend(other);
        let out = w.command().args(&args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains("cannot be used with"), "{stderr}");
    }
}

#[test]
fn demo_tour_opens_in_the_tour_and_says_how_to_open_the_ledger_again() {
    let w = Workdir::new();
    let mut console = PtySession::spawn(&["demo", "--tour"], w.dir.path(), (80, 24), &[]);
    console.wait_for("Tour 1/11 · the booking afternoon");
    console.wait_for("C1′");
    console.send(b" ");
    console.wait_for("Tour 2/11 · C1, applied late");
    console.send(b"\x1b");
    console.wait_for("left the tour at step 2/11");
    let after = console.quit();
    assert!(
        after.contains(&format!("jobledger --db {DEMO_DB}")),
        "how to open it again is not said:\n{after}"
    );
}

#[test]
fn a_demo_ledger_opened_again_with_review_keeps_the_demo_clock() {
    let w = Workdir::new();
    succeeded(
        &w.command().args(["demo", "--print"]).output().unwrap(),
        &["demo", "--print"],
    );
    // No --now: the ledger's own clock, the demo's afternoon.
    let console = PtySession::spawn(&["--db", DEMO_DB, "review"], w.dir.path(), (100, 30), &[]);
    console.wait_for("clock fixed at 11-27 17:00:00 UTC");
    console.wait_for("11-27 13:16:45 (3 h ago)");
    console.quit();
    // --now still wins over the ledger's clock.
    let console = PtySession::spawn(
        &["--db", DEMO_DB, "--now", "2026-12-01T17:00:00Z", "review"],
        w.dir.path(),
        (100, 30),
        &[],
    );
    console.wait_for("clock fixed at 12-01 17:00:00 UTC");
    console.wait_for("11-27 13:16:45 (4 d ago)");
    console.quit();
    // The reports read it at the same clock: as `demo --print` did.
    for report in ["summary", "reconcile"] {
        let kept = bare()
            .current_dir(w.dir.path())
            .args(["--db", DEMO_DB, report, "--json"])
            .output()
            .unwrap();
        let fixed = bare()
            .current_dir(w.dir.path())
            .args([
                "--db",
                DEMO_DB,
                "--now",
                "2026-11-27T17:00:00Z",
                report,
                "--json",
            ])
            .output()
            .unwrap();
        assert_eq!(
            succeeded(&kept, &[report]),
            succeeded(&fixed, &[report]),
            "{report} without --now"
        );
    }
}

#[test]
fn a_persons_write_from_the_command_line_on_a_demo_ledger_lands_in_its_afternoon() {
    let w = Workdir::new();
    succeeded(
        &w.command().args(["demo", "--print"]).output().unwrap(),
        &["demo", "--print"],
    );
    let run = |args: &[&str]| {
        let mut all = vec!["--db", DEMO_DB];
        all.extend_from_slice(args);
        let out = bare()
            .current_dir(w.dir.path())
            .env("JOBLEDGER_REVIEWER", "ana")
            .args(&all)
            .output()
            .unwrap();
        succeeded(&out, args)
    };
    // The claim, the answer and the owner are stamped with the demo's clock, as the
    // demo's console stamps them; the system's clock is days later.
    let claim: serde_json::Value = serde_json::from_str(&run(&["claim", "2", "--json"])).unwrap();
    assert_eq!(
        claim["claim"]["since"], "2026-11-27T17:00:00.000Z",
        "{claim}"
    );
    let answer: serde_json::Value = serde_json::from_str(&run(&[
        "answer",
        "2",
        "--verdict",
        "duplicate_effect",
        "--note",
        "same ref",
        "--json",
    ]))
    .unwrap();
    assert_eq!(
        answer["answered_at"], "2026-11-27T17:00:00.000Z",
        "{answer}"
    );
    let owner: serde_json::Value = serde_json::from_str(&run(&[
        "owner",
        "--where",
        "",
        "--owner",
        "ops:lee",
        "--escalate-at",
        "2h",
        "--dry-run",
        "--json",
    ]))
    .unwrap();
    assert_eq!(owner["escalate_at"], "2026-11-27T19:00:00.000Z", "{owner}");
}
