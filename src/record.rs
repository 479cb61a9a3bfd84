//! One journal line, parsed tolerantly (spec §1, §2).
//!
//! The fast path deserialises a line straight into `Fields`, which borrows
//! from the line and keeps message content as raw JSON text: replay never
//! builds a tree for a message. Only when that fails (rare: a bad line, an
//! odd field) does the slow path look at the line as a `Value` to say
//! exactly what was wrong, and to let fields that belong to other record
//! types pass through unharmed.

use crate::accounting::{Report, Usage};
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// The child session id of a run inside its parent's file (a Claude Code
/// sidechain): this prefix and the id of the Task call that started it.
/// Read alone with `Journal::with_run(<id>)`. Here, in the record model,
/// because the state (which lists a session's inline runs) and the readers
/// (which write such ids) both know records, and the state knows no reader.
pub const INLINE_RUN: &str = "sidechain-";

/// The `purpose` of a `side_usage` record for a response of an inline run
/// (a Claude Code 1.x Task's subagent, inside its session's file): counted
/// like any side request, but no landmark in the history, because the
/// transcript draws that response in its run under the Task call (a
/// landmark beside it told each of the run's responses twice).
pub const INLINE_RUN_USAGE: &str = "inline run";

/// The other purposes of side usage the readers write, which the
/// transcript says in words (transcript/plain.rs): a response off the
/// conversation's active branch, a subagent's response whose run no call
/// names, usage counted with no response open (Codex).
pub const ANOTHER_BRANCH_USAGE: &str = "another branch";
pub const SUBAGENT_USAGE: &str = "subagent";
pub const REQUESTS_USAGE: &str = "requests";

/// Every field any known record type uses. Which ones a type needs is
/// checked in `Record::from_fields`; the rest are ignored, like unknown fields.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Fields<'a> {
    #[serde(rename = "type", borrow)]
    pub kind: Cow<'a, str>,
    pub redacted: Option<bool>,
    /// When the record was written (ISO 8601): the day of its usage.
    #[serde(borrow)]
    pub t: Option<Cow<'a, str>>,
    // start, resume, model
    #[serde(borrow)]
    pub session_id: Option<&'a RawValue>,
    #[serde(borrow)]
    pub root: Option<&'a RawValue>,
    #[serde(borrow)]
    pub version: Option<&'a RawValue>,
    #[serde(borrow)]
    pub model: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub executor: Option<&'a RawValue>,
    #[serde(borrow)]
    pub isolation: Option<&'a RawValue>,
    #[serde(borrow)]
    pub limits: Option<&'a RawValue>,
    // user, tool_results, continue
    #[serde(borrow = "'a")]
    pub message: Option<MessageParts<'a>>,
    // assistant, compaction (summary), side_usage
    pub step: Option<u64>,
    #[serde(borrow)]
    pub response: Option<Response<'a>>,
    #[serde(borrow)]
    pub summary: Option<Response<'a>>,
    #[serde(default)]
    pub cost_usd: Cost,
    pub usage_reported: Option<bool>,
    pub usage: Option<Usage>,
    /// A side_usage's: what the request was for (a string; any other value
    /// is let be, as before this was read: the usage still counts). Not in
    /// `RecordKind::fields`, so a line serde_json refuses for it alone (a
    /// duplicate `purpose`) is read again without it, and counts.
    #[serde(borrow)]
    pub purpose: Option<&'a RawValue>,
    // tool_results
    pub calls: Option<Vec<Call>>,
    // compaction, snapshot (`messages` is an array in one, a count in the other)
    #[serde(borrow)]
    pub messages: Option<&'a RawValue>,
    pub before_tokens: Option<u64>,
    pub after_tokens: Option<u64>,
    // snapshot, undo
    #[serde(borrow)]
    pub tree: Option<&'a RawValue>,
    #[serde(borrow)]
    pub prompt: Option<&'a RawValue>,
    #[serde(borrow)]
    pub after: Option<&'a RawValue>,
    // title, thinking
    #[serde(borrow)]
    pub title: Option<Cow<'a, str>>,
    #[serde(borrow)]
    pub choice: Option<&'a RawValue>,
    // unreported, child_debit
    pub tokens: Option<u64>,
    #[serde(borrow)]
    pub child_session_id: Option<Cow<'a, str>>,
    // end
    #[serde(borrow)]
    pub stop_reason: Option<&'a RawValue>,
    pub steps: Option<u64>,
    /// A `tool_results` record that closeOpenToolCalls wrote.
    pub synthetic: Option<bool>,
    /// Not a field: the line was read by record_walk.rs, which reads only
    /// lines that nest at most `SHALLOW` deep, so no message in it can nest
    /// too deep and the replay need not count the line's brackets.
    #[serde(skip)]
    pub shallow: bool,
}

