//! The console in a light theme and without colour (`NO_COLOR`): every view at 80x24
//! pinned with its styles, every text colour on a light background readable (4.5:1 at
//! least), and every distinction colour made kept without it.

mod support;

use std::fmt::Write as _;

use jobledger::console::{Action, App, Tab, Theme, update};
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::KeyCode;
use ratatui::style::{Color, Modifier};
use support::terminal::{DemoLedger, buffer_at, ch, demo_app, key, resize};

/// The screen as text, each row followed (after `~ `) by a letter for each cell's
/// style where it has one, and a key of the letters at the end: a plain text snapshot
/// would show a reversed tab and a plain one alike.
fn styled(buffer: &Buffer, ledger: &DemoLedger) -> String {
    let path = ledger.path.display().to_string();
    let mut styles: Vec<(Color, Color, Modifier)> = Vec::new();
    let mut out = String::new();
    for y in 0..buffer.area.height {
        let mut text = String::new();
        let mut codes = String::new();
        for x in 0..buffer.area.width {
            let cell = &buffer[(x, y)];
            text.push_str(cell.symbol());
            let style = (cell.fg, cell.bg, cell.modifier);
            let code = if style == (Color::Reset, Color::Reset, Modifier::empty()) {
                '.'
            } else {
                let at = styles.iter().position(|s| *s == style).unwrap_or_else(|| {
                    styles.push(style);
                    styles.len() - 1
                });
                char::from(b'a' + u8::try_from(at % 26).expect("a letter"))
            };
            // A wide character's second cell has no symbol of its own.
            for _ in 0..cell.symbol().chars().count().max(1) {
                codes.push(code);
            }
        }
        let text = text.replace(&path, "[LEDGER]");
        let _ = writeln!(out, "  {}", text.trim_end());
        let codes = codes.trim_end_matches('.');
        if !codes.is_empty() {
            let _ = writeln!(out, "~ {codes}");
        }
    }
    out.push_str("\nstyles:\n");
    for (i, (fg, bg, modifier)) in styles.iter().enumerate() {
        let letter = char::from(b'a' + u8::try_from(i % 26).expect("a letter"));
        let _ = writeln!(out, "{letter} fg {fg:?} bg {bg:?} {modifier:?}");
    }
    out
}

/// WCAG's contrast ratio of two colours of the 256-colour palette (the cube and the
/// greys; 15 and 231 are white, 0 and 16 black).
fn contrast(a: u8, b: u8) -> f64 {
    fn rgb(n: u8) -> [f64; 3] {
        const CUBE: [f64; 6] = [0.0, 95.0, 135.0, 175.0, 215.0, 255.0];
        match n {
            0 => [0.0; 3],
            15 => [255.0; 3],
            16..=231 => {
                let n = usize::from(n - 16);
                [CUBE[n / 36], CUBE[(n / 6) % 6], CUBE[n % 6]]
            }
            232..=255 => [8.0 + 10.0 * f64::from(n - 232); 3],
            other => panic!("colour {other} of the 16 named ones has no fixed value"),
        }
    }
    fn luminance(n: u8) -> f64 {
        let [r, g, b] = rgb(n).map(|c| {
            let c = c / 255.0;
            if c <= 0.039_28 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        });
        0.2126 * r + 0.7152 * g + 0.0722 * b
    }
    let (x, y) = (luminance(a), luminance(b));
    (x.max(y) + 0.05) / (x.min(y) + 0.05)
}

/// Draws `app` in `theme` on a screen of `size`.
fn drawn(app: &mut App, theme: Theme, size: (u16, u16)) -> Buffer {
    app.set_theme(theme);
    resize(app, size.0, size.1);
    buffer_at(app.model(), size.0, size.1)
}

/// Each view at 80x24 in `theme`, then the detail pane, the help, the answer form
/// and the confirmation of an answer written (after the keys that open each),
/// each checked by `check` and pinned by a snapshot named after the theme.
fn every_screen_in(theme: Theme, prefix: &str, check: impl Fn(&str, &Buffer)) {
    let (ledger, mut app) = demo_app("ana");
    let screen = |name: &str, app: &mut App| {
        let buffer = drawn(app, theme, (80, 24));
        check(name, &buffer);
        insta::assert_snapshot!(format!("{prefix}_{name}"), styled(&buffer, &ledger));
    };
    for &tab in Tab::ALL {
        update(&mut app, Action::ShowTab(tab));
        screen(
            &format!("view_{}", tab.title().to_lowercase().replace(' ', "_")),
            &mut app,
        );
    }
    update(&mut app, Action::ShowTab(Tab::Held));
    key(&mut app, KeyCode::Enter);
    screen("detail", &mut app);
    key(&mut app, KeyCode::Esc);
    ch(&mut app, '?');
    screen("help", &mut app);
    key(&mut app, KeyCode::Esc);
    ch(&mut app, 'a');
    screen("answer_form", &mut app);
    key(&mut app, KeyCode::Down);
    key(&mut app, KeyCode::Enter);
    screen("answer_written", &mut app);
}

