//! The transcript: one format-neutral model of a session as people read it,
//! which the viewer, `export` and the CLI all render. It is built from the
//! state's whole history (every message as it came, landmarks between) and
//! its warnings, so a session another agent wrote reads the same way as
//! Garuda's own once a reader turned it into records.
//!
//! An entry is a message (a prompt, a response, tool results, a continue
//! note, a compaction's summary), a landmark (start, compaction, undo, a
//! model switch…) or a warning (a line replay could not use), in journal
//! order. The index (`index_json`) says of each what a list needs: a
//! preview, its tools paired with their results, tokens and cost, its fate
//! (live, compacted away, undone) and what resume does with its thinking.
//! `entry_json` gives one entry whole, for reading.

#![forbid(unsafe_code)]

mod boilerplate;
mod calls;
pub use boilerplate::index_prompt;
mod detail;
pub mod diff;
mod entries;
mod plain;
mod summary;
pub mod tools;
mod write;

pub use detail::{Image, Outcome, Part};

use crate::record::RecordKind;
use crate::state::{HistoryItem, SessionState, Turn};
use serde::Serialize;
use summary::summarise;
pub(crate) use summary::{cut, note_text, text_role};

/// What became of a message: still sent to the model, summarised away by a
/// later compaction, or taken out by undo.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Fate {
    Live,
    Compacted,
    Undone,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum EntryKind {
    Message,
    Landmark,
    Warning,
}

impl EntryKind {
    pub fn as_str(self) -> &'static str {
        match self {
            EntryKind::Message => "message",
            EntryKind::Landmark => "landmark",
            EntryKind::Warning => "warning",
        }
    }
}

impl ThinkingFate {
    pub fn as_str(self) -> &'static str {
        match self {
            ThinkingFate::Kept => "kept",
            ThinkingFate::NotSent => "notSent",
            ThinkingFate::Dropped => "dropped",
        }
    }
}

impl Fate {
    pub fn as_str(self) -> &'static str {
        match self {
            Fate::Live => "live",
            Fate::Compacted => "compacted",
            Fate::Undone => "undone",
        }
    }
}

/// The fate of each message of a state's history, by its record's line: a
/// message not in the state was compacted away (before the last compaction)
/// or undone. The state's `history` JSON and the transcript both ask here.
pub(crate) struct Fates {
    live: Vec<u64>,
    ordered: bool,
    last_compaction: u64,
}

impl Fates {
    pub(crate) fn of(state: &SessionState) -> Fates {
        let live: Vec<u64> = state.messages.iter().map(|m| m.origin.line).collect();
        // The messages' lines come in order (appends, undo, redo and
        // compaction keep it), so a search by halves finds them.
        let ordered = live.windows(2).all(|w| w[0] <= w[1]);
        let last_compaction = state
            .history
            .iter()
            .flatten()
            .filter_map(|h| match h {
                HistoryItem::Landmark { line, kind: RecordKind::Compaction, .. } => Some(*line),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        Fates { live, ordered, last_compaction }
    }

    pub(crate) fn fate(&self, line: u64) -> Fate {
        let found =
            if self.ordered { self.live.binary_search(&line).is_ok() } else { self.live.contains(&line) };
        if found {
            Fate::Live
        } else if line < self.last_compaction {
            Fate::Compacted
        } else {
            Fate::Undone
        }
    }
}

/// What resume does with a message's thinking blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum ThinkingFate {
    /// Sent back as written.
    Kept,
    /// The message is no longer in the conversation.
    NotSent,
    /// Left out on resume (the reason is `droppedWhy`).
    Dropped,
}

/// Where an entry comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    History(usize),
    Warning(usize),
}

/// A tool call or result in an entry, paired with its other half.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolRef {
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// A call (`tool_use`); else a result.
    #[serde(rename = "use")]
    pub is_use: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub error: bool,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// The entry holding the other half (None: a call with no result yet).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pair: Option<u32>,
    /// The child session a call started (a subagent's run).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub child: Option<String>,
}

/// A subagent's report inside a `tool_results` record.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Subagent {
    pub child: Option<String>,
    pub tokens: u64,
    pub cost_usd: Option<f64>,
}

