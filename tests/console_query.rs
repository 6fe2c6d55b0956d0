//! The query language and sorting in the console: `/` takes
//! the same fields in every view and refuses those a view lacks, the cursor stays on
//! its row while it still matches, and `s`/`S` order a list that pages by key.

mod support;

use jobledger::console::App;
use jobledger::decision::Disposition;
use jobledger::store::{CallbackFilter, CallbackRow, PageRequest};
use ratatui::crossterm::event::KeyCode;
use support::binary::Workdir;
use support::terminal::{
    ch, demo_app, key, open_app, render, resize, selected_callback, shows, take_while, type_text,
};

#[test]
fn a_field_query_filters_two_views_and_a_foreign_field_is_refused_by_name() {
    let (_ledger, mut app) = demo_app("ana");
    type_text(&mut app, "5/reason:late -outcome:failure");
    key(&mut app, KeyCode::Enter);
    let text = shows(&app, "5 All callbacks 2/15");
    assert!(
        text.contains("booking-1059") && !text.contains("booking-1043"),
        "{text}"
    );
    // Held: the same language, the same meaning.
    type_text(&mut app, "1/by:staff");
    let text = shows(&app, "1 Held 1/2");
    assert!(
        text.contains("booking-1042") && !text.contains("booking-1054"),
        "{text}"
    );
    // Aged has no verdicts: refused, naming its fields (the rows are those of the
    // last text that was a query: the bare word `verdict`); Esc puts all back.
    key(&mut app, KeyCode::Enter);
    type_text(&mut app, "3/verdict:noise");
    let text = render(&app);
    assert!(
        text.contains("`verdict` does not apply to this view; its fields: job, owner"),
        "{text}"
    );
    key(&mut app, KeyCode::Esc);
    shows(&app, "3 Aged 4 ");
}

#[test]
fn the_cursor_stays_on_its_row_while_it_still_matches() {
    let (_ledger, mut app) = demo_app("ana");
    resize(&mut app, 100, 18); // a page of a few rows
    type_text(&mut app, "5/booking-10");
    key(&mut app, KeyCode::Enter);
    for _ in 0..8 {
        ch(&mut app, 'j');
    }
    assert_eq!(selected_callback(&app).seq, 10);
    // Narrowing keeps it.
    type_text(&mut app, "/5");
    assert_eq!(selected_callback(&app).seq, 10);
    key(&mut app, KeyCode::Esc); // the old filter back
    key(&mut app, KeyCode::Esc); // and cleared
    // Rows come back between the page's top and the selected row, more than a page of
    // them, as the query widens: the cursor keeps its row.
    type_text(&mut app, "/late");
    key(&mut app, KeyCode::Enter);
    ch(&mut app, 'G');
    assert_eq!(selected_callback(&app).seq, 12);
    ch(&mut app, '/');
    key(&mut app, KeyCode::End); // the standing filter, no longer selected: one at a time
    for _ in 0.."late".len() {
        key(&mut app, KeyCode::Backspace);
    }
    shows(&app, "5 All callbacks 15 ");
    assert_eq!(selected_callback(&app).seq, 12, "{}", render(&app));
}

#[test]
fn s_sorts_held_by_gap_across_page_edges_and_capital_s_reverses() {
    let w = Workdir::new();
    let stream = w.ok(&["demo", "--jobs", "1500", "--stream-only"]);
    let file = w.file("stream.ndjson", stream.as_bytes());
    w.ok(&["ingest", file.to_str().unwrap()]);
    let mut app = open_app(&w.db, "ana");
    resize(&mut app, 100, 14); // a page of a few rows: walking the list crosses edges
    ch(&mut app, 's');
    let text = shows(&app, "sorted by gap ▲"); // the flash
    assert!(
        text.contains("held still open · O shows all · by gap ▲"),
        "{text}"
    ); // the title
    // The ledger's held rows, ordered by gap (none first), then sequence number.
    let filter = CallbackFilter {
        disposition: Some(Disposition::Hold),
        ..CallbackFilter::default()
    };
    let mut rows = w
        .ledger()
        .callbacks_page(&filter, PageRequest::first(100_000))
        .unwrap();
    let gap = |r: &CallbackRow| match (r.arrived_at, r.timeout_at) {
        (Some(a), Some(t)) => a.millis() - t.millis(),
        _ => i64::MIN,
    };
    rows.sort_by_key(|r| (gap(r), r.seq));
    let want: Vec<i64> = rows.iter().map(|r| r.seq).collect();
    assert!(
        want.len() > 20,
        "too few held rows to cross pages: {}",
        want.len()
    );
    let walk = |app: &mut App, down: char| {
        let mut seen = vec![selected_callback(app).seq];
        for _ in 0..want.len() + 3 {
            ch(app, down);
            let seq = selected_callback(app).seq;
            if seen.last() != Some(&seq) {
                seen.push(seq);
            }
        }
        seen
    };
    assert_eq!(walk(&mut app, 'j'), want);
    // Back up across the page edges, by key.
    let mut up = walk(&mut app, 'k');
    up.reverse();
    assert_eq!(up, want);
    ch(&mut app, 'S');
    shows(&app, "sorted by gap ▼");
    let reversed: Vec<i64> = want.iter().rev().copied().collect();
    assert_eq!(walk(&mut app, 'j'), reversed);
    // Every callback (a million, on a real ledger) stays in ledger order, either way.
    ch(&mut app, '5');
    ch(&mut app, 's');
    shows(&app, "sorts only in ledger order");
    ch(&mut app, 'S');
    shows(&app, "sorted by ledger order ▼");
}

