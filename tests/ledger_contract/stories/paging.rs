//! Paging by key: every row once, in order, whatever the page size, in both directions,
//! and still so when rows arrive between two pages.

use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet};

use jobledger::decision::Disposition;
use jobledger::filter::{Query, Sort, SortColumn};
use jobledger::store::{
    AgedJobRow, CallbackFilter, CallbackKey, JobKey, JobOrder, Keyset, Ledger, PageRequest,
    SortValue,
};

use super::{list, with_demo_streams};
use crate::location::Location;
use crate::support::fixture::{now, synthetic_stream};

/// A generated afternoon of 300 jobs: some 280 callbacks, a dozen open questions and a
/// dozen aged jobs, enough for many pages.
fn with_generated_jobs(location: &Location) {
    let stream = String::from_utf8(synthetic_stream(300)).expect("the stream is UTF-8");
    location.ingest(&stream);
}

/// Fails once pages have given more rows than the list holds: pages that repeat rows
/// would otherwise be read for ever.
fn within(read: usize, rows: usize) {
    assert!(
        read <= rows,
        "pages gave {read} rows of a list of {rows}: a row came twice"
    );
}

/// Reads a callback list of `rows` rows page after page of `limit`, forwards (`After`
/// the last key) or backwards (`Before` the first), and returns the sequence numbers
/// in list order.
fn seqs_by_pages(
    ledger: &Ledger,
    filter: &CallbackFilter,
    rows: usize,
    limit: usize,
    forwards: bool,
) -> Vec<i64> {
    let mut seen = Vec::new();
    let mut keyset = if forwards {
        Keyset::First
    } else {
        Keyset::Last
    };
    loop {
        within(seen.len(), rows);
        let page = ledger
            .callbacks_page(filter, PageRequest::at(keyset, limit))
            .unwrap();
        assert!(page.len() <= limit, "a page holds at most its limit");
        let seqs: Vec<i64> = page.iter().map(|c| c.seq).collect();
        match (forwards, seqs.first(), seqs.last()) {
            (_, None, _) | (_, _, None) => break,
            (true, _, Some(&last)) => {
                seen.extend(&seqs);
                keyset = Keyset::After(last);
            }
            (false, Some(&first), _) => {
                seen.splice(0..0, seqs.iter().copied());
                keyset = Keyset::Before(first);
            }
        }
    }
    seen
}

/// A report's callbacks, handed over in batches as they are read: every callback the
/// list holds once, in ledger order, in batches of at most the size asked (none
/// empty), the rows of the console's pages but for the replacement attempt's state,
/// whatever index the query is served by (text, a range of a review list's sorted
/// index that holds few of the list or most of it, none).
pub fn a_report_gives_every_callback_of_its_list_once_in_order_in_batches(location: &Location) {
    with_generated_jobs(location);
    let ledger = location.open_read_only();
    let mut kept_some = 0;
    for (disposition, open, query) in [
        (None, false, ""),
        (Some(Disposition::Hold), false, ""),
        (Some(Disposition::Record), false, ""),
        (None, true, ""),
        (None, false, "job:0001"),
        (Some(Disposition::Hold), false, "by:staff"),
        (Some(Disposition::Hold), false, "gap>1m"),
        (Some(Disposition::Hold), false, "gap>-1h"),
        (Some(Disposition::Hold), false, "gap<0 -answered:yes"),
        (None, true, "age<3h"),
        (
            Some(Disposition::Quarantine),
            false,
            "arrived>2026-11-27T12:00:00Z",
        ),
        (Some(Disposition::Hold), false, "gap>1h"),
        // Two of the twelve held callbacks, which arrive from 15:45 to 15:59.
        (
            Some(Disposition::Hold),
            false,
            "arrived>2026-11-27T15:57:00Z",
        ),
        (
            Some(Disposition::Hold),
            false,
            "arrived<2026-11-27T15:46:00Z -answered:yes",
        ),
        (None, true, "age>74m"),
    ] {
        let filter = CallbackFilter {
            disposition,
            open,
            ..CallbackFilter::default()
        }
        .with_query(query, now(), "ana")
        .unwrap();
        let what = format!("{disposition:?} open={open} {query:?}");
        let mut pages = ledger
            .callbacks_page(&filter, PageRequest::first(100_000))
            .unwrap();
        for row in &mut pages {
            if let Some(r) = &mut row.replacement {
                r.state = None;
            }
        }
        if !pages.is_empty() {
            kept_some += 1;
        }
        for batch in [1, 7, 1000] {
            let mut report = Vec::new();
            ledger
                .callbacks_report(&filter, batch, |rows| {
                    assert!(!rows.is_empty() && rows.len() <= batch, "{what}");
                    within(report.len() + rows.len(), pages.len());
                    report.append(rows);
                    Ok::<_, jobledger::store::StoreError>(())
                })
                .unwrap();
            assert_eq!(report, pages, "batches of {batch}: {what}");
        }
    }
    assert!(kept_some >= 12, "weak cases: {kept_some}");
}

