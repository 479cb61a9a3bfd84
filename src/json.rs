//! The state as JSON text (camelCase, spec §3).
//!
//! Messages are already JSON text, so writing the state is concatenation:
//! the host parses the result once (in JS, one `JSON.parse`), which is far
//! cheaper than building objects across the wasm boundary one by one.

use crate::state::{Message, SessionState, Snapshot};
use std::fmt::Write;

// The string writers live in a leaf module (`json_str`), imported from
// there by every module, so there is one path to them.
use crate::json_str::push_str_literal;

fn push_f64(out: &mut String, x: f64) {
    match serde_json::Number::from_f64(x) {
        Some(n) => {
            let _ = write!(out, "{n}");
        }
        None => out.push_str("null"),
    }
}

/// `,"name":value` for an optional raw JSON value; nothing when absent.
fn push_opt_raw(out: &mut String, name: &str, raw: &Option<Box<str>>) {
    if let Some(raw) = raw {
        let _ = write!(out, r#","{name}":{raw}"#);
    }
}

pub fn push_messages(out: &mut String, messages: &[Message]) {
    out.push('[');
    for (i, m) in messages.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&m.json);
    }
    out.push(']');
}

fn push_origins(out: &mut String, messages: &[Message]) {
    out.push('[');
    for (i, m) in messages.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            r#"{{"redacted":{},"epoch":{},"line":{}"#,
            m.origin.redacted, m.origin.epoch, m.origin.line
        );
        // Only when set: a dropped message is rare, and the usual origin
        // keeps its shape.
        out.push_str(if m.origin.dropped { r#","dropped":true}"# } else { "}" });
    }
    out.push(']');
}

