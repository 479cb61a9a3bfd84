//! Readers of other agents' sessions (issue 12): Claude Code, Codex CLI, pi
//! and Gemini CLI. Each translates its format's lines into this journal's
//! records (spec §2), so replay, accounting, redaction, resume, listing,
//! export and the viewer keep one model and work unchanged.
//!
//! The format is detected from the first line that is not blank, or forced.
//! A reader takes the foreign lines one at a time (after the journal's own
//! chunking, line-length limit and UTF-8 checks) and hands back records, each
//! with the foreign line number it came from, so warnings and origins still
//! point into the file that was read. Formats whose meaning depends on later
//! lines (Claude Code's active branch and streamed blocks, Gemini's single
//! JSON document) keep what they need and hand their records over at the end.

#![forbid(unsafe_code)]

pub(crate) mod chain;
mod claude;
mod codex;
mod gemini;
mod pi;
mod records;

use crate::prices::Prices;
use std::rc::Rc;

pub use crate::session_format::Format;

// The prefix of a run inside its parent's file, and the purpose of its
// responses' side usage, are the record model's (record.rs): the state
// keeps those runs, and tells no landmark for those responses, without
// knowing the readers.
pub use crate::record::{INLINE_RUN, INLINE_RUN_USAGE};

/// Detection lives with the readers; the name (`session_format`) is a leaf
/// the state can hold without knowing the readers.
impl Format {
    /// The format a first line (not blank) says, if any.
    pub fn detect(first: &str) -> Option<Format> {
        let line = first.trim();
        // Gemini CLI writes one pretty-printed JSON document: its first line
        // opens it. Its newer JSONL starts with the session's header object.
        if line == "{" {
            return Some(Format::Gemini);
        }
        // Detection runs once per file: a generic Value keeps the wasm small.
        let probe: serde_json::Value = serde_json::from_str(line).ok()?;
        let has = |k: &str| probe.get(k).is_some_and(|v| !v.is_null());
        let kind = probe.get("type").and_then(serde_json::Value::as_str).unwrap_or("");
        // A Garuda record: one of its kinds, without the fields that mark
        // another agent's line of the same name (Claude Code's `uuid`,
        // Codex's `payload`).
        if crate::record::RecordKind::parse(kind).is_some() && !has("payload") && !has("uuid") {
            return Some(Format::Garuda);
        }
        if has("payload")
            && matches!(kind, "session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted")
        {
            return Some(Format::Codex);
        }
        if kind == "session"
            || (has("message") && kind == "message")
            || kind == "model_change"
            || kind == "thinking_level_change"
        {
            return Some(Format::Pi);
        }
        if has("sessionId") && (has("projectHash") || has("messages") || has("startTime")) {
            return Some(Format::Gemini);
        }
        // Gemini CLI's older saves: `{history: [{role, parts}]}`.
        if probe
            .get("history")
            .and_then(|h| h.as_array())
            .is_some_and(|h| h.iter().all(|c| c.get("parts").is_some()))
        {
            return Some(Format::Gemini);
        }
        if has("uuid")
            || has("sessionId")
            || has("leafUuid")
            || matches!(kind, "summary" | "file-history-snapshot" | "queue-operation")
        {
            return Some(Format::ClaudeCode);
        }
        None
    }
}

/// The active branch of a tree of lines (Claude Code's `uuid`/`parentUuid`,
/// pi's `id`/`parentId`): `leaf` and its ancestors. A cycle (a hand-edited
/// file) ends the walk.
fn branch<'a>(
    links: impl Iterator<Item = (&'a str, Option<&'a str>)>,
    leaf: &'a str,
) -> std::collections::HashSet<&'a str> {
    let parent_of: std::collections::HashMap<&str, Option<&str>> = links.collect();
    let mut path = std::collections::HashSet::new();
    let mut at = Some(leaf);
    while let Some(id) = at {
        if !path.insert(id) {
            break;
        }
        at = parent_of.get(id).copied().flatten();
    }
    path
}

