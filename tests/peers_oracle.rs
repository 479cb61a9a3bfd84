//! Oracles for the readers of other agents' sessions, over every real file
//! in `../shared/peers` (skipped, saying so, when absent) and every fixture
//! of tests/formats/. The oracles are written apart from the readers: plain
//! `serde_json::Value` walks of the raw lines, from each agent's documented
//! or observed storage rules, sharing no code with src/formats/.
//!
//! - every user prompt on the agent's active chain (Claude Code: the walk
//!   from the last leaf through every line with a uuid) is a prompt of the
//!   replay, an entry of the transcript (what export and the viewer render),
//!   and, when no compaction came after it, a message of the resumed history;
//! - every tool call of the resumed history whose result is in the file gets
//!   that result, never the synthetic "interrupted" one;
//! - replay and the usage report's quick replay agree on tokens and cost,
//!   and the transcript's prompts are the replay's.

#[path = "support/shared.rs"]
mod shared;

use garuda_session::formats::Format;
use garuda_session::resume::{resume, ResumeOptions};
use garuda_session::transcript::{Transcript, INTERRUPTED};
use garuda_session::{Journal, SessionState};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

fn read(bytes: &[u8], history: bool) -> SessionState {
    let mut j = if history { Journal::default().with_history() } else { Journal::default() };
    j.feed_bytes(bytes);
    j.finish();
    j.into_state()
}

fn quick(bytes: &[u8]) -> SessionState {
    let mut j = Journal::default().for_usage();
    j.feed_bytes(bytes);
    j.finish();
    j.into_state()
}

/// Each line's JSON objects (a line may hold two written back to back: a
/// write that lost its newline; each counts).
fn objects(text: &str) -> Vec<Value> {
    text.lines()
        .flat_map(|l| {
            let all: Vec<Result<Value, _>> =
                serde_json::Deserializer::from_str(l.trim()).into_iter::<Value>().collect();
            if all.iter().all(Result::is_ok) {
                all.into_iter().flatten().collect()
            } else {
                Vec::new()
            }
        })
        .filter(Value::is_object)
        .collect()
}

fn s<'a>(v: &'a Value, k: &str) -> Option<&'a str> {
    v.get(k).and_then(Value::as_str)
}

fn flag(v: &Value, k: &str) -> bool {
    v.get(k).and_then(Value::as_bool).unwrap_or(false)
}

/// A prompt's words, white space folded, for finding it in rendered text.
fn words(text: &str, n: usize) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ").chars().take(n).collect()
}

/// What the oracle expects of one file.
struct Expect {
    /// Prompts on the active chain, in order; `true` when no compaction
    /// follows it (so the resumed history must hold it).
    prompts: Vec<(String, bool)>,
}

