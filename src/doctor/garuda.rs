//! The doctor for Garuda's own journals: the journal is append-only and
//! resume repairs the history as it reads it (`resume/`, spec §6), so a
//! journal is never rewritten. The diagnosis is replay's warnings and what
//! that repair will do (each a warning: the session resumes with it); an
//! error only when the repaired history would still break a rule of the API
//! (`RepairReport::remaining`, a bug of resume if it happens).
//!
//! Replay reads the journal in chunks (`Journal::feed_bytes`), so the
//! diagnosis does too.

use super::{Kind, Problem, Severity};
use crate::journal::Journal;
use crate::resume::{self, DropReason};
use crate::state::{WarningKind, WARNINGS_KEPT};

pub struct Diagnoser {
    journal: Journal,
}

fn warn(line: u64, kind: Kind, message: String) -> Problem {
    Problem { line, kind, severity: Severity::Warning, message }
}

impl Diagnoser {
    pub fn new() -> Diagnoser {
        Diagnoser { journal: Journal::default().with_format(crate::formats::Format::Garuda) }
    }

    pub fn feed(&mut self, chunk: &[u8]) {
        self.journal.feed_bytes(chunk);
    }

    pub fn finish(mut self) -> Vec<Problem> {
        self.journal.finish();
        let state = self.journal.into_state();
        let mut problems = Vec::new();
        for w in &state.warnings {
            let kind = match w.kind {
                WarningKind::LineTooLong => Kind::TooLarge,
                _ => Kind::BadLine,
            };
            // A message nested too deep is not skipped: a note stands in its place (its message says so).
            let how = if w.kind == WarningKind::TooDeep { "" } else { ": replay skips it" };
            problems.push(warn(w.line, kind, format!("{}{how} ({})", w.message, w.kind.as_str())));
        }
        for k in WarningKind::ALL {
            let more = state.warning_counts[k.index()].saturating_sub(WARNINGS_KEPT);
            if more > 0 {
                problems.push(warn(
                    0,
                    Kind::BadLine,
                    format!("{more} more {} warnings, not listed", k.as_str()),
                ));
            }
        }
        let line_of = |m: usize| state.messages.get(m).map_or(0, |m| m.origin.line);
        let r = resume::resume(&state, &Default::default()).report;
        for d in &r.dropped {
            let kind = match d.reason {
                DropReason::ModelSwitch => Kind::ThinkingModelSwitch,
                DropReason::Unsigned => Kind::ThinkingUnsigned,
                _ => Kind::ThinkingChanged,
            };
            problems.push(warn(
                line_of(d.message),
                kind,
                format!("resume leaves thinking block {} out ({})", d.block, d.reason.as_str()),
            ));
        }
        for id in &r.tool_calls_answered {
            problems.push(warn(
                0,
                Kind::ToolUseUnanswered,
                format!("the call {id} has no result: resume answers it with an error result"),
            ));
        }
        if r.orphan_results_to_text > 0 {
            problems.push(warn(
                0,
                Kind::ToolResultOrphan,
                format!(
                    "{} tool results answer no call: resume turns each into text",
                    r.orphan_results_to_text
                ),
            ));
        }
        for b in &r.bad_blocks {
            problems.push(warn(
                b.line,
                Kind::Refused,
                format!("{}: resume mends it ({})", b.problem, b.fix.as_str()),
            ));
        }
        for p in &r.remaining {
            problems.push(Problem {
                line: 0,
                kind: Kind::Refused,
                severity: Severity::Error,
                message: format!("the repaired history still breaks a rule of the API: {}", p.message),
            });
        }
        super::sort_problems(&mut problems);
        problems
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line replay skips says so; a message nested too deep is kept as a
    /// note, and the doctor does not say it is skipped (it did: the two
    /// messages contradicted each other).
    #[test]
    fn each_warning_says_what_replay_does_with_its_line() {
        let start =
            r#"{"type":"start","sessionId":"s","t":"2026-01-01T00:00:00Z","model":"claude-sonnet-4-5"}"#;
        let deep = format!(
            r#"{{"type":"user","t":"2026-01-01T00:00:01Z","message":{{"role":"user","content":[{{"type":"text","text":"x","n":{}1{}}}]}}}}"#,
            "[".repeat(crate::state::MAX_NESTING + 5),
            "]".repeat(crate::state::MAX_NESTING + 5)
        );
        let mut d = Diagnoser::new();
        d.feed(format!("{start}\n{deep}\nnot json\n").as_bytes());
        let problems = d.finish();
        let of = |line: u64| {
            problems.iter().find(|p| p.line == line).map(|p| p.message.as_str()).unwrap_or_default()
        };
        assert!(of(2).contains("a note stands in its place") && !of(2).contains("skips"), "{}", of(2));
        assert!(of(3).contains("replay skips it (bad-json)"), "{}", of(3));
    }
}
