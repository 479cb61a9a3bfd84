//! The doctor on pi and Gemini CLI sessions (issue 28), proved by oracles
//! written apart from `src/doctor/pi.rs` and `src/doctor/gemini.rs`:
//! - each hand-made fixture (tests/doctor/pi/, tests/doctor/gemini/, one per
//!   shape the trackers report) gives the expected report and repaired file;
//! - a loader oracle per agent, a second reading of each agent's source
//!   written here over `serde_json::Value`: for pi, `parseSessionEntries`,
//!   `migrateV1ToV2`, `buildSessionContext`, `transformMessages` and
//!   Anthropic's `convertMessages`; for Gemini CLI, `loadConversationRecord`
//!   (with `$rewindTo`, `$set`, the legacy fallback) and
//!   `convertSessionToClientHistory`;
//! - a fake API for each: Anthropic's tool pairs and thinking signatures
//!   (a signature holds only over the text and the prefix it was first seen
//!   with), Gemini's call and response pairs. It refuses every fixture that
//!   does not resume and accepts every repaired one;
//! - a line oracle: the repaired file is the input minus exactly the
//!   reported changes (every other line byte-identical; a touched line
//!   equal to its input line but for the reported blocks and links);
//! - our reader, resume and `checkMessages` accept every repaired file;
//! - every pi and Gemini file of ../shared/peers: the oracle agrees with the
//!   doctor on whether it resumes, and a file that resumes comes back
//!   byte-identical.
//!
//! `DOCTOR_BLESS=1` rewrites the expected files (read them before committing).

#[path = "support/doctor_report.rs"]
mod doctor_report;
#[path = "support/shared.rs"]
mod shared;
use doctor_report::report_json;

use garuda_session::doctor::{self, ChangeKind, Kind, Repaired};
use garuda_session::formats::Format;
use serde_json::{json, Value};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// (agent folder, file, the kinds found, whether it resumes as written)
const FIXTURES: [(&str, &str, &[Kind], bool); 11] = [
    ("pi", "orphan-compaction.jsonl", &[Kind::ToolResultOrphan], false),
    ("pi", "v1-orphan-compaction.jsonl", &[Kind::ToolResultOrphan], false),
    ("pi", "orphan-crash.jsonl", &[Kind::ToolUseUnanswered], true),
    ("pi", "orphan-aborted.jsonl", &[Kind::ToolResultOrphan], false),
    ("pi", "thinking-changed.jsonl", &[Kind::ThinkingChanged], false),
    ("pi", "empty-thinking.jsonl", &[], true),
    ("pi", "broken-chain.jsonl", &[Kind::BrokenChain], false),
    ("gemini", "orphan-crash.json", &[Kind::ToolUseUnanswered], false),
    ("gemini", "orphan-crash-jsonl.jsonl", &[Kind::ToolUseUnanswered], false),
    ("gemini", "rewound.jsonl", &[], true),
    ("gemini", "modern-pairs.jsonl", &[Kind::ToolUseUnanswered, Kind::ToolResultOrphan], false),
];

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/doctor")
}

fn s<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

// ------------------------------------------------------------- pi's loader

/// session-manager.ts: loadEntriesFromFile, then migrateV1ToV2.
fn pi_entries(bytes: &[u8]) -> Vec<Value> {
    let text = String::from_utf8_lossy(bytes);
    let mut entries: Vec<Value> = text
        .trim()
        .split('\n')
        .filter(|l| !l.trim().is_empty())
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .collect();
    match entries.first() {
        Some(h) if s(h, "type") == Some("session") && s(h, "id").is_some() => {}
        _ => return Vec::new(),
    }
    if entries[0].get("version").and_then(Value::as_u64).unwrap_or(1) < 2 {
        let ids: Vec<String> = (0..entries.len()).map(|i| format!("v1-{i}")).collect();
        let mut prev: Option<String> = None;
        for i in 1..entries.len() {
            entries[i]["id"] = json!(ids[i]);
            entries[i]["parentId"] = json!(prev);
            prev = Some(ids[i].clone());
            if let Some(n) = entries[i].get("firstKeptEntryIndex").and_then(Value::as_u64) {
                let n = n as usize;
                if n >= 1 && n < entries.len() {
                    entries[i]["firstKeptEntryId"] = json!(ids[n]);
                }
            }
        }
    }
    entries.remove(0);
    entries
}

