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
    /// A child run inside the file to read alone (`with_run`).
    run: Option<String>,
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
            prices: Prices::built_in(),
            view: Default::default(),
            run: None,
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

    /// Notes a newline at byte `at` of the chunk being fed.
    #[inline]
    fn newline(&mut self, at: usize) {
        if let Some(starts) = &mut self.line_starts {
            starts.newline(at);
        }
    }

    /// The chunk being fed, `len` bytes, is done.
    fn end_chunk(&mut self, len: usize) {
        if let Some(starts) = &mut self.line_starts {
            starts.end_chunk(len);
        }
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

    /// Feeds journal text. Chunks may split lines anywhere; an unfinished
    /// last line waits for the next chunk or for `finish`.
    pub fn feed(&mut self, chunk: &str) {
        let rest = self.complete_partial(chunk.as_bytes());
        // `rest` starts right after a newline (or is all of `chunk`): a
        // character boundary, so the slice is free and cannot fail.
        let at = chunk.len() - rest.len();
        if let Some(text) = chunk.get(at..) {
            self.feed_text(text, at);
        }
        self.end_chunk(chunk.len());
    }

    /// Feeds journal bytes as read from a file: chunks may split lines and
    /// even UTF-8 characters anywhere. A line that is not UTF-8 is skipped
    /// with a warning, like any line that is not JSON.
    pub fn feed_bytes(&mut self, chunk: &[u8]) {
        let mut rest = self.complete_partial(chunk);
        let mut at = chunk.len() - rest.len();
        // For a usage read, the lines before the format is known are read
        // alone: the first picks the reader, and the rest of the chunk (most
        // files are one chunk) can then go the reader's way.
        if self.usage_only && self.state.format.is_none() {
            (rest, at) = self.raw_lines(rest, at, |j| j.state.format.is_none());
        }
        if self.reader.as_ref().is_some_and(|r| r.may_pass_over()) {
            self.feed_raw(rest, at);
            self.end_chunk(chunk.len());
            return;
        }
        match std::str::from_utf8(rest) {
            Ok(text) => self.feed_text(text, at),
            Err(e) => {
                // Whole lines of the valid prefix go the fast way; the rest
                // line by line.
                let valid = &rest[..e.valid_up_to()];
                let cut = crate::bytes::find_last_byte(valid, b'\n').map_or(0, |i| i + 1);
                if let Ok(text) = std::str::from_utf8(&rest[..cut]) {
                    self.feed_text(text, at);
                }
                self.feed_raw(&rest[cut..], at + cut);
            }
        }
        self.end_chunk(chunk.len());
    }

    /// Finishes the line left over from the last chunk, if any, and returns
    /// what follows it.
    fn complete_partial<'c>(&mut self, chunk: &'c [u8]) -> &'c [u8] {
        if self.skipping {
            return match find_newline(chunk) {
                Some(i) => {
                    self.newline(i);
                    self.skipping = false;
                    &chunk[i + 1..]
                }
                None => &[],
            };
        }
        if self.partial.is_empty() {
            return chunk;
        }
        let newline = find_newline(chunk);
        if let Some(i) = newline {
            self.newline(i);
        }
        match newline {
            Some(i) if self.partial.len() + i > self.max_line => {
                self.partial = Vec::new();
                self.too_long();
                &chunk[i + 1..]
            }
            Some(i) => {
                let mut line = std::mem::take(&mut self.partial);
                line.extend_from_slice(&chunk[..i]);
                self.read_line_bytes(&line);
                &chunk[i + 1..]
            }
            None => {
                self.keep_partial(chunk);
                &[]
            }
        }
    }

    /// Keeps the start of an unfinished line, unless the line is already
    /// too long: then it is dropped, and so is the rest of it.
    fn keep_partial(&mut self, bytes: &[u8]) {
        if self.partial.len() + bytes.len() > self.max_line {
            self.partial = Vec::new();
            self.too_long();
            self.skipping = true;
        } else {
            self.partial.extend_from_slice(bytes);
        }
    }

    /// Counts a line over `max_line` and warns about it.
    fn too_long(&mut self) {
        self.lines += 1;
        let message = format!("the line is longer than {} bytes: skipped", self.max_line);
        self.state.warn(Warning { line: self.lines, kind: WarningKind::LineTooLong, message });
    }

    /// Whole lines of valid text, which starts at byte `at` of the chunk;
    /// the unfinished end waits in `partial`. The one newline search of
    /// the chunk: line starts are noted here too.
    fn feed_text(&mut self, text: &str, mut at: usize) {
        let mut rest = text;
        while let Some(i) = find_newline(rest.as_bytes()) {
            self.newline(at + i);
            if i > self.max_line {
                self.too_long();
            } else {
                self.lines += 1;
                self.apply_line(&rest[..i], false);
            }
            rest = &rest[i + 1..];
            at += i + 1;
        }
        self.keep_partial(rest.as_bytes());
    }

    /// Lines that may hold invalid UTF-8, from byte `at` of the chunk.
    fn feed_raw(&mut self, bytes: &[u8], at: usize) {
        let (rest, _) = self.raw_lines(bytes, at, |_| true);
        self.keep_partial(rest);
    }

    /// Whole lines of `bytes` (from byte `at` of the chunk), each checked
    /// for UTF-8 on its own, while `more` holds; returns what is left and
    /// where it starts. A line the reader passes over unread (Claude Code's
    /// usage-only read: user lines, most of a file's bytes) is counted and
    /// not checked (the check of every byte was a fifth of a `usage` read),
    /// and no warning is given for it, valid or not: nothing in it is read.
    fn raw_lines<'b>(
        &mut self,
        bytes: &'b [u8],
        mut at: usize,
        more: fn(&Journal) -> bool,
    ) -> (&'b [u8], usize) {
        let mut rest = bytes;
        while more(self) {
            let Some(i) = find_newline(rest) else { break };
            self.newline(at + i);
            let line = &rest[..i];
            if i > self.max_line {
                self.too_long();
            } else if self.reader.as_ref().is_some_and(|r| r.passes_over(line)) {
                self.lines += 1;
            } else {
                self.read_line_bytes(line);
            }
            rest = &rest[i + 1..];
            at += i + 1;
        }
        (rest, at)
    }

    fn read_line_bytes(&mut self, line: &[u8]) {
        match std::str::from_utf8(line) {
            Ok(text) => self.read_line(text),
            Err(_) => {
                self.lines += 1;
                let message = "the line is not valid UTF-8".to_owned();
                self.state.warn(Warning { line: self.lines, kind: WarningKind::BadJson, message });
            }
        }
    }

    /// Ends the input: a last line without its newline is applied when it
    /// parses, and is a torn tail (a crash mid-write) when it does not.
    pub fn finish(&mut self) {
        self.skipping = false;
        let line = std::mem::take(&mut self.partial);
        match std::str::from_utf8(&line) {
            Ok(text) => self.read_last_line(text),
            // Cut inside a character: torn for sure.
            Err(_) => {
                self.lines += 1;
                self.state.torn_tail = true;
            }
        }
        if let Some(mut reader) = self.reader.take() {
            let (mut out, mut notices) = (Vec::new(), Vec::new());
            reader.finish(&mut out, &mut notices);
            let before = self.state.request_rows.as_ref().map_or(0, |r| r.len());
            let responses = reader.take_responses();
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
    fn detect(&mut self, line: &str) {
        let format = self.forced.or_else(|| Format::detect(line));
        if let Some(format) = format {
            self.state.format = Some(format);
            self.reader = match &self.run {
                Some(id) => Reader::child_run(format, Rc::clone(&self.prices), id),
                None => Reader::new(format, Rc::clone(&self.prices), self.usage_only),
            };
        }
    }

    /// Records a reader handed back, applied as replay applies a journal's.
    fn apply_translated(&mut self, out: crate::formats::Out, notices: Vec<Notice>) {
        for (number, record) in out {
            if let Some(kept) = &mut self.translated {
                kept.push((number, record.clone()));
            }
            let deep = crate::bytes::count_openings(record.as_bytes(), MAX_NESTING) > MAX_NESTING;
            let (state, view) = (&mut self.state, &mut self.view);
            let outcome = with_fields(&record, |kind, fields| {
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
                Notice::OtherBranches(line, n) => {
                    (line, WarningKind::OtherBranch, format!("{n} lines on other branches (a rewind or an edited prompt) are not in the conversation"))
                }
                Notice::UsageUnknown(line, m) => {
                    self.state.accounts.cost_usd = None;
                    (line, WarningKind::UsageUnknown, m)
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
        let deep = crate::bytes::count_openings(source.as_bytes(), MAX_NESTING) > MAX_NESTING;
        let (state, view) = (&mut self.state, &mut self.view);
        let number = self.lines + 1;
        let outcome = with_fields(source, |kind, fields| {
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
        if self.state.format.is_none() {
            self.detect(line);
        }
        if let Some(reader) = &mut self.reader {
            let (mut out, mut notices) = (Vec::new(), Vec::new());
            reader.line(self.lines, line, &mut out, &mut notices);
            if last && notices.iter().any(|n| matches!(n, Notice::BadLine(..))) {
                notices.retain(|n| !matches!(n, Notice::BadLine(..)));
                self.state.torn_tail = true;
            }
            self.apply_translated(out, notices);
            return;
        }
        // More opening brackets than `MAX_NESTING` is the only way a message
        // in the line can nest too deep (a vectorised count, stopping there).
        let deep = crate::bytes::count_openings(line.as_bytes(), MAX_NESTING) > MAX_NESTING;
        let (state, view) = (&mut self.state, &mut self.view);
        let number = self.lines;
        let outcome = with_fields(line, |kind, fields| {
            observed(state, view, kind, number, false, |s| s.apply_marked(kind, fields, number, false, deep))
        });
        if last && matches!(outcome, Err(LineError::BadJson(_))) {
            self.state.torn_tail = true;
        } else if let Some((kind, message)) = warning_of(outcome) {
            self.state.warn(Warning { line: number, kind, message });
        }
    }
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
mod tests {
    use super::*;

    const TITLE: &str = r#"{"type":"title","title":"ok"}"#;

    fn long_line(n: usize) -> String {
        format!(r#"{{"type":"title","title":"{}"}}"#, "x".repeat(n))
    }

    /// A line over the maximum is skipped with a warning, whole or split
    /// into chunks of any size, and the lines around it still count.
    #[test]
    fn a_line_over_the_maximum_is_skipped_with_a_warning_however_it_arrives() {
        let text = format!("{TITLE}\n{}\n{TITLE}\n", long_line(500));
        for step in [1, 7, 64, 100, 1000, text.len()] {
            let mut j = Journal::default().with_max_line(200);
            for chunk in text.as_bytes().chunks(step) {
                j.feed_bytes(chunk);
            }
            j.finish();
            let s = j.state();
            assert_eq!(s.warnings.len(), 1, "step {step}: {:?}", s.warnings);
            assert_eq!(
                (s.warnings[0].line, s.warnings[0].kind),
                (2, WarningKind::LineTooLong),
                "step {step}"
            );
            assert_eq!(s.title.as_deref(), Some("ok"), "step {step}");
            assert_eq!(j.line_count(), 3, "step {step}");
            assert!(j.partial.capacity() <= 400, "step {step}: the long line was buffered");
        }
        let mut j = Journal::default().with_max_line(200);
        j.feed(&format!("{TITLE}\n{}", long_line(500)));
        j.finish();
        assert_eq!(j.state().warnings[0].kind, WarningKind::LineTooLong, "an overlong last line");
        assert!(!j.state().torn_tail);
    }

    #[test]
    fn a_record_over_the_maximum_is_refused_at_write_and_nothing_changes() {
        let mut j = Journal::default().with_max_line(200);
        j.write(TITLE).expect("a short record");
        let before = j.state().clone();
        let e = j.write(&long_line(500)).expect_err("too long");
        assert!(e.to_string().contains("maximum line size of 200 bytes"), "{e}");
        assert_eq!(j.state(), &before);
        assert_eq!(j.line_count(), 1);
    }

    /// The model may see a secret, the disk may not: in model view, memory
    /// keeps what the agent wrote and the line is redacted; the message is
    /// marked redacted just as replay of the line marks it.
    #[test]
    fn model_view_keeps_the_secret_in_memory_and_off_the_line() {
        let secret = "pl4nted-S3CRET-value";
        let redactor = Redactor::new([("MY_API_TOKEN", secret)]);
        let mut live = Journal::new(redactor).with_model_view(true);
        let record = format!(r#"{{"type":"user","message":{{"role":"user","content":"token {secret}"}}}}"#);
        let line = live.write(&record).expect("written").into_owned();
        assert!(!line.contains(secret) && line.contains("[REDACTED]"));
        assert!(live.state().messages[0].json.contains(secret), "memory keeps what the model saw");
        assert!(live.state().messages[0].origin.redacted);
        let replayed = rebuild_state(&format!("{line}\n"));
        assert!(replayed.messages[0].origin.redacted);
        assert_eq!(replayed.prompts, live.state().prompts);
        assert_eq!(replayed.messages.len(), live.state().messages.len());
    }

    #[test]
    fn strict_writes_refuse_what_replay_would_skip_and_change_nothing() {
        let mut live = Journal::default().with_strict(true);
        live.write(TITLE).expect("fine");
        let before = live.state().clone();
        for (record, says) in [
            (r#"{"type":"assistant","step":"three","response":{"content":[]}}"#, "`step`"),
            (r#"{"type":"unreported","tokens":"many"}"#, "`tokens`"),
            (r#"{"type":"hologram"}"#, "unknown record type"),
            (r#"{"type":"undo"}"#, "empty undo stack"),
        ] {
            let e = live.write(record).expect_err(record).to_string();
            assert!(e.contains(says), "{record}: {e}");
            assert_eq!(live.state(), &before, "{record}");
            assert_eq!(live.line_count(), 1, "{record}");
        }
    }

    /// Junk lines cost memory by kind, not by line: the first
    /// `WARNINGS_KEPT` of each kind keep their line, the rest are counted,
    /// and the records among the junk are still read.
    #[test]
    fn warnings_are_kept_per_kind_up_to_a_bound_and_counted_beyond() {
        use crate::state::WARNINGS_KEPT;
        let mut text = String::new();
        for i in 0..1000 {
            text.push_str(if i % 2 == 0 { "junk\n" } else { "{\"type\":\"hologram\"}\n" });
        }
        text.push_str(TITLE);
        text.push('\n');
        let mut j = Journal::default();
        j.feed(&text);
        j.finish();
        let s = j.state();
        assert_eq!(s.title.as_deref(), Some("ok"));
        let kept = |k: WarningKind| s.warnings.iter().filter(|w| w.kind == k).count() as u64;
        assert_eq!(kept(WarningKind::BadJson), WARNINGS_KEPT);
        assert_eq!(kept(WarningKind::UnknownType), WARNINGS_KEPT);
        assert_eq!(s.warnings[0].line, 1);
        assert_eq!(
            s.warnings.iter().filter(|w| w.kind == WarningKind::BadJson).last().map(|w| w.line),
            Some(199)
        );
        assert_eq!(s.warning_counts[WarningKind::BadJson.index()], 500);
        assert_eq!(s.warning_counts[WarningKind::UnknownType.index()], 500);
        assert_eq!(s.warning_total(), 1000);
        let json = s.to_json();
        assert!(
            json.contains(r#""warningCounts":{"bad-json":500,"unknown-type":500}"#),
            "{}",
            &json[json.len() - 300..]
        );
        assert!(rebuild_state(TITLE).to_json().contains(r#""warningCounts":{}"#));
    }

    /// A UTF-8 byte-order mark at the start of a file is not part of its
    /// first record: the record is read (and its format detected).
    #[test]
    fn a_byte_order_mark_at_the_start_is_skipped() {
        let start = r#"{"type":"start","sessionId":"s","model":"m"}"#;
        let s = rebuild_state(&format!("\u{feff}{start}\n{TITLE}\n"));
        assert_eq!(s.warnings, vec![]);
        assert_eq!(s.session_id.as_deref(), Some(r#""s""#));
        assert_eq!(s.format, Some(Format::Garuda));
        let mut j = Journal::default();
        j.feed_bytes(&[0xef]);
        j.feed_bytes(&[0xbb, 0xbf]);
        j.feed_bytes(start.as_bytes());
        j.finish();
        assert_eq!(j.state().session_id.as_deref(), Some(r#""s""#), "a mark split across chunks");
        // Only at the start: a mark inside the file is a bad line as before.
        assert_eq!(rebuild_state(&format!("{TITLE}\n\u{feff}{start}\n")).warnings.len(), 1);
    }
}
