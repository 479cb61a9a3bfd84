//! Messages as resume works on them: a role and a list of blocks, each block
//! kept as its exact JSON text plus the few facts the rules read (its type,
//! ids, whether its text is empty, whether it is signed).

use crate::json_str::str_literal;
use crate::record::{raw_kind, MessageParts};
use crate::state::Origin;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Text,
    Thinking,
    RedactedThinking,
    ToolUse,
    ToolResult,
    Other,
}

#[derive(Debug, Clone)]
pub struct Block {
    /// The block's JSON text, unchanged unless a repair changed it.
    pub json: String,
    pub kind: Kind,
    /// `id` of a tool_use, `tool_use_id` of a tool_result.
    pub id: Option<String>,
    /// The tool's name (tool_use).
    pub name: Option<String>,
    /// A text block whose text is empty or only white space.
    pub blank: bool,
    /// A thinking block with a non-empty signature.
    pub signed: bool,
    /// Thinking text that holds `[REDACTED]` (a journal from before the marker).
    pub legacy_redacted: bool,
    /// Why the API would refuse the block's shape (not an object, no string
    /// `type`, a known type missing a field it needs), or None.
    pub fault: Option<&'static str>,
    /// Position in its message as written (None for blocks resume made).
    pub at: Option<usize>,
}

/// The fields of a block that its shape is judged by, each kept raw so a
/// value of the wrong JSON type is seen, not a parse failure.
#[derive(Deserialize, Default)]
pub(crate) struct BlockHead<'a> {
    #[serde(rename = "type", borrow)]
    pub(crate) kind: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(crate) id: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(crate) tool_use_id: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(crate) name: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(crate) text: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(crate) thinking: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(crate) signature: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(crate) data: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(crate) input: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(crate) source: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(crate) content: Option<&'a RawValue>,
    #[serde(borrow)]
    pub(crate) is_error: Option<&'a RawValue>,
}

/// A raw value as a string, when it is one.
pub(crate) fn string(raw: Option<&RawValue>) -> Option<Cow<'_, str>> {
    string_text(raw.map(RawValue::get))
}

/// `string` of a value's JSON text.
pub(crate) fn string_text(text: Option<&str>) -> Option<Cow<'_, str>> {
    let text = text?;
    // Most strings have no escape: borrowed (serde's Cow<str> always copies).
    // A valid JSON string with no backslash holds no quote either.
    if let Some(inner) = text.strip_prefix('"').and_then(|t| t.strip_suffix('"')) {
        if crate::bytes::find_byte(inner.as_bytes(), b'\\').is_none() {
            return Some(Cow::Borrowed(inner));
        }
    }
    // Read as a String: serde's Cow<str> is one anyway, and one instance of
    // serde_json's reader serves both (issue 24's size budget).
    serde_json::from_str::<String>(text).ok().or_else(|| lenient(text)).map(Cow::Owned)
}

/// A JSON string literal read as text even when it holds a lone surrogate
/// escape (`"\uD83D"`: what JS `.slice()` leaves of an emoji, and what
/// `JSON.stringify` writes for it). serde refuses those; read strictly, the
/// text would count as absent and its block as blank, and resume would drop
/// it. Each lone half reads as U+FFFD here, for the rules only: the block's
/// own JSON text, escape included, is what goes back to the model.
pub(crate) fn lenient(literal: &str) -> Option<String> {
    if !literal.starts_with('"') {
        return None;
    }
    let b = literal.as_bytes();
    let hex = |at: usize| -> Option<u16> {
        let h = literal.get(at..at + 4)?;
        u16::from_str_radix(h, 16).ok()
    };
    let mut out = String::with_capacity(literal.len());
    let mut i = 0;
    let mut last = 0;
    while i < b.len() {
        if b[i] != b'\\' {
            i += 1;
            continue;
        }
        if b.get(i + 1) != Some(&b'u') {
            i += 2;
            continue;
        }
        let unit = hex(i + 2)?;
        let pair = (0xD800..0xDC00).contains(&unit)
            && b.get(i + 6) == Some(&b'\\')
            && b.get(i + 7) == Some(&b'u')
            && hex(i + 8).is_some_and(|low| (0xDC00..0xE000).contains(&low));
        if pair {
            i += 12;
        } else if (0xD800..0xE000).contains(&unit) {
            out.push_str(&literal[last..i]);
            out.push_str("\\ufffd");
            i += 6;
            last = i;
        } else {
            i += 6;
        }
    }
    out.push_str(&literal[last..]);
    serde_json::from_str::<String>(&out).ok()
}

fn is(raw: Option<&RawValue>, first: u8) -> bool {
    raw.is_some_and(|r| raw_kind(r) == first)
}

fn is_bool(raw: Option<&RawValue>) -> bool {
    raw.is_some_and(|r| matches!(r.get(), "true" | "false"))
}

