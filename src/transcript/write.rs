//! Entries as JSON text, written by hand: the index of a 1 GB journal is
//! 600,000 entries, and serde_json's writer looked up every byte of every
//! preview in its escape table. The text is what the derived `Serialize`
//! of `Entry` and `Settled` writes, field for field (the tests keep the
//! derive as the oracle); only strings are escaped the faster way
//! (json_str), and floats still go through serde_json's printer.
//!
//! The text is ASCII: a character past U+007F is a `\u` escape (the same
//! value to any JSON reader). The viewer's page decodes and parses the
//! index of a 1 GB journal (220 MB) while its worker reads; as ASCII it
//! decodes to one-byte strings, which took V8 35% less time to decode and
//! parse (82 ms against 124 for a 100 MB journal's, in Node) and half the
//! memory for their previews.

#![forbid(unsafe_code)]

use super::{Entry, Settled, Subagent, ToolRef};
use crate::json_str::push_ascii_literal;
use std::fmt::Write;

/// `,"name":` (every field but an object's first).
fn key(out: &mut String, name: &str) {
    out.push_str(",\"");
    out.push_str(name);
    out.push_str("\":");
}

/// `,"name":"value"` when there is a value (an optional string field).
#[inline]
fn opt_str(out: &mut String, name: &str, value: Option<&str>) {
    if let Some(value) = value {
        key(out, name);
        push_ascii_literal(out, value);
    }
}

fn number(out: &mut String, n: impl std::fmt::Display) {
    let _ = write!(out, "{n}");
}

/// A float as serde_json prints it (`null` when not finite).
fn float(out: &mut String, x: Option<f64>) {
    match x {
        Some(x) => out.push_str(&serde_json::to_string(&x).unwrap_or_else(|_| "null".into())),
        None => out.push_str("null"),
    }
}

fn array<T>(out: &mut String, items: &[T], each: impl Fn(&mut String, &T)) {
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        each(out, item);
    }
    out.push(']');
}

fn tool(out: &mut String, t: &ToolRef) {
    out.push_str("{\"id\":");
    push_ascii_literal(out, &t.id);
    opt_str(out, "name", t.name.as_deref());
    key(out, "use");
    out.push_str(if t.is_use { "true" } else { "false" });
    if t.error {
        out.push_str(",\"error\":true");
    }
    if t.interrupted {
        out.push_str(",\"interrupted\":true");
    }
    if let Some(pair) = t.pair {
        key(out, "pair");
        number(out, pair);
    }
    opt_str(out, "child", t.child.as_deref());
    out.push('}');
}

fn subagent(out: &mut String, s: &Subagent) {
    out.push_str("{\"child\":");
    match &s.child {
        Some(child) => push_ascii_literal(out, child),
        None => out.push_str("null"),
    }
    key(out, "tokens");
    number(out, s.tokens);
    key(out, "costUsd");
    float(out, s.cost_usd);
    out.push('}');
}

/// Appends one entry's JSON object.
pub(super) fn entry(out: &mut String, e: &Entry) {
    out.push_str("{\"index\":");
    number(out, e.index);
    key(out, "line");
    number(out, e.line);
    key(out, "type");
    push_ascii_literal(out, e.record);
    key(out, "kind");
    push_ascii_literal(out, e.kind.as_str());
    opt_str(out, "role", e.role);
    opt_str(out, "fate", e.fate.map(|f| f.as_str()));
    opt_str(out, "t", e.t.as_deref());
    key(out, "preview");
    push_ascii_literal(out, &e.preview);
    if !e.blocks.is_empty() {
        key(out, "blocks");
        array(out, &e.blocks, |out, b| push_ascii_literal(out, b));
    }
    if !e.tools.is_empty() {
        key(out, "tools");
        array(out, &e.tools, tool);
    }
    if e.thinking != 0 {
        key(out, "thinking");
        number(out, e.thinking);
    }
    opt_str(out, "thinkingFate", e.thinking_fate.map(|f| f.as_str()));
    opt_str(out, "droppedWhy", e.dropped_why.as_deref());
    if let Some(r) = &e.response {
        if let Some(u) = &r.usage {
            let _ = write!(
                out,
                ",\"usage\":{{\"inputTokens\":{},\"outputTokens\":{},\"cacheReadTokens\":{},\"cacheWriteTokens\":{}}}",
                u.input_tokens, u.output_tokens, u.cache_read_tokens, u.cache_write_tokens
            );
        }
        key(out, "costUsd");
        float(out, r.cost_usd);
        key(out, "contextTokens");
        number(out, r.context_tokens);
        if let Some(n) = r.context_window {
            key(out, "contextWindow");
            number(out, n);
        }
    }
    for (name, n) in [("notes", e.notes), ("attachments", e.attachments)] {
        if n != 0 {
            key(out, name);
            number(out, n);
        }
    }
    for (name, on) in [("synthetic", e.synthetic), ("redacted", e.redacted), ("underCalls", e.under_calls)] {
        if on {
            key(out, name);
            out.push_str("true");
        }
    }
    if !e.subagents.is_empty() {
        key(out, "subagents");
        array(out, &e.subagents, subagent);
    }
    opt_str(out, "context", e.context.as_deref());
    out.push('}');
}