/// How deep a line `Fields::shallow` marks may nest, at most.
pub const SHALLOW: usize = 99;

/// A model response: its content is kept as raw JSON text.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Response<'a> {
    #[serde(borrow)]
    pub content: &'a RawValue,
    #[serde(default)]
    pub usage: Usage,
    pub usage_reported: Option<bool>,
}

/// One tool call of a `tool_results` record; only a subagent report counts.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Call {
    pub report: Option<Report>,
    /// The call, and the child run it started (viewers link the two).
    pub tool_use_id: Option<String>,
    pub child_session_id: Option<String>,
}

/// The record types of spec §2, matched exhaustively wherever a record is
/// read or applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecordKind {
    Start,
    Resume,
    Model,
    User,
    Assistant,
    ToolResults,
    Compaction,
    Snapshot,
    Undo,
    Redo,
    Title,
    Thinking,
    Continue,
    Unreported,
    ChildDebit,
    SideUsage,
    End,
}

impl RecordKind {
    pub const ALL: [RecordKind; 17] = [
        RecordKind::Start,
        RecordKind::Resume,
        RecordKind::Model,
        RecordKind::User,
        RecordKind::Assistant,
        RecordKind::ToolResults,
        RecordKind::Compaction,
        RecordKind::Snapshot,
        RecordKind::Undo,
        RecordKind::Redo,
        RecordKind::Title,
        RecordKind::Thinking,
        RecordKind::Continue,
        RecordKind::Unreported,
        RecordKind::ChildDebit,
        RecordKind::SideUsage,
        RecordKind::End,
    ];

    /// The kind a `type` names, or None for a type this reader does not know.
    pub fn parse(name: &str) -> Option<RecordKind> {
        RecordKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// The `type` as written.
    pub fn as_str(self) -> &'static str {
        match self {
            RecordKind::Start => "start",
            RecordKind::Resume => "resume",
            RecordKind::Model => "model",
            RecordKind::User => "user",
            RecordKind::Assistant => "assistant",
            RecordKind::ToolResults => "tool_results",
            RecordKind::Compaction => "compaction",
            RecordKind::Snapshot => "snapshot",
            RecordKind::Undo => "undo",
            RecordKind::Redo => "redo",
            RecordKind::Title => "title",
            RecordKind::Thinking => "thinking",
            RecordKind::Continue => "continue",
            RecordKind::Unreported => "unreported",
            RecordKind::ChildDebit => "child_debit",
            RecordKind::SideUsage => "side_usage",
            RecordKind::End => "end",
        }
    }

    /// The fields this kind reads (spec §2). Fields outside this list belong
    /// to someone else and must not make the record invalid.
    pub fn fields(self) -> &'static [&'static str] {
        match self {
            RecordKind::Start | RecordKind::Resume | RecordKind::Model => {
                &["sessionId", "root", "version", "model", "executor", "isolation", "limits"]
            }
            RecordKind::User => &["message"],
            RecordKind::Assistant => &["step", "response", "costUsd", "usageReported"],
            RecordKind::ToolResults => &["message", "calls"],
            RecordKind::Compaction => {
                &["beforeTokens", "afterTokens", "messages", "summary", "costUsd", "usageReported"]
            }
            RecordKind::Snapshot => &["tree", "messages", "prompt"],
            RecordKind::Undo => &["after"],
            RecordKind::Redo => &[],
            RecordKind::Title => &["title"],
            RecordKind::Thinking => &["choice"],
            RecordKind::Continue => &["message"],
            RecordKind::Unreported => &["tokens"],
            RecordKind::ChildDebit => &["childSessionId", "tokens"],
            RecordKind::SideUsage => &["usage", "costUsd", "usageReported"],
            RecordKind::End => &["stopReason", "steps"],
        }
    }
}

