//! How the console's colours reach the screen: a dark palette, a light one, and none.
//!
//! The views draw in the terminal's named colours, each standing for one meaning
//! (the table below); the theme then decides, once per frame and for every cell, what
//! that meaning looks like on the reviewer's terminal. So no view can forget the
//! theme, and a new view is themed by drawing in the same named colours.
//!
//! | drawn as (on the terminal's background) | means | light | no colour |
//! | --- | --- | --- | --- |
//! | yellow | held, late, pending, a warning, the held side | dark yellow | bold |
//! | cyan | focus, the selection mark, titles of a pane | dark cyan | bold |
//! | green | closed, quiet, confirmed | dark green | plain |
//! | light red, red | a problem: unanswered, NOT COMPLETE, quarantine | dark red | bold |
//! | light magenta | the other attempt in a comparison | dark magenta | plain |
//! | dark grey | muted: labels, hints, ages | dark grey | plain |
//! | white | plain text drawn on purpose | the terminal's text colour | plain |
//!
//! | drawn on (a background) | means | light | no colour |
//! | --- | --- | --- | --- |
//! | cyan | the active tab | as dark | reversed, bold |
//! | blue | the selected row of the list that has the keyboard | as dark | reversed |
//! | dark grey | the selected row of a list that has not | light grey | underlined |
//! | red, yellow | an alarm, a banner | as dark | reversed, bold |
//! | grey | a key in the footer | as dark | reversed |
//! | black | an overlay over the screen | the terminal's background | the terminal's background |
//!
//! A cell with a background of its own keeps its text colour (it was chosen for that
//! background), so on a light terminal only text on the terminal's own background (or
//! on an overlay, or a dark-grey selection) changes colour.
//!
//! The light palette's colours are of the 256-colour cube, the same on every terminal
//! that has it (the 16 named ones are whatever the terminal's scheme says: xterm's
//! yellow and cyan are 1.7:1 and 2.0:1 on white). Their contrast on white, by WCAG's
//! relative luminance: dark yellow 94 (#875f00) 5.7:1, dark cyan 24 (#005f87) 7.0:1,
//! dark green 22 (#005f00) 8.0:1, dark red 124 (#af0000) 7.4:1, dark magenta 90
//! (#870087) 8.8:1, dark grey 240 (#585858) 7.1:1; on the light grey 255 (#eeeeee) of
//! a selection without the keyboard, the least of them, dark yellow, is 4.9:1.
//!
//! Without colour (`NO_COLOR`, no-color.org) a distinction colour alone carried is
//! carried by a modifier; where a view says a colour in words or draws marks that
//! only colour told apart (the backlog chart), it asks [`Theme::colours`].

use ratatui::buffer::Buffer;
use ratatui::style::{Color, Modifier};

/// How the console shows its colours.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Theme {
    /// The terminal's named colours, for a dark background (the default).
    #[default]
    Dark,
    /// Dark colours of the 256-colour cube, readable on a light background.
    Light,
    /// No colour at all: bold, reversed and underlined carry every distinction.
    NoColour,
}

/// A palette the reviewer can ask for (`--theme`, `JOBLEDGER_THEME`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Palette {
    Dark,
    Light,
}

impl Palette {
    /// Every palette, in the order `--help` lists them.
    pub const ALL: [Palette; 2] = [Palette::Dark, Palette::Light];

    /// The palette's name on the command line and in `JOBLEDGER_THEME`.
    pub fn as_str(self) -> &'static str {
        match self {
            Palette::Dark => "dark",
            Palette::Light => "light",
        }
    }

    /// The palette named `name`, if one is.
    pub fn named(name: &str) -> Option<Palette> {
        Palette::ALL.into_iter().find(|p| p.as_str() == name)
    }
}

impl Theme {
    /// The theme the console opens with: no colour when `no_color` (the `NO_COLOR`
    /// variable) is set and not empty, whatever palette was asked for; else the
    /// palette asked for, dark when none was.
    pub fn chosen(asked: Option<Palette>, no_color: Option<&std::ffi::OsStr>) -> Theme {
        if no_color.is_some_and(|v| !v.is_empty()) {
            return Theme::NoColour;
        }
        match asked {
            Some(Palette::Light) => Theme::Light,
            Some(Palette::Dark) | None => Theme::Dark,
        }
    }

    /// Does this theme show colours? Without them, a view that says a colour in words
    /// or tells marks apart by colour alone says and draws something else.
    pub fn colours(self) -> bool {
        self != Theme::NoColour
    }

