//! The console's views drawn from a model built in the test: rows made by hand, no
//! ledger file. What a view shows for given rows is pinned here apart from how the
//! ledger reads them.

mod support;

use jobledger::clock::{Clock, Timestamp};
use jobledger::console::model::counts::Count;
use jobledger::console::model::detail::{Detail, DetailKey, RawMessage};
use jobledger::console::model::page::{CallbackItem, Page};
use jobledger::console::{Model, Tab};
use jobledger::decision::{
    Disposition, JobState, Outcome, ReasonCode, RejectionCode, RequestKind, RequestStatus,
};
use jobledger::store::{
    CallbackRow, JobRow, OutboxRow, RejectedLine, Replacement, SortValue, TimelineEntry,
    TimelineFact,
};
use support::terminal::{HEIGHT, WIDTH, text_at};

fn at(text: &str) -> Timestamp {
    Timestamp::parse(text).expect("a time")
}

fn model() -> Model {
    let now = at("2026-11-27T18:00:00Z");
    Model::new(
        "/ledgers/afternoon.db".to_owned(),
        Clock::Fixed(now),
        now,
        "ana".to_owned(),
        false,
    )
}

/// A callback on `job`, arriving `late_s` seconds after its attempt's timeout.
fn callback(seq: i64, job: &str, disposition: Disposition, reason: ReasonCode) -> CallbackRow {
    CallbackRow {
        seq,
        line_seq: seq + 100,
        delivery_id: Some(format!("d-{seq}")),
        job_id: Some(job.to_owned()),
        attempt: Some(1),
        outcome: Some(Outcome::Success),
        arrived_at: Some(at("2026-11-27T13:16:45Z")),
        timeout_at: Some(at("2026-11-27T13:12:01Z")),
        disposition,
        reason,
        detail: None,
        first_report_seq: None,
        linked_from_seq: None,
        judged_at: at("2026-11-27T13:16:45Z"),
        replacement: None,
        answer: None,
        claim: None,
    }
}

fn held_rows() -> Vec<CallbackItem> {
    let mut first = callback(
        2,
        "booking-1042",
        Disposition::Hold,
        ReasonCode::PossibleDuplicateEffect,
    );
    first.replacement = Some(Replacement {
        attempt: 2,
        created_by: "staff:maria".to_owned(),
        started_at: at("2026-11-27T13:14:00Z"),
        state: None,
    });
    let mut second = callback(
        11,
        "booking-1054",
        Disposition::Hold,
        ReasonCode::ConflictingOutcomes,
    );
    second.arrived_at = Some(at("2026-11-27T14:21:30Z"));
    second.timeout_at = Some(at("2026-11-27T14:22:01Z"));
    [first, second]
        .into_iter()
        .map(|row| CallbackItem {
            sort_value: SortValue::Integer(row.seq),
            row,
            raw_head: None,
            earlier: None,
        })
        .collect()
}

/// The page of callbacks `tab` lists, to fill in.
fn callbacks(model: &mut Model, tab: Tab) -> &mut Page<CallbackItem> {
    model.lists.page_mut(tab).expect("the tab lists callbacks")
}

#[test]
fn the_held_view_draws_the_rows_it_is_given() {
    let mut model = model();
    let held = callbacks(&mut model, Tab::Held);
    held.rows = held_rows();
    held.selected = 1;
    held.count = Count {
        all: 2,
        matching: None,
        ..Count::default()
    };
    insta::assert_snapshot!("held_from_rows", text_at(&model, WIDTH, HEIGHT));
}

/// The detail of the held callback #2, its job and two timeline entries.
fn held_detail() -> Detail {
    let rows = held_rows();
    let mut detail = Detail::empty(DetailKey::Callback(2));
    detail.callback = Some(rows[0].row.clone());
    detail.job = Some(JobRow {
        job_id: "booking-1042".to_owned(),
        state: JobState::Running,
        accepted_at: at("2026-11-27T13:10:00Z"),
        aged_at: at("2026-11-27T14:10:00Z"),
        timeout_s: Some(120),
        expected_age_s: 3600,
        attempt_budget: 3,
        latest_attempt: 2,
        input_digest: None,
        model_digest: None,
        policy_revision: None,
        result_ref: None,
        failure_cause: None,
        failure_permanent: None,
        state_changed_at: at("2026-11-27T13:14:00Z"),
    });
    detail.timeline = vec![
        TimelineEntry {
            at: at("2026-11-27T13:10:00Z"),
            fact: TimelineFact::Moved {
                from: None,
                to: JobState::Accepted,
                applied: true,
                cause: "job_accepted".to_owned(),
            },
        },
        TimelineEntry {
            at: at("2026-11-27T13:14:00Z"),
            fact: TimelineFact::AttemptStarted {
                attempt: 2,
                created_by: "staff:maria".to_owned(),
                timeout_at: None,
            },
        },
    ];
    detail.raw = Some(RawMessage {
        text: b"{\n  \"event\": \"callback\",\n  \"job_id\": \"booking-1042\"\n}".to_vec(),
        pretty: true,
        len: 45,
        cut: false,
    });
    detail
}