/// buildSessionContext: the messages from the leaf's path, and the model.
fn pi_context(entries: &[Value]) -> (Vec<Value>, Option<(String, String)>) {
    let by_id: HashMap<&str, &Value> = entries.iter().filter_map(|e| Some((s(e, "id")?, e))).collect();
    let mut path = Vec::new();
    let mut at = entries.last();
    let mut seen = HashSet::new();
    while let Some(e) = at {
        if !seen.insert(s(e, "id")) {
            break;
        }
        path.insert(0, e);
        at = s(e, "parentId").and_then(|p| by_id.get(p).copied());
    }
    let mut model = None;
    let mut compaction = None;
    for (k, e) in path.iter().enumerate() {
        match s(e, "type") {
            Some("model_change") => {
                model = Some((
                    s(e, "provider").unwrap_or("").to_owned(),
                    s(e, "modelId").unwrap_or("").to_owned(),
                ))
            }
            Some("message") if s(&e["message"], "role") == Some("assistant") => {
                let m = &e["message"];
                model =
                    Some((s(m, "provider").unwrap_or("").to_owned(), s(m, "model").unwrap_or("").to_owned()))
            }
            Some("compaction") => compaction = Some(k),
            _ => {}
        }
    }
    let mut messages = Vec::new();
    let append = |messages: &mut Vec<Value>, e: &Value| match s(e, "type") {
        Some("message") => messages.push(e["message"].clone()),
        Some("custom_message") => messages.push(json!({"role": "custom", "content": e["content"]})),
        Some("branch_summary") if e.get("summary").is_some() => {
            messages.push(json!({"role": "branchSummary", "summary": e["summary"]}))
        }
        _ => {}
    };
    match compaction {
        Some(c) => {
            messages.push(json!({"role": "compactionSummary", "summary": path[c]["summary"]}));
            let first = s(path[c], "firstKeptEntryId");
            let mut found = false;
            for e in &path[..c] {
                found |= first.is_some() && s(e, "id") == first;
                if found {
                    append(&mut messages, e);
                }
            }
            for e in &path[c + 1..] {
                append(&mut messages, e);
            }
        }
        None => path.iter().for_each(|e| append(&mut messages, e)),
    }
    (messages, model)
}

