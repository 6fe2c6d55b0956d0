//! The speed suite of `benches/speed.rs`, run at its tiny size so that it keeps
//! compiling and working. Nothing here looks at a time: benchmarks are not tests.

#[path = "../benches/speed/suite.rs"]
mod suite;

#[test]
fn the_speed_suite_runs_end_to_end_at_its_quick_size() {
    let config = suite::Config::new(true);
    let figures = suite::run(&config).expect("the quick speed suite runs");
    let table = suite::table(&figures);
    for figure in [
        "ingest: events/s",
        "ingest: peak RSS",
        "reconcile --json",
        "console: start to first frame",
        "console: render + diff",
        "console: page down",
        "console: peak RSS",
        "summary --json",
        "callbacks --json --disposition hold",
        "filter: typing",
        "sort: `s`/`S`",
        "sort: page down sorted by gap",
    ] {
        assert!(table.contains(figure), "no {figure:?} in\n{table}");
    }
    assert!(
        figures
            .iter()
            .all(|f| !f.ours.is_empty() && !f.baseline.is_empty()),
        "{table}"
    );
}