pub fn is_known_type(kind: &str) -> bool {
    RecordKind::parse(kind).is_some()
}

/// Why a line was skipped.
#[derive(Debug, Clone, PartialEq)]
pub enum LineError {
    /// Not JSON at all (or a torn tail, which the reader decides).
    BadJson(String),
    /// JSON, but not an object with a string `type`.
    BadRecord(String),
    /// A type this reader does not know (a newer writer).
    UnknownType(String),
    /// A known type with a field of the wrong type or a missing field.
    BadField(String),
}

/// Parses one line and hands the typed fields to `f`. The fields borrow from
/// the line (or from a cleaned copy on the slow path), hence the callback.
pub fn with_fields<R>(
    line: &str,
    f: impl FnOnce(RecordKind, &Fields) -> Result<R, String>,
) -> Result<R, LineError> {
    // Most lines are read by one validating walk (record_walk.rs); serde_json
    // reads the rest, and says what is wrong with a line that is wrong.
    let parsed = match crate::record_walk::fields(line) {
        Some(fields) => Ok(fields),
        None => serde_json::from_str::<Fields>(line),
    };
    match parsed {
        Ok(fields) => match RecordKind::parse(&fields.kind) {
            Some(kind) => f(kind, &fields).map_err(LineError::BadField),
            None => Err(LineError::UnknownType(fields.kind.into_owned())),
        },
        Err(fast_error) => slow_path(line, fast_error, f),
    }
}

fn slow_path<R>(
    line: &str,
    fast_error: serde_json::Error,
    f: impl FnOnce(RecordKind, &Fields) -> Result<R, String>,
) -> Result<R, LineError> {
    if let Err(e) = serde_json::from_str::<IgnoredAny>(line) {
        return Err(LineError::BadJson(format!("not JSON: {}", clean_serde_message(&e))));
    }
    let Ok(record) = serde_json::from_str::<MessageParts>(line) else {
        return Err(LineError::BadRecord("a record must be a JSON object".into()));
    };
    let kind: String = match record.get("type").map(|raw| serde_json::from_str(raw.get())) {
        Some(Ok(kind)) => kind,
        Some(Err(_)) => return Err(LineError::BadRecord("`type` must be a string".into())),
        None => return Err(LineError::BadRecord("the record has no `type`".into())),
    };
    let Some(record_kind) = RecordKind::parse(&kind) else {
        return Err(LineError::UnknownType(kind));
    };
    let own = record_kind.fields();
    // Keep only this type's fields, then parse again: an unrelated field that
    // happens to share a name with another type's field passes through.
    let kept = record.keeping(|k| k == "type" || k == "redacted" || own.contains(&k));
    if kept.len() == record.len() {
        return Err(LineError::BadField(name_the_field(&kept, &kind, &fast_error)));
    }
    let cleaned = kept.to_json();
    match serde_json::from_str::<Fields>(&cleaned) {
        Ok(fields) => f(record_kind, &fields).map_err(LineError::BadField),
        Err(e) => Err(LineError::BadField(name_the_field(&kept, &kind, &e))),
    }
}

/// serde's message with the field it is about: each field is tried alone
/// (rare: only a record that failed to parse gets here).
fn name_the_field(record: &MessageParts, kind: &str, error: &serde_json::Error) -> String {
    let kind_json = crate::json_str::str_literal(kind);
    for (key, value) in record.fields() {
        if key == "type" {
            continue;
        }
        let alone =
            format!(r#"{{"type":{kind_json},{}:{}}}"#, crate::json_str::str_literal(key), value.get());
        if let Err(e) = serde_json::from_str::<Fields>(&alone) {
            // The value inside the field that serde_json stopped at: the
            // line is one line, so its column is the byte offset (+1).
            let path = crate::json_path::path_at(&alone, e.column());
            let path = if path.starts_with(&**key) { path } else { key.to_string() };
            return format!("`{path}`: {}", clean_serde_message(&e));
        }
    }
    clean_serde_message(error)
}

/// serde's message without its " at line 1 column N" suffix: the reader adds
/// the real line number itself.
pub(crate) fn clean_serde_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    match text.rfind(" at line ") {
        Some(i) => text[..i].to_owned(),
        None => text,
    }
}

