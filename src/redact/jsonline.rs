//! A journal line as the Redactor sees it: the string and number tokens of
//! one JSON object, each with the key it sits under and the `type` of the
//! object around it. Replacements are made in the line's own bytes, so an
//! unchanged line stays byte-identical and a changed one changes only where
//! a secret was.
//!
//! The line has been validated as JSON before it gets here; this walker
//! still never indexes past the end, whatever it is given.

use super::triggers::{Hit, Triggers};

/// A string token: `start..end` is the text between the quotes, raw.
#[derive(Debug, Clone, Copy)]
pub struct Str {
    pub start: usize,
    pub end: usize,
    /// Contains a backslash escape: decode before reading.
    pub escaped: bool,
    pub is_key: bool,
    /// For a value: the key token it sits under (directly or in an array).
    pub key: Option<usize>,
    /// The object or array it sits in.
    pub container: usize,
}

/// A number token under a key.
#[derive(Debug, Clone, Copy)]
pub struct Num {
    pub start: usize,
    pub end: usize,
    pub key: Option<usize>,
}

#[derive(Debug, Clone, Copy)]
pub struct Container {
    pub is_object: bool,
    /// The key this container is the value of (inherited by array items).
    pub key: Option<usize>,
    /// The string token of this object's `type` value.
    pub type_value: Option<usize>,
}

#[derive(Debug, Default)]
pub struct Tokens {
    pub strings: Vec<Str>,
    pub numbers: Vec<Num>,
    pub containers: Vec<Container>,
    /// The value span of a top-level `redacted` key, if there is one.
    pub top_redacted: Option<(usize, usize)>,
}

/// Index of the next `"` or `\` from `i` (memchr2: SIMD), or the end.
fn next_quote_or_escape(b: &[u8], i: usize) -> usize {
    b.get(i..).and_then(crate::bytes::find_quote_or_backslash).map_or(b.len(), |k| i + k)
}

pub fn tokenize(line: &str) -> Tokens {
    let b = line.as_bytes();
    let mut t = Tokens::default();
    // (container index, the key token waiting for its value)
    let mut stack: Vec<(usize, Option<usize>)> = Vec::new();
    let mut expect_key = false;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'{' | b'[' => {
                let key = match stack.last() {
                    Some(&(c, pending)) if t.containers[c].is_object => pending,
                    Some(&(c, _)) => t.containers[c].key,
                    None => None,
                };
                t.containers.push(Container { is_object: b[i] == b'{', key, type_value: None });
                stack.push((t.containers.len() - 1, None));
                expect_key = b[i] == b'{';
                i += 1;
            }
            b'}' | b']' => {
                stack.pop();
                expect_key = false;
                i += 1;
            }
            b',' => {
                expect_key = stack.last().is_some_and(|&(c, _)| t.containers[c].is_object);
                i += 1;
            }
            b'"' => {
                let start = i + 1;
                let mut j = start;
                let mut escaped = false;
                loop {
                    j = next_quote_or_escape(b, j);
                    if j < b.len() && b[j] == b'\\' {
                        escaped = true;
                        j += 2;
                        continue;
                    }
                    break;
                }
                let end = j.min(b.len());
                let Some(&(container, pending)) = stack.last() else { break };
                let in_object = t.containers[container].is_object;
                let key = if in_object { pending } else { t.containers[container].key };
                let index = t.strings.len();
                t.strings.push(Str {
                    start,
                    end,
                    escaped,
                    is_key: expect_key,
                    key: if expect_key { None } else { key },
                    container,
                });
                if expect_key {
                    if let Some(top) = stack.last_mut() {
                        top.1 = Some(index);
                    }
                    expect_key = false;
                } else if in_object {
                    if let Some(k) = pending {
                        let key_text = &b[t.strings[k].start..t.strings[k].end];
                        if key_text == b"type" {
                            t.containers[container].type_value = Some(index);
                        }
                        if key_text == b"redacted" && stack.len() == 1 {
                            t.top_redacted = Some((start - 1, end + 1));
                        }
                    }
                }
                i = end + 1;
            }
            b'-' | b'0'..=b'9' | b't' | b'f' | b'n' => {
                let start = i;
                while i < b.len() && !matches!(b[i], b',' | b'}' | b']' | b' ' | b'\t' | b'\r' | b'\n') {
                    i += 1;
                }
                if let Some(&(container, pending)) = stack.last() {
                    let in_object = t.containers[container].is_object;
                    let key = if in_object { pending } else { t.containers[container].key };
                    if in_object
                        && stack.len() == 1
                        && pending.is_some_and(|k| &b[t.strings[k].start..t.strings[k].end] == b"redacted")
                    {
                        t.top_redacted = Some((start, i));
                    }
                    if b[start] != b't' && b[start] != b'f' && b[start] != b'n' {
                        t.numbers.push(Num { start, end: i, key });
                    }
                }
            }
            _ => i += 1,
        }
    }
    t
}

