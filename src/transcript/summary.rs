//! A message summarised for the index: its role, block types, tools and a
//! preview, from its role and its blocks' heads read in one pass.
//!
//! The message is the history's JSON text, which this crate wrote from
//! checked parts: it is walked with `json_skim` (quotes found by memchr),
//! not parsed again by serde, which checked every byte of every text it
//! skipped. The reading keeps serde's answers exactly (the test
//! `heads_are_what_serde_reads` holds it to them): a repeated field fails
//! the message or the block as serde refuses duplicates, a block that is
//! not an object is skipped, a `null` role or content is absent and a
//! block's `null` field is kept as written.

#![forbid(unsafe_code)]

use super::{detail, Entry, ToolRef, INTERRUPTED, PREVIEW};
use crate::json_skim::{elements_at, members, members_at, Members};
use crate::record::RecordKind;
use crate::resume::message::string_text;
use std::borrow::Cow;

/// A message's `role` (its JSON text) and `content`.
pub(crate) struct Head<'a> {
    pub role: Option<&'a str>,
    pub content: Option<Content<'a>>,
}

/// A message's content: its text, its blocks' heads, or something else.
pub(crate) enum Content<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<BlockSpans<'a>>),
    Other,
}

/// The fields of a content block the transcript reads, each the JSON text
/// of its value.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct BlockSpans<'a> {
    pub kind: Option<&'a str>,
    pub id: Option<&'a str>,
    pub tool_use_id: Option<&'a str>,
    pub name: Option<&'a str>,
    pub text: Option<&'a str>,
    pub thinking: Option<&'a str>,
    pub input: Option<&'a str>,
    pub content: Option<&'a str>,
    pub is_error: Option<&'a str>,
}

/// A key as serde compares it: unescaped (a key with an escape is rare).
fn key_of(raw: &str) -> Cow<'_, str> {
    if !raw.contains('\\') {
        return Cow::Borrowed(raw);
    }
    Cow::Owned(serde_json::from_str::<String>(&format!("\"{raw}\"")).unwrap_or_default())
}

/// A value's text, or None for `null` (serde reads an Option so).
fn present(value: &str) -> Option<&str> {
    (value != "null").then_some(value)
}

/// A message's head; None when it is not an object or repeats `role` or
/// `content` (serde would refuse it).
pub(crate) fn head_of(json: &str) -> Option<Head<'_>> {
    let (mut role, mut content, mut seen) = (None, None, (false, false));
    let mut fields = members(json)?;
    while let Some((key, at)) = fields.next_key() {
        match &*key_of(key) {
            "role" if seen.0 => return None,
            "content" if seen.1 => return None,
            "content" if json.as_bytes().get(at) == Some(&b'[') => {
                // The blocks are read on the way to the array's end: finding
                // the end first, then each block's, then each field's,
                // crossed a tool result's text three times.
                seen.1 = true;
                let (blocks, end) = blocks_at(json, at);
                fields.resume(end);
                content = Some(Seen::Blocks(blocks));
            }
            name => {
                let Some(value) = fields.value(at) else { break };
                match name {
                    "role" => (seen.0, role) = (true, present(value)),
                    "content" => (seen.1, content) = (true, present(value).map(Seen::Raw)),
                    _ => {}
                }
            }
        }
    }
    let content = match content {
        None => None,
        Some(Seen::Blocks(blocks)) => Some(Content::Blocks(blocks)),
        Some(Seen::Raw(c)) if c.starts_with('"') => {
            // serde's own reading of the string: one it refuses (a lone
            // surrogate escape) fails the message, as it did.
            let text = match crate::bytes::find_byte(c.as_bytes(), b'\\') {
                // Between the quotes (a text cut short, not valid JSON, gives what it has).
                None => Cow::Borrowed(c.get(1..c.len().saturating_sub(1)).unwrap_or_default()),
                Some(_) => Cow::Owned(match crate::json_str::decode_prefix(c, PREVIEW) {
                    Some(text) => text,
                    None => cut(&serde_json::from_str::<String>(c).ok()?, PREVIEW).to_owned(),
                }),
            };
            Some(Content::Text(text))
        }
        Some(Seen::Raw(_)) => Some(Content::Other),
    };
    Some(Head { role, content })
}

