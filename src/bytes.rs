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

/// Whether the JSON text `json` (already known to be valid) nests arrays
/// and objects more than `limit` deep. Strings are skipped eight bytes at a
/// time: they are most of a message's bytes, and brackets inside them do
/// not count.
pub fn nests_deeper_than(json: &[u8], limit: usize) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;

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
        assert!(!nests_deeper_than(wide.as_bytes(), 3));
        assert!(nests_deeper_than(wide.as_bytes(), 2));
    }
}
