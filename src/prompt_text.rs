//! The text of a message's content as a person reads it first: a prompt's
//! string, or its first text block (notes and attachments come after it).
//! The state keeps the session's first prompt by it; resume reads tool
//! results' blocks with the same derived reader. Of this crate it uses
//! only `record::raw_kind`.

#![forbid(unsafe_code)]

use crate::record::raw_kind;
use serde_json::value::RawValue;

#[derive(serde::Deserialize)]
struct PromptMessage<'a> {
    #[serde(borrow)]
    content: &'a RawValue,
}

/// A content block's `type` and `text` (resume's `result_text` reads blocks
/// with it too: one derived reader for both, issue 24's size budget).
#[derive(serde::Deserialize)]
pub(crate) struct PromptBlock {
    #[serde(rename = "type")]
    pub(crate) kind: Option<String>,
    pub(crate) text: Option<String>,
}

/// The prompt of a user message: its string content, or its first text block
/// (notes and attachments come after it).
pub(crate) fn prompt_text(message_json: &str) -> Option<String> {
    let message: PromptMessage = serde_json::from_str(message_json).ok()?;
    text_of_content(message.content)
}

/// String content, or the first text block of block content. (Dispatched
/// by the first byte, not with an untagged enum: those cost wasm size.)
fn text_of_content(content: &RawValue) -> Option<String> {
    match raw_kind(content) {
        b'"' => serde_json::from_str(content.get()).ok(),
        b'[' => {
            let blocks: Vec<PromptBlock> = serde_json::from_str(content.get()).ok()?;
            blocks.into_iter().find(|b| b.kind.as_deref() == Some("text")).and_then(|b| b.text)
        }
        _ => None,
    }
}
