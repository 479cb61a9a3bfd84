//! The doctor on Codex rollouts (issue 28), proved by oracles written apart
//! from `src/doctor/codex.rs`:
//! - each hand-made fixture of tests/doctor/codex/ (one per shape) gives
//!   the expected report and repaired file;
//! - a line oracle (raw bytes split again): the repaired file is the input
//!   minus exactly the lines the report says it removed, every other line
//!   byte-identical;
//! - a history oracle (a serde_json::Value walk that does what Codex does on
//!   resume, written again from openai/codex: recorder.rs skips what does
//!   not parse, rollout_reconstruction.rs applies `compacted`, normalize.rs
//!   pairs by call_id) feeds a fake Responses API that refuses a call
//!   without its output after it, or an output without its call before it:
//!   it accepts every history Codex would send from a repaired file;
//! - our reader, Garuda's resume repair and `checkMessages` accept it;
//! - every Codex file of ../shared/peers goes through diagnose and repair
//!   and comes back byte-identical when it resumes.
//!
//! `DOCTOR_BLESS=1` rewrites the expected files (read them before committing).

#[path = "support/doctor_report.rs"]
mod doctor_report;
#[path = "support/shared.rs"]
mod shared;
use doctor_report::report_json;

use garuda_session::doctor::{self, ChangeKind, Kind, Repaired};
use garuda_session::formats::Format;
use serde_json::Value;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// Each fixture: the kinds the doctor must find, and whether Codex resumes
/// it as written.
const FIXTURES: [(&str, &[Kind], bool); 5] = [
    ("orphan-crash", &[Kind::ToolUseUnanswered], true),
    ("orphan-compaction", &[Kind::ToolResultOrphan], true),
    ("reasoning-pairs", &[], true),
    ("torn-utf8", &[Kind::BadLine, Kind::ToolUseUnanswered], false),
    ("no-session-meta", &[Kind::NoSession], false),
];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/doctor/codex")
}

/// The lines as Codex's loader takes them: UTF-8 text or nothing at all.
fn loader_lines(bytes: &[u8]) -> Result<Vec<Value>, String> {
    let text = std::str::from_utf8(bytes).map_err(|e| format!("not UTF-8: {e}"))?;
    if text.trim().is_empty() {
        return Err("empty session file".into());
    }
    let lines: Vec<Value> = text.lines().filter_map(|l| serde_json::from_str::<Value>(l).ok()).collect();
    if !lines.iter().any(|l| l["type"] == "session_meta" && l["payload"]["id"].is_string()) {
        return Err("failed to parse thread ID from rollout file".into());
    }
    Ok(lines)
}

/// The history Codex rebuilds: response items, a compaction's replacement.
fn raw_history(lines: &[Value]) -> Vec<Value> {
    let mut h = Vec::new();
    for l in lines {
        match l["type"].as_str() {
            Some("response_item") => h.push(l["payload"].clone()),
            Some("compacted") => {
                h = l["payload"]["replacement_history"].as_array().cloned().unwrap_or_default();
            }
            _ => {}
        }
    }
    h
}

fn call_id(v: &Value) -> Option<&str> {
    v["call_id"].as_str()
}

/// normalize.rs, written again: an "aborted" output after each call that
/// has none, then every output whose call is not in the history dropped.
fn normalized(mut h: Vec<Value>) -> Vec<Value> {
    let answers = |call: &str| match call {
        "function_call" | "local_shell_call" => "function_call_output",
        "custom_tool_call" => "custom_tool_call_output",
        _ => "",
    };
    let outputs: HashSet<(String, String)> = h
        .iter()
        .filter(|v| v["type"].as_str().is_some_and(|t| t.ends_with("_output")))
        .filter_map(|v| Some((v["type"].as_str()?.to_owned(), call_id(v)?.to_owned())))
        .collect();
    let mut i = 0;
    while i < h.len() {
        let t = h[i]["type"].as_str().unwrap_or("").to_owned();
        if let (a @ ("function_call_output" | "custom_tool_call_output"), Some(id)) =
            (answers(&t), call_id(&h[i]))
        {
            if !outputs.contains(&(a.to_owned(), id.to_owned())) {
                let out = serde_json::json!({"type": a, "call_id": id, "output": "aborted"});
                h.insert(i + 1, out);
            }
        }
        i += 1;
    }
    let calls: HashSet<(String, String)> = h
        .iter()
        .filter_map(|v| {
            let t = v["type"].as_str()?;
            (!answers(t).is_empty()).then(|| (answers(t).to_owned(), call_id(v).unwrap_or("").to_owned()))
        })
        .collect();
    h.retain(|v| match v["type"].as_str() {
        Some(t @ ("function_call_output" | "custom_tool_call_output")) => {
            calls.contains(&(t.to_owned(), call_id(v).unwrap_or("").to_owned()))
        }
        _ => true,
    });
    h
}

