//! JSON string literals: the writers' (`record`, `json`, the transcript)
//! and the scan of a string's plain run that the writers and json_check's
//! validator share. A leaf module: it imports nothing of the crate.
//!
//! Escaped exactly as serde_json escapes (the test `escapes_as_serde_json`
//! holds it to that), but the runs between escapes are found 16 bytes a
//! step where serde_json looks up every byte in a table: writing a 1 GB
//! journal's transcript entries spent 280 ms there.
//!
//! Its one `unsafe` is the SIMD load (see `simd`); the rest may have none.

#![deny(unsafe_code)]

/// `s` as a JSON string literal.
pub fn str_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_str_literal(&mut out, s);
    out
}

/// Appends `s` as a JSON string literal.
pub fn push_str_literal(out: &mut String, s: &str) {
    push_literal(out, s, false);
}

/// Appends `s` as a JSON string literal in ASCII: every character past
/// U+007F as `\uXXXX` (two for one past U+FFFF, as JSON spells them). The
/// same value to a JSON reader; a browser decodes ASCII bytes to a one-byte
/// string, which V8 parses faster and keeps in half the memory (the
/// transcript index of a 1 GB journal: 220 MB of JSON a viewer's page
/// decodes and parses while the worker reads).
pub fn push_ascii_literal(out: &mut String, s: &str) {
    push_literal(out, s, true);
}

fn push_literal(out: &mut String, s: &str, ascii: bool) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let hex4 = |out: &mut String, u: u16| {
        out.push_str("\\u");
        for shift in [12, 8, 4, 0] {
            out.push(char::from(HEX[usize::from(u >> shift & 15)]));
        }
    };
    out.reserve(s.len() + 2);
    out.push('"');
    let b = s.as_bytes();
    let mut start = 0;
    loop {
        // The run ends at a character's first byte (or the end).
        let end = run_end(b, start, ascii);
        out.push_str(s.get(start..end).unwrap_or_default());
        let Some(&c) = b.get(end) else { break };
        start = end + 1;
        match c {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            0..0x20 => hex4(out, c.into()),
            _ => {
                // Past U+007F (only in ASCII mode): the whole character.
                let Some(ch) = s.get(end..).and_then(|t| t.chars().next()) else { break };
                for unit in ch.encode_utf16(&mut [0; 2]) {
                    hex4(out, *unit);
                }
                start = end + ch.len_utf8();
            }
        }
    }
    out.push('"');
}

/// The first `limit` characters of the JSON string literal that `literal`
/// starts with, decoded: a preview of a 50 KB tool result reads the bytes
/// of its first characters, not the whole string (serde_json decodes all of
/// it, and took a sixth of building a 1 GB journal's transcript entries).
/// None where serde_json would refuse what it read (a lone-surrogate or bad
/// escape, a raw control character), so a caller can ask serde_json for its
/// answer. Past the limit nothing is read: a text that is not JSON there
/// (no closing quote) gives its start, where serde_json refuses the whole;
/// the callers' text is JSON the journal checked.
pub fn decode_prefix(literal: &str, limit: usize) -> Option<String> {
    let mut out = String::new();
    decode_prefix_into(&mut out, literal, limit)?;
    Some(out)
}

