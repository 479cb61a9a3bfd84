//! pi coding agent sessions (`~/.pi/agent/sessions/--<cwd>--/<ts>_<uuid>.jsonl`).
//!
//! What this reader gets right, and why:
//! - linear files (v1: no `id`/`parentId`) and trees (v2, v3): in a tree the
//!   conversation is the path from the last entry back through `parentId`;
//! - `usage.cost` on a message is the cost pi recorded, and wins over the
//!   price table;
//! - `thinkingSignature` is the thinking block's signature (resume keeps a
//!   signed block of the same model);
//! - a compaction keeps its summary and the entries from `firstKeptEntryId`
//!   (or, in v1, `firstKeptEntryIndex`) on. pi's index counts the lines it
//!   loaded, the session header being entry 0 (pi's `SessionManager` loads
//!   the file as one array of entries, header first; pi-mono's
//!   `before-compaction.jsonl` keeps from a tool call only when read so);
//! - a line holding two JSON objects (a write that lost its newline) gives
//!   both, with a warning: pi itself would skip the line, and lose both.

use super::records::{self as rec, string};
use super::{Notice, Out};
use crate::prices::{Prices, Tokens};
use serde_json::Value;
use std::collections::HashSet;
use std::rc::Rc;

#[derive(Debug)]
struct Entry {
    line: u64,
    /// The entry's index as pi counts: the header is 0.
    index: u64,
    id: Option<String>,
    parent: Option<String>,
    value: Value,
}

#[derive(Debug)]
pub struct Reader {
    prices: Rc<Prices>,
    entries: Vec<Entry>,
    header: Option<Value>,
    header_line: u64,
    /// Lines pi would load so far (the header included).
    loaded: u64,
}

impl Reader {
    pub fn new(prices: Rc<Prices>) -> Reader {
        Reader { prices, entries: Vec::new(), header: None, header_line: 1, loaded: 0 }
    }

    #[inline(never)]
    pub fn line(&mut self, number: u64, text: &str, _out: &mut Out, notices: &mut Vec<Notice>) {
        let value: Value = match serde_json::from_str(text) {
            Ok(v @ Value::Object(_)) => v,
            Ok(_) => {
                return notices.push(Notice::BadLine(number, "not a pi session line: not an object".into()))
            }
            Err(e) => {
                // Objects written back to back: each is read, and said.
                let joined: Vec<Value> = serde_json::Deserializer::from_str(text)
                    .into_iter::<Value>()
                    .map_while(Result::ok)
                    .collect();
                let whole = joined.len() > 1
                    && joined.iter().all(Value::is_object)
                    && serde_json::Deserializer::from_str(text).into_iter::<Value>().all(|v| v.is_ok());
                if !whole {
                    return notices.push(Notice::unread(number, "a pi session line", text, &e));
                }
                notices.push(Notice::Joined(number, joined.len()));
                // pi skips such a line: later indices do not count it.
                for value in joined {
                    self.entry(number, value, false);
                }
                return;
            }
        };
        self.entry(number, value, true);
    }

    fn entry(&mut self, number: u64, value: Value, loaded: bool) {
        let index = self.loaded;
        if loaded {
            self.loaded += 1;
        }
        if value.get("type").and_then(Value::as_str) == Some("session") && self.header.is_none() {
            self.header = Some(value);
            self.header_line = number;
            return;
        }
        let s = |k: &str| value.get(k).and_then(Value::as_str).map(str::to_owned);
        self.entries.push(Entry { line: number, index, id: s("id"), parent: s("parentId"), value });
    }

    #[inline(never)]
    pub fn finish(&mut self, out: &mut Out, notices: &mut Vec<Notice>) {
        let hs =
            |k: &str| self.header.as_ref().and_then(|h| h.get(k)).and_then(Value::as_str).map(str::to_owned);
        let mut model = hs("modelId");
        out.push((
            self.header_line,
            rec::start(
                hs("id").as_deref(),
                model.as_deref(),
                hs("cwd").as_deref(),
                None,
                hs("timestamp").as_deref(),
            ),
        ));
        if let Some(level) = hs("thinkingLevel") {
            out.push((self.header_line, rec::thinking(&level, None)));
        }
        // A tree: the path from the last entry back through parentId.
        let tree = self.entries.iter().any(|e| e.id.is_some());
        let path: Option<HashSet<&str>> = tree.then(|| {
            let last = self.entries.iter().rev().find_map(|e| e.id.as_deref()).unwrap_or("");
            super::branch(
                self.entries.iter().filter_map(|e| Some((e.id.as_deref()?, e.parent.as_deref()))),
                last,
            )
        });
        // The conversation so far, by entry (for a compaction's kept entries).
        let mut conversation: Vec<(u64, Option<&str>, String)> = Vec::new();
        let mut step = 0;
        let mut off_path = 0;
        for e in &self.entries {
            if let (Some(path), Some(id)) = (&path, &e.id) {
                if !path.contains(id.as_str()) {
                    off_path += 1;
                    continue;
                }
            }
            let v = &e.value;
            let t = v.get("timestamp").and_then(Value::as_str);
            match v.get("type").and_then(Value::as_str).unwrap_or("") {
                "model_change" => {
                    if let Some(m) = v.get("modelId").and_then(Value::as_str) {
                        if model.as_deref() != Some(m) {
                            out.push((e.line, rec::model(m, t)));
                            model = Some(m.to_owned());
                        }
                    }
                }
                "thinking_level_change" => {
                    if let Some(level) = v.get("thinkingLevel").and_then(Value::as_str) {
                        out.push((e.line, rec::thinking(level, t)));
                    }
                }
                "compaction" => {
                    let summary = v.get("summary").and_then(Value::as_str).unwrap_or("");
                    let before = v.get("tokensBefore").and_then(Value::as_u64).unwrap_or(0);
                    let kept_from = match (
                        v.get("firstKeptEntryId").and_then(Value::as_str),
                        v.get("firstKeptEntryIndex").and_then(Value::as_u64),
                    ) {
                        (Some(id), _) => conversation.iter().position(|(_, cid, _)| *cid == Some(id)),
                        (None, Some(i)) => conversation.iter().position(|(ci, _, _)| *ci >= i),
                        _ => None,
                    };
                    let mut messages = vec![rec::text_message(
                        "user",
                        &format!("The conversation so far, summarised:\n\n{summary}"),
                    )];
                    if let Some(from) = kept_from {
                        messages.extend(conversation[from..].iter().map(|(_, _, m)| m.clone()));
                    }
                    out.push((e.line, rec::compaction(before, 0, &rec::blocks(&messages), t)));
                }
                "message" => {
                    let Some(m) = v.get("message") else { continue };
                    let Some((record, message)) = self.message(m, &mut model, &mut step, e.line, t, out)
                    else {
                        continue;
                    };
                    out.push((e.line, record));
                    conversation.push((e.index, e.id.as_deref(), message));
                }
                _ => {}
            }
        }
        if off_path > 0 {
            notices.push(Notice::OtherBranches(self.entries.last().map_or(1, |e| e.line), off_path));
        }
        self.entries.clear();
    }

