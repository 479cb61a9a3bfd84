//! The latest tool call of an id before an entry: what settling pairs each
//! result with, and links each child run a tool_results record names to.
//!
//! Nearly every result answers a call a few entries before it. Settling
//! put every call of a 1 GB journal in a map keyed by id (300,000 SipHash
//! inserts and as many lookups, each a miss in a table of megabytes: 60% of
//! settling, timed natively). Here the entries just before the asking one
//! are searched first; the map is filled only when a search must reach
//! past them, and then only as far as that search needs, so a journal
//! whose results follow their calls never builds it.

#![forbid(unsafe_code)]

use super::entries::Entries;
use std::collections::HashMap;

/// How many entries before the asking one are searched without the map.
const WINDOW: usize = 8;

pub(super) struct Calls<'a> {
    entries: &'a Entries,
    /// The calls of the entries before `mapped`: each id's latest, as an
    /// index into `latest` (HashMap<&str, usize> is one the crate already
    /// has, for the size budget).
    at: HashMap<&'a str, usize>,
    latest: Vec<(u32, usize)>,
    mapped: usize,
    /// The map was sized for every call (once: while no call is found the
    /// map stays empty, and counting the calls again on each miss made
    /// results without calls quadratic: 40,000 took 35 s to settle).
    sized: bool,
}

impl<'a> Calls<'a> {
    pub(super) fn new(entries: &'a Entries) -> Calls<'a> {
        Calls { entries, at: HashMap::new(), latest: Vec::new(), mapped: 0, sized: false }
    }

    /// The latest call with `id` in an entry before `before`: the entry and
    /// the call's place among its tools (the last of the entry's calls with
    /// that id). Settling asks in entry order; asked before an entry the
    /// map already passed, it searches every entry back (right, but slow).
    pub(super) fn latest(&mut self, id: &str, before: usize) -> Option<(u32, usize)> {
        // A block with no id names no call: a result without `tool_use_id`
        // paired with a call without `id` was drawn under it as its result
        // and shown nowhere (a Claude Code subagent file in the peers).
        if id.is_empty() {
            return None;
        }
        let before = before.min(self.entries.len());
        let floor = if before < self.mapped { 0 } else { self.mapped.max(before.saturating_sub(WINDOW)) };
        for j in (floor..before).rev() {
            let Some(e) = self.entries.get(j) else { continue };
            if let Some(k) = e.tools.iter().rposition(|t| t.is_use && t.id == id) {
                return Some((j as u32, k));
            }
        }
        if floor == 0 {
            return None;
        }
        // None in `floor..before`: the map, once it holds every call before `floor`.
        self.map_up_to(floor);
        self.at.get(id).and_then(|&x| self.latest.get(x)).copied()
    }

    /// Puts the calls of the entries before `end` in the map, in order (a
    /// later call of an id replaces an earlier).
    fn map_up_to(&mut self, end: usize) {
        if self.mapped >= end {
            return;
        }
        if !self.sized {
            self.sized = true;
            // Sized for every call at once: grown as calls came, the map
            // hashed each id again at every doubling (80 ms of a 1 GB
            // journal's 0.5 s settle, profiled in Node).
            let calls = self.entries.iter().map(|e| e.tools.iter().filter(|t| t.is_use).count()).sum();
            self.at.reserve(calls);
            self.latest.reserve(calls);
        }
        for j in self.mapped..end {
            let Some(e) = self.entries.get(j) else { break };
            for (k, tool) in e.tools.iter().enumerate().filter(|(_, t)| t.is_use) {
                match self.at.get(tool.id.as_str()) {
                    Some(&x) => self.latest[x] = (j as u32, k),
                    None => {
                        self.at.insert(tool.id.as_str(), self.latest.len());
                        self.latest.push((j as u32, k));
                    }
                }
            }
        }
        self.mapped = end;
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Entry, ToolRef};
    use super::*;

    /// The definition, entry by entry backwards from `before` (an empty
    /// id names no call: `check` asks about it apart).
    fn by_scan(entries: &Entries, id: &str, before: usize) -> Option<(u32, usize)> {
        (0..before.min(entries.len())).rev().find_map(|j| {
            let tools = &entries.get(j)?.tools;
            tools.iter().rposition(|t| t.is_use && t.id == id).map(|k| (j as u32, k))
        })
    }

    fn check(entries: &Entries, what: &str) -> usize {
        let mut calls = Calls::new(entries);
        let mut asked = 0;
        // Asked as settling asks: in entry order, each entry's tools' ids
        // (calls' too, and ids no call has), and then past the end.
        for i in 0..=entries.len() {
            let ids: Vec<&str> = match entries.get(i) {
                Some(e) => e.tools.iter().map(|t| t.id.as_str()).chain(["nobody"]).collect(),
                None => entries.iter().flat_map(|e| e.tools.iter().map(|t| t.id.as_str())).collect(),
            };
            assert_eq!(calls.latest("", i), None, "{what}: no id names no call");
            for id in ids.into_iter().filter(|id| !id.is_empty()) {
                assert_eq!(calls.latest(id, i), by_scan(entries, id, i), "{what}: {id} before {i}");
                // Out of order too (settling never asks so).
                let back = i / 3;
                assert_eq!(calls.latest(id, back), by_scan(entries, id, back), "{what}: {id} before {back}");
                asked += 1;
            }
        }
        asked
    }

    /// Every entry of every real session (samples and peers).
    #[test]
    fn the_latest_call_is_the_scans_in_real_sessions() {
        let mut asked = 0;
        for (path, journal) in super::super::tests::real_journals() {
            let t = super::super::Transcript::new(journal.state());
            asked += check(&t.entries, &path.display().to_string());
        }
        // The samples alone ask 278 (a bare clone has no peers).
        assert!(asked > 200, "{asked} questions");
    }

    /// Ids used again, results far past the window, several calls of an id
    /// in one entry, entries without tools between.
    #[test]
    fn the_latest_call_is_the_scans_for_any_order() {
        let mut seed = 0x853c_49e6_748f_ea9bu64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        for round in 0..20 {
            let mut entries = Entries::default();
            for i in 0..300 {
                let mut e = Entry::blank(i);
                for _ in 0..next(4) {
                    e.tools.push(ToolRef {
                        id: format!("id{}", next(if round % 2 == 0 { 12 } else { 200 })),
                        name: None,
                        is_use: next(2) == 0,
                        error: false,
                        interrupted: false,
                        pair: None,
                        child: None,
                    });
                }
                entries.push(e);
            }
            check(&entries, &format!("round {round}"));
        }
    }
}
