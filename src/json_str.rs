//! JSON string literals for the writers of JSON text: a leaf module but for
//! json_check's run scan (itself a leaf), so `record`, `json` and the
//! transcript all use it and none needs another.
//!
//! Escaped exactly as serde_json escapes (the test `escapes_as_serde_json`
//! holds it to that), but the runs between escapes are found 16 bytes a
//! step (json_check's scan) where serde_json looks up every byte in a
//! table: writing a 1 GB journal's transcript entries spent 280 ms there.

#![forbid(unsafe_code)]

/// `s` as a JSON string literal.
pub fn str_literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_str_literal(&mut out, s);
    out
}

/// Appends `s` as a JSON string literal.
pub fn push_str_literal(out: &mut String, s: &str) {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    out.reserve(s.len() + 2);
    out.push('"');
    let b = s.as_bytes();
    let mut start = 0;
    loop {
        // The run ends at an ASCII byte (or the end): a character boundary.
        let end = crate::json_check::plain_run_end(b, start);
        out.push_str(s.get(start..end).unwrap_or_default());
        let Some(&c) = b.get(end) else { break };
        match c {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            0x08 => out.push_str("\\b"),
            0x0c => out.push_str("\\f"),
            _ => {
                out.push_str("\\u00");
                out.push(char::from(HEX[usize::from(c >> 4)]));
                out.push(char::from(HEX[usize::from(c & 15)]));
            }
        }
        start = end + 1;
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
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
        }
    }
}
