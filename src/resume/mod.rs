//! Resume (spec §6): the messages to send after a resume, repaired so the
//! API accepts them, and a report of every repair.
//!
//! The rules, in order:
//! 1. thinking: a model switch drops the thinking before it (all of it when
//!    resuming with another model); thinking `off` drops all; from the first
//!    redacted record on, thinking goes (dropThinkingAfterRedaction); a
//!    thinking text with a legacy `[REDACTED]` goes with every later one
//!    (repairThinking); a thinking block without a signature goes;
//! 2. shape: blank text blocks, empty messages and thinking-only assistant
//!    messages in mid-history go; adjacent messages of one role merge; a
//!    history that starts with the assistant gets a short user note first;
//!    a reused tool_use id is renamed (with its result);
//! 3. open tool calls get an error result (`closeOpenToolCalls`' content);
//!    a tool_result that answers nothing becomes a text block saying what
//!    it held; tool results move before other content;
//! 4. a repair changes the content that later signatures were made over, so
//!    thinking from the first repaired message on goes too;
//! 5. with thinking on, an unfinished tool loop whose assistant message does
//!    not start with thinking is written out as text (it cannot be signed).

mod check;
mod ids;
pub(crate) mod message;
mod unique_ids;
pub mod view;

use crate::json_str::str_literal;
use crate::state::{Message, SessionState};
pub use check::{Problem, ProblemKind};
use message::{Block, Kind, Msg, Role};
use std::collections::HashSet;

/// The content of a result for a call that never finished.
pub const INTERRUPTED: &str = "[Interrupted before result was recorded]";
/// The note before a history that starts with the assistant.
pub const LOST_START: &str = "[The start of this conversation was lost; it continues from here.]";

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ResumeOptions {
    /// The model the session resumes with.
    pub model: Option<String>,
    /// Whether the next request enables thinking; None: unknown.
    pub thinking: Option<bool>,
}

/// Why resume left a thinking block out (spec §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DropReason {
    /// A model switch came after it (or the session resumes with another model).
    ModelSwitch,
    /// The next request has thinking off.
    ThinkingOff,
    /// It is in or after the first record the Redactor changed.
    RedactedRecord,
    /// Its text holds a `[REDACTED]` from before the marker, or it comes after one.
    LegacyRedacted,
    /// It has no signature.
    Unsigned,
    /// It was all an assistant message held, in mid-history.
    ThinkingOnly,
    /// It comes after a repair changed what its signature covered.
    AfterRepair,
}

impl DropReason {
    pub const ALL: [DropReason; 7] = [
        DropReason::ModelSwitch,
        DropReason::ThinkingOff,
        DropReason::RedactedRecord,
        DropReason::LegacyRedacted,
        DropReason::Unsigned,
        DropReason::ThinkingOnly,
        DropReason::AfterRepair,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            DropReason::ModelSwitch => "model-switch",
            DropReason::ThinkingOff => "thinking-off",
            DropReason::RedactedRecord => "redacted-record",
            DropReason::LegacyRedacted => "legacy-redacted",
            DropReason::Unsigned => "unsigned",
            DropReason::ThinkingOnly => "thinking-only",
            DropReason::AfterRepair => "after-repair",
        }
    }
}

/// A thinking block resume left out, and why.
#[derive(Debug, Clone, PartialEq)]
pub struct Dropped {
    /// Index of the message in the state.
    pub message: usize,
    /// Index of the block in that message.
    pub block: usize,
    pub reason: DropReason,
}

/// What became of a block the API would refuse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockFix {
    /// Left out: nothing in it could be kept (`null`, a number, an image
    /// with no source, thinking in a user message).
    Dropped,
    /// Turned into a text block that keeps what it said (a malformed tool
    /// call, a result without its id, a text whose `text` is not a string).
    Mended,
}

impl BlockFix {
    pub fn as_str(self) -> &'static str {
        match self {
            BlockFix::Dropped => "dropped",
            BlockFix::Mended => "mended",
        }
    }
}

/// A block whose shape the API refuses, where it was, and what resume did.
#[derive(Debug, Clone, PartialEq)]
pub struct BadBlock {
    /// Index of the message in the state.
    pub message: usize,
    /// Index of the block in that message.
    pub block: usize,
    /// The journal line of the message's record (0 when unknown).
    pub line: u64,
    pub problem: &'static str,
    pub fix: BlockFix,
}