/// Claude Code, from its storage as Claude Code reads it back: each line
/// with a `uuid` is a node whose parent is `parentUuid` (or, at a
/// compaction boundary, `logicalParentUuid`); the conversation is the chain
/// from the last line that is not `progress` (nor a sidechain, unless the
/// whole file is one: a subagent's own file); the other lines of a response
/// (same `message.id`) on the chain, and tool results answering any of
/// them, are on it too. A prompt is a `user` line that is not meta, not a
/// compact summary, not only tool results and not a command's wrapper or an
/// interruption note, or a `queued_command` attachment typed as a prompt,
/// or a slash command the model answered (a response after its expansion).
fn claude_code(lines: &[Value]) -> Expect {
    let nodes: Vec<&Value> = lines.iter().filter(|l| s(l, "uuid").is_some()).collect();
    let child_run = !nodes.is_empty() && nodes.iter().all(|l| flag(l, "isSidechain"));
    let parent: HashMap<&str, Option<&str>> = nodes
        .iter()
        .map(|l| (s(l, "uuid").unwrap(), s(l, "parentUuid").or_else(|| s(l, "logicalParentUuid"))))
        .collect();
    let leaf = nodes
        .iter()
        .rev()
        .find(|l| s(l, "type") != Some("progress") && (child_run || !flag(l, "isSidechain")));
    let mut on: HashSet<&str> = HashSet::new();
    let mut at = leaf.and_then(|l| s(l, "uuid"));
    while let Some(u) = at {
        if !on.insert(u) {
            break;
        }
        at = parent.get(u).copied().flatten();
    }
    let mid = |l: &Value| l.get("message").and_then(|m| s(m, "id")).map(str::to_owned);
    let on_ids: HashSet<String> =
        nodes.iter().filter(|l| on.contains(s(l, "uuid").unwrap())).filter_map(|l| mid(l)).collect();
    let siblings: HashSet<&str> = nodes
        .iter()
        .filter(|l| s(l, "type") == Some("assistant") && mid(l).is_some_and(|m| on_ids.contains(&m)))
        .map(|l| s(l, "uuid").unwrap())
        .collect();
    let is_results = |l: &Value| {
        l.get("message")
            .and_then(|m| m.get("content"))
            .and_then(Value::as_array)
            .is_some_and(|b| !b.is_empty() && b.iter().all(|b| s(b, "type") == Some("tool_result")))
    };
    let mut extra = Vec::new();
    for l in &nodes {
        if is_results(l) && s(l, "parentUuid").is_some_and(|p| siblings.contains(p)) {
            extra.push(s(l, "uuid").unwrap());
        }
    }
    on.extend(siblings.iter().copied());
    on.extend(extra);
    let mut prompts: Vec<(String, bool)> = Vec::new();
    let chain: Vec<&Value> = nodes.iter().copied().filter(|l| on.contains(s(l, "uuid").unwrap())).collect();
    for (at, l) in chain.iter().enumerate() {
        if s(l, "type") == Some("system") && s(l, "subtype") == Some("compact_boundary") {
            for p in &mut prompts {
                p.1 = false;
            }
        }
        let text = match s(l, "type") {
            Some("user") if !flag(l, "isMeta") && !flag(l, "isCompactSummary") && !is_results(l) => {
                match l.get("message").and_then(|m| m.get("content")) {
                    Some(Value::String(t)) => t.clone(),
                    Some(Value::Array(b)) => {
                        b.iter().filter_map(|b| s(b, "text")).collect::<Vec<_>>().join("\n")
                    }
                    _ => continue,
                }
            }
            Some("attachment") => {
                let a = &l["attachment"];
                let mode = s(a, "commandMode");
                if s(a, "type") != Some("queued_command")
                    || flag(a, "isMeta")
                    || mode.is_some_and(|m| m != "prompt")
                {
                    continue;
                }
                match a.get("prompt") {
                    Some(Value::String(t)) => t.clone(),
                    Some(Value::Array(b)) => {
                        b.iter().filter_map(|b| s(b, "text")).collect::<Vec<_>>().join("\n")
                    }
                    _ => continue,
                }
            }
            _ => continue,
        };
        let t = text.trim_start();
        // A slash command typed at the prompt (`<command-name>/init</command-name>`)
        // is a turn when the model answered it: past its expansion (meta
        // texts), the next message on the chain is a response; `/clear` is
        // answered by `<local-command-stdout>` alone.
        if (t.starts_with("<command-name>") || t.starts_with("<command-message>"))
            && t.contains("</command-name>")
        {
            let expansion = |n: &Value| s(n, "type") == Some("user") && flag(n, "isMeta") && !is_results(n);
            let next = chain[at + 1..]
                .iter()
                .find(|n| matches!(s(n, "type"), Some("user" | "assistant")) && !expansion(n));
            let asked = next.is_some_and(|n| s(n, "type") == Some("assistant"));
            if asked {
                prompts.push((text, true));
            }
            continue;
        }
        if ["<command-", "<local-command-", "[Request interrupted", "Caveat: The messages below"]
            .iter()
            .any(|w| t.starts_with(w))
        {
            continue;
        }
        prompts.push((text, true));
    }
    Expect { prompts }
}

/// The text of a content field: a string, or its parts' `text` joined.
fn text_of(v: Option<&Value>) -> Option<String> {
    match v? {
        Value::String(t) => Some(t.clone()),
        Value::Array(b) => Some(b.iter().filter_map(|b| s(b, "text")).collect::<Vec<_>>().join("\n")),
        _ => None,
    }
}

