//! The doctor (issue 28): why another agent's session will not resume, and a
//! repaired copy in that agent's own format.
//!
//! `diagnose` reads a session file as its agent does on resume (for Claude
//! Code: the active chain of `chain.rs`, from the last compaction on) and
//! names every problem with the 1-based line it comes from. `repair` writes
//! the file again with the least change that makes it resume, every other
//! line byte for byte as it was, and says what it changed and where.
//!
//! Claude Code (`claude.rs`), Codex (`codex.rs`), pi (`pi.rs`) and Gemini
//! CLI (`gemini.rs`) are diagnosed and repaired, each by the rules of its
//! agent's own source; Garuda journals go through resume's own repair
//! (`garuda.rs`).

#![forbid(unsafe_code)]

mod claude;
mod claude_stream;
mod codex;
mod garuda;
mod gemini;
mod lines;
mod pi;
mod raw;
mod strs;

use crate::formats::Format;
use crate::json_str::str_literal;

/// How bad a problem is: an `Error` stops the session resuming (the API
/// refuses the history, or the agent loses part of the conversation); a
/// `Warning` is worth knowing but resume goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    Error,
    Warning,
}

/// What kind of problem a line has.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Not JSON, not an object, or not UTF-8.
    BadLine,
    /// A `parentUuid` that names no line: the chain stops there.
    BrokenChain,
    /// A signed thinking block whose text is empty (claude-code#63147):
    /// on a line whose `thinkingDisplay` is not "omitted", or, where the
    /// line does not say, in a session where other signed blocks have text.
    ThinkingEmpty,
    /// A thinking block without a signature.
    ThinkingUnsigned,
    /// A signature seen before on another text: the text was changed.
    ThinkingChanged,
    /// Thinking of another model than the one the session resumes with.
    ThinkingModelSwitch,
    /// A `tool_use` that no result answers.
    ToolUseUnanswered,
    /// A `tool_result` that answers no call of the message before it.
    ToolResultOrphan,
    /// A rule of the Messages API the history breaks (`checkMessages`).
    Refused,
    /// Too large to be read whole.
    TooLarge,
    /// A format the doctor has no resume rules for.
    Unsupported,
    /// The file names no session the agent can resume (empty, or no id).
    NoSession,
}

impl Kind {
    pub const ALL: [Kind; 12] = [
        Kind::BadLine,
        Kind::BrokenChain,
        Kind::ThinkingEmpty,
        Kind::ThinkingUnsigned,
        Kind::ThinkingChanged,
        Kind::ThinkingModelSwitch,
        Kind::ToolUseUnanswered,
        Kind::ToolResultOrphan,
        Kind::Refused,
        Kind::TooLarge,
        Kind::Unsupported,
        Kind::NoSession,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Kind::BadLine => "bad-line",
            Kind::BrokenChain => "broken-chain",
            Kind::ThinkingEmpty => "thinking-empty",
            Kind::ThinkingUnsigned => "thinking-unsigned",
            Kind::ThinkingChanged => "thinking-changed",
            Kind::ThinkingModelSwitch => "thinking-model-switch",
            Kind::ToolUseUnanswered => "tool-use-unanswered",
            Kind::ToolResultOrphan => "tool-result-orphan",
            Kind::Refused => "refused",
            Kind::TooLarge => "too-large",
            Kind::Unsupported => "unsupported",
            Kind::NoSession => "no-session",
        }
    }
}

/// One problem, on the line it comes from (1-based; 0: the whole file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    pub line: u64,
    pub kind: Kind,
    pub severity: Severity,
    pub message: String,
}

impl Problem {
    pub fn to_json(&self) -> String {
        format!(
            r#"{{"line":{},"kind":"{}","severity":"{}","message":{}}}"#,
            self.line,
            self.kind.as_str(),
            match self.severity {
                Severity::Error => "error",
                Severity::Warning => "warning",
            },
            str_literal(&self.message)
        )
    }
}

/// What a repair did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// A thinking block left out (the prefix rule).
    ThinkingDropped,
    /// A tool_result block left out (it answered no call).
    ResultDropped,
    /// A synthetic error result added for a call that had none.
    ResultAdded,
    /// A line left out: all it held was dropped.
    LineRemoved,
    /// A line's `parentUuid` (or `logicalParentUuid`; pi: `parentId`, or a
    /// compaction's first kept entry) now names another line.
    Reparented,
}

