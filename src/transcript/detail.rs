//! One transcript entry whole, for reading: a message's blocks as typed
//! parts (a prompt's notes and attachments told apart, thinking with its
//! fate, each tool call with its result and, for a file edit, its diff),
//! a landmark's or warning's text. Read on demand: the index never holds
//! whole messages.

use super::boilerplate::context_of;
use super::diff::{self, FileDiff};
use super::tools::{view_of, ToolView};
use super::{cut, note_text, text_role, EntryKind, Transcript, INTERRUPTED};
use crate::record::RecordKind;
use crate::state::{HistoryItem, SessionState};
use serde::Serialize;
use serde_json::Value;

/// An image from a base64 source (nothing else is shown: a URL would be fetched).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Image {
    pub media_type: String,
    pub data: String,
}

/// What a tool call came back with.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Outcome {
    pub entry: u32,
    pub text: String,
    pub error: bool,
    pub interrupted: bool,
    pub images: Vec<Image>,
}

/// A part of a message, as a reader shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Part {
    /// A prompt's own text.
    Prompt {
        text: String,
    },
    /// A response's text (Markdown).
    Text {
        text: String,
    },
    Note {
        text: String,
    },
    Attachment {
        text: String,
    },
    /// `text` is empty for redacted thinking (`redacted: true`).
    Thinking {
        text: String,
        redacted: bool,
    },
    #[serde(rename_all = "camelCase")]
    ToolUse {
        id: String,
        name: String,
        /// The input as indented JSON.
        input: String,
        diff: Vec<FileDiff>,
        result: Option<Outcome>,
        child: Option<String>,
        /// The call read for a reader (tools.rs); none: show the input's JSON.
        #[serde(skip_serializing_if = "Option::is_none")]
        view: Option<ToolView>,
    },
    #[serde(rename_all = "camelCase")]
    ToolResult {
        id: String,
        name: Option<String>,
        text: String,
        error: bool,
        interrupted: bool,
        images: Vec<Image>,
        call: Option<u32>,
    },
    #[serde(rename_all = "camelCase")]
    Image {
        media_type: String,
        data: String,
    },
    /// What the agent put in the conversation, not a person (boilerplate.rs):
    /// a slash command (`label` is `/clear`, `text` its arguments), a caveat,
    /// a system reminder, AGENTS.md… A reader folds it under its label.
    Context {
        label: String,
        text: String,
    },
    /// A block of a type this reader does not show (`[document]`…).
    Other {
        text: String,
    },
}

/// The entry's fields and then `parts`, as `#[serde(flatten)]` wrote them
/// (the tests keep that writer as the oracle): spliced from the entry's own
/// JSON, because flatten serialises every field once more through a map
/// serializer of its own, ~10 KB of wasm (issue 24's size budget). The
/// entry's fields are ASCII, as in the index (write.rs); the parts, one
/// entry's whole text, are as serde_json writes them.
fn detail_json(entry: &super::Entry, parts: &[Part]) -> Option<String> {
    let mut out = String::new();
    super::write::entry(&mut out, entry);
    // `{...}`: the entry always has fields (`index` first), so a comma.
    if out.pop() != Some('}') || out.len() < 2 {
        return None;
    }
    out.push_str(",\"parts\":");
    out.push_str(&serde_json::to_string(parts).ok()?);
    out.push('}');
    Some(out)
}

pub(super) fn entry_json(
    t: &Transcript,
    state: &SessionState,
    index: usize,
    lines: &[(u64, &str)],
) -> Option<String> {
    let entry = t.entries.get(index)?;
    let parts = match (t.sources.get(index)?, &entry.kind) {
        (super::Source::History(h), EntryKind::Message) => match state.history.as_deref()?.get(*h)? {
            HistoryItem::Message { kind, json, .. } => match message_text(json, entry.line, lines) {
                Some(json) => parts_of(t, state, entry, *kind, &json, lines),
                None => vec![Part::Other { text: "[the message's line was not given]".into() }],
            },
            HistoryItem::Landmark { .. } => Vec::new(),
        },
        _ => Vec::new(),
    };
    detail_json(entry, &parts)
}

/// A history message's JSON, or when the history forgot it, the message of
/// its journal line (given by the host).
fn message_text<'a>(json: &'a str, line: u64, lines: &[(u64, &str)]) -> Option<std::borrow::Cow<'a, str>> {
    if !json.is_empty() {
        return Some(json.into());
    }
    let (_, text) = lines.iter().find(|(l, _)| *l == line)?;
    crate::state::message_of_line(text).map(Into::into)
}