/// Every callback, and those of one disposition, read a page at a time in either
/// direction: each row once, in ledger order, the same rows one large page holds, as
/// many as the ledger counts. A page re-read from its own first key is the same page.
pub fn pages_by_key_give_every_callback_once_in_order(location: &Location) {
    with_generated_jobs(location);
    let ledger = location.open_read_only();
    for filter in [
        CallbackFilter::default(),
        CallbackFilter {
            disposition: Some(Disposition::Record),
            ..CallbackFilter::default()
        },
    ] {
        let whole: Vec<i64> = ledger
            .callbacks_page(&filter, PageRequest::first(100_000))
            .unwrap()
            .iter()
            .map(|c| c.seq)
            .collect();
        assert!(whole.is_sorted_by(|a, b| a < b), "ledger order, each once");
        assert_eq!(
            i64::try_from(whole.len()).unwrap(),
            ledger.count_callbacks(&filter).unwrap()
        );
        for limit in [1, 7, 50] {
            for forwards in [true, false] {
                let paged = seqs_by_pages(&ledger, &filter, whole.len(), limit, forwards);
                assert_eq!(paged, whole, "pages of {limit}, forwards: {forwards}");
            }
        }
        let from = whole[whole.len() / 2];
        let again = ledger
            .callbacks_page(&filter, PageRequest::at(Keyset::From(from), 5))
            .unwrap();
        assert_eq!(again.first().map(|c| c.seq), Some(from));
        assert_eq!(
            again.iter().map(|c| c.seq).collect::<Vec<_>>(),
            whole[whole.len() / 2..whole.len() / 2 + 5]
        );
    }
    drop(ledger);

    // Rows that arrive between two pages come after the rows already there: the rows
    // read before stay read once, and the new ones follow in order.
    let before = list(location.json(&["callbacks", "--json"])).len();
    let filter = CallbackFilter::default();
    let first_pages = {
        let ledger = location.open_read_only();
        let page = ledger
            .callbacks_page(&filter, PageRequest::first(100))
            .unwrap();
        page.iter().map(|c| c.seq).collect::<Vec<_>>()
    };
    with_demo_streams(location);
    let ledger = location.open_read_only();
    let mut seen = first_pages.clone();
    let mut keyset = Keyset::After(*first_pages.last().expect("a first page"));
    loop {
        within(seen.len(), before + 15);
        let page = ledger
            .callbacks_page(&filter, PageRequest::at(keyset, 40))
            .unwrap();
        let Some(last) = page.last() else { break };
        keyset = Keyset::After(last.seq);
        seen.extend(page.iter().map(|c| c.seq));
    }
    let all = list(location.json(&["callbacks", "--json"]));
    assert_eq!(
        all.len(),
        before + 15,
        "the demo streams' 15 callbacks came in"
    );
    let listed: Vec<i64> = all
        .iter()
        .map(|c| c["seq"].as_i64().expect("a number"))
        .collect();
    assert_eq!(seen, listed);
}

/// How two sort values compare (a list holds values of one kind).
fn compare(a: &SortValue, b: &SortValue) -> Ordering {
    match (a, b) {
        (SortValue::Integer(a), SortValue::Integer(b)) => a.cmp(b),
        (SortValue::Real(a), SortValue::Real(b)) => a.total_cmp(b),
        (SortValue::Text(a), SortValue::Text(b)) => a.cmp(b),
        (a, b) => panic!("one list, two kinds of sort value: {a:?} and {b:?}"),
    }
}

