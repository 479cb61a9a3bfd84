//! The conversation as the model gets it from a live journal: the one copy
//! a host sends (`session.messages`), owned by the core.
//!
//! The state keeps every message as it was written (unredacted in a live
//! journal's memory, redacted as replayed from disk). What the model may
//! be sent differs in one way: the messages before the latest `start`,
//! `resume` or `model` record (the barrier) go through resume's repair
//! (spec §6, the seed's rules): thinking from the first message redacted
//! on disk on (dropThinkingAfterRedaction), a thinking block whose own text
//! was redacted (repairThinking), all thinking before a model switch (a
//! live `/models`, or a resume with another model), and thinking after any
//! repair that changed content. The messages after the barrier were sent
//! live, with signatures made over that repaired history: they go as they
//! are.
//!
//! The repaired part changes only at a barrier, a compaction, or an undo or
//! redo that reaches into it; appends cost nothing here but the tracking of
//! open tool calls, so `closeOpenToolCalls` is O(1) when nothing is open.

use super::message::{Kind, Msg, Role};
use super::unique_ids::UniqueIds;
use super::{ProblemKind, RepairReport, ResumeOptions, INTERRUPTED};
use crate::record::RecordKind;
use crate::state::SessionState;

#[derive(Debug, Clone, Default)]
pub struct ModelView {
    /// The line of the latest start, resume or model record (0: none).
    barrier: u64,
    /// The line of the latest compaction (0: none). One after the barrier
    /// replaced the conversation with messages the agent gave live: all of
    /// them go as given, though some keep the origins of older lines.
    compacted: u64,
    /// The repaired part must be made again before it is read.
    stale: bool,
    /// How many of the state's messages the repaired part stands for.
    covered: usize,
    /// The repaired messages (JSON texts).
    prefix: Vec<String>,
    report: RepairReport,
    /// Changed whenever the view changed other than by one message appended
    /// at its end (to a value unique in the process): a host that keeps the
    /// messages as objects fetches them again then.
    generation: u64,
    /// The tool calls (id, name) of the view's last assistant message that
    /// no later message answers.
    open: Vec<(String, String)>,
    /// The open calls are the repaired part's: the message that answers
    /// them goes into that part (`refresh`).
    open_before_live: bool,
    /// Where the live part starts in the state's messages (`refresh`).
    base: usize,
    /// The repaired part stood for every message at the refresh (calls it
    /// left open are then left to the journal's answer).
    whole: bool,
    /// What the repair must take of the live part, as far as it was read
    /// (None: not read yet; `refresh`, an undo or a redo sets it).
    taker: Option<Taker>,
}

impl ModelView {
    /// Takes note of a record the state applied (`before`: its message
    /// count before). Called for every applied record; `live`: written,
    /// not replayed (a replay only marks the view stale: reading each
    /// message again would double its cost, for a view it may never need).
    pub fn observe(&mut self, kind: RecordKind, line: u64, before: usize, state: &SessionState, live: bool) {
        match kind {
            RecordKind::Start | RecordKind::Resume | RecordKind::Model => {
                self.barrier = line;
                self.stale = true;
            }
            RecordKind::User | RecordKind::Continue | RecordKind::ToolResults | RecordKind::Assistant => {
                if self.stale {
                    return;
                }
                if !live {
                    self.stale = true;
                    return;
                }
                match state.messages.get(before..) {
                    // The view's first message must be a prompt: a response
                    // first (or after a prompt the repair left out) gets the
                    // repair's leading note.
                    Some([m]) if self.len(state) == 1 && role_of(&m.json) != Some(Role::User) => {
                        self.stale = true
                    }
                    Some([m]) => self.note_appended(&m.json, state, before),
                    _ => self.stale = true,
                }
            }
            RecordKind::Undo | RecordKind::Redo => {
                // Within the live part, the view is the state's tail: only
                // the open calls and the generation change. (A replay only
                // marks it stale: no walk per undo.)
                let within = !self.stale
                    && live
                    && state.messages.len() >= self.covered
                    && state.messages[self.covered..].iter().all(|m| m.origin.line > self.barrier);
                // And the repaired part is the one a refresh would make now:
                // a redo can bring back a message the repair takes (the
                // fuzz target found a response after calls left open), and
                // calls reopened for the journal's answer are answered by
                // the repair once anything follows them (and the other way
                // round: an undo back to them reopens them).
                let same = within && !self.open_before_live && {
                    let (base, covered, taker) = self.cover(state);
                    self.taker = Some(taker);
                    (base, covered, covered == state.messages.len()) == (self.base, self.covered, self.whole)
                };
                if !same {
                    self.stale = true;
                } else {
                    self.generation = next_generation();
                    let open = open_calls(self.iter(state));
                    self.open = open;
                }
            }
            RecordKind::Compaction => {
                self.compacted = line;
                self.stale = true;
            }
            _ => {}
        }
    }

