//! Gemini CLI sessions (`~/.gemini/tmp/<project-hash>/chats/session-*.json`).
//!
//! Two shapes: one JSON document rewritten in place (`{sessionId, …,
//! messages: […]}`), and the newer JSONL (a header line, message lines, and
//! `{"$set": {…}}` lines that patch the header; a message line with an id
//! seen before replaces it). Both are read whole at the end. The document
//! may be on one line (`jq -c` writes it so): a first line that holds a
//! `messages` or `history` array is the document. Older saves (`/chat save`,
//! checkpoints) hold `history`: Gemini API contents (`role` user or model,
//! `parts` of `text`, `functionCall`, `functionResponse`), with no usage.
//!
//! A file that holds text but gives no message is said, and its cost is
//! unknown: never a silent empty session at $0.
//!
//! What this reader gets right: tool calls carry their results inside them
//! (here they become a `tool_use` and the `tool_result` that answers it);
//! `tokens.input` includes cached tokens (taken out here); thoughts are
//! billed as output.

use super::records::{self as rec, string};
use super::{Notice, Out};
use crate::prices::{Prices, Tokens};
use serde_json::Value;
use std::rc::Rc;

#[derive(Debug)]
pub struct Reader {
    prices: Rc<Prices>,
    lines: Vec<(u64, String)>,
}

impl Reader {
    pub fn new(prices: Rc<Prices>) -> Reader {
        Reader { prices, lines: Vec::new() }
    }

    pub fn line(&mut self, number: u64, text: &str) {
        self.lines.push((number, text.to_owned()));
    }

