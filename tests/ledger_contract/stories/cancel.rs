//! A search the person has typed past is stopped from another thread: the statement
//! running ends with an error nobody waits for, and the connection goes on.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use jobledger::store::CallbackFilter;

use super::with_afternoon;
use crate::location::Location;
use crate::support::fixture::now;

/// A count under a query of thousands of terms (each a statement long to plan and
/// run), asked again and again while another thread cancels every few milliseconds:
/// some are stopped, none is answered wrong, and once the cancels stop the count is
/// the one it was before.
pub fn a_cancel_stops_the_statement_running_and_the_connection_goes_on(location: &Location) {
    with_afternoon(location);
    let ledger = location.open();
    let query = vec!["-zz"; 3000].join(" ");
    let filter = CallbackFilter::default()
        .with_query(&query, now(), "ana")
        .unwrap();
    let whole = ledger.count_callbacks(&filter).unwrap();
    assert!(whole > 0);

    let canceller = ledger.canceller();
    let done = Arc::new(AtomicBool::new(false));
    let cancelling = {
        let done = Arc::clone(&done);
        std::thread::spawn(move || {
            while !done.load(Ordering::SeqCst) {
                canceller.cancel();
                std::thread::sleep(Duration::from_millis(2));
            }
        })
    };
    let started = Instant::now();
    let mut stopped = 0;
    while stopped < 3 && started.elapsed() < Duration::from_secs(20) {
        match ledger.count_callbacks(&filter) {
            Ok(n) => assert_eq!(n, whole, "a count answered under cancels"),
            Err(_) => stopped += 1,
        }
    }
    done.store(true, Ordering::SeqCst);
    cancelling.join().unwrap();
    assert!(stopped >= 3, "no statement was stopped in 20 s");
    // A cancel sent as the last statement ended may reach the next: a read or two
    // later the connection answers again.
    let again = (0..5).find_map(|_| ledger.count_callbacks(&filter).ok());
    assert_eq!(again, Some(whole));
}
