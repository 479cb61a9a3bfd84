//! The doctor for Codex CLI rollouts, by the rules of Codex's own source
//! (openai/codex, codex-rs/core):
//! - `rollout/recorder.rs`, `load_rollout_items`: the rollout is read as
//!   UTF-8 text (`read_to_string`, or a line reader whose `next_line` fails
//!   the same way), so one line that is not UTF-8 fails the whole resume; a
//!   file of white space is "empty session file"; a line that is not JSON,
//!   or not a rollout line, is skipped with a warning; `get_rollout_history`
//!   fails with "failed to parse thread ID from rollout file" when no
//!   `session_meta` line gives the session's id;
//! - `codex/rollout_reconstruction.rs`: a `compacted` line with a
//!   `replacement_history` replaces the history with it; one without (older
//!   rollouts) rebuilds it from the user messages and the summary, so no
//!   call survives it;
//! - `context_manager/normalize.rs`, run on every prompt
//!   (`ContextManager::for_prompt`): `ensure_call_outputs_present` adds an
//!   output `"aborted"` right after a call that has none, and
//!   `remove_orphan_outputs` drops an output whose call is not in the
//!   history, pairing by `call_id` over the whole history (not by
//!   position); `function_call_output` answers `function_call` and
//!   `local_shell_call`, `custom_tool_call_output` answers
//!   `custom_tool_call`, and a server-side `tool_search_output` needs no
//!   call. A release build logs these and goes on (`error_or_panic`); a
//!   debug build panics on an orphan output or a custom call without one.
//!   So they are warnings: the file resumes, and `repair` leaves them, as a
//!   file that resumes must come back byte for byte;
//! - reasoning items (`encrypted_content`) are sent back as they were
//!   written; Codex has no rule on them at resume that this file could
//!   break (none is documented), so they are read past, never changed.
//!
//! The diagnosis keeps per-line summaries only (call ids, line numbers), so
//! it reads a file in chunks (`Diagnoser`), in memory bounded by its calls.

use super::lines::Lines;
use super::{Change, ChangeKind, Kind, Problem, Severity};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::HashMap;

/// codex #28866: a 37 GB rollout needed 80 GiB of swap to resume (the
/// whole file read into one string, then parsed). Above this, a warning.
const LARGE: u64 = 1000 * 1000 * 1000;

#[derive(Deserialize)]
struct LineHead<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    payload: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct Payload<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    execution: Option<Cow<'a, str>>,
    #[serde(borrow)]
    replacement_history: Option<Vec<&'a RawValue>>,
}

/// Which outputs answer which calls (normalize.rs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Pair {
    Function,
    Custom,
    ToolSearch,
}

/// A call or an output, as the pairing sees it.
enum Item {
    Call(Pair, String),
    Output(Pair, String),
    Other,
}

fn item(p: &Payload) -> Item {
    let id = p.call_id.as_deref().map(str::to_owned);
    match (p.kind.as_deref().unwrap_or(""), id) {
        ("function_call" | "local_shell_call", Some(id)) => Item::Call(Pair::Function, id),
        ("custom_tool_call", Some(id)) => Item::Call(Pair::Custom, id),
        ("tool_search_call", Some(id)) => Item::Call(Pair::ToolSearch, id),
        ("function_call_output", Some(id)) => Item::Output(Pair::Function, id),
        ("custom_tool_call_output", Some(id)) => Item::Output(Pair::Custom, id),
        // A server-side search, or one without an id, is kept as it is.
        ("tool_search_output", Some(id)) if p.execution.as_deref() != Some("server") => {
            Item::Output(Pair::ToolSearch, id)
        }
        _ => Item::Other,
    }
}

/// The diagnosis of a rollout read in chunks.
#[derive(Default)]
pub struct Diagnoser {
    lines: Lines,
    len: u64,
    problems: Vec<Problem>,
    /// Lines that are not UTF-8 (what `repair` drops).
    not_utf8: Vec<u64>,
    any: bool,
    session: bool,
    /// The history's calls and outputs: (pair, call_id) → (line, type).
    calls: HashMap<(Pair, String), (u64, String)>,
    outputs: HashMap<(Pair, String), (u64, String)>,
}

fn warn(line: u64, kind: Kind, message: String) -> Problem {
    Problem { line, kind, severity: Severity::Warning, message }
}

impl Diagnoser {
    pub fn feed(&mut self, chunk: &[u8]) {
        self.len += chunk.len() as u64;
        let mut lines = std::mem::take(&mut self.lines);
        lines.feed(chunk, |n, l| self.line(n, l));
        self.lines = lines;
    }

    fn record(&mut self, line: u64, raw: &str) {
        let Ok(p) = serde_json::from_str::<Payload>(raw) else { return };
        let kind = p.kind.as_deref().unwrap_or("").to_owned();
        match item(&p) {
            Item::Call(pair, id) => {
                self.calls.insert((pair, id), (line, kind));
            }
            Item::Output(pair, id) => {
                self.outputs.insert((pair, id), (line, kind));
            }
            Item::Other => {}
        }
    }