/// A prompt everywhere but at a compaction: what came before it is only in
/// the summary, so the resumed history need not hold it.
fn compacted(prompts: &mut [(String, bool)]) {
    prompts.iter_mut().for_each(|p| p.1 = false);
}

/// Codex, from its rollouts: a prompt is a `response_item` user message
/// that is not the context Codex adds (environment, instructions), or a
/// `user_message` event (Codex Desktop records some prompts only so); an
/// event next to an item of the same text is the UI's echo of it.
fn codex(lines: &[Value]) -> Expect {
    const CONTEXT: [&str; 6] = [
        "<environment_context>",
        "<user_instructions>",
        "# AGENTS.md",
        "<permissions",
        "<turn_aborted>",
        "<user_shell_command>",
    ];
    let mut prompts: Vec<(String, bool)> = Vec::new();
    // (text, from an event) of the last prompt, to tell an echo.
    let mut last: Option<(String, bool)> = None;
    for l in lines {
        let p = &l["payload"];
        let (text, event) = match (s(l, "type"), s(p, "type")) {
            (Some("response_item"), Some("message")) if s(p, "role") == Some("user") => {
                (text_of(p.get("content")).unwrap_or_default(), false)
            }
            (Some("event_msg"), Some("user_message")) => (s(p, "message").unwrap_or("").to_owned(), true),
            (Some("compacted"), _) => {
                compacted(&mut prompts);
                continue;
            }
            _ => continue,
        };
        if text.trim().is_empty() || CONTEXT.iter().any(|c| text.trim_start().starts_with(c)) {
            continue;
        }
        if let Some((t, e)) = last.take() {
            if t.trim() == text.trim() && e != event {
                continue; // the echo
            }
        }
        last = Some((text.clone(), event));
        prompts.push((text, true));
    }
    Expect { prompts }
}

/// pi, from its session files: after the header, entries in a tree when
/// they have ids (the conversation is the path from the last entry through
/// `parentId`), else a list; a prompt is a user message (a bare `/command`
/// is the agent's, not a prompt).
fn pi(lines: &[Value]) -> Expect {
    let entries: Vec<&Value> = lines.iter().filter(|l| s(l, "type") != Some("session")).collect();
    let tree = entries.iter().any(|e| s(e, "id").is_some());
    let mut on: HashSet<&str> = HashSet::new();
    if tree {
        let parent: HashMap<&str, Option<&str>> =
            entries.iter().filter_map(|e| Some((s(e, "id")?, s(e, "parentId")))).collect();
        let mut at = entries.iter().rev().find_map(|e| s(e, "id"));
        while let Some(id) = at {
            if !on.insert(id) {
                break;
            }
            at = parent.get(id).copied().flatten();
        }
    }
    let mut prompts = Vec::new();
    for e in entries {
        if tree && !s(e, "id").is_some_and(|id| on.contains(id)) {
            continue;
        }
        if s(e, "type") == Some("compaction") {
            compacted(&mut prompts);
        }
        let m = &e["message"];
        if s(e, "type") != Some("message") || s(m, "role") != Some("user") {
            continue;
        }
        let text = text_of(m.get("content")).unwrap_or_default();
        if text.trim_start().starts_with('/') && !text.contains(' ') {
            continue;
        }
        prompts.push((text, true));
    }
    Expect { prompts }
}

