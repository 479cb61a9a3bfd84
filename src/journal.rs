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
    /// The end of the last chunk when it did not end in a newline.
    partial: String,
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
        Journal {
            redactor,
            ..Journal::default()
        }
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

    /// Feeds journal text. Chunks may split lines anywhere (even inside a
    /// UTF-8 character is impossible here: `&str` chunks are whole characters);
    /// an unfinished last line waits for the next chunk or for `finish`.
    pub fn feed(&mut self, chunk: &str) {
        let mut rest = chunk;
        if !self.partial.is_empty() {
            match rest.find('\n') {
                Some(i) => {
                    let mut line = std::mem::take(&mut self.partial);
                    line.push_str(&rest[..i]);
                    self.read_line(&line);
                    rest = &rest[i + 1..];
                }
                None => {
                    self.partial.push_str(rest);
                    return;
                }
            }
        }
        while let Some(i) = rest.find('\n') {
            self.read_line(&rest[..i]);
            rest = &rest[i + 1..];
        }
        self.partial.push_str(rest);
    }

    /// Ends the input: a last line without its newline is applied when it
    /// parses, and is a torn tail (a crash mid-write) when it does not.
    pub fn finish(&mut self) {
        let line = std::mem::take(&mut self.partial);
        self.read_last_line(&line);
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
    pub fn write(&mut self, record: &str) -> Result<String, WriteError> {
        let redacted = self.redactor.redact_record(record)?;
        self.lines += 1;
        self.apply_line(&redacted, false);
        Ok(redacted)
    }

    fn apply_line(&mut self, line: &str, last: bool) {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.trim().is_empty() {
            return;
        }
        let state = &mut self.state;
        let outcome = with_fields(line, |fields| state.apply(fields));
        let (kind, message) = match outcome {
            Ok(None) => return,
            Ok(Some(warning)) => warning,
            Err(LineError::BadJson(_)) if last => {
                self.state.torn_tail = true;
                return;
            }
            Err(LineError::BadJson(m)) => (WarningKind::BadJson, m),
            Err(LineError::BadRecord(m)) => (WarningKind::BadRecord, m),
            Err(LineError::UnknownType(t)) => (
                WarningKind::UnknownType,
                format!("unknown record type `{t}`, skipped"),
            ),
            Err(LineError::BadField(m)) => (WarningKind::BadField, m),
        };
        self.state.warnings.push(Warning {
            line: self.lines,
            kind,
            message,
        });
    }
}
