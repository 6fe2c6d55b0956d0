//! The database role that wrote each person's row, shown beside the name they gave. Two
//! people log in to a team ledger as their own roles (`jobledger roles --apply`, each
//! login granted `jobledger_reviewer`), and each answers a held callback and sets an
//! owner (and one withdraws the lead's request, and saves a view); one of them types the
//! other's name. The server records who wrote each row
//! (`written_by`), whatever the client says, and every place that shows the row shows
//! the role beside the name: `callbacks` and its JSON, `owner --json`, the timeline as
//! the store gives it and as the console draws it. `copy` into a file keeps the roles.

mod support;

use std::process::Output;

use jobledger::clock::{Clock, Timestamp};
use jobledger::console::{Action, App, update};
use jobledger::store::{Ledger, Location, OpenMode, SavedView, TimelineFact};
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use serde_json::Value;
use support::binary::{run_at, succeeded};
use support::fixture::{NOW, booking_afternoon, demo_queue};
use support::postgres::PgServer;
use support::terminal::render;

/// `jobledger --db URL --now NOW ARGS...`.
fn run(url: &str, args: &[&str]) -> Output {
    run_at(url, NOW, args)
}

fn ok(url: &str, args: &[&str]) -> String {
    succeeded(&run(url, args), args)
}

fn json(url: &str, args: &[&str]) -> Value {
    let out = ok(url, args);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{args:?}: not JSON ({e}): {out}"))
}

/// The answer `callbacks --json` shows on callback `seq`.
fn answer_on(url: &str, seq: i64) -> Value {
    json(url, &["callbacks", "--json"])
        .as_array()
        .expect("a list")
        .iter()
        .find(|c| c["seq"] == seq)
        .map(|c| c["answer"].clone())
        .expect("the callback is listed")
}

/// The facts of a person's writes in `job`'s timeline: (what, name given, role).
fn writers(ledger: &Ledger, job: &str) -> Vec<(&'static str, String, Option<String>)> {
    ledger
        .timeline(job)
        .unwrap()
        .into_iter()
        .filter_map(|entry| match entry.fact {
            TimelineFact::Answer {
                reviewer,
                written_by,
                ..
            } => Some(("answer", reviewer, written_by)),
            TimelineFact::OwnerSet {
                set_by, written_by, ..
            } => Some(("owner", set_by, written_by)),
            _ => None,
        })
        .collect()
}