    #[inline(never)]
    pub fn finish(&mut self, out: &mut Out, notices: &mut Vec<Notice>) {
        let lines = std::mem::take(&mut self.lines);
        let Some((first_line, first)) = lines.first() else { return };
        // (line, message)
        let mut messages: Vec<(u64, Value)> = Vec::new();
        let mut header = Value::Null;
        // A one-line document holds its messages; a one-line JSONL file (a
        // lone header or message) does not.
        let one_document = first.trim() == "{"
            || (lines.len() == 1 && (first.contains("\"messages\"") || first.contains("\"history\"")));
        if one_document {
            let text: String = lines.iter().map(|(_, l)| l.as_str()).collect::<Vec<_>>().join("\n");
            match serde_json::from_str::<Value>(&text) {
                Ok(doc) if history_of(&doc).is_some() => {
                    return self.history(*first_line, &doc, out, notices);
                }
                Ok(doc) if !matches!(doc.get("messages"), Some(Value::Array(_))) => {
                    // Any JSON object opens like a Gemini CLI document (a
                    // settings file, a manifest): said, and the file's
                    // format is unknown (it was a Gemini session that cost
                    // $0, and the CLI read it so).
                    notices.push(Notice::NotThisFormat(
                        *first_line,
                        "not a Gemini CLI session document: it has no `messages` array".into(),
                    ));
                    return;
                }
                Ok(mut doc) => {
                    let list = doc.get_mut("messages").map(Value::take);
                    for (i, m) in list
                        .and_then(|l| if let Value::Array(a) = l { Some(a) } else { None })
                        .into_iter()
                        .flatten()
                        .enumerate()
                    {
                        messages.push((*first_line + i as u64, m));
                    }
                    header = doc;
                }
                Err(_) if lines.len() == 1 => {
                    // A lone `{` is the first byte of any JSON line: what a
                    // crash leaves of a journal's first record. No format.
                    notices.push(Notice::NotThisFormat(
                        *first_line,
                        "a lone `{`: a line cut short, of no known session format".into(),
                    ));
                    return;
                }
                Err(e) => {
                    notices.push(Notice::BadLine(
                        e.line() as u64 + first_line - 1,
                        format!("not a Gemini CLI session document: {e}"),
                    ));
                    // Nothing of it was read: what it cost is not known.
                    notices.push(Notice::UsageUnknown(
                        *first_line,
                        "the Gemini CLI session document could not be read: its usage and cost are unknown"
                            .into(),
                    ));
                    return;
                }
            }
        } else {
            for (n, l) in &lines {
                let v: Value = match serde_json::from_str(l) {
                    Ok(v @ Value::Object(_)) => v,
                    Ok(_) | Err(_) => {
                        notices.push(Notice::BadLine(*n, "not a Gemini CLI session line".into()));
                        continue;
                    }
                };
                if let Some(Value::Object(set)) = v.get("$set") {
                    if let Value::Object(h) = &mut header {
                        for (k, x) in set {
                            h.insert(k.clone(), x.clone());
                        }
                    }
                } else if v.get("type").is_some() {
                    // A message written again (while it streams) replaces its
                    // first copy; rewrites are of recent messages, so only
                    // the last 64 are looked through.
                    let id = v.get("id").and_then(Value::as_str);
                    let seen = id.and_then(|id| {
                        let from = messages.len().saturating_sub(64);
                        messages[from..]
                            .iter()
                            .rposition(|(_, m)| m.get("id").and_then(Value::as_str) == Some(id))
                            .map(|i| from + i)
                    });
                    match seen {
                        Some(i) => messages[i] = (*n, v),
                        None => messages.push((*n, v)),
                    }
                } else if header.is_null() {
                    header = v;
                }
            }
        }
        let holds_text = lines.iter().any(|(_, l)| l.contains("\"content\"") || l.contains("\"parts\""));
        if messages.is_empty() && holds_text {
            notices.push(Notice::UsageUnknown(
                *first_line,
                "no message was read from this Gemini CLI session (a shape this reader does not know): its usage and cost are unknown".into(),
            ));
        }
        let hs = |k: &str| header.get(k).and_then(Value::as_str).map(str::to_owned);
        let first_model =
            messages.iter().find_map(|(_, m)| m.get("model").and_then(Value::as_str).map(str::to_owned));
        out.push((
            *first_line,
            rec::start(
                hs("sessionId").as_deref(),
                first_model.as_deref(),
                None,
                None,
                hs("startTime").as_deref(),
            ),
        ));
        let mut model = first_model;
        let mut step = 0;
        for (line, m) in &messages {
            let t = m.get("timestamp").and_then(Value::as_str);
            match m.get("type").and_then(Value::as_str).unwrap_or("") {
                "user" => {
                    let text = rec::text_of(m.get("content"));
                    let prompt = !text.trim_start().starts_with('/');
                    out.push((*line, rec::user(&rec::text_message("user", &text), prompt, t)));
                }
                "gemini" => {
                    if let Some(m2) = m.get("model").and_then(Value::as_str) {
                        if model.as_deref() != Some(m2) {
                            out.push((*line, rec::model(m2, t)));
                            model = Some(m2.to_owned());
                        }
                    }
                    let mut blocks = Vec::new();
                    for th in m.get("thoughts").and_then(Value::as_array).into_iter().flatten() {
                        let s = |k: &str| th.get(k).and_then(Value::as_str).unwrap_or("");
                        let text = if s("subject").is_empty() {
                            s("description").to_owned()
                        } else {
                            format!("**{}**\n{}", s("subject"), s("description"))
                        };
                        blocks.push(format!(
                            r#"{{"type":"thinking","thinking":{},"signature":""}}"#,
                            string(&text)
                        ));
                    }
                    let text = rec::text_of(m.get("content"));
                    if !text.is_empty() {
                        blocks.push(format!(r#"{{"type":"text","text":{}}}"#, string(&text)));
                    }
                    let mut results = Vec::new();
                    for call in m.get("toolCalls").and_then(Value::as_array).into_iter().flatten() {
                        let id = call.get("id").and_then(Value::as_str).unwrap_or("");
                        let name = call.get("name").and_then(Value::as_str).unwrap_or("tool");
                        let input = match call.get("args") {
                            Some(a @ Value::Object(_)) => a.to_string(),
                            Some(Value::String(s)) => format!(r#"{{"args":{}}}"#, string(s)),
                            _ => "{}".to_owned(),
                        };
                        blocks.push(format!(
                            r#"{{"type":"tool_use","id":{},"name":{},"input":{input}}}"#,
                            string(id),
                            string(name)
                        ));
                        let output = tool_output(call.get("result"));
                        let error =
                            call.get("status").and_then(Value::as_str).is_some_and(|s| s != "success");
                        results.push(format!(
                            r#"{{"type":"tool_result","tool_use_id":{},"content":{}{}}}"#,
                            string(id),
                            string(&output),
                            if error { r#","is_error":true"# } else { "" }
                        ));
                    }
                    let n = |k: &str| m.pointer(&format!("/tokens/{k}")).and_then(Value::as_u64).unwrap_or(0);
                    let cached = n("cached");
                    let tokens = Tokens {
                        input: (n("input") + n("tool")).saturating_sub(cached),
                        output: n("output") + n("thoughts"),
                        cache_read: cached,
                        ..Tokens::default()
                    };
                    let cost = if tokens == Tokens::default() {
                        Some(0.0)
                    } else {
                        rec::priced(&self.prices, model.as_deref(), &tokens, None)
                    };
                    step += 1;
                    out.push((
                        *line,
                        rec::assistant(step, &rec::blocks(&blocks), &tokens, cost, model.as_deref(), t),
                    ));
                    if !results.is_empty() {
                        out.push((
                            *line,
                            rec::tool_results(&rec::message("user", &rec::blocks(&results)), t),
                        ));
                    }
                }
                _ => {} // info, error, warning: the CLI's own notes
            }
        }
    }

    /// The `history` shape: Gemini API contents, one record per content.
    /// Calls and responses pair by `id` when they have one, else in order
    /// by name (the API answers calls in the order they were made).
    fn history(&self, first_line: u64, doc: &Value, out: &mut Out, notices: &mut Vec<Notice>) {
        let hs = |k: &str| doc.get(k).and_then(Value::as_str);
        out.push((first_line, rec::start(hs("sessionId"), None, None, None, hs("startTime"))));
        let contents = history_of(doc).unwrap_or(&[]);
        let mut open: Vec<(String, String)> = Vec::new(); // (name, id) of calls not answered yet
        let (mut step, mut calls) = (0u64, 0usize);
        for c in contents {
            let parts = c.get("parts").and_then(Value::as_array).map(Vec::as_slice).unwrap_or(&[]);
            let text = |p: &Value| p.get("text").and_then(Value::as_str).map(str::to_owned);
            match c.get("role").and_then(Value::as_str) {
                Some("model") => {
                    let mut blocks = Vec::new();
                    for p in parts {
                        if let Some(f) = p.get("functionCall") {
                            let name = f.get("name").and_then(Value::as_str).unwrap_or("tool").to_owned();
                            calls += 1;
                            let id = f
                                .get("id")
                                .and_then(Value::as_str)
                                .map_or_else(|| format!("{name}-{calls}"), str::to_owned);
                            let input = match f.get("args") {
                                Some(a @ Value::Object(_)) => a.to_string(),
                                _ => "{}".to_owned(),
                            };
                            blocks.push(format!(
                                r#"{{"type":"tool_use","id":{},"name":{},"input":{input}}}"#,
                                string(&id),
                                string(&name)
                            ));
                            open.push((name, id));
                        } else if let Some(t) = text(p) {
                            let thought = p.get("thought").and_then(Value::as_bool) == Some(true);
                            blocks.push(if thought {
                                format!(r#"{{"type":"thinking","thinking":{},"signature":""}}"#, string(&t))
                            } else {
                                format!(r#"{{"type":"text","text":{}}}"#, string(&t))
                            });
                        }
                    }
                    step += 1;
                    // No usage is saved in this shape: the cost is unknown (None).
                    out.push((
                        first_line,
                        rec::assistant(step, &rec::blocks(&blocks), &Tokens::default(), None, None, None),
                    ));
                }
                _ => {
                    let mut results = Vec::new();
                    let mut said = Vec::new();
                    for p in parts {
                        if let Some(f) = p.get("functionResponse") {
                            let name = f.get("name").and_then(Value::as_str).unwrap_or("");
                            let at = match f.get("id").and_then(Value::as_str) {
                                Some(id) => open.iter().position(|(_, i)| i == id),
                                None => open.iter().position(|(n, _)| n == name),
                            };
                            let id = at.map(|i| open.remove(i).1).unwrap_or_else(|| name.to_owned());
                            let output = tool_output(Some(&Value::Array(vec![p.clone()])));
                            results.push(format!(
                                r#"{{"type":"tool_result","tool_use_id":{},"content":{}}}"#,
                                string(&id),
                                string(&output)
                            ));
                        } else if let Some(t) = text(p) {
                            said.push(t);
                        }
                    }
                    if !results.is_empty() {
                        out.push((
                            first_line,
                            rec::tool_results(&rec::message("user", &rec::blocks(&results)), None),
                        ));
                    }
                    if !said.is_empty() {
                        let text = said.join("\n");
                        let prompt = !text.trim_start().starts_with('/');
                        out.push((first_line, rec::user(&rec::text_message("user", &text), prompt, None)));
                    }
                }
            }
        }
        if step > 0 {
            notices.push(Notice::UsageUnknown(
                first_line,
                "this Gemini CLI save keeps no token counts: its usage and cost are unknown".into(),
            ));
        } else if contents.is_empty() {
            notices.push(Notice::UsageUnknown(
                first_line,
                "no message was read from this Gemini CLI session: its usage and cost are unknown".into(),
            ));
        }
    }
}

/// A tool call's result: its functionResponse outputs, as text.
fn tool_output(result: Option<&Value>) -> String {
    match result {
        Some(Value::Array(parts)) => parts
            .iter()
            .map(|p| match p.pointer("/functionResponse/response") {
                Some(r) => r
                    .get("output")
                    .and_then(Value::as_str)
                    .map(str::to_owned)
                    .unwrap_or_else(|| r.to_string()),
                None => p.to_string(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
        None => String::new(),
    }
}

/// The contents of the `history` shape: a document's `history`, or a
/// top-level array of contents (a checkpoint).
fn history_of(doc: &Value) -> Option<&[Value]> {
    let list = match doc {
        Value::Array(a) => a.as_slice(),
        _ if doc.get("messages").is_some() => return None,
        _ => doc.get("history")?.as_array()?.as_slice(),
    };
    list.iter().all(|c| c.get("parts").is_some() || c.get("role").is_some()).then_some(list)
}