/// transformMessages, then anthropic.ts convertMessages: what pi sends.
fn pi_request(messages: &[Value], model: &Option<(String, String)>) -> Vec<Value> {
    let same = |m: &Value| {
        model
            .as_ref()
            .is_some_and(|(p, id)| s(m, "provider") == Some(p.as_str()) && s(m, "model") == Some(id.as_str()))
    };
    let mut out: Vec<Value> = Vec::new();
    let mut pending: Vec<(String, String)> = Vec::new();
    let mut answered: HashSet<String> = HashSet::new();
    let synthetic = |pending: &mut Vec<(String, String)>,
                     answered: &mut HashSet<String>,
                     out: &mut Vec<Value>| {
        for (id, _) in pending.drain(..) {
            if !answered.contains(&id) {
                out.push(json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": "No result provided", "is_error": true}]}));
            }
        }
        answered.clear();
    };
    for m in messages {
        match s(m, "role") {
            Some("assistant") => {
                synthetic(&mut pending, &mut answered, &mut out);
                if matches!(s(m, "stopReason"), Some("error" | "aborted")) {
                    continue;
                }
                let mut blocks = Vec::new();
                for b in m["content"].as_array().into_iter().flatten() {
                    match s(b, "type") {
                        Some("text") if !s(b, "text").unwrap_or("").trim().is_empty() => {
                            blocks.push(json!({"type": "text", "text": b["text"]}))
                        }
                        Some("thinking") => {
                            let text = s(b, "thinking").unwrap_or("");
                            let sig = s(b, "thinkingSignature").unwrap_or("");
                            if b.get("redacted") == Some(&json!(true)) {
                                if same(m) {
                                    blocks.push(json!({"type": "redacted_thinking", "data": sig}));
                                }
                            } else if text.trim().is_empty() {
                            } else if !same(m) || sig.trim().is_empty() {
                                blocks.push(json!({"type": "text", "text": text}));
                            } else {
                                blocks.push(json!({"type": "thinking", "thinking": text, "signature": sig}));
                            }
                        }
                        Some("toolCall") => {
                            pending.push((
                                s(b, "id").unwrap_or("").to_owned(),
                                s(b, "name").unwrap_or("").to_owned(),
                            ));
                            blocks.push(json!({"type": "tool_use", "id": b["id"], "name": b["name"], "input": b["arguments"]}));
                        }
                        _ => {}
                    }
                }
                if !blocks.is_empty() {
                    out.push(json!({"role": "assistant", "content": blocks}));
                }
            }
            Some("toolResult") => {
                answered.insert(s(m, "toolCallId").unwrap_or("").to_owned());
                let block =
                    json!({"type": "tool_result", "tool_use_id": m["toolCallId"], "content": m["content"]});
                // Consecutive results go in one user message.
                match out.last_mut() {
                    Some(last)
                        if s(last, "role") == Some("user")
                            && last["content"]
                                .as_array()
                                .is_some_and(|c| c.iter().all(|b| s(b, "type") == Some("tool_result"))) =>
                    {
                        last["content"].as_array_mut().unwrap().push(block)
                    }
                    _ => out.push(json!({"role": "user", "content": [block]})),
                }
            }
            _ => {
                synthetic(&mut pending, &mut answered, &mut out);
                out.push(json!({"role": "user", "content": [{"type": "text", "text": m.to_string()}]}));
            }
        }
    }
    out
}

/// The signatures of an accepted history: each with the text and the
/// prefix (everything before it) it was first seen with.
type Signed = HashMap<String, (String, String)>;

fn prefix(h: &[Value], k: usize, b: usize) -> String {
    let mut p: Vec<String> = h[..k].iter().map(Value::to_string).collect();
    p.extend(h[k]["content"].as_array().into_iter().flatten().take(b).map(Value::to_string));
    p.join("\n")
}

fn signed_of(h: &[Value]) -> Signed {
    let mut out = Signed::new();
    for (k, m) in h.iter().enumerate() {
        for (b, block) in m["content"].as_array().into_iter().flatten().enumerate() {
            if s(block, "type") == Some("thinking") {
                let sig = s(block, "signature").unwrap_or("").to_owned();
                out.entry(sig).or_insert((s(block, "thinking").unwrap_or("").to_owned(), prefix(h, k, b)));
            }
        }
    }
    out
}

/// What the Messages API refuses: a tool_use with no tool_result in the next
/// (merged) user turn, a tool_result for no tool_use of the turn before, a
/// signature over another text or another prefix than it was made over.
fn anthropic_api(h: &[Value], signed: &Signed) -> Result<(), String> {
    // Adjacent messages of one role are one turn.
    let mut turns: Vec<(String, Vec<Value>)> = Vec::new();
    for m in h {
        let role = s(m, "role").unwrap_or("").to_owned();
        let blocks = m["content"].as_array().cloned().unwrap_or_default();
        match turns.last_mut() {
            Some((r, bs)) if *r == role => bs.extend(blocks),
            _ => turns.push((role, blocks)),
        }
    }
    for (k, (role, blocks)) in turns.iter().enumerate() {
        let ids = |bs: &[Value], t: &str, key: &str| -> Vec<String> {
            bs.iter()
                .filter(|b| s(b, "type") == Some(t))
                .filter_map(|b| s(b, key).map(str::to_owned))
                .collect()
        };
        if role == "assistant" {
            let next = turns
                .get(k + 1)
                .filter(|(r, _)| r == "user")
                .map_or(Vec::new(), |(_, b)| ids(b, "tool_result", "tool_use_id"));
            for id in ids(blocks, "tool_use", "id") {
                if !next.contains(&id) {
                    return Err(format!("turn {k}: tool_use {id} has no tool_result after it"));
                }
            }
        } else {
            let asked = k
                .checked_sub(1)
                .map(|p| &turns[p])
                .filter(|(r, _)| r == "assistant")
                .map_or(Vec::new(), |(_, b)| ids(b, "tool_use", "id"));
            let mut seen = HashSet::new();
            for id in ids(blocks, "tool_result", "tool_use_id") {
                if !asked.contains(&id) || !seen.insert(id.clone()) {
                    return Err(format!("turn {k}: tool_result {id} answers no tool_use"));
                }
            }
        }
    }
    for (k, m) in h.iter().enumerate() {
        for (b, block) in m["content"].as_array().into_iter().flatten().enumerate() {
            if s(block, "type") != Some("thinking") {
                continue;
            }
            let sig = s(block, "signature").unwrap_or("");
            match signed.get(sig) {
                Some((text, p)) if text == s(block, "thinking").unwrap_or("") && *p == prefix(h, k, b) => {}
                Some(_) => {
                    return Err(format!(
                        "message {k}: thinking whose signature was made over another text or prefix"
                    ))
                }
                None => return Err(format!("message {k}: thinking with a signature the API never made")),
            }
        }
    }
    Ok(())
}

// ---------------------------------------------------------- Gemini's loader

/// chatRecordingService.ts loadConversationRecord (and its legacy
/// fallback): the messages, in order.
fn gemini_messages(bytes: &[u8]) -> Option<Vec<Value>> {
    let text = String::from_utf8_lossy(bytes);
    let mut ids: Vec<String> = Vec::new();
    let mut by_id: HashMap<String, Value> = HashMap::new();
    let mut meta = (false, false);
    let set = |ids: &mut Vec<String>, by_id: &mut HashMap<String, Value>, m: &Value| {
        let Some(id) = s(m, "id") else { return };
        if by_id.insert(id.to_owned(), m.clone()).is_none() {
            ids.push(id.to_owned());
        }
    };
    for line in text.lines() {
        if line.trim().is_empty() {
            continue;
        }
        let Ok(r) = serde_json::from_str::<Value>(line) else { continue };
        if let Some(to) = s(&r, "$rewindTo") {
            match ids.iter().position(|i| i == to) {
                Some(at) => ids.drain(at..).for_each(|i| drop(by_id.remove(&i))),
                None => {
                    ids.clear();
                    by_id.clear();
                }
            }
        } else if s(&r, "id").is_some() {
            set(&mut ids, &mut by_id, &r);
        } else if r.get("$set").is_some_and(Value::is_object) {
            meta.0 |= s(&r["$set"], "sessionId").is_some();
            meta.1 |= s(&r["$set"], "projectHash").is_some();
            if let Some(list) = r["$set"]["messages"].as_array() {
                ids.clear();
                by_id.clear();
                list.iter().for_each(|m| set(&mut ids, &mut by_id, m));
            }
        } else if s(&r, "sessionId").is_some() && s(&r, "projectHash").is_some() {
            meta = (true, true);
            r["messages"].as_array().into_iter().flatten().for_each(|m| set(&mut ids, &mut by_id, m));
        }
    }
    if meta == (true, true) {
        return Some(ids.iter().filter_map(|i| by_id.get(i).cloned()).collect());
    }
    // parseLegacyRecordFallback: an object with a sessionId, whose messages
    // initialize copies (it throws when they are not there).
    let doc: Value = serde_json::from_str(&text).ok()?;
    doc.get("sessionId")?;
    doc["messages"].as_array().cloned()
}

fn parts(c: &Value) -> Vec<Value> {
    match c {
        Value::Array(a) => {
            a.iter().map(|p| if p.is_string() { json!({"text": p}) } else { p.clone() }).collect()
        }
        Value::String(t) => vec![json!({"text": t})],
        Value::Null => Vec::new(),
        other => vec![other.clone()],
    }
}

fn falsy(v: &Value) -> bool {
    matches!(v, Value::Null | Value::Bool(false)) || v == &json!("") || v == &json!(0)
}

/// sessionUtils.ts convertSessionToClientHistory: the contents sent.
fn gemini_history(messages: &[Value]) -> Vec<Value> {
    let mut out = Vec::new();
    for m in messages {
        match s(m, "type") {
            Some("user") => out.push(json!({"role": "user", "parts": parts(&m["content"])})),
            Some("gemini") => {
                let content = if falsy(&m["content"]) { Vec::new() } else { parts(&m["content"]) };
                let modern = content
                    .iter()
                    .any(|p| p.get("functionCall").is_some() || p.get("thought").is_some_and(|t| !falsy(t)));
                let calls = m["toolCalls"].as_array().cloned().unwrap_or_default();
                let mut model = Vec::new();
                if modern {
                    model = content;
                } else {
                    for t in m["thoughts"].as_array().into_iter().flatten() {
                        model.push(json!({"text": t["description"], "thought": true}));
                    }
                    model.extend(content);
                    for c in &calls {
                        model.push(
                            json!({"functionCall": {"id": c["id"], "name": c["name"], "args": c["args"]}}),
                        );
                    }
                }
                if model.is_empty() {
                    continue;
                }
                out.push(json!({"role": "model", "parts": model}));
                let mut responses = Vec::new();
                for c in &calls {
                    let r = &c["result"];
                    if r.is_null() || falsy(r) {
                        continue;
                    }
                    match r {
                        Value::String(o) => responses.push(json!({"functionResponse": {"id": c["id"], "name": c["name"], "response": {"output": o}}})),
                        Value::Array(_) => responses.extend(parts(r)),
                        other => responses.push(other.clone()),
                    }
                }
                if !responses.is_empty() {
                    out.push(json!({"role": "user", "parts": responses}));
                }
            }
            _ => {}
        }
    }
    out
}

/// What the Gemini API refuses: a call turn whose next turn does not hold a
/// response for each call, a response no call of the turn before asks for.
fn gemini_api(h: &[Value]) -> Result<(), String> {
    let ids = |t: &Value, key: &str| -> Vec<Value> {
        t["parts"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|p| p.get(key))
            .map(|c| c["id"].clone())
            .collect()
    };
    for (k, t) in h.iter().enumerate() {
        if s(t, "role") == Some("model") {
            let calls = ids(t, "functionCall");
            let next = h
                .get(k + 1)
                .filter(|n| s(n, "role") == Some("user"))
                .map_or(Vec::new(), |n| ids(n, "functionResponse"));
            if calls.iter().any(|c| !next.contains(c)) {
                return Err(format!("turn {k}: a function call with no response after it"));
            }
        } else {
            let asked = k
                .checked_sub(1)
                .map(|p| &h[p])
                .filter(|p| s(p, "role") == Some("model"))
                .map_or(Vec::new(), |p| ids(p, "functionCall"));
            if ids(t, "functionResponse").iter().any(|r| !asked.contains(r)) {
                return Err(format!("turn {k}: a function response no call asks for"));
            }
        }
    }
    Ok(())
}

/// The oracle's judgement of a file: Ok when the agent's request would be
/// accepted (`signed`: the signatures the API made, from the input).
fn oracle(agent: &str, bytes: &[u8], signed: Option<&Signed>) -> Result<(), String> {
    if agent == "pi" {
        let entries = pi_entries(bytes);
        // The walk from the leaf must reach the root, or what came before
        // the break is lost (no API error, a lost conversation).
        let ids: HashSet<&str> = entries.iter().filter_map(|e| s(e, "id")).collect();
        if let Some(p) = entries.iter().filter_map(|e| s(e, "parentId")).find(|p| !ids.contains(p)) {
            return Err(format!("a parentId names no entry ({p}): the walk from the leaf stops there"));
        }
        let (messages, model) = pi_context(&entries);
        let h = pi_request(&messages, &model);
        let own = signed_of(&h);
        anthropic_api(&h, signed.unwrap_or(&own))
    } else {
        let m = gemini_messages(bytes).ok_or("Gemini CLI cannot load the file")?;
        gemini_api(&gemini_history(&m))
    }
}

// ------------------------------------------------------------- line oracle

/// The units the file is compared by: its lines, or the whole document.
fn units(bytes: &[u8]) -> Vec<Value> {
    if let Ok(v) = serde_json::from_slice::<Value>(bytes) {
        if bytes.iter().filter(|&&b| b == b'\n').count() > 1 {
            return vec![v];
        }
    }
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap_or(Value::Null))
        .collect()
}

