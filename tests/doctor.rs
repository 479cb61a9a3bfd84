//! The doctor on Claude Code sessions (issue 28), proved by oracles written
//! apart from it:
//! - each hand-made fixture of tests/doctor/ (one per shape the trackers
//!   report) gives the expected report and repaired file;
//! - a line-level oracle (a serde_json::Value walk of the raw lines) checks
//!   that the repaired file is the input minus exactly the reported changes:
//!   every other line byte-identical, each touched line equal to its input
//!   line with only the reported blocks and parent changed, each added line
//!   a reported error result, the same sessionId, uuids unique;
//! - a history-level oracle rebuilds what Claude Code sends on resume (the
//!   active chain from the leaf, across compactions, parallel calls rejoined,
//!   from the last compaction on) and checks it is the input's conversation
//!   minus the reported blocks;
//! - a fake API refuses what the Messages API refuses (tool pairs, unsigned
//!   or mis-signed thinking, thinking of another model, a thinking block
//!   whose prefix is not the one it was signed over) and accepts every
//!   repaired history, while refusing every fixture as written;
//! - our reader and `checkMessages` accept the repaired file;
//! - every file of ../shared/peers goes through diagnose and repair; a file
//!   that resumes comes back byte-identical.
//!
//! `DOCTOR_BLESS=1` rewrites the expected files (read them before committing).

#[path = "support/doctor_report.rs"]
mod doctor_report;
#[path = "support/shared.rs"]
mod shared;
use doctor_report::report_json;

use garuda_session::doctor::{self, ChangeKind, Kind, Repaired};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

const FIXTURES: [(&str, &[Kind]); 6] = [
    ("empty-thinking", &[Kind::ThinkingEmpty]),
    ("model-switch", &[Kind::ThinkingModelSwitch]),
    ("orphan-crash", &[Kind::ToolUseUnanswered]),
    ("orphan-tail", &[Kind::ToolUseUnanswered]),
    ("orphan-compaction", &[Kind::ToolResultOrphan]),
    ("broken-chain", &[Kind::BadLine, Kind::BrokenChain]),
];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/doctor")
}

// ---------------------------------------------------------------- raw lines

struct Line {
    bytes: Vec<u8>,
    v: Option<Value>,
}

fn raw_lines(bytes: &[u8]) -> Vec<Line> {
    let mut pieces: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
    if pieces.last().is_some_and(|p| p.is_empty()) {
        pieces.pop();
    }
    pieces
        .into_iter()
        .map(|p| Line {
            bytes: p.to_vec(),
            v: serde_json::from_slice::<Value>(p).ok().filter(Value::is_object),
        })
        .collect()
}

fn s<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn parent(v: &Value) -> Option<&str> {
    s(v, "parentUuid").or_else(|| s(v, "logicalParentUuid"))
}

fn is_node(v: &Value) -> bool {
    let t = s(v, "type").unwrap_or("");
    s(v, "uuid").is_some()
        && !matches!(t, "summary" | "custom-title" | "ai-title")
        && !(matches!(t, "user" | "assistant") && v.get("message").is_none())
}

fn blocks(v: &Value) -> Vec<Value> {
    match v.pointer("/message/content") {
        Some(Value::Array(a)) => a.clone(),
        Some(Value::String(t)) => vec![serde_json::json!({"type": "text", "text": t})],
        _ => Vec::new(),
    }
}

fn all_results(v: &Value) -> bool {
    let b = blocks(v);
    !b.is_empty() && b.iter().all(|b| s(b, "type") == Some("tool_result"))
}