/// What resume changed, for the agent's log and the viewer.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RepairReport {
    /// Thinking blocks left out (also counted by reason below).
    pub dropped: Vec<Dropped>,
    /// Tool calls answered with an interrupted result.
    pub tool_calls_answered: Vec<String>,
    pub messages_removed: usize,
    pub messages_merged: usize,
    pub orphan_results_to_text: usize,
    pub results_moved_first: usize,
    pub blank_text_removed: usize,
    pub tool_use_ids_renamed: usize,
    pub leading_note_added: bool,
    pub tool_loop_to_text: bool,
    /// Blocks whose shape the API refuses, each dropped or mended.
    pub bad_blocks: Vec<BadBlock>,
    /// Messages replay could not carry (too deep): a note stood in for each.
    pub messages_dropped_at_replay: usize,
    /// Rules the result still breaks: empty unless resume has a bug.
    pub remaining: Vec<Problem>,
    /// Messages left out whole because they are no message the API takes
    /// (an unknown role, no content): (index in the state, journal line,
    /// why). Also counted in `messages_removed`.
    pub not_messages: Vec<(usize, u64, &'static str)>,
    /// Whether the repair took the next request to enable thinking (the
    /// options', else the session's own choice; None: unknown).
    pub thinking: Option<bool>,
}

impl RepairReport {
    pub fn dropped_for(&self, reason: DropReason) -> usize {
        self.dropped.iter().filter(|d| d.reason == reason).count()
    }