/// A message's `content` as the walk met it.
enum Seen<'a> {
    Raw(&'a str),
    Blocks(Vec<BlockSpans<'a>>),
}

/// The blocks of the array whose `[` is at `open` in `json` (its elements
/// that are objects), and where the array ends: each crossed once.
fn blocks_at(json: &str, open: usize) -> (Vec<BlockSpans<'_>>, usize) {
    let mut items = elements_at(json, open);
    let mut blocks = Vec::new();
    while let Some(at) = items.next_start() {
        if json.as_bytes().get(at) == Some(&b'{') {
            let mut fields = members_at(json, at);
            blocks.extend(block_fields(&mut fields));
            // The rest of a block refused at a repeated field.
            for _ in fields.by_ref() {}
            items.resume(fields.end());
        } else {
            items.resume(crate::json_skim::value_end(json.as_bytes(), at));
        }
    }
    (blocks, items.end())
}

/// A content block's fields; None when it is not an object or repeats a
/// field the transcript or resume reads (serde would refuse the block).
pub(crate) fn block_of(text: &str) -> Option<BlockSpans<'_>> {
    block_fields(&mut members(text)?)
}

/// `block_of` on a walk of the block's members, which it leaves where it
/// stopped: at the end, or just past a repeated field.
fn block_fields<'a>(fields: &mut Members<'a>) -> Option<BlockSpans<'a>> {
    let mut b = BlockSpans::default();
    let mut seen = 0u16;
    for (key, value) in fields {
        let (bit, slot) = match &*key_of(key) {
            "type" => (0, Some(&mut b.kind)),
            "id" => (1, Some(&mut b.id)),
            "tool_use_id" => (2, Some(&mut b.tool_use_id)),
            "name" => (3, Some(&mut b.name)),
            "text" => (4, Some(&mut b.text)),
            "thinking" => (5, Some(&mut b.thinking)),
            "input" => (6, Some(&mut b.input)),
            "content" => (7, Some(&mut b.content)),
            "is_error" => (8, Some(&mut b.is_error)),
            // Read by resume's block head, so a repeat fails the block too.
            "signature" => (9, None),
            "data" => (10, None),
            "source" => (11, None),
            _ => continue,
        };
        if seen & 1 << bit != 0 {
            return None;
        }
        seen |= 1 << bit;
        // Kept when `null` too: serde's reading of a block kept every value raw.
        if let Some(slot) = slot {
            *slot = Some(value);
        }
    }
    Some(b)
}

/// A prompt's notes are text blocks `<garuda_note>…</garuda_note>` (spec §2).
const NOTE_OPEN: &str = "<garuda_note>";
const NOTE_CLOSE: &str = "</garuda_note>";

/// Block type names the index lists (a known set: `'static`).
fn block_name(kind: &str) -> &'static str {
    match kind {
        "text" => "text",
        "thinking" => "thinking",
        "redacted_thinking" => "redacted_thinking",
        "tool_use" => "tool_use",
        "tool_result" => "tool_result",
        "image" => "image",
        "document" => "document",
        "server_tool_use" => "server_tool_use",
        _ => "other",
    }
}

/// Cuts a text to about `limit` characters, at a character boundary.
pub(crate) fn cut(text: &str, limit: usize) -> &str {
    // Counting characters one by one was 5% of building a 100 MB journal's
    // transcript: no more bytes than the limit is no more characters, and
    // an ASCII start ends at the limit's byte.
    if text.len() <= limit {
        return text;
    }
    if text.as_bytes()[..limit].is_ascii() {
        return &text[..limit];
    }
    match text.char_indices().nth(limit) {
        Some((at, _)) => &text[..at],
        None => text,
    }
}

/// `preview_push` into a string of its own (what the tests compare).
#[cfg(test)]
fn preview_of(raw: Option<&str>) -> Option<String> {
    let mut out = String::new();
    preview_push(&mut out, raw).then_some(out)
}

