//! The hand-written known-format matchers (src/redact/formats.rs) against a
//! regex-lite reference of each documented key format, on generated and
//! random text: every match the reference finds, the Redactor removes.
//! The matchers may take more (a new length of a known prefix must not
//! leak); they must never take less.

#[path = "support/generator.rs"]
mod generator;

use garuda_session::Redactor;
use generator::Rng;
use regex_lite::Regex;

/// (name, reference pattern with the secret in group 1, filter on a match).
type Reference = (&'static str, Regex, fn(&str) -> bool);

/// Boundaries are spelled out: regex-lite has no look-around.
fn references() -> Vec<Reference> {
    let not_placeholder = |s: &str| {
        let body = s.split_once('_').map_or(s, |x| x.1).as_bytes();
        let mut seen: Vec<u8> = Vec::new();
        for &b in body.iter().filter(|b| !matches!(b, b'-' | b'_' | b'.')) {
            if !seen.contains(&b) {
                seen.push(b);
            }
        }
        seen.len() > 2
    };
    let no_sequence = |s: &str| {
        let b = s.as_bytes();
        let mut run = 1;
        for w in b.windows(2) {
            run = if w[0].is_ascii_alphanumeric() && w[1] == w[0].wrapping_add(1) { run + 1 } else { 1 };
            if run >= 8 {
                return false;
            }
        }
        true
    };
    let re = |p: &str| Regex::new(p).expect("reference pattern");
    vec![
        (
            "anthropic",
            re(r"(?:^|[^A-Za-z0-9_-])(sk-ant-(?:api03|admin01)-[A-Za-z0-9_-]{93}AA)(?:$|[^A-Za-z0-9_-])"),
            |_| true,
        ),
        // Anthropic's other credentials (OAuth access and refresh tokens,
        // session keys) and other lengths: 40 characters or more after the
        // kind, but the one known non-key shape and placeholders.
        (
            "anthropic-any",
            re(
                r"(?:^|[^A-Za-z0-9_-])(sk-ant-(?:api03|admin01|oat01|ort01|sid01)-[A-Za-z0-9_-]{40,})(?:$|[^A-Za-z0-9_-])",
            ),
            |s| {
                let (kind, body) = s["sk-ant-".len()..].split_once('-').unwrap_or_default();
                let strict = matches!(kind, "api03" | "admin01") && body.len() == 95 && !body.ends_with("AA");
                let mut seen: Vec<u8> = body.bytes().filter(|b| !matches!(b, b'-' | b'_' | b'.')).collect();
                seen.sort_unstable();
                seen.dedup();
                !strict && (seen.len() > 2 || matches!(kind, "api03" | "admin01") && body.len() >= 80)
            },
        ),
        (
            "openai",
            re(
                r"(?:^|[^A-Za-z0-9_-])(sk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}T3BlbkFJ[A-Za-z0-9_-]{20,})(?:$|[^A-Za-z0-9_-])",
            ),
            |_| true,
        ),
        (
            "aws",
            re(r"(?:^|[^A-Za-z0-9])((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16})(?:$|[^A-Za-z0-9])"),
            |s| !s.ends_with("EXAMPLE"),
        ),
        (
            "github",
            re(r"(?:^|[^A-Za-z0-9_])(gh[pousr]_[A-Za-z0-9_]{36,})(?:$|[^A-Za-z0-9_])"),
            not_placeholder,
        ),
        ("github-pat", re(r"(?:^|[^A-Za-z0-9_])(github_pat_[A-Za-z0-9_]{22,})(?:$|[^A-Za-z0-9_])"), |s| {
            let body = &s.as_bytes()[11..];
            let mut seen: Vec<u8> = body.iter().copied().filter(|b| *b != b'_').collect();
            seen.sort_unstable();
            seen.dedup();
            seen.len() > 2
        }),
        (
            "slack",
            re(
                r"(?:^|[^A-Za-z0-9])((?:xox[abeoprs]|xapp)-[0-9]+-[A-Za-z0-9][A-Za-z0-9-]*)(?:$|[^A-Za-z0-9-])",
            ),
            |s| {
                s.len() - 5 >= 20 && {
                    let mut seen: Vec<u8> =
                        s.as_bytes()[5..].iter().copied().filter(|b| *b != b'-').collect();
                    seen.sort_unstable();
                    seen.dedup();
                    seen.len() > 2
                }
            },
        ),
        ("google", re(r"(?:^|[^A-Za-z0-9_-])(AIza[A-Za-z0-9_-]{35})(?:$|[^A-Za-z0-9_-])"), no_sequence),
        (
            "jwt",
            re(r"(?:^|[^A-Za-z0-9_-])(eyJ[A-Za-z0-9_-]{7,}\.eyJ[A-Za-z0-9_-]{7,}\.[A-Za-z0-9_-]*)"),
            |_| true,
        ),
        (
            "private-key",
            re(r"(-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----)"),
            |s| s.bytes().filter(u8::is_ascii_alphanumeric).count() >= 16 + 40,
        ),
    ]
}

const TOKEN: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
const UPPER: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

fn run(rng: &mut Rng, alphabet: &[u8], n: usize) -> String {
    (0..n).map(|_| char::from(alphabet[rng.below(alphabet.len() as u64) as usize])).collect()
}

/// `min` to `min + spread - 1` characters of `alphabet`.
fn runs(rng: &mut Rng, alphabet: &[u8], min: usize, spread: u64) -> String {
    let n = min + rng.below(spread) as usize;
    run(rng, alphabet, n)
}

/// A secret of each documented shape, from random bodies.
fn secret(rng: &mut Rng) -> String {
    let alnum = &TOKEN[..62];
    match rng.below(10) {
        0 => format!("sk-ant-api03-{}AA", run(rng, TOKEN, 93)),
        8 => {
            let kind = rng.pick(&["api03", "admin01", "oat01", "ort01", "sid01"]);
            format!("sk-ant-{kind}-{}", runs(rng, TOKEN, 40, 90))
        }
        1 => format!("sk-ant-admin01-{}AA", run(rng, TOKEN, 93)),
        2 => {
            let kind = rng.pick(&["", "proj-", "svcacct-", "admin-"]);
            let (a, b) = (20 + rng.below(40) as usize, 20 + rng.below(40) as usize);
            format!("sk-{kind}{}T3BlbkFJ{}", run(rng, TOKEN, a), run(rng, TOKEN, b))
        }
        3 => format!("{}{}", rng.pick(&["AKIA", "ASIA", "ABIA", "ACCA", "A3TX"]), run(rng, UPPER, 16)),
        4 => {
            format!("{}_{}", rng.pick(&["ghp", "gho", "ghu", "ghs", "ghr"]), runs(rng, &TOKEN[..63], 36, 10))
        }
        5 => format!("github_pat_{}", runs(rng, &TOKEN[..63], 22, 70)),
        6 => format!(
            "{}-{}-{}",
            rng.pick(&["xoxb", "xoxp", "xoxa", "xoxe", "xoxo", "xoxr", "xoxs", "xapp"]),
            runs(rng, b"0123456789", 6, 8),
            runs(rng, alnum, 12, 30)
        ),
        7 => format!("AIza{}", run(rng, TOKEN, 35)),
        _ => format!(
            "eyJ{}.eyJ{}.{}",
            runs(rng, TOKEN, 10, 30),
            runs(rng, TOKEN, 10, 60),
            runs(rng, TOKEN, 0, 50)
        ),
    }
}

fn private_key_block(rng: &mut Rng) -> String {
    let label = rng.pick(&["RSA PRIVATE KEY", "PRIVATE KEY", "EC PRIVATE KEY", "OPENSSH PRIVATE KEY"]);
    let lines: Vec<String> = (0..1 + rng.below(4)).map(|_| run(rng, &TOKEN[..62], 64)).collect();
    format!("-----BEGIN {label}-----\n{}\n-----END {label}-----", lines.join("\n"))
}

/// Text around and between secrets: separators, near misses, noise.
fn filler(rng: &mut Rng) -> String {
    match rng.below(8) {
        0 => " ".into(),
        1 => rng.pick(&["=", ": ", "=\"", "\"", "'", "\n", "\t", "(", ")", ",", "`", "/", "@", "."]).into(),
        2 => runs(rng, TOKEN, 0, 12),
        3 => {
            // A near miss: a secret cut short or run on.
            let s = secret(rng);
            let cut = rng.below(s.len() as u64) as usize;
            s[..cut].to_owned()
        }
        4 => format!("{}{}", secret(rng), runs(rng, TOKEN, 1, 3)),
        5 => {
            rng.pick(&["sk-", "ghp_", "xoxb-", "AIza", "eyJ", "AKIA", "-----BEGIN", "token=", "key: "]).into()
        }
        6 => "password = ".into(),
        _ => "lorem ipsum ".into(),
    }
}

#[test]
fn the_matchers_find_every_match_the_reference_finds() {
    let refs = references();
    let redactor = Redactor::default();
    let mut rng = Rng::new(2026);
    let (mut texts, mut found) = (0, vec![0usize; refs.len()]);
    for round in 0..6000 {
        let mut text = String::new();
        for _ in 0..1 + rng.below(6) {
            match rng.below(10) {
                0..=3 => text.push_str(&secret(&mut rng)),
                4 => text.push_str(&private_key_block(&mut rng)),
                _ => text.push_str(&filler(&mut rng)),
            }
            text.push_str(&filler(&mut rng));
        }
        if round % 3 == 0 {
            // Random text alone, from the tokens' own alphabet.
            text = run(&mut rng, b"AIzaskeyJ-_.ghp0123456789ABCDEFxoxbT3BlbkFJ \n", 400);
        }
        texts += 1;
        let out = redactor.redact(&text);
        for (k, (name, re, keep)) in refs.iter().enumerate() {
            for caps in re.captures_iter(&text) {
                let Some(m) = caps.get(1) else { continue };
                if !keep(m.as_str()) {
                    continue;
                }
                found[k] += 1;
                assert!(
                    !out.contains(m.as_str()),
                    "{name}: the reference matches {:?} but the Redactor left it in:\n{text}\n->\n{out}",
                    m.as_str()
                );
            }
        }
    }
    let counts: Vec<String> = refs.iter().zip(&found).map(|((n, _, _), c)| format!("{n} {c}")).collect();
    println!("{texts} texts; reference matches, all removed: {}", counts.join(", "));
    assert!(found.iter().all(|&c| c > 20), "every format is exercised: {counts:?}");
}