/// The lines on the chain a resume rebuilds, in file order (the rules of
/// anthropics/claude-code#22107, #33651 and cozempic#57, written again).
fn chain(lines: &[Line]) -> Vec<usize> {
    let nodes: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].v.as_ref().is_some_and(is_node)).collect();
    let v = |i: usize| lines[i].v.as_ref().unwrap();
    let side = |i: usize| v(i).get("isSidechain").and_then(Value::as_bool).unwrap_or(false);
    if nodes.is_empty() {
        return (0..lines.len()).filter(|&i| lines[i].v.is_some()).collect();
    }
    let child_run = nodes.iter().all(|&i| side(i));
    let by_uuid: HashMap<&str, usize> = nodes.iter().map(|&i| (s(v(i), "uuid").unwrap(), i)).collect();
    let Some(leaf) =
        nodes.iter().rev().copied().find(|&i| s(v(i), "type") != Some("progress") && (child_run || !side(i)))
    else {
        return Vec::new();
    };
    let mut on: HashSet<usize> = HashSet::new();
    let mut at = Some(leaf);
    while let Some(i) = at {
        if !on.insert(i) {
            break;
        }
        at = parent(v(i)).and_then(|p| by_uuid.get(p).copied());
    }
    let mut responses: HashMap<&str, Vec<usize>> = HashMap::new();
    for &i in &nodes {
        if s(v(i), "type") == Some("assistant") {
            if let Some(id) = v(i).pointer("/message/id").and_then(Value::as_str) {
                responses.entry(id).or_default().push(i);
            }
        }
    }
    let members: HashSet<usize> = responses
        .values()
        .filter(|rs| rs.len() > 1 && rs.iter().any(|i| on.contains(i)))
        .flatten()
        .copied()
        .collect();
    on.extend(members.iter().copied());
    for &i in &nodes {
        if all_results(v(i)) && parent(v(i)).and_then(|p| by_uuid.get(p)).is_some_and(|p| members.contains(p))
        {
            on.insert(i);
        }
    }
    let mut out: Vec<usize> = on.into_iter().filter(|&i| child_run || !side(i)).collect();
    out.sort();
    out
}

/// One block of the history: where it was written, its role, model, value.
#[derive(Debug, Clone)]
struct HBlock {
    line: usize,
    uuid: Option<String>,
    user: bool,
    model: Option<String>,
    v: Value,
}

/// What a resume sends: the chain from its last compaction on, user and
/// assistant messages, as blocks in order.
fn history(lines: &[Line]) -> Vec<HBlock> {
    let on = chain(lines);
    let v = |i: usize| lines[i].v.as_ref().unwrap();
    let from = on
        .iter()
        .rposition(|&i| s(v(i), "type") == Some("system") && s(v(i), "subtype") == Some("compact_boundary"))
        .map_or(0, |k| k + 1);
    let mut out = Vec::new();
    for &i in &on[from..] {
        let t = s(v(i), "type");
        if !matches!(t, Some("user" | "assistant")) || v(i).get("message").is_none() {
            continue;
        }
        for b in blocks(v(i)) {
            out.push(HBlock {
                line: i,
                uuid: s(v(i), "uuid").map(str::to_owned),
                user: t == Some("user"),
                model: v(i).pointer("/message/model").and_then(Value::as_str).map(str::to_owned),
                v: b,
            });
        }
    }
    out
}

// ----------------------------------------------------------------- fake API

fn fnv(text: &str) -> String {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in text.bytes() {
        h = (h ^ u64::from(b)).wrapping_mul(0x100000001b3);
    }
    format!("{h:016x}")
}

/// The fixtures' signatures: what the fake API signs a thinking text with.
fn fake_sign(model: &str, text: &str) -> String {
    format!("fake1:{model}:{}", fnv(text))
}

/// The history as the API sees it: turns of one role joined.
fn turns(h: &[HBlock]) -> Vec<(bool, Vec<&HBlock>)> {
    let mut out: Vec<(bool, Vec<&HBlock>)> = Vec::new();
    for b in h {
        match out.last_mut() {
            Some((user, bs)) if *user == b.user => bs.push(b),
            _ => out.push((b.user, vec![b])),
        }
    }
    out
}

