//! Makes text from outside safe to draw in a terminal.
//!
//! Callback payloads, raw lines and notes come from anyone. Drawn as they are, their
//! bytes can drive the reviewer's terminal instead of being read by the reviewer:
//! `ESC[2J` clears the screen, OSC 52 (`ESC]52;…`) writes the clipboard, the 8-bit CSI
//! U+009B starts a control sequence without any ESC, CR redraws over the line, and bidi
//! overrides such as U+202E or invisible characters make the shown text differ from the
//! stored text. Everything drawn from the ledger goes through [`inert`] (or
//! [`inert_bytes`] for raw bytes), which turns each such character into visible text and
//! leaves all other text alone.
//!
//! The rendering is for eyes, not for round trips: a literal `^[` in the input looks
//! the same as an escaped ESC. The raw bytes stay in the ledger for anyone who needs them.

use std::borrow::Cow;
use std::fmt::Write as _;

/// Returns `s` with every character that could act on the terminal made visible.
///
/// C0 controls and DEL become caret notation (`^[` for ESC, `^G` for BEL, `^M` for CR,
/// `^@` for NUL, `^I` for TAB, `^?` for DEL). C1 controls, bidi controls, zero-width and
/// other invisible format characters and the line and paragraph separators
/// U+2028/U+2029 become `\u{…}` escapes in lowercase hex (`\u{9b}`, `\u{202e}`).
/// Text holding none of these is returned as it is, without copying.
pub fn inert(s: &str) -> Cow<'_, str> {
    let Some(first) = s.find(is_dangerous) else {
        return Cow::Borrowed(s);
    };
    let (clean, rest) = s.split_at(first);
    let mut out = String::with_capacity(s.len() + 8);
    out.push_str(clean);
    for c in rest.chars() {
        push_inert(&mut out, c);
    }
    Cow::Owned(out)
}

/// A file's path as it may be shown: [`inert`] over its display form.
pub fn inert_path(path: &std::path::Path) -> String {
    inert(&path.display().to_string()).into_owned()
}

/// Renders raw bytes that may not be UTF-8, such as an unparseable input line.
///
/// Valid UTF-8 runs go through [`inert`]; each byte that is not part of valid UTF-8
/// becomes `\x` and two lowercase hex digits (`\xff`).
pub fn inert_bytes(raw: &[u8]) -> String {
    let mut out = String::with_capacity(raw.len());
    for chunk in raw.utf8_chunks() {
        out.push_str(&inert(chunk.valid()));
        for byte in chunk.invalid() {
            // Writing to a String cannot fail.
            let _ = write!(out, "\\x{byte:02x}");
        }
    }
    out
}

/// A character that a terminal would act on, or that would hide or reorder text.
/// Would drawing this character let outside text control or deceive the terminal?
pub fn is_dangerous(c: char) -> bool {
    matches!(c,
        // C0 controls (TAB and LF included: they break table cells and rows), DEL, C1 controls.
        '\u{0}'..='\u{1f}' | '\u{7f}' | '\u{80}'..='\u{9f}'
        // Bidi controls: embeddings, overrides, isolates and marks.
        | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}'
        // Zero-width and invisible format characters.
        | '\u{200b}'..='\u{200d}' | '\u{2060}' | '\u{feff}' | '\u{ad}'
        // Line and paragraph separators: some terminals and widgets break lines on them.
        | '\u{2028}' | '\u{2029}'
        // Other invisible format characters that can hide text from a reviewer:
        // invisible math operators, deprecated format controls, interlinear annotation,
        // the Mongolian vowel separator, musical format controls and tag characters.
        | '\u{2061}'..='\u{2064}' | '\u{206a}'..='\u{206f}' | '\u{fff9}'..='\u{fffb}'
        | '\u{180e}' | '\u{1d173}'..='\u{1d17a}' | '\u{e0001}' | '\u{e0020}'..='\u{e007f}'
    )
}

