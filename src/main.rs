//! The `jobledger` binary: see the crate documentation.

fn main() -> std::process::ExitCode {
    jobledger::cli::main()
}