    /// A message appended at the end (`state.messages[index]`): its tool
    /// calls open, or its results answer open ones.
    fn note_appended(&mut self, json: &str, state: &SessionState, index: usize) {
        // A message the API refuses as written (an empty response followed
        // by more, a blank text block: both come from the API itself, an
        // id used before) goes into the repaired part, as a resume would
        // repair it: sent as it came, it failed every request after it.
        // Found by the steps a replay takes (`refused_run`), so the two
        // take the same messages.
        let (base, messages) = (self.base, &state.messages);
        let taker = self.taker.get_or_insert_with(|| Taker::over(messages, base, index));
        // After a refresh that left calls open for the journal's answer,
        // anything that follows changes the repaired part (the repair
        // answers them once they are not last).
        if taker.takes(messages, index) || self.open_before_live {
            self.stale = true;
            return;
        }
        // Most messages call nothing, or answer nothing open: no parse for
        // them (a live write would pay for one per record).
        let calls = json.contains(r#""tool_use""#);
        if !calls && self.open.is_empty() {
            // Results when nothing is open answer no call (the API refuses
            // them): the repair writes them out as text.
            if json.contains(r#""tool_result""#)
                && Msg::parse(json, Default::default(), None)
                    .is_some_and(|m| m.tool_result_ids().next().is_some())
            {
                self.stale = true;
            }
            return;
        }
        if !calls && !json.contains(r#""tool_result""#) {
            // Answers nothing: only a response (which has no calls) changes
            // what is open.
            // A response, or a prompt (a continue note after a response
            // cut off in its calls), while calls are open: the API refuses
            // the unanswered calls; the repair answers them.
            if role_of(json).is_some() {
                self.stale = true;
            }
            return;
        }
        let Some(m) = Msg::parse(json, Default::default(), None) else { return };
        match m.role {
            Role::Assistant if !self.open.is_empty() => self.stale = true,
            Role::Assistant => {
                self.open = calls_of(&m);
                self.open_before_live = false;
            }
            Role::User => {
                if self.open_before_live
                    && m.tool_result_ids().any(|id| self.open.iter().any(|(o, _)| o == id))
                {
                    self.stale = true;
                    return;
                }
                let answered: Vec<&str> = m.tool_result_ids().collect();
                if refused(&m) || answered.iter().any(|id| !self.open.iter().any(|(o, _)| o == id)) {
                    self.stale = true;
                    return;
                }
                if !self.open.is_empty() {
                    self.open.retain(|(id, _)| !answered.contains(&id.as_str()));
                    if !self.open.is_empty() && m.blocks.iter().any(|b| b.kind != Kind::ToolResult) {
                        self.stale = true;
                    }
                }
            }
        }
    }

    /// Where the live part starts (after the messages before the barrier),
    /// how many messages the repaired part stands for, and the steps'
    /// state at the end of the live part.
    fn cover(&self, state: &SessionState) -> (usize, usize, Taker) {
        // After a compaction written since the barrier, nothing is before it:
        // messages the compaction carried over keep their older lines, and
        // splitting the conversation at them repaired half a tool loop (an
        // answered call "interrupted" live, unlike after the next resume).
        let base = if self.compacted > self.barrier {
            0
        } else {
            state.messages.iter().rposition(|m| m.origin.line < self.barrier).map_or(0, |i| i + 1)
        };
        // Calls of the last response before the barrier that the journal
        // leaves unanswered there.
        let unanswered = open_ids(&state.messages[..base]);
        // The journal's answer to them, written after the barrier (the
        // host's results, or closeOpenToolCalls' record), belongs to the
        // repaired loop: a loop the repair writes out as text (thinking on,
        // its thinking gone with a model switch) has its results written
        // out too. Left live, tool_result blocks would answer a call that
        // is now text, which the API refuses; a resume of the journal
        // writes both out.
        let (refused, taker) = refused_run(&state.messages, base);
        let mut covered = base + answering_run(&state.messages[base..], &unanswered).max(refused);
        // So does the journal's answer to calls of a response the repair
        // took past the barrier (one first in the conversation, or one sent
        // while calls were open): left live, it answered them a second time
        // after the repair's own answer (the live fuzz target's view check).
        if covered > base {
            covered += answering_run(&state.messages[covered..], &open_ids(&state.messages[..covered]));
        }
        (base, covered, taker)
    }

    /// Makes the repaired part again when something reached into it.
    pub fn refresh(&mut self, state: &SessionState) {
        if !self.stale {
            return;
        }
        self.stale = false;
        self.generation = next_generation();
        let (base, covered, taker) = self.cover(state);
        self.base = base;
        self.covered = covered;
        self.whole = covered == state.messages.len();
        self.taker = Some(taker);
        let options = ResumeOptions { model: None, thinking: thinking_on(state.thinking.as_deref()) };
        let thinking = options.thinking == Some(true);
        let (mut prefix, mut report) =
            super::repair(&state.messages[..self.covered], state.model.as_deref(), state.epoch, &options);
        // Calls still unanswered stay open when nothing live follows: the
        // host's closeOpenToolCalls answers them with a record, so the
        // journal holds the answer too (answered here as well, they would
        // be answered twice, which the API refuses). When something live
        // follows (a prompt written with no answer first), the repair's
        // answers before it stay.
        // (The calls of the repaired part's last response, which may be a
        // live one the repair took: the tracking then follows them as a
        // replay's repair does.)
        let left_to_journal: Vec<String> = if self.covered < state.messages.len() {
            Vec::new()
        } else {
            open_ids(&state.messages[..self.covered])
        };
        // Only when nothing but results follows the response: results
        // appended after a prompt would come after other content of the
        // turn, which the API refuses.
        // And only when the journal answers every call the repair answered
        // there: a call the repair renamed (an id used twice) is one the
        // journal cannot answer, and reopening the others left it answered
        // before calls still open.
        let made = |b: &super::message::Block| {
            b.at.is_none() && b.kind == Kind::ToolResult && b.json.contains(INTERRUPTED)
        };
        let last = prefix.iter().rposition(|m| m.role == Role::Assistant).filter(|&a| {
            !left_to_journal.is_empty()
                && prefix[a + 1..].iter().all(|m| m.blocks.iter().all(|b| b.kind == Kind::ToolResult))
                && prefix[a + 1..]
                    .iter()
                    .flat_map(|m| &m.blocks)
                    .filter(|b| made(b))
                    .all(|b| b.id.as_ref().is_some_and(|id| left_to_journal.contains(id)))
        });
        let mut reopened: Vec<String> = Vec::new();
        if let Some(a) = last {
            for m in &mut prefix[a + 1..] {
                let before = m.blocks.len();
                m.blocks.retain(|b| {
                    let made = made(b) && b.id.as_ref().is_some_and(|id| left_to_journal.contains(id));
                    if made {
                        reopened.extend(b.id.clone());
                    }
                    !made
                });
                m.changed |= m.blocks.len() != before;
            }
            let mut i = a + 1;
            while i < prefix.len() {
                if prefix[i].source.is_none() && prefix[i].blocks.is_empty() {
                    prefix.remove(i);
                } else {
                    i += 1;
                }
            }
            report.tool_calls_answered.retain(|id| !reopened.contains(id));
        }
        // A loop with calls still open is not written out as text yet: the
        // calls would be text while the journal answers them. The answer's
        // record makes the view again (note_appended), with it in the loop.
        super::finish(&mut prefix, &mut report, thinking && reopened.is_empty());
        if let Some(a) = last.filter(|_| !reopened.is_empty()) {
            // What the journal's answer settles is not a problem left.
            report.remaining.retain(|p| {
                !(p.index == a
                    && matches!(p.kind, ProblemKind::ToolUseUnanswered | ProblemKind::ThinkingMissing))
            });
        }
        self.prefix = prefix.iter().map(Msg::to_json).collect();
        self.report = report;
        let open = open_calls(self.iter(state));
        // Open calls of the repaired part's response: their answer, when it
        // comes, makes the view again.
        self.open_before_live = !open.is_empty() && self.covered == state.messages.len();
        self.open = open;
    }

    /// The view's messages (JSON texts), the repaired part first.
    pub fn iter<'a>(&'a self, state: &'a SessionState) -> impl DoubleEndedIterator<Item = &'a str> + 'a {
        let live = state.messages.get(self.covered..).unwrap_or_default();
        self.prefix.iter().map(String::as_str).chain(live.iter().map(|m| m.json.as_str()))
    }

    /// The number of messages the model gets.
    pub fn len(&self, state: &SessionState) -> usize {
        self.prefix.len() + state.messages.len().saturating_sub(self.covered)
    }

    pub fn is_empty(&self, state: &SessionState) -> bool {
        self.len(state) == 0
    }

    pub fn generation(&self) -> u64 {
        self.generation
    }

    /// What the repair of the part before the barrier changed.
    pub fn report(&self) -> &RepairReport {
        &self.report
    }

    /// The messages from `from` on, as a JSON array.
    pub fn json_from(&self, state: &SessionState, from: usize) -> String {
        let mut out = String::from("[");
        for (i, json) in self.iter(state).skip(from).enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(json);
        }
        out.push(']');
        out
    }

