//! Codex CLI rollouts (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).
//!
//! What this reader gets right, and why:
//! - `response_item` lines are the history; `event_msg` repeats them for the
//!   UI (`user_message`, `agent_message`, `exec_command_end`...), so only
//!   `token_count` is read from those;
//! - `input_tokens` includes cached tokens (here they are taken out), and
//!   `output_tokens` includes reasoning;
//! - `token_count` repeats unchanged totals: `last_token_usage` counts only
//!   when `total_token_usage` advanced; a forked or child rollout starts by
//!   replaying its parent's counts, which are not counted again;
//! - encrypted reasoning is ciphertext: kept as a `redacted_thinking` block
//!   (the Redactor never touches it); its summary is readable;
//! - a rollout with no `token_count` at all has unknown usage: its cost is
//!   unknown, never zero;
//! - a request's usage is its own, at its own time: Codex writes a request's
//!   `token_count` right after its output items, so the response is closed
//!   there with that usage (not held for the next user message, which may be
//!   the next day); a `token_count` without `last_token_usage` (older CLIs)
//!   counts the growth of `total_token_usage`, as ccusage derives it;
//! - each record carries the time of the line it cites (a response's first
//!   item, a result's), not of the line that closed it.

use super::records::{self as rec, string};
use super::{Notice, Out};
use crate::prices::{Prices, Tokens};
use serde::Deserialize;
use serde_json::value::RawValue;
use serde_json::Value;
use std::rc::Rc;

#[derive(Deserialize)]
struct Line<'a> {
    timestamp: Option<String>,
    #[serde(rename = "type")]
    kind: Option<String>,
    #[serde(borrow)]
    payload: Option<&'a RawValue>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq)]
struct TokenUsage {
    input_tokens: u64,
    cached_input_tokens: u64,
    output_tokens: u64,
    total_tokens: u64,
}

impl TokenUsage {
    fn of(v: Option<&Value>) -> TokenUsage {
        let n = |k: &str| v.and_then(|v| v.get(k)).and_then(Value::as_u64).unwrap_or(0);
        TokenUsage {
            input_tokens: n("input_tokens"),
            cached_input_tokens: n("cached_input_tokens"),
            output_tokens: n("output_tokens"),
            total_tokens: n("total_tokens"),
        }
    }
    /// What these totals grew by since `before` (field by field).
    fn since(&self, before: &TokenUsage) -> TokenUsage {
        TokenUsage {
            input_tokens: self.input_tokens.saturating_sub(before.input_tokens),
            cached_input_tokens: self.cached_input_tokens.saturating_sub(before.cached_input_tokens),
            output_tokens: self.output_tokens.saturating_sub(before.output_tokens),
            total_tokens: self.total_tokens.saturating_sub(before.total_tokens),
        }
    }

    fn tokens(&self) -> Tokens {
        Tokens {
            input: self.input_tokens.saturating_sub(self.cached_input_tokens),
            output: self.output_tokens,
            cache_read: self.cached_input_tokens,
            ..Tokens::default()
        }
    }
}

#[derive(Debug)]
pub struct Reader {
    prices: Rc<Prices>,
    started: bool,
    model: Option<String>,
    /// A fork or child: its first totals are its parent's.
    forked: bool,
    last_total: Option<(u64, u64, u64)>,
    saw_token_count: bool,
    /// The response being assembled: its blocks.
    blocks: Vec<String>,
    blocks_line: u64,
    blocks_t: Option<String>,
    /// Tool results waiting to be one user message.
    results: Vec<String>,
    results_line: u64,
    results_t: Option<String>,
    /// The last totals in full, for a count that gives only totals.
    last_totals: TokenUsage,
    /// Usage of requests not yet given to a response.
    usage: Tokens,
    cost: Option<f64>,
    usage_line: u64,
    step: u64,
    t: Option<String>,
    lines: u64,
    responses: u64,
    /// The last prompt, and whether it came from a `user_message` event: the
    /// other copy of it (the event echoes the item, or, in some rollouts,
    /// the item follows the event) is skipped.
    last_prompt: Option<(String, bool)>,
}

