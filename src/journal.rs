//! Reading journals and writing records (spec §1, §3).
//!
//! A `Journal` is the in-memory side of a session file. Replay feeds it the
//! file's text (whole, in chunks of any size, or line by line); live use
//! `write`s records, which are redacted, applied and returned as the line
//! to append. Both paths end in `SessionState::apply`, one record at a time,
//! so after every line the state is what a fresh replay of the lines so far
//! would give.

use crate::record::{with_fields, LineError};
use crate::redact::{Redactor, RedactorError};
use crate::state::{SessionState, Warning, WarningKind};
use std::fmt;

#[derive(Debug, Default)]
pub struct Journal {
    state: SessionState,
    redactor: Redactor,
    /// Lines seen so far (blank ones too): warnings carry 1-based numbers.
    lines: u64,
    /// The end of the last chunk when it did not end in a newline (bytes:
    /// a chunk of a file may end inside a UTF-8 character).
    partial: Vec<u8>,
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
        Journal { redactor, ..Journal::default() }
    }

    pub fn state(&self) -> &SessionState {
        &self.state
    }

    pub fn into_state(self) -> SessionState {
        self.state
    }

    pub fn redactor(&self) -> &Redactor {
        &self.redactor
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
        if let Some(text) = chunk.get(chunk.len() - rest.len()..) {
            self.feed_text(text);
        }
    }

    /// Feeds journal bytes as read from a file: chunks may split lines and
    /// even UTF-8 characters anywhere. A line that is not UTF-8 is skipped
    /// with a warning, like any line that is not JSON.
    pub fn feed_bytes(&mut self, chunk: &[u8]) {
        let rest = self.complete_partial(chunk);
        match std::str::from_utf8(rest) {
            Ok(text) => self.feed_text(text),
            Err(e) => {
                // Whole lines of the valid prefix go the fast way; the rest
                // line by line.
                let valid = &rest[..e.valid_up_to()];
                let cut = valid.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
                if let Ok(text) = std::str::from_utf8(&rest[..cut]) {
                    self.feed_text(text);
                }
                self.feed_raw(&rest[cut..]);
            }
        }
    }

    /// Finishes the line left over from the last chunk, if any, and returns
    /// what follows it.
    fn complete_partial<'c>(&mut self, chunk: &'c [u8]) -> &'c [u8] {
        if self.partial.is_empty() {
            return chunk;
        }
        match find_newline(chunk) {
            Some(i) => {
                let mut line = std::mem::take(&mut self.partial);
                line.extend_from_slice(&chunk[..i]);
                self.read_line_bytes(&line);
                &chunk[i + 1..]
            }
            None => {
                self.partial.extend_from_slice(chunk);
                &[]
            }
        }
    }

    /// Whole lines of valid text; the unfinished end waits in `partial`.
    fn feed_text(&mut self, text: &str) {
        let mut rest = text;
        while let Some(i) = find_newline(rest.as_bytes()) {
            self.read_line(&rest[..i]);
            rest = &rest[i + 1..];
        }
        self.partial.extend_from_slice(rest.as_bytes());
    }

    /// Lines that may hold invalid UTF-8.
    fn feed_raw(&mut self, bytes: &[u8]) {
        let mut rest = bytes;
        while let Some(i) = find_newline(rest) {
            self.read_line_bytes(&rest[..i]);
            rest = &rest[i + 1..];
        }
        self.partial.extend_from_slice(rest);
    }

    fn read_line_bytes(&mut self, line: &[u8]) {
        match std::str::from_utf8(line) {
            Ok(text) => self.read_line(text),
            Err(_) => {
                self.lines += 1;
                let message = "the line is not valid UTF-8".to_owned();
                self.state.warnings.push(Warning { line: self.lines, kind: WarningKind::BadJson, message });
            }
        }
    }

    /// Ends the input: a last line without its newline is applied when it
    /// parses, and is a torn tail (a crash mid-write) when it does not.
    pub fn finish(&mut self) {
        let line = std::mem::take(&mut self.partial);
        match std::str::from_utf8(&line) {
            Ok(text) => self.read_last_line(text),
            // Cut inside a character: torn for sure.
            Err(_) => {
                self.lines += 1;
                self.state.torn_tail = true;
            }
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
        let redacted = self.redactor.redact_record_lazily(record)?;
        // Parsing to apply is also the check that the record is one JSON
        // object: a bad one is refused and nothing changes.
        let state = &mut self.state;
        let line = self.lines + 1;
        let outcome = with_fields(&redacted, |fields| state.apply(fields, line));
        if let Err(LineError::BadJson(m) | LineError::BadRecord(m)) = outcome {
            return Err(WriteError(format!("a record must be one JSON object with a string `type`: {m}")));
        }
        self.lines = line;
        if let Some((kind, message)) = warning_of(outcome) {
            self.state.warnings.push(Warning { line, kind, message });
        }
        Ok(redacted)
    }

    fn apply_line(&mut self, line: &str, last: bool) {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            return;
        }
        let state = &mut self.state;
        let number = self.lines;
        let outcome = with_fields(line, |fields| state.apply(fields, number));
        if last && matches!(outcome, Err(LineError::BadJson(_))) {
            self.state.torn_tail = true;
        } else if let Some((kind, message)) = warning_of(outcome) {
            self.state.warnings.push(Warning { line: number, kind, message });
        }
    }
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
