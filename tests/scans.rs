//! The SIMD byte scans (issue 29) against the obvious byte-at-a-time
//! definitions, at every alignment and every length around the vector
//! widths (16, 32, 64 bytes), over bytes chosen to sit next to the needles
//! (0x0B after a newline, `Z`/`z` beside the brackets' folded bit, UTF-8
//! lead and continuation bytes); and the replay that uses them, fed whole
//! and cut at every byte (inside multi-byte characters and escapes), giving
//! the same state and the same line starts.
//!
//! Runs natively (`cargo test --test scans`) and in wasm, where the scans
//! are memchr's simd128 paths (`cargo test --target wasm32-unknown-unknown
//! --test scans` with wasm-bindgen-test-runner: Node).

use garuda_session::bytes;
use garuda_session::json_check;
use garuda_session::{Journal, Redactor};

#[cfg(target_arch = "wasm32")]
use wasm_bindgen_test::wasm_bindgen_test as test;

#[path = "support/rng.rs"]
mod rng;
use rng::Rng;

/// Bytes near every needle the scans look for, and UTF-8 pieces.
const ALPHABET: &[u8] =
    b"\n\x0b\x09\"\\[{]}zZ;|a\xc3\xa9\xe2\x80\xa8\xf0\x9f\x98\x80\xff\x00\x7b\x5b\x22\x5c";

fn texts() -> Vec<Vec<u8>> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut out = Vec::new();
    for len in [0, 1, 2, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 255, 256, 257] {
        for density in [1, 4, 40, 1000] {
            // Mostly a plain letter, a needle-ish byte one time in `density`.
            let text: Vec<u8> = (0..len)
                .map(|_| if rng.below(density) == 0 { ALPHABET[rng.below(ALPHABET.len())] } else { b'x' })
                .collect();
            out.push(text);
        }
    }
    out
}

/// Every slice of `text` that starts in its first 33 bytes (every alignment
/// of a 16-byte vector, twice) and ends in its last 70 (every tail of
/// memchr's 64-byte unrolled loop).
fn slices(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let n = text.len();
    (0..n.min(33) + 1).flat_map(move |a| (n.saturating_sub(70).max(a)..=n).map(move |b| &text[a..b]))
}

#[test]
fn single_byte_scans_agree_with_the_obvious_ones() {
    for text in texts() {
        for s in slices(&text) {
            for needle in [b'\n', b'\\', b'"', 0xff, 0x00] {
                assert_eq!(
                    bytes::find_byte(s, needle),
                    s.iter().position(|&b| b == needle),
                    "{s:?} {needle}"
                );
                assert_eq!(bytes::find_last_byte(s, needle), s.iter().rposition(|&b| b == needle), "{s:?}");
                assert_eq!(bytes::count_byte(s, needle), s.iter().filter(|&&b| b == needle).count(), "{s:?}");
            }
            assert_eq!(
                bytes::find_quote_or_backslash(s),
                s.iter().position(|&b| b == b'"' || b == b'\\'),
                "{s:?}"
            );
            let openings = s.iter().filter(|&&b| b == b'[' || b == b'{').count();
            assert_eq!(bytes::count_openings(s, usize::MAX), openings, "{s:?}");
            for stop in [0, 1, 3] {
                let counted = bytes::count_openings(s, stop);
                assert_eq!(counted > stop, openings > stop, "{s:?} stop {stop}");
            }
        }
    }
}

#[test]
fn substring_scans_agree_with_the_obvious_ones() {
    let naive = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).position(|w| w == needle);
    let folded =
        |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).any(|w| w.eq_ignore_ascii_case(needle));
    for text in texts() {
        for s in slices(&text) {
            for needle in [&b"\"usage\""[..], b"\n\x0b", b"z\\", b"\xc3\xa9", b"x", b"xx", b"xxz"] {
                assert_eq!(bytes::find_bytes(s, needle), naive(s, needle), "{s:?} {needle:?}");
            }
            for needle in [&b"zz"[..], b"xz;", b"x"] {
                assert_eq!(bytes::contains_ignoring_case(s, needle), folded(s, needle), "{s:?} {needle:?}");
            }
        }
    }
}

