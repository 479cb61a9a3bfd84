//! A message's role and its blocks' heads, read in one pass over its text.
//!
//! Building the transcript of a 100 MB journal reads every message once
//! more after replay. Taking `content` as raw JSON and then parsing its
//! blocks scanned the content twice (the second time for the heads); here
//! the blocks are visited where they stand. A block that is not an object,
//! or repeats a field, is skipped, as parsing it alone would skip it.

#![forbid(unsafe_code)]

use crate::resume::message::BlockHead;
use serde::de::{Deserialize, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::fmt;

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
        Ok(Content::Text(Cow::Owned(super::cut(v, super::PREVIEW).to_owned())))
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
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(Content::Other)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(Content::Other)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(Content::Other)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(Content::Other)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Content::Other)
    }
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
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(MaybeBlock(None))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(MaybeBlock(None))
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(MaybeBlock(None))
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(MaybeBlock(None))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(MaybeBlock(None))
    }
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