/// A fake Messages API: Ok when it would answer, Err with why it refuses.
/// `signed`: the history each thinking block was signed over (its
/// signature → the blocks before it, as first written).
fn fake_api(h: &[HBlock], signed: &HashMap<String, Vec<(bool, Value)>>) -> Result<(), String> {
    let t = turns(h);
    if t.first().is_some_and(|(user, _)| !user) {
        return Err("the first message must be the user's".into());
    }
    for (k, (user, bs)) in t.iter().enumerate() {
        let ids = |bs: &[&HBlock], kind: &str, key: &str| -> Vec<String> {
            bs.iter()
                .filter(|b| s(&b.v, "type") == Some(kind))
                .filter_map(|b| s(&b.v, key).map(str::to_owned))
                .collect()
        };
        if *user {
            let asked = match k.checked_sub(1).map(|p| &t[p]) {
                Some((false, prev)) => ids(prev, "tool_use", "id"),
                _ => Vec::new(),
            };
            let answers = ids(bs, "tool_result", "tool_use_id");
            let mut seen = HashSet::new();
            for a in &answers {
                if !asked.contains(a) || !seen.insert(a) {
                    return Err(format!("tool_result {a} answers no tool_use of the previous message"));
                }
            }
        } else {
            let answered = match t.get(k + 1) {
                Some((true, next)) => ids(next, "tool_result", "tool_use_id"),
                _ => Vec::new(),
            };
            for u in ids(bs, "tool_use", "id") {
                if !answered.contains(&u) {
                    return Err(format!("tool_use {u} has no tool_result"));
                }
            }
        }
    }
    let resume_model = h.iter().rev().filter(|b| !b.user).find_map(|b| b.model.clone());
    for (k, b) in h.iter().enumerate() {
        let kind = s(&b.v, "type");
        if !matches!(kind, Some("thinking" | "redacted_thinking")) {
            continue;
        }
        if b.model != resume_model {
            return Err(format!("thinking of {:?} in a request to {:?}", b.model, resume_model));
        }
        if kind == Some("redacted_thinking") {
            continue;
        }
        let text = s(&b.v, "thinking").unwrap_or("");
        let sig = s(&b.v, "signature").unwrap_or("");
        if sig.is_empty() || text.trim().is_empty() {
            return Err("thinking without a signature or a text".into());
        }
        if sig.starts_with("fake1:") && sig != fake_sign(b.model.as_deref().unwrap_or(""), text) {
            return Err(format!("thinking on line {} does not match its signature", b.line + 1));
        }
        let prefix: Vec<(bool, Value)> = h[..k].iter().map(|b| (b.user, b.v.clone())).collect();
        match signed.get(sig) {
            Some(before) if *before == prefix => {}
            Some(_) => {
                return Err(format!(
                    "thinking on line {}: what comes before it is not what it was signed over",
                    b.line + 1
                ))
            }
            None => return Err("a signature the API never gave".into()),
        }
    }
    Ok(())
}

/// What each thinking block of a file was signed over: its history's prefix.
fn signed_prefixes(h: &[HBlock]) -> HashMap<String, Vec<(bool, Value)>> {
    let mut out = HashMap::new();
    for (k, b) in h.iter().enumerate() {
        if let Some(sig) = s(&b.v, "signature") {
            out.entry(sig.to_owned())
                .or_insert_with(|| h[..k].iter().map(|b| (b.user, b.v.clone())).collect());
        }
    }
    out
}

// ------------------------------------------------------------ the oracles

