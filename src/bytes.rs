//! Byte-level scans shared by replay and the Redactor. A leaf module: it
//! imports nothing from the crate, so no two modules need each other for it.

#![forbid(unsafe_code)]

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// The bytes of `word` (little-endian) equal to `needle`, as high bits.
#[inline]
fn matches(word: u64, needle: u8) -> u64 {
    let x = word ^ (ONES * u64::from(needle));
    x.wrapping_sub(ONES) & !x & HIGHS
}

/// The bytes of `word` that are `[` or `{`, and maybe a few more: 0x5B and
/// 0x7B differ only in bit 0x20, so one compare of the word with that bit
/// set finds both, and the borrow trick of `matches` may also flag a byte
/// just above a match. Counts made of it are upper bounds, which is all
/// the depth check needs (a count over the limit only means a closer look).
#[inline]
fn openings(word: u64) -> u64 {
    matches(word | (ONES * 0x20), b'{')
}

#[inline]
fn load(chunk: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(chunk);
    u64::from_le_bytes(word)
}

/// The index of the first `needle`. Eight bytes at a time: on wasm32 the
/// standard library's memchr works in 32-bit words, and finding line ends
/// is a tenth of replay's time.
pub fn find_byte(bytes: &[u8], needle: u8) -> Option<usize> {
    let mut chunks = bytes.chunks_exact(8);
    let mut offset = 0;
    for chunk in &mut chunks {
        let found = matches(load(chunk), needle);
        if found != 0 {
            return Some(offset + (found.trailing_zeros() / 8) as usize);
        }
        offset += 8;
    }
    chunks.remainder().iter().position(|&b| b == needle).map(|i| offset + i)
}

/// How many bytes equal `needle`, exactly (not `matches`, whose borrow can
/// flag a byte just above a match: fine for a search, wrong for a count).
/// Eight bytes a step: tool outputs of megabytes are counted line by line.
pub fn count_byte(bytes: &[u8], needle: u8) -> usize {
    const LOWS: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    let mut chunks = bytes.chunks_exact(8);
    let mut count = 0usize;
    for chunk in &mut chunks {
        let x = load(chunk) ^ (ONES * u64::from(needle));
        // A byte's high bit is set here exactly when the byte of x is zero.
        let zero = !(((x & LOWS).wrapping_add(LOWS)) | x) & HIGHS;
        count += zero.count_ones() as usize;
    }
    count + chunks.remainder().iter().filter(|&&b| b == needle).count()
}

/// The index of the first `"` or `\` (the end of a JSON string's plain run).
fn find_quote_or_backslash(bytes: &[u8]) -> Option<usize> {
    let mut chunks = bytes.chunks_exact(8);
    let mut offset = 0;
    for chunk in &mut chunks {
        let word = load(chunk);
        let found = matches(word, b'"') | matches(word, b'\\');
        if found != 0 {
            return Some(offset + (found.trailing_zeros() / 8) as usize);
        }
        offset += 8;
    }
    chunks.remainder().iter().position(|&b| b == b'"' || b == b'\\').map(|i| offset + i)
}

/// The index of the first `\n`, and an upper bound of the `[` and `{`
/// bytes before it: replay's line search counts, in the same words, what
/// tells whether a line could nest deep at all.
pub fn find_newline_counting(bytes: &[u8]) -> (Option<usize>, usize) {
    let mut count = 0usize;
    let mut chunks = bytes.chunks_exact(8);
    let mut offset = 0;
    for chunk in &mut chunks {
        let word = load(chunk);
        let newline = matches(word, b'\n');
        let open = openings(word);
        if newline != 0 {
            // Only the openings in the bytes below the newline's.
            let below = (newline & newline.wrapping_neg()) - 1;
            count += (open & below).count_ones() as usize;
            return (Some(offset + (newline.trailing_zeros() / 8) as usize), count);
        }
        count += open.count_ones() as usize;
        offset += 8;
    }
    for (i, &b) in chunks.remainder().iter().enumerate() {
        if b == b'\n' {
            return (Some(offset + i), count);
        }
        count += usize::from(b == b'[' || b == b'{');
    }
    (None, count)
}

/// At least how many `[` and `{` bytes `bytes` holds (an upper bound, see
/// `openings`), counting no further than `stop` (eight bytes a step).
pub fn count_openings(bytes: &[u8], stop: usize) -> usize {
    let mut count = 0usize;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        let word = load(chunk);
        count += openings(word).count_ones() as usize;
        if count > stop {
            return count;
        }
    }
    count + chunks.remainder().iter().filter(|&&b| b == b'[' || b == b'{').count()
}