fn push_snapshot(out: &mut String, s: &Snapshot) {
    let _ = write!(out, r#"{{"messages":{}"#, s.messages);
    push_opt_raw(out, "tree", &s.tree);
    push_opt_raw(out, "prompt", &s.prompt);
    out.push('}');
}

impl SessionState {
    /// The whole state as one JSON object (camelCase, spec §3).
    pub fn to_json(&self) -> String {
        state_json(self)
    }

    /// `to_json` into `out` (which a caller may have reserved, fallibly, at `json_size_hint`).
    pub fn write_json(&self, out: &mut String) {
        write_state(out, self)
    }

    /// About the length of `to_json`'s text (its messages' JSON and a little more).
    pub fn json_size_hint(&self) -> usize {
        size_hint(self)
    }

    /// Just the messages, as a JSON array.
    pub fn messages_json(&self) -> String {
        let mut out = String::new();
        push_messages(&mut out, &self.messages);
        out
    }
}

/// `,"usage":{…}`: the four counts of a usage (camelCase, spec §2).
fn push_usage(out: &mut String, u: &crate::accounting::Usage) {
    let _ = write!(
        out,
        r#","usage":{{"inputTokens":{},"outputTokens":{},"cacheReadTokens":{},"cacheWriteTokens":{}}}"#,
        u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens
    );
}

/// `,"usage":…,"unreportedTokens":…,"childDebits":…,"costUsd":…,
/// "costIncomplete":…,"contextTokens":…,"steps":…,"prompts":…`: the figures
/// a host reads every turn, in O(1) of the conversation.
fn push_figures(out: &mut String, s: &SessionState) {
    let a = &s.accounts;
    push_usage(out, &a.usage);
    let _ = write!(out, r#","unreportedTokens":{},"childDebits":{{"#, a.unreported_tokens);
    for (i, (child, tokens)) in a.child_debits.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_str_literal(out, child);
        let _ = write!(out, ":{tokens}");
    }
    out.push_str(r#"},"costUsd":"#);
    match a.cost_usd {
        Some(c) => push_f64(out, c),
        None => out.push_str("null"),
    }
    let _ = write!(
        out,
        r#","costIncomplete":{},"contextTokens":{},"steps":{},"prompts":{}"#,
        a.cost_incomplete(),
        s.context_tokens,
        s.steps,
        s.prompts
    );
}

/// `,"usageByDay":[…]`: reported usage and cost by day and model.
fn push_ledger(out: &mut String, s: &SessionState) {
    out.push_str(r#","usageByDay":["#);
    for (i, ((day, model), e)) in s.ledger.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(r#"{"day":"#);
        push_str_literal(out, day);
        out.push_str(r#","model":"#);
        push_str_literal(out, model);
        push_usage(out, &e.usage);
        out.push_str(r#","costUsd":"#);
        match e.cost_usd {
            Some(c) => push_f64(out, c),
            None => out.push_str("null"),
        }
        let _ = write!(out, r#","requests":{}}}"#, e.requests);
    }
    out.push(']');
}

/// The figures alone, without the messages (`Journal.figures()`): what an
/// agent reads every turn costs nothing that grows with the conversation.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // the JS surface's
pub fn figures_json(s: &SessionState) -> String {
    let mut out = String::with_capacity(512);
    let _ = write!(
        out,
        r#"{{"messageCount":{},"epoch":{},"undoDepth":{},"redoDepth":{}"#,
        s.messages.len(),
        s.epoch,
        s.undo.len(),
        s.redo.len()
    );
    push_figures(&mut out, s);
    if let Some(model) = &s.model {
        out.push_str(r#","model":"#);
        push_str_literal(&mut out, model);
    }
    if let Some(title) = &s.title {
        out.push_str(r#","title":"#);
        push_str_literal(&mut out, title);
    }
    push_opt_raw(&mut out, "thinking", &s.thinking);
    push_opt_raw(&mut out, "ended", &s.ended);
    push_opt_raw(&mut out, "sessionId", &s.session_id);
    // The metadata start, resume and model records share: a resumed
    // session carries it on.
    push_opt_raw(&mut out, "root", &s.root);
    push_opt_raw(&mut out, "version", &s.version);
    push_opt_raw(&mut out, "executor", &s.executor);
    push_opt_raw(&mut out, "isolation", &s.isolation);
    push_opt_raw(&mut out, "limits", &s.limits);
    // What a sessions index shows as the first prompt (never a caveat or a reminder).
    if let Some(prompt) = &crate::transcript::index_prompt(s) {
        out.push_str(r#","firstPrompt":"#);
        push_str_literal(&mut out, prompt);
    }
    if let Some(f) = s.format {
        let _ = write!(out, r#","format":"{}""#, f.as_str());
    }
    let _ = write!(out, r#","tornTail":{}"#, s.torn_tail);
    push_ledger(&mut out, s);
    out.push('}');
    out
}

/// The messages from index `from` on, with their origins:
/// `{"messages":[…],"messageOrigins":[…]}` (a host keeping its own copy
/// asks only for what is new).
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))] // the JS surface's
pub fn messages_from_json(s: &SessionState, from: usize) -> String {
    let tail = s.messages.get(from..).unwrap_or(&[]);
    let size: usize = tail.iter().map(|m| m.json.len() + 1).sum();
    let mut out = String::with_capacity(size + 64 * tail.len() + 40);
    out.push_str(r#"{"messages":"#);
    push_messages(&mut out, tail);
    out.push_str(r#","messageOrigins":"#);
    push_origins(&mut out, tail);
    out.push('}');
    out
}

fn state_json(s: &SessionState) -> String {
    let mut out = String::with_capacity(s.json_size_hint());
    write_state(&mut out, s);
    out
}

/// About the length of the state's JSON: its messages' and a little more.
fn size_hint(s: &SessionState) -> usize {
    s.messages.iter().map(|m| m.json.len() + 1).sum::<usize>() + 1024
}

fn write_state(out: &mut String, s: &SessionState) {
    out.push_str(r#"{"messages":"#);
    push_messages(out, &s.messages);
    out.push_str(r#","messageOrigins":"#);
    push_origins(out, &s.messages);
    push_opt_raw(out, "sessionId", &s.session_id);
    push_opt_raw(out, "root", &s.root);
    push_opt_raw(out, "version", &s.version);
    if let Some(model) = &s.model {
        out.push_str(r#","model":"#);
        push_str_literal(out, model);
    }
    push_opt_raw(out, "executor", &s.executor);
    push_opt_raw(out, "isolation", &s.isolation);
    push_opt_raw(out, "limits", &s.limits);
    push_figures(out, s);
    if let Some(title) = &s.title {
        out.push_str(r#","title":"#);
        push_str_literal(out, title);
    }
    if let Some(prompt) = &s.first_prompt {
        out.push_str(r#","firstPrompt":"#);
        push_str_literal(out, prompt);
    }
    push_opt_raw(out, "thinking", &s.thinking);
    push_opt_raw(out, "ended", &s.ended);
    out.push_str(r#","undo":["#);
    for (i, snap) in s.undo.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_snapshot(out, snap);
    }
    out.push_str(r#"],"redo":["#);
    for (i, undone) in s.redo.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(r#"{"snapshot":"#);
        push_snapshot(out, &undone.snapshot);
        push_opt_raw(out, "after", &undone.after);
        out.push_str(r#","messages":"#);
        push_messages(out, &undone.messages);
        out.push_str(r#","messageOrigins":"#);
        push_origins(out, &undone.messages);
        out.push('}');
    }
    let _ = write!(out, r#"],"epoch":{},"warnings":["#, s.epoch);
    for (i, w) in s.warnings.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(out, r#"{{"line":{},"kind":"{}","message":"#, w.line, w.kind.as_str());
        push_str_literal(out, &w.message);
        out.push('}');
    }
    // Every warning by kind (the list keeps the first WARNINGS_KEPT of each).
    out.push_str(r#"],"warningCounts":{"#);
    let mut first = true;
    for kind in crate::state::WarningKind::ALL {
        let count = s.warning_counts[kind.index()];
        if count > 0 {
            let _ = write!(out, r#"{}"{}":{count}"#, if first { "" } else { "," }, kind.as_str());
            first = false;
        }
    }
    let _ = write!(out, r#"}},"tornTail":{},"format":"#, s.torn_tail);
    match s.format {
        Some(f) => {
            let _ = write!(out, r#""{}""#, f.as_str());
        }
        None => out.push_str("null"),
    }
    push_ledger(out, s);
    if let Some(history) = &s.history {
        push_history(out, s, history);
    }
    out.push('}');
}

/// `,"history":[…]`: each message with its fate (`live`, `compacted` away by
/// a later compaction, or `undone`), each landmark with its text.
fn push_history(out: &mut String, s: &SessionState, history: &[crate::state::HistoryItem]) {
    use crate::state::HistoryItem;
    let fates = crate::transcript::Fates::of(s);
    out.push_str(r#","history":["#);
    for (i, h) in history.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        match h {
            HistoryItem::Message { line, json, .. } => {
                let fate = fates.fate(*line).as_str();
                let _ = write!(out, r#"{{"line":{line},"fate":"{fate}","message":{json}}}"#);
            }
            HistoryItem::Landmark { line, kind, text } => {
                let _ = write!(out, r#"{{"line":{line},"landmark":"{}","text":"#, kind.as_str());
                push_str_literal(out, text);
                out.push('}');
            }
        }
    }
    out.push(']');
}
