//! Byte spans in a JSON text, for repairs that edit a file in place: a
//! borrowed `RawValue` is a slice of the text it was parsed from, so its
//! offset there is where to splice. Every byte the repair does not mean to
//! change keeps its place (pi and Gemini CLI repairs; Claude Code's has its
//! own typed heads in `claude.rs`).

use serde_json::value::RawValue;
use std::collections::HashMap;

/// A file's lines as the repairs edit them: (1-based number, the bytes
/// without their newline, whether a newline ended them). A file that ends
/// in a newline has no empty last line.
pub fn lines(bytes: &[u8]) -> Vec<(u64, &[u8], bool)> {
    // A list, not an iterator: one copy of the loop in the wasm for both callers.
    let mut out = Vec::new();
    let mut split = bytes.split(|&b| b == b'\n').peekable();
    while let Some(piece) = split.next() {
        let last = split.peek().is_none();
        if last && piece.is_empty() {
            break;
        }
        out.push((out.len() as u64 + 1, piece, !last));
    }
    out
}

/// The members of a JSON object (None: not an object).
pub fn object(raw: &str) -> Option<HashMap<String, &RawValue>> {
    serde_json::from_str(raw).ok()
}

/// The items of a JSON array (None: not an array).
pub fn array(raw: &str) -> Option<Vec<&RawValue>> {
    serde_json::from_str(raw).ok()
}

/// Where `part` (a slice of `base`) starts and ends in `base`.
pub fn span(base: &str, part: &str) -> (usize, usize) {
    let start = (part.as_ptr() as usize).saturating_sub(base.as_ptr() as usize);
    (start, start + part.len())
}

/// A member's string value.
pub fn string(members: &HashMap<String, &RawValue>, key: &str) -> Option<String> {
    serde_json::from_str::<String>(members.get(key)?.get()).ok()
}

/// The span of a whole member `"key": value` (with the comma that joins it
/// to a neighbour), for a member whose value is at `value` in `text`:
/// removing it leaves the object valid.
pub fn member_span(text: &str, value: (usize, usize)) -> Option<(usize, usize)> {
    let b = text.as_bytes();
    let mut at = value.0;
    // Back over white space, the colon, white space, the key.
    let back_ws = |mut i: usize| {
        while i > 0 && b[i - 1].is_ascii_whitespace() {
            i -= 1;
        }
        i
    };
    at = back_ws(at);
    if at == 0 || b[at - 1] != b':' {
        return None;
    }
    at = back_ws(at - 1);
    if at == 0 || b[at - 1] != b'"' {
        return None;
    }
    // The key's opening quote: the first quote back that is not escaped.
    let mut k = at - 1;
    loop {
        k = k.checked_sub(1)?;
        if b[k] == b'"' {
            let slashes = b[..k].iter().rev().take_while(|&&c| c == b'\\').count();
            if slashes % 2 == 0 {
                break;
            }
        }
    }
    let before = back_ws(k);
    if before > 0 && b[before - 1] == b',' {
        // `, "key": value`: the comma before goes with it.
        return Some((before - 1, value.1));
    }
    // The first member: the comma after goes with it.
    let mut end = value.1;
    while end < b.len() && b[end].is_ascii_whitespace() {
        end += 1;
    }
    if end < b.len() && b[end] == b',' {
        let mut next = end + 1;
        while next < b.len() && b[next].is_ascii_whitespace() {
            next += 1;
        }
        return Some((k, next));
    }
    Some((k, value.1))
}

/// Where to insert a member or an item into the object or array at
/// `span`: right after its last value, before the white space that leads
/// to its closing bracket (a pretty-printed document keeps its layout).
pub fn before_close(text: &str, span: (usize, usize)) -> usize {
    let b = text.as_bytes();
    let mut at = span.1.saturating_sub(1).max(span.0);
    while at > span.0 + 1 && b[at - 1].is_ascii_whitespace() {
        at -= 1;
    }
    at
}

/// `text` with each span replaced (spans do not overlap).
pub fn splice(text: &str, edits: Vec<((usize, usize), String)>) -> String {
    // From the last span back, so earlier offsets hold; a line has few
    // edits, and no sort is one more sort in the wasm.
    let mut left = edits;
    let mut out = text.to_owned();
    while let Some(k) = (0..left.len()).max_by_key(|&k| left[k].0) {
        let ((a, z), with) = left.swap_remove(k);
        if a <= z && z <= out.len() && out.is_char_boundary(a) && out.is_char_boundary(z) {
            out.replace_range(a..z, &with);
        }
    }
    out
}

/// The 1-based line of byte `at` in `text`.
pub fn line_at(text: &str, at: usize) -> u64 {
    text.as_bytes()[..at.min(text.len())].iter().filter(|&&b| b == b'\n').count() as u64 + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_member_removed_leaves_a_valid_object_wherever_it_is() {
        for (text, key, want) in [
            (r#"{"a":1,"b":2,"c":3}"#, "b", r#"{"a":1,"c":3}"#),
            (r#"{"a":1,"b":2}"#, "a", r#"{"b":2}"#),
            (r#"{"a":1,"b":2}"#, "b", r#"{"a":1}"#),
            ("{\n  \"a\": 1,\n  \"b\\\"\": [2]\n}", "b\"", "{\n  \"a\": 1\n}"),
            (r#"{"only":{"x":"}"}}"#, "only", r#"{}"#),
        ] {
            let members = object(text).unwrap();
            let v = span(text, members[key].get());
            let m = member_span(text, v).unwrap();
            let out = splice(text, vec![(m, String::new())]);
            assert_eq!(out, want, "{text} without {key}");
            assert!(serde_json::from_str::<serde_json::Value>(&out).is_ok());
        }
    }
}