/// Gemini CLI, from its session files: the document's `messages` (or the
/// JSONL's message lines, a later copy of an id replacing the first), or an
/// older save's `history` of API contents; a prompt is a user message that
/// is not a `/command`.
fn gemini(text: &str) -> Expect {
    let doc: Option<Value> = serde_json::from_str(text).ok();
    let mut users: Vec<String> = Vec::new();
    if let Some(h) = doc.as_ref().and_then(|d| d.get("history")).and_then(Value::as_array) {
        for c in h.iter().filter(|c| s(c, "role") == Some("user")) {
            let t: Vec<&str> =
                c["parts"].as_array().into_iter().flatten().filter_map(|p| s(p, "text")).collect();
            if !t.is_empty() {
                users.push(t.join("\n"));
            }
        }
    } else {
        let messages: Vec<Value> =
            match doc.as_ref().and_then(|d| d.get("messages")).and_then(Value::as_array) {
                Some(m) => m.clone(),
                None => {
                    let mut by_id: Vec<Value> = Vec::new();
                    for l in objects(text)
                        .into_iter()
                        .filter(|l| l.get("type").is_some() && l.get("$set").is_none())
                    {
                        match by_id.iter().position(|m| m.get("id").is_some() && m.get("id") == l.get("id")) {
                            Some(i) => by_id[i] = l,
                            None => by_id.push(l),
                        }
                    }
                    by_id
                }
            };
        for m in messages.iter().filter(|m| s(m, "type") == Some("user")) {
            users.push(text_of(m.get("content")).unwrap_or_default());
        }
    }
    Expect {
        prompts: users.into_iter().filter(|t| !t.trim_start().starts_with('/')).map(|t| (t, true)).collect(),
    }
}

/// The ids of every tool result in the file, whatever the agent: Claude
/// Code's `tool_use_id`, Codex's `*_output.call_id`, pi's `toolResult`
/// messages' `toolCallId`, Gemini's `toolCalls[]` that carry a `result`.
fn result_ids(v: &Value, out: &mut HashSet<String>) {
    match v {
        Value::Object(o) => {
            if let Some(id) = s(v, "tool_use_id") {
                out.insert(id.to_owned());
            }
            if s(v, "type").is_some_and(|t| t.ends_with("_output")) {
                if let Some(id) = s(v, "call_id") {
                    out.insert(id.to_owned());
                }
            }
            if s(v, "role") == Some("toolResult") {
                if let Some(id) = s(v, "toolCallId") {
                    out.insert(id.to_owned());
                }
            }
            if o.contains_key("result") && o.contains_key("name") {
                if let Some(id) = s(v, "id") {
                    out.insert(id.to_owned());
                }
            }
            o.values().for_each(|x| result_ids(x, out));
        }
        Value::Array(a) => a.iter().for_each(|x| result_ids(x, out)),
        _ => {}
    }
}

/// Every file the oracles run on: the peers' sessions, then the fixtures.
fn files() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    if let Some(dir) = shared::shared_file("peers_oracle", "peers") {
        for p in shared::session_files(&dir) {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if name == "manifest.json" || name == "logs.json" || name.ends_with(".meta.json") {
                continue;
            }
            out.push((p.strip_prefix(&dir).unwrap().to_string_lossy().into_owned(), p));
        }
    }
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/formats");
    for e in std::fs::read_dir(&fixtures).expect("tests/formats") {
        let p = e.expect("entry").path();
        out.push((format!("fixture {}", p.file_name().unwrap().to_string_lossy()), p));
    }
    out.sort();
    out
}

#[test]
fn every_prompt_on_the_active_chain_is_in_the_replay_the_transcript_and_the_resumed_history() {
    let mut checked = HashMap::new();
    for (name, path) in files() {
        let bytes = std::fs::read(&path).expect("readable");
        let state = read(&bytes, true);
        let text = String::from_utf8_lossy(&bytes);
        let expect = match state.format {
            Some(Format::ClaudeCode) => claude_code(&objects(&text)),
            Some(Format::Codex) => codex(&objects(&text)),
            Some(Format::Pi) => pi(&objects(&text)),
            Some(Format::Gemini) => gemini(&text),
            _ => continue,
        };
        assert_eq!(state.prompts as usize, expect.prompts.len(), "{name}: prompts on the active chain");
        let transcript = Transcript::new(&state);
        let previews: Vec<String> = transcript
            .entries()
            .iter()
            .filter(|e| e.record == "user")
            .map(|e| words(&e.preview, 400))
            .collect();
        assert_eq!(previews.len(), expect.prompts.len(), "{name}: the transcript's prompts");
        let history = resume(&state, &ResumeOptions::default()).messages_json().join("\n");
        for (i, (prompt, live)) in expect.prompts.iter().enumerate() {
            let w = words(prompt, 40);
            assert!(previews[i].contains(&w), "{name}: prompt {i} {w:?} is entry {:?}", previews[i]);
            if *live {
                let escaped = serde_json::to_string(prompt.trim().lines().next().unwrap_or("")).unwrap();
                let needle: String = escaped[1..escaped.len() - 1].chars().take(40).collect();
                assert!(history.contains(&needle), "{name}: prompt {i} {needle:?} is in the resumed history");
            }
        }
        println!("{name}: {} prompts on the active chain", expect.prompts.len());
        *checked.entry(state.format.unwrap().as_str()).or_insert(0) += 1;
    }
    for f in ["claude-code", "codex", "pi", "gemini"] {
        assert!(checked.get(f).is_some_and(|n| *n >= 2), "{f}: {checked:?}");
    }
}