/// A record translated from a foreign line: its JSON text and the 1-based
/// line of the file it came from.
pub type Out = Vec<(u64, String)>;

/// A response a usage-only read counts: what a `side_usage` record of it
/// would say (`records::side_usage`), typed.
#[derive(Debug, Clone, PartialEq)]
pub struct Response {
    pub t: Option<String>,
    pub model: Option<String>,
    pub tokens: crate::prices::Tokens,
    pub cost: Option<f64>,
}

impl Response {
    /// The record it stands for (`import` keeps records).
    pub fn record(&self) -> String {
        records::side_usage("response", &self.tokens, self.cost, self.model.as_deref(), self.t.as_deref())
    }
}

/// What a reader noticed that replay should say (with a line number).
#[derive(Debug, Clone, PartialEq)]
pub enum Notice {
    /// A line that is not JSON (or not an object).
    BadLine(u64, String),
    /// JSON, but not the format's record or document (a Gemini CLI file
    /// with no `messages`: a settings file, a manifest).
    BadRecord(u64, String),
    /// A line of the format's shape with a value of the wrong type (a
    /// usage's tokens as a string): named by its path.
    BadField(u64, String),
    /// Messages on branches that are not the active one (a rewind, an edit).
    OtherBranches(u64, usize),
    /// The session's usage was never recorded: its cost is unknown.
    UsageUnknown(u64, String),
    /// A line holding this many JSON objects (a write that lost its
    /// newline): each was read.
    Joined(u64, usize),
    /// The file is not in this reader's format after all, though its first
    /// line looked so (any pretty-printed JSON opens like a Gemini CLI
    /// document): the session's format becomes unknown, not a session of
    /// that format that cost nothing.
    NotThisFormat(u64, String),
}

impl Notice {
    /// A line serde_json could not read as `what` ("a Claude Code line"):
    /// not JSON (bad-json, which a last line may be as a torn tail), JSON
    /// that is no object (bad-record), or an object with a value of the
    /// wrong type (bad-field, the value named by its path). serde's " at line 1 column N" is left out: the line is known.
    pub fn unread(number: u64, what: &str, text: &str, e: &serde_json::Error) -> Notice {
        let message = crate::record::clean_serde_message(e);
        if e.is_data() {
            // A line is one line: serde's column is the byte offset (+1).
            match crate::json_path::path_at(text, e.column()) {
                // The line itself is of the wrong type (an array, a number).
                path if path.is_empty() || path.starts_with('[') => {
                    Notice::BadRecord(number, format!("not {what}: {message}"))
                }
                path => Notice::BadField(number, format!("not {what}: `{path}`: {message}")),
            }
        } else {
            Notice::BadLine(number, format!("not {what}: {message}"))
        }
    }
}

/// One reader per foreign format.
#[derive(Debug)]
pub enum Reader {
    ClaudeCode(claude::Reader),
    Codex(codex::Reader),
    Pi(pi::Reader),
    Gemini(gemini::Reader),
}

impl Reader {
    /// A reader for `format` (None for Garuda's own). `usage_only`: the
    /// reader may keep only what a usage report needs (requests' usage, model
    /// and time: no messages), where that makes it faster.
    pub fn new(format: Format, prices: Rc<Prices>, usage_only: bool) -> Option<Reader> {
        match format {
            Format::Garuda => None,
            Format::ClaudeCode if usage_only => Some(Reader::ClaudeCode(claude::Reader::usage_only(prices))),
            Format::ClaudeCode => Some(Reader::ClaudeCode(claude::Reader::new(prices))),
            Format::Codex => Some(Reader::Codex(codex::Reader::new(prices))),
            Format::Pi => Some(Reader::Pi(pi::Reader::new(prices))),
            Format::Gemini => Some(Reader::Gemini(gemini::Reader::new(prices))),
        }
    }

