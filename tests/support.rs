//! Test support shared by every integration test (as cargo's `cargo-test-support` is):
//! a directory on a real disk, the binary and ways to run it (plainly or in a
//! pseudo-terminal), ledgers on temporary files and plain-SQL reads of them, a
//! terminal whose bytes a test can read, a throwaway PostgreSQL server, and the
//! reports of two ledgers side by side.
//!
//! A test file takes it with `mod support;`. It is no test of its own (`test = false`
//! in Cargo.toml); the `#[path]`s below make its parts resolve the same way should it
//! ever be built as a crate root.

// Each test binary uses a different part of this module; a test builds its
// fixtures with `new()`, never by `Default`.
#![allow(dead_code, clippy::new_without_default)]

#[path = "support/binary.rs"]
pub mod binary;
#[path = "support/concurrent.rs"]
pub mod concurrent;
#[path = "support/crash.rs"]
pub mod crash;
#[path = "support/damage.rs"]
pub mod damage;
#[path = "support/disk.rs"]
pub mod disk;
#[path = "support/fixture.rs"]
pub mod fixture;
#[path = "support/hostile.rs"]
pub mod hostile;
#[path = "support/postgres.rs"]
pub mod postgres;
#[path = "support/pty.rs"]
pub mod pty;
#[path = "support/recorder.rs"]
pub mod recorder;
#[path = "support/reports.rs"]
pub mod reports;
#[path = "support/terminal.rs"]
pub mod terminal;
