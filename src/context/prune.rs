//! `pruneOldToolOutputs`: older tool results give way to short placeholders
//! that say how to get the data back, and the most recent turns stay as
//! they are (the seed `001_dbd289b3f56b60c7.txt`, jcode's
//! PruneOldToolOutputs, "placeholder compression"; 2 turns by default).
//!
//! Rules, and where each comes from:
//! - A turn starts at a user message with anything but tool results in it
//!   (a prompt); the last `protect_turns` turns are kept whole (the seed).
//! - A pruned result keeps its `tool_use_id` and `is_error`, so every
//!   `tool_use`/`tool_result` pair stays (the API's history rules, spec §6
//!   rule 5). Its whole content goes, images and documents too.
//! - The API binds a thinking block's signature to everything before it
//!   (spec §6 rule 3), so from the first pruned message on every thinking
//!   block is dropped, as after redaction. An assistant message left with
//!   nothing is given a short text block, never sent empty.
//! - A history that ends in an open tool loop whose assistant message is
//!   signed thinking is not pruned at all: the API needs that thinking, and
//!   pruning before it would break its signature. Prune at compaction
//!   points, once the new prompt is in the history (no loop is open then).
//! - A placeholder is never pruned again, so pruning twice is pruning once.

#![forbid(unsafe_code)]

use crate::json_str::{push_str_literal, str_literal};
use crate::record::MessageParts;
use crate::resume::message::{Block, Kind, Msg, Role};

/// What every placeholder starts with (and how one is known again).
pub const PLACEHOLDER_PREFIX: &str = "[Output of ";
pub const PLACEHOLDER_MARK: &str = ") pruned to keep the context small.";

/// About how many tokens an image costs the API (its documentation: a
/// 1.15 megapixel image is about 1,600 tokens, the most before scaling).
const IMAGE_TOKENS: usize = 1600;

#[derive(Debug, Clone, Default)]
pub struct PruneOptions {
    pub protect_turns: usize,
    /// Where a tool call's full output is kept (`keepFullOutput`), as
    /// (call id, place) pairs in any order. (A list, not a map: a map type
    /// of its own cost the wasm module 4 KB.)
    pub kept: Vec<(String, String)>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pruned {
    /// The messages that changed, by index, as JSON text; the rest stay.
    pub replaced: Vec<(usize, String)>,
    /// Tool results replaced by placeholders.
    pub results: usize,
    /// Thinking blocks dropped after the first pruned message.
    pub thinking_dropped: usize,
    /// Bytes of content the placeholders took the place of, less theirs.
    pub saved_bytes: usize,
    /// An estimate: 4 bytes a token for text, `IMAGE_TOKENS` an image.
    pub saved_tokens: usize,
    /// Why nothing was pruned though something was old enough, or None.
    pub skipped: Option<&'static str>,
}

impl Pruned {
    /// The report as the JS surface gives it (`PruneReport`).
    pub fn report_json(&self) -> String {
        format!(
            r#"{{"prunedResults":{},"thinkingDropped":{},"savedBytes":{},"savedTokens":{},"skipped":{}}}"#,
            self.results,
            self.thinking_dropped,
            self.saved_bytes,
            self.saved_tokens,
            self.skipped.map_or("null".to_owned(), str_literal)
        )
    }
}

/// The placeholder for one pruned result.
pub fn placeholder(tool: &str, id: &str, kept: Option<&str>) -> String {
    let how = match kept {
        Some(at) => format!("The full output is kept at {at}: read it from there if you need it again."),
        None => "Run the tool again if you need its output.".to_owned(),
    };
    format!("{PLACEHOLDER_PREFIX}{tool} (call {id}{PLACEHOLDER_MARK} {how}]")
}

/// What pruning needs to know of one block: a JSON text's or a JS object's.
#[derive(Debug, Clone, Copy)]
pub struct BlockView<'a> {
    pub kind: Kind,
    /// `id` of a tool_use, `tool_use_id` of a tool_result.
    pub id: Option<&'a str>,
    /// A tool_use's `name`.
    pub name: Option<&'a str>,
    /// A tool_result's content size (bytes of JSON, or characters), and
    /// whether it has any: an absent or empty content is left alone.
    pub size: usize,
    pub images: usize,
    /// A tool_result whose content is already a placeholder.
    pub placeholder: bool,
}