/// A journal whose lines hold what the scans must step over: multi-byte
/// characters, escaped quotes and backslashes, `\u` escapes (a surrogate
/// pair too), brackets inside strings, a deep line, a bad line, blank lines,
/// CRLF, and no newline at the end.
fn tricky_journal() -> String {
    let mut lines = vec![
        r#"{"type":"start","sessionId":"s-é","model":"claude-sonnet-4-5","t":"2026-01-01T00:00:00Z"}"#.to_owned(),
        r#"{"type":"user","message":{"role":"user","content":"é ∀ 😀 \"quoted [{ not nested\" \\ back\\\\slash \u2028 \ud83d\ude00"}}"#
            .to_owned(),
        String::new(),
        "not json at all: { [ \" \\".to_owned(),
        r#"{"type":"assistant","step":1,"response":{"role":"assistant","content":[{"type":"text","text":"ok ✓ \"]]}}\""}]},"usage":{"inputTokens":10,"outputTokens":5}}"#.to_owned(),
        format!(r#"{{"type":"user","message":{{"role":"user","content":[{{"type":"text","text":"{}"}}]}}}}"#, "[{é\\\"".repeat(40)),
        format!(r#"{{"type":"title","title":"deep {}"}}"#, "[".repeat(200)),
        format!(r#"{{"type":"user","message":{{"role":"user","content":{}1{}}}}}"#, "[".repeat(140), "]".repeat(140)),
        "{\"type\":\"title\",\"title\":\"crlf ü\"}\r".to_owned(),
    ];
    lines.push(r#"{"type":"title","title":"last, no newline ü"}"#.to_owned());
    lines.join("\n")
}

fn replay(chunks: &[&[u8]]) -> Journal {
    let mut j = Journal::default().with_line_starts();
    for c in chunks {
        j.feed_bytes(c);
    }
    j.finish();
    j
}

#[test]
fn replay_cut_anywhere_gives_the_whole_inputs_state_and_line_starts() {
    let text = tricky_journal();
    let b = text.as_bytes();
    let whole = replay(&[b]);
    let state = whole.state();
    assert!(whole.state().warnings.iter().any(|w| w.line == 4), "the bad line is read as one");
    // The line starts by the obvious definition.
    let lines: Vec<&[u8]> = b.split(|&c| c == b'\n').collect();
    let mut at = 0u64;
    for (i, line) in lines.iter().enumerate() {
        assert_eq!(whole.line_range(i as u64 + 1), Some((at, at + line.len() as u64)), "line {}", i + 1);
        at += line.len() as u64 + 1;
    }
    assert_eq!(whole.line_range(lines.len() as u64 + 1), None);
    // Two pieces, cut at every byte (inside characters and escapes).
    for cut in 0..=b.len() {
        let j = replay(&[&b[..cut], &b[cut..]]);
        assert_eq!(j.state(), state, "cut at {cut}");
        assert_eq!(j.line_count(), whole.line_count(), "cut at {cut}");
        for n in 1..=lines.len() as u64 + 1 {
            assert_eq!(j.line_range(n), whole.line_range(n), "cut at {cut}, line {n}");
        }
    }
    // Chunks of every small size, and sizes around the vector widths.
    for size in (1..=70).chain([127, 128, 129, 255, 256, 4096]) {
        let chunks: Vec<&[u8]> = b.chunks(size).collect();
        let j = replay(&chunks);
        assert_eq!(j.state(), state, "chunks of {size}");
        assert_eq!(
            j.line_range(lines.len() as u64),
            whole.line_range(lines.len() as u64),
            "chunks of {size}"
        );
    }
    // Text fed as &str in pieces cut at character boundaries only.
    let mut j = Journal::default().with_line_starts();
    let mut start = 0;
    for (i, _) in text.char_indices().filter(|(i, _)| i % 7 == 0) {
        j.feed(&text[start..i]);
        start = i;
    }
    j.feed(&text[start..]);
    j.finish();
    assert_eq!(j.state(), state, "fed as text");
    assert_eq!(j.state().to_json(), whole.state().to_json());
    assert_eq!(j.line_range(3), whole.line_range(3));
}

/// Lines with invalid UTF-8 among valid ones: the raw path notes line starts too.
#[test]
fn line_starts_survive_invalid_utf8_and_overlong_lines() {
    let mut text = b"{\"type\":\"title\",\"title\":\"a\"}\n\xff\xfe bad\n".to_vec();
    text.extend_from_slice(format!("{{\"type\":\"title\",\"title\":\"{}\"}}\n", "y".repeat(300)).as_bytes());
    text.extend_from_slice("{\"type\":\"title\",\"title\":\"é\"}\n".as_bytes());
    // A last line cut inside a character.
    text.push(0xc3);
    let lines: Vec<&[u8]> = text.split(|&c| c == b'\n').collect();
    for size in [1, 2, 3, 5, 16, 64, text.len()] {
        let mut j = Journal::default().with_line_starts().with_max_line(100);
        for c in text.chunks(size) {
            j.feed_bytes(c);
        }
        let mut at = 0u64;
        for (i, line) in lines.iter().enumerate() {
            assert_eq!(
                j.line_range(i as u64 + 1),
                Some((at, at + line.len() as u64)),
                "line {} in chunks of {size}",
                i + 1
            );
            at += line.len() as u64 + 1;
        }
        j.finish();
        assert_eq!(j.state().title.as_deref(), Some("é"), "chunks of {size}");
    }
}

/// The Redactor's JSON-line scan (strings found with memchr2) at every
/// alignment of a secret behind escapes and multi-byte characters: the
/// secret never survives, the line stays JSON, the rest is kept.
#[test]
fn redaction_finds_secrets_behind_escapes_at_every_alignment() {
    let secret = "sk-ant-api03-abc123xyz-456def789ghij-klmnopqrstuvwx-3456yza789bcde-1234fghijklmnopby56aaaogaopaaaabc123xyzAA";
    let r = Redactor::new(Vec::<(String, String)>::new());
    for pad in 0..40 {
        let lead = "é\\\"\\\\[".repeat(pad / 5) + &"x".repeat(pad % 5);
        let line = format!(
            r#"{{"type":"user","message":{{"role":"user","content":"{lead}key {secret} tail ü\"{{"}}}}"#
        );
        let out = r.redact_line(&line).expect("a record");
        assert!(!out.line.contains(secret), "pad {pad}: {}", out.line);
        let v: serde_json::Value = serde_json::from_str(&out.line).expect("still JSON");
        let content = v["message"]["content"].as_str().expect("content");
        let lead_text: String = serde_json::from_str(&format!("\"{lead}\"")).unwrap();
        assert!(content.starts_with(&lead_text), "pad {pad}: {content}");
        assert!(content.ends_with(" tail ü\"{"), "pad {pad}: {content}");
    }
}

/// At least `len` bytes of `x`, one of `pieces` in place of an `x` one time
/// in `one_in`: stop bytes at every place of a vector step.
fn sprinkled(rng: &mut Rng, len: usize, pieces: &[&str], one_in: usize) -> String {
    let mut text = String::new();
    while text.len() < len {
        if rng.below(one_in) == 0 {
            text.push_str(pieces[rng.below(pieces.len())]);
        } else {
            text.push('x');
        }
    }
    text
}

/// The Redactor's JSON check (simd128 in wasm, a u64 step natively)
/// accepts exactly what serde_json's `IgnoredAny` accepts, with strings
/// whose stop bytes (`"`, `\`, control bytes) sit at every place of a
/// 16-byte vector, cut at every byte.
#[test]
fn json_check_agrees_with_serde_json_at_every_alignment() {
    let serde_says = |t: &str| serde_json::from_str::<serde::de::IgnoredAny>(t).is_ok();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let stops = ["\\\"", "\\\\", "\\n", "\\u00e9", "\\u12", "\\x", "\u{1}", "\u{1f}", "\"", "é", "😀", " "];
    for len in [0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 100] {
        for _ in 0..6 {
            let value = sprinkled(&mut rng, len, &stops, 8);
            let line = format!("{{\"k\":\"{value}\",\"n\":[1,-2.5e3,{{}}],\"t\":true}}");
            for cut in (0..=line.len()).filter(|&c| line.is_char_boundary(c)) {
                let t = &line[..cut];
                assert_eq!(json_check::is_json(t.as_bytes()), serde_says(t), "{t:?}");
            }
        }
    }
}

/// The record walk (record_walk.rs, on json_check's scan) reads a line as
/// serde_json reads it, with message text whose stop bytes sit at every
/// place of a 16-byte vector, whole and cut at every byte.
#[test]
fn the_record_walk_agrees_with_serde_json_at_every_alignment() {
    let mut rng = Rng(0x9E6C_63D0_676A_9A99);
    let stops = ["\\\"", "\\\\", "\\n", "\\u00e9", "\\u12", "\u{1}", "\"", "é", "😀", " "];
    let mut read = 0;
    for len in [0, 1, 15, 16, 17, 31, 32, 33, 64, 100] {
        for _ in 0..4 {
            let text = sprinkled(&mut rng, len, &stops, 6);
            let line = format!(
                "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"text\",\"text\":\"{text}\"}}]}},\"t\":\"{text}\"}}"
            );
            for cut in (0..=line.len()).filter(|&c| line.is_char_boundary(c)) {
                let t = &line[..cut];
                assert_eq!(garuda_session::record_walk::differs_from_serde(t), None, "{t:?}");
            }
            // A whole line that is JSON is the walk's to read.
            let json = serde_json::from_str::<serde::de::IgnoredAny>(&line).is_ok();
            assert_eq!(garuda_session::record_walk::walks(&line), json, "{line:?}");
            read += usize::from(json);
        }
    }
    assert!(read > 5, "{read} whole lines were JSON");
}

/// The JSON string writers (simd128 in wasm, a u64 step natively): with
/// the stop bytes and non-ASCII characters at every place of a 16-byte
/// vector, `str_literal` is what serde_json writes, the ASCII literal is
/// ASCII and reads back as the text, and `decode_prefix` reads back the
/// start of either.
#[test]
fn string_writers_at_every_alignment() {
    use garuda_session::json_str::{decode_prefix, push_ascii_literal, str_literal};
    let mut rng = Rng(0x6A09_E667_F3BC_C909);
    let pieces =
        ["\"", "\\", "\n", "\u{1}", "\u{1f}", "\u{7f}", "\u{80}", "é", "✓", "\u{2028}", "😀", "\u{10ffff}"];
    for len in [0, 1, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 100] {
        for _ in 0..8 {
            let text = sprinkled(&mut rng, len, &pieces, 6);
            assert_eq!(str_literal(&text), serde_json::to_string(&text).unwrap(), "{text:?}");
            let mut ascii = String::new();
            push_ascii_literal(&mut ascii, &text);
            assert!(ascii.is_ascii(), "{ascii}");
            assert_eq!(serde_json::from_str::<String>(&ascii).unwrap(), text);
            // The first characters read back, from either literal.
            for limit in [0, 1, 5, 16, 17, 40, 1000] {
                let head: String = text.chars().take(limit).collect();
                for literal in [&ascii, &str_literal(&text)] {
                    assert_eq!(decode_prefix(literal, limit).as_ref(), Some(&head), "{literal} {limit}");
                }
            }
        }
    }
}