/// The Responses API's rule on tool calls in an input: each call's output
/// follows it, each output follows its call.
fn fake_api(h: &[Value]) -> Result<(), String> {
    let mut open: HashSet<String> = HashSet::new();
    let mut answered: HashSet<String> = HashSet::new();
    for v in h {
        let t = v["type"].as_str().unwrap_or("");
        let id = call_id(v).unwrap_or("").to_owned();
        if t.ends_with("_output") && t != "tool_search_output" {
            if !open.remove(&id) {
                return Err(format!("{t} for {id}: no call before it"));
            }
            answered.insert(id);
        } else if matches!(t, "function_call" | "custom_tool_call" | "local_shell_call") {
            open.insert(id);
        }
    }
    match open.into_iter().next() {
        Some(id) => Err(format!("no tool output found for function call {id}")),
        None => Ok(()),
    }
}

/// The repaired file is the input minus exactly the reported removed lines
/// (of a torn line, at most a whole rollout line at its end stays).
fn lines_oracle(name: &str, input: &[u8], r: &Repaired) {
    let removed: HashSet<u64> =
        r.changes.iter().filter(|c| c.kind == ChangeKind::LineRemoved).map(|c| c.line).collect();
    assert_eq!(removed.len(), r.changes.len(), "{name}: a Codex repair only removes lines");
    let mut got = r.bytes.split_inclusive(|&b| b == b'\n').peekable();
    for (i, line) in input.split_inclusive(|&b| b == b'\n').enumerate() {
        if !removed.contains(&(i as u64 + 1)) {
            assert_eq!(got.next(), Some(line), "{name}: line {} is not as it was", i + 1);
            continue;
        }
        assert!(std::str::from_utf8(line).is_err(), "{name}: line {} was UTF-8 and went", i + 1);
        let kept = got.peek().copied().filter(|g| {
            line.ends_with(g)
                && g.len() < line.len()
                && serde_json::from_slice::<Value>(g).is_ok_and(|v| v["timestamp"].is_string())
        });
        if kept.is_some() {
            got.next();
        }
    }
    assert_eq!(got.next(), None, "{name}: the repair holds lines the input does not");
}

/// Our reader, Garuda's resume and checkMessages take the file.
fn reader_accepts(name: &str, bytes: &[u8]) {
    let mut j = garuda_session::Journal::default();
    j.feed_bytes(bytes);
    j.finish();
    let state = j.into_state();
    assert!(!state.messages.is_empty(), "{name}: our reader finds no message");
    let resumed = garuda_session::resume::resume(&state, &Default::default());
    let problems = garuda_session::resume::check_messages(&resumed.messages_json(), false);
    assert!(problems.is_empty(), "{name}: checkMessages refuses the resumed file: {problems:?}");
}

