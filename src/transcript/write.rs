//! Entries as JSON text, written by hand: the index of a 1 GB journal is
//! 600,000 entries, and serde_json's writer looked up every byte of every
//! preview in its escape table. The text is what the derived `Serialize`
//! of `Entry` writes, field for field (the tests keep the derive as the
//! oracle); only strings are escaped the faster way (json_str), and
//! numbers go through the writers serde_json itself calls (itoa, zmij).
//! The patch of settled fields is written here too, in columns
//! (`Transcript::patch_json`); its oracle is the index the settled
//! transcript writes.
//!
//! The text is ASCII: a character past U+007F is a `\u` escape (the same
//! value to any JSON reader). The viewer's page decodes and parses the
//! index of a 1 GB journal (220 MB) while its worker reads; as ASCII it
//! decodes to one-byte strings, which took V8 35% less time to decode and
//! parse (82 ms against 124 for a 100 MB journal's, in Node) and half the
//! memory for their previews.

#![forbid(unsafe_code)]

use super::{Entry, EntryKind, Fate, Subagent, ThinkingFate, ToolRef};
use crate::json_str::push_ascii_literal;

/// `,"name":` (every field but an object's first), given whole: one copy
/// where three (comma and quote, name, quote and colon) were 10% of writing
/// a 1 GB journal's index. Not inlined: a copy at each of its 40 callers
/// cost 450 bytes gzipped for 30 ms more of 1 GB.
#[inline(never)]
fn key(out: &mut String, key: &str) {
    out.push_str(key);
}

/// `,"name":"value"` when there is a value (an optional string field;
/// `name` is the key whole, as `key` takes it).
#[inline]
fn opt_str(out: &mut String, name: &str, value: Option<&str>) {
    if let Some(value) = value {
        key(out, name);
        push_ascii_literal(out, value);
    }
}

/// A whole number, by itoa (serde_json's own integer writer, already in the
/// module): core::fmt's took a fifth of writing a 1 GB journal's index.
fn number(out: &mut String, n: u64) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// A float as serde_json prints it (`null` when not finite): by zmij, the
/// writer serde_json itself calls, without a string of its own.
fn float(out: &mut String, x: Option<f64>) {
    match x {
        Some(x) if x.is_finite() => out.push_str(zmij::Buffer::new().format_finite(x)),
        _ => out.push_str("null"),
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
    opt_str(out, ",\"name\":", t.name.as_deref());
    key(out, ",\"use\":");
    out.push_str(if t.is_use { "true" } else { "false" });
    if t.error {
        out.push_str(",\"error\":true");
    }
    if t.interrupted {
        out.push_str(",\"interrupted\":true");
    }
    if let Some(pair) = t.pair {
        key(out, ",\"pair\":");
        number(out, pair.into());
    }
    opt_str(out, ",\"child\":", t.child.as_deref());
    out.push('}');
}

fn subagent(out: &mut String, s: &Subagent) {
    out.push_str("{\"child\":");
    opt_literal(out, s.child.as_deref());
    key(out, ",\"tokens\":");
    number(out, s.tokens);
    key(out, ",\"costUsd\":");
    float(out, s.cost_usd);
    out.push('}');
}

/// Appends one entry's JSON object.
pub(super) fn entry(out: &mut String, e: &Entry) {
    out.push_str("{\"index\":");
    number(out, e.index.into());
    key(out, ",\"line\":");
    number(out, e.line);
    key(out, ",\"type\":");
    push_ascii_literal(out, e.record);
    key(out, ",\"kind\":");
    push_ascii_literal(out, e.kind.as_str());
    opt_str(out, ",\"role\":", e.role);
    opt_str(out, ",\"fate\":", e.fate.map(|f| f.as_str()));
    opt_str(out, ",\"t\":", e.t.as_deref());
    key(out, ",\"preview\":");
    push_ascii_literal(out, &e.preview);
    if !e.blocks.is_empty() {
        key(out, ",\"blocks\":");
        array(out, &e.blocks, |out, b| push_ascii_literal(out, b));
    }
    if !e.tools.is_empty() {
        key(out, ",\"tools\":");
        array(out, &e.tools, tool);
    }
    if e.thinking != 0 {
        key(out, ",\"thinking\":");
        number(out, e.thinking.into());
    }
    opt_str(out, ",\"thinkingFate\":", e.thinking_fate.map(|f| f.as_str()));
    opt_str(out, ",\"droppedWhy\":", e.dropped_why.as_deref());
    if let Some(r) = &e.response {
        if let Some(u) = &r.usage {
            // By itoa, as every other number here: with core::fmt's
            // `write!` of these four, the 100 MB bench journal's index took
            // 11.2 ms to write natively, against 9.7 (best of ten).
            key(out, ",\"usage\":{\"inputTokens\":");
            number(out, u.input_tokens);
            key(out, ",\"outputTokens\":");
            number(out, u.output_tokens);
            key(out, ",\"cacheReadTokens\":");
            number(out, u.cache_read_tokens);
            key(out, ",\"cacheWriteTokens\":");
            number(out, u.cache_write_tokens);
            out.push('}');
        }
        key(out, ",\"costUsd\":");
        float(out, r.cost_usd);
        key(out, ",\"contextTokens\":");
        number(out, r.context_tokens);
        if let Some(n) = r.context_window {
            key(out, ",\"contextWindow\":");
            number(out, n);
        }
    }
    for (name, n) in [(",\"notes\":", e.notes), (",\"attachments\":", e.attachments)] {
        if n != 0 {
            key(out, name);
            number(out, n.into());
        }
    }
    for (name, on) in [
        (",\"synthetic\":", e.synthetic),
        (",\"redacted\":", e.redacted),
        (",\"underCalls\":", e.under_calls),
    ] {
        if on {
            key(out, name);
            out.push_str("true");
        }
    }
    if !e.subagents.is_empty() {
        key(out, ",\"subagents\":");
        array(out, &e.subagents, subagent);
    }
    opt_str(out, ",\"context\":", e.context.as_deref());
    out.push('}');
}

/// `Transcript::notes_json`: the first `limit` warnings' indices, how many
/// warnings, how many subagent reports the other entries hold.
pub(super) fn notes<'a>(out: &mut String, entries: impl Iterator<Item = &'a Entry>, limit: usize) {
    out.push_str("{\"warnings\":[");
    let (mut count, mut runs) = (0u64, 0u64);
    for e in entries {
        if e.kind == EntryKind::Warning {
            if count < limit as u64 {
                if count > 0 {
                    out.push(',');
                }
                number(out, e.index.into());
            }
            count += 1;
        } else {
            runs += e.subagents.len() as u64;
        }
    }
    key(out, "],\"warningCount\":");
    number(out, count);
    key(out, ",\"subagentRuns\":");
    number(out, runs);
    out.push('}');
}

