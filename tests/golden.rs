//! Golden journals: each `tests/golden/NAME.jsonl` replays to exactly
//! `tests/golden/NAME.state.json`. Run with `UPDATE_GOLDEN=1` to rewrite the
//! expected files after a deliberate change, then read the diff.

use garuda_session::{rebuild_state, Journal};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn golden_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden")
}

fn journals() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(golden_dir())
        .expect("tests/golden exists")
        .map(|e| e.expect("readable entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files
}

#[test]
fn golden_states() {
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut failures = Vec::new();
    let files = journals();
    assert!(files.len() >= 9, "the golden journals are missing");
    for path in files {
        let text = std::fs::read_to_string(&path).expect("readable journal");
        let state: Value = serde_json::from_str(&rebuild_state(&text).to_json()).expect("state is JSON");
        let expected_path = path.with_extension("state.json");
        if update {
            let pretty = serde_json::to_string_pretty(&state).expect("serialisable") + "\n";
            std::fs::write(&expected_path, pretty).expect("writable");
            continue;
        }
        let expected: Value = match std::fs::read_to_string(&expected_path) {
            Ok(t) => serde_json::from_str(&t).expect("expected state is JSON"),
            Err(_) => {
                failures.push(format!("{}: no expected state file", path.display()));
                continue;
            }
        };
        if state != expected {
            failures.push(format!(
                "{}: state differs\n--- expected\n{}\n--- actual\n{}",
                path.display(),
                serde_json::to_string_pretty(&expected).unwrap_or_default(),
                serde_json::to_string_pretty(&state).unwrap_or_default()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// Feeding the same text in chunks of every small size, or line by line,
/// gives the same state as one whole replay.
#[test]
fn chunked_and_line_by_line_replay_match_whole_replay() {
    for path in journals() {
        let text = std::fs::read_to_string(&path).expect("readable journal");
        let whole = rebuild_state(&text);
        for size in [1, 2, 3, 7, 64] {
            let mut journal = Journal::default();
            let bytes = text.as_bytes();
            for chunk in bytes.chunks(size) {
                journal.feed_bytes(chunk);
            }
            journal.finish();
            assert_eq!(journal.state(), &whole, "{} in chunks of {size}", path.display());
        }
        let mut journal = Journal::default();
        let mut lines: Vec<&str> = text.split('\n').collect();
        let last = lines.pop().unwrap_or("");
        for line in lines {
            journal.read_line(line);
        }
        journal.read_last_line(last);
        assert_eq!(journal.state(), &whole, "{} line by line", path.display());
    }
}

/// Messages keep the exact text they were written with: unknown fields and
/// blocks, key order, number spelling.
#[test]
fn messages_keep_their_exact_text() {
    let text = std::fs::read_to_string(golden_dir().join("passthrough.jsonl")).expect("readable");
    let state = rebuild_state(&text);
    let user = r#"{"role":"user","content":"plain string content","cache_control":{"type":"ephemeral"}}"#;
    assert_eq!(&*state.messages[0].json, user);
    let line = text.lines().nth(3).expect("tool_results line");
    let start = line.find(r#"{"role":"user""#).expect("message");
    let end = line.find(r#","calls""#).expect("calls");
    assert_eq!(&*state.messages[2].json, &line[start..end]);
}
