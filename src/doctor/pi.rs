//! The doctor for pi coding agent sessions: what pi sends on resume, by its
//! own source (badlogic/pi-mono at 83378aad), and the least edit of the file
//! that makes it resume.
//!
//! What pi does with the file, and why each check exists:
//! - `packages/coding-agent/src/core/session-manager.ts`,
//!   `loadEntriesFromFile`: one JSON value a line, a line that does not
//!   parse skipped; when the first entry is not a `session` header with a
//!   string `id`, nothing is loaded. A header of `version` below 2 is a
//!   linear file: `migrateV1ToV2` gives each entry an id whose parent is the
//!   entry before it, and a compaction's `firstKeptEntryIndex` names the
//!   loaded entry at that index (the header is entry 0);
//! - `buildSessionContext`: the conversation is the path from the last entry
//!   back through `parentId` (a parent that names no entry stops the walk:
//!   the repair names the entry written before it, as pi's `appendEntry`
//!   would have); the model is the last `model_change` or assistant message
//!   on the path; after the last compaction on the path, its summary, the
//!   entries from `firstKeptEntryId` up to it, and what follows it;
//! - `packages/ai/src/providers/transform-messages.ts`, run on every
//!   request: an assistant message that stopped with `error` or `aborted` is
//!   left out; a call no result answers gets an error result ("No result
//!   provided") when the next assistant or user message comes, so an open
//!   call is a warning, and the file is left as it is; a result is sent as
//!   it is, so one that answers no call of the assistant message before it
//!   (pi#4570: a compaction that cut a pair) is refused by the API: the
//!   repair leaves its entry out, and its children take its parent;
//! - thinking: `transformMessages` turns thinking of another model into
//!   text, and `anthropic.ts` `convertMessages` sends an empty one not at
//!   all and an unsigned one as text; only a thinking block of the model pi
//!   resumes with, signed and not empty, is sent as signed thinking. A
//!   signature seen before over another text is a changed text, which the
//!   API refuses. The repair drops such blocks by the prefix rule (from the
//!   first bad block, or the first change the repair makes, on), as the
//!   Claude Code repair does.
//!
//! Every line the repair does not need to touch is written back byte for
//! byte; a touched line is spliced (its `message.content`, its `parentId`,
//! a compaction's first kept entry), so its other bytes stay too. Entries
//! that name a left-out entry by other fields (a `label`'s `targetId`) are
//! left: pi ignores a name it cannot find there.

use super::raw;
use super::{Change, ChangeKind, Kind, Problem, Severity};
use crate::json_str::str_literal;
use serde_json::Value;
use std::collections::{BTreeMap, HashMap, HashSet};

struct Piece<'a> {
    line: u64,
    bytes: &'a [u8],
    text: &'a str,
    newline: bool,
    v: Option<Value>,
}

/// A loaded entry that is not the header.
struct Entry {
    piece: usize,
    /// Its index as pi counts loaded entries (the header is 0).
    index: usize,
    key: Option<String>,
    parent: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    User,
    Assistant,
    ToolResult,
}

/// A message pi sends: the entry it comes from (None: a compaction's
/// summary).
struct Sent {
    entry: Option<usize>,
    role: Role,
}

/// A thinking block: (sent message, entry, block).
type Think = (usize, usize, usize);

#[derive(Default)]
struct Analysis {
    problems: Vec<Problem>,
    /// Entries whose parent the repair changes (broken chain).
    parents: HashMap<usize, Option<String>>,
    /// Results that answer no call: (sent message, entry).
    orphans: Vec<(usize, usize)>,
    /// Thinking pi sends signed, and the ones the API refuses.
    thinking: Vec<Think>,
    bad_thinking: Vec<(Think, String)>,
    path: Vec<usize>,
    v1: bool,
}

