//! The inline runs of a Claude Code 1.x file (a Task subagent's lines,
//! `isSidechain`, inside its session's file), kept at the end of a read so
//! that each can be read alone without reading the file again.
//!
//! Why: an export draws every Task call's run under the call, and read
//! each with `Reader::run`, which reads the whole file to find one run: a
//! session of 1,000 runs in 1.8 MB took 11 s, quadratic in its runs. A read
//! that keeps them (`keep_runs`) parts its entries among the runs once, by
//! the roots and calls the end of the read finds anyway; `run_records`
//! then ends the read again on one run's entries, as `Reader::run` ends on
//! the whole file once it has kept them: the same entries, the same
//! session facts, nothing copied.

use super::{Entry, Notice, Out, Reader};
use std::collections::HashMap;

/// Each inline run's entries in file order, found by its Task call's id.
/// (The map is the one `task_runs` gives, its values turned into places
/// in `runs`: no map of another type is compiled in.)
#[derive(Debug, Default)]
pub(super) struct KeptRuns {
    place: HashMap<String, usize>,
    runs: Vec<Vec<Entry>>,
}

impl Reader {
    /// Keeps each inline run's entries at the end of the file, for
    /// `run_records` (the file's other entries are let go, as ever).
    pub fn keep_runs(&mut self) {
        self.kept_runs = Some(KeptRuns::default());
    }

    /// At the end of a kept read: the entries of each run found, moved out
    /// of the file's. `roots`: the first entry of the run each entry is in;
    /// `runs`: the first entry of each Task call's run.
    pub(super) fn stash_runs(&mut self, roots: &[Option<usize>], mut runs: HashMap<String, usize>) {
        let Some(kept) = &mut self.kept_runs else { return };
        // By the run's first entry, its place in `kept.runs`.
        let mut place_of = vec![usize::MAX; roots.len()];
        for (place, first) in runs.values_mut().enumerate() {
            if let Some(p) = place_of.get_mut(*first) {
                *p = place;
            }
            *first = place;
        }
        kept.runs = (0..runs.len()).map(|_| Vec::new()).collect();
        kept.place = runs;
        for (i, e) in std::mem::take(&mut self.entries).into_iter().enumerate() {
            let place = roots.get(i).copied().flatten().and_then(|r| place_of.get(r)).copied();
            if let Some(run) = place.and_then(|p| kept.runs.get_mut(p)) {
                run.push(e);
            }
        }
    }

    /// The records of the run the Task call `tool_use_id` started, as
    /// `Reader::run` hands them back at the end of this file once it has
    /// kept that run's entries: the same entries and the same facts of the
    /// file (session, folder, version, titles), which are this reader's.
    /// False when no such run was kept.
    pub fn run_records(&mut self, tool_use_id: &str, out: &mut Out, notices: &mut Vec<Notice>) -> bool {
        // Out while the run's entries are this reader's: `records` keeps nothing.
        let Some(mut kept) = self.kept_runs.take() else { return false };
        let place = kept.place.get(tool_use_id).copied();
        if let Some(run) = place.and_then(|p| kept.runs.get_mut(p)) {
            self.entries = std::mem::take(run);
            self.records(out, notices);
            *run = std::mem::take(&mut self.entries);
        }
        self.kept_runs = Some(kept);
        place.is_some()
    }
}

#[cfg(test)]
#[path = "claude_runs_tests.rs"]
mod tests;