#[test]
fn the_detail_pane_draws_the_evidence_it_is_given() {
    let mut model = model();
    callbacks(&mut model, Tab::Held).rows = held_rows();
    model.detail = Some(held_detail());
    insta::assert_snapshot!("detail_from_rows", text_at(&model, WIDTH, HEIGHT));
}

#[test]
fn at_80_columns_the_columns_that_give_way_go_first() {
    let mut model = model();
    model.tab = Tab::Callbacks;
    model.size = (80, 24);
    let all = callbacks(&mut model, Tab::Callbacks);
    all.rows = held_rows();
    all.count = Count {
        all: 2,
        matching: None,
        ..Count::default()
    };
    let screen = text_at(&model, 80, 24);
    insta::assert_snapshot!("all_callbacks_at_80_columns", screen);
    // The list above the preview (which shows what the row left out).
    let narrow = screen.split("Selected row").next().unwrap_or_default();
    // The reason and the gap stand for the times and the answer (the preview has them).
    for kept in [
        "seq",
        "job",
        "att",
        "outcome",
        "disposition",
        "reason",
        "gap",
    ] {
        assert!(narrow.contains(kept), "{kept} is kept:\n{narrow}");
    }
    for gone in ["timeout at", "arrived at", "latest answer"] {
        assert!(!narrow.contains(gone), "{gone} gives way:\n{narrow}");
    }
    let wide = text_at(&model, WIDTH, HEIGHT);
    for header in ["att", "timeout at", "arrived at", "latest answer"] {
        assert!(wide.contains(header), "{header} at 160 columns:\n{wide}");
    }
}

#[test]
fn at_80_columns_the_detail_pane_wraps_at_spaces_not_inside_words() {
    let mut model = model();
    callbacks(&mut model, Tab::Held).rows = held_rows();
    model.detail = Some(held_detail());
    let screen = text_at(&model, 80, 40);
    // Each of these is wider than what is left of its line at 80 columns, so it
    // starts a line of its own instead of being cut.
    for whole in [
        "(possible_duplicate_effect)",
        "timeout 11-27 13:12:01",
        "accepted 11-27 13:10:00",
    ] {
        assert!(screen.contains(whole), "`{whole}` was cut:\n{screen}");
    }
}

#[test]
fn the_detail_pane_says_which_side_of_the_timeout_the_gap_is_on() {
    let mut model = model();
    callbacks(&mut model, Tab::Held).rows = held_rows();
    let mut detail = held_detail();
    model.detail = Some(detail.clone());
    assert!(text_at(&model, WIDTH, HEIGHT).contains("gap +4m44s (after the timeout)"));
    // Callback #11 arrived 31 s before its attempt's timeout.
    detail.callback = Some(held_rows()[1].row.clone());
    model.detail = Some(detail);
    let screen = text_at(&model, WIDTH, HEIGHT);
    assert!(screen.contains("gap -31s (before the timeout)"), "{screen}");
}

/// A retry and a cancel in the outbox, one of them asked for by a long-named reviewer.
fn outbox_rows() -> Vec<OutboxRow> {
    let request = |id, job: &str, request, attempt, by: &str| OutboxRow {
        id,
        job_id: job.to_owned(),
        request,
        attempt,
        input_digest: None,
        model_digest: None,
        policy_revision: None,
        requested_by: by.to_owned(),
        requested_at: at("2026-11-27T17:00:00Z"),
        status: RequestStatus::Pending,
        withdrawal: None,
        written_by: None,
    };
    vec![
        request(1, "booking-1043", RequestKind::Retry, Some(2), "ops:kim"),
        request(
            12,
            "booking-1054-night-batch",
            RequestKind::Cancel,
            None,
            "staff:maria.delacroix",
        ),
    ]
}