/// Every path at which two values differ (object members added, removed
/// or changed; items added or removed at an array's end).
fn diff(a: &Value, b: &Value, at: String, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: HashSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) => diff(p, q, format!("{at}/{k}"), out),
                    _ => out.push(format!("{at}/{k}")),
                }
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            for (i, (p, q)) in x.iter().zip(y).enumerate() {
                diff(p, q, format!("{at}/{i}"), out);
            }
            // Items added or removed at the end: one path each.
            for i in x.len().min(y.len())..x.len().max(y.len()) {
                out.push(format!("{at}/{i}+"));
            }
        }
        _ if a != b => out.push(at),
        _ => {}
    }
}

/// pi: every line the report does not name is byte-identical; removed lines
/// are the reported ones; a touched line differs only in the reported
/// blocks of its content and its links.
fn pi_lines_oracle(name: &str, input: &[u8], r: &Repaired) {
    let by_line = |k: ChangeKind| -> HashSet<u64> {
        r.changes.iter().filter(|c| c.kind == k).map(|c| c.line).collect()
    };
    let removed = by_line(ChangeKind::LineRemoved);
    let named: HashSet<u64> = r.changes.iter().map(|c| c.line).collect();
    let out: Vec<&[u8]> = r.bytes.split(|&b| b == b'\n').collect();
    let mut got = out.iter();
    for (i, line) in input.split(|&b| b == b'\n').enumerate() {
        let n = i as u64 + 1;
        if removed.contains(&n) {
            let v: Value = serde_json::from_slice(line).unwrap();
            assert_eq!(
                s(&v["message"], "role"),
                Some("toolResult"),
                "{name}: line {n}: only results are left out"
            );
            continue;
        }
        let g = got.next().unwrap_or_else(|| panic!("{name}: the repair ends before line {n}"));
        if !named.contains(&n) {
            assert_eq!(*g, line, "{name}: line {n} is not as it was");
            continue;
        }
        let (mut a, b): (Value, Value) =
            (serde_json::from_slice(line).unwrap(), serde_json::from_slice(g).unwrap());
        let mut dropped: Vec<usize> = r
            .changes
            .iter()
            .filter(|c| c.line == n && c.kind == ChangeKind::ThinkingDropped)
            .filter_map(|c| c.block)
            .collect();
        dropped.sort_unstable();
        for &k in dropped.iter().rev() {
            let block = a["message"]["content"].as_array_mut().unwrap().remove(k);
            assert_eq!(s(&block, "type"), Some("thinking"), "{name}: line {n}: block {k} is not thinking");
        }
        let mut d = Vec::new();
        diff(&a, &b, String::new(), &mut d);
        let links = ["/parentId", "/firstKeptEntryId", "/firstKeptEntryIndex"];
        assert!(d.iter().all(|p| links.contains(&p.as_str())), "{name}: line {n} differs at {d:?}");
        assert_eq!(!d.is_empty(), by_line(ChangeKind::Reparented).contains(&n), "{name}: line {n}: {d:?}");
    }
    // Links are whole: ids unique, each parentId names an entry.
    let entries = pi_entries(&r.bytes);
    let ids: Vec<&str> = entries.iter().filter_map(|e| s(e, "id")).collect();
    assert_eq!(ids.iter().collect::<HashSet<_>>().len(), ids.len(), "{name}: ids not unique");
    for e in &entries {
        if let Some(p) = s(e, "parentId") {
            assert!(ids.contains(&p), "{name}: parentId {p} names no entry");
        }
    }
}