    /// The tool calls left open, as `closeOpenToolCalls` answers them.
    pub fn open_calls(&self) -> &[(String, String)] {
        &self.open
    }
}

/// A generation no view had before, in this process: a host that swaps
/// one journal for another (a Redis store rebuilds its memory after a
/// failed write) cannot mistake the new view for the one it holds.
fn next_generation() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// What a `thinking` record's choice says of the next request: on, off, or
/// unknown (the SDK's `{type: "enabled" | "adaptive" | "disabled"}`, or a
/// boolean).
pub(crate) fn thinking_on(choice: Option<&str>) -> Option<bool> {
    let choice = choice?;
    match choice {
        "true" => return Some(true),
        "false" => return Some(false),
        _ => {}
    }
    #[derive(serde::Deserialize)]
    struct Choice {
        #[serde(rename = "type")]
        kind: Option<String>,
    }
    match serde_json::from_str::<Choice>(choice).ok()?.kind.as_deref() {
        Some("enabled" | "adaptive") => Some(true),
        Some("disabled") => Some(false),
        _ => None,
    }
}

fn calls_of(m: &Msg) -> Vec<(String, String)> {
    m.blocks
        .iter()
        .filter(|b| b.kind == Kind::ToolUse)
        .filter_map(|b| Some((b.id.clone()?, b.name.clone().unwrap_or_default())))
        .collect()
}

