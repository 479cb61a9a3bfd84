//! A journal's input in chunks: bytes or text cut anywhere become whole
//! lines for `apply_line`, an unfinished line waits for the next chunk, a
//! line over the maximum is counted and skipped without being held whole,
//! and bytes that are not UTF-8 are found line by line.

use super::{find_newline, Journal};
use crate::state::{Warning, WarningKind};

impl Journal {
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
    /// even UTF-8 characters anywhere. A line that is not UTF-8 is read with
    /// U+FFFD for its bad bytes and a `not-utf8` warning.
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
        match crate::bytes::utf8(rest) {
            Ok(text) => self.feed_text(text, at),
            Err(e) => {
                // Whole lines of the valid prefix go the fast way; the rest
                // line by line.
                let valid = &rest[..e.valid_up_to()];
                let cut = crate::bytes::find_last_byte(valid, b'\n').map_or(0, |i| i + 1);
                if let Ok(text) = crate::bytes::utf8(&rest[..cut]) {
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
        match crate::bytes::utf8(line) {
            Ok(text) => self.read_line(text),
            Err(_) => {
                // Read as the agents' own loaders read it, each bad byte a
                // U+FFFD, and said: a strict load refuses it.
                let text = String::from_utf8_lossy(line);
                let message = "bytes that are not UTF-8 were read as U+FFFD".to_owned();
                self.state.warn(Warning { line: self.lines + 1, kind: WarningKind::NotUtf8, message });
                self.read_line(&text);
            }
        }
    }
}
