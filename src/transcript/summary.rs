//! A message summarised for the index: its role, block types, tools and a
//! preview, from its role and its blocks' heads read in one pass.
//!
//! Building the transcript of a 100 MB journal reads every message once
//! more after replay. Taking `content` as raw JSON and then parsing its
//! blocks scanned the content twice (the second time for the heads); here
//! the blocks are visited where they stand. A block that is not an object,
//! or repeats a field, is skipped, as parsing it alone would skip it.

#![forbid(unsafe_code)]

use super::{detail, Entry, ToolRef, INTERRUPTED, PREVIEW};
use crate::record::RecordKind;
use crate::resume::message::{string, BlockHead};
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

/// The visits of a JSON scalar, each giving `$value`: what a content or
/// block of the wrong kind is taken as.
macro_rules! scalars_give {
    ($value:expr) => {
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok($value)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok($value)
        }
    };
}

/// A message's `role` and `content`.
#[derive(serde::Deserialize)]
pub(crate) struct Head<'a> {
    #[serde(borrow)]
    pub role: Option<&'a RawValue>,
    #[serde(borrow)]
    pub content: Option<Content<'a>>,
}

/// A message's content: its text, its blocks' heads, or something else.
pub(crate) enum Content<'a> {
    Text(Cow<'a, str>),
    Blocks(Vec<BlockHead<'a>>),
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ContentVisitor(std::marker::PhantomData))
    }
}

struct ContentVisitor<'a>(std::marker::PhantomData<&'a ()>);

impl<'de: 'a, 'a> Visitor<'de> for ContentVisitor<'a> {
    type Value = Content<'a>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("message content")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Content::Text(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        // An escaped text: only its start is ever shown in an index.
        Ok(Content::Text(Cow::Owned(cut(v, PREVIEW).to_owned())))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut blocks = Vec::with_capacity(seq.size_hint().unwrap_or(2).min(16));
        while let Some(MaybeBlock(block)) = seq.next_element()? {
            blocks.extend(block);
        }
        Ok(Content::Blocks(blocks))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Content::Other)
    }
    scalars_give!(Content::Other);
}

/// One element of a content array: a block's head, or None.
struct MaybeBlock<'a>(Option<BlockHead<'a>>);

impl<'de: 'a, 'a> Deserialize<'de> for MaybeBlock<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(BlockVisitor(std::marker::PhantomData))
    }
}

struct BlockVisitor<'a>(std::marker::PhantomData<&'a ()>);

/// The fields of a block the transcript reads (the rest are skipped).
enum Field {
    Kind,
    Id,
    ToolUseId,
    Name,
    Text,
    Thinking,
    Signature,
    Data,
    Input,
    Source,
    Content,
    IsError,
    Other,
}

impl<'de> Deserialize<'de> for Field {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct FieldVisitor;
        impl Visitor<'_> for FieldVisitor {
            type Value = Field;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a field name")
            }
            fn visit_str<E>(self, v: &str) -> Result<Field, E> {
                Ok(match v {
                    "type" => Field::Kind,
                    "id" => Field::Id,
                    "tool_use_id" => Field::ToolUseId,
                    "name" => Field::Name,
                    "text" => Field::Text,
                    "thinking" => Field::Thinking,
                    "signature" => Field::Signature,
                    "data" => Field::Data,
                    "input" => Field::Input,
                    "source" => Field::Source,
                    "content" => Field::Content,
                    "is_error" => Field::IsError,
                    _ => Field::Other,
                })
            }
        }
        d.deserialize_identifier(FieldVisitor)
    }
}

impl<'de: 'a, 'a> Visitor<'de> for BlockVisitor<'a> {
    type Value = MaybeBlock<'a>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a content block")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut h = BlockHead::default();
        let mut repeated = false;
        while let Some(field) = map.next_key::<Field>()? {
            let slot = match field {
                Field::Kind => &mut h.kind,
                Field::Id => &mut h.id,
                Field::ToolUseId => &mut h.tool_use_id,
                Field::Name => &mut h.name,
                Field::Text => &mut h.text,
                Field::Thinking => &mut h.thinking,
                Field::Signature => &mut h.signature,
                Field::Data => &mut h.data,
                Field::Input => &mut h.input,
                Field::Source => &mut h.source,
                Field::Content => &mut h.content,
                Field::IsError => &mut h.is_error,
                Field::Other => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            let value: &'a RawValue = map.next_value()?;
            repeated |= slot.replace(value).is_some();
        }
        // A repeated field fails the block's own parse (serde refuses
        // duplicates): the block is skipped, as it was read alone.
        Ok(MaybeBlock((!repeated).then_some(h)))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(MaybeBlock(None))
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(MaybeBlock(None))
    }
    scalars_give!(MaybeBlock(None));
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

