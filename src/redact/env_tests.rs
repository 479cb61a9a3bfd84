//! Compiled only under #[cfg(test)] (see mod.rs). The Redactor's own
//! values, the environment's secrets: they go from every place, the
//! exempt ones (signatures, ciphertext) included, in every spelling a
//! tool or a URL gives them, escaped once or twice. The helpers are
//! tests.rs's.

use super::tests::{gone, json_str, record, GITHUB};
use super::*;

/// The live fuzzer planted one in a signature
/// (tests/fuzz-crashers/live/env-secret-in-signature).
#[test]
fn env_values_go_even_from_exempt_places() {
    let secret = "pl4nted-S3CRET-value";
    let r = Redactor::new([("FUZZ_API_TOKEN", secret)]);
    let escaped = r"pl4nted-S3CRET-value";
    for (inside, plain) in [(secret, true), (escaped, false)] {
        let line = format!(
            r#"{{"type":"assistant","response":{{"content":[{{"type":"thinking","thinking":"ok","signature":"c2lnLT{inside}M="}},{{"type":"redacted_thinking","data":"ZGF0{inside}YQ=="}},{{"type":"web_search_tool_result","content":[{{"type":"web_search_result","encrypted_content":"{GITHUB}{inside}"}}]}},{{"type":"image","source":{{"type":"base64","media_type":"image/png","data":"iVBOR{inside}"}}}}]}}}}"#
        );
        let out = r.redact_line(&line).expect("object");
        assert!(out.changed, "{line}");
        gone(&out.line, secret);
        assert!(!out.line.contains(inside), "{}", out.line);
        // Only the value: the rest of each exempt string, a token pattern
        // included, is as it was.
        for kept in [
            r#""signature":"c2lnLT[REDACTED]M=""#,
            r#""data":"ZGF0[REDACTED]YQ==""#,
            r#""data":"iVBOR[REDACTED]""#,
        ] {
            assert!(out.line.contains(kept), "{kept} ({plain}): {}", out.line);
        }
        assert!(out.line.contains(&format!(r#""encrypted_content":"{GITHUB}[REDACTED]""#)), "{}", out.line);
        assert!(out.line.ends_with(r#","redacted":true}"#), "{}", out.line);
    }
    // Without the value, the same places are left byte for byte.
    let line = r#"{"type":"assistant","response":{"content":[{"type":"thinking","thinking":"ok","signature":"c2lnLTpsM="}]}}"#;
    assert!(!r.redact_line(line).expect("object").changed);
}

#[test]
fn env_values_go_in_every_spelling() {
    let r = Redactor::new([("MY_SERVICE_TOKEN", "p@ss w/rd\"x1"), ("HOME", "/home/someone/long")]);
    let text =
        "raw p@ss w/rd\"x1, url p%40ss%20w%2Frd%22x1, form p%40ss+w%2Frd%22x1, home /home/someone/long";
    let out = r.redact(text);
    assert_eq!(out, "raw [REDACTED], url [REDACTED], form [REDACTED], home /home/someone/long");
    let line = format!(
        r#"{{"type":"user","message":{{"role":"user","content":{}}}}}"#,
        json_str("token p@ss w/rd\"x1 here")
    );
    let out = r.redact_line(&line).expect("object");
    assert!(out.line.contains("token [REDACTED] here"), "{}", out.line);
    // Longest value first when values overlap.
    let r = Redactor::new([("A_KEY", "abcdefgh"), ("B_KEY", "abcdefgh-ijkl")]);
    assert_eq!(r.redact("abcdefgh-ijkl abcdefgh"), "[REDACTED] [REDACTED]");
}

/// An environment secret with a quote or a backslash, in a JSON file a tool
/// printed (`cat config/local.json`): the journal line holds it escaped
/// twice, and redact_line kept it where redact took it (a red-team review).
#[test]
fn an_environment_secret_with_a_quote_goes_from_a_json_file_a_tool_printed() {
    let value = r#"P@ss"w0rd\9!x"#;
    let r = Redactor::new([("DB_PASSWORD", value)]);
    let output = format!("{{\n  \"pw\": {}\n}}\n", json_str(value));
    gone(&r.redact(&output), r#"w0rd\\9!x"#);
    let line = record(
        "tool_results",
        &format!(
            r#""message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t1","content":{}}}]}},"calls":[]"#,
            json_str(&output)
        ),
    );
    let out = r.redact_line(&line).expect("object").line;
    let decoded: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let content = decoded["message"]["content"][0]["content"].as_str().expect("string");
    assert!(!content.contains("w0rd"), "{content}");
}