/// The first non-space byte of a raw JSON value: `[`, `{`, `"`, a digit...
pub fn raw_kind(raw: &RawValue) -> u8 {
    raw.get().bytes().find(|b| !b.is_ascii_whitespace()).unwrap_or(b' ')
}

/// Message content must be a string or an array of blocks.
pub fn check_content(raw: &RawValue, what: &str) -> Result<(), String> {
    match raw_kind(raw) {
        b'[' | b'"' => Ok(()),
        _ => Err(format!("{what} must be a string or an array of content blocks")),
    }
}

/// A message object read in one pass: every field kept as raw JSON, in its
/// order, with `role` and `content` checked on the way. Messages are most of
/// a journal's bytes, so they are scanned once and never become trees.
#[derive(Debug)]
pub struct MessageParts<'a> {
    fields: Vec<(Cow<'a, str>, &'a RawValue)>,
}

/// A key borrowed from the line when it has no escapes (always, in practice).
struct Key<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Key<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for KeyVisitor<'a> {
            type Value = Key<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(v.to_owned())))
            }
        }
        d.deserialize_str(KeyVisitor(std::marker::PhantomData))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for MessageParts<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Fields<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for Fields<'a> {
            type Value = MessageParts<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a message object")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                // role, content, and room for a field or two more (a
                // message usually has two; growing from two cost a copy).
                let mut fields = Vec::with_capacity(4);
                while let Some(Key(key)) = map.next_key()? {
                    let value: &'a RawValue = map.next_value()?;
                    fields.push((key, value));
                }
                Ok(MessageParts { fields })
            }
        }
        d.deserialize_map(Fields(std::marker::PhantomData))
    }
}

