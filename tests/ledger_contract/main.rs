//! The ledger's contract: stories any engine must tell the same way.
//!
//! Each story is a function taking a [`Location`] (where a fresh, empty ledger lives)
//! and uses only what a user or a front end has: the store's public API (the
//! [`jobledger::store::Ledger`] the location opens, and the library functions that
//! write through its `Writer`) and the binary, given the location as `--db`. No story
//! names a file, reads SQL or knows which engine it runs on: what only one engine has
//! (a file's log, its modes, `VACUUM INTO`) is tested in that engine's own files.
//!
//! [`contract!`] runs every story once per engine, as `<engine>::<family>::<story>`:
//! `cargo test --test ledger_contract sqlite::` runs one engine's, `answers::` one
//! family's on every engine. A new engine is one constructor on [`Location`] and one
//! line in the `engines` list below; a new story is a function in `stories/` and its
//! name in the `stories` list.

#[path = "../support.rs"]
mod support;

mod location;
mod stories;

use location::Location;

/// One `#[test]` per engine and story: `engines { name => constructor }` makes a module
/// per engine, `stories { family: [story, ...] }` names `stories::family::story`.
macro_rules! contract {
    (engines { $($engine:ident => $location:path),+ $(,)? } stories $stories:tt) => {
        $( contract!(@engine $engine, $location, $stories); )+
    };
    (@engine $engine:ident, $location:path, { $($family:ident: [$($story:ident),+ $(,)?]),+ $(,)? }) => {
        mod $engine {
            $(
                mod $family {
                    $(
                        #[test]
                        fn $story() {
                            let location = $location();
                            crate::stories::$family::$story(&location);
                        }
                    )+
                }
            )+
        }
    };
}

contract! {
    engines {
        sqlite => crate::Location::sqlite,
        postgres => crate::Location::postgres,
    }
    stories {
        ingest: [
            every_line_is_kept_once_and_a_rerun_adds_nothing,
            a_redelivery_is_recorded_beside_the_first,
        ],
        dispositions: [
            the_worked_example_gets_one_disposition_per_callback,
            a_held_callback_shows_its_timeout_arrival_and_replacement,
        ],
        reconcile: [
            the_demo_queue_is_accounted_for_job_by_job,
            an_answer_on_divergent_decisions_closes_them,
            the_kept_glance_is_what_the_walk_over_every_job_finds,
            reconcile_from_what_is_kept_is_the_walks,
            a_filter_in_a_findings_jobs_counts_the_jobs_its_pages_list,
        ],
        answers: [
            a_second_answer_over_an_unseen_one_is_refused,
            an_answer_is_written_through_the_api_and_read_by_the_binary,
            a_question_closed_then_asked_again_is_open_by_its_standing_answer,
            a_linked_answer_judges_the_callback_against_the_job,
            a_bulk_answer_leaves_out_rows_answered_since_its_plan,
            earlier_answers_on_a_page_are_those_asked_one_by_one,
        ],
        looks: [
            what_came_since_a_look_is_counted_for_that_reviewer,
        ],
        cancel: [
            a_cancel_stops_the_statement_running_and_the_connection_goes_on,
        ],
        claims: [
            a_claim_is_shown_to_all_refused_to_others_and_ended_by_an_answer,
        ],
        owners: [
            the_latest_owner_stands_and_a_clearing_leaves_the_job_unowned,
            my_queue_is_found_by_owner_me_and_times_from_now,
            a_bulk_owner_assignment_is_planned_then_written_with_its_count,
            a_bulk_owner_of_chosen_jobs_leaves_out_what_is_not_aged_and_refuses_a_moved_count,
        ],
        outbox: [
            requests_are_checked_and_refusals_write_nothing,
            a_withdrawn_request_is_kept_and_no_longer_pending,
            a_jobs_requests_are_read_for_that_job_alone,
        ],
        views: [
            a_saved_view_is_listed_by_its_latest_save,
        ],
        signed: [
            every_persons_row_says_the_role_that_wrote_it_beside_the_name,
        ],
        paging: [
            pages_by_key_give_every_callback_once_in_order,
            a_report_gives_every_callback_of_its_list_once_in_order_in_batches,
            sorted_pages_give_every_held_callback_once_in_order,
            pages_of_aged_jobs_give_every_job_once_in_order,
            sorted_pages_of_aged_jobs_give_every_job_once_in_order,
        ],
        counts: [
            counts_match_the_rows_listed,
            the_newest_answer_says_whether_a_question_is_open,
            aged_and_failed_counts_are_the_rows_listed_at_any_time,
        ],
        search: [
            text_terms_keep_exactly_the_callbacks_that_contain_them,
            a_reason_and_who_made_the_replacement_are_found_through_the_index_too,
        ],
        timeline: [
            a_jobs_timeline_tells_its_story_in_time_order,
        ],
        clock: [
            a_kept_clock_is_the_time_the_reports_read_at,
        ],
        check: [
            what_is_kept_for_the_reconciliation_is_the_walks,
        ],
    }
}
