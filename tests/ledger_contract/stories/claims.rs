//! Claims ("on it"): a reviewer takes a held or quarantined case, everyone sees who is
//! on it, a colleague's claim is refused, bulk answers leave the case out, and the
//! claim ends when the case is answered, released, or after half an hour. Claims are
//! rows of their own, never rewritten.

use jobledger::clock::Timestamp;
use jobledger::review::claims::{self, ClaimError};
use serde_json::Value;

use super::{callbacks, seq_of, with_demo_streams};
use crate::location::Location;
use crate::support::fixture::now;

/// The `claim` of callback `seq` as `callbacks --json` shows it at `--now`.
fn claim_shown(location: &Location, seq: i64) -> Value {
    callbacks(location)
        .into_iter()
        .find(|c| c["seq"] == seq)
        .unwrap_or_else(|| panic!("no callback #{seq}"))["claim"]
        .clone()
}

/// Ana claims the held C2 from the command line: everyone's listing shows her on it,
/// until half an hour later. Bo's claim is refused naming her; her own claim again is
/// taken (it lasts from then). Bo's bulk answer of the held callbacks leaves C2 out and
/// names her. Her release ends it; Bo claims it; his answer ends his claim.
pub fn a_claim_is_shown_to_all_refused_to_others_and_ended_by_an_answer(location: &Location) {
    with_demo_streams(location);
    let c2 = seq_of(location, "d-1042-a");
    let c2s = c2.to_string();
    let claim = location.json(&["claim", &c2s, "--reviewer", "ana", "--json"]);
    assert_eq!(claim["seq"], c2);
    assert_eq!(claim["claim"]["reviewer"], "ana");
    let shown = claim_shown(location, c2);
    assert_eq!(shown["reviewer"], "ana");
    assert_eq!(shown["since"], claim["claim"]["since"]);
    let since = Timestamp::parse(shown["since"].as_str().unwrap()).unwrap();
    let until = Timestamp::parse(shown["until"].as_str().unwrap()).unwrap();
    assert_eq!(until.seconds_since(since), 30 * 60);

    location.refused(
        &["claim", &c2s, "--reviewer", "bo"],
        &["claimed by ana", "nothing was written"],
    );
    location.refused(
        &["claim", &c2s, "--release", "--reviewer", "bo"],
        &["claimed by ana"],
    );

    // A bulk answer by Bo leaves Ana's case out and says why.
    let plan = location.json(&[
        "answer",
        "--disposition",
        "hold",
        "--verdict",
        "needs_remote_check",
        "--reviewer",
        "bo",
        "--dry-run",
        "--json",
    ]);
    let left_out = plan["left_out"].as_array().expect("rows left out");
    let c2_left = left_out
        .iter()
        .find(|l| l["seq"] == c2)
        .unwrap_or_else(|| panic!("C2 is not left out: {plan}"));
    assert!(
        c2_left["why"].as_str().unwrap().contains("claimed by ana"),
        "{c2_left}"
    );

    // Through the library, at a clock half an hour on, the claim has lapsed.
    let later = now().plus_seconds(30 * 60);
    let mut ledger = location.open();
    let mut rows = ledger.callbacks_numbered(&[c2]).unwrap();
    claims::attach(&ledger, &mut rows, now()).unwrap();
    assert_eq!(
        rows[0].claim.as_ref().map(|c| c.reviewer.as_str()),
        Some("ana")
    );
    claims::attach(&ledger, &mut rows, later).unwrap();
    assert_eq!(rows[0].claim, None, "a claim lapses at its end");

    // Released, Bo may claim it; his answer ends his claim.
    claims::release(&mut ledger, c2, "ana", now()).unwrap();
    assert!(matches!(
        claims::release(&mut ledger, c2, "ana", now()),
        Err(ClaimError::NotYours(_))
    ));
    drop(ledger);
    assert_eq!(claim_shown(location, c2), Value::Null);
    location.ok(&["claim", &c2s, "--reviewer", "bo"]);
    assert_eq!(claim_shown(location, c2)["reviewer"], "bo");
    location.ok(&[
        "answer",
        &c2s,
        "--verdict",
        "single_effect",
        "--reviewer",
        "bo",
    ]);
    assert_eq!(
        claim_shown(location, c2),
        Value::Null,
        "an answer ends the claim"
    );
    location.refused(&["claim", &c2s, "--reviewer", "ana"], &["answered already"]);
    // An applied callback takes no claim.
    location.refused(
        &["claim", "1", "--reviewer", "ana"],
        &["only held and quarantined"],
    );
}
