//! Rule 2's vendor tokens as data: one row per format (in `token_rows.rs`;
//! this file reads them), with the prefix the vendor gives it, the
//! characters and length of what follows, the checksum where the vendor
//! publishes one, and where each came from. The
//! prefilter (`triggers.rs`) takes every row's trigger literals, so a row
//! costs nothing where its prefix does not occur. The older hand-written
//! shapes (Anthropic, OpenAI, AWS key ids, GitHub, Slack, Google, JWT, key
//! blocks, which also covers PGP private key blocks) stay in `formats.rs`.
//!
//! A row's checksum is recorded, not required: a token must not survive
//! because it was mistyped, cut, or because a vendor changed its checksum.
//! `checksum_ok` lets tests and tools verify it.

/// What follows a prefix.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Chars {
    /// `[A-Za-z0-9]`
    Alnum,
    /// `[A-Za-z0-9_-]` (base64url)
    Base64Url,
    /// `[A-Za-z0-9_.-]` (base64url and `.` separators)
    Dotted,
    /// `[0-9a-f]`
    LowerHex,
    /// `[0-9a-fA-F]`
    Hex,
    /// `[A-Za-z]`
    Letters,
    /// Bech32's upper-case alphabet (`age`).
    Bech32Upper,
    /// `[A-Za-z0-9_=-]` (base64url with its padding inside: Atlassian)
    Base64UrlPad,
    /// `[A-Za-z0-9+/=]` (base64)
    Base64,
}

impl Chars {
    pub fn has(self, b: u8) -> bool {
        match self {
            Chars::Alnum => b.is_ascii_alphanumeric(),
            Chars::Base64Url => b.is_ascii_alphanumeric() || b == b'_' || b == b'-',
            Chars::Dotted => b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'),
            Chars::LowerHex => b.is_ascii_digit() || (b'a'..=b'f').contains(&b),
            Chars::Hex => b.is_ascii_hexdigit(),
            Chars::Letters => b.is_ascii_alphabetic(),
            Chars::Bech32Upper => b"QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L".contains(&b),
            Chars::Base64UrlPad => b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'='),
            Chars::Base64 => b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='),
        }
    }

    /// The characters themselves, for tests that make tokens.
    #[cfg(test)]
    pub fn alphabet(self) -> &'static [u8] {
        match self {
            Chars::Alnum => b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
            Chars::Base64Url | Chars::Dotted => {
                b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-"
            }
            Chars::LowerHex => b"0123456789abcdef",
            Chars::Hex => b"0123456789abcdefABCDEF",
            Chars::Letters => b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
            Chars::Bech32Upper => b"QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L",
            Chars::Base64UrlPad => b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-=",
            Chars::Base64 => b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=",
        }
    }
}

/// A format's layout beyond prefix + run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// `prefix` then `min..=max` of `chars`, not followed by another.
    Run,
    /// SendGrid: `SG.` 22 base64url `.` 43 base64url.
    SendGrid,
    /// Mailchimp: 32 hex, then the trigger `-us` and the data centre's digits.
    Mailchimp,
    /// Telegram: the bot's id (digits, the token's start), `:` and 35 base64url.
    Telegram,
    /// Discord: base64 of the bot's id, `.`, 6 base64url, `.`, 27-38 base64url.
    Discord,
    /// An Azure SAS URL's `sig=` parameter: the percent-encoded signature.
    AzureSig,
    /// A PuTTY `.ppk` file's `Private-Lines: N` and the N lines after it.
    PuttyPrivate,
}

/// A checksum a vendor publishes for its tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checksum {
    None,
    /// The last 6 characters are the CRC32 of the 30 before them, in base62
    /// (GitHub's design, which npm took).
    Crc32Base62Last6,
}

/// `checksum` and `source` are read by the tests and by people.
#[derive(Debug)]
#[allow(dead_code)]
pub struct TokenFormat {
    /// The rule name a redaction reports.
    pub rule: &'static str,
    /// The prefix every token starts with (part of the secret).
    pub prefix: &'static str,
    /// The literals the prefilter looks for (three bytes or more).
    pub triggers: &'static [&'static str],
    pub chars: Chars,
    pub min: u16,
    pub max: u16,
    pub shape: Shape,
    pub checksum: Checksum,
    /// The vendor's documentation of the format (or the scanner's rule).
    /// Kept in the source and the tests, not in the module: 70 addresses
    /// a browser would download for nothing.
    #[cfg(test)]
    pub source: &'static str,
}

#[path = "token_rows.rs"]
mod rows;
pub use rows::TOKENS;