/// The one-character codes of a patch's `fate` and `thinkingFate` columns
/// (`-`: none), and the names they stand for, which the patch carries.
const FATE_CODES: [(u8, Fate); 3] = [(b'l', Fate::Live), (b'c', Fate::Compacted), (b'u', Fate::Undone)];
const THINKING_CODES: [(u8, ThinkingFate); 3] =
    [(b'k', ThinkingFate::Kept), (b'n', ThinkingFate::NotSent), (b'd', ThinkingFate::Dropped)];

/// Appends what settling decided of `entries` (from index `from` on) as
/// `Transcript::patch_json` documents it: a column of one character an
/// entry for each of `fate`, `thinkingFate` and `underCalls`, the entries
/// with a `droppedWhy`, and six values a tool for what settling sets on
/// tools. One pass, the columns gathered beside.
pub(super) fn patch<'a>(out: &mut String, entries: impl Iterator<Item = &'a Entry>, from: usize) {
    let (mut fates, mut thinking, mut under, mut whys, mut tools) =
        (String::new(), String::new(), String::new(), String::new(), String::new());
    let sep = |s: &mut String| {
        if !s.is_empty() {
            s.push(',');
        }
    };
    for (i, e) in entries.enumerate() {
        let i = (from + i) as u64;
        fates.push(char::from(code(&FATE_CODES, e.fate)));
        thinking.push(char::from(code(&THINKING_CODES, e.thinking_fate)));
        under.push(if e.under_calls { '1' } else { '0' });
        if let Some(why) = &e.dropped_why {
            sep(&mut whys);
            number(&mut whys, i);
            whys.push(',');
            push_ascii_literal(&mut whys, why);
        }
        // index, k, pair, name, 1 error + 2 interrupted, child
        for (k, t) in e.tools.iter().enumerate() {
            sep(&mut tools);
            number(&mut tools, i);
            tools.push(',');
            number(&mut tools, k as u64);
            tools.push(',');
            match t.pair {
                Some(p) => number(&mut tools, p.into()),
                None => tools.push_str("null"),
            }
            tools.push(',');
            opt_literal(&mut tools, t.name.as_deref());
            tools.push(',');
            number(&mut tools, (u8::from(t.error) | u8::from(t.interrupted) << 1).into());
            tools.push(',');
            opt_literal(&mut tools, t.child.as_deref());
        }
    }
    out.push_str("{\"from\":");
    number(out, from as u64);
    for (name, column) in
        [(",\"fate\":", fates), (",\"thinkingFate\":", thinking), (",\"underCalls\":", under)]
    {
        key(out, name);
        out.push('"');
        out.push_str(&column);
        out.push('"');
    }
    for (name, list) in [(",\"droppedWhy\":", whys), (",\"tools\":", tools)] {
        key(out, name);
        out.push('[');
        out.push_str(&list);
        out.push(']');
    }
    // What the codes stand for, so a reader holds no copy of the names.
    key(out, ",\"codes\":");
    out.push_str("{\"fate\":{");
    legend(out, FATE_CODES.iter().map(|(c, f)| (*c, f.as_str())));
    out.push_str("},\"thinkingFate\":{");
    legend(out, THINKING_CODES.iter().map(|(c, f)| (*c, f.as_str())));
    out.push_str("}}}");
}

/// The code of a value (`-` for none).
fn code<T: PartialEq + Copy>(codes: &[(u8, T)], x: Option<T>) -> u8 {
    codes.iter().find(|(_, v)| Some(*v) == x).map_or(b'-', |(c, _)| *c)
}

fn opt_literal(out: &mut String, s: Option<&str>) {
    match s {
        Some(s) => push_ascii_literal(out, s),
        None => out.push_str("null"),
    }
}

/// `"c":"name",…` of a code column.
fn legend(out: &mut String, codes: impl Iterator<Item = (u8, &'static str)>) {
    for (i, (c, name)) in codes.enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('"');
        out.push(char::from(c));
        out.push_str("\":");
        push_ascii_literal(out, name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json_str::tests::ascii_oracle as ascii;

    /// Every entry of the samples' and the peers' sessions
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
        }
    }
}