/// A text colour on a light terminal: what it is drawn on, by the theme's light
/// palette (the terminal's own background counts as white).
fn readable_on_light(cell: &ratatui::buffer::Cell) -> Result<(), String> {
    let on = match cell.bg {
        Color::Reset => 231,
        Color::Indexed(n) => n,
        // A background of its own keeps the text colour chosen for it.
        _ => return Ok(()),
    };
    match cell.fg {
        Color::Reset | Color::Black => Ok(()),
        Color::Indexed(n) if contrast(n, on) >= 4.5 => Ok(()),
        Color::Indexed(n) => Err(format!("colour {n} on {on} is {:.2}:1", contrast(n, on))),
        named => Err(format!(
            "{named:?} text on {:?}: the terminal's scheme decides it (xterm's yellow is 1.7:1 on white)",
            cell.bg
        )),
    }
}

#[test]
fn a_light_theme_keeps_every_text_colour_readable_on_a_light_background() {
    let check = |name: &str, buffer: &Buffer| {
        for (i, cell) in buffer.content.iter().enumerate() {
            if let Err(why) = readable_on_light(cell) {
                let (x, y) = buffer.pos_of(i);
                panic!("{name}: {:?} at ({x}, {y}): {why}", cell.symbol());
            }
        }
    };
    every_screen_in(Theme::Light, "light", check);
    // The backlog chart, where the screen has room for it.
    let (_ledger, mut app) = demo_app("ana");
    update(&mut app, Action::ShowTab(Tab::Reconcile));
    check("the chart", &drawn(&mut app, Theme::Light, (160, 48)));
}

/// The columns of the tab bar's cells that have `modifier`.
fn tab_bar_cells_with(buffer: &Buffer, modifier: Modifier) -> Vec<u16> {
    (0..buffer.area.width)
        .filter(|&x| buffer[(x, 0)].modifier.contains(modifier))
        .collect()
}

#[test]
fn without_colour_every_distinction_is_kept_by_a_modifier() {
    every_screen_in(Theme::NoColour, "no_colour", |name, buffer| {
        for cell in &buffer.content {
            assert_eq!(
                (cell.fg, cell.bg),
                (Color::Reset, Color::Reset),
                "{name}: {:?} has a colour under NO_COLOR",
                cell.symbol()
            );
        }
        // The active tab is reversed, and no other cell of the bar is.
        let reversed = tab_bar_cells_with(buffer, Modifier::REVERSED);
        let bar: String = (0..buffer.area.width)
            .map(|x| buffer[(x, 0)].symbol().to_owned())
            .collect();
        assert!(!reversed.is_empty(), "{name}: no tab stands out:\n{bar}");
        let from = usize::from(reversed[0]);
        let to = usize::from(*reversed.last().unwrap_or(&0));
        assert_eq!(
            to - from + 1,
            reversed.len(),
            "{name}: more than one tab is reversed:\n{bar}"
        );
        let active: String = (from..=to)
            .map(|x| {
                buffer[(u16::try_from(x).unwrap_or(0), 0)]
                    .symbol()
                    .to_owned()
            })
            .collect();
        assert!(
            !active.contains('│'),
            "{name}: {active:?} is more than a tab"
        );
    });
}

#[test]
fn without_colour_the_backlog_chart_tells_its_lines_apart_and_names_no_colour() {
    let (_ledger, mut app) = demo_app("ana");
    update(&mut app, Action::ShowTab(Tab::Reconcile));
    for (size, theme) in [
        ((160, 48), Theme::NoColour),
        ((160, 24), Theme::NoColour),
        ((160, 48), Theme::Dark),
    ] {
        let buffer = drawn(&mut app, theme, size);
        let rows: Vec<String> = (0..buffer.area.height)
            .map(|y| {
                (0..buffer.area.width)
                    .map(|x| buffer[(x, y)].symbol().to_owned())
                    .collect()
            })
            .collect();
        let screen = rows.join("\n");
        if theme == Theme::NoColour {
            assert!(
                !screen.contains(" red "),
                "{size:?} names a colour:\n{screen}"
            );
        }
        // The chart where it fits, else a line of bars that says what stands out.
        let key = rows.iter().find(|r| r.contains("arrived for people"));
        assert_eq!(key.is_some(), size == (160, 48), "{screen}");
        if size == (160, 24) {
            assert!(screen.contains("underlined above capacity"), "{screen}");
        }
        if let Some(key) = key {
            let mark = |what: &str| {
                let at = key.find(what).expect("the key names the line");
                key[..at]
                    .trim_end()
                    .chars()
                    .rev()
                    .find(|c| *c != ' ')
                    .unwrap_or(' ')
            };
            let marks = [
                mark("arrived for people"),
                mark("answered"),
                mark("capacity"),
            ];
            if theme == Theme::NoColour {
                assert!(
                    marks[0] != marks[1] && marks[1] != marks[2] && marks[0] != marks[2],
                    "the key's marks {marks:?} are alike:\n{screen}"
                );
            }
        }
    }
}

