//! The Claude Code diagnosis of a file read in chunks (issue 28: a 1 GB
//! session in bounded memory). Claude Code's rules need the whole tree (the
//! active chain is known only from the last line), so every line is kept,
//! but only as the summary the rules read (`Row::summary`: ids, links, the
//! blocks as `checkMessages` judges them, hashes of thinking), never its
//! text: memory grows with the lines, not with their bytes. The problems
//! are the same as those of the file read whole (`claude::diagnose_rows`
//! is the one diagnosis; tests/doctor_stream.rs compares them on every
//! fixture and peer file).

use super::claude;
use super::lines::Lines;
use super::Problem;

#[derive(Default)]
pub struct Diagnoser {
    lines: Lines,
    rows: Vec<claude::Row<'static>>,
    problems: Vec<Problem>,
    len: usize,
}

impl Diagnoser {
    pub fn feed(&mut self, chunk: &[u8]) {
        self.len += chunk.len();
        let mut lines = std::mem::take(&mut self.lines);
        lines.feed(chunk, |n, l| self.line(n, l));
        self.lines = lines;
    }

    fn line(&mut self, n: u64, bytes: &[u8]) {
        let row = claude::row(n, bytes, (0, 0), true, &mut self.problems).summary();
        self.rows.push(row);
    }

    pub fn finish(mut self) -> Vec<Problem> {
        let mut lines = std::mem::take(&mut self.lines);
        lines.finish(|n, l| self.line(n, l));
        claude::diagnose_rows(self.len, &self.rows, self.problems)
    }
}
