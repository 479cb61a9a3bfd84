//! Rule 3: a secret-named thing given a value (spec §5). The name stays, the
//! value goes, unless the value is code (looksLikeCode) or a placeholder.
//!
//! Forms: `name = v`, `name: v`, `name := v`, `name => v`, comparisons both
//! ways (`pass !== "v"`, `"v" == my_password`), quoted names (JSON, dicts),
//! `("name", "v")` calls, `Type secret("v")`, CLI flags (`--password v`),
//! `Authorization: Bearer v`, and `user:pass@` in URLs.

use super::formats::has_sequence;

/// Longest name considered; longer identifiers are data, not names.
const MAX_NAME: usize = 128;
/// Longest value taken; a longer one is cut there (the cap keeps adversarial
/// input such as `password=password=…` linear).
const MAX_VALUE: usize = 1024;

/// What a name says about its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NameClass {
    /// The value is a secret (unless it is code or a placeholder).
    pub secret: bool,
    /// A number under this name is a secret too (a PIN, a numeric password).
    pub numeric: bool,
    /// The only secret word is `key`: a weaker signal (React keys, map keys).
    pub generic_key: bool,
}

/// Words that make a name a secret's name, matched as whole words.
fn is_secret_word(w: &[u8]) -> bool {
    matches!(
        w,
        b"key"
            | b"keys"
            | b"auth"
            | b"authorization"
            | b"pin"
            | b"pwd"
            | b"pass"
            | b"passwd"
            | b"cred"
            | b"creds"
            | b"bearer"
    )
}

/// Word parts that make a name a secret's name wherever they appear in a word
/// (`apikey`, `authtoken`, `dbpassword`, `clientsecret`).
const SECRET_PARTS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "credential",
    "apikey",
    "accesskey",
    "privatekey",
    "secretkey",
    "authkey",
];

/// Words that say the value is metadata about a secret, not the secret.
fn is_metadata_word(w: &[u8]) -> bool {
    matches!(
        w,
        b"length"
            | b"len"
            | b"count"
            | b"id"
            | b"ids"
            | b"uuid"
            | b"url"
            | b"urls"
            | b"uri"
            | b"name"
            | b"names"
            | b"type"
            | b"types"
            | b"kind"
            | b"budget"
            | b"max"
            | b"min"
            | b"input"
            | b"output"
            | b"size"
            | b"limit"
            | b"limits"
            | b"ttl"
            | b"expiry"
            | b"expires"
            | b"expiration"
            | b"timeout"
            | b"file"
            | b"files"
            | b"path"
            | b"dir"
            | b"prefix"
            | b"suffix"
            | b"format"
            | b"field"
            | b"fields"
            | b"hint"
            | b"version"
            | b"index"
            | b"idx"
            | b"usage"
            | b"cache"
            | b"reported"
            | b"unreported"
            | b"public"
            | b"pub"
            | b"label"
            | b"title"
            | b"description"
            | b"placeholder"
            | b"pattern"
            | b"regex"
            | b"policy"
            | b"rotation"
            | b"algorithm"
            | b"alg"
            | b"mode"
            | b"required"
            | b"tokenizer"
            | b"tokenize"
            | b"tokenizers"
            | b"tokenized"
            | b"endpoint"
            | b"header"
            | b"headers"
            | b"location"
            | b"store"
            | b"manager"
            | b"provider"
            | b"source"
            | b"helper"
            | b"validator"
            | b"schema"
            | b"chars"
    )
}

/// Words that make a `key` strong: `api key`, `access key`, `private key`.
fn is_strong_word(w: &[u8]) -> bool {
    matches!(
        w,
        b"api"
            | b"access"
            | b"private"
            | b"secret"
            | b"client"
            | b"master"
            | b"signing"
            | b"encryption"
            | b"license"
    )
}

/// Numbers under these names go (a PIN), when they have 4 digits or more.
const NUMERIC_PARTS: &[&str] = &["password", "passwd", "passphrase", "secret"];

/// Calls `f` with each word of a name, lowercased: `apiKey`, `API_KEY`,
/// `x-api-key`, `APIKey2` all give `api`, `key` (and `2`). No allocation:
/// this runs for every name the prefilter finds.
fn for_each_word(name: &[u8], mut f: impl FnMut(&[u8])) {
    let mut buf = [0u8; MAX_NAME];
    let mut len = 0;
    for (i, &c) in name.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if len > 0 {
                f(&buf[..len]);
                len = 0;
            }
            continue;
        }
        if len > 0 {
            let p = name[i - 1];
            let next_lower = name.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            let boundary = (p.is_ascii_lowercase() && c.is_ascii_uppercase())
                || (p.is_ascii_uppercase() && c.is_ascii_uppercase() && next_lower)
                || (p.is_ascii_digit() != c.is_ascii_digit());
            if boundary {
                f(&buf[..len]);
                len = 0;
            }
        }
        if len < buf.len() {
            buf[len] = c.to_ascii_lowercase();
            len += 1;
        }
    }
    if len > 0 {
        f(&buf[..len]);
    }
}