impl Reader {
    pub fn new(prices: Rc<Prices>) -> Reader {
        Reader {
            prices,
            started: false,
            model: None,
            forked: false,
            last_total: None,
            saw_token_count: false,
            blocks: Vec::new(),
            blocks_line: 0,
            blocks_t: None,
            results: Vec::new(),
            results_line: 0,
            results_t: None,
            last_totals: TokenUsage::default(),
            usage: Tokens::default(),
            cost: Some(0.0),
            usage_line: 0,
            step: 0,
            t: None,
            lines: 0,
            responses: 0,
            last_prompt: None,
        }
    }

    fn start(&mut self, number: u64, out: &mut Out, meta: Option<&Value>) {
        if self.started {
            return;
        }
        self.started = true;
        let s = |k: &str| meta.and_then(|m| m.get(k)).and_then(Value::as_str).map(str::to_owned);
        out.push((
            number,
            rec::start(
                s("id").as_deref(),
                self.model.as_deref(),
                s("cwd").as_deref(),
                s("cli_version").as_deref(),
                self.t.as_deref(),
            ),
        ));
    }

    /// The response assembled so far, as an `assistant` record with the usage counted since the last one.
    fn flush_response(&mut self, out: &mut Out) {
        if self.blocks.is_empty() {
            return;
        }
        self.step += 1;
        self.responses += 1;
        let content = rec::blocks(&self.blocks);
        let usage = std::mem::take(&mut self.usage);
        let cost = self.cost.replace(0.0);
        out.push((
            self.blocks_line,
            rec::assistant(
                self.step,
                &content,
                &usage,
                cost,
                self.model.as_deref(),
                self.blocks_t.as_deref(),
            ),
        ));
        self.blocks.clear();
    }

    fn flush_results(&mut self, out: &mut Out) {
        if self.results.is_empty() {
            return;
        }
        let message = rec::message("user", &rec::blocks(&self.results));
        out.push((self.results_line, rec::tool_results(&message, self.results_t.as_deref())));
        self.results.clear();
    }

    fn block(&mut self, number: u64, out: &mut Out, block: String) {
        self.flush_results(out);
        if self.blocks.is_empty() {
            self.blocks_line = number;
            self.blocks_t = self.t.clone();
        }
        self.blocks.push(block);
    }

    fn result(&mut self, number: u64, out: &mut Out, block: String) {
        self.flush_response(out);
        if self.results.is_empty() {
            self.results_line = number;
            self.results_t = self.t.clone();
        }
        self.results.push(block);
    }