/// Two rejected lines: an event for an unknown job, and one that was no JSON.
fn rejected_rows() -> Vec<RejectedLine> {
    vec![
        RejectedLine {
            code: RejectionCode::NoAcceptedJob,
            event: Some("attempt_timed_out".to_owned()),
            ingested_at: at("2026-11-27T17:00:00Z"),
            seq: 70,
            reason: r#"no job "booking-0000" has been accepted"#.to_owned(),
        },
        RejectedLine {
            code: RejectionCode::Unclassified,
            event: None,
            ingested_at: at("2026-11-27T17:05:00Z"),
            seq: 1204,
            reason: "not a JSON object: expected value at line 1 column 1".to_owned(),
        },
    ]
}

/// The model showing `tab` with `rows` on its page.
fn showing<T: jobledger::console::model::TabRow>(tab: Tab, rows: Vec<T>) -> Model {
    let mut model = model();
    model.tab = tab;
    let page = model
        .lists
        .page_mut::<T>(tab)
        .expect("the tab lists these rows");
    page.count = Count {
        all: i64::try_from(rows.len()).expect("a few rows"),
        matching: None,
        ..Count::default()
    };
    page.rows = rows;
    model
}

#[test]
fn the_outbox_view_lists_every_request_as_the_cli_does() {
    let model = showing(Tab::Outbox, outbox_rows());
    let wide = text_at(&model, WIDTH, HEIGHT);
    insta::assert_snapshot!("outbox_from_rows", wide);
    let narrow = text_at(&model, 80, 24);
    insta::assert_snapshot!("outbox_at_80_columns", narrow);
    // Whole values or no column: a narrow screen drops columns, never cuts an id.
    for whole in [
        "booking-1054-night-batch",
        "staff:maria.delacroix",
        "7 Outbox 2",
    ] {
        assert!(narrow.contains(whole), "{whole} at 80 columns:\n{narrow}");
    }
}

#[test]
fn the_rejected_view_lists_each_line_with_its_reason() {
    let model = showing(Tab::Rejected, rejected_rows());
    let wide = text_at(&model, WIDTH, HEIGHT);
    insta::assert_snapshot!("rejected_from_rows", wide);
    let narrow = text_at(&model, 80, 24);
    insta::assert_snapshot!("rejected_at_80_columns", narrow);
    // Each code whole in its row; the selected row's reason whole in the preview.
    let preview = narrow.split("Selected row").nth(1).unwrap_or_default();
    assert!(
        preview.contains(r#"no job "booking-0000" has been accepted"#),
        "{narrow}"
    );
    for whole in ["no_accepted_job", "unclassified", "8 Rejected 2"] {
        assert!(narrow.contains(whole), "{whole} at 80 columns:\n{narrow}");
    }
}

/// A time in another year than the clock's says its year, in the one form every
/// screen uses: `2027-02-27 00:00:00` never reads as a date before the November it
/// follows. Times in the clock's year keep the short form.
#[test]
fn a_time_in_another_year_shows_its_year_and_one_in_this_year_does_not() {
    let mut model = model();
    callbacks(&mut model, Tab::Held).rows = held_rows();
    let mut detail = held_detail();
    detail.timeline.push(TimelineEntry {
        at: at("2026-11-27T13:20:00Z"),
        fact: TimelineFact::OutputStored {
            reference: "s3://out/booking-1042".to_owned(),
            retention_until: Some(at("2027-02-27T00:00:00Z")),
        },
    });
    detail.timeline.insert(
        0,
        TimelineEntry {
            at: at("2025-12-31T23:59:00Z"),
            fact: TimelineFact::NotificationSent {
                kind: "reminder".to_owned(),
            },
        },
    );
    model.detail = Some(detail);
    for (width, height) in [(160, 48), (100, 30), (80, 40)] {
        let screen = text_at(&model, width, height);
        for shown in [
            "(kept until 2027-02-27",
            "2025-12-31 23:59:00  notification sent: reminder",
            "11-27 13:20:00  output stored",
            "accepted 11-27 13:10:00",
        ] {
            assert!(
                screen.contains(shown),
                "{shown} at {width}x{height}:\n{screen}"
            );
        }
    }
    // A list column widens to hold the year, never cutting the time short.
    let mut rows = outbox_rows();
    rows[0].requested_at = at("2025-11-27T17:00:00Z");
    let model = showing(Tab::Outbox, rows);
    let wide = text_at(&model, WIDTH, HEIGHT);
    assert!(wide.contains("2025-11-27 17:00:00"), "{wide}");
    assert!(wide.contains(" 11-27 17:00:00 "), "{wide}");
    insta::assert_snapshot!("outbox_with_a_time_of_another_year", wide);
}
