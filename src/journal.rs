//! Reading journals and writing records (spec §1, §3).
//!
//! A `Journal` is the in-memory side of a session file. Replay feeds it the
//! file's text (whole, in chunks of any size, or line by line); live use
//! `write`s records, which are redacted, applied and returned as the line
//! to append. Both paths end in `SessionState::apply`, one record at a time,
//! so after every line the state is what a fresh replay of the lines so far
//! would give.

use crate::formats::{Format, Notice, Reader};
use crate::prices::Prices;
use crate::record::{with_fields, LineError};
use crate::redact::{Redactor, RedactorError};
use crate::state::{SessionState, Warning, WarningKind, MAX_NESTING};
use std::fmt;
use std::rc::Rc;

mod input;

/// The longest line a journal reads or writes by default: 64 MiB. A longer
/// one is refused at write and skipped with a warning at replay, without
/// ever being held in memory whole, so a runaway tool output cannot run the
/// process (or a browser tab) out of memory.
pub const DEFAULT_MAX_LINE: usize = 64 << 20;

#[derive(Debug)]
pub struct Journal {
    state: SessionState,
    /// Shared, not copied: its prefilter table is built once per Redactor.
    /// None until the first write (a replay never needs one).
    redactor: Option<Rc<Redactor>>,
    /// Lines seen so far (blank ones too): warnings carry 1-based numbers.
    lines: u64,
    /// The end of the last chunk when it did not end in a newline (bytes:
    /// a chunk of a file may end inside a UTF-8 character).
    partial: Vec<u8>,
    max_line: usize,
    /// Inside a line longer than `max_line`: its bytes are dropped up to
    /// its newline (its warning is already given).
    skipping: bool,
    /// Live writes keep what the model saw in memory (unredacted) and give
    /// the redacted line for the disk; a message whose line changed is
    /// marked redacted, as replay of that line would mark it.
    model_view: bool,
    /// Live writes refuse a record that replay would skip or warn about (a
    /// field of the wrong type, an unknown type, an undo with nothing to
    /// undo): nothing is written, nothing changes.
    strict: bool,
    /// The format asked for (None: detect it from the first line).
    forced: Option<Format>,
    /// The reader of another agent's format, once the file says which.
    reader: Option<Reader>,
    /// Import keeps the records readers hand back (None: not kept).
    translated: Option<Vec<(u64, String)>>,
    /// Readers may keep only requests' usage (a usage report's replay).
    usage_only: bool,
    /// A line was offered to detection: a lone `{` after it opens no Gemini
    /// CLI document (one is its file's first line).
    detect_tried: bool,
    /// The line of a lone `{` that opened the file, taken for a Gemini CLI
    /// document until the next line says (0: none).
    lone_brace: u64,
    /// A child run inside the file to read alone (`with_run`).
    run: Option<String>,
    /// Keep the file's inline runs to read each alone (`keeping_runs`).
    keep_runs: bool,
    prices: Rc<Prices>,
    /// The conversation as the model gets it (see `resume::view`).
    view: crate::resume::view::ModelView,
    /// Where each fed line starts (`with_line_starts`), noted by the same
    /// newline search that cuts the chunks into lines.
    line_starts: Option<crate::lines::LineStarts>,
}

impl Default for Journal {
    fn default() -> Journal {
        Journal {
            state: SessionState::default(),
            redactor: None,
            lines: 0,
            partial: Vec::new(),
            max_line: DEFAULT_MAX_LINE,
            skipping: false,
            model_view: false,
            strict: false,
            forced: None,
            reader: None,
            translated: None,
            usage_only: false,
            detect_tried: false,
            lone_brace: 0,
            prices: Prices::built_in(),
            view: Default::default(),
            run: None,
            keep_runs: false,
            line_starts: None,
        }
    }
}

/// Why `Journal::write` refused a record. Nothing was applied.
#[derive(Debug, Clone, PartialEq)]
pub struct WriteError(String);

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WriteError {}

impl From<RedactorError> for WriteError {
    fn from(e: RedactorError) -> Self {
        WriteError(e.to_string())
    }
}

/// `rebuildState`: replays a whole journal text.
pub fn rebuild_state(text: &str) -> SessionState {
    let mut journal = Journal::default();
    journal.feed(text);
    journal.finish();
    journal.into_state()
}