impl ChangeKind {
    pub const ALL: [ChangeKind; 5] = [
        ChangeKind::ThinkingDropped,
        ChangeKind::ResultDropped,
        ChangeKind::ResultAdded,
        ChangeKind::LineRemoved,
        ChangeKind::Reparented,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ChangeKind::ThinkingDropped => "thinking-dropped",
            ChangeKind::ResultDropped => "result-dropped",
            ChangeKind::ResultAdded => "result-added",
            ChangeKind::LineRemoved => "line-removed",
            ChangeKind::Reparented => "reparented",
        }
    }
}

/// One change, on the line of the input it touches (for an added line: the
/// line it follows).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub line: u64,
    pub kind: ChangeKind,
    /// The block of the line's `message.content` (dropped blocks).
    pub block: Option<usize>,
    pub message: String,
}

impl Change {
    pub fn to_json(&self) -> String {
        format!(
            r#"{{"line":{},"kind":"{}","block":{},"message":{}}}"#,
            self.line,
            self.kind.as_str(),
            self.block.map_or("null".to_owned(), |b| b.to_string()),
            str_literal(&self.message)
        )
    }
}

/// The doctor's findings on one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnosis {
    pub format: Option<Format>,
    pub problems: Vec<Problem>,
}

impl Diagnosis {
    /// Whether the agent would resume the file as it is: no error.
    pub fn resumes(&self) -> bool {
        !self.problems.iter().any(|p| p.severity == Severity::Error)
    }

    pub fn to_json(&self) -> String {
        let problems: Vec<String> = self.problems.iter().map(Problem::to_json).collect();
        format!(
            r#"{{"format":{},"resumes":{},"problems":[{}]}}"#,
            self.format.map_or("null".to_owned(), |f| str_literal(f.as_str())),
            self.resumes(),
            problems.join(",")
        )
    }
}

/// A repaired file and what was done to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Repaired {
    pub bytes: Vec<u8>,
    pub changes: Vec<Change>,
    /// The diagnosis of the repaired bytes: what the repair could not fix.
    pub after: Diagnosis,
}

impl Repaired {
    /// The report as JSON (the bytes go apart).
    pub fn report_json(&self) -> String {
        let changes: Vec<String> = self.changes.iter().map(Change::to_json).collect();
        format!(r#"{{"changes":[{}],"after":{}}}"#, changes.join(","), self.after.to_json())
    }
}

/// Problems in line order: one sort for every format's doctor, so the wasm
/// holds one copy of it; and that the cold code's shared sort (`order`),
/// not a copy of core's (issue 24, the size budget).
fn sort_problems(problems: &mut Vec<Problem>) {
    crate::order::sort_by_key(problems, Problem::place);
}

/// Changes in the order of the lines (and blocks) they touch.
fn sort_changes(changes: &mut Vec<Change>) {
    crate::order::sort_by_key(changes, Change::place);
}

impl Problem {
    fn place(&self) -> u64 {
        self.line
    }
}

impl Change {
    fn place(&self) -> (u64, Option<usize>) {
        (self.line, self.block)
    }
}

/// The format of `bytes`: `format` when given, else what the first line
/// that is not blank says.
pub fn detect(bytes: &[u8], format: Option<Format>) -> Option<Format> {
    format.or_else(|| {
        let first = bytes.split(|&b| b == b'\n').find(|l| !l.iter().all(u8::is_ascii_whitespace))?;
        Format::detect(std::str::from_utf8(first).ok()?)
    })
}

fn unsupported(format: Option<Format>) -> Diagnosis {
    let what = format.map_or("an unknown format".to_owned(), |f| format!("the {} format", f.as_str()));
    Diagnosis {
        format,
        problems: vec![Problem {
            line: 0,
            kind: Kind::Unsupported,
            severity: Severity::Warning,
            message: format!("the doctor has no resume rules for {what} yet: nothing was checked"),
        }],
    }
}

/// Every problem that would stop `bytes` resuming, or that is worth knowing.
pub fn diagnose(bytes: &[u8], format: Option<Format>) -> Diagnosis {
    match detect(bytes, format) {
        Some(Format::ClaudeCode) => {
            Diagnosis { format: Some(Format::ClaudeCode), problems: claude::diagnose(bytes) }
        }
        Some(Format::Codex) => Diagnosis { format: Some(Format::Codex), problems: codex::diagnose(bytes) },
        Some(Format::Garuda) => {
            let mut d = garuda::Diagnoser::new();
            d.feed(bytes);
            Diagnosis { format: Some(Format::Garuda), problems: d.finish() }
        }
        Some(Format::Pi) => Diagnosis { format: Some(Format::Pi), problems: pi::diagnose(bytes) },
        // Any JSON object opens like a Gemini CLI document; one that names
        // no session is in no known format, as every command says.
        Some(Format::Gemini) => match gemini::diagnose(bytes) {
            Some(problems) => Diagnosis { format: Some(Format::Gemini), problems },
            None => unsupported(None),
        },
        None => unsupported(None),
    }
}

/// A diagnosis of a file read in chunks, for files too large to hold: Claude
/// Code sessions, Codex rollouts and Garuda journals keep per-line summaries
/// only (never a line's text); other formats
/// are held whole until `finish` (their rules need the whole tree; pi and
/// Gemini CLI read their files whole too).
pub struct Streaming {
    forced: Option<Format>,
    stream: Stream,
}

enum Stream {
    /// Before the first line that is not blank: the format is not known.
    Detect(Vec<u8>),
    Claude(Box<claude_stream::Diagnoser>),
    Codex(codex::Diagnoser),
    Garuda(Box<garuda::Diagnoser>),
    Whole(Option<Format>, Vec<u8>),
}

impl Streaming {
    pub fn new(format: Option<Format>) -> Streaming {
        Streaming { forced: format, stream: Stream::Detect(Vec::new()) }
    }

