//! The viewer's way of taking a transcript (tests/support/invariants.rs
//! `taken_while_reading_and_patched`): entries drafted while a journal is
//! read, then the patch settling wrote, give the entries of a whole build.
//! Run here on every session of the samples and of ../shared/peers (every
//! format), and by the replay fuzz target on any bytes.

#[path = "support/invariants.rs"]
mod invariants;
#[path = "support/shared.rs"]
mod shared;

use std::path::Path;

#[test]
fn entries_taken_while_reading_and_patched_are_the_whole_builds() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = shared::session_files(&root.join("web-demo/samples"));
    if let Some(peers) = shared::shared_file("entries_taken_while_reading_and_patched (the peers)", "peers") {
        files.extend(shared::session_files(&peers));
    }
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