fn contains(word: &[u8], part: &str) -> bool {
    word.windows(part.len()).any(|w| w == part.as_bytes())
}

/// Classifies a name such as `OPENAI_API_KEY`, `passwordMinLength` or `pin`.
pub fn classify_name(name: &str) -> NameClass {
    let name = name.as_bytes();
    if name.is_empty() || name.len() > MAX_NAME {
        return NameClass::default();
    }
    // Metadata words first, in a pass of their own: the names a journal
    // repeats on every record (`inputTokens`, `maxTokens`) stop here, before
    // the substring searches below.
    let mut metadata = false;
    for_each_word(name, |w| metadata |= is_metadata_word(w));
    if metadata {
        return NameClass::default();
    }
    let (mut secret, mut numeric, mut only_key, mut strong) = (false, false, true, false);
    for_each_word(name, |w| {
        let exact = is_secret_word(w);
        let part = SECRET_PARTS.iter().any(|p| contains(w, p));
        secret |= exact || part;
        numeric |= w == b"pin" || w == b"pass" || NUMERIC_PARTS.iter().any(|p| contains(w, p));
        only_key &= !part && (!exact || w == b"key" || w == b"keys");
        strong |= is_strong_word(w);
    });
    if !secret {
        return NameClass::default();
    }
    // `key` alone (a map key, a React key, a keyboard key) is weak; `api
    // key`, `access key`, `private key` are not.
    NameClass { secret, numeric, generic_key: only_key && !strong }
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$'
}