#[test]
fn a_view_saved_with_colon_save_is_recalled_from_the_list_and_the_latest_wins() {
    let (ledger, mut app) = demo_app("ana");
    type_text(&mut app, "5/reason:late");
    key(&mut app, KeyCode::Enter);
    type_text(&mut app, ":save late ones");
    key(&mut app, KeyCode::Enter);
    shows(&app, "saved view late ones: All callbacks reason:late");
    // Saved again under the same name: the latest row is the view.
    ch(&mut app, '/');
    key(&mut app, KeyCode::End); // the standing filter, to add to it
    type_text(&mut app, " -outcome:failure");
    key(&mut app, KeyCode::Enter);
    type_text(&mut app, ":save late ones");
    key(&mut app, KeyCode::Enter);
    // The name is in use: asked first.
    shows(
        &app,
        "Replace the view late ones with All callbacks \"reason:late -outcome:failure\"? It is All callbacks \"reason:late\", saved by ana at 11-27 17:00:00.",
    );
    ch(&mut app, 'y');
    let views = jobledger::store::Ledger::open_read_only(&ledger.path)
        .unwrap()
        .saved_views()
        .unwrap();
    assert_eq!(views.len(), 1, "{views:?}");
    assert_eq!(views[0].query, "reason:late -outcome:failure");
    assert_eq!(
        (views[0].tab.as_str(), views[0].saved_by.as_str()),
        ("All callbacks", "ana")
    );
    // The command line lists it too.
    let args = ["views"];
    let text = support::binary::succeeded(
        &support::binary::run_at(&ledger.path, "2026-11-27T17:00:00Z", &args),
        &args,
    );
    assert!(
        text.contains("late ones") && text.contains("reason:late -outcome:failure"),
        "{text}"
    );

    key(&mut app, KeyCode::Esc); // clear the filter
    ch(&mut app, '1');
    ch(&mut app, '\'');
    shows(&app, "Saved views");
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.model().tab, jobledger::console::Tab::Callbacks);
    assert_eq!(app.model().filter(), Some("reason:late -outcome:failure"));
    shows(&app, "5 All callbacks 2/15");
    // A command it does not know is said so, and nothing is written.
    type_text(&mut app, ":drop late");
    key(&mut app, KeyCode::Enter);
    shows(&app, "no command \"drop late\"");
}

/// The views saved, read from the ledger.
fn saved(path: &std::path::Path) -> Vec<(String, String)> {
    jobledger::store::Ledger::open_read_only(path)
        .unwrap()
        .saved_views()
        .unwrap()
        .into_iter()
        .map(|v| (v.name, v.query))
        .collect()
}

#[test]
fn a_view_is_replaced_only_when_confirmed_and_the_same_view_writes_nothing() {
    let (ledger, mut app) = demo_app("ana");
    let rows = || support::fixture::query_i64(&ledger.path, "SELECT count(*) FROM saved_views", []);
    type_text(&mut app, "5/reason:late");
    key(&mut app, KeyCode::Enter);
    type_text(&mut app, ":save mine");
    key(&mut app, KeyCode::Enter);
    // The same tab and query again: nothing new to say.
    type_text(&mut app, ":save mine");
    key(&mut app, KeyCode::Enter);
    shows(
        &app,
        "the view mine is saved as this already (by ana): nothing written",
    );
    assert_eq!(rows(), 1);
    // Another query under the name: n keeps the one standing.
    type_text(&mut app, "/1043");
    key(&mut app, KeyCode::Enter);
    type_text(&mut app, ":save mine");
    key(&mut app, KeyCode::Enter);
    shows(&app, "Replace the view mine with All callbacks \"1043\"?");
    ch(&mut app, 'n');
    shows(&app, "nothing saved: the view mine stays as it was");
    assert_eq!(
        saved(&ledger.path),
        [("mine".to_owned(), "reason:late".to_owned())]
    );
    assert_eq!(rows(), 1);
}