    #[inline(never)]
    pub fn line(&mut self, number: u64, text: &str, out: &mut Out, notices: &mut Vec<Notice>) {
        self.lines = number;
        let l: Line = match serde_json::from_str(text) {
            Ok(l) => l,
            Err(e) => {
                notices.push(Notice::unread(number, "a Codex rollout line", text, &e));
                return;
            }
        };
        if l.timestamp.is_some() {
            self.t = l.timestamp;
        }
        let payload: Value = match l.payload.map(|p| serde_json::from_str(p.get())) {
            Some(Ok(v)) => v,
            _ => return,
        };
        let str_of = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        match l.kind.as_deref() {
            Some("session_meta") => {
                self.forked |= payload.get("forked_from_id").is_some_and(|v| !v.is_null())
                    || payload.get("parent_thread_id").is_some_and(|v| !v.is_null())
                    || payload.pointer("/source/subagent").is_some();
                self.start(number, out, Some(&payload));
            }
            Some("turn_context") => {
                if let Some(m) = str_of(&payload, "model") {
                    if self.model.as_deref() != Some(&m) {
                        self.flush_response(out);
                        self.start(number, out, None);
                        out.push((number, rec::model(&m, self.t.as_deref())));
                        self.model = Some(m);
                    }
                }
            }
            Some("event_msg") if str_of(&payload, "type").as_deref() == Some("token_count") => {
                self.saw_token_count = true;
                let Some(info) = payload.get("info").filter(|i| !i.is_null()) else { return };
                let total = TokenUsage::of(info.get("total_token_usage"));
                let key = (total.total_tokens, total.input_tokens, total.output_tokens);
                // Totals only grow; one that did not is a repeat of the last.
                let advanced = self.last_total.is_none_or(|k| key.0 > k.0);
                let first = self.last_total.is_none();
                self.last_total = Some(key);
                let before = std::mem::replace(&mut self.last_totals, total);
                if !advanced || (first && self.forked) {
                    return;
                }
                let last = match info.get("last_token_usage").filter(|v| !v.is_null()) {
                    Some(v) => TokenUsage::of(Some(v)),
                    // Totals only: this request is what they grew by.
                    None => total.since(&before),
                };
                let t = last.tokens();
                let c = rec::priced(&self.prices, self.model.as_deref(), &t, None);
                self.cost = match (self.cost, c) {
                    (Some(a), Some(b)) => Some(a + b),
                    _ => None,
                };
                add(&mut self.usage, &t);
                self.usage_line = number;
                // The request's output came before its count: close it here.
                if self.blocks.is_empty() {
                    self.flush_usage(out);
                } else {
                    self.flush_response(out);
                }
            }
            // Some rollouts (Codex Desktop) record the prompt only as this event.
            Some("event_msg") if str_of(&payload, "type").as_deref() == Some("user_message") => {
                let text = str_of(&payload, "message").unwrap_or_default();
                if self.last_prompt.take().is_some_and(|(p, event)| !event && p.trim() == text.trim())
                    || text.trim().is_empty()
                {
                    return;
                }
                self.last_prompt = Some((text.clone(), true));
                self.start(number, out, None);
                self.flush_response(out);
                self.flush_results(out);
                out.push((number, rec::user(&rec::text_message("user", &text), true, self.t.as_deref())));
            }
            Some("compacted") => {
                self.start(number, out, None);
                self.flush_response(out);
                self.flush_results(out);
                let mut messages = Vec::new();
                for item in payload.get("replacement_history").and_then(Value::as_array).into_iter().flatten()
                {
                    if let Some(m) = history_message(item) {
                        messages.push(m);
                    }
                }
                if messages.is_empty() {
                    if let Some(summary) = str_of(&payload, "message") {
                        messages.push(rec::text_message("user", &summary));
                    }
                }
                out.push((number, rec::compaction(0, 0, &rec::blocks(&messages), self.t.as_deref())));
            }
            Some("response_item") => {
                self.start(number, out, None);
                self.item(number, &payload, out);
            }
            _ => {}
        }
    }