#[test]
fn every_call_whose_result_is_in_the_file_gets_that_result() {
    for (name, path) in files() {
        let bytes = std::fs::read(&path).expect("readable");
        let state = read(&bytes, false);
        if state.format.is_none_or(|f| f == Format::Garuda) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        let mut ids = HashSet::new();
        match serde_json::from_str::<Value>(&text) {
            Ok(doc) => result_ids(&doc, &mut ids),
            Err(_) => objects(&text).iter().for_each(|l| result_ids(l, &mut ids)),
        }
        let history: Vec<Value> = resume(&state, &ResumeOptions::default())
            .messages_json()
            .iter()
            .map(|m| serde_json::from_str(m).expect("a message is JSON"))
            .collect();
        let blocks = || history.iter().filter_map(|m| m.get("content").and_then(Value::as_array)).flatten();
        let results: HashMap<&str, &Value> = blocks()
            .filter(|b| s(b, "type") == Some("tool_result"))
            .filter_map(|b| Some((s(b, "tool_use_id")?, b)))
            .collect();
        let mut calls = 0;
        for call in blocks().filter(|b| s(b, "type") == Some("tool_use")) {
            let id = s(call, "id").unwrap_or("");
            if !ids.contains(id) {
                continue;
            }
            calls += 1;
            let result = results.get(id).unwrap_or_else(|| panic!("{name}: call {id} has no result"));
            assert!(!result.to_string().contains(INTERRUPTED), "{name}: call {id} got a made-up result");
        }
        println!("{name}: {calls} calls with their results");
    }
}

#[test]
fn replay_the_usage_report_and_the_transcript_agree() {
    for (name, path) in files() {
        let bytes = std::fs::read(&path).expect("readable");
        let state = read(&bytes, true);
        if state.format.is_none_or(|f| f == Format::Garuda) {
            continue;
        }
        let q = quick(&bytes);
        assert_eq!(q.accounts.usage, state.accounts.usage, "{name}: tokens");
        let cents = |c: Option<f64>| c.map(|c| (c * 1e6).round());
        assert_eq!(cents(q.accounts.cost_usd), cents(state.accounts.cost_usd), "{name}: cost");
        let t = Transcript::new(&state);
        let prompts = t.entries().iter().filter(|e| e.record == "user").count();
        assert_eq!(prompts, state.prompts as usize, "{name}: the transcript's prompts are the replay's");
    }
}