/// No token here is longer.
const MAX_TOKEN: usize = 4096;

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// Whether the letter before `pos` ends an escape or a colour code rather
/// than a word, so a token may start at `pos`: `\n`, `\t` (a tool's JSON
/// output inside a string shows its newlines so), and a terminal's
/// ESC [ … m or ESC [ K (`grep --color`, a test runner's green), the ESC as
/// the byte or as `\u001b`, `\x1b`, `\033`, `\e`.
pub(super) fn after_escape(text: &[u8], pos: usize) -> bool {
    let Some(&last) = text[..pos].last() else { return false };
    if pos >= 2 && text[pos - 2] == b'\\' && matches!(last, b'n' | b't' | b'r' | b'b' | b'f' | b'v' | b'e') {
        return true;
    }
    if !last.is_ascii_alphabetic() {
        return false;
    }
    let mut i = pos - 1;
    while i > 0 && pos - i < 32 && (text[i - 1].is_ascii_digit() || text[i - 1] == b';') {
        i -= 1;
    }
    if i == 0 || text[i - 1] != b'[' {
        return false;
    }
    let before = &text[..i - 1];
    [&b"\x1b"[..], b"\\u001b", b"\\u001B", b"\\x1b", b"\\x1B", b"\\033", b"\\e"]
        .iter()
        .any(|esc| before.ends_with(esc))
}

/// The end of the run of `f` bytes from `start`, at most `max` long.
fn run_end(text: &[u8], start: usize, max: usize, f: impl Fn(u8) -> bool) -> usize {
    let limit = text.len().min(start + max);
    text[start.min(limit)..limit].iter().position(|&b| !f(b)).map_or(limit, |i| start + i)
}

/// At most two distinct characters: `npm_xxxx…`, `hf_aaaa…`.
fn is_placeholder(body: &[u8]) -> bool {
    let mut seen: Vec<u8> = Vec::new();
    for &b in body {
        if !seen.contains(&b) {
            seen.push(b);
            if seen.len() > 2 {
                return false;
            }
        }
    }
    true
}