    /// A reader of one child run inside a file (a Claude Code sidechain,
    /// named by the Task call that started it). Other formats hold no such
    /// run: their reader reads the whole file.
    pub fn child_run(format: Format, prices: Rc<Prices>, tool_use_id: &str) -> Option<Reader> {
        match format {
            Format::ClaudeCode => Some(Reader::ClaudeCode(claude::Reader::run(prices, tool_use_id))),
            other => Reader::new(other, prices, false),
        }
    }

    /// One line of the file (without its newline). Each reader's `line` and
    /// `finish` are `#[inline(never)]`: V8 optimises a hot function whole,
    /// and with them inlined here a Claude Code usage read would wait on
    /// the compiler for Codex's parser too (journal.rs `read_foreign_line`).
    pub fn line(&mut self, number: u64, line: &str, out: &mut Out, notices: &mut Vec<Notice>) {
        match self {
            Reader::ClaudeCode(r) => r.line(number, line, notices),
            Reader::Codex(r) => r.line(number, line, out, notices),
            Reader::Pi(r) => r.line(number, line, out, notices),
            Reader::Gemini(r) => r.line(number, line),
        }
    }

    /// Whether this reader passes some lines over unread (`passes_over`).
    pub fn may_pass_over(&self) -> bool {
        match self {
            Reader::ClaudeCode(r) => r.may_pass_over(),
            _ => false,
        }
    }

    /// Whether this reader would pass `line` over without reading anything
    /// in it, so the journal need not check or decode it.
    pub fn passes_over(&self, line: &[u8]) -> bool {
        match self {
            Reader::ClaudeCode(r) => r.passes_over(line),
            _ => false,
        }
    }

    /// After a usage-only read of a Claude Code file: each response's key
    /// (`usage_rows::key_of`; 0 for none) and 1-hour cache write, in the
    /// order `finish` handed the responses back. Empty for other formats
    /// (their files do not copy requests).
    pub fn request_keys(&self) -> &[(f64, u64)] {
        match self {
            Reader::ClaudeCode(r) => r.request_keys(),
            _ => &[],
        }
    }

    /// After a usage-only read of a Claude Code file: its responses, which
    /// `finish` hands back here rather than as records.
    pub fn take_responses(&mut self) -> Vec<Response> {
        match self {
            Reader::ClaudeCode(r) => r.take_responses(),
            _ => Vec::new(),
        }
    }

    /// Keeps each inline run at the end of the file, to read it alone
    /// (`run_records`); only Claude Code files have them.
    pub fn keep_runs(&mut self) {
        if let Reader::ClaudeCode(r) = self {
            r.keep_runs();
        }
    }

    /// After `finish` of a read that kept its runs: the records of the run
    /// the Task call `tool_use_id` started, as `Reader::child_run(..,
    /// tool_use_id)` gives them at the end of the whole file. False when
    /// there is no such run.
    pub fn run_records(&mut self, tool_use_id: &str, out: &mut Out, notices: &mut Vec<Notice>) -> bool {
        match self {
            Reader::ClaudeCode(r) => r.run_records(tool_use_id, out, notices),
            _ => false,
        }
    }

    /// After a usage-only read of a Claude Code file: the session's id,
    /// which `finish` hands back here rather than as a start record.
    pub fn take_session_id(&mut self) -> Option<String> {
        match self {
            Reader::ClaudeCode(r) => r.take_session_id(),
            _ => None,
        }
    }

    /// The end of the file: what was kept for it.
    pub fn finish(&mut self, out: &mut Out, notices: &mut Vec<Notice>) {
        match self {
            Reader::ClaudeCode(r) => r.finish(out, notices),
            Reader::Codex(r) => r.finish(out, notices),
            Reader::Pi(r) => r.finish(out, notices),
            Reader::Gemini(r) => r.finish(out, notices),
        }
    }
}

#[cfg(test)]
mod claude_tests;
#[cfg(test)]
mod tests;
