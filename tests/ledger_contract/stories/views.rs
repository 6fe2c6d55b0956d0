//! Saved views: a tab and a query under a name the team shares; the latest save stands.

use jobledger::store::SavedView;
use serde_json::json;

use super::with_afternoon;
use crate::location::Location;
use crate::support::fixture::at;

fn view(name: &str, tab: &str, query: &str, by: &str, when: &str) -> SavedView {
    SavedView {
        name: name.to_owned(),
        tab: tab.to_owned(),
        query: query.to_owned(),
        saved_by: by.to_owned(),
        saved_at: at(when),
        written_by: None,
    }
}

/// Saves `views` in one transaction of the public API's writer.
fn save(location: &Location, views: &[SavedView]) {
    let mut ledger = location.open();
    let mut writer = ledger.writer().expect("a write transaction");
    for v in views {
        writer.save_view(v).expect("the view is saved");
    }
    writer.commit().expect("the views are committed");
}

/// Ann and Bob save views; Carol saves Ann's name again with another query. Each name is
/// listed once, by its latest save, in order of name, by the API and by `views --json`
/// alike. A save never committed leaves no view.
pub fn a_saved_view_is_listed_by_its_latest_save(location: &Location) {
    with_afternoon(location);
    assert_eq!(location.json(&["views", "--json"]), json!([]));

    save(
        location,
        &[
            view(
                "late holds",
                "Held",
                "gap>1h",
                "ann",
                "2026-11-27T15:00:00Z",
            ),
            view(
                "relay noise",
                "Quarantined",
                "",
                "bob",
                "2026-11-27T15:10:00Z",
            ),
        ],
    );
    save(
        location,
        &[view(
            "late holds",
            "Held",
            "gap>2h -answered:yes",
            "carol",
            "2026-11-27T16:00:00Z",
        )],
    );
    {
        let mut ledger = location.open();
        let mut writer = ledger.writer().expect("a write transaction");
        writer
            .save_view(&view(
                "abandoned",
                "Aged",
                "owner:none",
                "dan",
                "2026-11-27T16:30:00Z",
            ))
            .expect("the view is written");
        // Dropped without a commit: nothing of it is kept.
    }

    let expected = [
        view(
            "late holds",
            "Held",
            "gap>2h -answered:yes",
            "carol",
            "2026-11-27T16:00:00Z",
        ),
        view(
            "relay noise",
            "Quarantined",
            "",
            "bob",
            "2026-11-27T15:10:00Z",
        ),
    ];
    // Which role saved each is the ledger's to say, never the client's: the server's
    // role on PostgreSQL, none in a file (`stories/signed.rs`).
    let expected = expected.map(|v| SavedView {
        written_by: location.role(),
        ..v
    });
    assert_eq!(location.open_read_only().saved_views().unwrap(), expected);
    let mut listed = json!([
        {
            "name": "late holds",
            "query": "gap>2h -answered:yes",
            "saved_at": "2026-11-27T16:00:00.000Z",
            "saved_by": "carol",
            "tab": "Held"
        },
        {
            "name": "relay noise",
            "query": "",
            "saved_at": "2026-11-27T15:10:00.000Z",
            "saved_by": "bob",
            "tab": "Quarantined"
        }
    ]);
    if let Some(role) = location.role() {
        for view in listed.as_array_mut().expect("a list") {
            view["written_by"] = json!(role);
        }
    }
    assert_eq!(location.json(&["views", "--json"]), listed);
}