    pub fn to_json(&self) -> String {
        let counts: Vec<String> =
            DropReason::ALL.iter().map(|&r| format!(r#""{}":{}"#, r.as_str(), self.dropped_for(r))).collect();
        let dropped: Vec<String> = self
            .dropped
            .iter()
            .map(|d| {
                format!(r#"{{"message":{},"block":{},"reason":"{}"}}"#, d.message, d.block, d.reason.as_str())
            })
            .collect();
        let answered: Vec<String> = self.tool_calls_answered.iter().map(|id| str_literal(id)).collect();
        let remaining: Vec<String> = self.remaining.iter().map(Problem::to_json).collect();
        let bad: Vec<String> = self
            .bad_blocks
            .iter()
            .map(|b| {
                format!(
                    r#"{{"message":{},"block":{},"line":{},"problem":{},"fix":"{}"}}"#,
                    b.message,
                    b.block,
                    b.line,
                    str_literal(b.problem),
                    b.fix.as_str()
                )
            })
            .collect();
        let count = |fix| self.bad_blocks.iter().filter(|b| b.fix == fix).count();
        let not_messages: Vec<String> = self
            .not_messages
            .iter()
            .map(|(message, line, why)| {
                format!(r#"{{"message":{message},"line":{line},"problem":{}}}"#, str_literal(why))
            })
            .collect();
        format!(
            r#"{{"thinkingDropped":{{{}}},"dropped":[{}],"toolCallsAnswered":[{}],"messagesRemoved":{},"messagesMerged":{},"orphanResultsToText":{},"resultsMovedFirst":{},"blankTextRemoved":{},"toolUseIdsRenamed":{},"leadingNoteAdded":{},"toolLoopToText":{},"blocksDropped":{},"blocksMended":{},"badBlocks":[{}],"messagesDroppedAtReplay":{},"remaining":[{}],"notMessages":[{}],"thinking":{}}}"#,
            counts.join(","),
            dropped.join(","),
            answered.join(","),
            self.messages_removed,
            self.messages_merged,
            self.orphan_results_to_text,
            self.results_moved_first,
            self.blank_text_removed,
            self.tool_use_ids_renamed,
            self.leading_note_added,
            self.tool_loop_to_text,
            count(BlockFix::Dropped),
            count(BlockFix::Mended),
            bad.join(","),
            self.messages_dropped_at_replay,
            remaining.join(","),
            not_messages.join(","),
            self.thinking.map_or("null", |t| if t { "true" } else { "false" })
        )
    }
}

/// The resumed history and its report.
#[derive(Debug, Clone)]
pub struct Resumed {
    messages: Vec<Msg>,
    pub report: RepairReport,
}

impl Resumed {
    pub fn messages_json(&self) -> Vec<String> {
        self.messages.iter().map(Msg::to_json).collect()
    }

    pub fn to_json(&self) -> String {
        format!(r#"{{"messages":[{}],"report":{}}}"#, self.messages_json().join(","), self.report.to_json())
    }
}

/// `resumeMessages` for a replayed state.
pub fn resume(state: &SessionState, options: &ResumeOptions) -> Resumed {
    resume_messages(&state.messages, state.model.as_deref(), state.epoch, options)
}

/// `resumeMessages` from the parts of a state (what the JS side hands in).
pub fn resume_messages(
    messages: &[Message],
    model: Option<&str>,
    epoch: u32,
    options: &ResumeOptions,
) -> Resumed {
    let (mut msgs, mut report) = repair(messages, model, epoch, options);
    finish(&mut msgs, &mut report, options.thinking == Some(true));
    Resumed { messages: msgs, report }
}

/// Every repair but the last step (`finish`): the live view takes out the
/// answers it leaves to the journal between the two.
fn repair(
    messages: &[Message],
    model: Option<&str>,
    epoch: u32,
    options: &ResumeOptions,
) -> (Vec<Msg>, RepairReport) {
    let mut report = RepairReport { thinking: options.thinking, ..RepairReport::default() };
    let mut msgs: Vec<Msg> = Vec::with_capacity(messages.len() + 1);
    for (i, m) in messages.iter().enumerate() {
        if m.origin.dropped {
            report.messages_dropped_at_replay += 1;
        }
        match Msg::parse(&m.json, m.origin, Some(i)) {
            Some(msg) => msgs.push(msg),
            None => {
                // Not a user or assistant message with content: nothing the
                // API could take. Reported, and later thinking is unbound.
                report.messages_removed += 1;
                report.not_messages.push((i, m.origin.line, message::why_not(&m.json)));
                if let Some(next) = msgs.last_mut() {
                    next.repaired = true;
                }
            }
        }
    }
    fix_blocks(&mut msgs, &mut report);
    thinking_rules(&mut msgs, model, epoch, options, &mut report);
    shape(&mut msgs, &mut report);
    rename_duplicate_ids(&mut msgs, &mut report);
    answer_open_calls(&mut msgs, &mut report);
    fix_results(&mut msgs, &mut report);
    shape(&mut msgs, &mut report);
    // Rule 4: thinking after a repair.
    if let Some(first) = msgs.iter().position(|m| m.repaired) {
        for m in &mut msgs[first..] {
            drop_thinking(m, DropReason::AfterRepair, &mut report);
        }
        shape(&mut msgs, &mut report);
    }
    (msgs, report)
}

/// The repair's last step, with thinking on: a tool loop whose thinking is
/// gone is written out as text; then what the API would still refuse.
fn finish(msgs: &mut [Msg], report: &mut RepairReport, thinking: bool) {
    if thinking {
        tool_loop_to_text(msgs, report);
    }
    // An empty history stays empty: the agent's next prompt starts it.
    if !msgs.is_empty() {
        report.remaining = check::check(msgs, thinking);
    }
}

/// Blocks of a shape the API refuses are mended into text when they said
/// something (a call, a result, a text) and dropped when not. Either way
/// the content changed, so later thinking is unbound (rule 4).
fn fix_blocks(msgs: &mut [Msg], report: &mut RepairReport) {
    for m in msgs.iter_mut() {
        let role = m.role;
        if m.blocks.iter().all(|b| b.fault.is_none() && check::misplaced(role, b).is_none()) {
            continue;
        }
        let (source, line) = (m.source.unwrap_or(0), m.origin.line);
        let mut kept = Vec::with_capacity(m.blocks.len());
        for b in m.blocks.drain(..) {
            let Some(problem) = b.fault.or_else(|| check::misplaced(role, &b)) else {
                kept.push(b);
                continue;
            };
            let mended = mend(&b);
            let fix = if mended.is_some() { BlockFix::Mended } else { BlockFix::Dropped };
            report.bad_blocks.push(BadBlock {
                message: source,
                block: b.at.unwrap_or(0),
                line,
                problem,
                fix,
            });
            if let Some(text) = mended {
                kept.push(Block { at: b.at, ..Block::text(&text) });
            }
        }
        m.blocks = kept;
        m.changed = true;
        m.repaired = true;
    }
}

/// The text that keeps what a refused block said, or None when it said
/// nothing worth keeping.
fn mend(b: &Block) -> Option<String> {
    let raw = |key: &str| b.field(key).map(|r| r.get().to_owned());
    match b.kind {
        Kind::ToolUse => Some(format!(
            "[A malformed call of tool {} ({}) with input {}]",
            b.name.as_deref().unwrap_or("?"),
            b.id.as_deref().unwrap_or("?"),
            raw("input").unwrap_or_else(|| "{}".into())
        )),
        Kind::ToolResult => {
            Some(format!("[Result of tool call {}:]\n{}", b.id.as_deref().unwrap_or("?"), b.result_text()))
        }
        Kind::Text => raw("text").filter(|t| t != "null"),
        Kind::Other => b.loose_text(),
        Kind::Thinking | Kind::RedactedThinking => None,
    }
    .filter(|t| !t.trim().is_empty())
}

fn drop_thinking(m: &mut Msg, reason: DropReason, report: &mut RepairReport) {
    drop_blocks(m, |b| b.is_thinking(), reason, report);
}

fn drop_blocks(m: &mut Msg, which: impl Fn(&Block) -> bool, reason: DropReason, report: &mut RepairReport) {
    let before = m.blocks.len();
    let source = m.source;
    m.blocks.retain(|b| {
        if !which(b) {
            return true;
        }
        if let (Some(message), Some(block)) = (source, b.at) {
            report.dropped.push(Dropped { message, block, reason });
        }
        false
    });
    if m.blocks.len() != before {
        m.changed = true;
    }
}

fn thinking_rules(
    msgs: &mut [Msg],
    model: Option<&str>,
    epoch: u32,
    options: &ResumeOptions,
    report: &mut RepairReport,
) {
    let other_model = options.model.as_deref().is_some_and(|m| Some(m) != model);
    for m in msgs.iter_mut() {
        if other_model || m.origin.epoch < epoch {
            drop_thinking(m, DropReason::ModelSwitch, report);
        }
        if options.thinking == Some(false) {
            drop_thinking(m, DropReason::ThinkingOff, report);
        }
    }
    if let Some(first) = msgs.iter().position(|m| m.origin.redacted) {
        for m in &mut msgs[first..] {
            drop_thinking(m, DropReason::RedactedRecord, report);
        }
    }
    if let Some(first) = msgs.iter().position(|m| m.blocks.iter().any(|b| b.legacy_redacted)) {
        if let Some(block) = msgs[first].blocks.iter().position(|b| b.legacy_redacted) {
            // The block and every thinking block after it.
            let source = msgs[first].source;
            let mut i = 0;
            msgs[first].blocks.retain(|b| {
                let drop = i >= block && b.is_thinking();
                if drop {
                    if let (Some(message), Some(at)) = (source, b.at) {
                        report.dropped.push(Dropped {
                            message,
                            block: at,
                            reason: DropReason::LegacyRedacted,
                        });
                    }
                }
                i += 1;
                !drop
            });
            msgs[first].changed = true;
            for m in &mut msgs[first + 1..] {
                drop_thinking(m, DropReason::LegacyRedacted, report);
            }
        }
    }
    for m in msgs.iter_mut() {
        if m.blocks.iter().any(|b| b.kind == Kind::Thinking && !b.signed) {
            drop_blocks(m, |b| b.kind == Kind::Thinking && !b.signed, DropReason::Unsigned, report);
            m.repaired = true;
        }
    }
}

/// Blank text blocks, empty messages, thinking-only messages in mid-history,
/// adjacent messages of one role, and a start that is not the user's.
fn shape(msgs: &mut Vec<Msg>, report: &mut RepairReport) {
    for m in msgs.iter_mut() {
        let before = m.blocks.len();
        m.blocks.retain(|b| !(b.kind == Kind::Text && b.blank));
        if m.blocks.len() != before {
            report.blank_text_removed += before - m.blocks.len();
            m.changed = true;
            m.repaired = true;
        }
    }
    let last = msgs.len().saturating_sub(1);
    for (i, m) in msgs.iter_mut().enumerate() {
        let thinking_only = !m.blocks.is_empty() && m.blocks.iter().all(Block::is_thinking);
        if m.role == Role::Assistant && thinking_only && i != last {
            // A response cut off while thinking: its thinking cannot stand
            // alone before the next user turn.
            drop_thinking(m, DropReason::ThinkingOnly, report);
            m.repaired = true;
        }
    }
    let mut out: Vec<Msg> = Vec::with_capacity(msgs.len());
    let mut repair_next = false;
    for mut m in msgs.drain(..) {
        if m.blocks.is_empty() {
            report.messages_removed += 1;
            repair_next = true;
            continue;
        }
        if repair_next {
            m.repaired = true;
            repair_next = false;
        }
        match out.last_mut() {
            Some(prev) if prev.role == m.role => {
                report.messages_merged += 1;
                if m.role == Role::Assistant {
                    // The second response's thinking was signed without the first.
                    drop_thinking(&mut m, DropReason::AfterRepair, report);
                    prev.repaired = true;
                }
                // Adjacent user messages are one turn to the API (it joins
                // them itself), so joining them changes no signed prefix.
                prev.repaired |= m.repaired;
                prev.blocks.append(&mut m.blocks);
                prev.changed = true;
            }
            _ => out.push(m),
        }
    }
    if out.first().is_some_and(|m| m.role == Role::Assistant) {
        out.insert(0, Msg::new(Role::User, vec![Block::text(LOST_START)]));
        report.leading_note_added = true;
    }
    *msgs = out;
}

/// A tool_use id used twice gets a new one, and so does the result that
/// answers the second use.
///
/// The content changed, but no thinking is unbound by it: the API refuses
/// a history with an id used twice, so a thinking block after the second
/// use was signed over the renamed history (a live view renames as it
/// goes) or never reached the API; and a block in the renamed response
/// comes before its calls, outside what its signature covers.
///
/// Ids given are a set (`UniqueIds`, shared with the live view's steps): a
/// list made this quadratic in tool calls (100k calls took 51 s to resume,
/// where replay takes under one).
fn rename_duplicate_ids(msgs: &mut [Msg], report: &mut RepairReport) {
    let mut ids = unique_ids::UniqueIds::default();
    for i in 0..msgs.len() {
        if msgs[i].role != Role::Assistant {
            continue;
        }
        let mut renames: Vec<(String, String, bool)> = Vec::new();
        // The ids this message was given so far, to know whether a reused
        // one was used first in this message or in an earlier one.
        let mut here: HashSet<String> = HashSet::new();
        for b in msgs[i].blocks.iter_mut().filter(|b| b.kind == Kind::ToolUse) {
            let Some(id) = b.id.clone() else { continue };
            match ids.give(&id) {
                Some(fresh) => {
                    renames.push((id.clone(), fresh.clone(), here.contains(&id)));
                    *b = Block { at: b.at, ..b.with_field("id", &str_literal(&fresh)) };
                    here.insert(fresh);
                }
                None => {
                    here.insert(id);
                }
            }
        }
        if renames.is_empty() {
            continue;
        }
        report.tool_use_ids_renamed += renames.len();
        msgs[i].changed = true;
        if let Some(next) = msgs.get_mut(i + 1).filter(|n| n.role == Role::User) {
            for (old, fresh, same_message) in renames {
                // With both uses in one message, the second result is the
                // duplicate's; otherwise the first result here is.
                let skip = usize::from(same_message);
                let target = next
                    .blocks
                    .iter()
                    .enumerate()
                    .filter(|(_, b)| b.kind == Kind::ToolResult && b.id.as_deref() == Some(old.as_str()))
                    .nth(skip)
                    .map(|(k, _)| k);
                if let Some(k) = target {
                    let b = &next.blocks[k];
                    next.blocks[k] = Block { at: b.at, ..b.with_field("tool_use_id", &str_literal(&fresh)) };
                    next.changed = true;
                }
            }
        }
    }
}

fn interrupted_result(id: &str) -> Block {
    Block::parse(&format!(
        r#"{{"type":"tool_result","tool_use_id":{},"content":{},"is_error":true}}"#,
        str_literal(id),
        str_literal(INTERRUPTED)
    ))
}

/// Rule 1: every tool_use is answered in the next message. (A new list is
/// built: an insert into the old one per unanswered call was quadratic.)
fn answer_open_calls(msgs: &mut Vec<Msg>, report: &mut RepairReport) {
    let mut fixed: Vec<Msg> = Vec::with_capacity(msgs.len() + 1);
    let mut rest = std::mem::take(msgs).into_iter().peekable();
    while let Some(m) = rest.next() {
        if m.role != Role::Assistant || m.tool_use_ids().next().is_none() {
            fixed.push(m);
            continue;
        }
        let open: Vec<String> = {
            let answered: ids::Ids<&str> = match rest.peek() {
                Some(next) if next.role == Role::User => next.tool_result_ids().collect(),
                _ => ids::Ids::default(),
            };
            m.tool_use_ids().filter(|id| !answered.contains(id)).map(str::to_owned).collect()
        };
        fixed.push(m);
        if open.is_empty() {
            continue;
        }
        let results: Vec<Block> = open.iter().map(|id| interrupted_result(id)).collect();
        report.tool_calls_answered.extend(open);
        match rest.peek_mut() {
            Some(next) if next.role == Role::User => {
                let at =
                    next.blocks.iter().position(|b| b.kind != Kind::ToolResult).unwrap_or(next.blocks.len());
                next.blocks.splice(at..at, results);
                next.changed = true;
                next.repaired = true;
            }
            _ => fixed.push(Msg::new(Role::User, results)),
        }
    }
    *msgs = fixed;
}

/// Orphan results become text; results move before other content.
fn fix_results(msgs: &mut [Msg], report: &mut RepairReport) {
    for i in 0..msgs.len() {
        if msgs[i].role != Role::User {
            continue;
        }
        let (before, here) = msgs.split_at_mut(i);
        let asked: ids::Ids<&str> = match before.last() {
            Some(prev) if prev.role == Role::Assistant => prev.tool_use_ids().collect(),
            _ => ids::Ids::default(),
        };
        let m = &mut here[0];
        let mut answered: ids::Ids<String> = ids::Ids::default();
        for b in m.blocks.iter_mut().filter(|b| b.kind == Kind::ToolResult) {
            let id = b.id.clone().unwrap_or_default();
            // An answer to no call here (after a compaction, a lost line), or
            // a second answer to the same call.
            if !asked.contains(&id) || answered.contains(&id) {
                let text = if asked.contains(&id) {
                    format!("[Another result of tool call {id}, answered above:]\n{}", b.result_text())
                } else {
                    format!(
                        "[Result of tool call {id}, whose call is no longer in the conversation:]\n{}",
                        b.result_text()
                    )
                };
                *b = Block { at: b.at, ..Block::text(&text) };
                report.orphan_results_to_text += 1;
                m.changed = true;
                m.repaired = true;
            } else {
                answered.insert(id);
            }
        }
        let first_other = m.blocks.iter().position(|b| b.kind != Kind::ToolResult);
        let result_after =
            first_other.is_some_and(|k| m.blocks[k..].iter().any(|b| b.kind == Kind::ToolResult));
        if result_after {
            let (results, others): (Vec<Block>, Vec<Block>) =
                m.blocks.drain(..).partition(|b| b.kind == Kind::ToolResult);
            report.results_moved_first += 1;
            m.blocks = results;
            m.blocks.extend(others);
            m.changed = true;
            m.repaired = true;
        }
    }
}

/// With thinking on, a tool loop that the next request continues must start
/// with signed thinking; when its thinking is gone, the loop is written out
/// as text so what was called and learned stays in the conversation.
fn tool_loop_to_text(msgs: &mut [Msg], report: &mut RepairReport) {
    let Some(i) = check::open_tool_loop(msgs) else { return };
    if msgs[i].blocks.first().is_some_and(Block::is_thinking) {
        return;
    }
    for b in msgs[i].blocks.iter_mut().filter(|b| b.kind == Kind::ToolUse) {
        let input = b.field("input");
        let text = format!(
            "[Called tool {} ({}) with input {}]",
            b.name.as_deref().unwrap_or("?"),
            b.id.as_deref().unwrap_or("?"),
            input.as_ref().map_or("{}", |r| r.get())
        );
        *b = Block { at: b.at, ..Block::text(&text) };
    }
    for b in msgs[i + 1].blocks.iter_mut().filter(|b| b.kind == Kind::ToolResult) {
        let text = format!("[Result of tool call {}:]\n{}", b.id.as_deref().unwrap_or("?"), b.result_text());
        *b = Block { at: b.at, ..Block::text(&text) };
    }
    msgs[i].changed = true;
    msgs[i + 1].changed = true;
    report.tool_loop_to_text = true;
}

/// `checkMessages` for messages given as JSON texts.
pub fn check_messages(messages: &[String], thinking: bool) -> Vec<Problem> {
    let mut msgs = Vec::with_capacity(messages.len());
    let mut problems = Vec::new();
    for (i, json) in messages.iter().enumerate() {
        match Msg::parse(json, Default::default(), Some(i)) {
            Some(m) => msgs.push(m),
            None => problems.push(Problem {
                index: i,
                kind: ProblemKind::NotAMessage,
                message: format!("message {i} is not a user or assistant message with content"),
            }),
        }
    }
    if !problems.is_empty() {
        return problems;
    }
    check::check(&msgs, thinking)
}

/// A block as `checkMessages` judges it, its JSON text dropped: what the
/// doctor keeps of each block of a file too large to hold (issue 28).
pub(crate) fn block_summary(json: &str) -> Block {
    Block { json: String::new(), ..Block::parse(json) }
}

/// `checkMessages` on messages given as block summaries (`user`: the
/// message's role is user), the same judgement as on their JSON; the
/// messages are the part of `total` that starts at `base` (`check_part`).
pub(crate) fn check_summaries(
    messages: Vec<(bool, Vec<Block>)>,
    base: usize,
    total: usize,
    uses: &mut HashSet<String>,
) -> Vec<Problem> {
    let msgs: Vec<Msg> = messages
        .into_iter()
        .map(|(user, blocks)| Msg {
            role: if user { Role::User } else { Role::Assistant },
            blocks,
            string_content: None,
            extra: Vec::new(),
            origin: Default::default(),
            source: None,
            changed: false,
            repaired: false,
        })
        .collect();
    check::check_part(&msgs, false, base, total, uses)
}

/// `closeOpenToolCalls`: the synthetic `tool_results` record for the tool
/// calls of the last assistant message that no later message answers, or
/// None. `now` is the record's time (the host's clock).
pub fn close_open_tool_calls(state: &SessionState, now: &str) -> Option<String> {
    let msgs: Vec<Msg> = state
        .messages
        .iter()
        .enumerate()
        .filter_map(|(i, m)| Msg::parse(&m.json, m.origin, Some(i)))
        .collect();
    let a = msgs.iter().rposition(|m| m.role == Role::Assistant)?;
    let answered: Vec<&str> = msgs[a + 1..].iter().flat_map(|m| m.tool_result_ids()).collect();
    let open: Vec<(&str, &str)> = msgs[a]
        .blocks
        .iter()
        .filter(|b| b.kind == Kind::ToolUse)
        .filter_map(|b| Some((b.id.as_deref()?, b.name.as_deref().unwrap_or(""))))
        .filter(|(id, _)| !answered.contains(id))
        .collect();
    closing_record(&open, now)
}

/// The synthetic `tool_results` record that answers `open` (id, name)
/// calls, or None when nothing is open.
pub fn closing_record(open: &[(&str, &str)], now: &str) -> Option<String> {
    if open.is_empty() {
        return None;
    }
    let results: Vec<String> = open.iter().map(|(id, _)| interrupted_result(id).json).collect();
    let calls: Vec<String> = open
        .iter()
        .map(|(id, name)| {
            format!(
                r#"{{"toolUseId":{},"name":{},"durationMs":0,"synthetic":true}}"#,
                str_literal(id),
                str_literal(name)
            )
        })
        .collect();
    Some(format!(
        r#"{{"t":{},"type":"tool_results","message":{{"role":"user","content":[{}]}},"calls":[{}],"synthetic":true}}"#,
        str_literal(now),
        results.join(","),
        calls.join(",")
    ))
}

#[cfg(test)]
mod tests;
