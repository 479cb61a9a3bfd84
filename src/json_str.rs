//! JSON string literals for the writers of JSON text: a leaf module (it
//! imports nothing of this crate), so `record` and `json` both use it and
//! neither needs the other.

#![forbid(unsafe_code)]

/// `s` as a JSON string literal.
pub fn str_literal(s: &str) -> String {
    // serde_json's escaping is exact and cannot fail for a &str.
    serde_json::to_string(s).unwrap_or_else(|_| "null".to_owned())
}

/// Appends `s` as a JSON string literal.
pub fn push_str_literal(out: &mut String, s: &str) {
    // serde_json's escaping is exact and cannot fail for a &str.
    match serde_json::to_string(s) {
        Ok(lit) => out.push_str(&lit),
        Err(_) => out.push_str("null"),
    }
}