/// The open questions sorted by gap, arrival, timeout and reason, each way, read four at
/// a time: every open question once (the set `callbacks --open` lists), each page
/// continuing strictly after the key of the last, so the keys never go back.
pub fn sorted_pages_give_every_held_callback_once_in_order(location: &Location) {
    with_generated_jobs(location);
    let open: BTreeSet<i64> = list(location.json(&["callbacks", "--open", "--json"]))
        .iter()
        .map(|c| c["seq"].as_i64().expect("a number"))
        .collect();
    assert!(
        open.len() >= 10,
        "enough open questions for pages: {open:?}"
    );
    let ledger = location.open_read_only();
    let filter = CallbackFilter {
        open: true,
        ..CallbackFilter::default()
    };
    for column in [
        SortColumn::Gap,
        SortColumn::Arrival,
        SortColumn::Timeout,
        SortColumn::Reason,
    ] {
        for descending in [false, true] {
            let sort = Sort { column, descending };
            let mut keys: Vec<(SortValue, i64)> = Vec::new();
            let mut keyset = Keyset::First;
            loop {
                within(keys.len(), open.len());
                let page = ledger
                    .callbacks_sorted_page(&filter, sort, &PageRequest::at(keyset, 4))
                    .unwrap();
                let Some((last, value)) = page.last() else {
                    break;
                };
                keyset = Keyset::After(CallbackKey {
                    value: value.clone(),
                    seq: last.seq,
                });
                keys.extend(page.into_iter().map(|(row, value)| (value, row.seq)));
            }
            let seqs: Vec<i64> = keys.iter().map(|(_, seq)| *seq).collect();
            let kept: BTreeSet<i64> = seqs.iter().copied().collect();
            assert_eq!(kept.len(), seqs.len(), "{sort:?}: a row twice: {seqs:?}");
            assert_eq!(kept, open, "{sort:?}");
            for pair in keys.windows(2) {
                let order = compare(&pair[0].0, &pair[1].0).then(pair[0].1.cmp(&pair[1].1));
                let expected = if descending {
                    Ordering::Greater
                } else {
                    Ordering::Less
                };
                assert_eq!(order, expected, "{sort:?}: {pair:?}");
            }
        }
    }
}

/// The aged jobs read three at a time, forwards and back: every aged job once (the
/// jobs `reconcile` calls aged), in the order they aged, as many as counted.
pub fn pages_of_aged_jobs_give_every_job_once_in_order(location: &Location) {
    with_generated_jobs(location);
    let reconciled: BTreeSet<String> = location.json(&["reconcile", "--json"])["aged"]
        .as_array()
        .expect("the aged jobs")
        .iter()
        .map(|a| a["job_id"].as_str().expect("a job id").to_owned())
        .collect();
    assert!(
        reconciled.len() >= 10,
        "enough aged jobs for pages: {reconciled:?}"
    );
    let ledger = location.open_read_only();
    let query = Query::default();
    let read = |forwards: bool| -> Vec<JobKey> {
        let mut keys: Vec<JobKey> = Vec::new();
        let mut keyset = if forwards {
            Keyset::First
        } else {
            Keyset::Last
        };
        loop {
            within(keys.len(), reconciled.len());
            let page = ledger
                .aged_jobs_page(now(), &query, &PageRequest::at(keyset, 3))
                .unwrap();
            let page: Vec<JobKey> = page
                .into_iter()
                .map(|j| {
                    assert_eq!(j.order, JobOrder::At(j.aged_at));
                    (j.order, j.job_id)
                })
                .collect();
            let (Some(first), Some(last)) = (page.first().cloned(), page.last().cloned()) else {
                break;
            };
            if forwards {
                keys.extend(page);
                keyset = Keyset::After(last);
            } else {
                keys.splice(0..0, page);
                keyset = Keyset::Before(first);
            }
        }
        keys
    };
    let forwards = read(true);
    assert!(forwards.is_sorted_by(|a, b| a < b), "{forwards:?}");
    assert_eq!(read(false), forwards);
    let ids: BTreeSet<String> = forwards.iter().map(|(_, id)| id.clone()).collect();
    assert_eq!(ids, reconciled);
    assert_eq!(ids.len(), forwards.len());
    assert_eq!(
        ledger.aged_count_matching(now(), &query).unwrap(),
        i64::try_from(forwards.len()).unwrap()
    );
}

