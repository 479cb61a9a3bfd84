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
use serde_json::Value;
use std::collections::BTreeMap;

/// codex #28866: a 37 GB rollout needed 80 GiB of swap to resume (the
/// whole file read into one string, then parsed). Above this, a warning.
const LARGE: u64 = 1000 * 1000 * 1000;

/// The items that pair, and which pair each is in (normalize.rs):
/// `f` function calls, `c` custom tool calls, `s` client tool searches.
/// Keys of the maps below are the pair's letter and the call_id; values
/// the line times 8 plus the item's place here (a BTreeMap of strings and
/// numbers, a shape the crate has already: the wasm stays small).
const TYPES: [(&str, bool, char); 7] = [
    ("function_call", true, 'f'),
    ("local_shell_call", true, 'f'),
    ("custom_tool_call", true, 'c'),
    ("tool_search_call", true, 's'),
    ("function_call_output", false, 'f'),
    ("custom_tool_call_output", false, 'c'),
    ("tool_search_output", false, 's'),
];

fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
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
    /// The history's calls and outputs (see `TYPES`).
    calls: BTreeMap<String, u64>,
    outputs: BTreeMap<String, u64>,
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

    fn record(&mut self, line: u64, p: &Value) {
        let kind = str_at(p, "type").unwrap_or("");
        let (Some(at), Some(id)) = (TYPES.iter().position(|t| t.0 == kind), str_at(p, "call_id")) else {
            return;
        };
        // A server-side search needs no call.
        if kind == "tool_search_output" && str_at(p, "execution") == Some("server") {
            return;
        }
        let (_, call, pair) = TYPES[at];
        let map = if call { &mut self.calls } else { &mut self.outputs };
        map.insert(format!("{pair}{id}"), line * 8 + at as u64);
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
        // A generic Value: the Codex reader parses its payloads so too, and
        // one more typed parser would cost the wasm kilobytes.
        let head = match serde_json::from_str::<Value>(text) {
            Ok(h) if h.is_object() => h,
            Ok(_) => {
                self.problems.push(warn(
                    n,
                    Kind::BadLine,
                    "the line is not a JSON object: Codex skips it".into(),
                ));
                return;
            }
            Err(e) => {
                self.problems.push(warn(
                    n,
                    Kind::BadLine,
                    format!("the line is not a rollout line ({e}): Codex skips it"),
                ));
                return;
            }
        };
        let Some(payload) = head.get("payload") else { return };
        match str_at(&head, "type") {
            Some("session_meta") => self.session |= str_at(payload, "id").is_some(),
            Some("response_item") => self.record(n, payload),
            Some("compacted") => {
                // The history is what the compaction left (rollout_reconstruction.rs).
                self.calls.clear();
                self.outputs.clear();
                let history = payload.get("replacement_history").and_then(Value::as_array);
                for item in history.into_iter().flatten() {
                    self.record(n, item);
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
        fn said(key: &str, v: u64) -> (u64, &'static str, &str) {
            (v / 8, TYPES[(v % 8) as usize].0, key.get(1..).unwrap_or(""))
        }
        for (key, &v) in &self.calls {
            if !self.outputs.contains_key(key) {
                let (line, kind, id) = said(key, v);
                let panics = if key.starts_with('c') {
                    "; a debug build of Codex (in some versions an alpha one too) panics on it: error_or_panic"
                } else {
                    ""
                };
                problems.push(warn(
                    line,
                    Kind::ToolUseUnanswered,
                    format!(
                        "a {kind} ({id}) that no output answers: Codex adds an \"aborted\" output when it resumes (normalize.rs, ensure_call_outputs_present){panics}"
                    ),
                ));
            }
        }
        for (key, &v) in &self.outputs {
            if !self.calls.contains_key(key) {
                let (line, kind, id) = said(key, v);
                problems.push(warn(
                    line,
                    Kind::ToolResultOrphan,
                    format!(
                        "a {kind} for {id}, whose call is not in the history Codex resumes (compacted away, or never written): Codex drops it when it resumes (normalize.rs, remove_orphan_outputs; a debug build, in some versions an alpha one too, panics on it)"
                    ),
                ));
            }
        }
        super::sort_problems(&mut problems);
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
    serde_json::from_str::<Value>(text).ok().filter(Value::is_object).map(|_| kept)
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
