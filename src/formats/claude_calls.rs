//! The child runs a Claude Code tool results line links: the `calls` of
//! its record (a Task call's subagent, by the result's `agent` or by the
//! inline run the call started), and the prefilter that passes over lines
//! naming no child run unparsed.

use super::{content_blocks, find, rec};
use std::collections::HashMap;

/// The `calls` of a tool results record whose results answer a Task call
/// with a child run: the subagent its result names (`agent`, the first
/// result's call), or the inline run the call started (`children`), whose
/// call's id `named` hears.
pub(super) fn child_calls(
    content: &str,
    agent: Option<&str>,
    children: &HashMap<String, String>,
    named: &mut dyn FnMut(&str),
) -> Option<String> {
    if agent.is_none() && (children.is_empty() || !names_a_child(content, children)) {
        return None;
    }
    let blocks = content_blocks(content)?;
    let mut calls = Vec::new();
    for (k, b) in blocks.iter().enumerate() {
        let Some(id) = b.get("tool_use_id").and_then(|v| v.as_str()) else { continue };
        let child = if k == 0 { agent } else { None }.or_else(|| {
            let inline = children.get(id).map(String::as_str);
            if inline.is_some() {
                named(id);
            }
            inline
        });
        if let Some(child) = child {
            calls.push(format!(
                r#"{{"toolUseId":{},"name":"Task","childSessionId":{}}}"#,
                rec::string(id),
                rec::string(child)
            ));
        }
    }
    (!calls.is_empty()).then(|| format!(r#""calls":[{}]"#, calls.join(",")))
}

/// Whether a `tool_use_id` in `content` may name one of `children`'s calls:
/// each id is read where its key is and looked up. A search of the content
/// for every child's id made reading a session quadratic in its inline runs
/// (3,000 Task runs took 0.3 s, 12,000 took 3.7 s). An id with an escape,
/// or a key not followed by a string, counts as a hit: the blocks are then
/// parsed and say.
fn names_a_child(content: &str, children: &HashMap<String, String>) -> bool {
    const KEY: &[u8] = b"\"tool_use_id\"";
    let bytes = content.as_bytes();
    let mut at = 0;
    while let Some(i) = bytes.get(at..).and_then(|rest| find(rest, KEY)) {
        let mut j = at + i + KEY.len();
        while matches!(bytes.get(j), Some(b' ' | b'\t' | b'\n' | b'\r' | b':')) {
            j += 1;
        }
        if bytes.get(j) != Some(&b'"') {
            return true;
        }
        let rest = bytes.get(j + 1..).unwrap_or_default();
        let end = crate::bytes::find_quote_or_backslash(rest).unwrap_or(rest.len());
        if rest.get(end) != Some(&b'"')
            || content.get(j + 1..j + 1 + end).is_some_and(|id| children.contains_key(id))
        {
            return true;
        }
        at = j + 1 + end;
    }
    false
}

#[cfg(test)]
#[path = "claude_child_tests.rs"]
mod tests;