/// The aged jobs sorted by escalation time, by acceptance and by owner, each way, read
/// one and three at a time, forwards and back: every aged job once, in that order
/// (jobs with no escalation time, or no owner, last when ascending and first when
/// descending), the same set as the list's own order. Owners tie, their names compare
/// by their bytes (`Zoë` before `ann`, `Ärne` after `ops:kim`), and a job whose owner
/// was cleared is unowned as one that never had one.
pub fn sorted_pages_of_aged_jobs_give_every_job_once_in_order(location: &Location) {
    with_generated_jobs(location);
    let ledger = location.open();
    // Some owners with escalation times, some of them equal, so the order has ties.
    let mut writer_ledger = location.open();
    let all: Vec<String> = ledger
        .aged_jobs_page(now(), &Query::default(), &PageRequest::first(1000))
        .unwrap()
        .into_iter()
        .map(|j| j.job_id)
        .collect();
    assert!(all.len() >= 10, "enough aged jobs for pages: {all:?}");
    // Owners that tie, and names whose byte order is not a dictionary's.
    let owners = ["ops:kim", "ann", "Zoë", "ops:kim", "Ärne"];
    let owned: Vec<(usize, &String)> = all.iter().enumerate().filter(|(i, _)| i % 3 != 0).collect();
    for (k, (i, job)) in owned.iter().enumerate() {
        let minutes = i64::try_from(i % 4).unwrap() * 20 - 30;
        jobledger::escalation::set_owner(
            &mut writer_ledger,
            job,
            owners[k % owners.len()],
            Some(now().plus_seconds(minutes * 60)),
            "lead",
            now(),
        )
        .unwrap();
    }
    // The first job given `ops:kim`, cleared: unowned again.
    jobledger::escalation::clear_owner(&mut writer_ledger, owned[0].1, "lead", now()).unwrap();
    drop(writer_ledger);
    let query = Query::default();
    let rows = ledger
        .aged_jobs_page(now(), &query, &PageRequest::first(1000))
        .unwrap();
    for column in [
        SortColumn::Escalation,
        SortColumn::Accepted,
        SortColumn::Owner,
    ] {
        for (descending, limit) in [false, true].into_iter().flat_map(|d| [(d, 1), (d, 3)]) {
            let sort = Sort { column, descending };
            let read = |forwards: bool| -> Vec<JobKey> {
                let mut keys: Vec<JobKey> = Vec::new();
                let mut keyset = if forwards {
                    Keyset::First
                } else {
                    Keyset::Last
                };
                loop {
                    within(keys.len(), all.len());
                    let request = PageRequest::at(keyset, limit);
                    let page = ledger
                        .aged_jobs_sorted_page(now(), &query, sort, &request)
                        .unwrap();
                    let page: Vec<JobKey> = page
                        .into_iter()
                        .map(|j| {
                            assert_eq!(j.order, j.order_for(column));
                            (j.order, j.job_id)
                        })
                        .collect();
                    let (Some(first), Some(last)) = (page.first().cloned(), page.last().cloned())
                    else {
                        break;
                    };
                    if forwards {
                        keys.extend(page);
                        keyset = Keyset::After(last);
                    } else {
                        keys.splice(0..0, page);
                        keyset = Keyset::Before(first);
                    }
                }
                keys
            };
            let forwards = read(true);
            let expected = if descending {
                Ordering::Greater
            } else {
                Ordering::Less
            };
            for pair in forwards.windows(2) {
                assert_eq!(pair[0].cmp(&pair[1]), expected, "{sort:?}: {pair:?}");
            }
            assert_eq!(read(false), forwards, "{sort:?} in pages of {limit}");
            let ids: Vec<String> = forwards.iter().map(|(_, id)| id.clone()).collect();
            let kept: BTreeSet<String> = ids.iter().cloned().collect();
            assert_eq!(kept, all.iter().cloned().collect(), "{sort:?}");
            assert_eq!(kept.len(), ids.len(), "{sort:?}");
            if column == SortColumn::Owner {
                owner_order_is_by_bytes_none_last(&rows, &ids, descending);
            }
        }
    }
}

/// `ids`, the aged `rows` sorted by owner, are grouped by owner in byte order with
/// the unowned last (all reversed when `descending`), each owner's jobs in the order
/// they aged, then by id: the rule written out here, apart from the store's.
fn owner_order_is_by_bytes_none_last(rows: &[AgedJobRow], ids: &[String], descending: bool) {
    let owner = |r: &AgedJobRow| r.owner.as_ref().map(|o| o.owner.clone());
    let mut want = rows.to_vec();
    want.sort_by_key(|r| (owner(r).is_none(), owner(r), r.aged_at, r.job_id.clone()));
    let mut want: Vec<&str> = want.iter().map(|r| r.job_id.as_str()).collect();
    if descending {
        want.reverse();
    }
    assert_eq!(ids, want, "descending: {descending}");
    // The groups as the store listed them: each owner once, the names in byte order
    // (`BTreeSet` orders `String`s by their bytes), the unowned last.
    let owner_of: BTreeMap<&str, Option<String>> =
        rows.iter().map(|r| (r.job_id.as_str(), owner(r))).collect();
    let mut groups: Vec<Option<String>> =
        ids.iter().map(|id| owner_of[id.as_str()].clone()).collect();
    groups.dedup();
    let names: BTreeSet<String> = rows.iter().filter_map(owner).collect();
    let mut expected: Vec<Option<String>> = names.into_iter().map(Some).chain([None]).collect();
    if descending {
        expected.reverse();
    }
    assert_eq!(groups, expected, "descending: {descending}");
    let at = |name: &str| groups.iter().position(|g| g.as_deref() == Some(name));
    let mut places: Vec<Option<usize>> = ["Zoë", "ann", "ops:kim", "Ärne"].map(at).into();
    assert!(places.iter().all(Option::is_some), "{groups:?}");
    if descending {
        places.reverse();
    }
    assert!(places.is_sorted(), "byte order: {groups:?}");
}