/// How many of the first messages of `live` the answer to `unanswered`
/// spans: its leading user messages (one turn to the API) up to the last
/// that answers one of them (0: none does).
fn answering_run(live: &[crate::state::Message], unanswered: &[String]) -> usize {
    if unanswered.is_empty() {
        return 0;
    }
    let mut end = 0;
    for (k, m) in live.iter().enumerate() {
        let Some(msg) = Msg::parse(&m.json, Default::default(), None) else { break };
        if msg.role == Role::Assistant {
            break;
        }
        if msg.tool_result_ids().any(|id| unanswered.iter().any(|u| u == id)) {
            end = k + 1;
        }
    }
    end
}

/// Whether a message's text may hold what `refused` finds without knowing
/// the blocks' order and ids: an empty content array or a text that is
/// empty or white space (a scan for the keys, no parse). Results after
/// other content, or two for one call, are found by `refused` on the
/// parsed message (`Taker::takes` and `note_appended` parse results).
fn may_be_refused(json: &str) -> bool {
    let b = json.as_bytes();
    let after_key = |key: &[u8], value: &dyn Fn(&[u8]) -> bool| {
        let mut at = 0;
        while let Some(i) = b.get(at..).and_then(|h| crate::bytes::find_bytes(h, key)) {
            let mut k = at + i + key.len();
            while b.get(k).is_some_and(|c| c.is_ascii_whitespace()) {
                k += 1;
            }
            if b.get(k) == Some(&b':') {
                k += 1;
                while b.get(k).is_some_and(|c| c.is_ascii_whitespace()) {
                    k += 1;
                }
                if value(&b[k..]) {
                    return true;
                }
            }
            at = k.max(at + i + 1);
        }
        false
    };
    let empty_array = |v: &[u8]| {
        v.first() == Some(&b'[') && v[1..].iter().find(|c| !c.is_ascii_whitespace()) == Some(&b']')
    };
    let blank_string = |v: &[u8]| {
        if v.first() != Some(&b'"') {
            return false;
        }
        // White space to the closing quote; an escape or a byte past
        // ASCII may be white space too (`\u0020`, U+2003): the parse says.
        let mut k = 1;
        loop {
            match v.get(k) {
                Some(b'"') => return true,
                Some(b' ' | b'\t') => k += 1,
                Some(c) if *c == b'\\' || *c >= 0x80 => return true,
                _ => return false,
            }
        }
    };
    after_key(br#""content""#, &|v| empty_array(v) || blank_string(v))
        || after_key(br#""text""#, &blank_string)
}

/// Whether the API refuses a message as written for what `may_be_refused`
/// sees (then `refused` on the parse), found the same way as it arrives and
/// in a replay (`refused_run`), so the two agree.
fn api_refuses(json: &str) -> bool {
    may_be_refused(json) && Msg::parse(json, Default::default(), None).is_none_or(|m| refused(&m))
}

/// What the API refuses in a message as written: no content (a response
/// with nothing in it is refused unless it is the last message; it is left
/// out then too, as a resume does), a text block that is empty or white
/// space, tool results after other content, or two results for one call.
fn refused(m: &Msg) -> bool {
    let results_after_other = m.role == Role::User
        && m.blocks.iter().skip_while(|b| b.kind == Kind::ToolResult).any(|b| b.kind == Kind::ToolResult);
    m.blocks.is_empty()
        || m.blocks.iter().any(|b| b.kind == Kind::Text && b.blank && b.fault.is_none())
        || results_after_other
        || answers_twice(m)
}

/// Whether a message's results answer one call twice. The API refuses the
/// second answer (one result per call); the repair writes it out as text
/// (`fix_results`), or, when the call's id was used before, gives it the
/// renamed call's id. Sent live as written, it failed every request after
/// it (the live fuzz target's view check).
fn answers_twice(m: &Msg) -> bool {
    let mut seen = super::ids::Ids::default();
    m.tool_result_ids().any(|id| {
        let again = seen.contains(id);
        seen.insert(id);
        again
    })
}

/// How many of the messages from `base` on (the live part) the repair must
/// take: up to the last that the API refuses as written (`Taker::takes`;
/// 0: none is), and the steps' state at the end, for the messages to come.
fn refused_run(messages: &[crate::state::Message], base: usize) -> (usize, Taker) {
    let live = messages.get(base..).unwrap_or_default();
    let mut end = 0;
    // The conversation's first messages, up to its first prompt the API
    // takes: a response before it gets the repair's leading note.
    if base == 0 {
        // The first message the repair keeps: a response needs the note
        // before it (and the messages left out before it are taken too).
        // (A message of no known role is no message: the repair leaves it out.)
        let kept = live.iter().enumerate().find_map(|(k, m)| {
            if api_refuses(&m.json) {
                return None;
            }
            role_of(&m.json).map(|role| (k, role))
        });
        end = match kept {
            Some((k, role)) => k + usize::from(role != Role::User),
            None => live.len(),
        };
    }
    let mut taker = Taker::default();
    for k in 0..live.len() {
        if taker.takes(messages, base + k) {
            end = end.max(k + 1);
        }
    }
    (end, taker)
}

/// The steps that find what the API refuses in the live part, a message at
/// a time: one machine for a replay (`refused_run`) and for messages as
/// they arrive (`note_appended`), so live and replay take the same ones.
#[derive(Debug, Clone, Default)]
struct Taker {
    /// The calls of the last response that nothing answered yet, as written.
    open: Vec<String>,
    /// The last response was taken for an id used before: the repair
    /// renames it, and the results that answer it go with it.
    renamed: bool,
    /// Every tool_use id of the messages read so far, the ones before the
    /// live part too, and the names the repair gives the reused ones (None:
    /// no call came yet; read when one does).
    uses: Option<UniqueIds>,
}

impl Taker {
    /// The steps' state after `messages[base..index]`.
    fn over(messages: &[crate::state::Message], base: usize, index: usize) -> Taker {
        let mut taker = Taker::default();
        for k in base..index {
            taker.takes(messages, k);
        }
        taker
    }

    /// Whether the repair must take `messages[index]`, the next message:
    /// one the API refuses (`refused`), results that answer no open call,
    /// a response or a prompt while calls are open, or a call whose id was
    /// used before ("`tool_use` ids must be unique", across the history).
    /// Most messages are judged without a parse (a live write would pay
    /// for one per record).
    fn takes(&mut self, messages: &[crate::state::Message], index: usize) -> bool {
        let json = messages[index].json.as_str();
        let calls = json.contains(r#""tool_use""#);
        let parsed = if calls { Msg::parse(json, Default::default(), None) } else { None };
        let mut reused = false;
        if let Some(m) = parsed.as_ref().filter(|m| m.role == Role::Assistant) {
            let uses = self.uses.get_or_insert_with(|| given_ids(&messages[..index]));
            for id in m.tool_use_ids() {
                reused |= uses.give(id).is_some();
            }
        }
        if api_refuses(json) {
            // A prompt or results the repair takes: it answers what is open.
            if role_of(json) == Some(Role::User) {
                self.open.clear();
            }
            return true;
        }
        // No message at all (a role other than user or assistant): the
        // repair leaves it out. The role's usual spelling is found without
        // a parse.
        let role_said = [r#""role":"user""#, r#""role":"assistant""#].iter().any(|r| json.contains(r));
        if !role_said && role_of(json).is_none() {
            return true;
        }
        if !calls && self.open.is_empty() {
            // Results when nothing is open answer no call (the API refuses
            // them): the repair writes them out as text.
            return json.contains(r#""tool_result""#)
                && Msg::parse(json, Default::default(), None)
                    .is_some_and(|m| m.tool_result_ids().next().is_some());
        }
        if !calls && !json.contains(r#""tool_result""#) {
            // Answers nothing: a response (which has no calls), or a prompt
            // (a continue note after a response cut off in its calls),
            // while calls are open: the API refuses the unanswered calls;
            // the repair answers them.
            self.open.clear();
            return true;
        }
        let Some(msg) = parsed.or_else(|| Msg::parse(json, Default::default(), None)) else { return true };
        match msg.role {
            Role::Assistant => {
                let take = !self.open.is_empty() || reused;
                self.open = msg.tool_use_ids().map(str::to_owned).collect();
                self.renamed = reused;
                take
            }
            Role::User => {
                let answers = |id: &str| self.open.iter().any(|o| o == id);
                let mut take = refused(&msg) || msg.tool_result_ids().any(|r| !answers(r));
                take |= self.renamed && msg.tool_result_ids().any(answers);
                self.open.retain(|id| !msg.tool_result_ids().any(|r| r == id));
                take |= !self.open.is_empty() && msg.blocks.iter().any(|b| b.kind != Kind::ToolResult);
                if take {
                    // The repair answers what is still open.
                    self.open.clear();
                }
                take
            }
        }
    }
}

/// The tool_use ids of the responses among `messages`, given in order as
/// the repair gives them (a reused one under its fresh name too).
fn given_ids(messages: &[crate::state::Message]) -> UniqueIds {
    let mut ids = UniqueIds::default();
    for m in messages.iter().filter(|m| m.json.contains(r#""tool_use""#)) {
        if let Some(m) = Msg::parse(&m.json, Default::default(), None).filter(|m| m.role == Role::Assistant) {
            for id in m.tool_use_ids() {
                ids.give(id);
            }
        }
    }
    ids
}

/// A message's role, read alone.
fn role_of(json: &str) -> Option<Role> {
    #[derive(serde::Deserialize)]
    struct RoleOnly<'a> {
        #[serde(borrow)]
        role: Option<&'a serde_json::value::RawValue>,
    }
    match serde_json::from_str::<RoleOnly>(json).ok()?.role?.get() {
        r#""user""# => Some(Role::User),
        r#""assistant""# => Some(Role::Assistant),
        _ => None,
    }
}

/// The ids of the open calls of the state's messages (`open_calls`).
fn open_ids(messages: &[crate::state::Message]) -> Vec<String> {
    open_calls(messages.iter().map(|m| m.json.as_str())).into_iter().map(|(id, _)| id).collect()
}

/// The open calls of a list of messages: the last assistant message's
/// calls that no later message answers.
fn open_calls<'a>(messages: impl DoubleEndedIterator<Item = &'a str>) -> Vec<(String, String)> {
    let mut answered: Vec<String> = Vec::new();
    for json in messages.rev() {
        let Some(m) = Msg::parse(json, Default::default(), None) else { continue };
        match m.role {
            Role::User => answered.extend(m.tool_result_ids().map(str::to_owned)),
            Role::Assistant => {
                return calls_of(&m).into_iter().filter(|(id, _)| !answered.contains(id)).collect()
            }
        }
    }
    Vec::new()
}

#[cfg(test)]
#[path = "view_tests.rs"]
mod tests;
