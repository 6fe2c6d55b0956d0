//! Two reviewers' consoles on one ledger on PostgreSQL, each on its own connection (two
//! machines): an answer written in one shows in the other within a second, by its
//! ticks alone (no key pressed); a reviewer answering a row the other answered
//! meanwhile is told whose answer came first, and nothing is overwritten. And the real
//! binary in a pseudo-terminal while the server goes away and comes back: the status
//! line says so, writes are refused meanwhile, and once it is back the keys work and an
//! answer is written. And the Aged view's bulk owner on the server: a reviewer's written
//! in one go, a reader's console offered no key for it.

mod support;

use std::time::{Duration, Instant};

use jobledger::clock::Clock;
use jobledger::console::{Action, App, update};
use jobledger::store::{Ledger, Location, OpenMode};
use ratatui::crossterm::event::KeyCode;
use support::fixture::{NOW, booking_afternoon, demo_queue, now};
use support::postgres::PgServer;
use support::pty::PtySession;
use support::terminal::{HEIGHT, WIDTH, ch, key, render, selected_callback, take_while, type_text};

/// How soon another machine's answer must show, by ticks alone.
const WITHIN: Duration = Duration::from_secs(1);

/// A fresh ledger on the shared server holding the demo's streams (the booking
/// afternoon and the rest of the demo queue): held and quarantined rows to answer.
fn demo_on_server(test: &str) -> Location {
    demo_database(test).1
}

/// [`demo_on_server`], with the database's name beside it (to grant roles on it).
fn demo_database(test: &str) -> (String, Location) {
    let server = PgServer::shared();
    let database = server.fresh_database(test);
    let url = server.url(&database);
    let location = Location::parse(url.as_ref()).expect("a server URL");
    let mut ledger = Ledger::open_at(&location, OpenMode::ReadWrite).expect("the ledger opens");
    for stream in [booking_afternoon(), demo_queue()] {
        jobledger::ingest::ingest(&mut ledger, stream.as_bytes(), now(), |_| {})
            .expect("the demo's streams go in");
    }
    (database, location)
}

/// A reviewer's console on its own connection, on the test terminal.
fn console(location: &Location, reviewer: &str) -> App {
    let mut app = App::open(location, Clock::Fixed(now()), reviewer.to_owned(), false)
        .expect("the console opens");
    update(
        &mut app,
        Action::Resize {
            width: WIDTH,
            height: HEIGHT,
        },
    );
    assert!(!app.model().writes_off(), "{reviewer} may write");
    app
}

