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

mod claude;
mod codex;
mod gemini;
mod pi;
mod records;

use crate::prices::Prices;
use std::rc::Rc;

/// The session formats this crate reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Garuda,
    ClaudeCode,
    Codex,
    Pi,
    Gemini,
}

impl Format {
    pub const ALL: [Format; 5] =
        [Format::Garuda, Format::ClaudeCode, Format::Codex, Format::Pi, Format::Gemini];

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Garuda => "garuda",
            Format::ClaudeCode => "claude-code",
            Format::Codex => "codex",
            Format::Pi => "pi",
            Format::Gemini => "gemini",
        }
    }

    pub fn parse(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.as_str() == name)
    }

    /// The format a first line (not blank) says, if any.
    pub fn detect(first: &str) -> Option<Format> {
        let line = first.trim();
        // Gemini CLI writes one pretty-printed JSON document: its first line
        // opens it. Its newer JSONL starts with the session's header object.
        if line == "{" {
            return Some(Format::Gemini);
        }
        let probe: Probe = serde_json::from_str(line).ok()?;
        let kind = probe.kind.as_deref().unwrap_or("");
        if crate::record::RecordKind::parse(kind).is_some() && probe.payload.is_none() && probe.uuid.is_none()
        {
            // A Garuda record (pi's `message` and Claude Code's `user` lines
            // carry fields Garuda's never do: checked below first).
            if !(kind == "user" && probe.session_id.is_some()) {
                return Some(Format::Garuda);
            }
        }
        if probe.payload.is_some()
            && matches!(kind, "session_meta" | "response_item" | "event_msg" | "turn_context" | "compacted")
        {
            return Some(Format::Codex);
        }
        if kind == "session"
            || (probe.message.is_some() && kind == "message")
            || kind == "model_change"
            || kind == "thinking_level_change"
        {
            return Some(Format::Pi);
        }
        if probe.session_id.is_some()
            && (probe.project_hash.is_some() || probe.messages.is_some() || probe.start_time.is_some())
        {
            return Some(Format::Gemini);
        }
        if probe.uuid.is_some()
            || probe.session_id.is_some()
            || probe.leaf_uuid.is_some()
            || matches!(kind, "summary" | "file-history-snapshot" | "queue-operation")
        {
            return Some(Format::ClaudeCode);
        }
        None
    }
}

/// The fields detection looks at.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct Probe {
    #[serde(rename = "type")]
    kind: Option<String>,
    payload: Option<serde::de::IgnoredAny>,
    uuid: Option<serde::de::IgnoredAny>,
    session_id: Option<serde::de::IgnoredAny>,
    leaf_uuid: Option<serde::de::IgnoredAny>,
    message: Option<serde::de::IgnoredAny>,
    project_hash: Option<serde::de::IgnoredAny>,
    messages: Option<serde::de::IgnoredAny>,
    start_time: Option<serde::de::IgnoredAny>,
}

/// A record translated from a foreign line: its JSON text and the 1-based
/// line of the file it came from.
pub type Out = Vec<(u64, String)>;

/// What a reader noticed that replay should say (with a line number).
#[derive(Debug, Clone, PartialEq)]
pub enum Notice {
    /// A line that is not JSON (or not an object).
    BadLine(u64, String),
    /// Messages on branches that are not the active one (a rewind, an edit).
    OtherBranches(u64, usize),
    /// The session's usage was never recorded: its cost is unknown.
    UsageUnknown(u64, String),
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
    /// A reader for `format` (None for Garuda's own).
    pub fn new(format: Format, prices: Rc<Prices>) -> Option<Reader> {
        match format {
            Format::Garuda => None,
            Format::ClaudeCode => Some(Reader::ClaudeCode(claude::Reader::new(prices))),
            Format::Codex => Some(Reader::Codex(codex::Reader::new(prices))),
            Format::Pi => Some(Reader::Pi(pi::Reader::new(prices))),
            Format::Gemini => Some(Reader::Gemini(gemini::Reader::new(prices))),
        }
    }

    /// One line of the file (without its newline).
    pub fn line(&mut self, number: u64, line: &str, out: &mut Out, notices: &mut Vec<Notice>) {
        match self {
            Reader::ClaudeCode(r) => r.line(number, line, notices),
            Reader::Codex(r) => r.line(number, line, out, notices),
            Reader::Pi(r) => r.line(number, line, out, notices),
            Reader::Gemini(r) => r.line(number, line),
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
mod tests;
