//! The doctor for pi and Gemini CLI sessions, diagnosis only: the history is
//! what this crate's readers make of the file (`formats/pi.rs` and
//! `formats/gemini.rs`, which follow each agent's own loader: the active
//! branch, a compaction's summary and kept entries counted from the header),
//! and the tool pairs are judged by `checkMessages`, as the API would.
//!
//! pi's rules (badlogic/pi-mono, packages/ai/src/providers/
//! transform-messages.ts, run on every request):
//! - a tool call with no result gets a synthetic error result ("No result
//!   provided") when the conversation goes on: a warning;
//! - an assistant message that stopped with "error" or "aborted" is left
//!   out, so a result of one of its calls answers nothing;
//! - a tool result that answers no call is sent as it is, and the API
//!   refuses it (pi#4570: a compaction that cut a pair): an error.
//!
//! Gemini CLI's own rule on a broken pair is not documented where this
//! crate could read it (gemini-cli#1690 reports such sessions failing): the
//! pairs are said as warnings, and nothing else is judged.
//!
//! No repair is written for either yet: `repair` gives the bytes back.

use super::lines::Lines;
use super::{Kind, Problem, Severity};
use crate::formats::Format;
use crate::journal::Journal;
use crate::resume::ProblemKind as P;
use serde_json::Value;
use std::collections::BTreeMap;

pub struct Diagnoser {
    format: Format,
    journal: Journal,
    lines: Lines,
    /// pi: the call ids of assistant messages pi leaves out, by line.
    left_out: BTreeMap<String, u64>,
}

impl Diagnoser {
    pub fn new(format: Format) -> Diagnoser {
        Diagnoser {
            format,
            journal: Journal::default().with_format(format),
            lines: Lines::default(),
            left_out: BTreeMap::new(),
        }
    }

    pub fn feed(&mut self, chunk: &[u8]) {
        self.journal.feed_bytes(chunk);
        if self.format == Format::Pi {
            let mut lines = std::mem::take(&mut self.lines);
            lines.feed(chunk, |n, l| self.pi_line(n, l));
            self.lines = lines;
        }
    }

    /// An assistant message pi's transformMessages skips: its calls.
    fn pi_line(&mut self, n: u64, line: &[u8]) {
        let Ok(text) = std::str::from_utf8(line) else { return };
        if !text.contains("\"stopReason\"") {
            return;
        }
        let Ok(v) = serde_json::from_str::<Value>(text) else { return };
        let m = &v["message"];
        if !matches!(m["stopReason"].as_str(), Some("error" | "aborted")) {
            return;
        }
        for b in m["content"].as_array().into_iter().flatten() {
            if let (Some("toolCall"), Some(id)) = (b["type"].as_str(), b["id"].as_str()) {
                self.left_out.insert(id.to_owned(), n);
            }
        }
    }

    pub fn finish(mut self) -> Vec<Problem> {
        let mut lines = std::mem::take(&mut self.lines);
        lines.finish(|n, l| self.pi_line(n, l));
        self.journal.finish();
        let state = self.journal.into_state();
        let pi = self.format == Format::Pi;
        let mut problems = Vec::new();
        for w in &state.warnings {
            if matches!(w.kind, crate::state::WarningKind::BadJson | crate::state::WarningKind::BadRecord) {
                problems.push(Problem {
                    line: w.line,
                    kind: Kind::BadLine,
                    severity: Severity::Warning,
                    message: format!("{}: the agent skips it", w.message),
                });
            }
        }
        let mut messages: Vec<String> = state.messages.iter().map(|m| m.json.to_string()).collect();
        // pi leaves out an assistant message that stopped with an error.
        let mut line_of: Vec<u64> = state.messages.iter().map(|m| m.origin.line).collect();
        if pi && !self.left_out.is_empty() {
            let keep: Vec<bool> = line_of.iter().map(|l| !self.left_out.values().any(|x| x == l)).collect();
            let mut k = keep.iter();
            messages.retain(|_| *k.next().unwrap_or(&true));
            let mut k = keep.iter();
            line_of.retain(|_| *k.next().unwrap_or(&true));
        }
        let gemini = "Gemini CLI's own rule on it is not documented where the doctor could read it (gemini-cli#1690 reports such sessions failing): said, not judged";
        for p in crate::resume::check_messages(&messages, false) {
            let line = line_of.get(p.index).copied().unwrap_or(0);
            let (severity, why) = match (p.kind, pi) {
                (P::ToolResultOrphan, true) => (
                    Severity::Error,
                    "pi sends it as it is and the API refuses it (transform-messages.ts; pi#4570: a compaction that cut a pair)",
                ),
                (P::ToolUseUnanswered, true) => (
                    Severity::Warning,
                    "pi answers it with an error result, \"No result provided\", when the conversation goes on (transform-messages.ts)",
                ),
                (P::ToolResultOrphan | P::ToolUseUnanswered, false) => (Severity::Warning, gemini),
                _ => continue,
            };
            let kind =
                if p.kind == P::ToolResultOrphan { Kind::ToolResultOrphan } else { Kind::ToolUseUnanswered };
            problems.push(Problem { line, kind, severity, message: format!("{}: {why}", p.message) });
        }
        Problem::sort_by_line(&mut problems);
        problems
    }
}
