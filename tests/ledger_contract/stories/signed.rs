//! Who wrote a person's row: the name the person gave, and beside it the database role
//! the ledger recorded. A server sets the role itself on every answer, owner
//! assignment, request, withdrawal and saved view; a file has no roles, and shows the
//! name alone, as it always did. Whichever the engine, every read of a row (the API,
//! `--json`, the text reports, the timeline) tells the same writer, and never puts the
//! role in place of the name.

use jobledger::escalation::set_owner;
use jobledger::outbox::{RequestKind, request, withdraw};
use jobledger::store::{SavedView, TimelineFact};
use serde_json::Value;

use super::{callbacks, seq_of, with_demo_streams};
use crate::location::Location;
use crate::support::fixture::at;

/// Ann answers a held callback and the divergent decisions of booking-1045 through the
/// binary; through the API the lead gives booking-1042 an owner, Kim asks a cancel and
/// withdraws it, and Ann saves a view. Each row says its name as given, and the role
/// the ledger knows (`Location::role`) in every place it is read.
pub fn every_persons_row_says_the_role_that_wrote_it_beside_the_name(location: &Location) {
    with_demo_streams(location);
    let role = location.role();
    let seq = seq_of(location, "d-1042-a");
    let answer = location.json(&[
        "answer",
        &seq.to_string(),
        "--verdict",
        "single_effect",
        "--reviewer",
        "ann",
        "--json",
    ]);
    let decided = location.json(&[
        "answer",
        "--decisions",
        "booking-1045",
        "--verdict",
        "first_stands",
        "--reviewer",
        "ann",
        "--json",
    ]);
    {
        let mut ledger = location.open();
        set_owner(
            &mut ledger,
            "booking-1042",
            "ops:kim",
            None,
            "ops:lead",
            at("2026-11-27T16:10:00Z"),
        )
        .expect("the owner is set");
        let cancel = request(
            &mut ledger,
            RequestKind::Cancel,
            "booking-1042",
            "ops:kim",
            at("2026-11-27T16:20:00Z"),
        )
        .expect("a cancel of a running job is allowed");
        withdraw(
            &mut ledger,
            cancel.id,
            "ops:kim",
            "the hotel confirmed",
            at("2026-11-27T16:30:00Z"),
        )
        .expect("the cancel is withdrawn");
        let mut writer = ledger.writer().expect("a write transaction");
        writer
            .save_view(&SavedView {
                name: "late holds".to_owned(),
                tab: "Held".to_owned(),
                query: "gap>1h".to_owned(),
                saved_by: "ann".to_owned(),
                saved_at: at("2026-11-27T16:40:00Z"),
                // What a client says is not asked: the ledger records the writer.
                written_by: Some("someone_else".to_owned()),
            })
            .expect("the view is saved");
        writer.commit().expect("the view is committed");
    }

    // The JSON: the key where the ledger knows the role, and no key where it does not.
    let role_json = role.clone().map_or(Value::Null, Value::from);
    let written_by = |row: &Value| row.get("written_by").cloned().unwrap_or(Value::Null);
    assert_eq!(answer["reviewer"], "ann");
    assert_eq!(written_by(&answer), role_json, "answer --json: {answer}");
    assert_eq!(decided["reviewer"], "ann");
    assert_eq!(
        written_by(&decided),
        role_json,
        "answer --decisions: {decided}"
    );
    let listed = callbacks(location);
    let shown = &listed.iter().find(|c| c["seq"] == seq).expect("listed")["answer"];
    assert_eq!(written_by(shown), role_json, "callbacks --json: {shown}");
    let reconcile = location.json(&["reconcile", "--json"]);
    let standing = &reconcile["divergent_decisions"][0]["answer"];
    assert_eq!(
        written_by(standing),
        role_json,
        "reconcile --json: {standing}"
    );
    let outbox = location.json(&["outbox", "--json"]);
    assert_eq!(outbox[0]["requested_by"], "ops:kim");
    assert_eq!(written_by(&outbox[0]), role_json, "outbox --json: {outbox}");
    let withdrawal = &outbox[0]["withdrawal"];
    assert_eq!(
        written_by(withdrawal),
        role_json,
        "withdrawal: {withdrawal}"
    );
    let views = location.json(&["views", "--json"]);
    assert_eq!(views[0]["saved_by"], "ann");
    assert_eq!(written_by(&views[0]), role_json, "views --json: {views}");

    // The API: every row and every timeline fact of a person's write.
    let ledger = location.open_read_only();
    let answers = ledger.answers(seq).unwrap();
    assert_eq!(answers.last().expect("an answer").written_by, role);
    let owner = ledger.owner("booking-1042").unwrap().expect("an owner");
    assert_eq!(
        (owner.set_by.as_str(), owner.written_by.clone()),
        ("ops:lead", role.clone())
    );
    let decision = ledger
        .decision_answer("booking-1045")
        .unwrap()
        .expect("kept");
    assert_eq!(decision.written_by, role);
    let views = ledger.saved_views().unwrap();
    assert_eq!(views[0].written_by, role, "never the client's word");
    let writers: Vec<(String, Option<String>)> = ledger
        .timeline("booking-1042")
        .unwrap()
        .into_iter()
        .filter_map(|entry| match entry.fact {
            TimelineFact::Answer {
                reviewer,
                written_by,
                ..
            } => Some((format!("answer by {reviewer}"), written_by)),
            TimelineFact::OwnerSet {
                set_by, written_by, ..
            } => Some((format!("owner set by {set_by}"), written_by)),
            TimelineFact::Requested {
                requested_by,
                written_by,
                ..
            } => Some((format!("requested by {requested_by}"), written_by)),
            TimelineFact::Withdrawn {
                withdrawn_by,
                written_by,
                ..
            } => Some((format!("withdrawn by {withdrawn_by}"), written_by)),
            _ => None,
        })
        .collect();
    assert_eq!(
        writers,
        [
            ("owner set by ops:lead".to_owned(), role.clone()),
            ("requested by ops:kim".to_owned(), role.clone()),
            ("withdrawn by ops:kim".to_owned(), role.clone()),
            ("answer by ann".to_owned(), role.clone()),
        ]
    );
    let divergent = ledger.timeline("booking-1045").unwrap();
    assert!(
        divergent.iter().any(|e| matches!(&e.fact,
            TimelineFact::DecisionAnswer { reviewer, written_by, .. }
                if reviewer == "ann" && *written_by == role)),
        "{divergent:#?}"
    );
    drop(ledger);

    // The text: the role beside the name where it is known, nothing more where not.
    let by = match &role {
        Some(role) => format!("by ann (as {role}) "),
        None => "by ann 2026-".to_owned(),
    };
    let text = location.ok(&["callbacks"]);
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with(&format!("{seq} ")))
        .expect("the answered callback's line");
    assert!(line.contains(&format!("single_effect {by}")), "{line}");
    let outbox = location.ok(&["outbox"]);
    let withdrawn_by = match &role {
        Some(role) => format!("withdrawn by ops:kim (as {role}) at"),
        None => "withdrawn by ops:kim at".to_owned(),
    };
    assert!(outbox.contains(&withdrawn_by), "{outbox}");
}