/// Whether the JSON text `json` (already known to be valid) nests arrays
/// and objects more than `limit` deep. Nesting that deep needs more than
/// `limit` opening brackets, so a count (eight bytes a step) settles almost
/// every message; only the rest are walked, skipping strings eight bytes at
/// a time, since brackets inside strings do not count.
pub fn nests_deeper_than(json: &[u8], limit: usize) -> bool {
    if count_openings(json, limit) <= limit {
        return false;
    }
    let mut depth = 0usize;
    let mut i = 0;
    while i < json.len() {
        match json[i] {
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
                i += 1;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'"' => {
                // To the closing quote, stepping over escapes.
                i += 1;
                loop {
                    match find_quote_or_backslash(&json[i..]) {
                        Some(k) if json[i + k] == b'\\' => i += k + 2,
                        Some(k) => {
                            i += k + 1;
                            break;
                        }
                        None => return false,
                    }
                    if i >= json.len() {
                        return false;
                    }
                }
            }
            _ => i += 1,
        }
    }
    false
}

/// `needle` (already lowercase) in `hay`, ignoring ASCII case.
pub fn contains_ignoring_case(hay: &[u8], needle: &[u8]) -> bool {
    let Some((&first, rest)) = needle.split_first() else { return true };
    let upper = first.to_ascii_uppercase();
    let mut i = 0;
    while i + needle.len() <= hay.len() {
        let c = hay[i];
        if (c == first || c == upper) && hay[i + 1..i + needle.len()].eq_ignore_ascii_case(rest) {
            return true;
        }
        i += 1;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn count_byte_is_exact_even_beside_a_match() {
        // 0x0B right after 0x0A is where a borrow-based search misflags.
        let cases: [&[u8]; 5] =
            [b"", b"\n", b"a\n\x0b\n\n\x0b\x0bzzzzzzzzzz\n", &[10; 17], &[11, 10, 11, 10, 0, 255, 10, 9, 10]];
        for bytes in cases {
            for start in 0..bytes.len().min(8) {
                let b = &bytes[start..];
                assert_eq!(count_byte(b, b'\n'), b.iter().filter(|&&c| c == b'\n').count(), "{b:?}");
            }
        }
    }

    #[test]
    fn find_byte_agrees_with_position() {
        let text: Vec<u8> = (0..200u32)
            .map(|i| if i % 37 == 5 || i % 53 == 0 { b'\n' } else { (i % 250) as u8 + 11 })
            .collect();
        for start in 0..text.len() {
            for end in start..text.len().min(start + 40) {
                let slice = &text[start..end];
                assert_eq!(find_byte(slice, b'\n'), slice.iter().position(|&b| b == b'\n'));
                assert_eq!(
                    find_quote_or_backslash(slice),
                    slice.iter().position(|&b| b == b'"' || b == b'\\')
                );
            }
        }
        assert_eq!(find_byte(b"\xff\x8a\n", b'\n'), Some(2));
        assert_eq!(find_byte(b"\x0b\x0b\x0b\x0b\x0b\x0b\x0b\x0b\n", b'\n'), Some(8));
    }

    /// The depth by the obvious definition: serde_json's own parse, which
    /// refuses more than 128 levels.
    fn depth(json: &str) -> usize {
        fn of(v: &serde_json::Value) -> usize {
            match v {
                serde_json::Value::Array(a) => 1 + a.iter().map(of).max().unwrap_or(0),
                serde_json::Value::Object(o) => 1 + o.values().map(of).max().unwrap_or(0),
                _ => 0,
            }
        }
        of(&serde_json::from_str(json).unwrap())
    }

    #[test]
    fn nesting_depth_skips_strings_and_escapes() {
        let cases = [
            r#"{"a":"[[[[[[","b":[1,{"c":"\"]]]]\\"}]}"#,
            r#"[[[[]]],{"x":[[{"y":"\\\\[["}]]}]"#,
            r#""no [ nesting { here""#,
            r#"{"role":"user","content":[{"type":"text","text":"a \" quote and a ] bracket"}]}"#,
            "[]",
            "7",
        ];
        for json in cases {
            let d = depth(json);
            for limit in 0..8 {
                assert_eq!(nests_deeper_than(json.as_bytes(), limit), d > limit, "{json} at {limit}");
            }
        }
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(nests_deeper_than(deep.as_bytes(), 100));
        let wide = format!("[{}]", vec!["[[1]]"; 10_000].join(","));
        let quoted = format!("{{\"a\":\"{}\"}}", "[".repeat(500));
        assert!(!nests_deeper_than(quoted.as_bytes(), 3), "brackets in a string do not count");
        for n in [0, 7, 8, 9, 100, 101] {
            let text = format!("{}{}", "[".repeat(n), "]".repeat(n));
            assert_eq!(count_openings(text.as_bytes(), usize::MAX), n);
            let spaced = format!("{}{}", "[z{z".repeat(n / 2), "[".repeat(n % 2));
            assert!(count_openings(spaced.as_bytes(), usize::MAX) >= n, "never fewer than there are");
            for tail in ["", "\n{[{", "x\n"] {
                let line = format!("{text}{tail}");
                let nl = line.find('\n');
                assert_eq!(find_newline_counting(line.as_bytes()), (nl, n), "{line:?}");
            }
        }
        assert!(!nests_deeper_than(wide.as_bytes(), 3));
        assert!(nests_deeper_than(wide.as_bytes(), 2));
    }
}