/// Ticks `app` (no key) until `done` holds; fails after `limit`. Returns how long it
/// took.
fn tick_until(app: &mut App, limit: Duration, what: &str, done: impl Fn(&App) -> bool) -> Duration {
    let began = Instant::now();
    loop {
        update(app, Action::Tick);
        if done(app) {
            return began.elapsed();
        }
        assert!(
            began.elapsed() < limit,
            "{what}: not within {limit:?}; screen:\n{}",
            render(app)
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Ticks `app` for a while, so that what it heard of earlier commits (its listener
/// hears of all it missed when it connects) and its last read of the commit counter
/// are behind it: what it shows after that, it learnt of by the next notification (the
/// counter is read anyway every 3 s, too late to pass for one).
fn settle(app: &mut App) {
    let began = Instant::now();
    while began.elapsed() < Duration::from_millis(700) {
        update(app, Action::Tick);
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The answer on the selected row, as the console holds it: (verdict, reviewer).
fn answer_shown(app: &App) -> Option<(String, String)> {
    let row = app.model().list().and_then(|list| list.callback())?;
    let answer = row.answer.as_ref()?;
    Some((answer.verdict.as_str().to_owned(), answer.reviewer.clone()))
}

/// Writes an answer in `app`'s form on its selected row: `downs` verdicts down, a note,
/// Enter; fails unless the console says it was written.
fn answer_with_keys(app: &mut App, downs: usize, note: &str) -> i64 {
    let seq = selected_callback(app).seq;
    ch(app, 'a');
    assert!(
        render(app).contains(&format!("Answer callback #{seq}")),
        "{}",
        render(app)
    );
    for _ in 0..downs {
        key(app, KeyCode::Down);
    }
    key(app, KeyCode::Tab);
    type_text(app, note);
    key(app, KeyCode::Enter);
    let said = app.flash().map(|f| f.text.clone()).unwrap_or_default();
    assert!(
        said.contains(&format!("written on callback #{seq}")),
        "{said}\n{}",
        render(app)
    );
    seq
}

#[test]
fn two_consoles_on_two_connections_see_each_others_answers_and_never_overwrite() {
    let location = demo_on_server("two_consoles");
    let mut ana = console(&location, "ana");
    let mut bob = console(&location, "bob");

    // Both on the first held row; Bob lists all held rows (an answered one stays), and
    // opens the answer form while the row is unanswered.
    ch(&mut bob, 'O');
    let seq = selected_callback(&ana).seq;
    assert_eq!(selected_callback(&bob).seq, seq);
    assert!(selected_callback(&bob).answer.is_none());
    ch(&mut bob, 'a');
    settle(&mut bob);

    // Ana answers it (the second verdict: duplicate_effect).
    assert_eq!(answer_with_keys(&mut ana, 1, "ana called the hotel"), seq);

    // Bob's console learns of it by its ticks alone.
    let took = tick_until(&mut bob, WITHIN, "Bob's row shows Ana's answer", |bob| {
        answer_shown(bob).is_some_and(|(_, who)| who == "ana")
    });
    assert_eq!(
        answer_shown(&bob),
        Some(("duplicate_effect".to_owned(), "ana".to_owned()))
    );

    // Bob writes his answer from the form he opened before: he is told Ana's came
    // first, and nothing is written.
    key(&mut bob, KeyCode::Enter);
    let screen = render(&bob);
    assert!(
        screen.contains("Someone else answered this callback meanwhile. Nothing was written."),
        "{screen}"
    );
    assert!(screen.contains("duplicate_effect by ana"), "{screen}");
    assert!(screen.contains("ana called the hotel"), "{screen}");
    let answers = ana.ledger().answers(seq).unwrap();
    assert_eq!(answers.len(), 1, "Ana's answer stands alone: {answers:?}");
    assert_eq!(answers[0].reviewer, "ana");
    // Closed, the form leaves the row showing Ana's answer.
    key(&mut bob, KeyCode::Enter);
    assert!(
        render(&bob).contains("duplicate_effect by ana"),
        "{}",
        render(&bob)
    );

    // The other way round, on a quarantined row, by the screen alone: Bob answers
    // (noise), and Ana's screen shows it within a second; her form then starts from
    // Bob's answer.
    for app in [&mut ana, &mut bob] {
        ch(app, '2');
        ch(app, 'O');
    }
    let seq = selected_callback(&bob).seq;
    assert_eq!(selected_callback(&ana).seq, seq);
    let before = render(&ana);
    assert!(!before.contains("noise by bob"), "{before}");
    settle(&mut ana);
    assert_eq!(answer_with_keys(&mut bob, 1, "a probe"), seq);
    let took_back = tick_until(&mut ana, WITHIN, "Ana's screen shows Bob's answer", |ana| {
        render(ana).contains("noise by bob")
    });
    ch(&mut ana, 'a');
    let form = render(&ana);
    assert!(form.contains("Standing answer: noise by bob"), "{form}");
    key(&mut ana, KeyCode::Esc);
    eprintln!("an answer on another connection showed after {took:?} and {took_back:?}");
}

/// On a team ledger, a reviewer marks every aged job and gives them one owner from the
/// console: the plan, its count typed, one transaction, each row signed with the
/// server's role. A reader's console (the server's privileges, not a flag) may mark
/// jobs, but is offered no `o`, and `o` writes nothing.
#[test]
fn a_reviewer_gives_the_marked_jobs_an_owner_and_a_readers_console_offers_no_key_for_it() {
    let (database, location) = demo_database("bulk_owner");
    let mut kim = console(&location, "ops:kim");
    ch(&mut kim, '3');
    ch(&mut kim, 'V');
    ch(&mut kim, 'o');
    key(&mut kim, KeyCode::Tab);
    type_text(&mut kim, "2h");
    key(&mut kim, KeyCode::Enter);
    let plan = render(&kim);
    let aged = kim.model().job_marks.count(jobledger::console::Tab::Aged);
    assert!(aged > 0, "{plan}");
    let said = format!("{aged} of {aged} marked jobs will take ops:kim");
    assert!(plan.contains(&said), "{said:?} missing:\n{plan}");
    type_text(&mut kim, &aged.to_string());
    key(&mut kim, KeyCode::Enter);
    let written = render(&kim);
    assert!(
        written.contains(&format!(
            "Wrote {aged} owner assignments in one transaction"
        )),
        "{written}"
    );
    let jobs = jobledger::escalation::bulk::aged_job_ids(
        kim.ledger(),
        &jobledger::filter::Query::all(jobledger::filter::Scope::AgedJobs),
        now(),
    )
    .unwrap();
    assert_eq!(jobs.len(), aged);
    for job in &jobs {
        let standing = kim.ledger().owner(job).unwrap().expect("an owner");
        assert_eq!(standing.owner, "ops:kim", "{job}");
        assert_eq!(
            standing.written_by.as_deref(),
            Some(support::postgres::USER),
            "{job}"
        );
    }

    // A reader's console: the role may not write, so the console is read-only.
    let server = PgServer::shared();
    let url = server.url(&database);
    let roles = support::binary::bare()
        .args(["--db", &url, "roles", "--apply"])
        .output()
        .expect("the binary runs");
    assert!(roles.status.success(), "{roles:?}");
    server
        .connect(&database)
        .batch_execute(
            "DO $$ BEGIN
               IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'rita') THEN
                 CREATE ROLE rita LOGIN; END IF;
             END $$;
             GRANT jobledger_reader TO rita;",
        )
        .unwrap();
    let as_rita = Location::parse(
        server
            .url(&database)
            .replacen("jobledger@", "rita@", 1)
            .as_ref(),
    )
    .expect("a server URL");
    let mut rita = App::open(&as_rita, Clock::Fixed(now()), "rita".to_owned(), false)
        .expect("the console opens");
    update(
        &mut rita,
        Action::Resize {
            width: WIDTH,
            height: HEIGHT,
        },
    );
    assert!(rita.model().writes_off(), "a reader's console writes");
    ch(&mut rita, '3');
    ch(&mut rita, 'V');
    let marked = render(&rita);
    assert!(marked.contains(&format!("· {aged} marked")), "{marked}");
    assert!(!rita.offers(Action::Owner));
    assert!(!marked.contains("o owner"), "the footer offers o: {marked}");
    ch(&mut rita, 'o');
    assert!(rita.model().form().is_none(), "{}", render(&rita));
    assert!(render(&rita).contains("read-only"), "{}", render(&rita));
}

/// The binary's console in a pseudo-terminal on the ledger at `url`.
fn console_in_a_terminal(url: &str, dir: &std::path::Path) -> PtySession {
    PtySession::spawn(
        &["--db", url, "--now", NOW, "review"],
        dir,
        (WIDTH, HEIGHT),
        &[("JOBLEDGER_REVIEWER", "e2e-reviewer")],
    )
}

#[test]
fn a_console_in_a_terminal_says_the_server_is_away_and_carries_on_when_it_is_back() {
    // A server of its own: this test stops it.
    let server = PgServer::start();
    let url = server.url(&server.fresh_database("console_in_a_terminal"));
    let location = Location::parse(url.as_ref()).unwrap();
    let mut ledger = Ledger::open_at(&location, OpenMode::ReadWrite).unwrap();
    jobledger::ingest::ingest(&mut ledger, booking_afternoon().as_bytes(), now(), |_| {}).unwrap();
    drop(ledger);
    let dir = tempfile::tempdir().unwrap();
    let began = Instant::now();
    let mut session = console_in_a_terminal(&url, dir.path());
    session.wait_for("held still open");

    server.stop();
    let away = session.wait_within(
        Duration::from_secs(20),
        "the status line to say the server is away",
        &|s| s.contains("SERVER AWAY"),
    );
    assert!(away.contains("cannot be reached"), "{away}");
    // A write is refused while it is away, with the reason; no form opens.
    session.send(b"a");
    let refused = session.wait_for("cannot be reached");
    assert!(!refused.contains("Answer callback #2"), "{refused}");

    server.start_again();
    let back = session.wait_within(
        Duration::from_secs(30),
        "the console to connect again",
        &|s| !s.contains("SERVER AWAY") && s.contains("writes are on again"),
    );
    assert!(back.contains("possible_duplicate_effect"), "{back}");
    // The keys work: the held row is answered and written on the server.
    session.send(b"a");
    session.wait_for("Answer callback #2");
    session.send(b"\x1b[B\t");
    session.send(b"after the restart");
    session.wait_for("after the restart");
    session.send(b"\r");
    session.wait_for("Answer 1 written on callback #2: duplicate_effect by e2e-reviewer");
    session.quit();

    let list = support::reports::json(&url, &["callbacks", "--json"]);
    let held = list
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["seq"] == 2)
        .expect("callback #2");
    assert_eq!(held["answer"]["reviewer"], "e2e-reviewer");
    assert_eq!(held["answer"]["note"], "after the restart");
    eprintln!(
        "the console in a terminal, away and back, in {:?}",
        began.elapsed()
    );
}

#[test]
fn a_status_line_short_of_room_names_the_server_ledger_by_its_database() {
    let location = demo_on_server("narrow_status");
    let Location::Server(address) = &location else {
        panic!("a server ledger")
    };
    let app = console(&location, "ana");
    let screen = support::terminal::render_at(&app, 110, 30);
    let status = screen.lines().nth(1).unwrap_or_default();
    // Not the last part of the URL (its query, or the socket's directory).
    assert!(
        status.contains(&format!("ledger {}", address.short_name())),
        "{status}"
    );
    assert!(!status.contains("jobledger-pg-"), "{status}");
}

/// The count of the list on screen.
fn count(app: &App) -> jobledger::console::model::counts::Count {
    app.model().list().expect("a list is shown").count()
}

/// Another machine's answer-free write (a late held callback) makes the console
/// refresh: on the server too, the count of a large list under a filter is read off
/// the console's thread, said to be counting until it comes, and is the count made in
/// place. Closing a finding's jobs stops the search of their filter, its statement
/// cancelled on the server.
#[test]
fn a_refresh_on_the_server_counts_a_large_filtered_list_off_the_console_thread() {
    let location = demo_on_server("refresh_off_thread");
    let mut app = console(&location, "ana");
    type_text(&mut app, "5/disposition:hold");
    key(&mut app, KeyCode::Enter);
    let before = count(&app);
    app.search_off_thread_from(1); // every list counts as large
    settle(&mut app);
    let mut writer = Ledger::open_at(&location, OpenMode::ReadWrite).expect("the ledger opens");
    let late = r#"{"event":"callback","delivery_id":"d-1053-late","job_id":"booking-1053","attempt":1,"outcome":"success","at":"2026-11-27T16:59:00Z"}"#;
    jobledger::ingest::ingest(&mut writer, [late, "\n"].concat().as_bytes(), now(), |_| {})
        .expect("the line goes in");
    tick_until(
        &mut app,
        WITHIN,
        "the refresh's count off the thread",
        |app| app.searching() && count(app).counting,
    );
    assert!(
        render(&app).contains("5 All callbacks …"),
        "{}",
        render(&app)
    );
    take_while(&mut app, App::searching);
    let after = count(&app);
    assert_eq!(after.all, before.all + 1, "{after:?} after {before:?}");
    let mut in_place = console(&location, "lee");
    type_text(&mut in_place, "5/disposition:hold");
    key(&mut in_place, KeyCode::Enter);
    assert!(!in_place.searching());
    assert_eq!(after, count(&in_place));

    support::terminal::open_finding(&mut app, jobledger::store::Finding::MissingTerminal);
    type_text(&mut app, "/job:booking-");
    key(&mut app, KeyCode::Enter);
    assert!(
        app.searching(),
        "the search did not leave the console's thread"
    );
    let stopped = app.searches_stopped();
    ch(&mut app, 'q');
    assert!(!app.searching(), "the closed jobs' search runs on");
    assert!(app.searches_stopped() > stopped);
    // The connection the stopped search held is not handed to the next one (a cancel
    // may still be on its way to it): the next search reads as asked.
    support::terminal::open_finding(&mut app, jobledger::store::Finding::MissingTerminal);
    type_text(&mut app, "/job:booking-");
    key(&mut app, KeyCode::Enter);
    take_while(&mut app, App::searching);
    assert!(!count(&app).counting, "{}", render(&app));
    assert!(app.flash().is_none_or(|f| !f.error), "{:?}", app.flash());
}
