//! The jobs behind each reconciliation finding: the drill-down's
//! keyset pages list exactly the jobs the report counts, finding by finding, on the
//! demo and on a generated ledger.

mod support;

use fixture::TempLedger;
use jobledger::filter::{Query, Scope};
use jobledger::reconcile::account;
use jobledger::store::{Finding, Keyset, Ledger, PageRequest};
use support::fixture;

/// A query that keeps every job of a finding.
fn every_job() -> Query {
    Query::all(Scope::FindingJobs)
}

/// Every job of `finding`, read a page of `size` at a time, forwards by key.
fn every_page(ledger: &Ledger, finding: Finding, size: usize) -> Vec<String> {
    let mut ids: Vec<String> = Vec::new();
    let mut keyset = Keyset::First;
    loop {
        let page = ledger
            .finding_jobs_page(
                finding,
                fixture::now(),
                &every_job(),
                &PageRequest::at(keyset, size),
            )
            .unwrap();
        ids.extend(page.iter().map(|j| j.job_id.clone()));
        match page.last() {
            Some(last) if page.len() == size => keyset = Keyset::After(last.job_id.clone()),
            _ => return ids,
        }
    }
}

/// For each finding: the count, the pages walked end to end, and the ids in order all
/// equal the report's.
fn findings_match_the_report(ledger: &Ledger) -> [i64; 5] {
    let accounts = account(ledger, 3600, usize::MAX, None).unwrap();
    let mut counts = [0; 5];
    for (i, (finding, reported)) in [
        (Finding::MissingTerminal, &accounts.missing_terminal),
        (Finding::MissingOutput, &accounts.missing_output),
        (Finding::MissingNotification, &accounts.missing_notification),
        (Finding::DivergentDecisions, &accounts.divergent_decisions),
        (
            Finding::ConflictingSubmissions,
            &accounts.conflicting_submissions,
        ),
    ]
    .into_iter()
    .enumerate()
    {
        let count = ledger
            .finding_count_matching(finding, fixture::now(), &every_job())
            .unwrap();
        assert_eq!(count, reported.count, "{finding}: the count");
        let listed = every_page(ledger, finding, 7);
        assert_eq!(
            i64::try_from(listed.len()).unwrap(),
            reported.count,
            "{finding}: jobs listed"
        );
        assert_eq!(listed, reported.first, "{finding}: the jobs, in id order");
        counts[i] = count;
    }
    counts
}

#[test]
fn the_demo_findings_list_the_jobs_the_report_counts() {
    let t = TempLedger::with_demo_streams();
    let counts = findings_match_the_report(&t.ledger);
    assert!(
        counts.iter().all(|&n| n > 0),
        "every finding has jobs: {counts:?}"
    );
}

#[test]
fn a_generated_ledger_lists_the_jobs_the_report_counts() {
    let mut t = TempLedger::new();
    t.ingest_bytes(&fixture::synthetic_stream(3000));
    let counts = findings_match_the_report(&t.ledger);
    assert!(counts[0] > 0 && counts[2] > 0, "{counts:?}");
    // The generator's retries decided again and its reused job ids are there too.
    assert!(counts[3] > 0 && counts[4] > 0, "{counts:?}");
}

/// An output found missing by a check after it was stored is missing; a check before
/// the store does not count; the latest check decides.
#[test]
fn output_checks_decide_as_the_report_does() {
    let mut t = TempLedger::with_demo_streams();
    t.ingest(concat!(
        r#"{"event":"job_accepted","job_id":"chk-1","at":"2026-11-27T15:00:00Z"}"#, "\n",
        r#"{"event":"attempt_started","job_id":"chk-1","attempt":1,"at":"2026-11-27T15:00:01Z"}"#, "\n",
        r#"{"event":"job_succeeded","job_id":"chk-1","attempt":1,"at":"2026-11-27T15:00:30Z","result_ref":"r/1"}"#, "\n",
        r#"{"event":"output_stored","job_id":"chk-1","ref":"r/1","at":"2026-11-27T15:00:40Z"}"#, "\n",
        r#"{"event":"output_checked","job_id":"chk-1","at":"2026-11-27T15:10:00Z","exists":false}"#, "\n",
        r#"{"event":"job_accepted","job_id":"chk-2","at":"2026-11-27T15:00:00Z"}"#, "\n",
        r#"{"event":"attempt_started","job_id":"chk-2","attempt":1,"at":"2026-11-27T15:00:01Z"}"#, "\n",
        r#"{"event":"job_succeeded","job_id":"chk-2","attempt":1,"at":"2026-11-27T15:00:30Z","result_ref":"r/2"}"#, "\n",
        r#"{"event":"output_checked","job_id":"chk-2","at":"2026-11-27T15:00:35Z","exists":false}"#, "\n",
        r#"{"event":"output_stored","job_id":"chk-2","ref":"r/2","at":"2026-11-27T15:00:40Z"}"#, "\n",
        r#"{"event":"job_accepted","job_id":"chk-3","at":"2026-11-27T15:00:00Z"}"#, "\n",
        r#"{"event":"attempt_started","job_id":"chk-3","attempt":1,"at":"2026-11-27T15:00:01Z"}"#, "\n",
        r#"{"event":"job_succeeded","job_id":"chk-3","attempt":1,"at":"2026-11-27T15:00:30Z","result_ref":"r/3"}"#, "\n",
        r#"{"event":"output_stored","job_id":"chk-3","ref":"r/3","at":"2026-11-27T15:00:40Z"}"#, "\n",
        r#"{"event":"output_checked","job_id":"chk-3","at":"2026-11-27T15:05:00Z","exists":false}"#, "\n",
        r#"{"event":"output_checked","job_id":"chk-3","at":"2026-11-27T15:06:00Z","exists":true}"#, "\n",
    ));
    findings_match_the_report(&t.ledger);
    let missing = every_page(&t.ledger, Finding::MissingOutput, 50);
    assert!(missing.contains(&"chk-1".to_owned()), "{missing:?}");
    assert!(!missing.contains(&"chk-2".to_owned()), "{missing:?}");
    // The latest check decides: found again after a miss, it exists.
    assert!(!missing.contains(&"chk-3".to_owned()), "{missing:?}");
}