/// `preview_push` into `out`, cleared first (left empty without a text).
fn preview_into(out: &mut String, raw: Option<&str>) {
    out.clear();
    preview_push(out, raw);
}

/// Appends the first `PREVIEW` characters or so of a JSON string to `out`,
/// decoding only its start: a 50 KB tool result need not be decoded for a
/// preview. False (and `out` as it was) when there is no string to read.
pub(crate) fn preview_push(out: &mut String, raw: Option<&str>) -> bool {
    let Some(text) = raw else { return false };
    let len = out.len();
    if crate::json_str::decode_prefix_into(out, text, PREVIEW).is_some() {
        return true;
    }
    out.truncate(len);
    // What decode_prefix leaves to serde (a lone surrogate) gets serde's
    // answer, or the lenient reading's, of the whole string.
    match string_text(raw) {
        Some(whole) => {
            out.push_str(cut(&whole, PREVIEW));
            true
        }
        None => false,
    }
}

/// Buffers `summarise` reuses from one message to the next. Each entry
/// grew its preview, block list and tool list step by step and then shrank
/// them, and each decoded text was a string of its own: on the 100 MB bench
/// journal, 6.8 allocations and 1.9 reallocations an entry. Built here and
/// copied once at their final size: 5.8 and none, and the entries took
/// 18% less time natively (32.0 ms against 39.3, best of five).
#[derive(Debug, Clone, Default)]
pub(super) struct Scratch {
    preview: String,
    /// A block's decoded text (a preview's piece).
    text: String,
    tools: Vec<ToolRef>,
}

/// The block type names `block_name` gives, at most once each.
const BLOCK_NAMES: usize = 9;

/// Fills an entry's preview, block list, tools and counts from its message.
pub(super) fn summarise(e: &mut Entry, kind: RecordKind, json: &str, scratch: &mut Scratch) {
    let Some(head) = head_of(json) else {
        e.preview = "a message that could not be read".into();
        return;
    };
    e.role = match string_text(head.role).as_deref() {
        Some("assistant") => Some("assistant"),
        _ => Some("user"),
    };
    let blocks = match head.content {
        Some(Content::Text(text)) => {
            e.blocks = vec!["text"];
            e.preview = cut(&text, PREVIEW).to_owned();
            return;
        }
        Some(Content::Blocks(blocks)) => blocks,
        Some(Content::Other) | None => return,
    };
    let Scratch { preview, text: decoded, tools } = scratch;
    preview.clear();
    tools.clear();
    let mut names = [""; BLOCK_NAMES];
    let mut named = 0;
    let mut first_text = true;
    for b in blocks {
        let Some(kind_name) = string_text(b.kind) else { continue };
        let name = block_name(&kind_name);
        if !names[..named].contains(&name) {
            if let Some(slot) = names.get_mut(named) {
                *slot = name;
                named += 1;
            }
        }
        match name {
            "text" => {
                // A prompt's later text blocks are notes or attachments: the
                // whole text says which (its end marks a note).
                let whole;
                let text: &str = if kind == RecordKind::User && !first_text {
                    whole = string_text(b.text).unwrap_or_default();
                    &whole
                } else {
                    preview_into(decoded, b.text);
                    decoded
                };
                let role = if kind == RecordKind::User { text_role(text, first_text) } else { "prompt" };
                first_text = false;
                match role {
                    "note" => e.notes += 1,
                    "attachment" => e.attachments += 1,
                    _ => add_piece(preview, &[cut(text, PREVIEW)]),
                }
            }
            "thinking" | "redacted_thinking" => {
                e.thinking += 1;
                preview_into(decoded, b.thinking);
                add_piece(preview, &[decoded]);
            }
            "tool_use" | "server_tool_use" => {
                let tool_name = string_text(b.name).map(|n| n.into_owned());
                let input = b.input.unwrap_or("{}");
                add_piece(preview, &[tool_name.as_deref().unwrap_or("?"), "(", cut(input, PREVIEW), ")"]);
                tools.push(ToolRef {
                    id: string_text(b.id).unwrap_or_default().into_owned(),
                    name: tool_name,
                    is_use: true,
                    error: false,
                    interrupted: false,
                    pair: None,
                    child: None,
                });
            }
            "tool_result" => {
                decoded.clear();
                detail::push_result_text(decoded, b.content, PREVIEW + INTERRUPTED.len());
                add_piece(preview, &[cut(decoded, PREVIEW)]);
                tools.push(ToolRef {
                    id: string_text(b.tool_use_id).unwrap_or_default().into_owned(),
                    name: None,
                    is_use: false,
                    error: b.is_error == Some("true"),
                    interrupted: decoded == INTERRUPTED,
                    pair: None,
                    child: None,
                });
            }
            _ => add_piece(preview, &["[", &kind_name, "]"]),
        }
    }
    // Kept for every entry of a long session: each at its size, no spare capacity.
    e.preview = cut(preview, PREVIEW).to_owned();
    e.blocks = names[..named].to_vec();
    // A copy at the size, not mem::take: the scratch keeps its buffer.
    #[allow(clippy::drain_collect)]
    {
        e.tools = tools.drain(..).collect();
    }
}