/// One entry as the index gives it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    pub index: u32,
    pub line: u64,
    /// The record type (`user`, `assistant`, `compaction`…), or the
    /// warning's kind for a warning.
    #[serde(rename = "type")]
    pub record: &'static str,
    pub kind: EntryKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fate: Option<Fate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub t: Option<Box<str>>,
    /// The first 160 characters or so (a landmark's or warning's whole text).
    pub preview: String,
    /// The block types in the message, each once.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocks: Vec<&'static str>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tools: Vec<ToolRef>,
    #[serde(skip_serializing_if = "is_zero")]
    pub thinking: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thinking_fate: Option<ThinkingFate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped_why: Option<String>,
    /// A response's usage, cost and context size (None for every other
    /// entry): boxed, so the two entries in three that are not responses do
    /// not carry 88 empty bytes each (wasm32) in a viewer's memory.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub response: Option<Box<ResponseFigures>>,
    #[serde(skip_serializing_if = "is_zero")]
    pub notes: u32,
    #[serde(skip_serializing_if = "is_zero")]
    pub attachments: u32,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub synthetic: bool,
    /// The record says the Redactor changed it when it was written.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub redacted: bool,
    /// Tool results only, each paired with its call and no subagent report:
    /// a reader shows them under their calls, not again on their own.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub under_calls: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub subagents: Vec<Subagent>,
    /// What the agent put in the conversation, not a person (a slash
    /// command, a caveat, AGENTS.md…): its label. A reader folds the entry.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
}

/// What a response entry says of its request.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResponseFigures {
    /// The usage as recorded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<crate::accounting::Usage>,
    /// The cost: null when its price is unknown.
    pub cost_usd: Option<f64>,
    /// The context size after the response.
    pub context_tokens: u64,
    /// The model's context window then, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
}