fn s<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn pieces<'a>(bytes: &'a [u8], problems: &mut Vec<Problem>) -> Vec<Piece<'a>> {
    let mut out = Vec::new();
    for (line, piece, newline) in raw::lines(bytes) {
        let text = std::str::from_utf8(piece).ok();
        let v = match text {
            Some(t) if t.trim().is_empty() => None,
            Some(t) => match serde_json::from_str::<Value>(t) {
                Ok(v) if v.is_object() => Some(v),
                Ok(_) | Err(_) => {
                    problems.push(Problem {
                        line,
                        kind: Kind::BadLine,
                        severity: Severity::Warning,
                        message: "the line is not a JSON object: pi skips it (session-manager.ts, loadEntriesFromFile)".into(),
                    });
                    None
                }
            },
            None => {
                problems.push(Problem {
                    line,
                    kind: Kind::BadLine,
                    severity: Severity::Warning,
                    message: "the line is not UTF-8: pi skips it".into(),
                });
                None
            }
        };
        out.push(Piece { line, bytes: piece, text: text.unwrap_or(""), newline, v });
    }
    out
}

/// The path from the last entry back through parents (entry indices, root
/// first), with the parents the repair changes.
fn walk(entries: &[Entry], parents: &HashMap<usize, Option<String>>) -> Vec<usize> {
    let by_key: HashMap<&str, usize> =
        entries.iter().enumerate().filter_map(|(i, e)| Some((e.key.as_deref()?, i))).collect();
    let mut path = Vec::new();
    let mut seen = HashSet::new();
    let mut at = entries.len().checked_sub(1);
    while let Some(i) = at {
        if !seen.insert(i) {
            break;
        }
        path.push(i);
        let parent = parents.get(&i).map_or(entries[i].parent.as_deref(), |p| p.as_deref());
        at = parent.and_then(|p| by_key.get(p).copied());
    }
    path.reverse();
    path
}

