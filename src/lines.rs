//! Where each line of a journal starts, in bytes, as its chunks pass: a
//! viewer that lets the history forget its messages (`lean`) reads a line
//! again from the file when an entry is drawn, and needs its byte range.
//! Kept by the core (the page's `Uint8Array.indexOf` took 120 ms of a 100 MB
//! load), and noted by the journal's own line search as it replays
//! (`Journal::with_line_starts`): one scan of each chunk, not two.

#![forbid(unsafe_code)]

use crate::bytes::find_byte;

#[derive(Debug, Default, Clone)]
pub struct LineStarts {
    /// `starts[k]`: the byte after the (k+1)th newline, where line k + 2 starts.
    starts: Vec<u64>,
    /// Bytes seen.
    size: u64,
}

impl LineStarts {
    /// Notes the newlines of the next chunk of the journal (its own scan:
    /// for text that replay does not read).
    pub fn add(&mut self, bytes: &[u8]) {
        let mut at = 0;
        while let Some(i) = bytes.get(at..).and_then(|rest| find_byte(rest, b'\n')) {
            self.newline(at + i);
            at += i + 1;
        }
        self.end_chunk(bytes.len());
    }

    /// A newline at byte `at` of the current chunk (in order, each once).
    #[inline]
    pub fn newline(&mut self, at: usize) {
        self.starts.push(self.size + at as u64 + 1);
    }

    /// The current chunk, `len` bytes, is done: the next starts after it.
    pub fn end_chunk(&mut self, len: usize) {
        self.size += len as u64;
    }

    /// The byte range `[start, end)` of line `n` (1-based), without its
    /// newline; the last line runs to the bytes seen so far. None before
    /// line 1 or past the last line.
    pub fn range(&self, n: u64) -> Option<(u64, u64)> {
        let k = usize::try_from(n.checked_sub(1)?).ok()?;
        let start = if k == 0 { 0 } else { *self.starts.get(k - 1)? };
        let end = self.starts.get(k).map_or(self.size, |next| next - 1);
        Some((start, end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_are_those_of_the_whole_text_in_any_chunking() {
        let text = b"one\ntwo two\n\nfour\nlast, no newline";
        let lines: Vec<&[u8]> = text.split(|&b| b == b'\n').collect();
        for size in 1..=text.len() {
            let mut starts = LineStarts::default();
            for chunk in text.chunks(size) {
                starts.add(chunk);
            }
            for (i, line) in lines.iter().enumerate() {
                let (a, b) = starts.range(i as u64 + 1).expect("a line");
                assert_eq!(&text[a as usize..b as usize], *line, "line {} in chunks of {size}", i + 1);
            }
            assert_eq!(starts.range(0), None);
            assert_eq!(starts.range(lines.len() as u64 + 1), None);
        }
        // A text that ends with its newline: the empty line after it is not a line yet.
        let mut starts = LineStarts::default();
        starts.add(b"a\nb\n");
        assert_eq!(starts.range(2), Some((2, 3)));
        assert_eq!(starts.range(3), Some((4, 4)));
        assert_eq!(starts.range(4), None);
    }
}