/// Claude Code 1.x wrote a Task's subagent inline (`isSidechain` lines in
/// the main file). Each such run (a sidechain line whose parent is no
/// sidechain line) whose first prompt is a Task call's `prompt` is that
/// call's child run: the call's result names `sidechain-<id>`, and the run
/// read alone starts with that prompt.
#[test]
fn every_inline_sidechain_run_nests_under_its_task_call() {
    let mut runs = 0;
    for (name, path) in files() {
        let bytes = std::fs::read(&path).expect("readable");
        let lines = objects(&String::from_utf8_lossy(&bytes));
        if lines.iter().all(|l| !flag(l, "isSidechain"))
            || lines.iter().filter(|l| s(l, "uuid").is_some()).all(|l| flag(l, "isSidechain"))
        {
            continue; // no inline run, or a subagent's own file
        }
        let side: HashSet<&str> =
            lines.iter().filter(|l| flag(l, "isSidechain")).filter_map(|l| s(l, "uuid")).collect();
        let tasks: HashMap<String, String> = lines
            .iter()
            .filter(|l| s(l, "type") == Some("assistant") && !flag(l, "isSidechain"))
            .filter_map(|l| l.pointer("/message/content").and_then(Value::as_array))
            .flatten()
            .filter(|b| s(b, "type") == Some("tool_use") && matches!(s(b, "name"), Some("Task" | "Agent")))
            .filter_map(|b| {
                Some((b.pointer("/input/prompt")?.as_str()?.trim().to_owned(), s(b, "id")?.to_owned()))
            })
            .collect();
        let state = read(&bytes, true);
        // The file read once, keeping its runs (Journal::run_journal).
        let mut kept = Journal::default().keeping_runs();
        kept.feed_bytes(&bytes);
        kept.finish();
        let linked: HashSet<String> = state
            .history
            .iter()
            .flatten()
            .filter_map(|h| match h {
                garuda_session::state::HistoryItem::Message { turn: Some(t), .. } => Some(t.children.clone()),
                _ => None,
            })
            .flatten()
            .map(|(_, child)| child)
            .collect();
        for root in lines
            .iter()
            .filter(|l| flag(l, "isSidechain") && !s(l, "parentUuid").is_some_and(|p| side.contains(p)))
        {
            let text = match root.pointer("/message/content") {
                Some(Value::String(t)) => t.trim().to_owned(),
                _ => continue,
            };
            let Some(id) = tasks.get(&text) else { continue };
            assert!(linked.contains(&format!("sidechain-{id}")), "{name}: the Task call {id} names its run");
            let mut j = Journal::default().with_run(id);
            j.feed_bytes(&bytes);
            j.finish();
            let run = j.into_state();
            assert!(run.prompts >= 1 && run.steps >= 1, "{name}: the run of {id} read alone");
            // Read from what the file's one read kept, it is the same run
            // (but for the warnings about the file's lines, which that read gave).
            let again = kept.run_journal(id).expect("the run was kept").into_state();
            let mut want = run.clone();
            for w in
                kept.state().warnings.iter().filter(|w| w.kind == garuda_session::state::WarningKind::BadJson)
            {
                if let Some(i) = want.warnings.iter().position(|x| x == w) {
                    want.warnings.remove(i);
                    want.warning_counts[w.kind.index()] -= 1;
                }
            }
            assert_eq!(again, want, "{name}: the run of {id}, kept");
            let first = run.messages.first().map(|m| m.json.to_string()).unwrap_or_default();
            let head: String = text.chars().take(30).collect();
            let escaped = serde_json::to_string(&head).unwrap();
            assert!(
                first.contains(&escaped[1..escaped.len() - 1]),
                "{name}: the run of {id} starts with its prompt"
            );
            runs += 1;
        }
    }
    println!("{runs} inline runs nested under their Task calls");
}