impl Journal {
    pub fn new(redactor: Redactor) -> Journal {
        Journal::shared(Rc::new(redactor))
    }

    /// A journal that writes through a Redactor shared with others.
    pub fn shared(redactor: Rc<Redactor>) -> Journal {
        Journal { redactor: Some(redactor), ..Journal::default() }
    }

    /// Live writes keep the unredacted record in memory (see `model_view`).
    pub fn with_model_view(mut self, on: bool) -> Journal {
        self.model_view = on;
        self
    }

    /// Live writes refuse what replay would skip (see `strict`).
    pub fn with_strict(mut self, on: bool) -> Journal {
        self.strict = on;
        self
    }

    /// Sets the longest line read or written (bytes, without the newline).
    /// Reads the input as `format` instead of detecting it.
    pub fn with_format(mut self, format: Format) -> Journal {
        self.forced = Some(format);
        self
    }

    /// Prices readers use to cost other agents' requests (the built-in table by default).
    pub fn with_prices(mut self, prices: Rc<Prices>) -> Journal {
        self.prices = prices;
        self
    }

    /// Keeps the whole history in the state (`state.history`): every
    /// message as it came and the landmarks between, for export and viewers.
    pub fn with_history(mut self) -> Journal {
        self.state.history = Some(Vec::new());
        self
    }

    /// A replay for a usage report: the usage, cost and ledger are exact;
    /// another agent's messages may be left out (they are, for Claude Code:
    /// its usage is read without parsing a prompt or a tool result).
    pub fn for_usage(mut self) -> Journal {
        self.usage_only = true;
        self.state.request_rows = Some(Box::default());
        self
    }

    /// Keeps the inline runs of another agent's file (Claude Code 1.x Task
    /// runs) when the read ends, for `run_journal`.
    pub fn keeping_runs(mut self) -> Journal {
        self.keep_runs = true;
        self
    }

    /// After `finish` of a read `keeping_runs`: the run the Task call
    /// `tool_use_id` started, read from what was kept, as `with_run` reads
    /// it from the whole file (same options; the file's warnings about its
    /// lines stay with this read). None when the file has no such run.
    pub fn run_journal(&mut self, tool_use_id: &str) -> Option<Journal> {
        let (mut out, mut notices) = (Vec::new(), Vec::new());
        if !self.reader.as_mut()?.run_records(tool_use_id, &mut out, &mut notices) {
            return None;
        }
        let mut run = Journal {
            redactor: self.redactor.clone(),
            max_line: self.max_line,
            model_view: self.model_view,
            strict: self.strict,
            forced: self.forced,
            prices: Rc::clone(&self.prices),
            run: Some(tool_use_id.to_owned()),
            lines: self.lines,
            ..Journal::default()
        };
        run.state.format = self.state.format;
        run.state.history = self.state.history.as_ref().map(|_| Vec::new());
        run.apply_translated(out, notices);
        Some(run)
    }

    /// Keeps the records that a reader of another format hands back, for
    /// `take_translated` (import writes them as a Garuda journal).
    /// Reads one child run inside another agent's file: the Claude Code
    /// sidechain that the Task call `tool_use_id` started (its
    /// `childSessionId` is `sidechain-<tool_use_id>`).
    pub fn with_run(mut self, tool_use_id: &str) -> Journal {
        self.run = Some(tool_use_id.to_owned());
        self
    }

    /// After `finish` of a usage-only read (`for_usage`): one row per
    /// request (`usage_rows`), Claude Code's with their keys.
    pub fn request_rows(&self) -> Option<&crate::usage_rows::RequestRows> {
        self.state.request_rows.as_deref()
    }

    pub fn keeping_translation(mut self) -> Journal {
        self.translated = Some(Vec::new());
        self
    }

