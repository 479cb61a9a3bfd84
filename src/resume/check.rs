//! `checkMessages`: the history rules for which the Anthropic Messages API
//! answers 400, checked before a request is sent (spec §6 rule 5).

use super::ids::Ids;
use super::message::{Block, Kind, Msg, Role};
use std::collections::HashSet;

/// Which rule of the Messages API a history breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProblemKind {
    NoMessages,
    NotAMessage,
    FirstNotUser,
    ToolUseUnanswered,
    ToolUseDuplicate,
    ToolResultOrphan,
    ToolResultNotFirst,
    ToolResultDuplicate,
    EmptyContent,
    EmptyText,
    ThinkingUnsigned,
    ThinkingMissing,
    BadBlock,
    ThinkingRedacted,
}

impl ProblemKind {
    pub const ALL: [ProblemKind; 14] = [
        ProblemKind::NoMessages,
        ProblemKind::NotAMessage,
        ProblemKind::FirstNotUser,
        ProblemKind::ToolUseUnanswered,
        ProblemKind::ToolUseDuplicate,
        ProblemKind::ToolResultOrphan,
        ProblemKind::ToolResultNotFirst,
        ProblemKind::ToolResultDuplicate,
        ProblemKind::EmptyContent,
        ProblemKind::EmptyText,
        ProblemKind::ThinkingUnsigned,
        ProblemKind::ThinkingMissing,
        ProblemKind::BadBlock,
        ProblemKind::ThinkingRedacted,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ProblemKind::NoMessages => "no-messages",
            ProblemKind::NotAMessage => "not-a-message",
            ProblemKind::FirstNotUser => "first-not-user",
            ProblemKind::ToolUseUnanswered => "tool-use-unanswered",
            ProblemKind::ToolUseDuplicate => "tool-use-duplicate",
            ProblemKind::ToolResultOrphan => "tool-result-orphan",
            ProblemKind::ToolResultNotFirst => "tool-result-not-first",
            ProblemKind::ToolResultDuplicate => "tool-result-duplicate",
            ProblemKind::EmptyContent => "empty-content",
            ProblemKind::EmptyText => "empty-text",
            ProblemKind::ThinkingUnsigned => "thinking-unsigned",
            ProblemKind::ThinkingMissing => "thinking-missing",
            ProblemKind::BadBlock => "bad-block",
            ProblemKind::ThinkingRedacted => "thinking-redacted",
        }
    }
}

/// One rule a history breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Index of the message in the checked list.
    pub index: usize,
    pub kind: ProblemKind,
    pub message: String,
}

impl Problem {
    pub fn to_json(&self) -> String {
        format!(
            r#"{{"index":{},"kind":"{}","message":{}}}"#,
            self.index,
            self.kind.as_str(),
            crate::json_str::str_literal(&self.message)
        )
    }
}

fn problem(index: usize, kind: ProblemKind, message: String) -> Problem {
    Problem { index, kind, message }
}

/// Checks a history. `thinking`: whether the request enables thinking.
pub fn check(messages: &[Msg], thinking: bool) -> Vec<Problem> {
    check_part(messages, thinking, 0, messages.len(), &mut HashSet::new())
}