impl Tokens {
    /// The raw text of a string token (between its quotes).
    pub fn raw<'a>(&self, line: &'a str, s: &Str) -> &'a str {
        line.get(s.start..s.end).unwrap_or("")
    }
}

/// A decoded string, and where its escapes were, to map spans found in the
/// decoded text back to the line.
pub struct Decoded {
    pub text: String,
    /// One entry per escape: (decoded start, decoded end, raw start, raw
    /// minus decoded offset after it). Sparse: most bytes are not escapes.
    escapes: Vec<(usize, usize, usize, usize)>,
    base: usize,
}

impl Decoded {
    /// The prefilter's hits in the decoded text, in the order `scan` gives
    /// them, from the hits of the raw line (`line_hits`, in order; those of
    /// this string, which ends at `end`, are taken): the text is not
    /// scanned again. A hit whose raw bytes hold no escape is the same
    /// bytes decoded, only moved. A hit that holds an escape's character
    /// (`pw"` from `pw\"`) is looked for around that character only, as
    /// far as the longest literal holding it reaches. None when an escape
    /// is not a two-byte one (a `\u` one's character may be several bytes):
    /// the caller scans the text.
    pub fn hits(&self, line_hits: &[Hit], end: usize, triggers: &Triggers) -> Option<Vec<Hit>> {
        let mut shift = 0;
        for &(start, stop, _, after) in &self.escapes {
            if stop - start != 1 || after != shift + 1 {
                return None;
            }
            shift = after;
        }
        let text = self.text.as_bytes();
        let mut hits = Vec::new();
        let first = line_hits.partition_point(|h| h.pos < self.base);
        // Escapes whose backslash is before the hit.
        let mut k = 0;
        for h in line_hits[first..].iter().take_while(|h| h.pos < end) {
            while self.escapes.get(k).is_some_and(|e| e.2 < h.pos) {
                k += 1;
            }
            let before = k.checked_sub(1).and_then(|i| self.escapes.get(i));
            // Past the string's end (its closing quote), starting on an
            // escape's letter, or holding a backslash: not in the text.
            if h.pos + h.len > end
                || before.is_some_and(|e| e.2 + 2 > h.pos)
                || self.escapes.get(k).is_some_and(|e| e.2 < h.pos + h.len)
            {
                continue;
            }
            hits.push(Hit { pos: h.pos - self.base - before.map_or(0, |e| e.3), ..*h });
        }
        let moved = hits.len();
        for &(at, ..) in &self.escapes {
            let reach = text.get(at).map_or(0, |&c| triggers.longest_with(c));
            if reach == 0 {
                continue;
            }
            let from = at.saturating_sub(reach - 1);
            let window = text.get(from..(at + reach).min(text.len())).unwrap_or_default();
            for h in triggers.scan(window) {
                let h = Hit { pos: from + h.pos, ..h };
                // Two escapes' windows may find the same hit.
                if h.pos <= at && at < h.pos + h.len && !hits[moved..].contains(&h) {
                    hits.push(h);
                }
            }
        }
        if hits.len() > moved {
            // The scan's order: by position, then the longer literal first
            // (`Triggers::new` sorts a prefix's literals so). A moved hit and
            // a found one never have both the same position and length: the
            // found one holds an escape's character, the moved one none.
            super::sort_small(&mut hits, |a, b| a.pos < b.pos || (a.pos == b.pos && a.len >= b.len));
        }
        Some(hits)
    }