fn analyse<'a>(pieces: &[Piece<'a>], entries: &mut Vec<Entry>, a: &mut Analysis) {
    let v = |e: &Entry| pieces[e.piece].v.as_ref().unwrap_or(&Value::Null);
    let loaded: Vec<usize> = (0..pieces.len()).filter(|&i| pieces[i].v.is_some()).collect();
    let Some(&head) = loaded.first() else { return };
    let header = pieces[head].v.as_ref().unwrap_or(&Value::Null);
    if s(header, "type") != Some("session") || s(header, "id").is_none() {
        a.problems.push(Problem {
            line: pieces[head].line,
            kind: Kind::NoSession,
            severity: Severity::Error,
            message: "the first entry is not a session header with an id: pi loads nothing of the file (session-manager.ts, loadEntriesFromFile)".into(),
        });
        return;
    }
    a.v1 = header.get("version").and_then(Value::as_u64).unwrap_or(1) < 2;
    for (n, &p) in loaded.iter().enumerate().skip(1) {
        let ev = pieces[p].v.as_ref().unwrap_or(&Value::Null);
        let (key, parent) = if a.v1 {
            // migrateV1ToV2: each entry a child of the one before.
            (Some(format!("#{n}")), (n > 1).then(|| format!("#{}", n - 1)))
        } else {
            (s(ev, "id").map(str::to_owned), s(ev, "parentId").map(str::to_owned))
        };
        entries.push(Entry { piece: p, index: n, key, parent });
    }
    if entries.is_empty() {
        return;
    }
    // Broken chains: the first entry of the path names a parent that is
    // not there; it takes the entry written before it.
    let keys: HashSet<&str> = entries.iter().filter_map(|e| e.key.as_deref()).collect();
    loop {
        let path = walk(entries, &a.parents);
        let Some(&first) = path.first() else { break };
        let parent = a.parents.get(&first).map_or(entries[first].parent.as_deref(), |p| p.as_deref());
        let Some(gone) = parent.filter(|p| !keys.contains(p)) else { break };
        if a.parents.contains_key(&first) {
            break;
        }
        let Some(before) = first.checked_sub(1) else {
            // The first entry: nothing before it is lost.
            a.parents.insert(first, Some(gone.to_owned()));
            continue;
        };
        a.problems.push(Problem {
            line: pieces[entries[first].piece].line,
            kind: Kind::BrokenChain,
            severity: Severity::Error,
            message: format!(
                "its parentId {gone} names no entry: pi's walk from the last entry stops here and lines {}..{} are lost (session-manager.ts, buildSessionContext)",
                pieces[entries[0].piece].line,
                pieces[entries[before].piece].line
            ),
        });
        a.parents.insert(first, entries[before].key.clone());
    }
    a.path = walk(entries, &a.parents);
    let path = &a.path;
    // The model pi resumes with, and the last compaction.
    let mut model: Option<(String, String)> = None;
    let mut compaction = None;
    for (k, &i) in path.iter().enumerate() {
        let ev = v(&entries[i]);
        match s(ev, "type") {
            Some("model_change") => {
                model = Some((s(ev, "provider").unwrap_or("").into(), s(ev, "modelId").unwrap_or("").into()))
            }
            Some("message") if s(&ev["message"], "role") == Some("assistant") => {
                let m = &ev["message"];
                model = Some((s(m, "provider").unwrap_or("").into(), s(m, "model").unwrap_or("").into()));
            }
            Some("compaction") => compaction = Some(k),
            _ => {}
        }
    }
    let mut sent: Vec<Sent> = Vec::new();
    let add = |sent: &mut Vec<Sent>, i: usize| {
        let ev = v(&entries[i]);
        let role = match s(ev, "type") {
            Some("message") => match s(&ev["message"], "role") {
                Some("assistant") => Role::Assistant,
                Some("toolResult") => Role::ToolResult,
                _ => Role::User,
            },
            Some("custom_message") => Role::User,
            Some("branch_summary") if s(ev, "summary").is_some() => Role::User,
            _ => return,
        };
        sent.push(Sent { entry: Some(i), role });
    };
    let compaction_line = compaction.map(|k| pieces[entries[path[k]].piece].line);
    match compaction {
        Some(ck) => {
            sent.push(Sent { entry: None, role: Role::User });
            let c = v(&entries[path[ck]]);
            let first_kept: Option<String> = match (s(c, "firstKeptEntryId"), c.get("firstKeptEntryIndex")) {
                (Some(id), _) if !a.v1 => Some(id.to_owned()),
                (_, Some(n)) if a.v1 => n
                    .as_u64()
                    .and_then(|n| entries.iter().find(|e| e.index as u64 == n))
                    .and_then(|e| e.key.clone()),
                _ => None,
            };
            let from =
                path[..ck].iter().position(|&i| entries[i].key.is_some() && entries[i].key == first_kept);
            for &i in from.map_or(&[][..], |f| &path[f..ck]) {
                add(&mut sent, i);
            }
            for &i in &path[ck + 1..] {
                add(&mut sent, i);
            }
        }
        None => path.iter().for_each(|&i| add(&mut sent, i)),
    }
    // Where each call of the file is, and which are in messages pi leaves out.
    // (line times 2, plus 1 when left out: a map shape the crate has.)
    let mut call_line: BTreeMap<String, u64> = BTreeMap::new();
    for e in entries.iter() {
        let m = &v(e)["message"];
        let out = matches!(s(m, "stopReason"), Some("error" | "aborted"));
        for b in m["content"].as_array().into_iter().flatten() {
            if let (Some("toolCall"), Some(id)) = (s(b, "type"), s(b, "id")) {
                call_line.insert(id.to_owned(), pieces[e.piece].line * 2 + u64::from(out));
            }
        }
    }
    // transformMessages' second pass.
    let mut calls: Vec<(String, String, u64)> = Vec::new();
    let mut answered: HashSet<String> = HashSet::new();
    let mut signed: HashMap<String, String> = HashMap::new();
    let flush = |calls: &mut Vec<(String, String, u64)>,
                 answered: &mut HashSet<String>,
                 problems: &mut Vec<Problem>| {
        for (id, name, line) in calls.drain(..) {
            if !answered.contains(&id) {
                problems.push(Problem {
                    line,
                    kind: Kind::ToolUseUnanswered,
                    severity: Severity::Warning,
                    message: format!(
                        "the toolCall {id} ({name}) has no result: pi answers it with an error result, \"No result provided\", when the conversation goes on (transform-messages.ts)"
                    ),
                });
            }
        }
        answered.clear();
    };
    for (k, m) in sent.iter().enumerate() {
        let Some(i) = m.entry else {
            flush(&mut calls, &mut answered, &mut a.problems);
            continue;
        };
        let e = &entries[i];
        let line = pieces[e.piece].line;
        let msg = &v(e)["message"];
        match m.role {
            Role::User => flush(&mut calls, &mut answered, &mut a.problems),
            Role::Assistant => {
                flush(&mut calls, &mut answered, &mut a.problems);
                if matches!(s(msg, "stopReason"), Some("error" | "aborted")) {
                    continue;
                }
                let same = model.as_ref().is_some_and(|(p, id)| {
                    s(msg, "provider") == Some(p.as_str()) && s(msg, "model") == Some(id.as_str())
                });
                for (b, block) in msg["content"].as_array().into_iter().flatten().enumerate() {
                    match s(block, "type") {
                        Some("toolCall") => calls.push((
                            s(block, "id").unwrap_or("").to_owned(),
                            s(block, "name").unwrap_or("?").to_owned(),
                            line,
                        )),
                        Some("thinking")
                            if same && block.get("redacted").and_then(Value::as_bool) != Some(true) =>
                        {
                            let sig = s(block, "thinkingSignature").unwrap_or("").trim();
                            let text = s(block, "thinking").unwrap_or("");
                            if sig.is_empty() || text.trim().is_empty() {
                                continue;
                            }
                            a.thinking.push((k, i, b));
                            if let Some(before) = signed.insert(sig.to_owned(), text.to_owned()) {
                                if before != text {
                                    let why = "a thinking block's signature was seen before over another text: the text was changed, and pi sends it signed, as written, to the model that signed it (transform-messages.ts, anthropic.ts convertMessages), which refuses it".to_owned();
                                    a.problems.push(Problem {
                                        line,
                                        kind: Kind::ThinkingChanged,
                                        severity: Severity::Error,
                                        message: why.clone(),
                                    });
                                    a.bad_thinking.push(((k, i, b), why));
                                }
                            }
                        }
                        _ => {}
                    }
                }
            }
            Role::ToolResult => {
                let id = s(msg, "toolCallId").unwrap_or("").to_owned();
                if calls.iter().any(|c| c.0 == id) && answered.insert(id.clone()) {
                    continue;
                }
                let why = match (call_line.get(&id).map(|&c| (c / 2, c % 2 == 1)), compaction_line) {
                    _ if answered.contains(&id) => "a second result for its call".to_owned(),
                    (Some((at, true)), _) => format!(
                        "its call (line {at}) is in a message that stopped with an error or was aborted, which pi leaves out"
                    ),
                    (Some((at, _)), Some(c)) if at < c => format!(
                        "its call (line {at}) is before the compaction at line {c}, which keeps from the result on"
                    ),
                    (Some((at, _)), _) => format!("its call (line {at}) is not in the assistant message before it"),
                    (None, _) => "its call is nowhere in the file".to_owned(),
                };
                a.problems.push(Problem {
                    line,
                    kind: Kind::ToolResultOrphan,
                    severity: Severity::Error,
                    message: format!(
                        "the toolResult for {id} answers no call: {why}; pi sends it as it is and the API refuses it (transform-messages.ts; pi#4570: a compaction that cut a pair)"
                    ),
                });
                a.orphans.push((k, i));
            }
        }
    }
    flush(&mut calls, &mut answered, &mut a.problems);
}