fn is_ident(c: u8) -> bool {
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

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// Whole quoted value starting at the quote `q` at `start`: its inner span
/// (end at the closing quote, or at the line end when there is none).
fn quoted_value(text: &[u8], start: usize) -> (usize, usize) {
    let q = text[start];
    let inner = start + 1;
    let limit = text.len().min(inner + MAX_VALUE);
    let mut i = inner;
    while i < limit {
        match text[i] {
            b'\\' => i += 2,
            b'\n' | b'\r' => break,
            c if c == q => break,
            _ => i += 1,
        }
    }
    (inner, i.min(limit))
}

/// An unquoted value from `start`: up to white space, `&` or a quote, less a
/// trailing `;` or `,`.
fn bare_value(text: &[u8], start: usize) -> (usize, usize) {
    let limit = text.len().min(start + MAX_VALUE);
    // Inside brackets (`jwt.sign(payload, secret)`, `headers["key"]`) blanks
    // and quotes belong to the expression.
    let mut depth = 0u32;
    let mut end = limit;
    for (i, &b) in text[start..limit].iter().enumerate() {
        match b {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth = depth.saturating_sub(1),
            b'\n' | b'\r' => {
                end = start + i;
                break;
            }
            b' ' | b'\t' | b'&' | b'"' | b'\'' | b'`' if depth == 0 => {
                end = start + i;
                break;
            }
            _ => {}
        }
    }
    while end > start && matches!(text[end - 1], b';' | b',') {
        end -= 1;
    }
    (start, end)
}

fn skip_blanks(text: &[u8], mut i: usize) -> usize {
    while i < text.len() && matches!(text[i], b' ' | b'\t') {
        i += 1;
    }
    i
}

/// The value after an operator at `i`: (span, quoted).
fn value_at(text: &[u8], i: usize) -> Option<((usize, usize), bool)> {
    let i = skip_blanks(text, i);
    match text.get(i)? {
        b'"' | b'\'' | b'`' => Some((quoted_value(text, i), true)),
        b'\n' | b'\r' => None,
        _ => {
            // `Authorization: Bearer v`: the scheme stays, the credential goes.
            let (s, e) = after_scheme(text, (i, text.len().min(i + MAX_VALUE)));
            Some((bare_value(text, s), false)).filter(|_| s <= e)
        }
    }
}

/// Where an `Authorization: Bearer v` value's secret part starts.
fn after_scheme(text: &[u8], (start, end): (usize, usize)) -> (usize, usize) {
    for scheme in [&b"bearer "[..], b"basic ", b"token "] {
        if text[start..end].len() > scheme.len()
            && text[start..start + scheme.len()].eq_ignore_ascii_case(scheme)
        {
            let s = skip_blanks(text, start + scheme.len());
            return (s, end);
        }
    }
    (start, end)
}

/// The name (identifier, dotted path, `--flag`) around byte `pos`, at most
/// `MAX_NAME` long.
fn name_bounds(text: &[u8], pos: usize) -> (usize, usize) {
    let mut start = pos;
    while start > 0 && is_name_byte(text[start - 1]) && pos - start < MAX_NAME {
        start -= 1;
    }
    let mut end = pos;
    while end < text.len() && is_name_byte(text[end]) && end - start < MAX_NAME {
        end += 1;
    }
    (start, end)
}

/// Whether a name hit in a raw journal line can be ignored without looking
/// at the line's structure: its name is not a secret's, or nothing around
/// it assigns a value (and no escape hides what follows it).
pub fn name_is_inert(text: &[u8], pos: usize) -> bool {
    let (start, end) = name_bounds(text, pos);
    let name = &text[start..end];
    let name = name.strip_prefix(b"--").unwrap_or(name);
    let Ok(name) = std::str::from_utf8(name) else { return false };
    // The syntax test first: it is cheaper than classifying the name, and
    // most names in prose ("the token budget") are followed by no value.
    let escaped_around = text.get(end) == Some(&b'\\')
        || (start > 0 && text[start - 1] == b'"' && start > 1 && text[start - 2] == b'\\');
    if !escaped_around && !looks_assigned(text, start, end) {
        return true;
    }
    !classify_name(name).secret
}

/// The assignment whose name contains the prefilter hit at `pos`, if any:
/// returns the name's end (to skip other hits in it) and the value's span.
pub fn assignment(text: &[u8], pos: usize) -> (usize, Option<(usize, usize)>) {
    let (start, end) = name_bounds(text, pos);
    if !looks_assigned(text, start, end) {
        return (end, None);
    }
    let raw = &text[start..end];
    let cli = raw.starts_with(b"--");
    let name_bytes = raw.trim_ascii_start().strip_prefix(b"--").unwrap_or(raw);
    let name_bytes = name_bytes.strip_suffix(b".").unwrap_or(name_bytes);
    let Ok(name) = std::str::from_utf8(name_bytes) else { return (end, None) };
    let class = classify_name(name);
    if !class.secret {
        return (end, None);
    }
    let span = find_value(text, start, end, cli, class);
    (end, span)
}

/// Cheap test before classifying the name: is there assignment syntax
/// around it at all? Most names in prose and code have none.
fn looks_assigned(text: &[u8], start: usize, end: usize) -> bool {
    let mut i = end;
    if matches!(text.get(i), Some(b'"' | b'\'' | b'`')) {
        i += 1;
    }
    if text.get(i) == Some(&b']') {
        i += 1;
    }
    let i = skip_blanks(text, i);
    let next = text.get(i).copied().unwrap_or(b'\n');
    if matches!(next, b'=' | b':' | b'!' | b'?' | b',' | b'(') {
        return true;
    }
    // `--password value`, and `"value" == name` on the left.
    let mut j = start;
    if j > 0 && matches!(text[j - 1], b'"' | b'\'') {
        j -= 1;
    }
    while j > 0 && matches!(text[j - 1], b' ' | b'\t') {
        j -= 1;
    }
    text[start..].starts_with(b"--") || (j > 0 && text[j - 1] == b'=')
}

fn find_value(text: &[u8], start: usize, end: usize, cli: bool, class: NameClass) -> Option<(usize, usize)> {
    let before = start.checked_sub(1).map(|i| text[i]);
    let quote = before.filter(|q| matches!(q, b'"' | b'\'' | b'`'));
    let mut i = end;
    if let Some(q) = quote {
        if text.get(i) != Some(&q) {
            return None;
        }
        i += 1;
        if text.get(i) == Some(&b']') {
            i += 1;
        }
    }
    let j = skip_blanks(text, i);
    let rest = &text[j..];
    let op = [&b":="[..], b"=>", b"===", b"!==", b"==", b"!=", b"?=", b"=", b":"]
        .into_iter()
        .find(|op| rest.starts_with(op) && !(op == b":" && rest.get(1) == Some(&b':')));
    let found = if let Some(op) = op {
        value_at(text, j + op.len())
    } else if quote.is_some() && rest.first() == Some(&b',') {
        // ("api_token", "value"): a lookup with a default, a setter.
        value_at(text, j + 1).filter(|(_, quoted)| *quoted)
    } else if cli && j > i && i < text.len() {
        value_at(text, j)
    } else if rest.first() == Some(&b'(') && quote.is_none() && is_declaration(text, start) {
        // std::string secret("value");
        value_at(text, j + 1).filter(|(_, quoted)| *quoted)
    } else {
        None
    };
    if let Some((span, quoted)) = found {
        let span = after_scheme(text, span);
        if span.1 > span.0 && !keeps_value(&text[span.0..span.1], quoted, class) {
            return Some(span);
        }
        return None;
    }
    reversed_comparison(text, start - usize::from(quote.is_some()), class)
}

/// `Type name(`: the name follows a type and a space.
fn is_declaration(text: &[u8], start: usize) -> bool {
    start >= 2 && text[start - 1] == b' ' && (is_ident(text[start - 2]) || text[start - 2] == b'>')
}

/// `"value" == name`: a quoted literal compared with the name, on its left.
fn reversed_comparison(text: &[u8], name_start: usize, class: NameClass) -> Option<(usize, usize)> {
    let mut i = name_start;
    while i > 0 && matches!(text[i - 1], b' ' | b'\t') {
        i -= 1;
    }
    let ops = [&b"==="[..], b"!==", b"==", b"!="];
    let op = ops.into_iter().find(|op| i >= op.len() && &text[i - op.len()..i] == *op)?;
    i -= op.len();
    while i > 0 && matches!(text[i - 1], b' ' | b'\t') {
        i -= 1;
    }
    let q = *text.get(i.checked_sub(1)?)?;
    if !matches!(q, b'"' | b'\'') {
        return None;
    }
    let close = i - 1;
    let floor = close.saturating_sub(MAX_VALUE);
    let open = (floor..close).rev().find(|&k| text[k] == q && (k == 0 || text[k - 1] != b'\\'))?;
    let span = (open + 1, close);
    (!keeps_value(&text[span.0..span.1], true, class)).then_some(span)
}

/// `scheme://user:pass@host`: the password goes, the user stays.
pub fn url_credentials(text: &[u8], pos: usize) -> Option<(usize, usize)> {
    let mut s = pos;
    while s > 0
        && (text[s - 1].is_ascii_alphanumeric() || matches!(text[s - 1], b'+' | b'.' | b'-'))
        && pos - s < 32
    {
        s -= 1;
    }
    if s == pos || !text[s].is_ascii_alphabetic() {
        return None;
    }
    let user_start = pos + 3;
    let limit = text.len().min(user_start + 512);
    let mut colon = None;
    for i in user_start..limit {
        match text[i] {
            b':' if colon.is_none() => colon = Some(i),
            b'@' => {
                let c = colon?;
                let span = (c + 1, i);
                let ok = span.1 > span.0 && !keeps_value(&text[span.0..span.1], true, NameClass::default());
                return ok.then_some(span);
            }
            b'/' | b'?' | b'#' | b' ' | b'\n' | b'\r' | b'\t' | b'"' | b'\'' | b'<' | b'>' => return None,
            _ => {}
        }
    }
    None
}

/// `Bearer v`, `Basic v` where no name precedes (a curl -v line, a log).
pub fn scheme_credentials(text: &[u8], pos: usize, len: usize) -> Option<(usize, usize)> {
    if pos > 0 && text[pos - 1].is_ascii_alphanumeric() {
        return None;
    }
    if text.get(pos + len) != Some(&b' ') {
        return None;
    }
    let start = pos + len + 1;
    let (s, e) = bare_value(text, start);
    let v = &text[s..e];
    let shaped = v.len() >= 8
        && v.iter().all(|&b| b.is_ascii_alphanumeric() || b"._~+/=-".contains(&b))
        && (v.iter().any(u8::is_ascii_digit)
            || (v.iter().any(u8::is_ascii_uppercase) && v.iter().any(u8::is_ascii_lowercase))
            || v.iter().any(|b| b"+/=_".contains(b)));
    (shaped && !keeps_value(v, true, NameClass::default())).then_some((s, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for secret in [
            "password",
            "OPENAI_API_KEY",
            "apiKey",
            "x-api-key",
            "db_pass",
            "user_auth",
            "pin",
            "Authorization",
        ] {
            assert!(classify_name(secret).secret, "{secret}");
        }
        for meta in [
            "tokenBudget",
            "maxTokens",
            "inputTokens",
            "passwordMinLength",
            "credentialsId",
            "author",
            "keyboard",
            "publicKey",
            "LLM_SECRET_NAME",
            "access_token_url",
        ] {
            assert!(!classify_name(meta).secret, "{meta}");
        }
        assert!(classify_name("pin").numeric && classify_name("db_password").numeric);
        assert!(!classify_name("apiKey").numeric);
        assert!(classify_name("some_key").generic_key && !classify_name("apiKey").generic_key);
    }

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
