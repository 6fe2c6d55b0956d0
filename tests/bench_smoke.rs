//! The speed suite of `benches/speed.rs`, run at its tiny size so that it keeps
//! compiling and working. Nothing here looks at a time: benchmarks are not tests.

#[path = "../benches/speed/suite.rs"]
mod suite;

#[test]
fn the_speed_suite_runs_end_to_end_at_its_quick_size() {
    let config = suite::Config::new(true);
    let figures = suite::run(&config).expect("the quick speed suite runs");
    let table = suite::table(&figures);
    // The PostgreSQL part's rows name the same commands: they are looked for apart, so
    // that a SQLite row gone missing is not hidden by its PostgreSQL twin.
    let (on_server, others): (Vec<_>, Vec<_>) = figures
        .iter()
        .partition(|f| f.what.starts_with("postgres: "));
    let has = |rows: &[&suite::Figure], figure: &str| rows.iter().any(|f| f.what.contains(figure));
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
        "search: `job:0012345` in Held",
        "search: `by:staff gap>5m` in All callbacks",
        "cli: `callbacks --json --where job:123456`",
        "cli: `callbacks --json --disposition hold --where 'gap>1h'`",
        "cli: `callbacks --json --disposition hold --where 'reason:duplicate -answered:yes gap>1m'`",
        "cli: `callbacks --json --open --where 'age<7d'`",
    ] {
        assert!(has(&others, figure), "no {figure:?} in\n{table}");
    }
    for figure in [
        "lines of the local stream",
        "lines of the time-ordered stream",
        "lines of the shuffled stream",
        "one COPY of each line and its SHA-256",
        "reconcile --json",
        "callbacks --json --disposition hold",
        "console open + first frame",
        "search: `job:0012345` in Held",
        "search: `by:staff gap>5m` in All callbacks",
        "copy --from FILE --to postgres://",
    ] {
        assert!(
            has(&on_server, figure),
            "no PostgreSQL row {figure:?} in\n{table}"
        );
    }
    let ingests = on_server
        .iter()
        .filter(|f| f.what.starts_with("postgres: ingest lines/s"))
        .count();
    assert_eq!(ingests, 3, "one ingest row for each order in\n{table}");
    // Every row of the part is measured beside SQLite (or the COPY) in the same run,
    // and says whether its target was met where it has one.
    for f in &on_server {
        assert!(f.ratio.is_some_and(f64::is_finite), "{table}");
        assert_eq!(f.met.is_some(), f.target != "-", "{table}");
    }
    assert!(
        figures
            .iter()
            .all(|f| !f.ours.is_empty() && !f.baseline.is_empty()),
        "{table}"
    );
}
