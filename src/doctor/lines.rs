//! The doctor's line splitter for files read in chunks: a chunk may end in
//! the middle of a line (or of a UTF-8 character); only that partial line is
//! held between chunks, so a diagnosis that keeps per-line summaries reads a
//! file of any size in memory bounded by its longest line.

use crate::bytes::find_byte;

#[derive(Debug, Default)]
pub struct Lines {
    partial: Vec<u8>,
    line: u64,
}

impl Lines {
    /// Calls `each(line, bytes)` for every whole line of `chunk` (1-based
    /// line numbers, without the newline).
    pub fn feed(&mut self, chunk: &[u8], mut each: impl FnMut(u64, &[u8])) {
        let mut at = 0;
        while let Some(i) = chunk.get(at..).and_then(|rest| find_byte(rest, b'\n')) {
            self.line += 1;
            if self.partial.is_empty() {
                each(self.line, &chunk[at..at + i]);
            } else {
                self.partial.extend_from_slice(&chunk[at..at + i]);
                each(self.line, &self.partial);
                self.partial.clear();
            }
            at += i + 1;
        }
        self.partial.extend_from_slice(chunk.get(at..).unwrap_or_default());
    }

    /// The last line, when the file does not end with a newline.
    pub fn finish(&mut self, mut each: impl FnMut(u64, &[u8])) {
        if !self.partial.is_empty() {
            self.line += 1;
            each(self.line, &self.partial);
            self.partial.clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn any_chunking_gives_the_lines_of_the_whole_text() {
        let text = b"one\ntwo \xc3\xa9\n\nlast";
        let want: Vec<(u64, Vec<u8>)> =
            text.split(|&b| b == b'\n').enumerate().map(|(i, l)| (i as u64 + 1, l.to_vec())).collect();
        for size in 1..=text.len() {
            let mut got = Vec::new();
            let mut lines = Lines::default();
            for chunk in text.chunks(size) {
                lines.feed(chunk, |n, l| got.push((n, l.to_vec())));
            }
            lines.finish(|n, l| got.push((n, l.to_vec())));
            assert_eq!(got, want, "chunks of {size}");
        }
    }
}