/// The first `PREVIEW` characters or so of a JSON string, decoding only
/// its start: a 50 KB tool result need not be decoded for a preview.
pub(crate) fn preview_of(raw: Option<&RawValue>) -> Option<String> {
    let text = raw?.get();
    // Bytes enough for PREVIEW characters even if every one is escaped.
    let room = PREVIEW * 12;
    if text.len() <= room {
        return string(raw).map(|s| cut(&s, PREVIEW).to_owned());
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
    string(raw).map(|s| cut(&s, PREVIEW).to_owned())
}

/// Fills an entry's preview, block list, tools and counts from its message.
pub(super) fn summarise(e: &mut Entry, kind: RecordKind, json: &str) {
    let Ok(head) = serde_json::from_str::<Head>(json) else {
        e.preview = "a message that could not be read".into();
        return;
    };
    e.role = match string(head.role).as_deref() {
        Some("assistant") => Some("assistant"),
        _ => Some("user"),
    };
    let blocks = match head.content {
        Some(Content::Text(text)) => {
            e.blocks.push("text");
            e.preview = cut(&text, PREVIEW).to_owned();
            return;
        }
        Some(Content::Blocks(blocks)) => blocks,
        Some(Content::Other) | None => return,
    };
    let mut first_text = true;
    for b in blocks {
        let Some(kind_name) = string(b.kind) else { continue };
        let name = block_name(&kind_name);
        if !e.blocks.contains(&name) {
            e.blocks.push(name);
        }
        match name {
            "text" => {
                // A prompt's later text blocks are notes or attachments: the
                // whole text says which (its end marks a note).
                let text = if kind == RecordKind::User && !first_text {
                    string(b.text).unwrap_or_default()
                } else {
                    preview_of(b.text).unwrap_or_default().into()
                };
                let role = if kind == RecordKind::User { text_role(&text, first_text) } else { "prompt" };
                first_text = false;
                match role {
                    "note" => e.notes += 1,
                    "attachment" => e.attachments += 1,
                    _ => add_piece(&mut e.preview, &[cut(&text, PREVIEW)]),
                }
            }
            "thinking" | "redacted_thinking" => {
                e.thinking += 1;
                add_piece(&mut e.preview, &[&preview_of(b.thinking).unwrap_or_default()]);
            }
            "tool_use" | "server_tool_use" => {
                let tool_name = string(b.name).map(|n| n.into_owned());
                let input = b.input.map_or("{}", RawValue::get);
                add_piece(
                    &mut e.preview,
                    &[tool_name.as_deref().unwrap_or("?"), "(", cut(input, PREVIEW), ")"],
                );
                e.tools.push(ToolRef {
                    id: string(b.id).unwrap_or_default().into_owned(),
                    name: tool_name,
                    is_use: true,
                    error: false,
                    interrupted: false,
                    pair: None,
                    child: None,
                });
            }
            "tool_result" => {
                let text = detail::result_text(b.content, PREVIEW + INTERRUPTED.len());
                add_piece(&mut e.preview, &[cut(&text, PREVIEW)]);
                e.tools.push(ToolRef {
                    id: string(b.tool_use_id).unwrap_or_default().into_owned(),
                    name: None,
                    is_use: false,
                    error: b.is_error.is_some_and(|r| r.get() == "true"),
                    interrupted: text == INTERRUPTED,
                    pair: None,
                    child: None,
                });
            }
            _ => add_piece(&mut e.preview, &["[", &kind_name, "]"]),
        }
    }
    let cut_at = cut(&e.preview, PREVIEW).len();
    e.preview.truncate(cut_at);
    // Kept for every entry of a long session: no spare capacity.
    e.preview.shrink_to_fit();
    e.blocks.shrink_to_fit();
    e.tools.shrink_to_fit();
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

    /// Heads read in one pass are those the blocks give when read alone.
    #[test]
    fn one_pass_reads_what_the_blocks_read_alone_give() {
        let contents = [
            r#"[{"type":"text","text":"a"},{"type":"tool_use","id":"x","name":"n","input":{"a":[1,{"b":2}]}}]"#,
            r#"[null,5,"s",[1,2],{"type":"tool_result","tool_use_id":7,"content":{"a":1}},true]"#,
            r#"[{"type":"text","text":"a","text":"b"},{"type":"thinking","thinking":"t","signature":"s","extra":[{}]}]"#,
            r#"[{"t\u0079pe":"text","text":"esc\"aped"}]"#,
            r#"[]"#,
        ];
        for c in contents {
            let json = format!(r#"{{"role":"user","content":{c}}}"#);
            let one: Head = serde_json::from_str(&json).unwrap();
            let Some(Content::Blocks(one)) = one.content else { panic!("blocks: {c}") };
            let alone: Vec<BlockHead> = serde_json::from_str::<Vec<&RawValue>>(c)
                .unwrap()
                .into_iter()
                .filter_map(|raw| serde_json::from_str::<BlockHead>(raw.get()).ok())
                .collect();
            fn show(b: &[BlockHead]) -> Vec<[Option<String>; 9]> {
                b.iter()
                    .map(|h| {
                        [
                            h.kind,
                            h.id,
                            h.tool_use_id,
                            h.name,
                            h.text,
                            h.thinking,
                            h.input,
                            h.content,
                            h.is_error,
                        ]
                        .map(|r| r.map(|r| r.get().to_owned()))
                    })
                    .collect()
            }
            assert_eq!(show(&one), show(&alone), "{c}");
        }
        for (c, text) in [(r#""plain""#, "plain"), (r#""with \"escape\"""#, r#"with "escape""#)] {
            let json = format!(r#"{{"content":{c}}}"#);
            let one: Head = serde_json::from_str(&json).unwrap();
            let Some(Content::Text(t)) = one.content else { panic!("text: {c}") };
            assert_eq!(t, text);
        }
        for c in ["{}", "1", "true"] {
            let json = format!(r#"{{"content":{c}}}"#);
            let one: Head = serde_json::from_str(&json).unwrap();
            assert!(matches!(one.content, Some(Content::Other)), "{c}");
        }
        let one: Head = serde_json::from_str(r#"{"content":null}"#).unwrap();
        assert!(one.content.is_none());
    }
}