#[test]
fn a_saved_view_is_deleted_from_the_list_when_confirmed() {
    let (ledger, mut app) = demo_app("ana");
    for (query, name) in [("reason:late", "late"), ("1043", "one job")] {
        type_text(&mut app, &format!("5/{query}"));
        key(&mut app, KeyCode::Enter);
        type_text(&mut app, &format!(":save {name}"));
        key(&mut app, KeyCode::Enter);
    }
    key(&mut app, KeyCode::Esc);
    ch(&mut app, '\'');
    ch(&mut app, 'j'); // "one job"
    ch(&mut app, 'd');
    shows(&app, "Delete the view one job (All callbacks \"1043\")?");
    ch(&mut app, 'n');
    shows(&app, "Saved views");
    assert_eq!(saved(&ledger.path).len(), 2, "n deleted it");
    key(&mut app, KeyCode::Delete);
    ch(&mut app, 'y');
    shows(&app, "deleted view one job");
    shows(&app, "Saved views");
    assert_eq!(
        saved(&ledger.path),
        [("late".to_owned(), "reason:late".to_owned())]
    );
    // Kept in the ledger as a row of its own: who deleted it, and when.
    let deletions = support::fixture::query_i64(
        &ledger.path,
        "SELECT count(*) FROM saved_views WHERE deleted = 1 AND name = 'one job' AND saved_by = 'ana'",
        [],
    );
    assert_eq!(deletions, 1);
    // The command line deletes too, and says when a name has no view.
    let at = "2026-11-27T17:00:00Z";
    let args = ["views", "--delete", "late", "--reviewer", "lee"];
    let said = support::binary::succeeded(&support::binary::run_at(&ledger.path, at, &args), &args);
    assert!(
        said.starts_with("deleted view late: All callbacks reason:late"),
        "{said}"
    );
    assert!(saved(&ledger.path).is_empty());
    let again = support::binary::run_at(&ledger.path, at, &args);
    let refused = support::binary::failed(&again, &args);
    assert!(
        refused.contains("no view is saved under \"late\": nothing deleted"),
        "{refused}"
    );
}

#[test]
fn a_large_view_is_searched_off_the_input_thread_and_its_page_put_back() {
    let (_ledger, mut app) = demo_app("ana");
    app.search_off_thread_from(1); // every view counts as large
    ch(&mut app, '5'); // All callbacks: 15 rows
    type_text(&mut app, "/disposition:hold");
    key(&mut app, KeyCode::Enter);
    assert!(app.searching(), "the search did not leave the input thread");
    let searching = render(&app);
    assert!(
        searching.contains("searching 15 rows for disposition:hold"),
        "{searching}"
    );
    // Keys are taken while it runs.
    ch(&mut app, 'j');
    let started = std::time::Instant::now();
    while app.searching() {
        assert!(started.elapsed().as_secs() < 10, "the search never ended");
        std::thread::sleep(std::time::Duration::from_millis(5));
        jobledger::console::update(&mut app, jobledger::console::Action::Tick);
    }
    let found = render(&app);
    assert!(found.contains("2/15 rows match"), "{found}");
    assert!(found.contains("5 All callbacks 2/15"), "{found}");
    assert!(
        !found.contains("booking-1041"),
        "rows the query leaves out:\n{found}"
    );
    // Esc puts the old (empty) filter back the same way.
    key(&mut app, KeyCode::Esc);
    while app.searching() {
        std::thread::sleep(std::time::Duration::from_millis(5));
        jobledger::console::update(&mut app, jobledger::console::Action::Tick);
    }
    assert!(render(&app).contains("5 All callbacks 15 "));
}