#[derive(Debug, Clone)]
pub struct MessageView<'a> {
    pub role: Role,
    pub blocks: Vec<BlockView<'a>>,
}

/// What to change: (message, block) positions.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// Tool results whose content becomes the placeholder text.
    pub replace: Vec<(usize, usize, String)>,
    /// Thinking blocks to drop.
    pub drop: Vec<(usize, usize)>,
    /// Assistant messages that dropping leaves empty: they get one short text block.
    pub fill: Vec<usize>,
}

/// The pruning decisions for a history (None for a message that is not one).
pub fn plan(msgs: &[Option<MessageView>], options: &PruneOptions, out: &mut Pruned) -> Plan {
    let mut plan = Plan::default();
    let Some(cut) = protected_from(msgs, options.protect_turns) else { return plan };
    if ends_in_signed_loop(msgs) {
        out.skipped =
            Some("the history ends in an open tool loop with thinking: prune once the next prompt is added");
        return plan;
    }
    // Id to index into `kept`: the map type the state's child debits use
    // already, so no new one is compiled into the module.
    // (Inserted one by one: `collect` would sort, and compile a sort.)
    let mut index = std::collections::BTreeMap::<String, u64>::new();
    for (i, (id, _)) in options.kept.iter().enumerate() {
        index.insert(id.clone(), i as u64);
    }
    let kept_at = |id: &str| index.get(id).map(|&i| options.kept[i as usize].1.as_str());
    // A result answers the assistant message just before it (spec §6): its
    // calls' names are all a placeholder needs.
    let mut names: Vec<(&str, &str)> = Vec::new();
    let mut first_pruned: Option<usize> = None;
    for (i, m) in msgs.iter().enumerate().take(cut) {
        let Some(m) = m else { continue };
        if m.role == Role::Assistant {
            names.clear();
            names.extend(
                m.blocks.iter().filter(|b| b.kind == Kind::ToolUse).filter_map(|b| Some((b.id?, b.name?))),
            );
            continue;
        }
        for (j, b) in m.blocks.iter().enumerate().filter(|(_, b)| b.kind == Kind::ToolResult) {
            if b.placeholder {
                continue;
            }
            let id = b.id.unwrap_or_default();
            let tool = names.iter().find(|(k, _)| *k == id).map_or("a tool", |(_, n)| n);
            let text = placeholder(tool, id, kept_at(id));
            // Only where the placeholder is shorter than what it replaces.
            if b.size <= text.len() + 2 && b.images == 0 {
                continue;
            }
            let saved = b.size.saturating_sub(text.len() + 2);
            out.results += 1;
            out.saved_bytes += saved;
            out.saved_tokens += saved / 4 + b.images * IMAGE_TOKENS;
            plan.replace.push((i, j, text));
            first_pruned.get_or_insert(i);
        }
    }
    let Some(first) = first_pruned else { return plan };
    for (i, m) in msgs.iter().enumerate().skip(first + 1) {
        let Some(m) = m.as_ref().filter(|m| m.role == Role::Assistant) else { continue };
        let thinking: Vec<usize> = (0..m.blocks.len())
            .filter(|&j| matches!(m.blocks[j].kind, Kind::Thinking | Kind::RedactedThinking))
            .collect();
        if thinking.len() == m.blocks.len() && !thinking.is_empty() {
            plan.fill.push(i);
        }
        out.thinking_dropped += thinking.len();
        plan.drop.extend(thinking.into_iter().map(|j| (i, j)));
    }
    plan
}

/// The text a message pruning left empty gets (never sent empty).
pub const THINKING_LEFT_OUT: &str = "(thinking left out)";