/// What is wrong with a block of a type the API knows, or None. Unknown
/// types pass (spec §2): newer API blocks must survive older code.
fn fault(kind: &str, h: &BlockHead) -> Option<&'static str> {
    let str_field = |raw: Option<&RawValue>| is(raw, b'"');
    match kind {
        "text" if !str_field(h.text) => Some("a text block needs a string `text`"),
        "thinking" if !str_field(h.thinking) => Some("a thinking block needs a string `thinking`"),
        "thinking" if h.signature.is_some() && !str_field(h.signature) => {
            Some("a thinking block's `signature` must be a string")
        }
        "redacted_thinking" if !str_field(h.data) => Some("a redacted_thinking block needs a string `data`"),
        "tool_use" | "server_tool_use" if !str_field(h.id) || string(h.id).is_some_and(|s| s.is_empty()) => {
            Some("a tool_use block needs a string `id`")
        }
        "tool_use" | "server_tool_use" if !str_field(h.name) => {
            Some("a tool_use block needs a string `name`")
        }
        "tool_use" | "server_tool_use" if !is(h.input, b'{') => {
            Some("a tool_use block needs an object `input`")
        }
        "tool_result" | "web_search_tool_result" if !str_field(h.tool_use_id) => {
            Some("a tool_result block needs a string `tool_use_id`")
        }
        "tool_result" if h.content.is_some() && !is(h.content, b'"') && !is(h.content, b'[') => {
            Some("a tool_result's `content` must be a string or an array of blocks")
        }
        "tool_result" if h.is_error.is_some() && !is_bool(h.is_error) => {
            Some("a tool_result's `is_error` must be true or false")
        }
        "image" | "document" if !is(h.source, b'{') => {
            Some("an image or document block needs an object `source`")
        }
        _ => None,
    }
}

impl Block {
    pub fn parse(json: &str) -> Block {
        let head: Option<BlockHead> = serde_json::from_str(json).ok();
        let type_name = head.as_ref().and_then(|h| string(h.kind));
        let kind = match type_name.as_deref() {
            Some("text") => Kind::Text,
            Some("thinking") => Kind::Thinking,
            Some("redacted_thinking") => Kind::RedactedThinking,
            Some("tool_use") => Kind::ToolUse,
            Some("tool_result") => Kind::ToolResult,
            _ => Kind::Other,
        };
        let fault = match (&head, type_name.as_deref()) {
            (Some(h), Some(t)) => fault(t, h),
            (Some(_), None) => Some("a content block needs a string `type`"),
            (None, _) => Some("a content block must be a JSON object"),
        };
        let head = head.as_ref();
        let id = match kind {
            Kind::ToolUse => head.and_then(|h| string(h.id)),
            Kind::ToolResult => head.and_then(|h| string(h.tool_use_id)),
            _ => None,
        };
        let blank =
            kind == Kind::Text && head.and_then(|h| string(h.text)).is_none_or(|t| t.trim().is_empty());
        let signed = head.and_then(|h| string(h.signature)).is_some_and(|s| !s.is_empty());
        let legacy_redacted = kind == Kind::Thinking
            && head.and_then(|h| string(h.thinking)).is_some_and(|t| t.contains("[REDACTED]"));
        Block {
            json: json.to_owned(),
            kind,
            id: id.map(Cow::into_owned),
            name: head.and_then(|h| string(h.name)).map(Cow::into_owned),
            blank,
            signed,
            legacy_redacted,
            fault,
            at: None,
        }
    }

    /// The block's `text` when it has one as a string (a typeless `{"text":
    /// …}` can be mended into a text block).
    pub fn loose_text(&self) -> Option<String> {
        let head: BlockHead = serde_json::from_str(&self.json).ok()?;
        string(head.text).map(Cow::into_owned)
    }