fn str_of(v: &Value, key: &str) -> String {
    match v.get(key) {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(other) => other.to_string(),
    }
}

fn parts_of(
    t: &Transcript,
    state: &SessionState,
    entry: &super::Entry,
    kind: RecordKind,
    json: &str,
    lines: &[(u64, &str)],
) -> Vec<Part> {
    let Ok(mut message) = serde_json::from_str::<Value>(json) else {
        return vec![Part::Other { text: "[a message that could not be read]".into() }];
    };
    let blocks = match message.get_mut("content").map(Value::take) {
        Some(Value::String(s)) => vec![serde_json::json!({ "type": "text", "text": s })],
        Some(Value::Array(a)) => a,
        _ => Vec::new(),
    };
    // The messages holding this entry's results, each read once (one
    // tool_results entry answers all the calls of a response).
    let mut results: Vec<(u32, Option<Value>)> = Vec::new();
    let mut first_text = true;
    let foreign = state.format.is_some_and(|f| f != crate::formats::Format::Garuda);
    let mut out = Vec::with_capacity(blocks.len());
    for b in &blocks {
        let kind_name = b.get("type").and_then(Value::as_str).unwrap_or("");
        out.push(match kind_name {
            "text" => {
                let text = str_of(b, "text");
                let role = if kind == RecordKind::User { text_role(&text, first_text) } else { "text" };
                first_text = false;
                let context = match kind {
                    RecordKind::User | RecordKind::Continue if role != "note" => context_of(&text),
                    _ => None,
                };
                // Another agent's continue records are all its own words (a
                // slash command's expansion…); Garuda's are its continue notes.
                let context = context.or_else(|| {
                    (kind == RecordKind::Continue && foreign).then(|| ("context".to_owned(), text.clone()))
                });
                if let Some((label, text)) = context {
                    out.push(Part::Context { label, text });
                    continue;
                }
                match role {
                    "prompt" => Part::Prompt { text },
                    "note" => Part::Note { text: note_text(&text).to_owned() },
                    "attachment" => Part::Attachment { text },
                    _ => Part::Text { text },
                }
            }
            "thinking" => Part::Thinking { text: str_of(b, "thinking"), redacted: false },
            "redacted_thinking" => Part::Thinking { text: String::new(), redacted: true },
            "tool_use" | "server_tool_use" => {
                let id = str_of(b, "id");
                let name = str_of(b, "name");
                let input = b.get("input").cloned().unwrap_or(Value::Null);
                let tool = entry.tools.iter().find(|x| x.is_use && x.id == id);
                let result = tool.and_then(|x| x.pair).and_then(|p| {
                    let i = match results.iter().position(|(at, _)| *at == p) {
                        Some(i) => i,
                        None => {
                            results.push((p, result_message(t, state, p, lines)));
                            results.len() - 1
                        }
                    };
                    outcome(p, results[i].1.as_ref()?, &id)
                });
                Part::ToolUse {
                    view: view_of(&name, &input, result.as_ref().map(|r| r.text.as_str())),
                    diff: diff::of_call(&name, &input),
                    // Value's `{:#}`: the same two-space pretty printing as
                    // to_string_pretty, through the Display code the module
                    // has anyway (one serializer instance fewer, issue 24).
                    input: format!("{input:#}"),
                    child: tool.and_then(|x| x.child.clone()),
                    id,
                    name,
                    result,
                }
            }
            "tool_result" => {
                let id = str_of(b, "tool_use_id");
                let tool = entry.tools.iter().find(|x| !x.is_use && x.id == id);
                let (text, images) = result_parts(b.get("content"));
                Part::ToolResult {
                    interrupted: text == INTERRUPTED,
                    error: b.get("is_error") == Some(&Value::Bool(true)),
                    name: tool.and_then(|x| x.name.clone()),
                    call: tool.and_then(|x| x.pair),
                    id,
                    text,
                    images,
                }
            }
            "image" => match image_of(b) {
                Some(Image { media_type, data }) => Part::Image { media_type, data },
                None => Part::Other { text: "[image]".into() },
            },
            "" => Part::Other { text: cut(&b.to_string(), 200).to_owned() },
            other => Part::Other { text: format!("[{other}]") },
        });
    }
    out
}

/// The message of entry `at` (the results of some calls).
fn result_message(t: &Transcript, state: &SessionState, at: u32, lines: &[(u64, &str)]) -> Option<Value> {
    let Some(super::Source::History(h)) = t.sources.get(at as usize) else { return None };
    let Some(HistoryItem::Message { json, .. }) = state.history.as_deref()?.get(*h) else { return None };
    let line = t.entries.get(at as usize)?.line;
    serde_json::from_str(&message_text(json, line, lines)?).ok()
}