/// `pruneOldToolOutputs` over messages as JSON text: the changed ones come
/// back as JSON text too.
pub fn prune_old_tool_outputs(messages: &[&str], options: &PruneOptions) -> Pruned {
    let mut out = Pruned::default();
    let mut msgs: Vec<Option<Msg>> =
        messages.iter().enumerate().map(|(i, m)| Msg::parse(m, Default::default(), Some(i))).collect();
    let heads: Vec<Vec<(usize, usize, bool)>> = msgs
        .iter()
        .map(|m| m.as_ref().map_or_else(Vec::new, |m| m.blocks.iter().map(content_facts).collect()))
        .collect();
    let views: Vec<Option<MessageView>> = msgs
        .iter()
        .zip(&heads)
        .map(|(m, facts)| {
            m.as_ref().map(|m| MessageView {
                role: m.role,
                blocks: m
                    .blocks
                    .iter()
                    .zip(facts)
                    .map(|(b, &(size, images, placeholder))| BlockView {
                        kind: b.kind,
                        id: b.id.as_deref(),
                        name: b.name.as_deref(),
                        size,
                        images,
                        placeholder,
                    })
                    .collect(),
            })
        })
        .collect();
    let plan = plan(&views, options, &mut out);
    drop(views);
    for (i, j, text) in &plan.replace {
        if let Some(m) = msgs[*i].as_mut() {
            if let Some(json) = replace_content(&m.blocks[*j].json, text) {
                m.blocks[*j].json = json;
                m.changed = true;
            }
        }
    }
    // Drops from the last block back, so earlier positions stay right.
    for (i, j) in plan.drop.iter().rev() {
        if let Some(m) = msgs[*i].as_mut() {
            m.blocks.remove(*j);
            m.changed = true;
        }
    }
    for i in &plan.fill {
        if let Some(m) = msgs[*i].as_mut() {
            m.blocks.push(Block::text(THINKING_LEFT_OUT));
        }
    }
    out.replaced = msgs
        .iter()
        .enumerate()
        .filter_map(|(i, m)| m.as_ref().filter(|m| m.changed).map(|m| (i, m.to_json())))
        .collect();
    out
}