    /// The records read so far from another agent's session (after `finish`:
    /// all of them), in Garuda's format, each with the line of the file it
    /// came from; empty for a Garuda journal.
    pub fn take_translated(&mut self) -> Vec<(u64, String)> {
        self.translated.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Notes where each fed line starts (`line_range`), for a viewer that
    /// reads a line again from its file.
    pub fn with_line_starts(mut self) -> Journal {
        self.line_starts = Some(Default::default());
        self
    }

    /// `[start, end)`: the bytes of fed line `n` (1-based, without its
    /// newline), when made `with_line_starts`.
    pub fn line_range(&self, n: u64) -> Option<(u64, u64)> {
        self.line_starts.as_ref()?.range(n)
    }

    pub fn with_max_line(mut self, max_line: usize) -> Journal {
        self.max_line = max_line.max(1);
        self
    }

    pub fn state(&self) -> &SessionState {
        &self.state
    }

    /// The conversation as the model gets it, made current, with the state
    /// it reads its messages from.
    pub fn model_view(&mut self) -> (&crate::resume::view::ModelView, &SessionState) {
        self.view.refresh(&self.state);
        (&self.view, &self.state)
    }

    /// The whole history, to let a viewer forget messages it can read again
    /// (`Transcript::forget_messages`).
    pub fn history_mut(&mut self) -> &mut [crate::state::HistoryItem] {
        self.state.history.as_deref_mut().unwrap_or_default()
    }

    pub fn into_state(self) -> SessionState {
        self.state
    }

    pub fn redactor(&mut self) -> &Redactor {
        self.redactor.get_or_insert_with(|| Rc::new(Redactor::default()))
    }

    /// Lines read or written so far.
    pub fn line_count(&self) -> u64 {
        self.lines
    }

    /// Ends the input: a last line without its newline is applied when it
    /// parses, and is a torn tail (a crash mid-write) when it does not.
    pub fn finish(&mut self) {
        self.skipping = false;
        let line = std::mem::take(&mut self.partial);
        match crate::bytes::utf8(&line) {
            Ok(text) => self.read_last_line(text),
            // Cut inside a character: torn for sure.
            Err(e) if e.error_len().is_none() => {
                self.lines += 1;
                self.state.torn_tail = true;
            }
            // A bad byte inside it: read as a line that is not UTF-8 is.
            Err(_) => {
                let text = String::from_utf8_lossy(&line);
                let message = "bytes that are not UTF-8 were read as U+FFFD".to_owned();
                self.state.warn(Warning { line: self.lines + 1, kind: WarningKind::NotUtf8, message });
                self.read_last_line(&text);
            }
        }
        self.finish_reader();
    }

    /// What another agent's reader kept to the end (out of line: see
    /// `read_foreign_line`).
    #[inline(never)]
    fn finish_reader(&mut self) {
        if let Some(mut reader) = self.reader.take() {
            let (mut out, mut notices) = (Vec::new(), Vec::new());
            reader.finish(&mut out, &mut notices);
            let before = self.state.request_rows.as_ref().map_or(0, |r| r.len());
            let responses = reader.take_responses();
            // A usage-only read's session id comes back typed (claude_usage.rs
            // says why); kept as its JSON text, as a start record's field is.
            if let Some(id) = reader.take_session_id() {
                let id = crate::json_str::str_literal(&id);
                if let Some(kept) = &mut self.translated {
                    kept.push((1, format!(r#"{{"type":"start","sessionId":{id}}}"#)));
                }
                self.state.session_id = Some(id.into());
            }
            let line = self.lines.max(1);
            if self.translated.is_some() {
                // Kept as records (import writes them): applied as records.
                out.extend(responses.iter().map(|r| (line, r.record())));
                self.apply_translated(out, notices);
            } else {
                self.apply_translated(out, notices);
                for r in &responses {
                    let usage = crate::accounting::Usage {
                        input_tokens: r.tokens.input,
                        output_tokens: r.tokens.output,
                        cache_read_tokens: r.tokens.cache_read,
                        cache_write_tokens: r.tokens.cache_write_5m + r.tokens.cache_write_1h,
                    };
                    self.state.add_side_usage(r.t.as_deref(), r.model.as_deref(), &usage, r.cost);
                }
            }
            // The reader's keys, one per response it handed back in order
            // (a Claude Code usage read books them all here, at the end);
            // should a count differ, no key is set and nothing is dropped.
            let keys = reader.request_keys();
            if let Some(rows) = &mut self.state.request_rows {
                if rows.len() - before == keys.len() {
                    for (i, (key, one_hour)) in keys.iter().enumerate() {
                        rows.set_key(before + i, *key, *one_hour);
                    }
                }
            }
            self.reader = Some(reader);
        }
    }

    /// Which format the first line that says one is in; a reader for it.
    #[inline(never)]
    fn detect(&mut self, line: &str) {
        // A JSON array of log entries (Gemini CLI's logs.json) opens with `[`
        // and holds `{` on its next line: that is no session document.
        let opener = std::mem::replace(&mut self.detect_tried, true) && line.trim() == "{";
        let detected = if opener { None } else { Format::detect(line) };
        // Not for Garuda: what `write` wrote is a Garuda journal whatever its
        // first record looks like (an unknown type is skipped, live too).
        let forced = self.forced.filter(|f| *f != Format::Garuda);
        if let (Some(forced), Some(seen)) = (forced, detected.filter(|d| Some(*d) != forced)) {
            // A forced reader skips what it does not know, so a file of
            // another agent read as it would count nothing, silently.
            self.state.warn(Warning {
                line: self.lines,
                kind: WarningKind::BadRecord,
                message: format!(
                    "the format {} was asked for, but this line is a {} session's: what is read may be wrong",
                    forced.as_str(),
                    seen.as_str()
                ),
            });
        }
        let format = self.forced.or(detected);
        if let Some(format) = format {
            self.state.format = Some(format);
            self.reader = match &self.run {
                Some(id) => Reader::child_run(format, Rc::clone(&self.prices), id),
                None => Reader::new(format, Rc::clone(&self.prices), self.usage_only),
            };
            if self.keep_runs {
                if let Some(r) = &mut self.reader {
                    r.keep_runs();
                }
            }
        }
    }

    /// Records a reader handed back, applied as replay applies a journal's.
    fn apply_translated(&mut self, out: crate::formats::Out, notices: Vec<Notice>) {
        for (number, record) in out {
            if let Some(kept) = &mut self.translated {
                kept.push((number, record.clone()));
            }
            let (state, view) = (&mut self.state, &mut self.view);
            let outcome = with_fields(&record, |kind, fields| {
                let deep = may_nest_deep(&record, fields);
                observed(state, view, kind, number, false, |s| {
                    s.apply_marked(kind, fields, number, false, deep)
                })
            });
            if let Some((kind, message)) = warning_of(outcome) {
                self.state.warn(Warning { line: number, kind, message });
            }
        }
        for notice in notices {
            let (line, kind, message) = match notice {
                Notice::BadLine(line, m) => (line, WarningKind::BadJson, m),
                Notice::BadRecord(line, m) => (line, WarningKind::BadRecord, m),
                Notice::BadField(line, m) => (line, WarningKind::BadField, m),
                Notice::OtherBranches(line, n) => {
                    (line, WarningKind::OtherBranch, format!("{n} lines on other branches (a rewind or an edited prompt) are not in the conversation"))
                }
                Notice::UsageUnknown(line, m) => {
                    self.state.accounts.cost_usd = None;
                    if let Some(kept) = &mut self.translated {
                        for (_, record) in kept.iter_mut() {
                            cost_unknown(record);
                        }
                    }
                    (line, WarningKind::UsageUnknown, m)
                }
                Notice::NotThisFormat(line, m) => {
                    self.state.format = None;
                    self.state.accounts.cost_usd = None;
                    (line, WarningKind::BadRecord, m)
                }
                Notice::Joined(line, n) => (
                    line,
                    WarningKind::BadJson,
                    format!("{n} JSON objects on one line (a write that lost its newline): each was read"),
                ),
            };
            self.state.warn(Warning { line, kind, message });
        }
    }

    /// Reads one complete line (its newline already stripped).
    pub fn read_line(&mut self, line: &str) {
        self.lines += 1;
        self.apply_line(line, false);
    }

    /// Reads the final line of an input that did not end in a newline.
    pub fn read_last_line(&mut self, line: &str) {
        if line.trim().is_empty() {
            return;
        }
        self.lines += 1;
        self.apply_line(line, true);
    }

    /// `write`: redacts a record, applies it, and returns the line to append
    /// (without its newline). A record that is not one JSON object is
    /// refused and nothing changes.
    /// An unchanged record comes back borrowed: the caller's own text.
    pub fn write<'a>(&mut self, record: &'a str) -> Result<std::borrow::Cow<'a, str>, WriteError> {
        use std::borrow::Cow;
        match self.state.format {
            Some(Format::Garuda) | None => {}
            Some(other) => {
                return Err(WriteError(format!(
                    "this journal holds a {} session: records are written to Garuda journals only (import it first)",
                    other.as_str()
                )))
            }
        }
        if record.len() > self.max_line {
            return Err(self.line_too_long(record.len()));
        }
        // A record spread over several lines is one line on disk (raw line
        // breaks in JSON are white space between tokens).
        let one_line: Cow<'a, str> = if crate::bytes::find_byte(record.as_bytes(), b'\n').is_some()
            || crate::bytes::find_byte(record.as_bytes(), b'\r').is_some()
        {
            Cow::Owned(record.replace(['\n', '\r'], " "))
        } else {
            Cow::Borrowed(record)
        };
        let redactor = Rc::clone(self.redactor.get_or_insert_with(|| Rc::new(Redactor::default())));
        let redaction = redactor.redact_line_lazily(&one_line)?;
        let changed = redaction.changed;
        let redacted: Option<String> = changed.then(|| redaction.line.into_owned());
        let line: &str = redacted.as_deref().unwrap_or(&one_line);
        if line.len() > self.max_line {
            return Err(self.line_too_long(line.len()));
        }
        // What memory takes: the line for the disk, or (model view) what the
        // model saw, marked redacted when the disk's line differs.
        let (model_view, strict) = (self.model_view, self.strict);
        let source: &str = if model_view { &one_line } else { line };
        let (state, view) = (&mut self.state, &mut self.view);
        let number = self.lines + 1;
        let outcome = with_fields(source, |kind, fields| {
            // Refused before it is applied: replay keeps such a message.
            if strict {
                if let Some((_, why)) = crate::state::not_the_users(kind, fields) {
                    return Err(why);
                }
            }
            let deep = may_nest_deep(source, fields);
            observed(state, view, kind, number, true, |s| {
                s.apply_marked(kind, fields, number, model_view && changed, deep)
            })
        });
        if let Err(LineError::BadJson(m) | LineError::BadRecord(m)) = &outcome {
            return Err(WriteError(format!("a record must be one JSON object with a string `type`: {m}")));
        }
        let warning = warning_of(outcome);
        if strict {
            if let Some((kind, message)) = warning.clone().filter(|(k, _)| *k != WarningKind::TooDeep) {
                return Err(WriteError(format!("{}: {message}", kind.as_str())));
            }
        }
        self.lines = number;
        if let Some((kind, message)) = warning {
            self.state.warn(Warning { line: number, kind, message });
        }
        // What `write` writes is a Garuda journal (said once a record is in).
        if self.state.format.is_none() {
            self.state.format = Some(Format::Garuda);
            self.reader = None;
        }
        Ok(match (&one_line, redacted) {
            (_, Some(line)) => Cow::Owned(line),
            (Cow::Borrowed(_), None) => Cow::Borrowed(record),
            (Cow::Owned(line), None) => Cow::Owned(line.clone()),
        })
    }

    fn line_too_long(&self, len: usize) -> WriteError {
        WriteError(format!(
            "the record is {len} bytes, over the maximum line size of {} bytes: nothing was written",
            self.max_line
        ))
    }

    /// Applies a line.
    fn apply_line(&mut self, line: &str, last: bool) {
        let line = line.strip_suffix('\r').unwrap_or(line);
        // A byte-order mark some editors put at the start of a file is not
        // part of its first record (that record was read as a bad line).
        let line = if self.lines == 1 { line.strip_prefix('\u{feff}').unwrap_or(line) } else { line };
        if line.trim().is_empty() {
            return;
        }
        let brace = std::mem::take(&mut self.lone_brace);
        if brace > 0 && line.trim() != "{" && Format::detect(line).is_some() {
            self.torn_first_brace(brace);
        }
        if self.state.format.is_none() {
            self.detect(line);
            if self.state.format == Some(Format::Gemini) && self.forced.is_none() && line.trim() == "{" {
                self.lone_brace = self.lines;
            }
        }
        if self.reader.is_some() {
            return self.read_foreign_line(line, last);
        }
        self.apply_record_line(line, last);
    }

    /// A lone `{` opened the file and a whole record of some format follows:
    /// the `{` is what a crash left of a first record (a store writes on
    /// after a torn line), not a Gemini CLI document's first line. Read as
    /// one, the whole journal was lost to a document that does not parse.
    #[cold]
    fn torn_first_brace(&mut self, line: u64) {
        self.reader = None;
        self.state.format = None;
        self.state.warn(Warning {
            line,
            kind: WarningKind::BadJson,
            message: "a line cut short (a lone `{`), where a record was being written".into(),
        });
    }

    /// Another agent's line, through its reader. Out of line, like
    /// `apply_record_line`: the engine optimises a function whole once it is
    /// hot, and one function holding both paths (readers, records) took
    /// V8's optimising compiler over 100 ms, on the critical path of a
    /// `usage` run that needs only one of them (`--trace-wasm-compilation-times`).
    #[inline(never)]
    fn read_foreign_line(&mut self, line: &str, last: bool) {
        let Some(reader) = &mut self.reader else { return };
        let (mut out, mut notices) = (Vec::new(), Vec::new());
        reader.line(self.lines, line, &mut out, &mut notices);
        if last && notices.iter().any(|n| matches!(n, Notice::BadLine(..))) {
            notices.retain(|n| !matches!(n, Notice::BadLine(..)));
            self.state.torn_tail = true;
        }
        self.apply_translated(out, notices);
    }

    /// A Garuda journal's line: parsed and applied as a record.
    #[inline(never)]
    fn apply_record_line(&mut self, line: &str, last: bool) {
        let (state, view) = (&mut self.state, &mut self.view);
        let number = self.lines;
        let outcome = with_fields(line, |kind, fields| {
            let deep = may_nest_deep(line, fields);
            observed(state, view, kind, number, false, |s| s.apply_marked(kind, fields, number, false, deep))
        });
        if last && matches!(outcome, Err(LineError::BadJson(_))) {
            self.state.torn_tail = true;
        } else if let Some((kind, message)) = warning_of(outcome) {
            self.state.warn(Warning { line: number, kind, message });
        }
    }
}

/// Whether a message in `line` may nest deeper than `MAX_NESTING`, so the
/// state must look. Not when the walk read the line (it nests too little);
/// else more opening brackets than that is the only way (a vectorised
/// count, stopping there).
fn may_nest_deep(line: &str, fields: &crate::record::Fields) -> bool {
    const { assert!(crate::record::SHALLOW <= MAX_NESTING) };
    !fields.shallow && crate::bytes::count_openings(line.as_bytes(), MAX_NESTING) > MAX_NESTING
}

/// Applies a record and lets the model view take note of it when it was
/// applied (a record refused or skipped changes nothing).
fn observed<T>(
    state: &mut SessionState,
    view: &mut crate::resume::view::ModelView,
    kind: crate::record::RecordKind,
    line: u64,
    live: bool,
    apply: impl FnOnce(&mut SessionState) -> Result<T, String>,
) -> Result<T, String> {
    let before = state.messages.len();
    let outcome = apply(state);
    if outcome.is_ok() {
        view.observe(kind, line, before, state, live);
    }
    outcome
}

/// The warning, if any, for how applying a line went (replay and live write
/// report the same things, which keeps live equal to replay).
fn warning_of(outcome: Result<Option<(WarningKind, String)>, LineError>) -> Option<(WarningKind, String)> {
    match outcome {
        Ok(warning) => warning,
        Err(LineError::BadJson(m)) => Some((WarningKind::BadJson, m)),
        Err(LineError::BadRecord(m)) => Some((WarningKind::BadRecord, m)),
        Err(LineError::UnknownType(t)) => {
            Some((WarningKind::UnknownType, format!("unknown record type `{t}`, skipped")))
        }
        Err(LineError::BadField(m)) => Some((WarningKind::BadField, m)),
    }
}

/// The index of the first `\n`.
pub(crate) fn find_newline(bytes: &[u8]) -> Option<usize> {
    crate::bytes::find_byte(bytes, b'\n')
}

#[cfg(test)]
mod tests;

/// Marks a translated response's cost unknown (`costUsd: null`): its reader
/// found, at the end, that the session's usage was never written, so the
/// zeros standing for it in an import would replay as $0. The readers write
/// `costUsd` after the content and usage (`formats::records`), so its last
/// occurrence is the record's own.
fn cost_unknown(record: &mut String) {
    if !(record.starts_with(r#"{"type":"assistant""#) || record.starts_with(r#"{"type":"side_usage""#)) {
        return;
    }
    const KEY: &str = r#","costUsd":"#;
    match record.rfind(KEY) {
        Some(at) => {
            let value = at + KEY.len();
            let end = record[value..].find([',', '}']).map_or(record.len(), |i| value + i);
            record.replace_range(value..end, "null");
        }
        None => {
            if record.ends_with('}') {
                record.insert_str(record.len() - 1, r#","costUsd":null"#);
            }
        }
    }
}