/// The repaired file is the input minus exactly the reported changes.
fn lines_oracle(name: &str, input: &[u8], r: &Repaired) {
    let inl = raw_lines(input);
    let outl = raw_lines(&r.bytes);
    let changed =
        |line: usize, kind: ChangeKind| r.changes.iter().any(|c| c.line == line as u64 + 1 && c.kind == kind);
    let dropped: HashSet<(usize, usize)> = r
        .changes
        .iter()
        .filter(|c| matches!(c.kind, ChangeKind::ThinkingDropped | ChangeKind::ResultDropped))
        .map(|c| (c.line as usize - 1, c.block.expect("a dropped block names its block")))
        .collect();
    let by_uuid: HashMap<&str, usize> =
        inl.iter().enumerate().filter_map(|(i, l)| Some((s(l.v.as_ref()?, "uuid")?, i))).collect();
    let mut count: HashMap<&str, usize> = HashMap::new();
    for l in &inl {
        if let Some(u) = l.v.as_ref().and_then(|v| s(v, "uuid")) {
            *count.entry(u).or_default() += 1;
        }
    }
    let repeated: HashSet<&str> = count.iter().filter(|(_, &n)| n > 1).map(|(u, _)| *u).collect();
    if !repeated.is_empty() && !r.changes.is_empty() {
        // A sanitized catalog whose uuids were all replaced: its lines cannot
        // be told apart by uuid, so which input line a touched line was is
        // not knowable here.
        println!(
            "NOTE {name}: {} uuids repeat; the line oracle cannot match touched lines, skipped",
            repeated.len()
        );
        return;
    }
    let mut next = 0; // the next input line an output line may be
    let mut seen = HashSet::new();
    let mut out_uuids = HashSet::new();
    for o in &outl {
        let ov = o.v.as_ref();
        if let Some(u) = ov.and_then(|v| s(v, "uuid")).filter(|u| !repeated.contains(u)) {
            assert!(out_uuids.insert(u.to_owned()), "{name}: uuid {u} twice");
        }
        let at = match ov.and_then(|v| s(v, "uuid")) {
            // A file that repeats a uuid (a sanitized catalog): the next line with it.
            Some(u) if repeated.contains(u) => {
                (next..inl.len()).find(|&i| inl[i].v.as_ref().and_then(|v| s(v, "uuid")) == Some(u))
            }
            Some(u) => by_uuid.get(u).copied(),
            None => (next..inl.len()).find(|&i| inl[i].bytes == o.bytes),
        };
        let Some(i) = at else {
            // An added line: a reported error result after the line before it.
            let v = ov.expect("an added line is JSON");
            assert!(
                changed(next - 1, ChangeKind::ResultAdded),
                "{name}: an unreported line after input line {next}"
            );
            let bs = blocks(v);
            assert!(
                !bs.is_empty()
                    && bs.iter().all(|b| s(b, "type") == Some("tool_result") && b["is_error"] == true)
            );
            assert_eq!(s(v, "type"), Some("user"));
            let call = inl[next - 1].v.as_ref().expect("a call line is JSON");
            assert_eq!(
                s(v, "sessionId"),
                s(call, "sessionId"),
                "{name}: the added line keeps the session id"
            );
            assert_eq!(parent(v), s(call, "uuid"), "{name}: the added line is the call line's child");
            continue;
        };
        assert!(i >= next, "{name}: line {} moved", i + 1);
        for skipped in next..i {
            assert!(
                changed(skipped, ChangeKind::LineRemoved),
                "{name}: line {} gone unreported",
                skipped + 1
            );
        }
        next = i + 1;
        seen.insert(i);
        if o.bytes == inl[i].bytes {
            assert!(
                !r.changes.iter().any(|c| c.line == i as u64 + 1 && c.kind != ChangeKind::ResultAdded),
                "{name}: a change reported on line {} kept as it was",
                i + 1
            );
            continue;
        }
        // A touched line: the input line with the reported blocks out and
        // the reported parent, nothing else.
        let mut want = inl[i].v.clone().expect("a touched line was JSON");
        if let Some(Value::Array(a)) = want.pointer_mut("/message/content") {
            let kept: Vec<Value> = a
                .iter()
                .enumerate()
                .filter(|(b, _)| !dropped.contains(&(i, *b)))
                .map(|(_, b)| b.clone())
                .collect();
            *a = kept;
        }
        let got = ov.expect("a touched line is JSON");
        if parent(got) != parent(&want) {
            assert!(changed(i, ChangeKind::Reparented), "{name}: line {} reparented unreported", i + 1);
            let key = if s(&want, "parentUuid").is_some() { "parentUuid" } else { "logicalParentUuid" };
            want[key] = got[key].clone();
        }
        assert_eq!(got, &want, "{name}: line {} changed beyond the report", i + 1);
    }
    for skipped in next..inl.len() {
        assert!(changed(skipped, ChangeKind::LineRemoved), "{name}: line {} gone unreported", skipped + 1);
    }
    for c in &r.changes {
        if c.kind == ChangeKind::LineRemoved {
            assert!(
                !seen.contains(&(c.line as usize - 1)),
                "{name}: line {} reported removed, still there",
                c.line
            );
        }
    }
}

/// The resumed conversation is the input's minus the dropped blocks, plus
/// the added results (only when no chain was mended: then the input's own
/// resume lost lines, and the repaired one has them).
fn history_oracle(name: &str, input: &[u8], r: &Repaired) {
    let before = history(&raw_lines(input));
    let outl = raw_lines(&r.bytes);
    let after = history(&outl);
    let line_of: HashMap<String, usize> = raw_lines(input)
        .iter()
        .enumerate()
        .filter_map(|(i, l)| Some((s(l.v.as_ref()?, "uuid")?.to_owned(), i)))
        .collect();
    let dropped: HashSet<(usize, String)> = r
        .changes
        .iter()
        .filter(|c| matches!(c.kind, ChangeKind::ThinkingDropped | ChangeKind::ResultDropped))
        .filter_map(|c| {
            let l = &raw_lines(input)[c.line as usize - 1];
            Some((c.line as usize - 1, blocks(l.v.as_ref()?).get(c.block?)?.to_string()))
        })
        .collect();
    let want: Vec<(usize, String)> =
        before.iter().map(|b| (b.line, b.v.to_string())).filter(|k| !dropped.contains(k)).collect();
    let got: Vec<(usize, String)> =
        after.iter().filter_map(|b| Some((*line_of.get(b.uuid.as_ref()?)?, b.v.to_string()))).collect();
    assert_eq!(got, want, "{name}: the resumed conversation is not the input's minus the report");
    for b in after.iter().filter(|b| b.uuid.as_ref().is_none_or(|u| !line_of.contains_key(u))) {
        let id = s(&b.v, "tool_use_id").unwrap_or("?");
        assert!(
            r.changes.iter().any(|c| c.kind == ChangeKind::ResultAdded && c.message.contains(id)),
            "{name}: an added result for {id} that the report does not name"
        );
    }
}

