//! A report kept aside until it is whole, then printed at once: a report that fails
//! in the middle (a damaged row, a query the ledger cannot run, a full disk) prints
//! nothing, never half a document a script would read as the whole or fail to parse.
//!
//! Up to [`MEMORY_BOUND`] bytes are kept in memory; a larger report (a million
//! callbacks as JSON are hundreds of MB) moves to an unnamed temporary file, which
//! the system removes when the command ends, however it ends.

use std::fs::File;
use std::io::{self, BufWriter, Seek, SeekFrom, Write};

/// The bytes of a report kept in memory before it moves to a temporary file.
pub const MEMORY_BOUND: usize = 8 << 20;

/// Where a report is written while it is made; [`WholeOutput::finish`] prints it.
/// Dropped unfinished, it prints nothing.
pub struct WholeOutput {
    memory: Vec<u8>,
    spilled: Option<BufWriter<File>>,
    bound: usize,
}

impl Default for WholeOutput {
    fn default() -> Self {
        WholeOutput::with_bound(MEMORY_BOUND)
    }
}

impl WholeOutput {
    /// Keeps the report in memory up to [`MEMORY_BOUND`] bytes.
    pub fn new() -> Self {
        WholeOutput::default()
    }

    /// Keeps the report in memory up to `bound` bytes (a test moves it to a file early).
    pub fn with_bound(bound: usize) -> Self {
        WholeOutput {
            memory: Vec::new(),
            spilled: None,
            bound,
        }
    }

    /// Has the report moved to a temporary file?
    pub fn spilled(&self) -> bool {
        self.spilled.is_some()
    }

    /// Prints the whole report to `out`.
    pub fn finish(self, out: &mut impl Write) -> io::Result<()> {
        match self.spilled {
            None => out.write_all(&self.memory),
            Some(spilled) => {
                let mut file = spilled
                    .into_inner()
                    .map_err(io::IntoInnerError::into_error)?;
                file.seek(SeekFrom::Start(0))?;
                io::copy(&mut file, out).map(|_| ())
            }
        }
    }

    /// Moves what is in memory to an unnamed temporary file, which takes the rest.
    fn spill(&mut self) -> io::Result<&mut BufWriter<File>> {
        let file = tempfile::tempfile().map_err(|e| {
            io::Error::new(
                e.kind(),
                format!(
                    "a report larger than {} MB is kept in a temporary file until it is whole, and none could be made in {} ({e}); set TMPDIR to a directory with room",
                    self.bound >> 20,
                    crate::inert::inert_path(&std::env::temp_dir())
                ),
            )
        })?;
        let mut file = BufWriter::with_capacity(1 << 16, file);
        file.write_all(&self.memory)?;
        self.memory = Vec::new();
        Ok(self.spilled.insert(file))
    }
}

impl Write for WholeOutput {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(file) = &mut self.spilled {
            return file.write(buf);
        }
        if self.memory.len() + buf.len() > self.bound {
            return self.spill()?.write(buf);
        }
        self.memory.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match &mut self.spilled {
            Some(file) => file.write_all(buf),
            None => self.write(buf).map(|_| ()),
        }
    }

    /// Nothing reaches the output before [`WholeOutput::finish`]: flushing keeps it aside.
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write as _;

    use super::WholeOutput;

    #[test]
    fn a_report_in_memory_or_in_a_file_comes_out_whole_and_in_order() {
        for bound in [1 << 20, 10] {
            let mut whole = WholeOutput::with_bound(bound);
            let mut expected = Vec::new();
            for i in 0..1000 {
                let line = format!("line {i}\n");
                whole.write_all(line.as_bytes()).unwrap();
                expected.extend_from_slice(line.as_bytes());
            }
            whole.flush().unwrap();
            assert_eq!(whole.spilled(), bound == 10);
            let mut out = Vec::new();
            whole.finish(&mut out).unwrap();
            assert_eq!(out, expected, "bound {bound}");
        }
    }
}