/// A block's content size (JSON bytes), images, and whether it is a placeholder.
fn content_facts(b: &Block) -> (usize, usize, bool) {
    if b.kind != Kind::ToolResult {
        return (0, 0, false);
    }
    let Ok(parts) = serde_json::from_str::<MessageParts>(&b.json) else { return (0, 0, false) };
    let Some(content) = parts.get("content") else { return (0, 0, false) };
    let raw = content.get();
    let placeholder = crate::resume::message::string(Some(content))
        .is_some_and(|s| s.starts_with(PLACEHOLDER_PREFIX) && s.contains(PLACEHOLDER_MARK));
    let images = raw.matches(r#""type":"image""#).count() + raw.matches(r#""type": "image""#).count();
    (raw.len(), images, placeholder)
}

/// The index of the first message of the protected turns, or None when
/// there are no older messages than them.
fn protected_from(msgs: &[Option<MessageView>], turns: usize) -> Option<usize> {
    if turns == 0 {
        return Some(msgs.len());
    }
    let mut seen = 0;
    for (i, m) in msgs.iter().enumerate().rev() {
        let Some(m) = m else { continue };
        if m.role == Role::User && m.blocks.iter().any(|b| b.kind != Kind::ToolResult) {
            seen += 1;
            if seen == turns {
                return (i > 0).then_some(i);
            }
        }
    }
    // Fewer prompts than protected turns: everything is recent.
    None
}

fn ends_in_signed_loop(msgs: &[Option<MessageView>]) -> bool {
    let (Some(Some(last)), Some(Some(prev))) = (msgs.last(), msgs.len().checked_sub(2).map(|i| &msgs[i]))
    else {
        return false;
    };
    last.role == Role::User
        && last.blocks.first().is_some_and(|b| b.kind == Kind::ToolResult)
        && prev.role == Role::Assistant
        && prev.blocks.iter().any(|b| b.kind == Kind::ToolUse)
        && prev.blocks.iter().any(|b| matches!(b.kind, Kind::Thinking | Kind::RedactedThinking))
}

/// The block's JSON with its content replaced by `text` (fields in their order).
fn replace_content(block: &str, text: &str) -> Option<String> {
    let parts: MessageParts = serde_json::from_str(block).ok()?;
    let mut out = String::with_capacity(text.len() + 128);
    out.push('{');
    for (i, (key, value)) in parts.fields().iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_str_literal(&mut out, key);
        out.push(':');
        if key == "content" {
            push_str_literal(&mut out, text);
        } else {
            out.push_str(value.get());
        }
    }
    out.push('}');
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resume::check_messages;

    fn user(text: &str) -> String {
        format!(r#"{{"role":"user","content":{}}}"#, str_literal(text))
    }
    fn call(id: &str, name: &str, thinking: bool) -> String {
        let t = if thinking { r#"{"type":"thinking","thinking":"hmm","signature":"sig"},"# } else { "" };
        format!(
            r#"{{"role":"assistant","content":[{t}{{"type":"tool_use","id":"{id}","name":"{name}","input":{{}}}}]}}"#
        )
    }
    fn result(id: &str, output: &str) -> String {
        format!(
            r#"{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"{id}","content":{}}}]}}"#,
            str_literal(output)
        )
    }
    fn answer(text: &str) -> String {
        format!(r#"{{"role":"assistant","content":[{{"type":"text","text":{}}}]}}"#, str_literal(text))
    }

    fn history(turns: usize, thinking: bool) -> Vec<String> {
        let mut h = Vec::new();
        for t in 0..turns {
            h.push(user(&format!("prompt {t}")));
            h.push(call(&format!("toolu_{t}"), "Bash", thinking));
            h.push(result(&format!("toolu_{t}"), &"output line\n".repeat(100)));
            h.push(answer("done"));
        }
        h
    }

    fn apply(h: &[String], p: &Pruned) -> Vec<String> {
        let mut out = h.to_vec();
        for (i, json) in &p.replaced {
            out[*i] = json.clone();
        }
        out
    }

    fn prune(h: &[String], turns: usize) -> Pruned {
        let refs: Vec<&str> = h.iter().map(String::as_str).collect();
        prune_old_tool_outputs(&refs, &PruneOptions { protect_turns: turns, ..Default::default() })
    }

    #[test]
    fn results_before_the_protected_turns_become_placeholders() {
        let h = history(4, false);
        let p = prune(&h, 2);
        assert_eq!(p.results, 2);
        assert_eq!(p.replaced.iter().map(|r| r.0).collect::<Vec<_>>(), [2, 6]);
        let out = apply(&h, &p);
        let v: serde_json::Value = serde_json::from_str(&out[2]).unwrap();
        let content = v["content"][0]["content"].as_str().unwrap();
        assert!(content.starts_with("[Output of Bash (call toolu_0) pruned"), "{content}");
        assert!(content.contains("Run the tool again"));
        assert_eq!(v["content"][0]["tool_use_id"], "toolu_0");
        assert_eq!(out[10], h[10], "the protected turns stay byte for byte");
        assert!(p.saved_bytes > 2000 && p.saved_tokens == p.saved_bytes / 4);
        assert!(check_messages(&out, false).is_empty());
    }

    #[test]
    fn pruning_twice_is_pruning_once_and_kept_outputs_are_named() {
        let h = history(3, false);
        let refs: Vec<&str> = h.iter().map(String::as_str).collect();
        let kept = vec![("toolu_0".to_owned(), ".garuda/sessions/s/outputs/toolu_0.txt".to_owned())];
        let p = prune_old_tool_outputs(&refs, &PruneOptions { protect_turns: 1, kept });
        let out = apply(&h, &p);
        assert!(out[2].contains("kept at .garuda/sessions/s/outputs/toolu_0.txt"));
        assert_eq!(prune(&out, 1).replaced, []);
    }

    #[test]
    fn fewer_turns_than_protected_prune_nothing() {
        assert_eq!(prune(&history(2, false), 2), Pruned::default());
        assert_eq!(prune(&history(1, false), 5), Pruned::default());
        assert_eq!(prune(&[], 2), Pruned::default());
    }

    #[test]
    fn thinking_after_the_first_pruned_message_is_dropped() {
        let h = history(3, true);
        let p = prune(&h, 1);
        let out = apply(&h, &p);
        assert!(out[1].contains("thinking"), "thinking before the first pruned result stays");
        assert!(!out[5].contains(r#""thinking""#) && !out[9].contains(r#""thinking""#));
        assert_eq!(p.thinking_dropped, 2);
        assert!(check_messages(&out, true).is_empty(), "{:?}", check_messages(&out, true));
    }

    #[test]
    fn an_open_signed_tool_loop_is_not_pruned() {
        let mut h = history(3, true);
        h.push(user("prompt 3"));
        h.push(call("toolu_9", "Bash", true));
        h.push(result("toolu_9", "x"));
        let p = prune(&h, 1);
        assert!(p.replaced.is_empty() && p.skipped.is_some());
    }

    #[test]
    fn images_in_results_go_and_count() {
        let img = r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_0","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="}}],"is_error":false}]}"#;
        let mut h = history(2, false);
        h[2] = img.to_owned();
        let p = prune(&h, 1);
        let out = apply(&h, &p);
        assert!(!out[2].contains("image/png") && out[2].contains(r#""is_error":false"#));
        assert!(p.saved_tokens >= IMAGE_TOKENS);
    }
}