    fn item(&mut self, number: u64, p: &Value, out: &mut Out) {
        let s = |k: &str| p.get(k).and_then(Value::as_str).unwrap_or("").to_owned();
        match p.get("type").and_then(Value::as_str).unwrap_or("") {
            "message" => {
                let text = rec::text_of(p.get("content"));
                match p.get("role").and_then(Value::as_str) {
                    Some("assistant") if !text.is_empty() => {
                        self.block(number, out, format!(r#"{{"type":"text","text":{}}}"#, string(&text)));
                    }
                    Some("assistant") => {}
                    Some("user") => {
                        let prompt = !is_context(&text);
                        if prompt {
                            let echo = self
                                .last_prompt
                                .take()
                                .is_some_and(|(p, event)| event && p.trim() == text.trim());
                            if echo {
                                return;
                            }
                            self.last_prompt = Some((text.clone(), false));
                        }
                        self.flush_response(out);
                        self.flush_results(out);
                        out.push((
                            number,
                            rec::user(&rec::text_message("user", &text), prompt, self.t.as_deref()),
                        ));
                    }
                    _ => {} // developer and system instructions: not the conversation
                }
            }
            "reasoning" => {
                let summary: Vec<String> = p
                    .get("summary")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|x| x.get("text").and_then(Value::as_str).map(str::to_owned))
                    .collect();
                if !summary.is_empty() {
                    self.block(
                        number,
                        out,
                        format!(
                            r#"{{"type":"thinking","thinking":{},"signature":""}}"#,
                            string(&summary.join("\n\n"))
                        ),
                    );
                }
                if let Some(enc) = p.get("encrypted_content").and_then(Value::as_str) {
                    self.block(
                        number,
                        out,
                        format!(r#"{{"type":"redacted_thinking","data":{}}}"#, string(enc)),
                    );
                }
            }
            "function_call" | "custom_tool_call" | "local_shell_call" => {
                let input = match p.get("arguments") {
                    // JSON text of an object goes in as it is (checked, not re-written).
                    Some(Value::String(a))
                        if a.trim_start().starts_with('{')
                            && serde_json::from_str::<serde::de::IgnoredAny>(a).is_ok() =>
                    {
                        a.trim().to_owned()
                    }
                    Some(Value::String(a)) => format!(r#"{{"arguments":{}}}"#, string(a)),
                    Some(v @ Value::Object(_)) => v.to_string(),
                    _ => match p.get("input").or(p.get("action")) {
                        Some(Value::String(i)) => format!(r#"{{"input":{}}}"#, string(i)),
                        Some(v) => format!(r#"{{"input":{v}}}"#),
                        None => "{}".to_owned(),
                    },
                };
                let name = if s("name").is_empty() { "shell".to_owned() } else { s("name") };
                let id = if s("call_id").is_empty() { s("id") } else { s("call_id") };
                self.block(
                    number,
                    out,
                    format!(
                        r#"{{"type":"tool_use","id":{},"name":{},"input":{input}}}"#,
                        string(&id),
                        string(&name)
                    ),
                );
            }
            "function_call_output" | "custom_tool_call_output" | "local_shell_call_output" => {
                let output = match p.get("output") {
                    Some(Value::String(o)) => o.clone(),
                    Some(v) => v
                        .get("content")
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                        .unwrap_or_else(|| v.to_string()),
                    None => String::new(),
                };
                self.result(
                    number,
                    out,
                    format!(
                        r#"{{"type":"tool_result","tool_use_id":{},"content":{}}}"#,
                        string(&s("call_id")),
                        string(&output)
                    ),
                );
            }
            "web_search_call" => {
                let query = p.pointer("/action/query").and_then(Value::as_str).unwrap_or("");
                self.block(
                    number,
                    out,
                    format!(r#"{{"type":"text","text":{}}}"#, string(&format!("Web search: {query}"))),
                );
            }
            _ => {}
        }
    }

    /// Usage counted with no response open (its output went to an earlier
    /// one, or it had none): a request of its own, at the count's time.
    fn flush_usage(&mut self, out: &mut Out) {
        if self.usage == Tokens::default() {
            return;
        }
        let usage = std::mem::take(&mut self.usage);
        let cost = self.cost.replace(0.0);
        out.push((
            self.usage_line,
            rec::side_usage(
                crate::record::REQUESTS_USAGE,
                &usage,
                cost,
                self.model.as_deref(),
                self.t.as_deref(),
            ),
        ));
    }

    #[inline(never)]
    pub fn finish(&mut self, out: &mut Out, notices: &mut Vec<Notice>) {
        if !self.started {
            return;
        }
        self.flush_response(out);
        self.flush_results(out);
        self.flush_usage(out);
        if !self.saw_token_count && self.responses > 0 {
            notices.push(Notice::UsageUnknown(
                self.lines.max(1),
                "the rollout has no token_count: its usage and cost are unknown".into(),
            ));
        }
    }
}

fn add(a: &mut Tokens, b: &Tokens) {
    a.input += b.input;
    a.output += b.output;
    a.cache_read += b.cache_read;
    a.cache_write_5m += b.cache_write_5m;
    a.cache_write_1h += b.cache_write_1h;
}

/// Context Codex adds as user messages (instructions, environment): not prompts.
fn is_context(text: &str) -> bool {
    let t = text.trim_start();
    [
        "<environment_context>",
        "<user_instructions>",
        "# AGENTS.md",
        "<permissions",
        "<turn_aborted>",
        "<user_shell_command>",
    ]
    .iter()
    .any(|p| t.starts_with(p))
}

/// A message of a compaction's replacement history.
fn history_message(item: &Value) -> Option<String> {
    if item.get("type").and_then(Value::as_str) != Some("message") {
        return None;
    }
    let role = match item.get("role").and_then(Value::as_str)? {
        "assistant" => "assistant",
        "user" => "user",
        _ => return None,
    };
    Some(rec::text_message(role, &rec::text_of(item.get("content"))))
}
