//! A real crossterm terminal whose output bytes a test can read: what the console
//! would send to a reviewer's terminal, escapes and all.

use std::sync::{Arc, Mutex};

use ratatui::backend::CrosstermBackend;
use ratatui::layout::Rect;
use ratatui::{Terminal, TerminalOptions, Viewport};

/// Keeps what a backend writes.
#[derive(Clone, Default)]
pub struct Recorder(Arc<Mutex<Vec<u8>>>);

impl Recorder {
    /// Every byte written so far.
    pub fn bytes(&self) -> Vec<u8> {
        self.0.lock().unwrap().clone()
    }
}

impl std::io::Write for Recorder {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// A terminal of `width` x `height` drawing through crossterm into a [`Recorder`].
pub fn terminal(width: u16, height: u16) -> (Terminal<CrosstermBackend<Recorder>>, Recorder) {
    let recorder = Recorder::default();
    let terminal = Terminal::with_options(
        CrosstermBackend::new(recorder.clone()),
        TerminalOptions {
            viewport: Viewport::Fixed(Rect::new(0, 0, width, height)),
        },
    )
    .unwrap();
    (terminal, recorder)
}
