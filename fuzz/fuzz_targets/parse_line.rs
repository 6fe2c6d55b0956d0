//! Fuzz target for `jobledger::event::parse_line`: any bytes make a value, never a
//! panic, and every reason it gives can be shown to a person without escaping: no
//! control, bidi or invisible character from the input ends up in it.

#![no_main]

use jobledger::event::{Parsed, parse_line};
use jobledger::inert::is_dangerous;
use libfuzzer_sys::fuzz_target;

fn assert_clean(reason: &str) {
    assert!(
        !reason.chars().any(is_dangerous),
        "a reason holds a dangerous character: {reason:?}"
    );
}

fuzz_target!(|line: &[u8]| {
    match parse_line(line) {
        Parsed::Event(_) => {}
        Parsed::Callback(report) => {
            for (_, detail) in &report.problems {
                assert_clean(detail);
            }
        }
        Parsed::Rejected { reason, .. } => assert_clean(&reason.sentence),
        Parsed::Unparseable { reason } => assert_clean(&reason),
    }
});