impl Entry {
    /// An entry of nothing yet: a landmark at line 0 with no text.
    fn blank(index: u32) -> Entry {
        Entry {
            index,
            line: 0,
            record: "",
            kind: EntryKind::Landmark,
            role: None,
            fate: None,
            t: None,
            preview: String::new(),
            blocks: Vec::new(),
            tools: Vec::new(),
            thinking: 0,
            thinking_fate: None,
            dropped_why: None,
            response: None,
            notes: 0,
            attachments: 0,
            synthetic: false,
            redacted: false,
            under_calls: false,
            subagents: Vec::new(),
            context: None,
        }
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// Characters of a preview.
pub const PREVIEW: usize = 160;
/// The content of a synthetic result for a call cut off by a crash (spec §6).
pub const INTERRUPTED: &str = "[Interrupted before result was recorded]";

/// The transcript of a state, built once and kept while the state does not
/// change (the viewer asks for entries and searches many times).
#[derive(Debug, Clone, Default)]
pub struct Transcript {
    sources: Vec<Source>,
    entries: entries::Entries,
    /// The history items and warnings taken so far.
    taken: (usize, usize),
    /// Fates, pairs and thinking are up to date with the entries.
    settled: bool,
    /// History items before this one had their message forgotten (`forget_messages`).
    forgotten: usize,
    /// A settle moved entries: indices handed out before it may be stale.
    reordered: bool,
    /// What summarising a message reuses (`summary::Scratch`).
    scratch: summary::Scratch,
}

impl Transcript {
    /// Builds the transcript of a state that kept its history (without one,
    /// only its warnings).
    pub fn new(state: &SessionState) -> Transcript {
        let mut t = Transcript::default();
        t.extend(state);
        t.settle(state);
        t
    }

    /// Takes the history and warnings the state gained since the last call
    /// (both only grow), so a journal read in chunks builds its entries
    /// while it reads. Call `settle` before reading entries.
    pub fn extend(&mut self, state: &SessionState) {
        let history: &[HistoryItem] = state.history.as_deref().unwrap_or(&[]);
        let (h, w) = self.taken;
        if (h, w) == (history.len(), state.warnings.len()) {
            return;
        }
        self.settled = false;
        for source in merged(history, &state.warnings, h, w) {
            self.push(source, state);
        }
        self.taken = (history.len(), state.warnings.len());
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Drops the message text of the history items already summarised
    /// (compactions' summaries stay): a viewer of a journal it can read
    /// again keeps only the entries, and hands `entry_json` the lines it
    /// needs (`lines_for`). Memory then grows with the number of entries,
    /// not with the journal's size. The record's other figures (`Turn`:
    /// time, usage, cost) are in the entry now and go too, but for the
    /// subagent runs a call names, which settling links: about 160 bytes a
    /// message (wasm32), 80 MiB of a 1 GB journal's.
    pub fn forget_messages(&mut self, history: &mut [HistoryItem]) {
        let upto = self.taken.0.min(history.len());
        // One empty text for all: the history shares its texts with the
        // conversation (an Rc), and forgetting one only lets go of a count.
        let empty = std::rc::Rc::new(String::new());
        for item in history.get_mut(self.forgotten..upto).unwrap_or_default() {
            if let HistoryItem::Message { kind, json, turn, .. } = item {
                if *kind != RecordKind::Compaction && !json.is_empty() {
                    *json = empty.clone();
                }
                if turn.as_ref().is_some_and(|t| t.children.is_empty()) {
                    *turn = None;
                }
            }
        }
        self.forgotten = self.forgotten.max(upto);
    }

    /// The journal lines `entry_json(index, …)` needs when messages were
    /// forgotten: the entry's own, and those of its calls' results.
    pub fn lines_for(&self, state: &SessionState, index: usize) -> Vec<u64> {
        let mut out = Vec::new();
        let Some(e) = self.entries.get(index) else { return out };
        let forgotten = |i: usize| match (self.sources.get(i), state.history.as_deref()) {
            (Some(Source::History(h)), Some(history)) => {
                matches!(history.get(*h), Some(HistoryItem::Message { json, .. }) if json.is_empty())
            }
            _ => false,
        };
        if forgotten(index) {
            out.push(e.line);
        }
        for t in e.tools.iter().filter(|t| t.is_use) {
            if let Some(p) = t.pair.map(|p| p as usize).filter(|&p| forgotten(p)) {
                if let Some(r) = self.entries.get(p) {
                    if !out.contains(&r.line) {
                        out.push(r.line);
                    }
                }
            }
        }
        out
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Every entry, in order (held in blocks: entries.rs says why).
    pub fn entries(&self) -> Vec<&Entry> {
        self.entries.iter().collect()
    }

    /// Entries `from..to` as a JSON array.
    pub fn index_json(&self, from: usize, to: usize) -> String {
        // Room for about 400 bytes an entry (the index of the 1 GB bench
        // journal averages 370): grown from nothing, the text of 256
        // entries was copied a dozen times on the way to its 100 KB.
        let mut out = String::with_capacity(to.min(self.len()).saturating_sub(from).saturating_mul(400) + 2);
        out.push('[');
        for (i, e) in self.entries.range(from, to).enumerate() {
            if i > 0 {
                out.push(',');
            }
            write::entry(&mut out, e);
        }
        out.push(']');
        out
    }

    /// What `settle` decided of entries `from..to`, for a reader that took
    /// them while the journal was read (`index_json` before `settle`), in
    /// columns: as one object an entry it was 56 MB for a 1 GB journal,
    /// which took the viewer's worker and page 0.4 s after the read and
    /// 150 MiB at the tab's peak. A JSON object:
    /// - `from`: the index of the first entry;
    /// - `fate`, `thinkingFate`, `underCalls`: one character an entry, the
    ///   fate and thinking fate by the codes `codes` names (`-`: none), and
    ///   `1` where `underCalls` is true (`0`: absent);
    /// - `droppedWhy`: `index, text` of each entry that has it, one after
    ///   another in one array;
    /// - `tools`: `index, k, pair, name, flags, child` for tool `k` of each
    ///   entry with tools, six values a tool in one array (not an array a
    ///   tool: 400,000 of them for 1 GB), `pair`, `name` and `child` null
    ///   when absent, `flags` 1 for `error` and 2 for `interrupted`;
    /// - `codes`: `{"fate": {code: name}, "thinkingFate": {code: name}}`.
    ///
    /// The reader sets each of these fields on its entry (and tool), or
    /// removes it where the patch says absent (a settle while reading, for
    /// the first screen, may have set it), and so has what `index_json`
    /// gives now. None when a settle moved entries since the transcript
    /// began (another agent's reader can): the reader then takes the
    /// entries again.
    pub fn patch_json(&self, from: usize, to: usize) -> Option<String> {
        if self.reordered || !self.settled {
            return None;
        }
        let mut out = String::new();
        write::patch(&mut out, self.entries.range(from, to), from.min(to).min(self.entries.len()));
        Some(out)
    }

    /// What a reader's summary says of the whole transcript without taking
    /// every entry (the viewer's page parses a big session's entries only
    /// as they are read: web-demo/viewer-entries.js), as a JSON object
    /// (`TranscriptNotes`): `warnings`, the indices of the first `limit`
    /// warning entries; `warningCount`, all of them; `subagentRuns`, the
    /// subagent reports the other entries hold.
    pub fn notes_json(&self, limit: usize) -> String {
        let mut out = String::new();
        write::notes(&mut out, self.entries.iter(), limit);
        out
    }

    /// One entry whole, as JSON (None past the end). `lines`: journal lines
    /// by number, for messages the history forgot (`lines_for`).
    pub fn entry_json(&self, state: &SessionState, index: usize) -> Option<String> {
        detail::entry_json(self, state, index, &[])
    }

    /// `entry_json` with the journal lines of forgotten messages.
    pub fn entry_json_with(
        &self,
        state: &SessionState,
        index: usize,
        lines: &[(u64, &str)],
    ) -> Option<String> {
        detail::entry_json(self, state, index, lines)
    }

    /// Entries whose text holds `query`, ignoring ASCII case.
    pub fn search(&self, state: &SessionState, query: &str) -> Vec<u32> {
        let q = query.to_ascii_lowercase();
        if q.is_empty() {
            return Vec::new();
        }
        (0..self.entries.len())
            .filter(|&i| {
                crate::bytes::contains_ignoring_case(self.text_of(state, i).as_bytes(), q.as_bytes())
            })
            .map(|i| i as u32)
            .collect()
    }

    /// The raw text of an entry: a message's JSON, a landmark's or warning's text.
    fn text_of<'s>(&self, state: &'s SessionState, i: usize) -> &'s str {
        match self.sources.get(i) {
            Some(Source::History(h)) => match state.history.as_deref().and_then(|x| x.get(*h)) {
                Some(HistoryItem::Message { json, .. }) => json,
                Some(HistoryItem::Landmark { text, .. }) => text,
                None => "",
            },
            Some(Source::Warning(w)) => state.warnings.get(*w).map_or("", |x| x.message.as_str()),
            None => "",
        }
    }

    fn push(&mut self, source: Source, state: &SessionState) {
        let index = self.entries.len() as u32;
        let mut e = Entry::blank(index);
        match source {
            Source::Warning(w) => {
                let Some(warning) = state.warnings.get(w) else { return };
                e.line = warning.line;
                e.record = warning.kind.as_str();
                e.kind = EntryKind::Warning;
                e.preview = warning.message.clone();
            }
            Source::History(h) => match state.history.as_deref().and_then(|x| x.get(h)) {
                Some(HistoryItem::Landmark { line, kind, text }) => {
                    e.line = *line;
                    e.record = kind.as_str();
                    e.preview = plain::landmark(*kind, text);
                }
                Some(HistoryItem::Message { line, kind, json, turn }) => {
                    e.line = *line;
                    e.record = kind.as_str();
                    e.kind = EntryKind::Message;
                    summarise(&mut e, *kind, json, &mut self.scratch);
                    if let Some(turn) = turn {
                        take_turn(&mut e, *kind, turn);
                    }
                    e.context = context_label(&e, *kind, state);
                }
                None => return,
            },
        }
        self.sources.push(source);
        self.entries.push(e);
    }

    /// Puts the entries in the order a whole build gives. Read in chunks,
    /// a warning can come before history that precedes it: another agent's
    /// reader gives its records at the end.
    fn reorder(&mut self, state: &SessionState) {
        let history: &[HistoryItem] = state.history.as_deref().unwrap_or(&[]);
        let order = merged(history, &state.warnings, 0, 0);
        if order == self.sources {
            return;
        }
        self.reordered = true;
        let mut at_history = vec![None; history.len()];
        let mut at_warning = vec![None; state.warnings.len()];
        for (i, s) in self.sources.iter().enumerate() {
            match *s {
                Source::History(h) => at_history.get_mut(h).map(|x| *x = Some(i)),
                Source::Warning(w) => at_warning.get_mut(w).map(|x| *x = Some(i)),
            };
        }
        let mut old: Vec<Option<Entry>> = std::mem::take(&mut self.entries).into_iter().map(Some).collect();
        self.sources.clear();
        for s in order {
            let at = match s {
                Source::History(h) => at_history.get(h).copied().flatten(),
                Source::Warning(w) => at_warning.get(w).copied().flatten(),
            };
            if let Some(mut e) = at.and_then(|i| old.get_mut(i)).and_then(Option::take) {
                e.index = self.entries.len() as u32;
                self.entries.push(e);
                self.sources.push(s);
            }
        }
    }

    /// What needs the whole history: fates, tool pairs, thinking on resume.
    pub fn settle(&mut self, state: &SessionState) {
        if self.settled {
            return;
        }
        self.settled = true;
        self.reorder(state);
        let fates = Fates::of(state);
        for e in self.entries.iter_mut().filter(|e| e.kind == EntryKind::Message) {
            e.fate = Some(fates.fate(e.line));
        }
        // Tool pairs: each result with the latest call of its id in an
        // entry before it, and each child a tool_results record names with
        // the latest call before that record's entry (calls.rs finds them).
        let mut pairs: Vec<(u32, usize, u32, usize)> = Vec::new(); // (result entry, tool, call entry, tool)
        let mut links: Vec<(u32, usize, String)> = Vec::new();
        {
            let mut calls = calls::Calls::new(&self.entries);
            let history = state.history.as_deref().unwrap_or(&[]);
            let children_of = |h: usize| match history.get(h) {
                Some(HistoryItem::Message { turn: Some(t), .. }) => t.children.as_slice(),
                _ => &[],
            };
            let mut linked = vec![false; history.len()];
            for (i, e) in self.entries.iter().enumerate() {
                for (k, tool) in e.tools.iter().enumerate().filter(|(_, t)| !t.is_use) {
                    if let Some((ci, ck)) = calls.latest(&tool.id, i) {
                        pairs.push((i as u32, k, ci, ck));
                    }
                }
                if let Some(Source::History(h)) = self.sources.get(i) {
                    if let Some(done) = linked.get_mut(*h) {
                        *done = true;
                    }
                    for (id, child) in children_of(*h) {
                        if let Some((ci, ck)) = calls.latest(id, i) {
                            links.push((ci, ck, child.clone()));
                        }
                    }
                }
            }
            // A history item with no entry: the latest call of all.
            for h in (0..history.len()).filter(|&h| !linked[h]) {
                for (id, child) in children_of(h) {
                    if let Some((ci, ck)) = calls.latest(id, self.entries.len()) {
                        links.push((ci, ck, child.clone()));
                    }
                }
            }
        }
        for (ri, rk, ci, ck) in pairs {
            let result = &self.entries[ri as usize].tools[rk];
            let (error, interrupted) = (result.error, result.interrupted);
            let named = result.name == self.entries[ci as usize].tools[ck].name;
            let call = &mut self.entries[ci as usize].tools[ck];
            call.pair = Some(ri);
            call.error = error;
            call.interrupted = interrupted;
            // Copied only when it differs: a followed journal settles again
            // on every update, and copying each result's name anew (and
            // freeing the old) was a quarter of that settle for a 1 GB journal.
            let name = (!named).then(|| call.name.clone());
            let result = &mut self.entries[ri as usize].tools[rk];
            result.pair = Some(ci);
            if let Some(name) = name {
                result.name = name;
            }
        }
        for (ci, ck, child) in links {
            self.entries[ci as usize].tools[ck].child = Some(child);
        }
        for e in self.entries.iter_mut() {
            e.under_calls = e.record == RecordKind::ToolResults.as_str()
                && e.kind == EntryKind::Message
                && !e.tools.is_empty()
                && e.tools.iter().all(|t| !t.is_use && t.pair.is_some())
                && e.blocks.iter().all(|b| *b == "tool_result")
                && e.subagents.is_empty();
        }
        // Thinking on resume: what the repair leaves out, by message line.
        let report = crate::resume::resume(state, &crate::resume::ResumeOptions::default()).report;
        let mut dropped: Vec<(u64, &'static str)> = report
            .dropped
            .iter()
            .filter_map(|d| Some((state.messages.get(d.message)?.origin.line, d.reason.as_str())))
            .collect();
        crate::order::sort_by(&mut dropped, |a, b| a.cmp(b));
        for e in self.entries.iter_mut().filter(|e| e.thinking > 0) {
            e.dropped_why = None;
            e.thinking_fate = Some(if e.fate != Some(Fate::Live) {
                ThinkingFate::NotSent
            } else {
                // The entry's reasons, found by halves in the sorted list:
                // a filter of the whole list for each entry was quadratic
                // (40,000 thinking turns before a model switch, all
                // dropped, took 1.9 s to settle).
                let lo = dropped.partition_point(|(l, _)| *l < e.line);
                let hi = dropped.partition_point(|(l, _)| *l <= e.line);
                let mut why: Vec<&str> =
                    dropped.get(lo..hi).unwrap_or_default().iter().map(|(_, r)| *r).collect();
                why.dedup();
                if why.is_empty() {
                    ThinkingFate::Kept
                } else {
                    e.dropped_why = Some(why.join(", "));
                    ThinkingFate::Dropped
                }
            });
        }
    }
}

/// History items and warnings from `h` and `w` on, merged by line: a
/// warning goes before the first item of a later line (after a record of its
/// own line: the record was applied with it). History keeps its own order
/// (another agent's conversation order).
fn merged(
    history: &[HistoryItem],
    warnings: &[crate::state::Warning],
    mut h: usize,
    mut w: usize,
) -> Vec<Source> {
    let mut out = Vec::with_capacity(history.len().saturating_sub(h) + warnings.len().saturating_sub(w));
    while h < history.len() || w < warnings.len() {
        let take_warning = match (history.get(h).map(item_line), warnings.get(w).map(|x| x.line)) {
            (Some(a), Some(b)) => b < a,
            (None, _) => true,
            _ => false,
        };
        if take_warning {
            out.push(Source::Warning(w));
            w += 1;
        } else {
            out.push(Source::History(h));
            h += 1;
        }
    }
    out
}

fn item_line(h: &HistoryItem) -> u64 {
    match h {
        HistoryItem::Message { line, .. } | HistoryItem::Landmark { line, .. } => *line,
    }
}

/// An entry that holds only what the agent put in the conversation: the
/// label of its first text (its preview's start says it), or for another
/// agent's continue record, "context".
fn context_label(e: &Entry, kind: RecordKind, state: &SessionState) -> Option<String> {
    if !matches!(kind, RecordKind::User | RecordKind::Continue) || e.blocks.iter().any(|b| *b != "text") {
        return None;
    }
    if let Some((label, _)) = boilerplate::context_of(&e.preview) {
        return Some(label);
    }
    let foreign = state.format.is_some_and(|f| f != crate::formats::Format::Garuda);
    (kind == RecordKind::Continue && foreign).then(|| "context".to_owned())
}

/// A response's figures and a record's time, links and reports.
fn take_turn(e: &mut Entry, kind: RecordKind, turn: &Turn) {
    e.t = turn.t.clone();
    e.synthetic = turn.synthetic;
    e.redacted = turn.redacted;
    if kind == RecordKind::Assistant {
        e.response = Some(Box::new(ResponseFigures {
            usage: turn.usage,
            cost_usd: turn.cost_usd.filter(|c| c.is_finite()),
            context_tokens: turn.context_tokens,
            context_window: turn.context_window,
        }));
    }
    e.subagents = turn
        .reports
        .iter()
        .map(|(child, tokens, cost)| Subagent { child: child.clone(), tokens: *tokens, cost_usd: *cost })
        .collect();
}

#[cfg(test)]
mod tests;