impl<'a> MessageParts<'a> {
    /// Members read elsewhere (record_walk.rs), in their order.
    pub(crate) fn from_fields(fields: Vec<(Cow<'a, str>, &'a RawValue)>) -> MessageParts<'a> {
        MessageParts { fields }
    }

    pub(crate) fn fields(&self) -> &[(Cow<'a, str>, &'a RawValue)] {
        &self.fields
    }

    pub(crate) fn get(&self, key: &str) -> Option<&'a RawValue> {
        self.fields.iter().find(|(k, _)| k == key).map(|(_, v)| *v)
    }

    /// Checks the message (a string `role`, string-or-array `content`) and
    /// returns its JSON text.
    pub fn checked_json(&self, what: &str) -> Result<String, String> {
        match self.get("role").map(raw_kind) {
            Some(b'"') => {}
            Some(_) => return Err(format!("`{what}.role` must be a string")),
            None => return Err(format!("`{what}` has no `role`")),
        }
        match self.get("content") {
            // The field's name is only formatted for an error.
            Some(content) => check_content(content, "")
                .map_err(|_| format!("`{what}.content` must be a string or an array of content blocks"))?,
            None => return Err(format!("`{what}` has no `content`")),
        }
        Ok(self.to_json())
    }

    fn len(&self) -> usize {
        self.fields.len()
    }

    fn keeping(&self, keep: impl Fn(&str) -> bool) -> MessageParts<'a> {
        MessageParts { fields: self.fields.iter().filter(|(k, _)| keep(k)).cloned().collect() }
    }

    /// The object as JSON text with one field's value replaced (or added).
    pub(crate) fn replacing(&self, key: &str, value_json: &str) -> String {
        let mut out = String::from("{");
        let mut found = false;
        for (i, (k, v)) in self.fields.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&crate::json_str::str_literal(k));
            out.push(':');
            if k == key && !found {
                found = true;
                out.push_str(value_json);
            } else {
                out.push_str(v.get());
            }
        }
        if !found {
            if !self.fields.is_empty() {
                out.push(',');
            }
            out.push_str(&crate::json_str::str_literal(key));
            out.push(':');
            out.push_str(value_json);
        }
        out.push('}');
        out
    }

    /// The object as compact JSON text, its fields in their order.
    pub(crate) fn to_json(&self) -> String {
        // Exact capacity: the text becomes a `Box<str>` without a copy. A key
        // with nothing to escape (every key, in practice) is written as it
        // is, without a string of its own.
        let plain = |k: &str| k.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\');
        let key_len = |k: &str| if plain(k) { k.len() + 2 } else { crate::json_str::str_literal(k).len() };
        let size = self.fields.iter().map(|(k, v)| key_len(k) + v.get().len() + 2).sum::<usize>() + 1;
        let mut out = String::with_capacity(size);
        out.push('{');
        for (i, (key, value)) in self.fields.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            if plain(key) {
                out.push('"');
                out.push_str(key);
                out.push('"');
            } else {
                crate::json_str::push_str_literal(&mut out, key);
            }
            out.push(':');
            out.push_str(value.get());
        }
        out.push('}');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind_of(line: &str) -> Result<String, LineError> {
        with_fields(line, |kind, _| Ok(kind.as_str().to_string()))
    }

    #[test]
    fn classifies_bad_lines() {
        assert!(matches!(kind_of("{nope"), Err(LineError::BadJson(_))));
        assert!(matches!(kind_of("[1,2]"), Err(LineError::BadRecord(_))));
        assert!(matches!(kind_of(r#"{"type":7}"#), Err(LineError::BadRecord(_))));
        assert!(matches!(kind_of(r#"{"t":"x"}"#), Err(LineError::BadRecord(_))));
        assert!(matches!(kind_of(r#"{"type":"future"}"#), Err(LineError::UnknownType(k)) if k == "future"));
        assert!(matches!(kind_of(r#"{"type":"unreported","tokens":"x"}"#), Err(LineError::BadField(_))));
    }

    /// A bad field's warning names the value that is wrong, however deep.
    #[test]
    fn a_bad_field_is_named_by_its_path() {
        let cases = [
            (r#"{"type":"unreported","tokens":"x"}"#, "`tokens`: invalid type"),
            (
                r#"{"type":"assistant","step":1,"response":{"content":[],"usage":{"inputTokens":"x"}}}"#,
                "`response.usage.inputTokens`: invalid type",
            ),
            (
                r#"{"type":"side_usage","purpose":"r","usage":{"outputTokens":-1}}"#,
                "`usage.outputTokens`: invalid value",
            ),
            (
                r#"{"type":"tool_results","message":{"role":"user","content":[]},"calls":[{"toolUseId":"a"},{"toolUseId":"c","report":{"childSessionId":"k","usage":{"cacheReadTokens":1.5}}}]}"#,
                "`calls[1].report.usage.cacheReadTokens`: invalid type",
            ),
            // Missing: the object it is missing from.
            (r#"{"type":"child_debit","childSessionId":"c","tokens":{}}"#, "`tokens`: invalid type"),
        ];
        for (line, want) in cases {
            match kind_of(line) {
                Err(LineError::BadField(m)) => assert!(m.starts_with(want), "{line}: {m}"),
                other => panic!("{line}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_field_of_another_type_passes_through() {
        // `tokens` belongs to `unreported`; on a `user` record it is just unknown.
        let line = r#"{"type":"user","tokens":"many","message":{"role":"user","content":"hi"}}"#;
        assert_eq!(kind_of(line), Ok("user".into()));
    }
}

/// A record's `costUsd`: a number, absent, or `null`. Null says the cost is
/// unknown: an import of a session whose usage its agent never wrote (a
/// Codex rollout without token counts) writes it so, and replay then gives
/// an unknown cost, where the zeros standing for its usage would say $0.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub enum Cost {
    #[default]
    Absent,
    Unknown,
    Known(f64),
}

impl Cost {
    /// The cost when the record gives one.
    pub fn known(self) -> Option<f64> {
        match self {
            Cost::Known(c) => Some(c),
            _ => None,
        }
    }

    /// `costUsd: null`.
    pub fn is_unknown(self) -> bool {
        self == Cost::Unknown
    }
}

impl<'de> Deserialize<'de> for Cost {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Cost, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.map_or(Cost::Unknown, Cost::Known))
    }
}