/// Adds a block's piece (given in parts) to a preview not yet long enough.
fn add_piece(preview: &mut String, parts: &[&str]) {
    if preview.chars().count() < PREVIEW {
        if !preview.is_empty() {
            preview.push_str(" · ");
        }
        for part in parts {
            preview.push_str(part);
        }
    }
}

/// What a text block of a prompt is: the prompt (the first), a note, or an attachment.
pub(crate) fn text_role(text: &str, first: bool) -> &'static str {
    if first {
        "prompt"
    } else if text.starts_with(NOTE_OPEN) && text.ends_with(NOTE_CLOSE) {
        "note"
    } else {
        "attachment"
    }
}

/// The text inside a note's markers.
pub(crate) fn note_text(text: &str) -> &str {
    text.strip_prefix(NOTE_OPEN).and_then(|t| t.strip_suffix(NOTE_CLOSE)).unwrap_or(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::value::RawValue;

    /// The oracle: serde's reading of a message, as the transcript read it
    /// before `json_skim`. The head as a derive reads it (a repeated `role`
    /// or `content` fails, `null` is absent), a string content decoded by
    /// serde, and each block as serde's map gives it: a repeat of a field
    /// read by the transcript or resume fails the block, `null` kept raw.
    type Shown = (Option<String>, String, Vec<[Option<String>; 9]>);

    const BLOCK_FIELDS: [&str; 12] = [
        "type",
        "id",
        "tool_use_id",
        "name",
        "text",
        "thinking",
        "input",
        "content",
        "is_error",
        "signature",
        "data",
        "source",
    ];

    fn serde_block(text: &str) -> Option<[Option<String>; 9]> {
        let members = crate::json_skim::serde_members(text)?;
        let mut out: [Option<String>; 9] = Default::default();
        for (i, name) in BLOCK_FIELDS.iter().enumerate() {
            let mut values = members.iter().filter(|(k, _)| k == name);
            let first = values.next();
            if values.next().is_some() {
                return None;
            }
            if i < 9 {
                out[i] = first.map(|(_, v)| v.get().to_owned());
            }
        }
        Some(out)
    }

    fn by_serde(json: &str) -> Option<Shown> {
        #[derive(serde::Deserialize)]
        struct Head<'a> {
            #[serde(borrow)]
            role: Option<&'a RawValue>,
            #[serde(borrow)]
            content: Option<&'a RawValue>,
        }
        let head: Head = serde_json::from_str(json).ok()?;
        let role = head.role.map(|r| r.get().to_owned());
        Some(match head.content.map(RawValue::get) {
            None => (role, "none".into(), vec![]),
            Some(c) if c.starts_with('"') => {
                (role, format!("text {}", cut(&serde_json::from_str::<String>(c).ok()?, PREVIEW)), vec![])
            }
            Some(c) if c.starts_with('[') => {
                let items: Vec<&RawValue> = serde_json::from_str(c).ok()?;
                (role, "blocks".into(), items.iter().filter_map(|i| serde_block(i.get())).collect())
            }
            Some(_) => (role, "other".into(), vec![]),
        })
    }

    fn skimmed(json: &str) -> Option<Shown> {
        let head = head_of(json)?;
        let role = head.role.map(str::to_owned);
        let show = |b: &BlockSpans| {
            [b.kind, b.id, b.tool_use_id, b.name, b.text, b.thinking, b.input, b.content, b.is_error]
                .map(|v| v.map(str::to_owned))
        };
        Some(match head.content {
            None => (role, "none".into(), vec![]),
            Some(Content::Text(t)) => (role, format!("text {}", cut(&t, PREVIEW)), vec![]),
            Some(Content::Blocks(b)) => (role, "blocks".into(), b.iter().map(show).collect()),
            Some(Content::Other) => (role, "other".into(), vec![]),
        })
    }

    #[rustfmt::skip]
    const CONTENTS: &[&str] = &[
        r#"[{"type":"text","text":"a"},{"type":"tool_use","id":"x","name":"n","input":{"a":[1,{"b":2}]}}]"#,
        r#"[null,5,"s",[1,2],{"type":"tool_result","tool_use_id":7,"content":{"a":1}},true]"#,
        r#"[{"type":"text","text":"a","text":"b"},{"type":"thinking","thinking":"t","signature":"s","extra":[{}]}]"#,
        r#"[{"t\u0079pe":"text","text":"esc\"aped"}]"#, r#"[]"#, r#" [ {"type" : "text" , "text" : null } ] "#,
        r#"[{"type":"image","source":{"data":"x"},"source":{}},{"type":"tool_use","input":null,"x":1,"x":2}]"#,
        r#"[{"type":"tool_result","content":[{"type":"text","text":"}\"]\\"}],"is_error":true}]"#,
        r#""plain""#, r#""with \"escape\"""#, r#""lone \ud800 half""#, r#""\\""#, "{}", "1", "true", "null",
    ];

    #[test]
    fn heads_are_what_serde_reads() {
        for c in CONTENTS {
            for json in [
                format!(r#"{{"role":"user","content":{c}}}"#),
                format!(r#"{{ "content" : {c} , "role" : null }}"#),
                format!(r#"{{"content":{c},"extra":{{"content":1}},"content":{c}}}"#),
                format!(r#"{{"r\u006fle":"assistant","content":{c}}}"#),
            ] {
                assert_eq!(skimmed(&json), by_serde(&json), "{json}");
            }
        }
        for json in ["[1]", "\"s\"", "{}", r#"{"role":"a","role":"b"}"#] {
            assert_eq!(skimmed(json), by_serde(json), "{json}");
        }
    }

    /// Text that is not valid JSON (the skimmer trusts its input): no panic,
    /// whatever the bytes, for every cut of a message.
    #[test]
    fn any_text_is_summarised_without_a_panic() {
        let message = r#"{"role":"user","content":[{"type":"text","text":"a\"b"},{"type":"tool_result","content":[{"text":"x"}]}]}"#;
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for cut_at in 0..=message.len() {
            for text in [&message[..cut_at], &message[cut_at..]] {
                let mut e = Entry::blank(0);
                summarise(&mut e, RecordKind::User, text, &mut Scratch::default());
            }
        }
        for len in 0..120 {
            let text = crate::json_skim::soup(&mut seed, len);
            for text in [text.clone(), format!(r#"{{"content":{text}"#), format!(r#"{{"content":[{{{text}"#)]
            {
                let mut e = Entry::blank(0);
                summarise(&mut e, RecordKind::Assistant, &text, &mut Scratch::default());
            }
        }
    }

    /// `preview_of` as it was, by serde_json: the first `PREVIEW * 12`
    /// bytes decoded (decode_prefix's oracle).
    fn preview_by_serde(text: &str) -> Option<String> {
        let raw = Some(text);
        // Bytes enough for PREVIEW characters even if every one is escaped.
        let room = PREVIEW * 12;
        if text.len() <= room {
            return string_text(raw).map(|s| cut(&s, PREVIEW).to_owned());
        }
        let mut at = room;
        while !text.is_char_boundary(at) {
            at -= 1;
        }
        // Cut before any escape the cut split: back off until the prefix,
        // closed, is a whole string.
        for back in 0..8 {
            let Some(head) = text.get(..at.saturating_sub(back)) else { continue };
            if let Ok(s) = serde_json::from_str::<String>(&format!("{head}\"")) {
                return Some(cut(&s, PREVIEW).to_owned());
            }
        }
        string_text(raw).map(|s| cut(&s, PREVIEW).to_owned())
    }

    /// Every string in a JSON text, as written (escapes and all).
    fn literals<'a>(json: &'a str, out: &mut Vec<&'a str>) {
        match json.trim_start().as_bytes().first() {
            Some(b'"') => out.push(json.trim()),
            Some(b'{') => {
                for (_, v) in crate::json_skim::serde_members(json).unwrap_or_default() {
                    literals(v.get(), out);
                }
            }
            Some(b'[') => {
                for v in serde_json::from_str::<Vec<&RawValue>>(json).unwrap_or_default() {
                    literals(v.get(), out);
                }
            }
            _ => {}
        }
    }

    /// A preview is what serde's reading of 1,920 bytes gave (decode_prefix
    /// reads only the preview's bytes):
    /// on every string of every real message, and on escapes, surrogates
    /// and bad text at every place around the preview's end.
    #[test]
    fn previews_are_what_serde_reads() {
        let journals = super::super::tests::real_journals();
        let mut strings: Vec<String> = Vec::new();
        for (_, journal) in &journals {
            for item in journal.state().history.iter().flatten() {
                if let crate::state::HistoryItem::Message { json, .. } = item {
                    let mut found = Vec::new();
                    literals(json, &mut found);
                    strings.extend(found.into_iter().map(str::to_owned));
                }
            }
        }
        let real = strings.len();
        let pieces = [
            "\\n",
            "\\\"",
            "\\\\",
            "\\/",
            "\\b",
            "\\u00e9",
            "\\u00E9",
            "\\ud83d\\ude00",
            "\\ud83d",
            "\\ude00",
            "\\ud83dx",
            "\\ud83d\\u0041",
            "\\u+123",
            "\\u12",
            "\\x",
            "\u{1}",
            "é",
            "😀",
            "\"",
            "\\",
        ];
        for at in (PREVIEW - 3)..(PREVIEW + 3) {
            for p in pieces {
                for tail in ["", "tail", "\\ud800"] {
                    strings.push(format!("\"{}{p}{tail}\"", "x".repeat(at)));
                    strings.push(format!("\"{}{p}{tail}", "é".repeat(at)));
                }
            }
        }
        let (mut fast, mut checked) = (0, 0);
        for s in &strings {
            let prefix = crate::json_str::decode_prefix(s, PREVIEW);
            // Text that is not JSON (no closing quote, a raw control
            // character past the preview) never reaches it: only no panic.
            if !crate::json_check::is_json(s.as_bytes()) {
                continue;
            }
            assert_eq!(preview_of(Some(s)), preview_by_serde(s), "{s}");
            fast += usize::from(prefix.is_some());
            checked += 1;
        }
        assert!(real > 100 && fast > real / 2, "{fast} of {checked} read fast; {real} real strings");
    }

    /// Every message of the repository's samples and of the peers' real
    /// sessions (../shared/peers, every format), as the journal keeps it.
    #[test]
    fn heads_of_real_messages_are_what_serde_reads() {
        let journals = super::super::tests::real_journals();
        let mut messages = 0;
        for (file, journal) in &journals {
            for item in journal.state().history.iter().flatten() {
                if let crate::state::HistoryItem::Message { json, .. } = item {
                    assert_eq!(skimmed(json), by_serde(json), "{}: {json}", file.display());
                    messages += 1;
                }
            }
        }
        // The samples alone hold 86.
        assert!(messages > 50, "{messages} messages in {} files", journals.len());
    }
}
