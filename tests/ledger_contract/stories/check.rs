//! `check`: what the ledger promises about itself, recounted.

use serde_json::Value;

use super::with_demo_streams;
use crate::location::{KeptEdit, Location};
use crate::support::reports::check_problems;

/// What `check --json` found: its exit status, and each check's problems by name.
fn checked(location: &Location) -> (Option<i32>, Vec<(String, Vec<String>)>) {
    let out = location.run(&["check", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).expect("check --json prints JSON");
    (out.status.code(), check_problems(&report))
}

/// The problems of `kept_reconciliation`, every other check having passed; `check`
/// failed with its status for a ledger that breaks a promise.
fn kept_reconciliation_only(location: &Location) -> Vec<String> {
    let (code, problems) = checked(location);
    let mut found = None;
    for (check, problems) in problems {
        if check == "kept_reconciliation" {
            found = Some(problems);
        } else {
            assert!(problems.is_empty(), "{check} found {problems:?}");
        }
    }
    let found = found.expect("check runs kept_reconciliation");
    assert_eq!(code, Some(3), "{found:?}");
    // The last sentence names what mends it, on either engine.
    let mend = found.last().expect("problems");
    assert!(
        mend.contains(
            "makes what the ledger keeps for the reconciliation again from its rows: `jobledger "
        ),
        "{found:?}"
    );
    found
}

/// A sound ledger passes `kept_reconciliation` (every job walked); a row of what the
/// ledger keeps for the reconciliation's glance deleted, a bogus one added, or an
/// hour's count changed behind jobledger's back (the kept rows are judged again only
/// when a write touches their job, and counts are only added to, so nothing mends
/// them) is named, job or hour, with `check`'s failing status; what the check names
/// as the mend makes a ledger that passes again.
pub fn what_is_kept_for_the_reconciliation_is_the_walks(location: &Location) {
    with_demo_streams(location);
    let (code, found) = checked(location);
    assert_eq!(code, Some(0), "{found:?}");
    let names: Vec<&str> = found.iter().map(|(check, _)| check.as_str()).collect();
    assert_eq!(names.last(), Some(&"kept_reconciliation"), "{names:?}");
    let report = location.json(&["check", "--json"]);
    let walked = report["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["check"] == "kept_reconciliation"))
        .expect("kept_reconciliation ran");
    assert_eq!(
        walked["examined"], 15,
        "every accepted job walked: {walked}"
    );

    // booking-1052 succeeded and its output is gone.
    let missing = KeptEdit::DropFinding {
        finding: "missing_output",
        job: "booking-1052",
    };
    location.edit_kept(missing);
    let problems = kept_reconciliation_only(location);
    assert_eq!(problems.len(), 2, "{problems:?}");
    assert!(
        problems[0].starts_with("missing_output: the ledger ")
            && problems[0].ends_with(
                ", the walk finds 1; first difference: booking-1052 found by the walk, not kept"
            ),
        "{problems:?}"
    );
    location.edit_kept(KeptEdit::AddFinding {
        finding: "missing_output",
        job: "booking-1052",
    });
    assert_eq!(checked(location).0, Some(0), "put back as it was");

    // booking-1045 is decided under two decision ids, booking-1042 under none.
    let bogus = KeptEdit::AddFinding {
        finding: "divergent_decisions",
        job: "booking-1042",
    };
    location.edit_kept(bogus);
    let problems = kept_reconciliation_only(location);
    assert!(
        problems[0].starts_with("divergent_decisions: the ledger ")
            && problems[0].ends_with(
                ", the walk finds 1; first difference: booking-1042 kept, not found by the walk"
            ),
        "{problems:?}"
    );
    // The hour's count of divergent decisions is kept apart, and it is as it was.
    assert!(
        problems.iter().all(|p| !p.starts_with("hour ")),
        "{problems:?}"
    );
    location.edit_kept(KeptEdit::DropFinding {
        finding: "divergent_decisions",
        job: "booking-1042",
    });
    assert_eq!(checked(location).0, Some(0), "put back as it was");

    // booking-1051 was accepted at 13:00 something and is terminal now.
    location.edit_kept(KeptEdit::CountInHour {
        job: "booking-1051",
        n: 2,
    });
    let problems = kept_reconciliation_only(location);
    assert_eq!(problems.len(), 2, "{problems:?}");
    let (hour, counts) = problems[0].split_once(": ").expect("an hour, then counts");
    assert!(hour.starts_with("hour 2026-11-27T1"), "{problems:?}");
    let (kept, walked) = counts
        .strip_prefix("jobs.")
        .and_then(|c| c.split_once(" kept "))
        .and_then(|(_, c)| c.split_once(", the walk finds "))
        .expect("one state's count, kept and walked");
    assert_eq!(
        kept.parse::<i64>().unwrap(),
        walked.parse::<i64>().unwrap() + 2,
        "{problems:?}"
    );
    // The console's Reconcile view reads the hour as the ledger keeps it.
    let windows = location.json(&["reconcile", "--json"])["windows"].clone();
    location.edit_kept(KeptEdit::CountInHour {
        job: "booking-1051",
        n: -2,
    });
    assert_ne!(
        windows,
        location.json(&["reconcile", "--json"])["windows"],
        "the report's hours are the kept ones"
    );

    // Everything at once, then mended as the check says.
    location.edit_kept(missing);
    location.edit_kept(bogus);
    assert!(kept_reconciliation_only(location).len() >= 3);
    let mended = location.mend_kept();
    assert_eq!(mended["ok"], true, "{mended}");
    let walked = mended["checks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["check"] == "kept_reconciliation"))
        .expect("kept_reconciliation ran");
    assert_eq!(walked["examined"], 15, "{walked}");
}
