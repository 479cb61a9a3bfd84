//! `Decoded::hits` against the scan it saves: the prefilter's hits in a
//! JSON string's decoded text, taken from the raw line's, must be what
//! scanning the decoded text finds, hit for hit and in the same order.

use super::jsonline::{decode, tokenize};
use super::triggers::Triggers;

use crate::test_shared as shared;

/// Environment values with the characters escapes decode to (a quote, a
/// backslash, a slash, a new line), so hits across escapes are looked for,
/// some starting with one.
fn triggers() -> Triggers {
    let env: Vec<Vec<u8>> =
        ["Hunter2\"x", "a\\bc", "line1\nline2", "s3cr/et9", "tab\tkey", "\"qu0ted", "/opt/s3"]
            .iter()
            .map(|v| v.as_bytes().to_vec())
            .collect();
    Triggers::new(&env, &[])
}

/// Checks every escaped string of a JSON object line; the number checked.
fn check_line(t: &Triggers, line: &str) -> usize {
    let line_hits = t.scan(line.as_bytes());
    let tokens = tokenize(line);
    let mut checked = 0;
    for s in tokens.strings.iter().filter(|s| s.escaped) {
        let decoded = decode(tokens.raw(line, s), s.start);
        let Some(hits) = decoded.hits(&line_hits, s.end, t) else { continue };
        let scanned = t.scan(decoded.text.as_bytes());
        assert_eq!(hits, scanned, "{:?} in {line}", decoded.text);
        checked += 1;
    }
    checked
}

#[test]
fn strings_made_of_literals_and_escapes() {
    let t = triggers();
    let pieces = [
        "pw", "PW", "pass", "word", "token", "key", ":", "/", " ", "=", "-p", "x", "a", "bc", "eyJ", "sk-",
        "Hunter2", "line1", "line2", "s3cr", "et9", "tab", "curl",
        // After an escape's letter (`\token`, `\nnwort`, `\bearer`), the raw
        // line holds a literal the text does not.
        "oken", "nwort", "earer", "qu0ted", "opt", "s3", r"\n", r"\t", r#"\""#, r"\\", r"\/", r"\r", r"\b",
        r"\f",
    ];
    let mut rng = crate::test_rng::Rng(0x9E37_79B9_7F4A_7C15);
    let mut checked = 0;
    for _ in 0..20_000 {
        let n = 1 + rng.below(12);
        let raw: String = (0..n).map(|_| pieces[rng.below(pieces.len())]).collect();
        checked += check_line(&t, &format!(r#"{{"k":"{raw}","n":"{raw}x"}}"#));
    }
    assert!(checked > 10_000, "{checked}");
}

#[test]
fn a_unicode_escape_leaves_the_text_to_the_scan() {
    let t = triggers();
    let decoded = decode(r"pass\u0077ord", 0);
    assert!(decoded.hits(&t.scan(br"pass\u0077ord"), 13, &t).is_none());
}

/// Every escaped string of the samples and ../shared/peers (each agent's
/// own writing: code, diffs, logs, quoted JSON).
#[test]
fn real_sessions() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = shared::session_files(&root.join("web-demo/samples"));
    if let Some(peers) = shared::shared_file("decoded hits against the scan (the peers)", "peers") {
        files.extend(shared::session_files(&peers));
    }
    let t = triggers();
    let mut checked = 0;
    for path in files {
        let text = String::from_utf8_lossy(&std::fs::read(&path).unwrap_or_default()).into_owned();
        for line in
            text.lines().filter(|l| serde_json::from_str::<serde_json::Value>(l).is_ok_and(|v| v.is_object()))
        {
            checked += check_line(&t, line);
        }
    }
    assert!(checked > 0);
    eprintln!("decoded hits: {checked} escaped strings");
}