/// `decode_prefix` appended to `out` (a buffer its caller reuses). On None
/// `out` holds part of the text: the caller cuts it back.
pub fn decode_prefix_into(out: &mut String, literal: &str, limit: usize) -> Option<()> {
    let b = literal.as_bytes();
    if b.first() != Some(&b'"') {
        return None;
    }
    // `\uXXXX`'s four hex digits at `at`.
    let hex = |at: usize| {
        let digits = b.get(at..at + 4)?;
        digits.iter().try_fold(0u32, |n, &d| Some(n << 4 | char::from(d).to_digit(16)?))
    };
    let (mut i, mut left) = (1, limit);
    while left > 0 {
        // An ASCII run: a byte a character.
        let end = run_end(b, i, true).min(i + left);
        out.push_str(literal.get(i..end)?);
        left -= end - i;
        i = end;
        if left == 0 {
            break;
        }
        let (c, len) = match *b.get(i)? {
            b'"' => return Some(()),
            b'\\' => match *b.get(i + 1)? {
                b'"' => ('"', 2),
                b'\\' => ('\\', 2),
                b'/' => ('/', 2),
                b'b' => ('\u{8}', 2),
                b'f' => ('\u{c}', 2),
                b'n' => ('\n', 2),
                b'r' => ('\r', 2),
                b't' => ('\t', 2),
                b'u' => match hex(i + 2)? {
                    // A surrogate pair (a lone half is None: from_u32 refuses it).
                    high @ 0xD800..0xDC00 if b.get(i + 6..i + 8) == Some(b"\\u") => {
                        let low = hex(i + 8).filter(|l| (0xDC00..0xE000).contains(l))?;
                        (char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))?, 12)
                    }
                    unit => (char::from_u32(unit)?, 6),
                },
                _ => return None,
            },
            0..0x20 => return None,
            _ => {
                let c = literal.get(i..)?.chars().next()?;
                (c, c.len_utf8())
            }
        };
        out.push(c);
        i += len;
        left -= 1;
    }
    Some(())
}

/// Whether a byte ends a string's plain run: `"`, `\` or a control
/// character; in ASCII mode also a byte past 0x7F.
#[inline]
fn stops(c: u8, ascii: bool) -> bool {
    c < 0x20 || c == b'"' || c == b'\\' || ascii && c >= 0x80
}

/// The first index from `i` whose byte ends a plain run (or `b.len()`):
/// 16 bytes a step with wasm SIMD (the module's build), else 8 as a u64.
pub(crate) fn plain_run_end(b: &[u8], i: usize) -> usize {
    run_end(b, i, false)
}

/// The first index from `i` whose byte ends a plain run, or (`ascii`) is
/// past 0x7F.
fn run_end(b: &[u8], i: usize, ascii: bool) -> usize {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    let i = simd::run_end(b, i, ascii);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    let i = swar_run_end(b, i, ascii);
    bytewise_run_end(b, i, ascii)
}

/// Which of 16 bytes end a plain run (`"`, `\\`, a control byte): bit k
/// for byte k. For a scan that handles every stop of a step from one load
/// (json_check's strings, where a stop comes every 24 bytes or so).
pub(crate) fn stop_mask(block: &[u8; 16]) -> u32 {
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    return simd::stop_mask(block);
    #[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
    block.iter().enumerate().filter(|(_, &c)| stops(c, false)).fold(0, |m, (k, _)| m | 1 << k)
}

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[allow(unsafe_code)]
mod simd {
    use core::arch::wasm32::{u8x16_bitmask, u8x16_eq, u8x16_lt, u8x16_splat, v128, v128_load, v128_or};

    /// The stop bytes of one 16-byte block as a bitmask (`stop_mask`).
    pub fn stop_mask(c: &[u8; 16]) -> u32 {
        // SAFETY: as in `run_end`: 16 readable bytes, an unaligned load.
        let v = unsafe { v128_load(c.as_ptr().cast::<v128>()) };
        let stops = v128_or(
            u8x16_lt(v, u8x16_splat(0x20)),
            v128_or(u8x16_eq(v, u8x16_splat(b'"')), u8x16_eq(v, u8x16_splat(b'\\'))),
        );
        u32::from(u8x16_bitmask(stops))
    }

