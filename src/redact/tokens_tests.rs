//! Every row of the token table, with fresh random values: found in prose,
//! quoted, in a JSON record and after `=`, reported under the row's rule;
//! one character short (or a placeholder) it stays.

use super::super::Redactor;
use super::*;
use crate::test_rng::Rng;

/// A token of row `f` with `n` body characters (where the row has a run).
fn make(f: &TokenFormat, rng: &mut Rng, n: usize) -> String {
    let body = |rng: &mut Rng, chars: Chars, n| rng.pick(chars.alphabet(), n);
    match f.shape {
        Shape::Run if f.checksum == Checksum::Crc32Base62Last6 => {
            let entropy = body(rng, f.chars, n.saturating_sub(6));
            let sum = String::from_utf8(crc32_base62(entropy.as_bytes())).expect("ascii");
            format!("{}{entropy}{sum}", f.prefix)
        }
        Shape::Run => format!("{}{}", f.prefix, body(rng, f.chars, n)),
        Shape::SendGrid => {
            format!("SG.{}.{}", body(rng, Chars::Base64Url, n), body(rng, Chars::Base64Url, 43))
        }
        Shape::Mailchimp => format!("{}-us{}", body(rng, Chars::LowerHex, n), 1 + rng.next() % 20),
        Shape::Telegram => {
            format!("{}:AA{}", 100_000_000 + rng.next() % 900_000_000, body(rng, Chars::Base64Url, n))
        }
        Shape::Discord => format!(
            "MT{}{}.{}.{}",
            char::from(b"AEIMQUYcgk"[(rng.next() % 10) as usize]),
            body(rng, Chars::Alnum, n - 3),
            body(rng, Chars::Base64Url, 6),
            body(rng, Chars::Base64Url, 38)
        ),
        Shape::AzureSig => format!("sig={}%2B{}%3D", body(rng, Chars::Alnum, n), body(rng, Chars::Alnum, 20)),
        Shape::PuttyPrivate => format!(
            "Private-Lines: 2\n{}\n{}\nPrivate-MAC: {}",
            body(rng, Chars::Alnum, 64),
            body(rng, Chars::Alnum, 20),
            body(rng, Chars::LowerHex, 64)
        ),
    }
}

/// What must not survive of a made token: the secret part.
fn secret_part(f: &TokenFormat, token: &str) -> String {
    match f.shape {
        Shape::AzureSig => token["sig=".len()..].to_owned(),
        Shape::PuttyPrivate => token.lines().nth(1).unwrap_or(token).to_owned(),
        _ => token.to_owned(),
    }
}

/// Where a token sits before it: a URL for a SAS signature, a `.ppk` header.
fn lead(f: &TokenFormat) -> &'static str {
    match f.shape {
        Shape::AzureSig => "https://acct.blob.core.windows.net/c/b?sv=2022-11-02&sp=r&",
        Shape::PuttyPrivate => "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\n",
        _ => "",
    }
}

#[test]
fn every_row_finds_fresh_tokens_in_every_setting() {
    let r = Redactor::default();
    let mut rng = Rng(0x5EED_2222_0000_0001);
    let mut failures = Vec::new();
    for (i, f) in TOKENS.iter().enumerate() {
        for n in [usize::from(f.min), usize::from(f.max).min(80)] {
            let n = n.max(usize::from(f.min));
            let token = make(f, &mut rng, n);
            assert!(checksum_ok(i, token.as_bytes()), "{}: made a bad checksum", f.rule);
            let secret = secret_part(f, &token);
            let lead = lead(f);
            let settings = [
                format!("here is {lead}{token} for you"),
                format!("key = \"{lead}{token}\""),
                format!("{lead}{token}"),
                format!("VENDOR_VALUE={lead}{token}\n"),
                // Glued to a file name by `-` or `_` (a new user's review).
                format!("cat creds_{lead}{token} now"),
                format!("cp backup-{lead}{token} /tmp"),
            ];
            for text in settings {
                let out = r.redact(&text);
                if out.contains(&secret) {
                    failures.push(format!("{}: {text:?} -> {out:?}", f.rule));
                }
                let line = format!(
                    r#"{{"type":"user","message":{{"role":"user","content":{}}}}}"#,
                    serde_json::to_string(&text).expect("string")
                );
                let red = r.redact_line(&line).expect("object");
                let escaped = serde_json::to_string(&secret).expect("string");
                if red.line.contains(&escaped[1..escaped.len() - 1]) {
                    failures.push(format!("{}: journal line kept it: {}", f.rule, red.line));
                }
            }
            // The rule is reported by its row's name.
            let line = format!(
                r#"{{"type":"user","message":{{"role":"user","content":{}}}}}"#,
                serde_json::to_string(&format!("here is {lead}{token} ok")).expect("string")
            );
            let counts = r.redact_journal(&format!("{line}\n"));
            if !counts.rules.contains_key(f.rule) {
                failures.push(format!("{}: counted as {:?}", f.rule, counts.rules));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn short_runs_and_placeholders_stay() {
    let r = Redactor::default();
    let mut rng = Rng(0x5EED_2222_0000_0002);
    for f in TOKENS.iter().filter(|f| f.shape == Shape::Run && f.min > 8) {
        let short = format!("{}{}", f.prefix, rng.pick(f.chars.alphabet(), usize::from(f.min) - 1));
        let text = format!("see {short} here");
        assert_eq!(r.redact(&text), text, "{}: a short run", f.rule);
        let placeholder = format!("see {}{} here", f.prefix, "x".repeat(usize::from(f.min)));
        assert_eq!(r.redact(&placeholder), placeholder, "{}: a placeholder", f.rule);
    }
    for text in [
        "monkey-0123456789abcdef0123456789abcdef",
        "the task SKIP list",
        "usage: mysql -u root",
        "a signal: sig=abc",
        "Private-Lines: none here",
    ] {
        assert_eq!(r.redact(text), text);
    }
}

/// The npm token that secretlint's maintainers quote as a (dummy) example
/// of the new format ends in the CRC32/base62 of its 30 characters of
/// entropy: our reading of the published checksum agrees with npm's.
#[test]
fn the_published_checksum_reads_as_npm_and_github_write_it() {
    let npm = TOKENS.iter().position(|f| f.rule == "npm-token").expect("npm row");
    assert!(checksum_ok(npm, b"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"));
    assert!(!checksum_ok(npm, b"npm_qkJaB6MffYVzZXWqmcoF49yrUxP3wf0LsakQ"));
}

#[test]
fn every_row_names_its_source() {
    for f in TOKENS {
        assert!(f.source.starts_with("https://"), "{}", f.rule);
        assert!(f.triggers.iter().all(|t| t.len() >= 3), "{}: a trigger shorter than 3 bytes", f.rule);
    }
}
