//! Compiled only under #[cfg(test)] (see mod.rs). Secrets in the spellings
//! a copy, a page or another language gives them: key markers with four or
//! six dashes, no-break spaces, fullwidth operators, a JWT wrapped across
//! lines, a Markdown table's column, a passphrase of words. Each case
//! leaked before its rule (a red-team review, stop 50). The helpers are
//! tests.rs's.

use super::tests::{gone, json_str, record, redactor};
use super::*;

/// Redacted alone and as a user record's content: `secret` goes, and the
/// record is still JSON.
pub(super) fn gone_from_text_and_record(r: &Redactor, text: &str, secret: &str) {
    gone(&r.redact(text), secret);
    let line = record("user", &format!(r#""message":{{"role":"user","content":{}}}"#, json_str(text)));
    let out = r.redact_line(&line).expect("object").line;
    gone(&out, secret);
    assert!(serde_json::from_str::<serde_json::Value>(&out).is_ok(), "{out}");
}

/// A key block whose markers have four dashes (or six), as a copy by hand or
/// a tool's rendering may leave it, is as secret as one with five (the red
/// team's `----BEGIN RSA PRIVATE KEY----` kept its body whole); with three it
/// is not taken for a marker, and a public key's block stays.
#[test]
fn a_private_key_block_with_four_or_six_dashes_goes() {
    let r = redactor();
    let body = "MIIEpQIBAAKCAQEAn6/O8li+SX4m98LLYt/PKSzEmQ++ZBD7Loh9P13f4yQ92EF3";
    for dashes in [4, 5, 6] {
        let d = "-".repeat(dashes);
        let block = format!("{d}BEGIN RSA PRIVATE KEY{d}\n{body}\n{d}END RSA PRIVATE KEY{d}");
        for text in [
            block.clone(),
            format!("key:\n{block}\nnext"),
            format!("  {d}BEGIN OPENSSH PRIVATE KEY{d}\n  {body}"),
        ] {
            let out = r.redact(&text);
            gone(&out, "MIIEpQIBAAKCAQEAn6");
            assert!(!out.contains("RSA PRIVATE KEY-"), "{out}");
        }
        // Only a tail, with its END line.
        gone(&r.redact(&format!("{body}\n{body}\n{d}END RSA PRIVATE KEY{d}\n")), "MIIEpQIBAAKCAQEAn6");
        let public = format!("{d}BEGIN PUBLIC KEY{d}\n{body}\n{d}END PUBLIC KEY{d}");
        assert_eq!(r.redact(&public), public);
    }
    let three = format!("---BEGIN RSA PRIVATE KEY---\n{body}\n---END RSA PRIVATE KEY---");
    assert_eq!(r.redact(&three), three);
    // The line after a block stays.
    let text = format!("----BEGIN EC PRIVATE KEY----\n{body}\n----END EC PRIVATE KEY----\nDone.");
    let out = r.redact(&text);
    assert!(out.ends_with("\nDone."), "{out}");
}

/// A no-break space where a blank would be (text pasted from a web page, a
/// word processor, a chat client), and the fullwidth colon and equals sign
/// of Chinese and Japanese text, separate a name from its value as their
/// ASCII forms do; the words after the value stay.
#[test]
fn no_break_spaces_and_fullwidth_operators_separate_a_value() {
    let r = redactor();
    let v = "hunter2-Secret-9Zq";
    for text in [
        format!("DB_PASSWORD\u{a0}=\u{a0}{v}"),
        format!("password:\u{a0}{v}\u{a0}and more"),
        format!("password\u{ff1a}{v}"),
        format!("パスワード password\u{ff1a}{v}\u{3002}"),
        format!("API_KEY\u{ff1d}{v}"),
        format!("api_key \u{ff1a} {v}"),
    ] {
        gone_from_text_and_record(&r, &text, v);
    }
    let text = format!("password:\u{a0}{v}\u{a0}and more");
    let out = r.redact(&text);
    assert!(out.ends_with("\u{a0}and more"), "{out}");
    // Prose with a fullwidth colon and no value, and code around a name, stay.
    for text in ["密码 password\u{ff1a}\n", "the token\u{ff1a} see below", "tokenBudget\u{a0}=\u{a0}20000000"]
    {
        assert_eq!(r.redact(text), text);
    }
}

/// A JWT wrapped at a fixed width (`base64 -w 76`, a terminal, a mail)
/// goes whole, wherever the breaks fall, in text and in a journal line; a
/// line after a whole token stays.
#[test]
fn a_jwt_wrapped_across_lines_goes_whole() {
    let r = redactor();
    let jwt = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4gRG9lIiwiaWF0IjoxNTE2MjM5MDIyfQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c";
    // Every piece of it must go: its last 12 characters, and each run of 12
    // between.
    let pieces: Vec<&str> =
        (0..jwt.len() - 12).step_by(12).map(|i| &jwt[i..i + 12]).chain([&jwt[jwt.len() - 12..]]).collect();
    for width in [20, 37, 40, 64, 76] {
        for br in ["\n", "\r\n"] {
            let wrapped: Vec<&str> =
                jwt.as_bytes().chunks(width).map(|c| std::str::from_utf8(c).expect("ascii")).collect();
            for text in [
                wrapped.join(br),
                format!("token: {}", wrapped.join(br)),
                format!("Authorization: Bearer {}{br}next", wrapped.join(br)),
            ] {
                let out = r.redact(&text);
                for p in pieces.iter().filter(|p| !p.contains('.')) {
                    // A piece split by a break is checked by its halves.
                    if text.contains(*p) {
                        gone(&out, p);
                    }
                }
                gone_from_text_and_record(&r, &text, &jwt[jwt.len() - 12..]);
                if text.ends_with("next") {
                    assert!(out.ends_with(&format!("{br}next")), "{out:?}");
                }
            }
        }
    }
    // A whole token, then a line: the line stays.
    let text = format!("{jwt}\nNext line");
    assert_eq!(r.redact(&text), "[REDACTED]\nNext line");
}

/// A Markdown table whose header names a secret (`| user | password |`):
/// each row's cell in that column goes, in text, in a journal line and
/// after a Read's line numbers; the other cells, the header and the line
/// after the table stay. A bare `key` column (shortcuts) and a column of
/// placeholders stay.
#[test]
fn a_markdown_table_column_under_a_secret_name_goes() {
    let r = redactor();
    let (a, b) = ("s3cr3t-Pa55w0rd-alice", "Bob-hunter2-Zq9");
    let tables = [
        format!("| name | password | role |\n|---|---|---|\n| alice | {a} | admin |\n| bob | `{b}` | dev |\n\nDone."),
        format!("name | Password\n--- | :---\nalice | {a}\nbob | {b}\n"),
        format!("| user | api_token |\r\n|:-----|------:|\r\n| alice | {a} |\r\n| bob | {b} |"),
        format!("     1→| name | password |\n     2→|---|---|\n     3→| alice | {a} |\n     4→| bob | {b} |"),
        format!("| user | password | note | API_KEY |\n|---|---|---|---|\n| alice | {a} | x \\| y | {b} |\n| bob | | - | |"),
    ];
    for text in &tables {
        gone_from_text_and_record(&r, text, a);
        gone_from_text_and_record(&r, text, b);
        let out = r.redact(text);
        assert!(out.contains("alice") && out.contains("bob"), "{out}");
        assert!(out.to_lowercase().contains("password") || out.contains("api_token"), "{out}");
    }
    let out = r.redact(&tables[0]);
    assert!(out.contains("| admin |") && out.ends_with("\n\nDone."), "{out}");
    // A name in another cell of a row is still looked at.
    let text = format!("| user | password | note |\n|---|---|---|\n| alice | {a} | api_key={b} |\n| bob | x9-Hunter2-Q | ok |");
    gone_from_text_and_record(&r, &text, a);
    gone_from_text_and_record(&r, &text, b);
    gone(&r.redact(&text), "x9-Hunter2-Q");
    for text in [
        "| Key | Action |\n|---|---|\n| Ctrl+Shift+K9 | Delete line |",
        "| user | password |\n|---|---|\n| alice | ******** |\n| bob | <your password> |",
        "| name | token |\n|---|---|\n| alice | n/a |",
        // No delimiter row: no table.
        "| name | password |\n| alice | Zq9-hunter2-x |",
    ] {
        assert_eq!(r.redact(text), text);
    }
}

/// A passphrase of several words under a passphrase's name goes whole (a
/// bare value is one word: `horse battery staple` leaked); prose after it,
/// words after `pass` or `password` (a real transcript's
/// `// First pass: collect tool results`) and under a machine credential's
/// name stay.
#[test]
fn a_passphrase_of_words_goes_whole() {
    let r = redactor();
    for text in [
        "passphrase: correct horse battery staple",
        "PASSPHRASE = correct horse battery staple\nnext",
        "  passphrase:\u{a0}correct horse battery staple   ",
        "gpg_passphrase=correct horse battery staple",
    ] {
        for w in ["correct", "horse", "battery", "staple"] {
            gone_from_text_and_record(&r, text, w);
        }
    }
    assert!(r.redact("PASSPHRASE = correct horse battery staple\nnext").ends_with("\nnext"));
    for text in [
        "password: must be at least twelve letters",
        "passphrase: see the vault",
        "First pass: collect tool results",
        "Forgot password: reset link sent",
        "api_token: rotated every night",
    ] {
        assert_eq!(r.redact(text), text);
    }
}

/// A BEGIN marker with no END line: the base64 lines after it go (output
/// cut short), and what follows them stays; a body that is not base64 goes
/// to the text's end (the corpus's `yabba dabba doo`); a marker in a string
/// of code stays with the code after it, all of which went before
/// (`line.startsWith('-----BEGIN PRIVATE KEY-----')`).
#[test]
fn a_begin_marker_with_no_end_takes_its_base64_lines_and_no_more() {
    let r = redactor();
    let line = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj";
    // Code that names the marker keeps every byte.
    for code in [
        "if (line.startsWith('-----BEGIN PRIVATE KEY-----')) {\n  inKey = true;\n}\nfunction foo() { return 42; }",
        "const BEGIN = \"-----BEGIN RSA PRIVATE KEY-----\";\nconst body = lines.slice(1, -1).join(\"\");",
        "lines.push(\"-----BEGIN PRIVATE KEY-----\");",
    ] {
        assert_eq!(r.redact(code), code);
        let json = format!(r#"{{"type":"user","message":{{"role":"user","content":{}}}}}"#, json_str(code));
        assert!(!r.redact_line(&json).expect("object").changed, "{json}");
    }
    // A key cut short: its lines go, what follows stays.
    for (text, kept) in [
        (format!("-----BEGIN PRIVATE KEY-----\n{line}\n{line}\nMIIEvQIBADAN"), ""),
        (format!("$ head -c 200 key.pem\n-----BEGIN PRIVATE KEY-----\n{line}\n{}\n[output truncated]\nnext step", &line[..40]), "[output truncated]\nnext step"),
        (format!("     1→-----BEGIN PRIVATE KEY-----\n     2→{line}\n     3→{line}\n"), ""),
        (format!("-----BEGIN RSA PRIVATE KEY-----\r\nProc-Type: 4,ENCRYPTED\r\nDEK-Info: AES-128-CBC,3F1A\r\n\r\n{line}\r\nDone."), "Done."),
        (format!("PRIVATE_KEY=\"-----BEGIN PRIVATE KEY-----\\n{line}\\n{line}"), ""),
        (format!("-----BEGIN PRIVATE KEY----- {line}"), ""),
        ("-----BEGIN PRIVATE KEY-----\nMIIEvQIBADAN is junk, not base64".to_owned(), ""),
    ] {
        let out = r.redact(&text);
        gone(&out, "MIIEvQIBADAN");
        assert!(out.ends_with(kept), "{out}");
        assert!(!out.contains("Proc-Type"), "{out}");
        let json = format!(r#"{{"type":"user","message":{{"role":"user","content":{}}}}}"#, json_str(&text));
        let out = r.redact_line(&json).expect("object").line;
        gone(&out, "MIIEvQIBADAN");
        let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        assert!(v["message"]["content"].as_str().is_some_and(|c| c.ends_with(kept)), "{out}");
    }
}