/// Appends `c`, made visible if it is dangerous.
fn push_inert(out: &mut String, c: char) {
    if !is_dangerous(c) {
        out.push(c);
        return;
    }
    match u8::try_from(c) {
        // Caret notation: ^@ for NUL through ^_ for U+001F.
        Ok(code @ 0x00..=0x1f) => {
            out.push('^');
            out.push(char::from(code + 0x40));
        }
        Ok(0x7f) => out.push_str("^?"),
        // Writing to a String cannot fail.
        _ => {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed_unchanged() {
        for s in [
            "",
            "job-42 success",
            "café — ünïcödé 日本語 🚀",
            "{\"a\":1}",
            "back\\slash",
        ] {
            let out = inert(s);
            assert!(matches!(out, Cow::Borrowed(_)), "{s:?} was copied");
            assert_eq!(out, s);
        }
    }

    #[test]
    fn c0_controls_and_del_become_caret_notation() {
        assert_eq!(inert("\u{1b}[2J"), "^[[2J");
        assert_eq!(inert("ring\u{7}"), "ring^G");
        assert_eq!(inert("over\rwrite"), "over^Mwrite");
        assert_eq!(inert("nul\0byte"), "nul^@byte");
        assert_eq!(inert("del\u{7f}"), "del^?");
        assert_eq!(inert("a\tb"), "a^Ib");
        assert_eq!(inert("line\nbreak"), "line^Jbreak");
        assert_eq!(inert("\u{1f}"), "^_");
    }

    #[test]
    fn osc_52_clipboard_write_is_inert() {
        assert_eq!(
            inert("\u{1b}]52;c;cm0gLXJmIC8K\u{7}"),
            "^[]52;c;cm0gLXJmIC8K^G"
        );
    }

    #[test]
    fn eight_bit_csi_is_escaped() {
        assert_eq!(inert("\u{9b}2J"), "\\u{9b}2J");
        assert_eq!(inert("\u{80}\u{9f}"), "\\u{80}\\u{9f}");
    }

    #[test]
    fn bidi_override_is_escaped() {
        assert_eq!(inert("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(inert("\u{2066}x\u{2069}"), "\\u{2066}x\\u{2069}");
        assert_eq!(inert("\u{200f}\u{61c}"), "\\u{200f}\\u{61c}");
    }

    #[test]
    fn invisible_characters_are_escaped() {
        assert_eq!(inert("job\u{200b}42"), "job\\u{200b}42");
        assert_eq!(inert("\u{feff}{}"), "\\u{feff}{}");
        assert_eq!(inert("soft\u{ad}hyphen"), "soft\\u{ad}hyphen");
        assert_eq!(inert("a\u{2028}b\u{2029}"), "a\\u{2028}b\\u{2029}");
        assert_eq!(inert("tag\u{e0041}"), "tag\\u{e0041}");
    }

    #[test]
    fn invalid_utf8_bytes_become_hex() {
        assert_eq!(inert_bytes(b"ok"), "ok");
        assert_eq!(inert_bytes(b"a\xffb"), "a\\xffb");
        assert_eq!(inert_bytes(b"\xc3("), "\\xc3(");
        assert_eq!(inert_bytes(b"\x1b[31m\xfe\xed"), "^[[31m\\xfe\\xed");
        assert_eq!(inert_bytes("é\u{202e}".as_bytes()), "é\\u{202e}");
        assert_eq!(inert_bytes(b""), "");
    }

    /// The dangerous classes, written out again from the module's contract.
    fn in_dangerous_class(c: char) -> bool {
        let code = u32::from(c);
        code <= 0x1f
            || code == 0x7f
            || (0x80..=0x9f).contains(&code)
            || (0x202a..=0x202e).contains(&code)
            || (0x2066..=0x2069).contains(&code)
            || [0x200e, 0x200f, 0x061c].contains(&code)
            || (0x200b..=0x200d).contains(&code)
            || [0x2060, 0xfeff, 0x00ad, 0x2028, 0x2029].contains(&code)
    }

    #[test]
    fn no_char_survives_in_a_dangerous_class() {
        let all: Vec<char> = (0..=0x0010_ffff_u32).filter_map(char::from_u32).collect();
        assert_eq!(all.len(), 0x0011_0000 - 0x800, "surrogates are not chars");
        for block in all.chunks(4096) {
            let text: String = block.iter().collect();
            let out = inert(&text);
            if let Some(bad) = out.chars().find(|&c| in_dangerous_class(c)) {
                panic!("U+{:04X} survived", u32::from(bad));
            }
        }
        for &c in &all {
            let mut one = [0; 4];
            let one = c.encode_utf8(&mut one);
            let out = inert(one);
            assert!(!out.chars().any(in_dangerous_class));
            if in_dangerous_class(c) {
                assert!(out.is_ascii(), "U+{:04X} -> {out:?}", u32::from(c));
            }
        }
    }
}