#[test]
fn each_persons_role_is_shown_beside_the_name_they_gave() {
    let server = PgServer::shared();
    let db = server.fresh_database("roles_shown");
    let url = server.url(&db);
    let dir = tempfile::tempdir().unwrap();
    let stream = dir.path().join("stream.ndjson");
    std::fs::write(&stream, booking_afternoon() + &demo_queue()).unwrap();
    ok(&url, &["ingest", "--complete", stream.to_str().unwrap()]);
    ok(&url, &["roles", "--apply"]);
    server
        .connect(&db)
        .batch_execute(
            "DO $$ BEGIN
               IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'desk_ana') THEN
                 CREATE ROLE desk_ana LOGIN; END IF;
               IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'desk_bob') THEN
                 CREATE ROLE desk_bob LOGIN; END IF;
             END $$;
             GRANT jobledger_reviewer TO desk_ana, desk_bob;",
        )
        .unwrap();
    let as_role = |role: &str| url.replacen("jobledger@", &format!("{role}@"), 1);
    let (ana, bob) = (as_role("desk_ana"), as_role("desk_bob"));

    let held = json(&url, &["callbacks", "--json", "--disposition", "hold"]);
    let held = held.as_array().expect("a list");
    let (first, second) = (&held[0], &held[1]);
    let seq = |c: &Value| c["seq"].as_i64().expect("a number");
    let job = |c: &Value| c["job_id"].as_str().expect("a job").to_owned();
    assert_ne!(job(first), job(second), "two jobs: {held:?}");

    // Ana answers and sets an owner as herself.
    ok(
        &ana,
        &[
            "answer",
            &seq(first).to_string(),
            "--verdict",
            "needs_remote_check",
        ]
        .into_iter()
        .chain(["--reviewer", "ana"])
        .collect::<Vec<_>>(),
    );
    let owner = json(
        &ana,
        &[
            "owner",
            &job(first),
            "--owner",
            "ops:kim",
            "--by",
            "ana",
            "--json",
        ],
    );
    assert_eq!(owner["set_by"], "ana");
    assert_eq!(owner["written_by"], "desk_ana", "{owner}");
    // Bob answers as himself, then sets an owner typing Ana's name: the server still
    // says it was Bob's role that wrote it.
    ok(
        &bob,
        &[
            "answer",
            &seq(second).to_string(),
            "--verdict",
            "needs_remote_check",
        ]
        .into_iter()
        .chain(["--reviewer", "bob"])
        .collect::<Vec<_>>(),
    );
    ok(
        &bob,
        &["owner", &job(second), "--owner", "ops:lee", "--by", "ana"],
    );

    // Bob (a reviewer, who may not update jobs) asks a cancel, Ana takes it back, Ana
    // saves a view (through the API).
    let asked = json(
        &bob,
        &["request", "cancel", "booking-1042", "--by", "bob", "--json"],
    );
    assert_eq!(asked["written_by"], "desk_bob", "{asked}");
    let withdrawn = json(
        &ana,
        &[
            "request",
            "withdraw",
            &asked["id"].to_string(),
            "--reviewer",
            "ana",
            "--json",
        ],
    );
    assert_eq!(
        withdrawn["withdrawal"]["written_by"], "desk_ana",
        "{withdrawn}"
    );
    {
        let at_ana = Location::parse(std::ffi::OsStr::new(&ana)).unwrap();
        let mut ledger = Ledger::open_at(&at_ana, OpenMode::ReadWrite).unwrap();
        let mut writer = ledger.writer().unwrap();
        writer
            .save_view(&SavedView {
                name: "late holds".to_owned(),
                tab: "Held".to_owned(),
                query: "gap>1h".to_owned(),
                saved_by: "ana".to_owned(),
                saved_at: Timestamp::parse(NOW).unwrap(),
                written_by: None,
            })
            .unwrap();
        writer.commit().unwrap();
    }
    let views = json(&url, &["views", "--json"]);
    assert_eq!(views[0]["written_by"], "desk_ana", "{views}");

    // A reviewer's role may claim a case and keep its looks at the lists: Bob claims
    // the second case, and Ana's console, leaving Held for Quarantined, records her
    // look (both by the server's grants to the reviewer role, set by the roles SQL).
    let claim = json(
        &bob,
        &[
            "claim",
            &seq(second).to_string(),
            "--reviewer",
            "bob",
            "--json",
        ],
    );
    assert_eq!(claim["claim"]["written_by"], "desk_bob", "{claim}");
    {
        let at_ana = Location::parse(std::ffi::OsStr::new(&ana)).unwrap();
        let ledger = Ledger::open_at(&at_ana, OpenMode::ReadWrite).unwrap();
        let now = Timestamp::parse(NOW).unwrap();
        let mut app = App::new(ledger, Clock::Fixed(now), "ana".to_owned(), false).unwrap();
        update(
            &mut app,
            Action::ShowTab(jobledger::console::Tab::Quarantined),
        );
        assert!(
            app.model().flash.as_ref().is_none_or(|f| !f.error),
            "{:?}",
            app.model().flash
        );
        let looked = Ledger::open_at(&at_ana, OpenMode::ReadOnly)
            .unwrap()
            .last_look("ana", jobledger::review::looks::HELD)
            .unwrap();
        assert!(looked.is_some(), "ana's look at Held was not kept");
    }
    let outbox = ok(&url, &["outbox"]);
    assert!(
        outbox.contains("withdrawn by ana (as desk_ana) at"),
        "{outbox}"
    );

    // callbacks --json: the name given, and the role beside it.
    for (c, reviewer, role) in [(first, "ana", "desk_ana"), (second, "bob", "desk_bob")] {
        let answer = answer_on(&url, seq(c));
        assert_eq!(answer["reviewer"], reviewer, "{answer}");
        assert_eq!(answer["written_by"], role, "{answer}");
    }
    // callbacks, as text: "needs_remote_check by ana (as desk_ana) 2026-…".
    let text = ok(&url, &["callbacks"]);
    for (c, shown) in [
        (first, "needs_remote_check by ana (as desk_ana) "),
        (second, "needs_remote_check by bob (as desk_bob) "),
    ] {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{} ", seq(c))))
            .expect("the answered callback's line");
        assert!(line.contains(shown), "{line}");
    }

    // The timeline, as the store gives it.
    let address = Location::parse(std::ffi::OsStr::new(&url)).unwrap();
    let ledger = Ledger::open_at(&address, OpenMode::ReadOnly).unwrap();
    assert_eq!(
        writers(&ledger, &job(first)),
        [
            ("answer", "ana".to_owned(), Some("desk_ana".to_owned())),
            ("owner", "ana".to_owned(), Some("desk_ana".to_owned())),
        ]
    );
    assert_eq!(
        writers(&ledger, &job(second)),
        [
            ("answer", "bob".to_owned(), Some("desk_bob".to_owned())),
            ("owner", "ana".to_owned(), Some("desk_bob".to_owned())),
        ]
    );

    // The console: the held row's detail shows the answer and its timeline with the role.
    let now = Timestamp::parse(NOW).unwrap();
    let mut app = App::new(ledger, Clock::Fixed(now), "rita".to_owned(), true).unwrap();
    update(
        &mut app,
        Action::Resize {
            width: 160,
            height: 48,
        },
    );
    let list = render(&app);
    // The row's answer, in the list's preview of the selected row.
    assert!(
        list.contains("needs_remote_check by ana (as desk_ana) at"),
        "{list}"
    );
    jobledger::console::press(&mut app, &KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE));
    let detail = render(&app);
    assert!(
        detail.contains(&format!("Detail of callback #{}", seq(first))),
        "{detail}"
    );
    assert!(
        detail.contains(&format!(
            "answer on #{}: needs_remote_check by ana (as desk_ana)",
            seq(first)
        )),
        "the timeline: {detail}"
    );
    assert!(
        detail.contains("owner ops:kim set by ana (as desk_ana)"),
        "the timeline: {detail}"
    );

    // Copied into a file, each row keeps the role that wrote it on the server; a row
    // the file writes itself has none (a file has no roles).
    let file = dir.path().join("copy.db").to_string_lossy().into_owned();
    ok(&url, &["copy", "--from", &url, "--to", &file]);
    assert_eq!(answer_on(&file, seq(first))["written_by"], "desk_ana");
    assert_eq!(answer_on(&file, seq(second))["written_by"], "desk_bob");
    ok(
        &file,
        &[
            "answer",
            &seq(first).to_string(),
            "--verdict",
            "needs_remote_check",
        ]
        .into_iter()
        .chain([
            "--reviewer",
            "carol",
            "--seen",
            &answer_on(&file, seq(first))["id"].to_string(),
        ])
        .collect::<Vec<_>>(),
    );
    let own = answer_on(&file, seq(first));
    assert_eq!(own["reviewer"], "carol");
    assert!(own.get("written_by").is_none(), "{own}");
}
