//! Whether a text is exactly one JSON value: the Redactor asks it of every
//! journal line (a record is redacted as JSON, anything else as free text).
//! It accepts what `serde_json::from_str::<IgnoredAny>` accepts, which is
//! what was asked before, byte for byte: the grammar of RFC 8259, strings
//! without raw control characters, any `\u` escape of four hex digits
//! (lone surrogates too: nothing is decoded), any nesting depth (serde's
//! `ignore_value` keeps its own stack), and white space as JSON's four
//! bytes only. The test `agrees_with_serde_json` holds it to that.
//!
//! Why not serde_json: its skip of a string's plain run tests 8 bytes a
//! step (a u64 SWAR), and strings are most of a journal line; here a run
//! is tested 16 bytes a step with wasm SIMD (json_str's scan, which the
//! string writers share). Validating was 16% of redacting a journal line
//! by line (profile of the named wasm). It imports only that scan, from a
//! leaf module.

#![forbid(unsafe_code)]

use crate::json_str::{plain_run_end, stop_mask};

/// Whether `text` (UTF-8 already: a `&str`'s bytes) is one JSON value with
/// only white space around it.
pub fn is_json(text: &[u8]) -> bool {
    value_ends(text).is_some()
}

/// Whether `text` is a JSON object with only white space around it.
pub fn is_json_object(text: &[u8]) -> bool {
    text.get(skip_ws(text, 0)) == Some(&b'{') && is_json(text)
}

pub(crate) fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\n' | b'\t' | b'\r') = b.get(i) {
        i += 1;
    }
    i
}

/// Some when the one value of `b` is the whole text, white space aside.
fn value_ends(b: &[u8]) -> Option<()> {
    let end = value_end(b, skip_ws(b, 0))?;
    (skip_ws(b, end) == b.len()).then_some(())
}

/// Where the one JSON value that starts at `i` ends, when it is valid: a
/// walk with a stack of open brackets (no recursion, so no depth limit and
/// no stack to overflow). The record reader takes a line's fields from
/// the spans this validates (record_walk.rs).
pub(crate) fn value_end(b: &[u8], i: usize) -> Option<usize> {
    value_end_within(b, i, usize::MAX)
}

/// `value_end` of a value that nests at most `limit` brackets deep: None
/// for one deeper.
pub(crate) fn value_end_within(b: &[u8], mut i: usize, limit: usize) -> Option<usize> {
    let mut open = Open::default();
    loop {
        // A value starts at `i`.
        match *b.get(i)? {
            b'{' => {
                // One level deeper than the brackets open, empty or not.
                (open.len < limit).then_some(())?;
                i = skip_ws(b, i + 1);
                if b.get(i) == Some(&b'}') {
                    i += 1;
                } else {
                    open.push(b'{');
                    i = member_value(b, i)?;
                    continue;
                }
            }
            b'[' => {
                // One level deeper than the brackets open, empty or not.
                (open.len < limit).then_some(())?;
                i = skip_ws(b, i + 1);
                if b.get(i) == Some(&b']') {
                    i += 1;
                } else {
                    open.push(b'[');
                    continue;
                }
            }
            b'"' => i = string_ends(b, i + 1)?,
            b't' => i = literal(b, i, b"true")?,
            b'f' => i = literal(b, i, b"false")?,
            b'n' => i = literal(b, i, b"null")?,
            b'-' | b'0'..=b'9' => i = number_ends(b, i)?,
            _ => return None,
        }
        // A value ended at `i`: close brackets until one takes another value.
        loop {
            let Some(&frame) = open.last() else {
                return Some(i);
            };
            i = skip_ws(b, i);
            match (b.get(i), frame) {
                (Some(b','), b'{') => {
                    i = member_value(b, skip_ws(b, i + 1))?;
                    break;
                }
                (Some(b','), _) => {
                    i = skip_ws(b, i + 1);
                    break;
                }
                (Some(b'}'), b'{') | (Some(b']'), b'[') => {
                    open.pop();
                    i += 1;
                }
                _ => return None,
            }
        }
    }
}

/// The open brackets of a walk: the first 32 in place (a journal line
/// nests a few deep), any deeper on the heap, so most walks allocate nothing.
#[derive(Default)]
struct Open {
    near: [u8; 32],
    len: usize,
    far: Vec<u8>,
}

impl Open {
    fn push(&mut self, bracket: u8) {
        match self.near.get_mut(self.len) {
            Some(slot) => *slot = bracket,
            None => self.far.push(bracket),
        }
        self.len += 1;
    }

    fn pop(&mut self) {
        if self.len > self.near.len() {
            self.far.pop();
        }
        self.len = self.len.saturating_sub(1);
    }

    fn last(&self) -> Option<&u8> {
        match self.len.checked_sub(1)? {
            top if top < self.near.len() => self.near.get(top),
            _ => self.far.last(),
        }
    }
}

/// `"key" :` at `i`; returns where the member's value starts.
fn member_value(b: &[u8], i: usize) -> Option<usize> {
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let i = skip_ws(b, string_ends(b, i + 1)?);
    (b.get(i) == Some(&b':')).then(|| skip_ws(b, i + 1))
}

fn literal(b: &[u8], i: usize, word: &[u8]) -> Option<usize> {
    (b.get(i..i + word.len()) == Some(word)).then_some(i + word.len())
}

fn digits_end(b: &[u8], mut i: usize) -> usize {
    while let Some(b'0'..=b'9') = b.get(i) {
        i += 1;
    }
    i
}

/// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?` at `i`.
fn number_ends(b: &[u8], mut i: usize) -> Option<usize> {
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    match b.get(i)? {
        b'0' => i += 1,
        b'1'..=b'9' => i = digits_end(b, i + 1),
        _ => return None,
    }
    if b.get(i) == Some(&b'.') {
        let end = digits_end(b, i + 1);
        if end == i + 1 {
            return None;
        }
        i = end;
    }
    if let Some(b'e' | b'E') = b.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = b.get(i) {
            i += 1;
        }
        let end = digits_end(b, i);
        if end == i {
            return None;
        }
        i = end;
    }
    Some(i)
}

/// Past the closing quote of the string whose contents start at `i`.
///
/// Sixteen bytes a step, and every stop inside a step is taken from the
/// step's one mask: an escape that ends inside the step does not end it.
/// A journal's text has a stop every 24 bytes or so (`\n`, `\"`), and
/// going back to the scan after each one cost more than serde_json's
/// 8-byte steps (a profile of replaying 100 MB: 48 ms in strings against
/// its 41; 27 ms with the mask).
pub(crate) fn string_ends(b: &[u8], mut i: usize) -> Option<usize> {
    while let Some(block) = b.get(i..i + 16).and_then(|s| <&[u8; 16]>::try_from(s).ok()) {
        let mut mask = stop_mask(block);
        let mut next = i + 16;
        while mask != 0 {
            let at = i + mask.trailing_zeros() as usize;
            match *block.get(at - i)? {
                b'"' => return Some(at + 1),
                b'\\' => {
                    let after = escape_end(b, at)?;
                    if after >= next {
                        next = after;
                        break;
                    }
                    mask &= !0u32 << (after - i);
                }
                _ => return None, // a raw control character
            }
        }
        i = next;
    }
    // The last few bytes.
    loop {
        i = plain_run_end(b, i);
        match *b.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => i = escape_end(b, i)?,
            // A raw control character.
            _ => return None,
        }
    }
}

/// Past the escape whose backslash is at `i`, when it is one of JSON's.
#[inline(always)]
fn escape_end(b: &[u8], i: usize) -> Option<usize> {
    match *b.get(i + 1)? {
        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => Some(i + 2),
        b'u' if b.get(i + 2..i + 6)?.iter().all(u8::is_ascii_hexdigit) => Some(i + 6),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::de::IgnoredAny;

    fn serde_says(text: &str) -> bool {
        serde_json::from_str::<IgnoredAny>(text).is_ok()
    }

    #[rustfmt::skip]
    const CASES: &[&str] = &[
        "{}", "[]", "{\"a\":1}", " {\"a\" : [1, 2.5, -0, 1e9, 1E+2, 2e-3, true, false, null]} \n", "\"s\"", "0", "-0.0",
        "1.", ".5", "01", "-", "--1", "1e", "1e+", "+1", "{,}", "[,]", "[1,]", "{\"a\":1,}", "{\"a\"}", "{\"a\":}",
        "{a:1}", "[1 2]", "{\"a\":1 \"b\":2}", "{} {}", "{}x", "tru", "true1", "nul", "[true false]", "\"\\u12\"",
        "\"\\u12G4\"", "\"\\uD800\"", "\"\\x\"", "\"\\\"", "\"a\u{1}b\"", "\"a\tb\"", "\"é ✓ 😀\"", "\u{a0}{}", "{}\u{a0}",
        "\u{c}{}", "", " ", "[", "]", "{\"a\":[{\"b\":[[[]]]}]}", "[[[]]", "[]]", "{\"a\":{\"b\":1}}}", "\"unterminated",
        "\"0123456789abcdef0123456789abcdef\\n0123456789abcdef\"", "[1,[2,[3]],{\"x\":\"\\\"\"}]", "{\"\":\"\"}", "1.5e",
    ];

    #[test]
    fn agrees_with_serde_json() {
        for case in CASES {
            assert_eq!(is_json(case.as_bytes()), serde_says(case), "{case:?}");
        }
        // Deep nesting: serde_json's `ignore_value` has no depth limit.
        let deep = format!("{}{}", "[".repeat(5000), "]".repeat(5000));
        assert!(is_json(deep.as_bytes()) && serde_says(&deep));
        // Every cut and every one-byte change of some lines, the stop bytes
        // at every place of a 16-byte step.
        let mut texts: Vec<String> = Vec::new();
        for pad in 0..20 {
            let run = "x".repeat(pad);
            texts.push(format!("{{\"k{run}\":\"{run}\\\"{run}\",\"n\":[-1.5e+3,0,{{}}],\"t\":true}}"));
            texts.push(format!("[\"{run}\\u00e9{run}\", null, \"{run}\\/\"]"));
        }
        let swaps =
            [b'"', b'\\', b'\x01', b'\x1f', b' ', b'}', b']', b',', b':', b'0', b'e', b'.', b'-', b'u', b'x'];
        for text in &texts {
            for cut in 0..=text.len() {
                let t = &text[..cut];
                assert_eq!(is_json(t.as_bytes()), serde_says(t), "{t:?}");
            }
            for at in 0..text.len() {
                for &c in &swaps {
                    let mut bytes = text.clone().into_bytes();
                    bytes[at] = c;
                    let t = String::from_utf8(bytes).unwrap();
                    assert_eq!(is_json(t.as_bytes()), serde_says(&t), "{t:?}");
                }
            }
        }
    }

    #[test]
    fn objects_only() {
        assert!(is_json_object(b" {\"a\":1}"));
        assert!(!is_json_object(b"[1]"));
        assert!(!is_json_object(b"\"{}\""));
        assert!(!is_json_object(b"{"));
    }
}