/// `check` on `messages`, the part of a history of `total` messages that
/// starts at index `base` (problems are named by their index in the whole).
/// The rules are local: a part cut just before an assistant message, and
/// holding the user messages that follow its own last one, is judged as the
/// whole would judge those messages (the doctor checks a long history so, a
/// part at a time, to hold a little of it at once). One rule is not local:
/// a tool_use id is unique in the whole request, so `uses` carries the ids
/// of the parts before this one (empty for the first).
pub(crate) fn check_part(
    messages: &[Msg],
    thinking: bool,
    base: usize,
    total: usize,
    uses: &mut HashSet<String>,
) -> Vec<Problem> {
    let mut out = Vec::new();
    match messages.first() {
        None if total == 0 => out.push(problem(0, ProblemKind::NoMessages, "there are no messages".into())),
        Some(m) if base == 0 && m.role != Role::User => {
            out.push(problem(0, ProblemKind::FirstNotUser, "the first message must be from the user".into()))
        }
        _ => {}
    }
    // The whole's last message, as an index of this part (none: not in it).
    let last = total.saturating_sub(1).wrapping_sub(base);
    // The current run of user messages (one turn to the API): the tool
    // calls of the assistant message before it, and whether a message of
    // the run already held other content. Kept as the loop goes, so the
    // check is linear (it looked back over the run at every message).
    let mut asked: Ids<&str> = Ids::default();
    // The calls the run answered so far: the API takes one result per call
    // ("each tool_use must have a single result. Found multiple
    // `tool_result` blocks with id"), across the run's messages too.
    let mut answered: Ids<&str> = Ids::default();
    let mut seen_other = false;
    let mut in_run = false;
    for (at, m) in messages.iter().enumerate() {
        let i = base + at;
        if m.blocks.is_empty() && !(at == last && m.role == Role::Assistant) {
            out.push(problem(i, ProblemKind::EmptyContent, format!("message {i} has empty content")));
        }
        for (j, b) in m.blocks.iter().enumerate() {
            if let Some(why) = b.fault.or_else(|| misplaced(m.role, b)) {
                out.push(problem(i, ProblemKind::BadBlock, format!("message {i}, block {j}: {why}")));
                continue;
            }
            if b.kind == Kind::Text && b.blank {
                out.push(problem(
                    i,
                    ProblemKind::EmptyText,
                    format!("message {i}, block {j}: a text block is empty"),
                ));
            }
            if b.kind == Kind::Thinking && b.signed && b.legacy_redacted {
                // repairThinking: the signature was made over the text
                // before the Redactor changed it.
                out.push(problem(
                    i,
                    ProblemKind::ThinkingRedacted,
                    format!("message {i}, block {j}: a thinking block whose text was redacted keeps its signature (the API refuses it: the block is bound to a different conversation)"),
                ));
            }
            if b.kind == Kind::Thinking && !b.signed {
                out.push(problem(
                    i,
                    ProblemKind::ThinkingUnsigned,
                    format!("message {i}, block {j}: a thinking block has no signature"),
                ));
            }
        }
        match m.role {
            Role::Assistant => {
                in_run = false;
                let calls: Vec<&str> = m.tool_use_ids().collect();
                // "`tool_use` ids must be unique" (the API's 400), across
                // the whole history: an id reused in a later turn too.
                for &id in &calls {
                    if !uses.insert(id.to_owned()) {
                        out.push(problem(
                            i,
                            ProblemKind::ToolUseDuplicate,
                            format!(
                                "message {i}: tool_use id {id} is used before (the API takes each id once)"
                            ),
                        ));
                    }
                }
                if calls.is_empty() {
                    continue;
                }
                // The API joins consecutive user messages into one turn: a
                // partial result message and the one closeOpenToolCalls
                // wrote after it answer the call together.
                let answered: Ids<&str> = messages[at + 1..]
                    .iter()
                    .take_while(|next| next.role == Role::User)
                    .flat_map(|next| next.tool_result_ids())
                    .collect();
                for id in calls {
                    if !answered.contains(id) {
                        out.push(problem(
                            i,
                            ProblemKind::ToolUseUnanswered,
                            format!("message {i}: tool_use {id} has no tool_result in the next message"),
                        ));
                    }
                }
            }
            Role::User => {
                // The assistant message before this run of user messages
                // (they are one turn to the API), and whether an earlier
                // message of the run already held other content.
                if !in_run {
                    in_run = true;
                    seen_other = false;
                    answered = Ids::default();
                    asked = match at.checked_sub(1).and_then(|p| messages.get(p)) {
                        Some(prev) if prev.role == Role::Assistant => prev.tool_use_ids().collect(),
                        _ => Ids::default(),
                    };
                }
                for b in &m.blocks {
                    if b.kind != Kind::ToolResult {
                        seen_other = true;
                        continue;
                    }
                    let id = b.id.as_deref().unwrap_or("");
                    if !asked.contains(id) {
                        out.push(problem(
                            i,
                            ProblemKind::ToolResultOrphan,
                            format!("message {i}: tool_result for {id:?} answers no tool_use of the previous message"),
                        ));
                    }
                    if asked.contains(id) && answered.contains(id) {
                        out.push(problem(
                            i,
                            ProblemKind::ToolResultDuplicate,
                            format!("message {i}: tool_use {id} has more than one tool_result (the API takes one)"),
                        ));
                    }
                    answered.insert(id);
                    if seen_other {
                        out.push(problem(
                            i,
                            ProblemKind::ToolResultNotFirst,
                            format!("message {i}: tool_result blocks must come before other content"),
                        ));
                    }
                }
            }
        }
    }
    // The unfinished tool loop is the whole's end: only its last part has it.
    if thinking && base + messages.len() == total {
        if let Some(at) = open_tool_loop(messages) {
            let i = base + at;
            let starts = messages[at].blocks.first().is_some_and(|b| b.is_thinking());
            if !starts {
                out.push(problem(
                    i,
                    ProblemKind::ThinkingMissing,
                    format!("message {i}: with thinking on, the assistant message of the unfinished tool loop must start with a thinking block"),
                ));
            }
        }
    }
    out
}

/// A block the API takes only in the other role's messages.
pub fn misplaced(role: Role, b: &Block) -> Option<&'static str> {
    match (role, b.kind) {
        (Role::User, Kind::ToolUse) => Some("a user message cannot hold a tool_use block"),
        (Role::User, Kind::Thinking | Kind::RedactedThinking) => Some("a user message cannot hold thinking"),
        (Role::Assistant, Kind::ToolResult) => Some("an assistant message cannot hold a tool_result block"),
        _ => None,
    }
}

/// The assistant message of a tool loop the next request continues: the
/// history ends with tool results answering it.
pub fn open_tool_loop(messages: &[Msg]) -> Option<usize> {
    let last = messages.last()?;
    let i = messages.len().checked_sub(2)?;
    let prev = &messages[i];
    let loop_open = last.role == Role::User
        && last.blocks.first().is_some_and(|b| b.kind == Kind::ToolResult)
        && prev.role == Role::Assistant
        && prev.tool_use_ids().next().is_some();
    loop_open.then_some(i)
}

#[cfg(test)]
#[path = "check_tests.rs"]
mod tests;
