//! Putting text on the reviewer's clipboard through the terminal (OSC 52): mouse
//! capture keeps the mouse from selecting text, so `y` and `Y` copy ids this way.
//!
//! The text comes from the ledger, that is from outside. Base64 leaves only
//! `A–Z a–z 0–9 + / =` inside the sequence, so no byte of the id can end it early or
//! start another one; the bytes are copied as they are, never made inert.

/// The sequence that asks the terminal to put `text` on the clipboard:
/// `ESC ] 52 ; c ; <base64 of the bytes> BEL`.
pub fn osc52(text: &str) -> String {
    format!("\x1b]52;c;{}\x07", base64(text.as_bytes()))
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 (RFC 4648, section 4) with padding. Twenty lines here rather than a
/// crate: the console only ever encodes, and only short ids.
pub fn base64(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            chunk.get(1).copied().unwrap_or(0),
            chunk.get(2).copied().unwrap_or(0),
        ];
        let n = u32::from(b[0]) << 16 | u32::from(b[1]) << 8 | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                let sextet = (n >> (18 - 6 * i)) & 0x3f;
                out.push(char::from(ALPHABET[sextet as usize]));
            } else {
                out.push('=');
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_matches_the_rfc_4648_test_vectors() {
        let vectors = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (text, encoded) in vectors {
            assert_eq!(base64(text.as_bytes()), encoded, "{text:?}");
        }
        assert_eq!(base64(&[0xff, 0xfe, 0x1b, 0x07]), "//4bBw==");
    }

    #[test]
    fn osc52_wraps_the_base64_of_the_text() {
        assert_eq!(osc52("booking-1042"), "\x1b]52;c;Ym9va2luZy0xMDQy\x07");
    }
}