#[test]
fn the_tab_bars_marks_of_more_tabs_are_in_the_texts_own_colour() {
    let (_ledger, mut app) = demo_app("ana");
    update(&mut app, Action::ShowTab(Tab::Reconcile));
    let buffer = drawn(&mut app, Theme::Dark, (80, 24));
    let bar: String = (0..buffer.area.width)
        .map(|x| buffer[(x, 0)].symbol().to_owned())
        .collect();
    for mark in ["‹", "›"] {
        let x = (0..buffer.area.width)
            .find(|&x| buffer[(x, 0)].symbol() == mark)
            .unwrap_or_else(|| panic!("no {mark} in {bar:?}"));
        // Dark grey on a dark background was all but invisible on some schemes.
        assert_eq!(buffer[(x, 0)].fg, Color::Reset, "{mark} in {bar:?}");
        assert!(buffer[(x, 0)].modifier.contains(Modifier::BOLD));
    }
}

#[test]
fn a_theme_that_does_not_exist_is_refused_by_name() {
    let w = support::binary::Workdir::new();
    let out = w
        .command()
        .env("JOBLEDGER_THEME", "blue")
        .args(["review", "--db", "ledger.db"])
        .output()
        .expect("the binary runs");
    let said = support::binary::refused(&out, &["JOBLEDGER_THEME", "\"blue\"", "dark and light"]);
    assert!(!said.contains("panicked"));
    let out = w
        .command()
        .args(["review", "--theme", "blue"])
        .output()
        .expect("the binary runs");
    let said = support::binary::failed(&out, &["review", "--theme", "blue"]);
    assert!(said.contains("[possible values: dark, light]"), "{said}");
}

/// Every cell of a real terminal's screen: (row, column, cell).
fn every_cell(screen: &vt100::Screen, mut look: impl FnMut(u16, u16, &vt100::Cell)) {
    let (rows, cols) = screen.size();
    for row in 0..rows.get() {
        for col in 0..cols.get() {
            if let Some(cell) = screen.cell(row, col) {
                look(row, col, cell);
            }
        }
    }
}

#[test]
fn the_real_binary_takes_no_color_and_the_light_theme_from_its_environment() {
    use support::pty::PtySession;
    let w = support::binary::Workdir::new();
    let db = w.db.to_str().expect("a UTF-8 path");
    let args = ["demo", "--db", db];
    let plain = PtySession::spawn(&args, w.dir.path(), (80, 24), &[("NO_COLOR", "1")]);
    let text = plain.wait_for("held still open");
    // Read under the screen's lock, judged after it (a failure inside would poison it).
    let (coloured, reversed) = plain.inspect(|screen| {
        let (mut coloured, mut reversed) = (Vec::new(), 0);
        every_cell(screen, |row, col, cell| {
            if (cell.fgcolor(), cell.bgcolor()) != (vt100::Color::Default, vt100::Color::Default) {
                coloured.push((row, col));
            }
            reversed += usize::from(row == 0 && cell.inverse());
        });
        (coloured, reversed)
    });
    assert!(
        coloured.is_empty(),
        "colours at {coloured:?} under NO_COLOR:\n{text}"
    );
    // The terminal library leaves colours out under NO_COLOR by itself: the console's
    // part is that the active tab still stands out.
    assert!(reversed > 0, "no tab stands out under NO_COLOR:\n{text}");
    plain.quit();
    let light = PtySession::spawn(
        &args,
        w.dir.path(),
        (80, 24),
        &[("JOBLEDGER_THEME", "light"), ("NO_COLOR", "")],
    );
    let text = light.wait_for("held still open");
    let named = light.inspect(|screen| {
        let mut named = Vec::new();
        every_cell(screen, |row, col, cell| {
            // On the terminal's own background, text is in the terminal's colour or
            // one of the 256-colour cube's fixed ones, never a named colour whose
            // look the terminal's scheme decides (black and white only on a colour).
            let fixed = match cell.fgcolor() {
                vt100::Color::Default => true,
                vt100::Color::Idx(n) => n >= 16,
                vt100::Color::Rgb(..) => false,
            };
            if cell.bgcolor() == vt100::Color::Default && !fixed {
                named.push((row, col, cell.fgcolor()));
            }
        });
        named
    });
    assert!(
        named.is_empty(),
        "named colours in the light theme: {named:?}\n{text}"
    );
    light.quit();
}
