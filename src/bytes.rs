//! Byte-level scans shared by replay and the Redactor. A leaf module: it
//! imports nothing from the crate, so no two modules need each other for it.

#![forbid(unsafe_code)]

// Scans are SIMD where the bytes are many: memchr's searches (16 bytes a
// step with wasm simd128, the module's build flag; SSE2/AVX2 natively) and
// counting loops written so that the compiler vectorises them (one byte
// compare and one add per lane, no branch). Built without simd128, the
// same code runs memchr's word-at-a-time fallback.

/// The index of the first `needle`.
#[inline]
pub fn find_byte(bytes: &[u8], needle: u8) -> Option<usize> {
    memchr::memchr(needle, bytes)
}

/// The index of the last `needle`.
#[inline]
pub fn find_last_byte(bytes: &[u8], needle: u8) -> Option<usize> {
    memchr::memrchr(needle, bytes)
}

/// The bytes as text when they are UTF-8 (std's answer and error, from
/// simdutf8's SIMD check: core's is a word at a time, a fifth of a replay
/// from bytes).
#[inline]
pub fn utf8(bytes: &[u8]) -> Result<&str, simdutf8::compat::Utf8Error> {
    simdutf8::compat::from_utf8(bytes)
}

/// How many bytes equal `needle`: tool outputs of megabytes are counted
/// line by line.
pub fn count_byte(bytes: &[u8], needle: u8) -> usize {
    memchr::memchr_iter(needle, bytes).count()
}

/// The index of the first `"` or `\` (the end of a JSON string's plain run).
#[inline]
pub fn find_quote_or_backslash(bytes: &[u8]) -> Option<usize> {
    memchr::memchr2(b'"', b'\\', bytes)
}

/// The index of the first `needle` in `hay`, for the short keys the
/// readers look for (`"usage"`): candidates by memchr on the needle's second
/// byte (its first is a quote, the commonest byte of JSON), then a compare.
/// Not memchr::memmem: its searchers cost 2.2 KB of gzipped wasm for keys
/// that a line holds near its start.
pub fn find_bytes(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let k = usize::from(needle.len() > 1);
    let anchor = *needle.get(k)?;
    let mut at = k;
    while let Some(i) = hay.get(at..).and_then(|h| memchr::memchr(anchor, h)) {
        let start = at + i - k;
        match hay.get(start..start + needle.len()) {
            Some(window) if window == needle => return Some(start),
            Some(_) => at += i + 1,
            None => return None,
        }
    }
    None
}

/// Openings (`[` and `{`) in at most 255 bytes: one lane per byte, a u8
/// counter that cannot overflow, no branch, so it vectorises. `[` is 0x5B
/// and `{` 0x7B: with bit 0x20 set, exactly these two bytes are 0x7B.
#[inline]
fn openings_in(block: &[u8]) -> usize {
    usize::from(block.iter().fold(0u8, |n, &b| n.wrapping_add(u8::from(b | 0x20 == b'{'))))
}

/// How many `[` and `{` bytes `bytes` holds, exactly, counting no further
/// than just past `stop` (4,080 bytes a step).
///
/// Sixteen u8 counters, one per byte of a 16-byte step, each bumped at most
/// 255 times a block: one vector add per 16 bytes (simd128), with a scalar
/// tail only at the end of the text. One u8 counter per 255-byte block ran
/// as fast (100 MB replay, alternating) but was 367 gzipped bytes more.
pub fn count_openings(bytes: &[u8], stop: usize) -> usize {
    const STEP: usize = 16;
    let mut count = 0usize;
    for block in bytes.chunks(STEP * 255) {
        let mut lanes = [0u8; STEP];
        let mut steps = block.chunks_exact(STEP);
        for step in &mut steps {
            for (lane, &b) in lanes.iter_mut().zip(step) {
                *lane += u8::from(b | 0x20 == b'{');
            }
        }
        count += lanes.iter().map(|&n| usize::from(n)).sum::<usize>() + openings_in(steps.remainder());
        if count > stop {
            break;
        }
    }
    count
}

/// Whether the JSON text `json` (already known to be valid) nests arrays
/// and objects more than `limit` deep. Nesting that deep needs more than
/// `limit` opening brackets, so a count (vectorised) settles almost every
/// message; only the rest are walked, skipping strings with memchr2, since
/// brackets inside strings do not count.
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

/// `needle` (already lowercase) in `hay`, ignoring ASCII case: memchr2
/// finds the candidates (the first byte in either case).
pub fn contains_ignoring_case(hay: &[u8], needle: &[u8]) -> bool {
    let Some((&first, rest)) = needle.split_first() else { return true };
    let upper = first.to_ascii_uppercase();
    let mut at = 0;
    while let Some(i) = hay.get(at..).and_then(|h| memchr::memchr2(first, upper, h)) {
        let start = at + i;
        match hay.get(start + 1..start + needle.len()) {
            Some(tail) if tail.eq_ignore_ascii_case(rest) => return true,
            Some(_) => at = start + 1,
            None => return false,
        }
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
            // `;` and `{`'s neighbours `z`, `|`, `[`'s `Z`, `\\`: none counts.
            let spaced = format!("{}{}", "[z{Z;|\\".repeat(n / 2), "[".repeat(n % 2));
            assert_eq!(count_openings(spaced.as_bytes(), usize::MAX), n, "exactly the openings");
        }
        assert!(!nests_deeper_than(wide.as_bytes(), 3));
        assert!(nests_deeper_than(wide.as_bytes(), 2));
    }

    /// The count is exact across its 4,080-byte blocks and 16-byte steps,
    /// with every lane at its most (255) when every byte is an opening.
    #[test]
    fn openings_are_counted_across_blocks() {
        let mut rng = crate::test_rng::Rng(0x51_7cc1_b727_220a);
        for len in [0, 1, 15, 16, 17, 255, 256, 4079, 4080, 4081, 8160, 8176, 10_000] {
            let all = "{".repeat(len);
            assert_eq!(count_openings(all.as_bytes(), usize::MAX), len);
            let mixed = rng.pick(b"[{]}Z;\\ a", len);
            let want = mixed.bytes().filter(|&b| b == b'[' || b == b'{').count();
            assert_eq!(count_openings(mixed.as_bytes(), usize::MAX), want, "{len} bytes");
            assert!(count_openings(mixed.as_bytes(), 100) > 100 || want <= 100);
        }
    }
}
