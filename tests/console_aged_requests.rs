//! The Aged view shows on each stuck job's row what was already asked of it: a retry
//! or cancel pending in the outbox, so an escalation owner does not ask twice. On a
//! ledger file and on the same ledger on PostgreSQL.

mod support;

use jobledger::clock::Clock;
use jobledger::console::{Action, App, Tab, update};
use jobledger::decision::RequestKind;
use jobledger::store::{Ledger, Location, OpenMode};
use support::fixture::{booking_afternoon, demo_queue, now};
use support::postgres::PgServer;
use support::terminal::{render_at, resize};

fn aged_rows_say_their_pending_requests(location: &Location) {
    let mut ledger = Ledger::open_at(location, OpenMode::ReadWrite).expect("the ledger opens");
    for stream in [booking_afternoon(), demo_queue()] {
        jobledger::ingest::ingest(&mut ledger, stream.as_bytes(), now(), |_| {}).unwrap();
    }
    jobledger::outbox::request(
        &mut ledger,
        RequestKind::Retry,
        "booking-1043",
        "ops:lee",
        now(),
    )
    .expect("a retry of a timed-out job is asked");
    jobledger::outbox::request(
        &mut ledger,
        RequestKind::Cancel,
        "booking-1055",
        "ops:lee",
        now(),
    )
    .expect("a cancel is asked");
    drop(ledger);
    let mut app = App::open(location, Clock::Fixed(now()), "ana".to_owned(), false).unwrap();
    resize(&mut app, 160, 48);
    update(&mut app, Action::ShowTab(Tab::Aged));
    let screen = render_at(&app, 160, 48);
    let row = |job: &str| {
        screen
            .lines()
            .find(|l| l.contains(job))
            .unwrap_or_else(|| panic!("no row of {job}:\n{screen}"))
            .to_owned()
    };
    assert!(row("booking-1043").contains("retry pending"), "{screen}");
    assert!(row("booking-1055").contains("cancel pending"), "{screen}");
    assert!(!row("booking-1056").contains("pending"), "{screen}");
}

#[test]
fn aged_rows_say_their_pending_requests_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let location = Location::parse(dir.path().join("l.db").as_os_str()).unwrap();
    aged_rows_say_their_pending_requests(&location);
}

#[test]
fn aged_rows_say_their_pending_requests_on_postgres() {
    let server = PgServer::shared();
    let url = server.url(&server.fresh_database("aged_requests"));
    let location = Location::parse(url.as_ref()).expect("a server URL");
    aged_rows_say_their_pending_requests(&location);
}
