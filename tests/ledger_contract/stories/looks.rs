//! New since you looked: a reviewer's last look at a list is kept in the ledger, and
//! what came or changed since (a new hold, a colleague's answer, a job that became
//! overdue) is counted for them, not for anyone else, on any machine.

use jobledger::decision::Disposition;
use jobledger::review::looks;

use super::{seq_of, with_afternoon};
use crate::location::Location;
use crate::support::fixture::{demo_queue, now};

/// Bo looks at Held after the afternoon; then the demo queue brings more holds and
/// Ana answers one of the afternoon's: Bo's Held counts both kinds as new; his own
/// answer would not be; Ana, who never looked, has no look to count from. A job whose
/// escalation passes after Bo's look at Aged counts as new there.
pub fn what_came_since_a_look_is_counted_for_that_reviewer(location: &Location) {
    with_afternoon(location);
    let mut ledger = location.open();
    let bo = looks::record(&mut ledger, "bo", looks::HELD, now()).unwrap();
    assert_eq!(
        ledger.last_look("bo", looks::HELD).unwrap(),
        Some(bo.clone())
    );
    assert_eq!(ledger.last_look("ana", looks::HELD).unwrap(), None);
    assert_eq!(ledger.last_look("bo", looks::AGED).unwrap(), None);
    assert_eq!(
        ledger
            .count_new_since(Disposition::Hold, &bo, "bo")
            .unwrap(),
        0
    );
    drop(ledger);

    location.ingest(&demo_queue());
    let c2 = seq_of(location, "d-1042-a");
    location.ok(&[
        "answer",
        &c2.to_string(),
        "--verdict",
        "single_effect",
        "--reviewer",
        "ana",
    ]);
    let ledger = location.open_read_only();
    let held_now =
        crate::stories::list(location.json(&["callbacks", "--json", "--disposition", "hold"]));
    let came = held_now
        .iter()
        .filter(|c| c["seq"].as_i64().unwrap() > bo.callback_seq)
        .count();
    assert!(came > 0, "the demo queue brings holds");
    assert_eq!(
        ledger
            .count_new_since(Disposition::Hold, &bo, "bo")
            .unwrap(),
        i64::try_from(came + 1).unwrap(),
        "the holds that came, and C2 answered by ana"
    );
    // Ana's own answer is no news to her.
    assert_eq!(
        ledger
            .count_new_since(Disposition::Hold, &bo, "ana")
            .unwrap(),
        i64::try_from(came).unwrap()
    );
    drop(ledger);

    // A hold that came since, answered by Ana too, is one new callback for Bo, not two.
    let newest = held_now
        .iter()
        .max_by_key(|c| c["seq"].as_i64().unwrap())
        .unwrap();
    let verdict = match newest["reason"].as_str().unwrap() {
        "possible_duplicate_effect" => "single_effect",
        _ => "success_stands",
    };
    location.ok(&[
        "answer",
        &newest["seq"].to_string(),
        "--verdict",
        verdict,
        "--reviewer",
        "ana",
    ]);
    let came = i64::try_from(came).unwrap();
    let new_in_held = |me: &str| {
        location
            .open_read_only()
            .count_new_since(Disposition::Hold, &bo, me)
            .unwrap()
    };
    assert_eq!(
        new_in_held("bo"),
        came + 1,
        "a new hold answered since is counted once"
    );
    // Bo answers C2 over Ana's answer: the standing answer is his, no news to him.
    let ana_answer = location.json(&["callbacks", "--json", "--disposition", "hold"]);
    let ana_answer = crate::stories::list(ana_answer)
        .iter()
        .find(|c| c["seq"].as_i64() == Some(c2))
        .map(|c| c["answer"]["id"].as_i64().unwrap())
        .unwrap();
    location.ok(&[
        "answer",
        &c2.to_string(),
        "--verdict",
        "single_effect",
        "--reviewer",
        "bo",
        "--seen",
        &ana_answer.to_string(),
    ]);
    assert_eq!(new_in_held("bo"), came, "C2's standing answer is Bo's own");
    assert_eq!(
        new_in_held("ana"),
        came + 1,
        "Bo's answer over Ana's is news to her"
    );

    // Aged: Bo looks; an owner's escalation then passes.
    let mut ledger = location.open();
    let aged_look = looks::record(&mut ledger, "bo", looks::AGED, now()).unwrap();
    jobledger::escalation::set_owner(
        &mut ledger,
        "booking-1056",
        "ops:bo",
        Some(now().plus_seconds(600)),
        "lead",
        now(),
    )
    .unwrap();
    let overdue = looks::became_overdue(&aged_look);
    assert_eq!(ledger.aged_count_matching(now(), &overdue).unwrap(), 0);
    let later = now().plus_seconds(1200);
    assert_eq!(ledger.aged_count_matching(later, &overdue).unwrap(), 1);
    // A later look sees it: nothing new any more.
    let again = looks::record(&mut ledger, "bo", looks::AGED, later).unwrap();
    assert_eq!(
        ledger
            .aged_count_matching(later, &looks::became_overdue(&again))
            .unwrap(),
        0
    );
    assert_eq!(ledger.last_look("bo", looks::AGED).unwrap(), Some(again));
}