/// Appends what settling decided of one entry (`Settled`'s JSON object).
pub(super) fn settled(out: &mut String, s: &Settled) {
    // Fields separated by commas; the first has none.
    let start = out.len();
    out.push('{');
    let field = |out: &mut String, name: &str| {
        if out.len() > start + 1 {
            out.push(',');
        }
        out.push('"');
        out.push_str(name);
        out.push_str("\":");
    };
    if let Some(fate) = s.fate {
        field(out, "fate");
        push_ascii_literal(out, fate.as_str());
    }
    if !s.tools.is_empty() {
        field(out, "tools");
        array(out, s.tools, tool);
    }
    if let Some(fate) = s.thinking_fate {
        field(out, "thinkingFate");
        push_ascii_literal(out, fate.as_str());
    }
    if let Some(why) = s.dropped_why {
        field(out, "droppedWhy");
        push_ascii_literal(out, why);
    }
    if s.under_calls {
        field(out, "underCalls");
        out.push_str("true");
    }
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_str::tests::ascii_oracle as ascii;

    /// Every entry and every patch of the samples' and the peers' sessions
    /// (../shared/peers, every format), and made-up entries with every
    /// field, as the derived `Serialize` writes them (in ASCII: json_str's
    /// oracle spells serde's non-ASCII characters as escapes).
    #[test]
    fn entries_are_written_as_serde_writes_them() {
        let mut checked = 0;
        for (file, journal) in super::super::tests::real_journals() {
            let t = super::super::Transcript::new(journal.state());
            for e in t.entries.iter() {
                let mut out = String::new();
                entry(&mut out, e);
                assert_eq!(out, ascii(&serde_json::to_string(e).unwrap()), "{}", file.display());
                let s = Settled::of(e);
                let mut out = String::new();
                settled(&mut out, &s);
                assert_eq!(out, ascii(&serde_json::to_string(&s).unwrap()), "{}", file.display());
                checked += 1;
            }
        }
        assert!(checked > 50, "{checked} entries");
        // Every optional field present, odd text and floats.
        let tool = ToolRef {
            id: "t\"1".into(),
            name: Some("n\u{1}".into()),
            is_use: false,
            error: true,
            interrupted: true,
            pair: Some(7),
            child: Some("c".into()),
        };
        for cost in
            [None, Some(None), Some(Some(0.1 + 0.2)), Some(Some(1e-7)), Some(Some(3.0)), Some(Some(f64::NAN))]
        {
            let usage = crate::Usage {
                input_tokens: 1,
                output_tokens: 2,
                cache_read_tokens: 3,
                cache_write_tokens: 4,
            };
            let response = cost.map(|cost_usd| {
                Box::new(super::super::ResponseFigures {
                    usage: cost_usd.is_some().then_some(usage),
                    cost_usd,
                    context_tokens: 5,
                    context_window: cost_usd.is_some().then_some(200_000),
                })
            });
            let e = Entry {
                index: 1,
                line: u64::MAX,
                record: "assistant",
                kind: super::super::EntryKind::Message,
                role: Some("assistant"),
                fate: Some(super::super::Fate::Undone),
                t: Some("2026-12-04T00:00:00Z".into()),
                preview: "é\n\"✓\\\u{7f}".into(),
                blocks: vec!["text", "tool_use"],
                tools: vec![tool.clone(), ToolRef { name: None, pair: None, child: None, ..tool.clone() }],
                thinking: 2,
                thinking_fate: Some(super::super::ThinkingFate::Dropped),
                dropped_why: Some("model-switch".into()),
                response,
                notes: 1,
                attachments: 2,
                synthetic: true,
                redacted: true,
                under_calls: true,
                subagents: vec![
                    Subagent { child: None, tokens: 9, cost_usd: None },
                    Subagent { child: Some("x".into()), tokens: 0, cost_usd: cost.flatten() },
                ],
                context: Some("AGENTS.md".into()),
            };
            let mut out = String::new();
            entry(&mut out, &e);
            assert_eq!(out, ascii(&serde_json::to_string(&e).unwrap()));
            let s = Settled::of(&e);
            let mut out = String::new();
            settled(&mut out, &s);
            assert_eq!(out, ascii(&serde_json::to_string(&s).unwrap()));
        }
    }
}