    /// Gives every cell of `buffer` this theme's look for the named colours it was
    /// drawn in.
    pub fn paint(self, buffer: &mut Buffer) {
        match self {
            Theme::Dark => {}
            Theme::Light => {
                for cell in &mut buffer.content {
                    let bg = light_background(cell.bg);
                    cell.bg = bg;
                    if is_light(bg) {
                        cell.fg = light_text(cell.fg);
                    }
                }
            }
            Theme::NoColour => {
                for cell in &mut buffer.content {
                    let modifier = plain_text(cell.fg) | plain_background(cell.bg);
                    cell.modifier |= modifier;
                    cell.fg = Color::Reset;
                    cell.bg = Color::Reset;
                }
            }
        }
    }
}

/// On a light terminal: an overlay is the terminal's own background, a selection
/// without the keyboard a light grey; the other backgrounds stay as they are.
fn light_background(bg: Color) -> Color {
    match bg {
        Color::Black => Color::Reset,
        Color::DarkGray => Color::Indexed(255),
        other => other,
    }
}

/// Is `bg` a light background on a light terminal (text on it needs dark colours)?
fn is_light(bg: Color) -> bool {
    matches!(bg, Color::Reset | Color::Indexed(255))
}

/// Text colours on a light terminal (contrast ratios in the module's doc).
fn light_text(fg: Color) -> Color {
    match fg {
        Color::Yellow | Color::LightYellow => Color::Indexed(94),
        Color::Cyan | Color::LightCyan => Color::Indexed(24),
        Color::Green | Color::LightGreen => Color::Indexed(22),
        Color::Red | Color::LightRed => Color::Indexed(124),
        Color::Magenta | Color::LightMagenta => Color::Indexed(90),
        Color::DarkGray => Color::Indexed(240),
        Color::White | Color::Gray => Color::Reset,
        other => other,
    }
}

/// What a text colour stood for, without colour.
fn plain_text(fg: Color) -> Modifier {
    match fg {
        Color::Yellow
        | Color::LightYellow
        | Color::Cyan
        | Color::LightCyan
        | Color::Red
        | Color::LightRed => Modifier::BOLD,
        _ => Modifier::empty(),
    }
}

/// What a background stood for, without colour.
fn plain_background(bg: Color) -> Modifier {
    match bg {
        Color::Cyan | Color::Red | Color::Yellow => Modifier::REVERSED | Modifier::BOLD,
        Color::Blue | Color::Gray => Modifier::REVERSED,
        Color::DarkGray => Modifier::UNDERLINED,
        _ => Modifier::empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ratatui::layout::Rect;
    use ratatui::style::Style;

    #[test]
    fn no_color_set_and_not_empty_wins_over_the_palette_asked_for() {
        let set = std::ffi::OsStr::new("1");
        let empty = std::ffi::OsStr::new("");
        assert_eq!(Theme::chosen(None, None), Theme::Dark);
        assert_eq!(Theme::chosen(Some(Palette::Light), None), Theme::Light);
        assert_eq!(
            Theme::chosen(Some(Palette::Light), Some(set)),
            Theme::NoColour
        );
        assert_eq!(Theme::chosen(None, Some(set)), Theme::NoColour);
        assert_eq!(
            Theme::chosen(Some(Palette::Light), Some(empty)),
            Theme::Light
        );
    }

    fn painted(theme: Theme, style: Style) -> Style {
        let mut buffer = Buffer::empty(Rect::new(0, 0, 1, 1));
        buffer.set_style(buffer.area, style);
        theme.paint(&mut buffer);
        buffer[(0, 0)].style()
    }

    #[test]
    fn a_light_terminal_gets_dark_text_and_keeps_backgrounds_with_their_own_text() {
        let yellow = painted(Theme::Light, Style::new().fg(Color::Yellow));
        assert_eq!(yellow.fg, Some(Color::Indexed(94)));
        let tab = painted(Theme::Light, Style::new().fg(Color::Black).bg(Color::Cyan));
        assert_eq!((tab.fg, tab.bg), (Some(Color::Black), Some(Color::Cyan)));
        let overlay = painted(Theme::Light, Style::new().fg(Color::Cyan).bg(Color::Black));
        assert_eq!(
            (overlay.fg, overlay.bg),
            (Some(Color::Indexed(24)), Some(Color::Reset))
        );
    }

    #[test]
    fn without_colour_a_modifier_stands_for_it() {
        let tab = painted(
            Theme::NoColour,
            Style::new().fg(Color::Black).bg(Color::Cyan),
        );
        assert_eq!((tab.fg, tab.bg), (Some(Color::Reset), Some(Color::Reset)));
        assert!(tab.add_modifier.contains(Modifier::REVERSED));
        let held = painted(Theme::NoColour, Style::new().fg(Color::Yellow));
        assert!(held.add_modifier.contains(Modifier::BOLD));
        let muted = painted(Theme::NoColour, Style::new().fg(Color::DarkGray));
        assert_eq!(muted, painted(Theme::NoColour, Style::new()));
    }
}