#[test]
fn each_codex_shape_is_found_on_its_line_and_repaired_where_an_edit_can() {
    let bless = std::env::var_os("DOCTOR_BLESS").is_some();
    for (name, kinds, resumes) in FIXTURES {
        let input = std::fs::read(dir().join(format!("{name}.jsonl"))).unwrap();
        let d = doctor::diagnose(&input, None);
        assert_eq!(d.format, Some(Format::Codex), "{name}");
        assert_eq!(d.resumes(), resumes, "{name}: {}", d.to_json());
        // The oracle agrees on whether Codex can load it at all.
        assert_eq!(loader_lines(&input).is_ok(), resumes, "{name}: the loader oracle");
        let found: HashSet<Kind> = d.problems.iter().map(|p| p.kind).collect();
        assert_eq!(found, kinds.iter().copied().collect(), "{name}: {}", d.to_json());
        let r = doctor::repair(&input, None);
        let report = report_json(&input, &r);
        let (want_report, want_fixed) =
            (dir().join(format!("{name}.report.json")), dir().join(format!("{name}.fixed.jsonl")));
        if bless {
            std::fs::write(&want_report, serde_json::to_string_pretty(&report).unwrap() + "\n").unwrap();
            std::fs::write(&want_fixed, &r.bytes).unwrap();
        }
        let expected: Value = serde_json::from_slice(&std::fs::read(&want_report).unwrap()).unwrap();
        assert_eq!(report, expected, "{name}: the report");
        assert_eq!(r.bytes, std::fs::read(&want_fixed).unwrap(), "{name}: the repaired file");
        lines_oracle(name, &input, &r);
        if resumes {
            assert_eq!(r.bytes, input, "{name}: a file that resumes comes back byte-identical");
        }
        if name == "no-session-meta" {
            // Nothing an edit can mend: said again after the repair.
            assert!(!r.after.resumes() && r.bytes == input, "{name}");
            continue;
        }
        assert!(r.after.resumes(), "{name}: still fails after repair: {}", r.after.to_json());
        let lines =
            loader_lines(&r.bytes).unwrap_or_else(|e| panic!("{name}: Codex cannot load the repair: {e}"));
        let h = raw_history(&lines);
        // A pair problem is reported when the raw history really has one.
        let pairs = r
            .after
            .problems
            .iter()
            .any(|p| matches!(p.kind, Kind::ToolUseUnanswered | Kind::ToolResultOrphan));
        assert_eq!(fake_api(&h).is_err(), pairs, "{name}: raw history");
        fake_api(&normalized(h)).unwrap_or_else(|e| panic!("{name}: the fake API refuses: {e}"));
        reader_accepts(name, &r.bytes);
        assert_eq!(doctor::repair(&r.bytes, None).bytes, r.bytes, "{name}: a second repair changes it");
    }
}

#[test]
fn a_rollout_read_in_chunks_gets_the_same_diagnosis() {
    for (name, _, _) in FIXTURES {
        let input = std::fs::read(dir().join(format!("{name}.jsonl"))).unwrap();
        let whole = doctor::diagnose(&input, None).to_json();
        for size in [1, 7, 64, 4096] {
            let mut d = doctor::Streaming::new(Some(Format::Codex));
            for chunk in input.chunks(size) {
                d.feed(chunk);
            }
            assert_eq!(d.finish().to_json(), whole, "{name} in chunks of {size}");
        }
    }
}

#[test]
fn every_codex_peer_goes_through_the_doctor() {
    let Some(peers) = shared::shared_file("every_codex_peer_goes_through_the_doctor", "peers/codex") else {
        return;
    };
    let mut n = 0;
    for f in shared::session_files(&peers) {
        let name = f.strip_prefix(&peers).unwrap().display().to_string();
        let input = std::fs::read(&f).unwrap();
        let d = doctor::diagnose(&input, None);
        if d.format != Some(Format::Codex) {
            continue; // a manifest, not a rollout
        }
        n += 1;
        let r = doctor::repair(&input, None);
        lines_oracle(&name, &input, &r);
        assert_eq!(d.resumes(), loader_lines(&input).is_ok(), "{name}: the loader oracle disagrees");
        if d.resumes() {
            assert_eq!(r.bytes, input, "{name}: a file that resumes comes back byte-identical");
        }
        if let Ok(lines) = loader_lines(&r.bytes) {
            fake_api(&normalized(raw_history(&lines))).unwrap_or_else(|e| panic!("{name}: {e}"));
            // Every pair the raw history breaks is reported, and no other.
            let pairs = d
                .problems
                .iter()
                .filter(|p| matches!(p.kind, Kind::ToolUseUnanswered | Kind::ToolResultOrphan))
                .count();
            assert_eq!(pairs > 0, fake_api(&raw_history(&lines)).is_err(), "{name}: {}", d.to_json());
        }
        println!(
            "{name}: {} problems, {} changes, resumes: {}",
            d.problems.len(),
            r.changes.len(),
            d.resumes()
        );
    }
    assert!(n > 0, "no Codex rollout under {}", peers.display());
}