    /// Sixteen bytes a step: one load, three compares, two ORs and a
    /// bitmask. Returns where the steps stop: at the stop byte, or before a
    /// block of under 16 bytes. (Built with `u8x16(c[0], ..)` from the
    /// block's bytes instead of a load, the compiler made sixteen lane loads.)
    /// In ASCII mode the block's own high bits are stops too.
    pub fn run_end(b: &[u8], mut i: usize, ascii: bool) -> usize {
        while let Some(c) = b.get(i..i + 16).and_then(|s| <&[u8; 16]>::try_from(s).ok()) {
            // SAFETY: `c` is 16 readable bytes, and `v128_load` has no
            // alignment requirement (it is a 1-aligned `v128.load`).
            let v = unsafe { v128_load(c.as_ptr().cast::<v128>()) };
            let stops = v128_or(
                u8x16_lt(v, u8x16_splat(0x20)),
                v128_or(u8x16_eq(v, u8x16_splat(b'"')), u8x16_eq(v, u8x16_splat(b'\\'))),
            );
            let mask = u8x16_bitmask(stops) | if ascii { u8x16_bitmask(v) } else { 0 };
            if mask != 0 {
                return i + mask.trailing_zeros() as usize;
            }
            i += 16;
        }
        i
    }
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
/// Eight bytes a step as one u64 (natively, where SIMD is the compiler's
/// affair; serde_json takes 8 there too): Mycroft's test for a zero byte, on the
/// word XORed with `"` and with `\`, and on the word less 0x20 for the
/// control bytes. A borrow can mark a byte above a real stop, never below
/// one, so the lowest mark is exact. In ASCII mode a byte's own high bit
/// marks it too.
fn swar_run_end(b: &[u8], mut i: usize, ascii: bool) -> usize {
    const ONES: u64 = u64::MAX / 255;
    const HIGH: u64 = ONES << 7;
    while let Some(chunk) = b.get(i..i + 8).and_then(|s| <[u8; 8]>::try_from(s).ok()) {
        let w = u64::from_le_bytes(chunk);
        let quote = w ^ (ONES * u64::from(b'"'));
        let backslash = w ^ (ONES * u64::from(b'\\'));
        let marks = (w.wrapping_sub(ONES * 0x20) & !w
            | quote.wrapping_sub(ONES) & !quote
            | backslash.wrapping_sub(ONES) & !backslash
            | if ascii { w } else { 0 })
            & HIGH;
        if marks != 0 {
            return i + (marks.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i
}

/// The last few bytes, one at a time.
fn bytewise_run_end(b: &[u8], mut i: usize, ascii: bool) -> usize {
    while let Some(&c) = b.get(i) {
        if stops(c, ascii) {
            break;
        }
        i += 1;
    }
    i
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    #[test]
    fn escapes_as_serde_json() {
        let mut texts: Vec<String> = (0u32..0x80).map(|c| char::from_u32(c).unwrap().to_string()).collect();
        texts.extend(
            ["", "plain", "é ✓ 😀 \u{7f}\u{80}\u{2028}", "a\"b\\c\nd\u{1}e\u{1f}f"].map(String::from),
        );
        // Each escape at every place of a 16-byte step, with multi-byte characters around it.
        for pad in 0..40 {
            for stop in ["\"", "\\", "\n", "\u{0}", "\u{1b}"] {
                texts.push(format!("{}{stop}{}é", "x".repeat(pad), "✓".repeat(pad % 7)));
            }
        }
        for t in &texts {
            assert_eq!(str_literal(t), serde_json::to_string(t).unwrap(), "{t:?}");
            let mut ascii = String::new();
            push_ascii_literal(&mut ascii, t);
            assert_eq!(ascii, ascii_oracle(&serde_json::to_string(t).unwrap()), "{t:?}");
        }
    }

    /// serde_json's literal with each character past U+007F spelled as
    /// UTF-16 `\u` escapes, a character at a time.
    pub(crate) fn ascii_oracle(json: &str) -> String {
        json.chars()
            .map(|c| match c {
                ..='\u{7f}' => c.to_string(),
                _ => c.encode_utf16(&mut [0; 2]).iter().map(|u| format!("\\u{u:04x}")).collect(),
            })
            .collect()
    }

    #[test]
    fn ascii_literals_read_back_as_written() {
        // Non-ASCII at every place of a 16-byte step, astral characters
        // (two escapes), and the stop bytes beside them.
        for pad in 0..40 {
            for c in ["é", "✓", "😀", "\u{80}", "\u{ffff}", "\u{10ffff}", "é\"", "😀\n"] {
                let t = format!("{}{c}{}x", "a".repeat(pad), c.repeat(pad % 5));
                let mut out = String::new();
                push_ascii_literal(&mut out, &t);
                assert!(out.is_ascii(), "{out}");
                assert_eq!(serde_json::from_str::<String>(&out).unwrap(), t);
                assert_eq!(out, ascii_oracle(&serde_json::to_string(&t).unwrap()));
            }
        }
    }
}