/// A response of an inline run that a Task call started is drawn in that
/// run, under the call: the file's own transcript tells it nowhere else
/// (each one was also a landmark of "tokens spent outside the
/// conversation" beside the run, found by comparing with claude-code-log's
/// rendering), while its tokens still count (the replay and usage agree,
/// above). A sidechain response of no Task's run keeps its landmark, and
/// says it was a subagent's. The oracle links runs from the raw lines:
/// a run's root is a sidechain line whose parent is no sidechain line, and
/// a Task call started it when its prompt is the call's `prompt`.
#[test]
fn a_response_of_a_tasks_inline_run_is_told_once() {
    use garuda_session::record::RecordKind;
    use garuda_session::state::HistoryItem;
    let (mut told_once, mut unlinked) = (0, 0);
    for (name, path) in files() {
        let bytes = std::fs::read(&path).expect("readable");
        let text = String::from_utf8_lossy(&bytes);
        // (line number, line) of each line that is one JSON object.
        let lines: Vec<(u64, Value)> = text
            .lines()
            .enumerate()
            .filter_map(|(i, l)| Some((i as u64 + 1, serde_json::from_str::<Value>(l).ok()?)))
            .filter(|(_, v)| v.is_object())
            .collect();
        let with_uuid: Vec<&Value> =
            lines.iter().map(|(_, v)| v).filter(|v| s(v, "uuid").is_some()).collect();
        if !with_uuid.iter().any(|l| flag(l, "isSidechain"))
            || with_uuid.iter().all(|l| flag(l, "isSidechain"))
        {
            continue; // no inline run, or a subagent's own file
        }
        let parent: HashMap<&str, &str> = lines
            .iter()
            .filter(|(_, l)| flag(l, "isSidechain"))
            .filter_map(|(_, l)| Some((s(l, "uuid")?, s(l, "parentUuid").unwrap_or(""))))
            .collect();
        let prompts: HashSet<String> = lines
            .iter()
            .filter(|(_, l)| s(l, "type") == Some("assistant") && !flag(l, "isSidechain"))
            .filter_map(|(_, l)| l.pointer("/message/content").and_then(Value::as_array))
            .flatten()
            .filter(|b| s(b, "type") == Some("tool_use") && matches!(s(b, "name"), Some("Task" | "Agent")))
            .filter_map(|b| Some(b.pointer("/input/prompt")?.as_str()?.trim().to_owned()))
            .collect();
        let root_of = |id: &str| {
            let mut at = id.to_owned();
            for _ in 0..parent.len() {
                match parent.get(at.as_str()) {
                    Some(p) if parent.contains_key(p) => at = (*p).to_owned(),
                    _ => break,
                }
            }
            at
        };
        let started: HashSet<&str> = lines
            .iter()
            .filter(|(_, l)| flag(l, "isSidechain") && !parent.contains_key(s(l, "parentUuid").unwrap_or("")))
            .filter(|(_, l)| {
                l.pointer("/message/content")
                    .and_then(Value::as_str)
                    .is_some_and(|t| prompts.contains(t.trim()))
            })
            .filter_map(|(_, l)| s(l, "uuid"))
            .collect();
        // The lines of sidechain responses, by whether a Task's run holds them.
        let (mut linked, mut other) = (HashSet::new(), HashSet::new());
        for (n, l) in &lines {
            if flag(l, "isSidechain")
                && s(l, "type") == Some("assistant")
                && l.pointer("/message/usage").is_some()
            {
                let uuid = s(l, "uuid").unwrap_or("");
                if started.contains(root_of(uuid).as_str()) {
                    linked.insert(*n);
                } else {
                    other.insert(*n);
                }
            }
        }
        let state = read(&bytes, true);
        for h in state.history.iter().flatten() {
            if let HistoryItem::Landmark { line, kind: RecordKind::SideUsage, text } = h {
                assert!(
                    !linked.contains(line),
                    "{name}: line {line} is drawn in its run, and told again: {text}"
                );
                if other.contains(line) {
                    assert!(text.ends_with(" (subagent)"), "{name}: line {line} is a subagent's: {text}");
                    unlinked += 1;
                }
            }
        }
        // Every other sidechain response is told (once per response: its
        // streamed lines share one landmark, on the first of them).
        let told: HashSet<u64> = state
            .history
            .iter()
            .flatten()
            .filter_map(|h| match h {
                HistoryItem::Landmark { line, kind: RecordKind::SideUsage, .. } => Some(*line),
                _ => None,
            })
            .collect();
        let ids: HashMap<u64, &str> =
            lines.iter().filter_map(|(n, l)| Some((*n, l.pointer("/message/id")?.as_str()?))).collect();
        let mut first_of_response: HashSet<&str> = HashSet::new();
        for n in other.iter().copied().collect::<std::collections::BTreeSet<_>>() {
            if ids.get(&n).is_none_or(|id| first_of_response.insert(id)) {
                assert!(told.contains(&n), "{name}: the subagent's response at line {n} is told nowhere");
            }
        }
        told_once += linked.len();
    }
    if shared::shared_file("peers_oracle", "peers").is_some() {
        assert!(told_once > 0 && unlinked > 0, "the peers hold runs of both kinds");
    }
    println!("{told_once} lines of Task runs' responses told once, {unlinked} of other sidechains told as a subagent's");
}