    /// One message as a record, and the message it adds.
    fn message(
        &self,
        m: &Value,
        model: &mut Option<String>,
        step: &mut u64,
        line: u64,
        t: Option<&str>,
        out: &mut Out,
    ) -> Option<(String, String)> {
        let role = m.get("role").and_then(Value::as_str)?;
        let content = m.get("content");
        match role {
            "user" => {
                let message = rec::message("user", &blocks(content));
                let text = rec::text_of(content);
                let prompt = !text.trim_start().starts_with('/') || text.contains(' ');
                Some((rec::user(&message, prompt, t), message))
            }
            "toolResult" => {
                let mut result = format!(
                    r#"{{"type":"tool_result","tool_use_id":{},"content":{}"#,
                    string(m.get("toolCallId").and_then(Value::as_str).unwrap_or("")),
                    blocks(content)
                );
                if m.get("isError").and_then(Value::as_bool) == Some(true) {
                    result.push_str(r#","is_error":true"#);
                }
                result.push('}');
                let message = rec::message("user", &format!("[{result}]"));
                Some((rec::tool_results(&message, t), message))
            }
            "bashExecution" => {
                let command = m.get("command").and_then(Value::as_str).unwrap_or("");
                let output = m.get("output").and_then(Value::as_str).unwrap_or("");
                let message = rec::text_message("user", &format!("Ran `{command}`:\n{output}"));
                Some((rec::user(&message, false, t), message))
            }
            "assistant" => {
                if let Some(m2) = m.get("model").and_then(Value::as_str) {
                    if model.as_deref() != Some(m2) {
                        out.push((line, rec::model(m2, t)));
                        *model = Some(m2.to_owned());
                    }
                }
                let u = m.get("usage");
                let n = |k: &str| u.and_then(|u| u.get(k)).and_then(Value::as_u64).unwrap_or(0);
                let tokens = Tokens {
                    input: n("input"),
                    output: n("output"),
                    cache_read: n("cacheRead"),
                    cache_write_5m: n("cacheWrite"),
                    cache_write_1h: 0,
                };
                let recorded = u.and_then(|u| u.pointer("/cost/total")).and_then(Value::as_f64);
                let cost = if tokens == Tokens::default() {
                    Some(0.0)
                } else {
                    rec::priced(&self.prices, model.as_deref(), &tokens, recorded)
                };
                *step += 1;
                let content = blocks(content);
                Some((
                    rec::assistant(*step, &content, &tokens, cost, model.as_deref(), t),
                    rec::message("assistant", &content),
                ))
            }
            _ => None,
        }
    }
}

/// pi's content parts as Anthropic content blocks (a JSON array).
fn blocks(content: Option<&Value>) -> String {
    let parts: Vec<String> = match content {
        Some(Value::String(s)) => vec![format!(r#"{{"type":"text","text":{}}}"#, string(s))],
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|p| {
                let s = |k: &str| p.get(k).and_then(Value::as_str).unwrap_or("");
                Some(match p.get("type").and_then(Value::as_str)? {
                    "text" => format!(r#"{{"type":"text","text":{}}}"#, string(s("text"))),
                    "thinking" => format!(
                        r#"{{"type":"thinking","thinking":{},"signature":{}}}"#,
                        string(s("thinking")),
                        string(s("thinkingSignature"))
                    ),
                    "toolCall" => format!(
                        r#"{{"type":"tool_use","id":{},"name":{},"input":{}}}"#,
                        string(s("id")),
                        string(s("name")),
                        match p.get("arguments") {
                            Some(a @ Value::Object(_)) => a.to_string(),
                            _ => "{}".to_owned(),
                        }
                    ),
                    "image" => format!(
                        r#"{{"type":"image","source":{{"type":"base64","media_type":{},"data":{}}}}}"#,
                        string(if s("mimeType").is_empty() { "image/png" } else { s("mimeType") }),
                        string(s("data"))
                    ),
                    _ => return None,
                })
            })
            .collect(),
        _ => Vec::new(),
    };
    rec::blocks(&parts)
}