#[test]
fn a_large_view_shows_a_searchs_rows_before_their_count_and_never_an_old_count() {
    let (_ledger, mut app) = demo_app("ana");
    app.search_off_thread_from(1); // every view counts as large
    resize(&mut app, 80, 24);
    ch(&mut app, '5'); // All callbacks: 15 rows, more than the list shows at 80x24
    type_text(&mut app, "/disposition:hold");
    key(&mut app, KeyCode::Enter);
    take_while(&mut app, App::search_rows_pending);
    // A page that holds every row the filter keeps counts them itself: the count
    // comes with the rows.
    let held = render(&app);
    assert!(held.contains("5 All callbacks 2/15"), "{held}");
    assert!(held.contains("2/15 rows match"), "{held}");
    assert!(!held.contains("counting"), "{held}");
    assert!(
        !held.contains("booking-1041"),
        "rows the query leaves out:\n{held}"
    );
    take_while(&mut app, App::searching);
    // Back to every row: more than a page. The page comes first, and the count it
    // knows (two rows, the filter's before) is neither shown nor taken to mean
    // there is nothing below the page.
    ch(&mut app, '/');
    for _ in "disposition:hold".chars() {
        key(&mut app, KeyCode::Backspace);
    }
    key(&mut app, KeyCode::Enter);
    take_while(&mut app, App::search_rows_pending);
    assert!(app.searching(), "the count came with the rows");
    for (width, height) in [(80, 24), (160, 48)] {
        let rows = support::terminal::render_at(&app, width, height);
        assert!(rows.contains("5 All callbacks …"), "{rows}");
        assert!(rows.contains("counting the rows…"), "{rows}");
        assert!(
            !rows.contains("2/15"),
            "the previous filter's count:\n{rows}"
        );
    }
    let widened = render(&app);
    assert!(widened.contains("▼ more below"), "{widened}");
    assert!(widened.contains("booking-1041"), "{widened}");
    take_while(&mut app, App::searching);
    let counted = render(&app);
    assert!(counted.contains("5 All callbacks 15"), "{counted}");
    assert!(!counted.contains("counting"), "{counted}");
    // Under a filter, the title and the message line say what is being counted.
    type_text(&mut app, "/-disposition:hold");
    key(&mut app, KeyCode::Enter);
    take_while(&mut app, App::search_rows_pending);
    assert!(app.searching(), "the count came with the rows");
    let rows = render(&app);
    assert!(
        rows.contains("counting the rows that match -disposition:hold…"),
        "{rows}"
    );
    take_while(&mut app, App::searching);
    assert!(render(&app).contains("13/15 rows match"));
}

/// Types `text` with only its last key searched off the input thread.
fn one_search(app: &mut App, text: &str) {
    let (head, last) = text.split_at(text.len() - 1);
    app.search_off_thread_from(i64::MAX);
    type_text(app, head);
    app.search_off_thread_from(1);
    type_text(app, last);
    take_while(app, App::searching);
}

#[test]
fn a_search_that_ended_hands_its_connection_to_the_next_and_reads_a_full_page() {
    let (_ledger, mut app) = demo_app("ana");
    ch(&mut app, '5');
    one_search(&mut app, "/disposition:hold");
    assert_eq!(app.search_connections_opened(), 1);
    // The page read is as tall as the list can be, not as the filter before this one
    // (one row, of a prefix typed) made it.
    let held = render(&app);
    assert!(
        held.contains("#2 ") && held.contains("#11 "),
        "the held rows are not both on screen:\n{held}"
    );
    key(&mut app, KeyCode::Enter);
    one_search(&mut app, "/ outcome:failure");
    assert_eq!(
        app.search_connections_opened(),
        1,
        "the second search opened a connection of its own"
    );
    key(&mut app, KeyCode::Enter);
    let failed = shows(&app, "5 All callbacks 2/15");
    assert!(failed.contains("booking-1043"), "{failed}");
}

#[test]
fn in_a_large_view_every_key_searches_at_once_and_stops_the_search_before_it() {
    let (_ledger, mut app) = demo_app("ana");
    app.search_off_thread_from(1); // every view counts as large
    ch(&mut app, '5'); // All callbacks: 15 rows
    // No Enter and no pause: each key started a search (every prefix of a bare word
    // is a query), each stopped the one before.
    type_text(&mut app, "/1054");
    assert!(app.searching(), "the last key started no search");
    assert_eq!(
        app.searches_stopped(),
        3,
        "each key stops the search the key before started"
    );
    let searching = render(&app);
    // The rows on screen are said to be the previous filter's until the search ends.
    assert!(
        searching.contains("searching… · rows of the previous filter"),
        "{searching}"
    );
    let started = std::time::Instant::now();
    while app.searching() {
        assert!(started.elapsed().as_secs() < 10, "the search never ended");
        std::thread::sleep(std::time::Duration::from_millis(5));
        // The console's loop asks for the rows between keys, not only at its tick.
        jobledger::console::update(&mut app, jobledger::console::Action::Searched);
    }
    let found = render(&app);
    assert!(found.contains("5 All callbacks 2/15"), "{found}");
    assert!(found.contains("2/15 callbacks in ingest order"), "{found}");
    assert!(!found.contains("booking-1041"), "{found}");
    // Enter keeps what was searched, and searches nothing again.
    key(&mut app, KeyCode::Enter);
    assert!(!app.searching());
    assert!(render(&app).contains("5 All callbacks 2/15"));
}