    /// The raw offset in the line of decoded offset `at` (a character
    /// boundary: the start of an escape maps to its backslash).
    pub fn raw_offset(&self, at: usize) -> usize {
        let i = self.escapes.partition_point(|e| e.0 <= at);
        match i.checked_sub(1).and_then(|i| self.escapes.get(i)) {
            None => self.base + at,
            Some(&(start, end, raw_start, _)) if at >= start && at < end => raw_start,
            Some(&(start, _, raw_start, _)) if at == start => raw_start,
            Some(&(_, _, _, shift)) => self.base + at + shift,
        }
    }
}

/// Decodes a JSON string's raw inner text that starts at `base` in the line.
pub fn decode(raw: &str, base: usize) -> Decoded {
    let b = raw.as_bytes();
    let mut text = String::with_capacity(b.len());
    let mut escapes = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let run_end = crate::bytes::find_byte(&b[i..], b'\\').map_or(b.len(), |k| i + k);
        text.push_str(raw.get(i..run_end).unwrap_or(""));
        i = run_end;
        if i >= b.len() {
            break;
        }
        let (c, len) = match b.get(i + 1) {
            Some(b'n') => ('\n', 2),
            Some(b't') => ('\t', 2),
            Some(b'r') => ('\r', 2),
            Some(b'b') => ('\u{8}', 2),
            Some(b'f') => ('\u{c}', 2),
            Some(b'u') => unicode_escape(b, i),
            Some(&other) if other.is_ascii() => (char::from(other), 2),
            // A malformed escape (the line was validated, so never): skip it.
            _ => ('\u{fffd}', 1),
        };
        let start = text.len();
        text.push(c);
        // Stay on a character boundary of `raw`.
        let mut next = i + len;
        while next < b.len() && !raw.is_char_boundary(next) {
            next += 1;
        }
        escapes.push((start, text.len(), base + i, next - text.len()));
        i = next;
    }
    Decoded { text, escapes, base }
}

fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let digits = std::str::from_utf8(b.get(at..at + 4)?).ok()?;
    u32::from_str_radix(digits, 16).ok()
}

/// `\uXXXX`, with a surrogate pair when one follows.
fn unicode_escape(b: &[u8], i: usize) -> (char, usize) {
    let Some(hi) = hex4(b, i + 2) else { return ('\u{fffd}', 2) };
    if (0xD800..0xDC00).contains(&hi) && b.get(i + 6) == Some(&b'\\') && b.get(i + 7) == Some(&b'u') {
        if let Some(lo) = hex4(b, i + 8).filter(|lo| (0xDC00..0xE000).contains(lo)) {
            let c = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
            return (char::from_u32(c).unwrap_or('\u{fffd}'), 12);
        }
    }
    (char::from_u32(hi).unwrap_or('\u{fffd}'), 6)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_know_their_keys_and_types() {
        let line = r#"{"type":"x","a":[{"type":"thinking","signature":"s1","n":12}],"password":"p\"w","redacted":false}"#;
        let t = tokenize(line);
        let text = |s: &Str| &line[s.start..s.end];
        let sig = t.strings.iter().find(|s| text(s) == "s1").expect("sig");
        let key = &t.strings[sig.key.expect("key")];
        assert_eq!(text(key), "signature");
        let obj = t.containers[sig.container];
        assert_eq!(obj.type_value.map(|v| text(&t.strings[v])), Some("thinking"));
        let pw = t.strings.iter().find(|s| text(s) == r#"p\"w"#).expect("pw");
        assert!(pw.escaped);
        assert_eq!(t.numbers.len(), 1);
        assert_eq!(t.top_redacted.map(|(s, e)| &line[s..e]), Some("false"));
    }

    #[test]
    fn decode_maps_back_to_raw_offsets() {
        let raw = r#"a\nb\u00e9\ud83d\ude00cd"#;
        let d = decode(raw, 10);
        assert_eq!(d.text, "a\nbé😀cd");
        assert_eq!(d.raw_offset(0), 10);
        assert_eq!(d.raw_offset(1), 11); // the \n escape
        assert_eq!(d.raw_offset(2), 13); // b
        assert_eq!(d.raw_offset(3), 14); // \u00e9
        assert_eq!(d.raw_offset(5), 20); // the surrogate pair
        assert_eq!(d.raw_offset(9), 10 + raw.len() - 2); // c
        assert_eq!(d.raw_offset(d.text.len()), 10 + raw.len());
    }
}
