//! The journal records (spec §2) that readers hand back, as JSON text.
//! Built here once, so every reader writes them the same way.

use crate::prices::{Prices, Tokens};

/// A JSON string literal.
#[inline(never)]
pub fn string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
}

/// `,"t":"…"` when the line had a time.
#[inline(never)]
fn time(t: Option<&str>) -> String {
    t.map(|t| format!(r#","t":{}"#, string(t))).unwrap_or_default()
}

#[inline(never)]
pub fn start(
    session_id: Option<&str>,
    model: Option<&str>,
    root: Option<&str>,
    version: Option<&str>,
    t: Option<&str>,
) -> String {
    let mut out = String::from(r#"{"type":"start""#);
    for (k, v) in [("sessionId", session_id), ("model", model), ("root", root), ("version", version)] {
        if let Some(v) = v {
            out.push_str(&format!(r#","{k}":{}"#, string(v)));
        }
    }
    out.push_str(&time(t));
    out.push('}');
    out
}

#[inline(never)]
pub fn model(model: &str, t: Option<&str>) -> String {
    format!(r#"{{"type":"model","model":{}{}}}"#, string(model), time(t))
}

/// A prompt (`user`), or a message that is not one (`continue`: context the
/// agent added, a command's wrapper, a meta line).
#[inline(never)]
pub fn user(message: &str, prompt: bool, t: Option<&str>) -> String {
    if prompt {
        format!(r#"{{"type":"user","message":{message}{}}}"#, time(t))
    } else {
        format!(r#"{{"type":"continue","message":{message},"maxTokens":0{}}}"#, time(t))
    }
}

#[inline(never)]
pub fn tool_results(message: &str, t: Option<&str>) -> String {
    format!(r#"{{"type":"tool_results","message":{message},"calls":[]{}}}"#, time(t))
}

#[inline(never)]
fn usage(u: &Tokens) -> String {
    format!(
        r#"{{"inputTokens":{},"outputTokens":{},"cacheReadTokens":{},"cacheWriteTokens":{}}}"#,
        u.input,
        u.output,
        u.cache_read,
        u.cache_write_5m + u.cache_write_1h
    )
}

/// `,"costUsd":x` when the cost is known.
#[inline(never)]
fn cost(c: Option<f64>) -> String {
    match c {
        // serde_json's float printing, not core's: the module has it already.
        Some(c) => match serde_json::Number::from_f64(c) {
            Some(n) => format!(r#","costUsd":{n}"#),
            None => String::new(),
        },
        _ => String::new(),
    }
}

/// The cost of a request: the one the agent recorded, else the table's.
#[inline(never)]
pub fn priced(prices: &Prices, model: Option<&str>, u: &Tokens, recorded: Option<f64>) -> Option<f64> {
    recorded.or_else(|| model.and_then(|m| prices.cost(m, u)))
}

/// The cost of an Anthropic response, by its message id too (a Vertex
/// response may cost the regional premium: `Prices::cost_of_response`).
#[inline(never)]
pub fn priced_response(prices: &Prices, model: Option<&str>, id: Option<&str>, u: &Tokens) -> Option<f64> {
    model.and_then(|m| prices.cost_of_response(m, id, u))
}

/// A model response: its content blocks (a JSON array), usage and cost.
#[inline(never)]
pub fn assistant(
    step: u64,
    content: &str,
    u: &Tokens,
    c: Option<f64>,
    model: Option<&str>,
    t: Option<&str>,
) -> String {
    let model = model.map(|m| format!(r#","model":{}"#, string(m))).unwrap_or_default();
    format!(
        r#"{{"type":"assistant","step":{step},"response":{{"content":{content},"usage":{}}}{}{model}{}}}"#,
        usage(u),
        cost(c),
        time(t)
    )
}

/// Usage outside the conversation (a subagent's requests inside the file, a
/// request whose response is not in the history).
#[inline(never)]
pub fn side_usage(purpose: &str, u: &Tokens, c: Option<f64>, model: Option<&str>, t: Option<&str>) -> String {
    let model = model.map(|m| format!(r#","model":{}"#, string(m))).unwrap_or_default();
    format!(
        r#"{{"type":"side_usage","purpose":{},"usage":{}{}{model}{}}}"#,
        string(purpose),
        usage(u),
        cost(c),
        time(t)
    )
}

#[inline(never)]
pub fn compaction(before: u64, after: u64, messages: &str, t: Option<&str>) -> String {
    format!(
        r#"{{"type":"compaction","stage":1,"beforeTokens":{before},"afterTokens":{after},"messages":{messages}{}}}"#,
        time(t)
    )
}

#[inline(never)]
pub fn title(title: &str) -> String {
    format!(r#"{{"type":"title","title":{}}}"#, string(title))
}

#[inline(never)]
pub fn thinking(choice: &str, t: Option<&str>) -> String {
    format!(r#"{{"type":"thinking","choice":{}{}}}"#, string(choice), time(t))
}

/// A message of one text block.
#[inline(never)]
pub fn text_message(role: &str, text: &str) -> String {
    format!(r#"{{"role":"{role}","content":[{{"type":"text","text":{}}}]}}"#, string(text))
}

/// A message of the given blocks (a JSON array).
#[inline(never)]
pub fn message(role: &str, content: &str) -> String {
    format!(r#"{{"role":"{role}","content":{content}}}"#)
}

/// A JSON array of blocks.
#[inline(never)]
pub fn blocks(items: &[String]) -> String {
    format!("[{}]", items.join(","))
}

/// The text of a message's content in the other agents' formats: a string,
/// or the `text` of each part, joined by newlines.
#[inline(never)]
pub fn text_of(content: Option<&serde_json::Value>) -> String {
    use serde_json::Value;
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => {
            parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
        }
        _ => String::new(),
    }
}