    pub fn text(text: &str) -> Block {
        Block::parse(&format!(r#"{{"type":"text","text":{}}}"#, str_literal(text)))
    }

    pub fn is_thinking(&self) -> bool {
        matches!(self.kind, Kind::Thinking | Kind::RedactedThinking)
    }

    /// A field of the block, as its JSON text. (Not parsed again through a
    /// generic `from_str::<T>`: every caller wanted the raw value, which the
    /// parts already hold, and each T was one more instance of serde_json's
    /// reader in the wasm, issue 24.)
    pub fn field(&self, key: &str) -> Option<Box<RawValue>> {
        let parts: MessageParts = serde_json::from_str(&self.json).ok()?;
        Some(parts.get(key)?.to_owned())
    }

    /// The block with one field's value replaced.
    pub fn with_field(&self, key: &str, value_json: &str) -> Block {
        match serde_json::from_str::<MessageParts>(&self.json) {
            Ok(parts) => Block::parse(&parts.replacing(key, value_json)),
            Err(_) => self.clone(),
        }
    }

    /// A tool result's content as plain text (for turning an orphan result
    /// into a text block without losing what it said).
    pub fn result_text(&self) -> String {
        // The same fields as a prompt's blocks: prompt_text's reader of them.
        use crate::prompt_text::PromptBlock as Part;
        let Some(content) = self.field("content") else { return String::new() };
        match crate::record::raw_kind(&content) {
            b'"' => string(Some(&content)).map(Cow::into_owned).unwrap_or_default(),
            b'[' => serde_json::from_str::<Vec<Part>>(content.get())
                .unwrap_or_default()
                .into_iter()
                .map(|p| match (p.kind.as_deref(), p.text) {
                    (Some("text"), Some(t)) => t,
                    (kind, _) => format!("[{} block]", kind.unwrap_or("unknown")),
                })
                .collect::<Vec<_>>()
                .join("\n"),
            _ => String::new(),
        }
    }
}

/// Why `Msg::parse` took a message for none (for the repair report).
pub fn why_not(json: &str) -> &'static str {
    let Ok(parts) = serde_json::from_str::<MessageParts>(json) else { return "not a JSON object" };
    match parts.get("role").map(|r| r.get()) {
        None => "a message needs a `role`",
        Some(r#""user""# | r#""assistant""#) => match parts.get("content").map(raw_kind_of) {
            None => "a message needs `content`",
            Some(b'"' | b'[') => "its content could not be read",
            Some(_) => "a message's content must be a string or an array of blocks",
        },
        Some(_) => "a role the API does not take (only user and assistant)",
    }
}

fn raw_kind_of(raw: &RawValue) -> u8 {
    crate::record::raw_kind(raw)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
}

#[derive(Debug, Clone)]
pub struct Msg {
    pub role: Role,
    pub blocks: Vec<Block>,
    /// The content was a plain string: its JSON literal as it came (kept
    /// as one when nothing changed; a lone surrogate escape stays as it is).
    pub string_content: Option<String>,
    /// Other fields of the message object, kept as raw JSON.
    pub extra: Vec<(String, String)>,
    pub origin: Origin,
    /// Index in the state's messages (None for messages resume added).
    pub source: Option<usize>,
    /// Blocks were removed, added or changed: write the blocks, not the
    /// original string content.
    pub changed: bool,
    /// A repair (not a thinking rule) changed this message or removed one
    /// before it: thinking blocks from here on no longer match their
    /// signatures.
    pub repaired: bool,
}

impl Msg {
    /// Parses a message; None when it is not one (no known role, no content).
    pub fn parse(json: &str, origin: Origin, source: Option<usize>) -> Option<Msg> {
        let parts: MessageParts = serde_json::from_str(json).ok()?;
        let role: String = serde_json::from_str(parts.get("role")?.get()).ok()?;
        let role = match role.as_str() {
            "user" => Role::User,
            "assistant" => Role::Assistant,
            _ => return None,
        };
        // Not an untagged enum: serde buffers those, and a buffered value
        // cannot give back raw JSON text.
        let content = parts.get("content")?;
        let (blocks, string_content) = match crate::record::raw_kind(content) {
            b'"' => {
                let s = string(Some(content))?;
                if s.trim().is_empty() {
                    (Vec::new(), None)
                } else {
                    let literal = content.get();
                    let block = Block::parse(&format!(r#"{{"type":"text","text":{literal}}}"#));
                    (vec![Block { at: Some(0), ..block }], Some(literal.to_owned()))
                }
            }
            b'[' => {
                let raw: Vec<&RawValue> = serde_json::from_str(content.get()).ok()?;
                (
                    raw.iter()
                        .enumerate()
                        .map(|(i, b)| Block { at: Some(i), ..Block::parse(b.get()) })
                        .collect(),
                    None,
                )
            }
            _ => return None,
        };
        let extra = parts
            .fields()
            .iter()
            .filter(|(k, _)| k != "role" && k != "content")
            .map(|(k, v)| (k.to_string(), v.get().to_owned()))
            .collect();
        Some(Msg { role, blocks, string_content, extra, origin, source, changed: false, repaired: false })
    }

    pub fn new(role: Role, blocks: Vec<Block>) -> Msg {
        Msg {
            role,
            blocks,
            string_content: None,
            extra: Vec::new(),
            origin: Origin::default(),
            source: None,
            changed: true,
            repaired: true,
        }
    }

    pub fn to_json(&self) -> String {
        let role = match self.role {
            Role::User => "user",
            Role::Assistant => "assistant",
        };
        let mut out = format!(r#"{{"role":"{role}","content":"#);
        match &self.string_content {
            Some(literal) if !self.changed => out.push_str(literal),
            _ => {
                out.push('[');
                for (i, b) in self.blocks.iter().enumerate() {
                    if i > 0 {
                        out.push(',');
                    }
                    out.push_str(&b.json);
                }
                out.push(']');
            }
        }
        for (k, v) in &self.extra {
            out.push(',');
            out.push_str(&str_literal(k));
            out.push(':');
            out.push_str(v);
        }
        out.push('}');
        out
    }

    pub fn tool_use_ids(&self) -> impl Iterator<Item = &str> {
        self.blocks.iter().filter(|b| b.kind == Kind::ToolUse).filter_map(|b| b.id.as_deref())
    }

    pub fn tool_result_ids(&self) -> impl Iterator<Item = &str> {
        self.blocks.iter().filter(|b| b.kind == Kind::ToolResult).filter_map(|b| b.id.as_deref())
    }
}