fn load(bytes: &[u8]) -> (Vec<Piece<'_>>, Vec<Entry>, Analysis) {
    let mut a = Analysis::default();
    let pieces = pieces(bytes, &mut a.problems);
    let mut entries = Vec::new();
    analyse(&pieces, &mut entries, &mut a);
    super::sort_problems(&mut a.problems);
    (pieces, entries, a)
}

pub fn diagnose(bytes: &[u8]) -> Vec<Problem> {
    load(bytes).2.problems
}

pub fn repair(bytes: &[u8]) -> (Vec<u8>, Vec<Change>) {
    let (pieces, entries, a) = load(bytes);
    let chain_fixed = a.parents.iter().any(|(&i, p)| *p != entries[i].parent);
    if !chain_fixed && a.orphans.is_empty() && a.bad_thinking.is_empty() {
        return (bytes.to_vec(), Vec::new());
    }
    let line = |i: usize| pieces[entries[i].piece].line;
    let mut changes = Vec::new();
    // The prefix rule: from the first bad thinking or the first result left
    // out, every later thinking block pi sends signed goes.
    let first_orphan = a.orphans.first().map(|&(k, _)| (k, 0));
    let first_bad = a.bad_thinking.first().map(|((k, _, b), _)| (*k, *b));
    let cut = [first_orphan, first_bad].into_iter().flatten().min();
    let mut drop: HashMap<usize, Vec<usize>> = HashMap::new();
    for &(k, i, b) in &a.thinking {
        if cut.is_none_or(|c| (k, b) < c) {
            continue;
        }
        let why = match a.bad_thinking.iter().find(|(t, _)| *t == (k, i, b)) {
            Some((_, why)) => why.clone(),
            None => {
                let (at, _) = cut.unwrap_or_default();
                let from = a.orphans.iter().find(|o| o.0 == at).map(|o| o.1).or_else(|| {
                    a.bad_thinking.iter().find(|((bk, _, _), _)| *bk == at).map(|((_, bi, _), _)| *bi)
                });
                format!(
                    "after the change on line {}: its signature covers what came before it",
                    from.map_or(0, line)
                )
            }
        };
        changes.push(Change {
            line: line(i),
            kind: ChangeKind::ThinkingDropped,
            block: Some(b),
            message: format!("thinking block {b} dropped: {why}"),
        });
        drop.entry(i).or_default().push(b);
    }
    // Results left out: their entries go, their children take their parent.
    let parent_of = |i: usize| a.parents.get(&i).cloned().unwrap_or_else(|| entries[i].parent.clone());
    let gone: HashSet<usize> = a.orphans.iter().map(|&(_, i)| i).collect();
    let removed: HashMap<String, Option<String>> =
        gone.iter().filter_map(|&i| Some((entries[i].key.clone()?, parent_of(i)))).collect();
    for &i in &gone {
        let id =
            pieces[entries[i].piece].v.as_ref().and_then(|v| s(&v["message"], "toolCallId")).unwrap_or("");
        changes.push(Change {
            line: line(i),
            kind: ChangeKind::ResultDropped,
            block: None,
            message: format!("the toolResult for {id} dropped: it answers no call"),
        });
        changes.push(Change {
            line: line(i),
            kind: ChangeKind::LineRemoved,
            block: None,
            message: "the line is left out: all it held was dropped".into(),
        });
    }
    let mut edits: Vec<Vec<((usize, usize), String)>> = vec![Vec::new(); entries.len()];
    for (&i, bs) in &drop {
        let text = pieces[entries[i].piece].text;
        let Some(content) =
            raw::object(text).and_then(|m| Some(raw::object(m.get("message")?.get())?.get("content")?.get()))
        else {
            continue;
        };
        let Some(items) = raw::array(content) else { continue };
        let kept: Vec<&str> =
            items.iter().enumerate().filter(|(b, _)| !bs.contains(b)).map(|(_, r)| r.get()).collect();
        edits[i].push((raw::span(text, content), format!("[{}]", kept.join(","))));
    }
    // Parents: the chain repair's, then past the entries left out (v2, v3;
    // in a v1 file the parent is the line before, whatever it is).
    for (i, e) in entries.iter().enumerate() {
        if gone.contains(&i) || a.v1 {
            continue;
        }
        let mut parent = parent_of(i);
        let mut steps = 0;
        while let Some(next) = parent.as_ref().and_then(|p| removed.get(p)) {
            parent = next.clone();
            steps += 1;
            if steps > removed.len() {
                break;
            }
        }
        if parent == e.parent {
            continue;
        }
        let text = pieces[e.piece].text;
        let Some(raw_parent) = raw::object(text).and_then(|m| m.get("parentId").map(|r| r.get())) else {
            continue;
        };
        let target = match &parent {
            Some(k) => entries
                .iter()
                .find(|x| x.key.as_ref() == Some(k))
                .map_or_else(|| k.clone(), |x| format!("line {}", pieces[x.piece].line)),
            None => "none (it starts the session)".into(),
        };
        changes.push(Change {
            line: line(i),
            kind: ChangeKind::Reparented,
            block: None,
            message: format!("its parent is now {target} (was {})", e.parent.as_deref().unwrap_or("none")),
        });
        edits[i]
            .push((raw::span(text, raw_parent), parent.as_deref().map_or("null".to_owned(), str_literal)));
    }
    // A compaction's first kept entry, when it named an entry left out (v2,
    // v3: the next entry of the path) or counted past one (v1).
    let removed_index: Vec<usize> = gone.iter().map(|&i| entries[i].index).collect();
    for (i, e) in entries.iter().enumerate() {
        let Some(v) = pieces[e.piece].v.as_ref().filter(|v| s(v, "type") == Some("compaction")) else {
            continue;
        };
        if gone.contains(&i) {
            continue;
        }
        let text = pieces[e.piece].text;
        let members = raw::object(text).unwrap_or_default();
        let (key, now, was) = if a.v1 {
            let Some(n) = v.get("firstKeptEntryIndex").and_then(Value::as_u64) else { continue };
            let less = removed_index.iter().filter(|&&r| (r as u64) < n).count() as u64;
            ("firstKeptEntryIndex", (n - less).to_string(), n.to_string())
        } else {
            let Some(first) = s(v, "firstKeptEntryId") else { continue };
            let Some(at) = a.path.iter().position(|&p| entries[p].key.as_deref() == Some(first)) else {
                continue;
            };
            if !gone.contains(&a.path[at]) {
                continue;
            }
            let Some(next) =
                a.path[at..].iter().find(|&&p| !gone.contains(&p)).and_then(|&p| entries[p].key.clone())
            else {
                continue;
            };
            ("firstKeptEntryId", str_literal(&next), str_literal(first))
        };
        if now == was {
            continue;
        }
        let Some(r) = members.get(key) else { continue };
        changes.push(Change {
            line: line(i),
            kind: ChangeKind::Reparented,
            block: None,
            message: format!(
                "its {key} is now {now} (was {was}): the entry it kept from, or one before it, is left out"
            ),
        });
        edits[i].push((raw::span(text, r.get()), now));
    }
    let mut entry_of: Vec<Option<usize>> = vec![None; pieces.len()];
    for (i, e) in entries.iter().enumerate() {
        entry_of[e.piece] = Some(i);
    }
    let mut out = Vec::with_capacity(bytes.len());
    for (p, piece) in pieces.iter().enumerate() {
        let e = entry_of[p];
        if e.is_some_and(|e| gone.contains(&e)) {
            continue;
        }
        match e.map(|e| std::mem::take(&mut edits[e])).filter(|ed| !ed.is_empty()) {
            Some(ed) => out.extend_from_slice(raw::splice(piece.text, ed).as_bytes()),
            None => out.extend_from_slice(piece.bytes),
        }
        if piece.newline {
            out.push(b'\n');
        }
    }
    super::sort_changes(&mut changes);
    (out, changes)
}