/// Our reader and checkMessages take the repaired file.
fn reader_accepts(name: &str, bytes: &[u8]) {
    let mut j = garuda_session::Journal::default();
    j.feed_bytes(bytes);
    j.finish();
    let state = j.into_state();
    let messages: Vec<String> = state.messages.iter().map(|m| m.json.to_string()).collect();
    let problems = garuda_session::resume::check_messages(&messages, false);
    assert!(problems.is_empty(), "{name}: checkMessages refuses the repaired file: {problems:?}");
}

#[test]
fn each_reported_shape_is_found_on_its_line_and_repaired() {
    let bless = std::env::var_os("DOCTOR_BLESS").is_some();
    for (name, kinds) in FIXTURES {
        let input = std::fs::read(dir().join(format!("{name}.jsonl"))).unwrap();
        let d = doctor::diagnose(&input, None);
        assert!(!d.resumes(), "{name}: the fixture must not resume as written");
        let found: HashSet<Kind> = d.problems.iter().map(|p| p.kind).collect();
        assert_eq!(found, kinds.iter().copied().collect(), "{name}: {}", d.to_json());
        assert!(d.problems.iter().all(|p| p.line >= 1), "{name}: every problem names its line");
        let r = doctor::repair(&input, None);
        assert!(r.after.resumes(), "{name}: the repaired file still fails: {}", r.after.to_json());
        let report = report_json(&input, &r);
        let (want_report, want_fixed) =
            (dir().join(format!("{name}.report.json")), dir().join(format!("{name}.fixed.jsonl")));
        if bless {
            std::fs::write(&want_report, serde_json::to_string_pretty(&report).unwrap() + "\n").unwrap();
            std::fs::write(&want_fixed, &r.bytes).unwrap();
        }
        let expected: Value = serde_json::from_slice(&std::fs::read(&want_report).unwrap()).unwrap();
        assert_eq!(report, expected, "{name}: the report");
        assert_eq!(
            String::from_utf8_lossy(&r.bytes),
            String::from_utf8_lossy(&std::fs::read(&want_fixed).unwrap()),
            "{name}: the repaired file"
        );

        lines_oracle(name, &input, &r);
        if !found.contains(&Kind::BrokenChain) {
            history_oracle(name, &input, &r);
        }
        reader_accepts(name, &r.bytes);
        let signed = signed_prefixes(&history(&raw_lines(&input)));
        if !found.contains(&Kind::BrokenChain) {
            assert!(
                fake_api(&history(&raw_lines(&input)), &signed).is_err(),
                "{name}: the fake API must refuse the input"
            );
        }
        fake_api(&history(&raw_lines(&r.bytes)), &signed)
            .unwrap_or_else(|e| panic!("{name}: the fake API refuses the repair: {e}"));
        // A repaired file needs nothing more.
        assert_eq!(doctor::repair(&r.bytes, None).bytes, r.bytes, "{name}: a second repair changes it");
    }
}

#[test]
fn the_broken_chain_resumes_the_whole_conversation_after_repair() {
    let input = std::fs::read(dir().join("broken-chain.jsonl")).unwrap();
    let before: Vec<usize> = history(&raw_lines(&input)).iter().map(|b| b.line).collect();
    assert_eq!(before, vec![3, 4], "the input's resume starts after the torn line");
    let r = doctor::repair(&input, None);
    let after: Vec<usize> = history(&raw_lines(&r.bytes)).iter().map(|b| b.line).collect();
    assert_eq!(
        after,
        vec![0, 1, 3, 4],
        "the repaired file resumes from the first prompt (the torn line stays, skipped)"
    );
}

