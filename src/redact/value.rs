//! looksLikeCode and friends (spec §5 rule 3): whether the value given to a
//! secret's name stays. Code, numbers, placeholders and templates stay; so
//! do words under names of machine-made credentials. A literal that looks
//! made by a person or a machine goes.

use super::formats::has_sequence;
use super::names::NameClass;

pub fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$'
}

pub fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

/// `a.b.c`, `getToken()`, `await getToken()`, `z.string().min(8)`,
/// `request.headers["apikey"]`, `Option<String>`, `string[]`: an expression,
/// not data.
fn is_code_expression(v: &[u8]) -> bool {
    let mut v = v;
    for kw in [&b"await "[..], b"new ", b"typeof "] {
        if let Some(rest) = v.strip_prefix(kw) {
            v = rest;
        }
    }
    let mut i = 0;
    let mut parts = 0;
    let mut punctuation = false;
    while i < v.len() {
        if !is_ident_start(v[i]) {
            return false;
        }
        while i < v.len() && is_ident(v[i]) {
            i += 1;
        }
        parts += 1;
        // Calls, indexing and generics, balanced.
        while i < v.len() && matches!(v[i], b'(' | b'[' | b'<') {
            let (open, close) = match v[i] {
                b'(' => (b'(', b')'),
                b'[' => (b'[', b']'),
                _ => (b'<', b'>'),
            };
            let mut depth = 0;
            let start = i;
            while i < v.len() {
                if v[i] == open {
                    depth += 1;
                } else if v[i] == close {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                i += 1;
            }
            if i >= v.len() || i - start > 256 {
                return false;
            }
            i += 1;
            punctuation = true;
        }
        if i >= v.len() {
            break;
        }
        match v[i] {
            b'.' => i += 1,
            b'?' if v.get(i + 1) == Some(&b'.') => i += 2,
            b':' if v.get(i + 1) == Some(&b':') => i += 2,
            b'!' if i + 1 == v.len() => i += 1,
            _ => return false,
        }
        punctuation = true;
    }
    parts > 0 && (punctuation || parts > 1)
}

/// Placeholders: `<your-key>`, `***`, `xxxx`, `your_api_key_here`.
fn is_placeholder(v: &[u8]) -> bool {
    if v.len() >= 2 && v[0] == b'<' && v[v.len() - 1] == b'>' {
        return true;
    }
    let mut chars = v.iter().filter(|b| !matches!(b, b'-' | b'_' | b'.' | b' '));
    if let Some(first) = chars.next() {
        if chars.all(|b| b.eq_ignore_ascii_case(first)) {
            return true;
        }
    }
    let lower = v.to_ascii_lowercase();
    let has = |w: &[u8]| lower.windows(w.len()).any(|x| x == w);
    has(b"your") && (has(b"key") || has(b"token") || has(b"secret") || has(b"password"))
        || [&b"changeme"[..], b"example", b"dummy", b"redacted", b"none", b"nil", b"undefined"]
            .contains(&&lower[..])
}

/// Template references: `${X}`, `$X`, `{{ x }}`, `%X%`, `{x}`, `$(cmd)`.
fn is_template(v: &[u8]) -> bool {
    let n = v.len();
    (v.starts_with(b"${") || v.starts_with(b"{{") || v.starts_with(b"$(") || v.starts_with(b"#{"))
        || (v.first() == Some(&b'$') && v.len() > 1 && v[1..].iter().all(|&c| is_ident(c)))
        || (n >= 3 && v[0] == b'%' && v[n - 1] == b'%')
        || (n >= 2 && v[0] == b'{' && v[n - 1] == b'}')
}

fn is_number(v: &[u8]) -> bool {
    let digits = v.strip_prefix(b"-").unwrap_or(v);
    !digits.is_empty() && digits.iter().all(|b| b.is_ascii_digit() || *b == b'.') && digits[0] != b'.'
}

/// looksLikeCode and friends: true when the value stays.
pub fn keeps_value(v: &[u8], quoted: bool, class: NameClass) -> bool {
    let v = v.trim_ascii();
    if v.is_empty() || !v.iter().any(u8::is_ascii_alphanumeric) {
        return true;
    }
    if v.windows(10).any(|w| w == b"[REDACTED]") {
        return true;
    }
    let lower = v.to_ascii_lowercase();
    if [&b"true"[..], b"false", b"null"].contains(&&lower[..]) {
        return true;
    }
    if is_number(v) {
        let digits = v.iter().filter(|b| b.is_ascii_digit()).count();
        return !(class.numeric && digits >= 4);
    }
    if is_placeholder(v) || is_template(v) || has_sequence(v) {
        return true;
    }
    if v.starts_with(b"http://") || v.starts_with(b"https://") || v.starts_with(b"/") || v.starts_with(b"./")
    {
        // An endpoint or a path (credentials inside a URL have their own rule).
        return true;
    }
    if quoted {
        // A string literal is data, unless it is a dotted path like
        // "errors.notFound" (an i18n key, a config path).
        if v.len() < 4 || (v.contains(&b'.') && is_code_expression(v) && !v.iter().any(u8::is_ascii_digit)) {
            return true;
        }
        if class.generic_key {
            return v.len() < 8 || v.iter().any(u8::is_ascii_whitespace);
        }
        return false;
    }
    if is_code_expression(v) {
        return true;
    }
    // A bare identifier without digits is a variable (`accessToken`, `K`,
    // `string`); with digits (`hunter2`, `CLOJARS_34bf…`) it is a value.
    if v.iter().all(|&c| is_ident(c)) && is_ident_start(v[0]) {
        return !v.iter().any(u8::is_ascii_digit);
    }
    v.len() < 4
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::redact::names::classify_name;

    #[test]
    fn code_stays() {
        let c = classify_name("apiKey");
        for code in [
            "options.apiKey",
            "getToken()",
            "await getToken()",
            "z.string().min(8)",
            "process.env.API_KEY",
            "request.headers[\"apikey\"]",
            "Option<String>",
            "string",
            "accessToken",
            "${API_KEY}",
            "$API_KEY",
            "{{ api_key }}",
            "%API_KEY%",
            "true",
            "null",
            "<your-key>",
            "***",
            "xxxx",
            "20000000",
        ] {
            assert!(keeps_value(code.as_bytes(), false, c), "{code}");
        }
        for secret in [
            "hunter2x",
            "sk_live_abc123",
            "CLOJARS_34bf0e88955ff5a1c328d6a7491acc4f48e865a7b8dd4d70a70749037443",
        ] {
            assert!(!keeps_value(secret.as_bytes(), false, c), "{secret}");
        }
        assert!(!keeps_value(b"12345678", false, classify_name("password")));
        assert!(keeps_value(b"0", false, classify_name("PuttyPassword")));
    }
}
