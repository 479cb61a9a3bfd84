//! The Claude Code diagnosis of a file read in chunks (issue 28: a 1 GB
//! session in bounded memory). Claude Code's rules need the whole tree (the
//! active chain is known only from the last line), so every line is kept,
//! but only as the summary the rules read (`claude::Rows`: ids, links, the
//! blocks as `checkMessages` judges them, hashes of thinking), never its
//! text: memory grows with the lines, not with their bytes. The problems
//! are the same as those of the file read whole (`claude::diagnose_rows`
//! is the one diagnosis; tests/doctor_stream.rs compares them on every
//! fixture and peer file).

use super::claude;
use super::lines::Lines;
use super::Problem;

pub struct Diagnoser {
    lines: Lines,
    rows: claude::Rows<'static>,
    problems: Vec<Problem>,
    len: usize,
}

impl Default for Diagnoser {
    fn default() -> Diagnoser {
        Diagnoser { lines: Lines::default(), rows: claude::Rows::new(false), problems: Vec::new(), len: 0 }
    }
}

impl Diagnoser {
    pub fn feed(&mut self, chunk: &[u8]) {
        self.len += chunk.len();
        let mut lines = std::mem::take(&mut self.lines);
        lines.feed(chunk, |n, l| self.line(n, l));
        self.lines = lines;
    }

    /// Line `_n` (the rows count their lines: a row per line).
    fn line(&mut self, _n: u64, bytes: &[u8]) {
        self.rows.push_summary(bytes, true, &mut self.problems);
    }

    pub fn finish(mut self) -> Vec<Problem> {
        let mut lines = std::mem::take(&mut self.lines);
        lines.finish(|n, l| self.line(n, l));
        claude::diagnose_rows(self.len, &self.rows, self.problems)
    }
}
