//! Reconciliation: every accepted job accounted for, by what the ledger proves.

use serde_json::{Value, json};

use super::{strings, with_demo_streams};
use crate::location::Location;

/// The job ids of a list of objects.
fn job_ids(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap_or_else(|| panic!("expected a list: {list}"))
        .iter()
        .map(|item| item["job_id"].as_str().expect("a job id"))
        .collect()
}

/// The demo queue is not complete, and the report says why, job by job: the jobs with
/// no terminal record (the aged ones among them, the unowned flagged), the success
/// whose output is gone (though notified: a notification is no result), the job never
/// notified, the job decided twice under two decision ids, the job id submitted again
/// for another input. Every accepted job is in one window.
pub fn the_demo_queue_is_accounted_for_job_by_job(location: &Location) {
    with_demo_streams(location);
    let r = location.json(&["reconcile", "--json"]);
    assert_eq!(r["accepted"], 15);
    assert_eq!(r["complete"], false);
    assert_eq!(
        strings(&r["missing_terminal"]),
        [
            "booking-1042",
            "booking-1043",
            "booking-1055",
            "booking-1056"
        ]
    );
    assert_eq!(strings(&r["missing_output"]), ["booking-1052"]);
    assert_eq!(strings(&r["missing_notification"]), ["booking-1051"]);

    let divergent = &r["divergent_decisions"];
    assert_eq!(job_ids(divergent), ["booking-1045"]);
    let decisions: Vec<(&Value, &Value)> = divergent[0]["decisions"]
        .as_array()
        .expect("the decisions")
        .iter()
        .map(|d| (&d["decision_id"], &d["route"]))
        .collect();
    assert_eq!(
        decisions,
        [
            (&json!("dec-1045-eu"), &json!("eu-west")),
            (&json!("dec-1045-us"), &json!("us-east"))
        ]
    );
    assert_eq!(divergent[0]["answer"], Value::Null);

    let conflicting = &r["conflicting_submissions"];
    assert_eq!(job_ids(conflicting), ["booking-1043"]);
    assert_eq!(conflicting[0]["first"]["input_digest"], "sha256:0b44c1");
    assert_eq!(
        conflicting[0]["conflicting"][0]["input_digest"],
        "sha256:e71d05"
    );

    let aged: Vec<(&str, &Value, &Value)> = r["aged"]
        .as_array()
        .expect("the aged jobs")
        .iter()
        .map(|a| {
            (
                a["job_id"].as_str().expect("a job id"),
                &a["owner"],
                &a["unowned"],
            )
        })
        .collect();
    assert_eq!(
        aged,
        [
            ("booking-1042", &Value::Null, &json!(true)),
            ("booking-1043", &Value::Null, &json!(true)),
            ("booking-1055", &json!("ops:lee"), &json!(false)),
            ("booking-1056", &Value::Null, &json!(true)),
        ]
    );

    let windows = r["windows"].as_array().expect("the windows");
    let starts: Vec<&str> = windows
        .iter()
        .map(|w| w["start"].as_str().expect("a start"))
        .collect();
    assert_eq!(
        starts,
        ["2026-11-27T13:00:00.000Z", "2026-11-27T14:00:00.000Z"]
    );
    let per_window: i64 = windows
        .iter()
        .map(|w| w["accepted"].as_i64().expect("a count"))
        .sum();
    assert_eq!(per_window, 15, "every accepted job is in one window");

    let out = location.run(&["reconcile", "--exit-code"]);
    assert_eq!(out.status.code(), Some(5), "NOT COMPLETE wants a person");
}

/// A person answers which of booking-1045's decisions stands: the report shows the
/// answer beside the decisions, and a second answer over it unseen is refused.
pub fn an_answer_on_divergent_decisions_closes_them(location: &Location) {
    with_demo_streams(location);
    let written = location.json(&[
        "answer",
        "--decisions",
        "booking-1045",
        "--verdict",
        "first_stands",
        "--note",
        "checked with payments",
        "--reviewer",
        "ann",
        "--json",
    ]);
    assert_eq!(written["job_id"], "booking-1045");
    assert_eq!(written["verdict"], "first_stands");
    assert_eq!(written["reviewer"], "ann");

    let r = location.json(&["reconcile", "--json"]);
    let answer = &r["divergent_decisions"][0]["answer"];
    assert_eq!(answer["verdict"], "first_stands", "{r}");
    assert_eq!(answer["reviewer"], "ann");
    assert_eq!(answer["note"], "checked with payments");
    assert_eq!(answer["id"], written["id"]);
    {
        let ledger = location.open_read_only();
        let standing = ledger
            .decision_answer("booking-1045")
            .unwrap()
            .expect("the answer is kept");
        assert_eq!(standing.reviewer, "ann");
        assert_eq!(ledger.divergent_decisions_closed().unwrap(), 1);
    }

    location.refused(
        &[
            "answer",
            "--decisions",
            "booking-1045",
            "--verdict",
            "second_stands",
            "--reviewer",
            "bob",
        ],
        &["answered meanwhile by ann", "nothing was written"],
    );
    let after = location.json(&["reconcile", "--json"]);
    assert_eq!(after["divergent_decisions"][0]["answer"], *answer);
}