/// The span of the token of format `i` whose trigger is at `pos`.
pub fn detect(text: &[u8], pos: usize, i: usize) -> Option<(usize, usize)> {
    let f = TOKENS.get(i)?;
    match f.shape {
        Shape::Run => {
            // A trigger inside the prefix (`SECRET-KEY-1` of `AGE-SECRET-KEY-1`)
            // puts the token's start before it.
            let inside = f.triggers.iter().find(|t| text[pos..].starts_with(t.as_bytes()));
            let pos = pos.checked_sub(inside.and_then(|t| f.prefix.find(*t)).unwrap_or(0))?;
            if !text[pos..].starts_with(f.prefix.as_bytes())
                || (pos > 0
                    && is_word(text[pos - 1])
                    && !after_escape(text, pos)
                    && !super::formats::glued(text, pos))
            {
                return None;
            }
            let body = pos + f.prefix.len();
            let end = run_end(text, body, usize::from(f.max) + 1, |b| f.chars.has(b));
            let len = end - body;
            let ok = len >= usize::from(f.min)
                && len <= usize::from(f.max)
                && !is_placeholder(&text[body..end])
                // A longer run of the same characters is not this token
                // (except for open-ended rows, whose max is a cap).
                && text.get(end).is_none_or(|&b| !f.chars.has(b) && !is_word(b));
            ok.then_some((pos, end))
        }
        Shape::SendGrid => {
            let a = pos + 3;
            let a_end = run_end(text, a, 23, |b| Chars::Base64Url.has(b));
            if a_end - a != 22 || text.get(a_end) != Some(&b'.') {
                return None;
            }
            let b = a_end + 1;
            let b_end = run_end(text, b, 44, |b| Chars::Base64Url.has(b));
            (b_end - b == 43 && !is_placeholder(&text[b..b_end])).then_some((pos, b_end))
        }
        Shape::Mailchimp => {
            let start = pos.checked_sub(32)?;
            let key = &text[start..pos];
            if !key.iter().all(|&b| Chars::LowerHex.has(b))
                || (start > 0 && text[start - 1].is_ascii_alphanumeric())
            {
                return None;
            }
            let dc = run_end(text, pos + 3, 3, |b| b.is_ascii_digit());
            let ok = dc > pos + 3
                && text.get(dc).is_none_or(|b| !b.is_ascii_alphanumeric())
                && !is_placeholder(key);
            ok.then_some((start, dc))
        }
        Shape::Telegram => {
            let digits = text[..pos].iter().rev().take(11).take_while(|b| b.is_ascii_digit()).count();
            let start = pos - digits;
            let before_ok =
                start == 0 || !text[start - 1].is_ascii_alphanumeric() || text[..start].ends_with(b"bot");
            if !(8..=10).contains(&digits) || !before_ok {
                return None;
            }
            let body = pos + 3;
            let end = run_end(text, body, 34, |b| Chars::Base64Url.has(b));
            let ok = end - body == 33 && text.get(end).is_none_or(|&b| !Chars::Base64Url.has(b));
            ok.then_some((start, end))
        }
        Shape::Discord => {
            if pos > 0 && Chars::Base64Url.has(text[pos - 1]) && !super::formats::glued(text, pos) {
                return None;
            }
            let a_end = run_end(text, pos, 27, |b| b.is_ascii_alphanumeric());
            if !(24..=26).contains(&(a_end - pos)) || text.get(a_end) != Some(&b'.') {
                return None;
            }
            let b = a_end + 1;
            let b_end = run_end(text, b, 7, |b| Chars::Base64Url.has(b));
            if b_end - b != 6 || text.get(b_end) != Some(&b'.') {
                return None;
            }
            let c = b_end + 1;
            let c_end = run_end(text, c, 39, |b| Chars::Base64Url.has(b));
            let ok =
                (27..=38).contains(&(c_end - c)) && text.get(c_end).is_none_or(|&b| !Chars::Base64Url.has(b));
            ok.then_some((pos, c_end))
        }
        Shape::AzureSig => {
            if !(pos > 0 && matches!(text[pos - 1], b'?' | b'&' | b';')) {
                return None;
            }
            let v = pos + 4;
            let end = run_end(text, v, 201, |b| b.is_ascii_alphanumeric() || b"%+/=".contains(&b));
            let ok = (20..=200).contains(&(end - v)) && !is_placeholder(&text[v..end]);
            ok.then_some((v, end))
        }
        Shape::PuttyPrivate => {
            let mut at = pos + f.prefix.len();
            while text.get(at) == Some(&b' ') {
                at += 1;
            }
            let digits_end = run_end(text, at, 4, |b| b.is_ascii_digit());
            let n: usize = std::str::from_utf8(&text[at..digits_end]).ok()?.parse().ok()?;
            if n == 0 {
                return None;
            }
            // The lines after this one: N of base64, then `Private-MAC: …`.
            let mut line = text[digits_end..].iter().position(|&b| b == b'\n').map(|i| digits_end + i + 1)?;
            let start = line;
            let mut end = start;
            for _ in 0..n.min(200) {
                let le = text[line..].iter().position(|&b| b == b'\n').map_or(text.len(), |i| line + i);
                let body = text[line..le].trim_ascii_end();
                if body.is_empty() || !body.iter().all(|&b| b.is_ascii_alphanumeric() || b"+/=".contains(&b))
                {
                    break;
                }
                end = line + body.len();
                line = (le + 1).min(text.len());
                if end - start > MAX_TOKEN {
                    break;
                }
            }
            if text[line..].starts_with(b"Private-MAC:") {
                end = text[line..]
                    .iter()
                    .position(|&b| b == b'\n' || b == b'\r')
                    .map_or(text.len(), |i| line + i);
            }
            (end > start).then_some((start, end))
        }
    }
}

/// CRC32 (IEEE), bitwise: only tests call it.
#[cfg(test)]
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 { (crc >> 1) ^ 0xEDB8_8320 } else { crc >> 1 };
        }
    }
    !crc
}

/// `n` in base62 (`0-9A-Za-z`), left-padded with `0` to `width`.
#[cfg(test)]
pub fn base62(mut n: u32, width: usize) -> Vec<u8> {
    const DIGITS: &[u8] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    while n > 0 {
        out.push(DIGITS[(n % 62) as usize]);
        n /= 62;
    }
    while out.len() < width {
        out.push(b'0');
    }
    out.reverse();
    out
}

/// The 6-character checksum a CRC32/base62 token ends with, for `entropy`.
#[cfg(test)]
pub fn crc32_base62(entropy: &[u8]) -> Vec<u8> {
    base62(crc32(entropy), 6)
}

/// Whether a token of format `i` carries a valid checksum (true where the
/// format has none).
#[cfg(test)]
pub fn checksum_ok(i: usize, token: &[u8]) -> bool {
    let Some(f) = TOKENS.get(i) else { return false };
    match f.checksum {
        Checksum::None => true,
        Checksum::Crc32Base62Last6 => {
            let body = token.strip_prefix(f.prefix.as_bytes()).unwrap_or(token);
            body.len() == 36 && crc32_base62(&body[..30]) == body[30..]
        }
    }
}

#[cfg(test)]
#[path = "tokens_tests.rs"]
mod tests;
