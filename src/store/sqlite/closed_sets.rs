//! Conditions on a closed set's column, written from the enum that names the set:
//! a state or disposition added to the enum, or moved in or out of a group, changes
//! every statement that asks for the group, and the partial indexes' conditions are
//! held to the same text by a test.

use std::sync::LazyLock;

use crate::decision::{Disposition, JobState};

/// `(column = 'a' OR column = 'b' ...)` for the names `names`, in their order: the
/// form of the partial indexes' conditions, which a statement must repeat for SQLite
/// to use them.
fn one_of<'a>(column: &str, names: impl IntoIterator<Item = &'a str>) -> String {
    let terms: Vec<String> = names
        .into_iter()
        .map(|name| format!("{column} = '{name}'"))
        .collect();
    format!("({})", terms.join(" OR "))
}

fn open_states() -> impl Iterator<Item = &'static str> {
    JobState::ALL
        .into_iter()
        .filter(|s| s.is_open())
        .map(JobState::as_str)
}

fn waiting_dispositions() -> impl Iterator<Item = &'static str> {
    Disposition::ALL
        .into_iter()
        .filter(|d| d.waits_for_a_person())
        .map(Disposition::as_str)
}

/// An open job ([`JobState::is_open`]), on `jobs` unnamed: the condition of the
/// partial index `jobs_open_by_age_then_id` (migration 003), letter for letter.
pub(super) static OPEN_JOB: LazyLock<String> = LazyLock::new(|| one_of("state", open_states()));

/// The names of the open states' kept counts in `ledger_counts`, listed for `IN`.
pub(super) static OPEN_JOB_COUNTS: LazyLock<String> = LazyLock::new(|| {
    open_states()
        .map(|s| format!("'jobs.{s}'"))
        .collect::<Vec<_>>()
        .join(", ")
});

/// [`OPEN_JOB`] on `jobs j`.
pub(super) static OPEN_JOB_J: LazyLock<String> = LazyLock::new(|| one_of("j.state", open_states()));

/// A callback that waits for a person ([`Disposition::waits_for_a_person`]), on
/// `callbacks` unnamed: the condition of the review lists' partial indexes
/// (`callbacks_review_*`), letter for letter.
pub(super) static WAITING: LazyLock<String> =
    LazyLock::new(|| one_of("disposition", waiting_dispositions()));

/// [`WAITING`] on `callbacks c`.
pub(super) static WAITING_C: LazyLock<String> =
    LazyLock::new(|| one_of("c.disposition", waiting_dispositions()));

#[cfg(test)]
mod tests {
    use super::{OPEN_JOB, OPEN_JOB_J, WAITING, WAITING_C};
    use crate::decision::{Disposition, JobState};
    use crate::store::sqlite::Ledger;

    /// The names a generated condition compares `column` with, in order.
    fn names_in(condition: &str, column: &str) -> Vec<String> {
        let inner = condition
            .strip_prefix('(')
            .and_then(|c| c.strip_suffix(')'))
            .unwrap_or_else(|| panic!("not in parentheses: {condition}"));
        inner
            .split(" OR ")
            .map(|term| {
                let name = term
                    .strip_prefix(&format!("{column} = '"))
                    .and_then(|t| t.strip_suffix('\''))
                    .unwrap_or_else(|| panic!("not `{column} = '...'`: {term}"));
                name.to_owned()
            })
            .collect()
    }

    #[test]
    fn the_open_job_condition_names_exactly_the_open_states() {
        let open: Vec<String> = JobState::ALL
            .into_iter()
            .filter(|s| s.is_open())
            .map(|s| s.as_str().to_owned())
            .collect();
        assert_eq!(names_in(&OPEN_JOB, "state"), open);
        assert_eq!(names_in(&OPEN_JOB_J, "j.state"), open);
        assert_eq!(
            *OPEN_JOB,
            "(state = 'accepted' OR state = 'running' OR state = 'timed_out')"
        );
    }

    #[test]
    fn the_waiting_condition_names_exactly_the_dispositions_that_wait_for_a_person() {
        let waiting: Vec<String> = Disposition::ALL
            .into_iter()
            .filter(|d| d.waits_for_a_person())
            .map(|d| d.as_str().to_owned())
            .collect();
        assert_eq!(names_in(&WAITING, "disposition"), waiting);
        assert_eq!(names_in(&WAITING_C, "c.disposition"), waiting);
    }

    /// The partial indexes' conditions, as a fresh ledger's schema holds them, are the
    /// generated text letter for letter: a statement that repeats the text can use them.
    #[test]
    fn the_partial_indexes_hold_the_generated_conditions() {
        let dir = tempfile::tempdir().unwrap();
        let ledger = Ledger::open(&dir.path().join("l.db")).unwrap();
        let index_sql = |table: &str, mentions: &str| -> Vec<(String, String)> {
            let mut st = ledger
                .conn
                .prepare(
                    "SELECT name, sql FROM sqlite_schema
                      WHERE type = 'index' AND tbl_name = ?1 AND sql LIKE ?2 ORDER BY name",
                )
                .unwrap();
            st.query_map([table, &format!("%WHERE%{mentions}%")], |row| {
                Ok((row.get(0)?, row.get(1)?))
            })
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap()
        };
        let open = index_sql("jobs", "'timed_out'");
        let names: Vec<&str> = open.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, ["jobs_open_by_age_then_id", "jobs_open_by_id"]);
        for (name, sql) in &open {
            assert!(
                sql.contains(&format!("WHERE {}", *OPEN_JOB)),
                "{name}: {sql}"
            );
        }
        let review = index_sql("callbacks", "'quarantine'");
        let names: Vec<&str> = review.iter().map(|(name, _)| name.as_str()).collect();
        for wanted in ["callbacks_review_by_arrival", "callbacks_review_list"] {
            assert!(names.contains(&wanted), "{names:?}");
        }
        for (name, sql) in &review {
            assert!(
                sql.contains(&format!("WHERE {}", *WAITING)),
                "{name}: {sql}"
            );
        }
    }
}