#[test]
fn the_fake_api_refuses_what_the_doctor_finds() {
    // The oracle itself must be able to fail: each fixture's own history.
    for (name, kinds) in FIXTURES {
        if kinds.contains(&Kind::BrokenChain) {
            continue;
        }
        let h = history(&raw_lines(&std::fs::read(dir().join(format!("{name}.jsonl"))).unwrap()));
        let e = fake_api(&h, &signed_prefixes(&h)).expect_err(name);
        println!("{name}: refused: {e}");
    }
}

#[test]
fn every_peer_session_goes_through_the_doctor() {
    let Some(peers) = shared::shared_file("every_peer_session_goes_through_the_doctor", "peers") else {
        return;
    };
    let (mut resumed, mut repaired) = (0, 0);
    for f in shared::session_files(&peers) {
        let name = f.strip_prefix(&peers).unwrap().display().to_string();
        let input = std::fs::read(&f).unwrap();
        let d = doctor::diagnose(&input, None);
        let r = doctor::repair(&input, None);
        if d.resumes() {
            assert_eq!(r.bytes, input, "{name}: a file that resumes comes back byte-identical");
            assert!(r.changes.is_empty());
            resumed += 1;
        }
        if d.format != Some(garuda_session::formats::Format::ClaudeCode) {
            assert_eq!(r.bytes, input, "{name}: other formats are not touched yet");
            continue;
        }
        lines_oracle(&name, &input, &r);
        let h = history(&raw_lines(&r.bytes));
        if r.after.resumes() {
            // Real signatures: the fake API checks their place, not their bytes.
            fake_api(&h, &signed_prefixes(&history(&raw_lines(&input))))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            reader_accepts(&name, &r.bytes);
        }
        if !d.resumes() {
            repaired += 1;
        }
        println!(
            "{name}: {} problems, {} changes, resumes after: {}",
            d.problems.len(),
            r.changes.len(),
            r.after.resumes()
        );
    }
    println!("peers: {resumed} resume as they are (byte-identical after repair), {repaired} Claude Code files repaired");
}

#[test]
fn every_problem_and_change_kind_is_declared() {
    let d = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("pkg-template/index.d.ts"))
        .unwrap();
    let union = &d[d.find("export type DoctorProblemKind =").expect("DoctorProblemKind")..];
    let union = &union[..union.find(';').unwrap()];
    for k in Kind::ALL {
        assert!(union.contains(&format!("\"{}\"", k.as_str())), "{} is not in DoctorProblemKind", k.as_str());
    }
    let change = &d[d.find("export interface DoctorChange").expect("DoctorChange")..];
    let change = &change[..change.find('}').unwrap()];
    for k in ChangeKind::ALL {
        assert!(change.contains(&format!("\"{}\"", k.as_str())), "{} is not in DoctorChange", k.as_str());
    }
}

#[test]
fn pi_and_gemini_peers_are_diagnosed_and_left_as_they_are() {
    use garuda_session::formats::Format;
    let Some(peers) = shared::shared_file("pi_and_gemini_peers_are_diagnosed_and_left_as_they_are", "peers")
    else {
        return;
    };
    let mut n = 0;
    for f in shared::session_files(&peers) {
        let name = f.strip_prefix(&peers).unwrap().display().to_string();
        let input = std::fs::read(&f).unwrap();
        let d = doctor::diagnose(&input, None);
        if !matches!(d.format, Some(Format::Pi | Format::Gemini)) {
            continue;
        }
        n += 1;
        assert!(d.problems.iter().all(|p| p.kind != Kind::Unsupported), "{name}: {}", d.to_json());
        // Read in chunks of a page: the same diagnosis.
        let mut s = doctor::Streaming::new(None);
        for c in input.chunks(4096) {
            s.feed(c);
        }
        assert_eq!(s.finish(), d, "{name}: in chunks");
        if d.resumes() {
            assert_eq!(doctor::repair(&input, None).bytes, input, "{name}: it resumes: byte-identical");
        }
        println!("{name}: {} problems, resumes: {}: {}", d.problems.len(), d.resumes(), d.to_json());
    }
    assert!(n > 0, "no pi or Gemini session under {}", peers.display());
}
