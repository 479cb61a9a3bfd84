//! The viewer's way of taking a transcript (tests/support/invariants.rs
//! `taken_while_reading_and_patched`): entries drafted while a journal is
//! read, then the patch settling wrote, give the entries of a whole build.
//! Run here on every session of the samples and of ../shared/peers (every
//! format), and by the replay fuzz target on any bytes.

#[path = "support/invariants.rs"]
mod invariants;
#[path = "support/shared.rs"]
mod shared;

use std::path::{Path, PathBuf};

/// The session files of `dirs` (in the repository) and of ../shared/peers
/// when it is there (`test` names the test in the line that says it is not).
fn sessions(dirs: &[&str], test: &str) -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files: Vec<PathBuf> = dirs.iter().flat_map(|d| shared::session_files(&root.join(d))).collect();
    if let Some(peers) = shared::shared_file(&format!("{test} (the peers)"), "peers") {
        files.extend(shared::session_files(&peers));
    }
    files
}

#[test]
fn entries_taken_while_reading_and_patched_are_the_whole_builds() {
    let files = sessions(&["web-demo/samples"], "entries_taken_while_reading_and_patched");
    let mut inputs: Vec<(String, Vec<u8>)> =
        files.iter().map(|p| (p.display().to_string(), std::fs::read(p).expect("readable"))).collect();
    // A call cut off by a crash (its result the synthetic one), which no
    // real file has.
    let crashed = format!(
        "{}\n{}\n",
        r#"{"type":"assistant","response":{"content":[{"type":"tool_use","id":"c1","name":"bash","input":{}}],"usage":{}}}"#,
        serde_json::json!({"type": "tool_results", "synthetic": true, "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "c1", "content": garuda_session::transcript::INTERRUPTED, "is_error": true}]}}),
    );
    inputs.push(("a crashed call".into(), crashed.into_bytes()));
    let (mut patched, mut retaken) = (0, 0);
    for (path, bytes) in &inputs {
        // Small chunks settled at each (as entries are drawn while
        // reading), only for small files: settling is over the whole.
        let sizes: &[(usize, bool)] =
            if bytes.len() < 200_000 { &[(700, true), (5000, false)] } else { &[(65536, false)] };
        for &(chunk, settle_each) in sizes {
            if invariants::taken_while_reading_and_patched(bytes, chunk, settle_each, path) {
                patched += 1;
            } else {
                retaken += 1;
            }
        }
    }
    assert!(patched >= 6, "{patched} read patched, {retaken} taken again");
    println!("{patched} readings patched, {retaken} taken again, of {} sessions", inputs.len());
}

/// `notes_json`, what the viewer's summary lists without taking every entry,
/// against the entries as their derived serialisation writes them.
#[test]
fn notes_are_what_the_entries_say() {
    let files = sessions(&["web-demo/samples", "tests/doctor"], "notes_are_what_the_entries_say");
    let (mut warned, mut with_runs) = (0, 0);
    for path in &files {
        let text = String::from_utf8_lossy(&std::fs::read(path).expect("readable")).into_owned();
        let mut journal = garuda_session::journal::Journal::new(Default::default()).with_history();
        journal.feed(&text);
        journal.finish();
        let transcript = garuda_session::transcript::Transcript::new(journal.state());
        let entries: Vec<serde_json::Value> =
            transcript.entries().iter().map(|e| serde_json::to_value(e).expect("serialises")).collect();
        let warnings: Vec<u64> = entries
            .iter()
            .filter(|e| e["kind"] == "warning")
            .map(|e| e["index"].as_u64().expect("an index"))
            .collect();
        let runs: usize = entries
            .iter()
            .filter(|e| e["kind"] != "warning")
            .map(|e| e["subagents"].as_array().map_or(0, Vec::len))
            .sum();
        for limit in [0, 1, 50] {
            let notes: serde_json::Value = serde_json::from_str(&transcript.notes_json(limit)).expect("JSON");
            let want = serde_json::json!({
                "warnings": warnings.iter().take(limit).collect::<Vec<_>>(),
                "warningCount": warnings.len(),
                "subagentRuns": runs,
            });
            assert_eq!(notes, want, "{} (limit {limit})", path.display());
        }
        warned += usize::from(!warnings.is_empty());
        with_runs += usize::from(runs > 0);
    }
    assert!(warned >= 3 && with_runs >= 1, "{warned} sessions with warnings, {with_runs} with subagent runs");
    println!("notes of {} sessions: {warned} with warnings, {with_runs} with subagent runs", files.len());
}