/// Gemini: the file's values differ from the input's only where the report
/// says (a result given to a record, a record added, a result taken out);
/// every unit the report does not touch is byte-identical.
fn gemini_lines_oracle(name: &str, input: &[u8], r: &Repaired) {
    let (a, b) = (units(input), units(&r.bytes));
    assert_eq!(a.len(), b.len(), "{name}: a unit was added or removed");
    let mut diffs = Vec::new();
    for (x, y) in a.iter().zip(&b) {
        diff(x, y, String::new(), &mut diffs);
    }
    assert_eq!(diffs.len(), r.changes.len(), "{name}: {diffs:?} for {:?}", r.changes);
    for d in &diffs {
        let record_added = d.contains("/toolCalls/") && d.ends_with('+') || d.ends_with("/toolCalls");
        assert!(d.ends_with("/result") || record_added, "{name}: differs at {d}");
    }
    for c in &r.changes {
        assert!(matches!(c.kind, ChangeKind::ResultAdded | ChangeKind::ResultDropped), "{name}: {c:?}");
    }
    // A JSONL line no change names is byte-identical.
    if a.len() > 1 {
        let named: HashSet<u64> = r.changes.iter().map(|c| c.line).collect();
        for (i, (x, y)) in input.split(|&b| b == b'\n').zip(r.bytes.split(|&b| b == b'\n')).enumerate() {
            if !named.contains(&(i as u64 + 1)) {
                assert_eq!(x, y, "{name}: line {} is not as it was", i + 1);
            }
        }
    }
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
fn each_pi_and_gemini_shape_is_found_on_its_line_and_repaired() {
    let bless = std::env::var_os("DOCTOR_BLESS").is_some();
    for (agent, file, kinds, resumes) in FIXTURES {
        let name = format!("{agent}/{file}");
        let input = std::fs::read(dir().join(&name)).unwrap();
        let d = doctor::diagnose(&input, None);
        let want = if agent == "pi" { Format::Pi } else { Format::Gemini };
        assert_eq!(d.format, Some(want), "{name}");
        assert_eq!(d.resumes(), resumes, "{name}: {}", d.to_json());
        let found: HashSet<Kind> = d.problems.iter().map(|p| p.kind).collect();
        assert_eq!(found, kinds.iter().copied().collect(), "{name}: {}", d.to_json());
        assert!(d.problems.iter().all(|p| p.line >= 1), "{name}: every problem names its line");
        // The oracle agrees on whether the agent's request is accepted.
        let before = oracle(agent, &input, None);
        assert_eq!(before.is_ok(), resumes, "{name}: the oracle says {before:?}");
        let r = doctor::repair(&input, None);
        let report = report_json(&input, &r);
        let stem = file.rsplit_once('.').unwrap().0;
        let ext = file.rsplit_once('.').unwrap().1;
        let want_report = dir().join(agent).join(format!("{stem}.report.json"));
        let want_fixed = dir().join(agent).join(format!("{stem}.fixed.{ext}"));
        if bless {
            std::fs::write(&want_report, serde_json::to_string_pretty(&report).unwrap() + "\n").unwrap();
            std::fs::write(&want_fixed, &r.bytes).unwrap();
        }
        let expected: Value = serde_json::from_slice(&std::fs::read(&want_report).unwrap()).unwrap();
        assert_eq!(report, expected, "{name}: the report");
        assert_eq!(r.bytes, std::fs::read(&want_fixed).unwrap(), "{name}: the repaired file");
        if resumes {
            assert_eq!(r.bytes, input, "{name}: a file that resumes comes back byte-identical");
            continue;
        }
        assert!(r.after.resumes(), "{name}: still fails after repair: {}", r.after.to_json());
        if agent == "pi" {
            pi_lines_oracle(&name, &input, &r);
            // Signatures are the input's: the API made them over its history.
            let (m, model) = pi_context(&pi_entries(&input));
            let signed = signed_of(&pi_request(&m, &model));
            oracle(agent, &r.bytes, Some(&signed))
                .unwrap_or_else(|e| panic!("{name}: the fake API refuses: {e}"));
        } else {
            gemini_lines_oracle(&name, &input, &r);
            oracle(agent, &r.bytes, None).unwrap_or_else(|e| panic!("{name}: the fake API refuses: {e}"));
        }
        reader_accepts(&name, &r.bytes);
        assert_eq!(doctor::repair(&r.bytes, None).bytes, r.bytes, "{name}: a second repair changes it");
    }
}

#[test]
fn every_pi_and_gemini_peer_goes_through_the_doctor() {
    let Some(peers) = shared::shared_file("every_pi_and_gemini_peer_goes_through_the_doctor", "peers") else {
        return;
    };
    let mut n = 0;
    for f in shared::session_files(&peers) {
        let name = f.strip_prefix(&peers).unwrap().display().to_string();
        let input = std::fs::read(&f).unwrap();
        let d = doctor::diagnose(&input, None);
        let agent = match d.format {
            Some(Format::Pi) => "pi",
            Some(Format::Gemini) => "gemini",
            _ => continue,
        };
        n += 1;
        let judged = oracle(agent, &input, None);
        assert_eq!(judged.is_ok(), d.resumes(), "{name}: the oracle says {judged:?}; {}", d.to_json());
        let r = doctor::repair(&input, None);
        let no_session = d.problems.iter().any(|p| p.kind == doctor::Kind::NoSession);
        if d.resumes() || no_session {
            // A file that is not a session (a manifest) is not made one.
            assert_eq!(
                r.bytes, input,
                "{name}: a file that resumes, or holds no session, comes back byte-identical"
            );
        } else {
            assert!(r.after.resumes(), "{name}: {}", r.after.to_json());
        }
        println!("{name}: {} problems, {} changes", d.problems.len(), r.changes.len());
    }
    assert!(n > 0, "no pi or Gemini session under {}", peers.display());
}