/// The result of call `id`, in `message` (entry `at`).
fn outcome(at: u32, message: &Value, id: &str) -> Option<Outcome> {
    let block = message
        .get("content")?
        .as_array()?
        .iter()
        .find(|b| b.get("tool_use_id").and_then(Value::as_str) == Some(id))?;
    let (text, images) = result_parts(block.get("content"));
    Some(Outcome {
        entry: at,
        interrupted: text == INTERRUPTED,
        error: block.get("is_error") == Some(&Value::Bool(true)),
        text,
        images,
    })
}

/// A base64 image block's media type and data.
fn image_of(b: &Value) -> Option<Image> {
    let source = b.get("source")?;
    if source.get("type")?.as_str()? != "base64" {
        return None;
    }
    let media_type = source.get("media_type")?.as_str()?;
    // Only raster types: an SVG could carry script, and the page shows
    // images as data: URLs.
    if !matches!(media_type, "image/png" | "image/jpeg" | "image/gif" | "image/webp") {
        return None;
    }
    let data = source.get("data")?.as_str()?;
    data.bytes()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'='))
        .then(|| Image { media_type: media_type.to_owned(), data: data.to_owned() })
}

/// A tool result's content: its texts joined, its images apart.
fn result_parts(content: Option<&Value>) -> (String, Vec<Image>) {
    match content {
        Some(Value::String(s)) => (s.clone(), Vec::new()),
        Some(Value::Array(items)) => {
            let mut text = String::new();
            let mut images = Vec::new();
            for p in items {
                let piece = match p.get("type").and_then(Value::as_str) {
                    Some("text") => str_of(p, "text"),
                    Some("image") => match image_of(p) {
                        Some(i) => {
                            images.push(i);
                            continue;
                        }
                        None => "[image]".into(),
                    },
                    Some(other) => format!("[{other}]"),
                    None => cut(&p.to_string(), 200).to_owned(),
                };
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&piece);
            }
            (text, images)
        }
        None | Some(Value::Null) => (String::new(), Vec::new()),
        Some(other) => (other.to_string(), Vec::new()),
    }
}

/// A tool result's text for a preview, up to about `limit` bytes, appended
/// to `out`, which is empty (a buffer its caller reuses).
pub(super) fn push_result_text(out: &mut String, content: Option<&str>, limit: usize) {
    let Some(raw) = content else { return };
    if raw.starts_with('"') {
        super::summary::preview_push(out, Some(raw));
        return;
    }
    // A message this crate wrote (the summary's): its blocks walked, and
    // only as far as the limit.
    let Some(items) = crate::json_skim::elements(raw) else { return };
    for item in items {
        if out.len() >= limit {
            break;
        }
        let Some(b) = super::summary::block_of(item) else { continue };
        if !out.is_empty() {
            out.push('\n');
        }
        if !super::summary::preview_push(out, b.text) {
            out.push_str("[block]");
        }
    }
}

#[cfg(test)]
mod flatten_oracle {
    //! The writer `detail_json` replaced, kept as its oracle.
    use super::{detail_json, Part};
    use crate::journal::Journal;
    use crate::redact::Redactor;
    use crate::transcript::Transcript;
    use serde::Serialize;

    #[derive(Serialize)]
    struct Detail<'a> {
        #[serde(flatten)]
        entry: &'a crate::transcript::Entry,
        parts: &'a [Part],
    }

    #[test]
    fn detail_json_is_what_flatten_wrote() {
        // Every kind of entry of the viewer's sample (tests.rs reads it too).
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web-demo/samples/viewer-sample.jsonl");
        let text = std::fs::read_to_string(path).expect("the viewer sample");
        let mut j = Journal::new(Redactor::default()).with_history();
        j.feed(&text);
        j.finish();
        let state = j.into_state();
        let t = Transcript::new(&state);
        assert!(t.entries().len() > 10);
        let parts = [
            Part::Text { text: "a \"quoted\" reply".into() },
            Part::Thinking { text: String::new(), redacted: true },
        ];
        for e in t.entries() {
            for p in [&parts[..], &[]] {
                // The entry's fields in ASCII, as the index writes them (the parts here are ASCII).
                let want = crate::json_str::tests::ascii_oracle(
                    &serde_json::to_string(&Detail { entry: e, parts: p }).unwrap(),
                );
                assert_eq!(detail_json(e, p).as_deref(), Some(want.as_str()));
            }
        }
    }
}