#[test]
fn text_that_is_no_query_yet_says_so_whole_in_the_lists_place_and_enter_keeps_none() {
    let (_ledger, mut app) = demo_app("ana");
    resize(&mut app, 80, 24);
    type_text(&mut app, "3/state:running");
    let text = render(&app);
    // No rows of the prefix `state` (a bare word) under a title naming this text.
    assert!(
        !text.contains("Nothing here matches the filter state:running"),
        "{text}"
    );
    assert!(text.contains("Aged · not a query yet"), "{text}");
    assert!(text.contains("not a query yet, at column 1"), "{text}");
    // Neither the tab counts the earlier prefix's rows nor does the footer offer Enter.
    assert!(text.contains("3 Aged … "), "{text}");
    assert!(!text.contains("Enter keep the filter"), "{text}");
    // The why, whole at 80 columns: every field the view takes is named.
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("job, owner, age, escalates"),
        "the message is cut:\n{text}"
    );
    // Enter does not keep it: the prompt stays, and says why.
    key(&mut app, KeyCode::Enter);
    assert_eq!(
        app.context(),
        jobledger::console::Context::Filter,
        "Enter left the prompt"
    );
    let text = shows(&app, "not kept: not a query yet, at column 1");
    assert!(text.contains("Esc puts back no filter"), "{text}");
    // Esc puts back the filter before, with its rows.
    key(&mut app, KeyCode::Esc);
    assert_eq!(app.model().filter(), None);
    shows(&app, "3 Aged 4 ");
}

#[test]
fn in_aged_the_cursor_stays_on_its_row_while_it_still_matches() {
    let (_ledger, mut app) = demo_app("ana");
    resize(&mut app, 100, 18); // a page of two rows: the list's last page is another
    ch(&mut app, '3');
    ch(&mut app, 'G');
    ch(&mut app, 'g');
    let job = |app: &App| app.model().list().and_then(|l| l.job()).map(str::to_owned);
    let first = job(&app).expect("a row selected");
    type_text(&mut app, "/booking");
    assert_eq!(job(&app), Some(first.clone()), "{}", render(&app));
    key(&mut app, KeyCode::Enter);
    // Searched off the input thread, the same.
    key(&mut app, KeyCode::Esc);
    app.search_off_thread_from(1);
    type_text(&mut app, "/booking");
    key(&mut app, KeyCode::Enter);
    while app.searching() {
        std::thread::sleep(std::time::Duration::from_millis(5));
        jobledger::console::update(&mut app, jobledger::console::Action::Tick);
    }
    assert_eq!(job(&app), Some(first), "{}", render(&app));
}

#[test]
fn until_a_searchs_rows_come_the_screen_says_searching_over_the_previous_filters_rows() {
    let (_ledger, mut app) = demo_app("ana");
    app.search_off_thread_from(1); // every view counts as large
    ch(&mut app, '5'); // All callbacks: 15 rows
    type_text(&mut app, "/disposition:hold");
    // Typed, not yet searched: the rows are all 15, not the filter's.
    let text = render(&app);
    assert!(!text.contains("(filtered)"), "{text}");
    assert!(
        text.contains("All callbacks · searching… · rows of the previous filter"),
        "{text}"
    );
    assert!(text.contains("5 All callbacks … "), "{text}");
    assert!(text.contains("disposition:hold   searching…"), "{text}");
    key(&mut app, KeyCode::Enter);
    assert!(app.searching());
    // The rows are read, but not yet taken in (no tick): still the previous filter's.
    std::thread::sleep(std::time::Duration::from_millis(300));
    let text = render(&app);
    assert!(
        text.contains("searching… · rows of the previous filter")
            && text.contains("searching 15 rows for disposition:hold…")
            && !text.contains("(filtered)"),
        "{text}"
    );
    // A key meanwhile does not take the note away.
    ch(&mut app, 'j');
    assert!(render(&app).contains("searching 15 rows for disposition:hold…"));
    let started = std::time::Instant::now();
    while app.searching() {
        assert!(started.elapsed().as_secs() < 10, "the search never ended");
        std::thread::sleep(std::time::Duration::from_millis(5));
        jobledger::console::update(&mut app, jobledger::console::Action::Tick);
    }
    let text = render(&app);
    assert!(!text.contains("searching"), "{text}");
    assert!(text.contains("(filtered)"), "{text}");
    assert_eq!(app.model().searching, None);
}