    pub fn feed(&mut self, chunk: &[u8]) {
        match &mut self.stream {
            Stream::Detect(held) => {
                held.extend_from_slice(chunk);
                // Known once a whole line that is not blank has come.
                let known = self.forced.is_some()
                    || held
                        .iter()
                        .position(|b| !b.is_ascii_whitespace())
                        .is_some_and(|i| held[i..].contains(&b'\n'));
                if known {
                    let held = std::mem::take(held);
                    self.start(detect(&held, self.forced), &held);
                }
            }
            Stream::Claude(d) => d.feed(chunk),
            Stream::Codex(d) => d.feed(chunk),
            Stream::Garuda(d) => d.feed(chunk),
            Stream::Whole(_, held) => held.extend_from_slice(chunk),
        }
    }

    fn start(&mut self, format: Option<Format>, held: &[u8]) {
        self.stream = match format {
            Some(Format::ClaudeCode) => Stream::Claude(Box::default()),
            Some(Format::Codex) => Stream::Codex(codex::Diagnoser::default()),
            Some(Format::Garuda) => Stream::Garuda(Box::new(garuda::Diagnoser::new())),
            other => Stream::Whole(other, Vec::new()),
        };
        self.feed(held);
    }

    pub fn finish(self) -> Diagnosis {
        match self.stream {
            Stream::Detect(held) => diagnose(&held, self.forced),
            Stream::Claude(d) => Diagnosis { format: Some(Format::ClaudeCode), problems: d.finish() },
            Stream::Codex(d) => Diagnosis { format: Some(Format::Codex), problems: d.finish().0 },
            Stream::Garuda(d) => Diagnosis { format: Some(Format::Garuda), problems: d.finish() },
            Stream::Whole(format, held) => diagnose(&held, format),
        }
    }
}

/// The file repaired in its own format, the least changed; the same bytes
/// when nothing needs repair (or the format is not supported).
pub fn repair(bytes: &[u8], format: Option<Format>) -> Repaired {
    match detect(bytes, format) {
        Some(Format::ClaudeCode) => {
            let (out, changes) = claude::repair(bytes);
            let after = diagnose(&out, Some(Format::ClaudeCode));
            Repaired { bytes: out, changes, after }
        }
        Some(Format::Codex) => {
            let (out, changes) = codex::repair(bytes);
            let after = diagnose(&out, Some(Format::Codex));
            Repaired { bytes: out, changes, after }
        }
        Some(Format::Pi) => {
            let (out, changes) = pi::repair(bytes);
            let after = diagnose(&out, Some(Format::Pi));
            Repaired { bytes: out, changes, after }
        }
        Some(Format::Gemini) => {
            let (out, changes) = gemini::repair(bytes);
            let after = diagnose(&out, Some(Format::Gemini));
            Repaired { bytes: out, changes, after }
        }
        // Garuda journals are repaired by resume as they are read: the
        // bytes come back.
        other => Repaired { bytes: bytes.to_vec(), changes: Vec::new(), after: diagnose(bytes, other) },
    }
}

#[cfg(test)]
mod tests;