    fn line(&mut self, n: u64, bytes: &[u8]) {
        let Ok(text) = std::str::from_utf8(bytes) else {
            self.any = true;
            self.not_utf8.push(n);
            self.problems.push(Problem {
                line: n,
                kind: Kind::BadLine,
                severity: Severity::Error,
                message: "the line is not UTF-8: Codex reads the rollout as text, so the whole resume fails (recorder.rs, load_rollout_items)".into(),
            });
            return;
        };
        if text.trim().is_empty() {
            return;
        }
        self.any = true;
        let head = match serde_json::from_str::<LineHead>(text) {
            Ok(h) => h,
            Err(e) => {
                self.problems.push(warn(
                    n,
                    Kind::BadLine,
                    format!("the line is not a rollout line ({e}): Codex skips it"),
                ));
                return;
            }
        };
        let Some(payload) = head.payload else { return };
        match head.kind.as_deref() {
            Some("session_meta") => {
                let id = serde_json::from_str::<Payload>(payload.get()).ok().and_then(|p| p.id.map(|_| ()));
                self.session |= id.is_some();
            }
            Some("response_item") => self.record(n, payload.get()),
            Some("compacted") => {
                // The history is what the compaction left (rollout_reconstruction.rs).
                self.calls.clear();
                self.outputs.clear();
                let history =
                    serde_json::from_str::<Payload>(payload.get()).ok().and_then(|p| p.replacement_history);
                for item in history.into_iter().flatten() {
                    self.record(n, item.get());
                }
            }
            _ => {}
        }
    }

    pub fn finish(mut self) -> (Vec<Problem>, Vec<u64>) {
        let mut lines = std::mem::take(&mut self.lines);
        lines.finish(|n, l| self.line(n, l));
        let mut problems = std::mem::take(&mut self.problems);
        if self.len > LARGE {
            problems.push(warn(
                0,
                Kind::TooLarge,
                format!(
                    "the file is {:.0} MB: Codex reads a rollout whole to resume it, and a 37 GB one needed 80 GiB of swap (codex#28866)",
                    self.len as f64 / 1e6
                ),
            ));
        }
        if !self.any {
            problems.push(Problem {
                line: 0,
                kind: Kind::NoSession,
                severity: Severity::Error,
                message: "the file is empty: Codex refuses it (\"empty session file\")".into(),
            });
        } else if !self.session {
            problems.push(Problem {
                line: 0,
                kind: Kind::NoSession,
                severity: Severity::Error,
                message: "no session_meta line gives the session's id: Codex refuses to resume it (\"failed to parse thread ID from rollout file\")".into(),
            });
        }
        for ((pair, id), (line, kind)) in &self.calls {
            if !self.outputs.contains_key(&(*pair, id.clone())) {
                let panics = if *pair == Pair::Custom {
                    "; a debug build of Codex (in some versions an alpha one too) panics on it: error_or_panic"
                } else {
                    ""
                };
                problems.push(warn(
                    *line,
                    Kind::ToolUseUnanswered,
                    format!(
                        "a {kind} ({id}) that no output answers: Codex adds an \"aborted\" output when it resumes (normalize.rs, ensure_call_outputs_present){panics}"
                    ),
                ));
            }
        }
        for ((pair, id), (line, kind)) in &self.outputs {
            if !self.calls.contains_key(&(*pair, id.clone())) {
                problems.push(warn(
                    *line,
                    Kind::ToolResultOrphan,
                    format!(
                        "a {kind} for {id}, whose call is not in the history Codex resumes (compacted away, or never written): Codex drops it when it resumes (normalize.rs, remove_orphan_outputs; a debug build, in some versions an alpha one too, panics on it)"
                    ),
                ));
            }
        }
        problems.sort_by(|a, b| (a.line, a.kind.as_str()).cmp(&(b.line, b.kind.as_str())));
        (problems, self.not_utf8)
    }
}

pub fn diagnose(bytes: &[u8]) -> Vec<Problem> {
    let mut d = Diagnoser::default();
    d.feed(bytes);
    d.finish().0
}

/// A torn write is followed by the next line on the same line (the writer
/// appends each line whole): the last rollout line that starts after the
/// bytes that are not UTF-8, when it is whole, is kept.
fn salvage(line: &[u8]) -> Option<&[u8]> {
    let bad = std::str::from_utf8(line).err()?.valid_up_to();
    let tail = &line[bad..];
    let start = (0..tail.len()).rev().find(|&i| tail[i..].starts_with(br#"{"timestamp":"#))?;
    let kept = &tail[start..];
    let text = std::str::from_utf8(kept).ok()?;
    serde_json::from_str::<LineHead>(text).ok().map(|_| kept)
}

/// The least change that lets Codex read the rollout: each line that is not
/// UTF-8 goes (Codex would skip it, were the file readable). A file that
/// resumes, or whose only errors no edit can mend (no session id), is given
/// back byte for byte.
pub fn repair(bytes: &[u8]) -> (Vec<u8>, Vec<Change>) {
    let mut d = Diagnoser::default();
    d.feed(bytes);
    let (_, not_utf8) = d.finish();
    if not_utf8.is_empty() {
        return (bytes.to_vec(), Vec::new());
    }
    let mut out = Vec::with_capacity(bytes.len());
    let mut changes = Vec::new();
    let mut next = not_utf8.iter().peekable();
    // Each line with its newline: a dropped line takes its newline along.
    for (i, piece) in bytes.split_inclusive(|&b| b == b'\n').enumerate() {
        let n = i as u64 + 1;
        if next.peek() == Some(&&n) {
            next.next();
            let (body, newline) = match piece.strip_suffix(b"\n") {
                Some(b) => (b, "\n"),
                None => (piece, ""),
            };
            let message = match salvage(body) {
                Some(kept) => {
                    out.extend_from_slice(kept);
                    out.extend_from_slice(newline.as_bytes());
                    format!(
                        "the torn write (its first {} bytes, not UTF-8) is left out; the rollout line appended to it is kept",
                        body.len() - kept.len()
                    )
                }
                None => {
                    "the line is left out: it is not UTF-8, and Codex cannot read the file with it".into()
                }
            };
            changes.push(Change { line: n, kind: ChangeKind::LineRemoved, block: None, message });
            continue;
        }
        out.extend_from_slice(piece);
    }
    (out, changes)
}
