//! `e` in the console: the selected callback's (or job's) evidence bundle, the very document
//! `jobledger export SEQ` prints, written to `jobledger-case-SEQ.md` in the console's
//! directory (the next free name when that one is taken, so nothing is overwritten),
//! from the list or the callback's detail; the message line says where it went.

mod support;

use jobledger::console::{Action, App, Context, Tab, keymap, update};
use ratatui::crossterm::event::KeyCode;
use support::binary::{command, succeeded};
use support::fixture::NOW;
use support::terminal::{ch, demo_app, key, render_at, resize, selected_callback};

fn flash(app: &App) -> String {
    app.flash().map(|f| f.text.clone()).unwrap_or_default()
}

/// The files in `dir`, sorted.
fn files(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn e_writes_the_bundle_export_prints_and_never_over_a_file() {
    let (demo, mut app) = demo_app("ana");
    let dir = tempfile::tempdir().unwrap();
    app.export_to(dir.path());
    assert_eq!(selected_callback(&app).seq, 2, "the worked example's C2");
    assert!(app.offers(Action::Export));

    ch(&mut app, 'e');
    let first = dir.path().join("jobledger-case-2.md");
    assert_eq!(
        flash(&app),
        format!("evidence bundle of #2 written to {}", first.display())
    );
    let printed = succeeded(
        &command(&demo.path, NOW)
            .args(["export", "2"])
            .output()
            .unwrap(),
        &["export", "2"],
    );
    assert_eq!(
        std::fs::read_to_string(&first).unwrap(),
        printed,
        "the console writes what `export` prints"
    );

    // Again, from the callback's detail: the name is taken, so the next one is used.
    key(&mut app, KeyCode::Enter);
    assert_eq!(app.context(), Context::Detail);
    ch(&mut app, 'e');
    let second = dir.path().join("jobledger-case-2-2.md");
    assert_eq!(
        flash(&app),
        format!(
            "evidence bundle of #2 written to {} (jobledger-case-2.md is taken)",
            second.display()
        )
    );
    assert_eq!(std::fs::read_to_string(&second).unwrap(), printed);
    assert_eq!(std::fs::read_to_string(&first).unwrap(), printed);
    assert_eq!(
        files(dir.path()),
        ["jobledger-case-2-2.md", "jobledger-case-2.md"]
    );
    // The message is on the screen, at 80 columns too.
    resize(&mut app, 80, 24);
    let screen = render_at(&app, 80, 24);
    assert!(
        screen.contains("evidence bundle of #2 written to"),
        "{screen}"
    );
}

#[test]
fn e_on_a_job_writes_the_bundle_export_job_prints() {
    let (demo, mut app) = demo_app("ana");
    let dir = tempfile::tempdir().unwrap();
    app.export_to(dir.path());
    update(&mut app, Action::ShowTab(Tab::Aged));
    assert!(app.offers(Action::Export));
    let job = app.model().list().and_then(|l| l.job()).unwrap().to_owned();
    ch(&mut app, 'e');
    let written = dir.path().join(format!("jobledger-job-{job}.md"));
    assert_eq!(
        flash(&app),
        format!(
            "evidence bundle of job {job} written to {}",
            written.display()
        )
    );
    let printed = succeeded(
        &command(&demo.path, NOW)
            .args(["export", "--job", &job])
            .output()
            .unwrap(),
        &["export", "--job", &job],
    );
    assert_eq!(std::fs::read_to_string(&written).unwrap(), printed);

    // A quarantined callback has its bundle too.
    update(&mut app, Action::ShowTab(Tab::Quarantined));
    let seq = selected_callback(&app).seq;
    ch(&mut app, 'e');
    assert_eq!(
        files(dir.path()),
        [
            format!("jobledger-case-{seq}.md"),
            format!("jobledger-job-{job}.md")
        ]
    );
}

#[test]
fn e_where_no_row_is_selected_says_so_and_writes_nothing() {
    let (_demo, mut app) = demo_app("ana");
    let dir = tempfile::tempdir().unwrap();
    app.export_to(dir.path());
    update(&mut app, Action::ShowTab(Tab::Reconcile));
    assert!(!app.offers(Action::Export));
    ch(&mut app, 'e');
    assert!(
        flash(&app).contains("the evidence bundle is of a callback or a job"),
        "{}",
        flash(&app)
    );
    assert!(files(dir.path()).is_empty());
}

#[test]
fn a_directory_that_takes_no_file_is_named_and_the_console_goes_on() {
    let (_demo, mut app) = demo_app("ana");
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("no-such-directory");
    app.export_to(&gone);
    ch(&mut app, 'e');
    let said = flash(&app);
    assert!(
        said.starts_with(&format!(
            "the evidence bundle of #2 was not written in {}:",
            gone.display()
        )),
        "{said}"
    );
    assert!(app.flash().is_some_and(|f| f.error));
    assert!(!app.quit_requested());
}

#[test]
fn the_help_lists_e() {
    let (_demo, mut app) = demo_app("ana");
    ch(&mut app, '?');
    assert_eq!(app.context(), Context::Help);
    let mut help = String::new();
    for _ in 0..20 {
        help.push_str(&render_at(&app, 160, 48));
        key(&mut app, KeyCode::PageDown);
    }
    assert!(
        help.lines().any(|l| l.contains(" e ")
            && l.contains("export the evidence bundle of the callback or job")),
        "`e` is not in the help:\n{help}"
    );
    // The help is drawn from the key table, where `e` is in a list and in a detail.
    for context in [Context::List, Context::Detail] {
        assert!(
            keymap::bindings(context)
                .any(|b| b.action == Action::Export && keymap::keys_label(b) == "e"),
            "{context:?}"
        );
    }
}
