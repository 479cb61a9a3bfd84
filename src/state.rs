//! The session state (spec §3) and what each record does to it (spec §2).
//!
//! `SessionState::apply` is the only place a record changes the state, and
//! both live writes and replay call it, so live always equals replay.

use crate::accounting::Accounts;
use crate::record::{check_content, raw_kind, Fields, MessageParts, RecordKind};
use serde_json::value::RawValue;
use std::rc::Rc;

/// What resume needs to know about the record a message came from (spec §6).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Origin {
    /// The record's strings were changed by the Redactor.
    pub redacted: bool,
    /// How many model switches came before the message.
    pub epoch: u32,
    /// The 1-based journal line of the record (for viewers: a message can be
    /// traced to its line after undo, redo and compaction).
    pub line: u64,
    /// The message as written could not be carried (it nested deeper than
    /// `MAX_NESTING`): replay put a short note of the same role in its place.
    pub dropped: bool,
}

/// How deep a message's JSON may nest (the message object is level 1, its
/// content array 2, a block 3). Deeper is no conversation the API takes, and
/// JS hosts overflow their stack on it in `JSON.stringify`; a record line
/// stays under serde_json's own limit of 128.
pub const MAX_NESTING: usize = 100;

/// One message of the conversation, kept as the exact JSON text it was
/// written with (Anthropic Messages API shape). The text is shared with
/// the history (an `Rc` of the `String` the record was written into, so
/// neither a copy nor a second block): copying each message for the history
/// was 4% of the viewer's reading of a 1 GB journal, and a second copy in
/// wasm memory of each message the conversation still holds. `Rc<str>`
/// would copy it once.
#[derive(Debug, Clone, PartialEq)]
pub struct Message {
    pub json: Rc<String>,
    pub origin: Origin,
}

/// An undo snapshot: the file tree before a turn and the message count then.
#[derive(Debug, Clone, PartialEq)]
pub struct Snapshot {
    pub tree: Option<Box<str>>,
    pub messages: usize,
    pub prompt: Option<Box<str>>,
}

/// A turn taken out by undo, ready for redo.
#[derive(Debug, Clone, PartialEq)]
pub struct Undone {
    pub snapshot: Snapshot,
    pub after: Option<Box<str>>,
    pub messages: Vec<Message>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WarningKind {
    BadJson,
    BadRecord,
    BadField,
    UnknownType,
    EmptyUndo,
    EmptyRedo,
    /// A message nested deeper than `MAX_NESTING`: a note stands in its place.
    TooDeep,
    /// A line longer than the journal's maximum line size, skipped unread.
    LineTooLong,
    /// Messages of another agent's session on branches other than the active one.
    OtherBranch,
    /// Another agent's session that never recorded its usage: its cost is unknown.
    UsageUnknown,
    /// A line with bytes that are not UTF-8, read with each replaced by
    /// U+FFFD, as the agents' own loaders read it (Node's `readFile(…,
    /// "utf8")`): one bad byte in a Claude Code line dropped the line, and
    /// with it the chain of every turn before it.
    NotUtf8,
}

impl WarningKind {
    /// Its place in `ALL` (and in `SessionState::warning_counts`).
    pub fn index(self) -> usize {
        self as usize
    }

    pub const ALL: [WarningKind; 11] = [
        WarningKind::BadJson,
        WarningKind::BadRecord,
        WarningKind::BadField,
        WarningKind::UnknownType,
        WarningKind::EmptyUndo,
        WarningKind::EmptyRedo,
        WarningKind::TooDeep,
        WarningKind::LineTooLong,
        WarningKind::OtherBranch,
        WarningKind::UsageUnknown,
        WarningKind::NotUtf8,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            WarningKind::BadJson => "bad-json",
            WarningKind::BadRecord => "bad-record",
            WarningKind::BadField => "bad-field",
            WarningKind::UnknownType => "unknown-type",
            WarningKind::EmptyUndo => "empty-undo",
            WarningKind::EmptyRedo => "empty-redo",
            WarningKind::TooDeep => "too-deep",
            WarningKind::LineTooLong => "line-too-long",
            WarningKind::OtherBranch => "other-branch",
            WarningKind::UsageUnknown => "usage-unknown",
            WarningKind::NotUtf8 => "not-utf8",
        }
    }
}

/// How many warnings of each kind are kept with their line and message;
/// the rest are only counted (`SessionState::warning_counts`). 20 M junk
/// lines kept whole took 3.3 GB and ended the wasm module.
pub const WARNINGS_KEPT: u64 = 100;

/// Something the reader tolerated, with its 1-based line number.
#[derive(Debug, Clone, PartialEq)]
pub struct Warning {
    pub line: u64,
    pub kind: WarningKind,
    pub message: String,
}

/// The state of §3. Metadata values are raw JSON so that whatever a writer
/// put there (a string, an object) passes through unchanged.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SessionState {
    pub session_id: Option<Box<str>>,
    pub root: Option<Box<str>>,
    pub version: Option<Box<str>>,
    pub model: Option<String>,
    pub executor: Option<Box<str>>,
    pub isolation: Option<Box<str>>,
    pub limits: Option<Box<str>>,
    pub messages: Vec<Message>,
    pub accounts: Accounts,
    pub context_tokens: u64,
    pub steps: u64,
    pub prompts: u64,
    pub title: Option<String>,
    /// The prompt of the first `user` record (for `/sessions`), even after
    /// compaction or undo took the message itself away.
    pub first_prompt: Option<String>,
    pub thinking: Option<Box<str>>,
    /// `{stopReason, steps}` of the `end` record, as raw JSON.
    pub ended: Option<Box<str>>,
    pub undo: Vec<Snapshot>,
    pub redo: Vec<Undone>,
    /// Model switches so far (§6 rule 2); messages carry the value at append.
    pub epoch: u32,
    /// The first `WARNINGS_KEPT` warnings of each kind, with their lines
    /// (push them with `warn`): a file of junk lines costs memory by kind,
    /// not by line.
    pub warnings: Vec<Warning>,
    /// Every warning given, by kind (`WarningKind::index`), kept or not.
    pub warning_counts: [u64; WarningKind::ALL.len()],
    pub torn_tail: bool,
    /// The format the journal was read in (None: nothing recognised yet).
    pub format: Option<crate::session_format::Format>,
    /// The whole history, when asked for (export, viewers): every message
    /// in the order it came, with the landmarks between (None: not kept).
    pub history: Option<Vec<HistoryItem>>,
    /// Reported usage and cost by day and model: what `usage --by` groups.
    /// Sorted by (day, model): a sorted list (few entries per session) costs
    /// the wasm module less code than one more map type.
    pub ledger: Vec<((String, String), LedgerEntry)>,
    /// A usage report's replay (`Journal::for_usage`): every booked request, one row each.
    pub request_rows: Option<Box<crate::usage_rows::RequestRows>>,
    /// The runs inside this file that its calls started (a Claude Code
    /// sidechain: the Task call's id), in order: a sessions index lists
    /// them as child runs, as it lists a subagent's own file.
    pub inline_runs: Vec<String>,
    /// The same runs as a set, to take each once: a search of the list for
    /// each call was quadratic in a session's runs.
    pub(crate) inline_seen: std::collections::HashSet<String>,
}

/// One item of the whole history: a message as it came (later compacted
/// away or undone, perhaps), or a landmark (compaction, undo, redo, a model
/// switch, a title, a thinking choice, a start, a resume, the end).
#[derive(Debug, Clone, PartialEq)]
pub enum HistoryItem {
    /// `turn`: what the record said besides its message (on the record's
    /// first message only; a compaction's summaries have none). `json` is
    /// the conversation's own text (`Message::json`), shared.
    Message {
        line: u64,
        kind: RecordKind,
        json: Rc<String>,
        turn: Option<Box<Turn>>,
    },
    Landmark {
        line: u64,
        kind: RecordKind,
        text: String,
    },
}

/// What a message's record said besides the message: its time, the usage and
/// cost of a response, the context size after it, and the subagent runs a
/// `tool_results` record links or reports.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Turn {
    pub t: Option<Box<str>>,
    /// A response's usage as recorded (None: not a response).
    pub usage: Option<crate::accounting::Usage>,
    pub cost_usd: Option<f64>,
    pub context_tokens: u64,
    /// The context window of the session's model then (None: unknown).
    pub context_window: Option<u64>,
    /// (tool_use_id, child session id) of each call that names its run.
    pub children: Vec<(String, String)>,
    /// Subagent reports: (child session id, tokens, cost).
    pub reports: Vec<(Option<String>, u64, Option<f64>)>,
    pub synthetic: bool,
    /// The record says the Redactor changed it.
    pub redacted: bool,
}

/// Usage and cost of one (day, model) of a session.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct LedgerEntry {
    pub usage: crate::accounting::Usage,
    /// None once a request of it had no price.
    pub cost_usd: Option<f64>,
    pub requests: u64,
}

impl SessionState {
    /// What a reported `side_usage` record does (its arm in `apply_record`),
    /// for a usage-only read's typed responses.
    pub(crate) fn add_side_usage(
        &mut self,
        t: Option<&str>,
        model: Option<&str>,
        usage: &crate::accounting::Usage,
        cost: Option<f64>,
    ) {
        let cost = cost.map_or(crate::record::Cost::Absent, crate::record::Cost::Known);
        self.accounts.add_response(usage, true, cost);
        self.book(t, model, usage, cost);
    }

    /// Counts a reported response in the ledger, under its day and model.
    fn book(
        &mut self,
        t: Option<&str>,
        model: Option<&str>,
        usage: &crate::accounting::Usage,
        cost: crate::record::Cost,
    ) {
        // YYYY-MM-DD at the start of an ISO time; anything else has no day
        // (checked byte by byte: a slice at 10 could cut a character).
        let day = match t.map(str::as_bytes) {
            Some(b)
                if b.len() >= 10
                    && b[..10].iter().enumerate().all(|(i, c)| {
                        if i == 4 || i == 7 {
                            *c == b'-'
                        } else {
                            c.is_ascii_digit()
                        }
                    }) =>
            {
                std::str::from_utf8(&b[..10]).unwrap_or_default()
            }
            _ => "",
        };
        let model = model.or(self.model.as_deref()).unwrap_or("");
        // Found without allocating: a live write books every response.
        let i = match self.ledger.binary_search_by(|((d, m), _)| (d.as_str(), m.as_str()).cmp(&(day, model)))
        {
            Ok(i) => i,
            Err(i) => {
                let entry = LedgerEntry { cost_usd: Some(0.0), ..LedgerEntry::default() };
                self.ledger.insert(i, ((day.to_owned(), model.to_owned()), entry));
                i
            }
        };
        let (unknown, cost) = (cost.is_unknown(), cost.known());
        if let Some(rows) = &mut self.request_rows {
            rows.push(t, model, usage, cost);
        }
        let e = &mut self.ledger[i].1;
        e.usage.add_all(usage);
        e.requests += 1;
        e.cost_usd = match (e.cost_usd, cost) {
            (Some(a), Some(c)) if c.is_finite() => Some(a + c),
            (Some(a), _) if usage.tokens() == 0 && !unknown => Some(a),
            _ => None,
        };
    }
}

impl SessionState {
    /// Gives a warning: counted always, kept (line and message) while its
    /// kind has fewer than `WARNINGS_KEPT`.
    pub fn warn(&mut self, warning: Warning) {
        let count = &mut self.warning_counts[warning.kind.index()];
        *count += 1;
        if *count <= WARNINGS_KEPT {
            self.warnings.push(warning);
        }
    }

    /// Every warning given, kept or only counted.
    pub fn warning_total(&self) -> u64 {
        self.warning_counts.iter().sum()
    }
}

fn raw_box(raw: Option<&RawValue>) -> Option<Box<str>> {
    raw.map(|r| Box::from(r.get()))
}

impl SessionState {
    /// Applies one parsed record. An `Err` means the record has a bad or
    /// missing field: the caller skips it with a `bad-field` warning, and
    /// nothing of it has been applied (all checks come before any change).
    pub fn apply(
        &mut self,
        kind: RecordKind,
        r: &Fields,
        line: u64,
    ) -> Result<Option<(WarningKind, String)>, String> {
        self.apply_marked(kind, r, line, false, true)
    }

    /// `apply`, with the record's messages marked redacted even when the
    /// record says nothing (a live write that keeps the unredacted record in
    /// memory while the disk gets the redacted line). `may_nest_deep`: false
    /// when the line has too few opening brackets for any message in it to
    /// nest deeper than `MAX_NESTING`, which spares the depth walk.
    pub fn apply_marked(
        &mut self,
        kind: RecordKind,
        r: &Fields,
        line: u64,
        redacted: bool,
        may_nest_deep: bool,
    ) -> Result<Option<(WarningKind, String)>, String> {
        let before = self.messages.len();
        let outcome = self.apply_record(kind, r, line, redacted, may_nest_deep);
        if outcome.is_ok() && self.history.is_some() {
            self.record_history(kind, r, line, before);
        }
        outcome
    }

    /// What a record adds to the whole history (only when it is kept).
    fn record_history(&mut self, kind: RecordKind, r: &Fields, line: u64, before: usize) {
        // A landmark says its kind, with the one value that says most.
        let with = |v: Option<&str>| {
            Some(v.map_or_else(|| kind.as_str().to_owned(), |v| format!("{}: {v}", kind.as_str())))
        };
        // (the landmark, the first message to take into the history)
        let (landmark, from) = match kind {
            RecordKind::User | RecordKind::Continue | RecordKind::ToolResults | RecordKind::Assistant => {
                (None, Some(before))
            }
            // A compaction's own messages (its summary) are new; carried ones came before.
            RecordKind::Compaction => (
                Some(format!(
                    "compaction: the conversation so far, summarised{}",
                    match (r.before_tokens.filter(|&b| b > 0), r.after_tokens) {
                        (Some(b), a) => format!(" ({b} tokens before, {} after)", a.unwrap_or(0)),
                        (None, Some(a)) => format!(" ({a} tokens after)"),
                        (None, None) => String::new(),
                    }
                )),
                Some(0),
            ),
            RecordKind::Start | RecordKind::Resume | RecordKind::Model => (with(r.model.as_deref()), None),
            RecordKind::Title => (with(r.title.as_deref()), None),
            RecordKind::Thinking => (with(r.choice.map(|c| c.get())), None),
            RecordKind::End => (with(Some(r.stop_reason.map_or("null", |c| c.get()))), None),
            RecordKind::Undo => (Some("undo: the last turn was taken back".to_owned()), None),
            RecordKind::Redo => (Some("redo: the turn was put back".to_owned()), None),
            RecordKind::Snapshot => (Some("snapshot: the files before this turn".to_owned()), None),
            RecordKind::Unreported => {
                (Some(format!("unreported: {} tokens reserved", r.tokens.unwrap_or(0))), None)
            }
            RecordKind::ChildDebit => (
                Some(format!(
                    "child_debit: {} tokens pending for {}",
                    r.tokens.unwrap_or(0),
                    r.child_session_id.as_deref().unwrap_or("-")
                )),
                None,
            ),
            // Told with its purpose ("side_usage: 120 tokens (title)"), but
            // not a response the transcript draws in its run.
            RecordKind::SideUsage => {
                let purpose = r.purpose.and_then(|p| serde_json::from_str::<String>(p.get()).ok());
                match purpose.filter(|p| !p.is_empty()) {
                    Some(p) if p == crate::record::INLINE_RUN_USAGE => (None, None),
                    purpose => {
                        let tokens = r.usage.map_or(0, |u| u.tokens());
                        let purpose = purpose.map(|p| format!(" ({p})")).unwrap_or_default();
                        (Some(format!("side_usage: {tokens} tokens{purpose}")), None)
                    }
                }
            }
        };
        let context_tokens = self.context_tokens;
        let context_window = self.model.as_deref().and_then(crate::prices::context_window);
        let Some(history) = &mut self.history else { return };
        if let Some(text) = landmark {
            history.push(HistoryItem::Landmark { line, kind, text });
        }
        let mut turn = (from.is_some() && kind != RecordKind::Compaction).then(|| {
            let response = r.response.as_ref();
            let calls = r.calls.iter().flatten();
            Box::new(Turn {
                t: r.t.as_deref().map(Box::from),
                usage: response.map(|x| x.usage),
                cost_usd: r.cost_usd.known(),
                context_tokens,
                context_window,
                children: calls
                    .clone()
                    .filter_map(|c| {
                        let child = c
                            .child_session_id
                            .as_ref()
                            .or_else(|| c.report.as_ref()?.child_session_id.as_ref());
                        Some((c.tool_use_id.clone()?, child?.clone()))
                    })
                    .collect(),
                reports: calls
                    .filter_map(|c| c.report.as_ref())
                    .map(|p| (p.child_session_id.clone(), p.usage.tokens(), p.cost_usd))
                    .collect(),
                synthetic: r.synthetic == Some(true),
                redacted: r.redacted == Some(true),
            })
        });
        for m in from.and_then(|f| self.messages.get(f..)).unwrap_or(&[]) {
            if kind != RecordKind::Compaction || m.origin.line == line {
                history.push(HistoryItem::Message { line, kind, json: m.json.clone(), turn: turn.take() });
            }
        }
    }

    fn apply_record(
        &mut self,
        kind: RecordKind,
        r: &Fields,
        line: u64,
        redacted: bool,
        may_nest_deep: bool,
    ) -> Result<Option<(WarningKind, String)>, String> {
        let origin = Origin {
            redacted: redacted || r.redacted == Some(true),
            epoch: self.epoch,
            line,
            dropped: false,
        };
        let mut warning = None;
        match kind {
            RecordKind::Start | RecordKind::Resume | RecordKind::Model => {
                if let Some(model) = &r.model {
                    let switched = match &self.model {
                        Some(current) => kind == RecordKind::Model || current != model,
                        None => kind == RecordKind::Model,
                    };
                    if switched {
                        self.epoch += 1;
                    }
                    self.model = Some(model.to_string());
                } else if kind == RecordKind::Model {
                    return Err("a `model` record needs a string `model`".into());
                }
                set_if(&mut self.session_id, r.session_id);
                set_if(&mut self.root, r.root);
                set_if(&mut self.version, r.version);
                set_if(&mut self.executor, r.executor);
                set_if(&mut self.isolation, r.isolation);
                set_if(&mut self.limits, r.limits);
                if kind == RecordKind::Resume {
                    self.ended = None;
                }
            }
            RecordKind::User => {
                let message = message_json(r.message.as_ref())?;
                if self.first_prompt.is_none() {
                    self.first_prompt = crate::prompt_text::prompt_text(&message);
                }
                warning = self.push(message, origin, may_nest_deep);
                self.prompts += 1;
            }
            RecordKind::Continue => {
                let message = message_json(r.message.as_ref())?;
                warning = self.push(message, origin, may_nest_deep);
            }
            RecordKind::ToolResults => {
                let message = message_json(r.message.as_ref())?;
                warning = self.push(message, origin, may_nest_deep);
                for call in r.calls.iter().flatten() {
                    if let Some(report) = &call.report {
                        self.accounts.add_report(report);
                    }
                    let inline = call
                        .child_session_id
                        .as_deref()
                        .and_then(|c| c.strip_prefix(crate::record::INLINE_RUN));
                    if let Some(id) = inline.filter(|id| !self.inline_seen.contains(*id)) {
                        self.inline_seen.insert(id.to_owned());
                        self.inline_runs.push(id.to_owned());
                    }
                }
            }
            RecordKind::Assistant => {
                let response = r.response.as_ref().ok_or("an `assistant` record needs `response`")?;
                check_content(response.content, "`response.content`")?;
                let reported = response.usage_reported.or(r.usage_reported) != Some(false);
                self.accounts.add_response(&response.usage, reported, r.cost_usd);
                if reported {
                    self.book(r.t.as_deref(), r.model.as_deref(), &response.usage, r.cost_usd);
                }
                self.context_tokens = response.usage.tokens();
                if let Some(step) = r.step {
                    self.steps = step;
                }
                const HEAD: &str = r#"{"role":"assistant","content":"#;
                let content = response.content.get();
                let mut json = String::with_capacity(HEAD.len() + content.len() + 1);
                json.push_str(HEAD);
                json.push_str(content);
                json.push('}');
                warning = self.push(json, origin, may_nest_deep);
            }
            RecordKind::Compaction => {
                let raw = required(r.messages, "messages")?;
                let list: Vec<MessageParts> = serde_json::from_str(raw.get())
                    .map_err(|_| "`messages` of a compaction must be an array of messages".to_string())?;
                let list =
                    list.iter().map(|m| m.checked_json("messages[]")).collect::<Result<Vec<_>, _>>()?;
                if let Some(summary) = &r.summary {
                    let reported = summary.usage_reported.or(r.usage_reported) != Some(false);
                    self.accounts.add_response(&summary.usage, reported, r.cost_usd);
                    if reported {
                        self.book(r.t.as_deref(), None, &summary.usage, r.cost_usd);
                    }
                }
                let mut carried = carry_origins(&self.messages, list, origin);
                for m in &mut carried {
                    if let Some((json, whole, w)) = may_nest_deep.then(|| fit(&m.json, line)).flatten() {
                        m.json = json.into();
                        m.origin.dropped = whole;
                        warning.get_or_insert(w);
                    }
                }
                self.messages = carried;
                if let Some(after) = r.after_tokens {
                    self.context_tokens = after;
                }
                self.undo.clear();
                self.redo.clear();
            }
            RecordKind::Snapshot => {
                let count = required(r.messages, "messages")?;
                let messages = count
                    .get()
                    .parse::<usize>()
                    .map_err(|_| "`messages` of a snapshot must be a message count".to_string())?;
                self.undo.push(Snapshot { tree: raw_box(r.tree), messages, prompt: raw_box(r.prompt) });
                self.redo.clear();
            }
            RecordKind::Undo => {
                let Some(snapshot) = self.undo.pop() else {
                    return Ok(Some((WarningKind::EmptyUndo, "undo with an empty undo stack".into())));
                };
                let from = snapshot.messages.min(self.messages.len());
                let messages = self.messages.split_off(from);
                self.redo.push(Undone { snapshot, after: raw_box(r.after), messages });
            }
            RecordKind::Redo => {
                let Some(undone) = self.redo.pop() else {
                    return Ok(Some((WarningKind::EmptyRedo, "redo with an empty redo stack".into())));
                };
                self.messages.extend(undone.messages);
                self.undo.push(undone.snapshot);
            }
            RecordKind::Title => {
                let title = r.title.as_ref().ok_or("a `title` record needs a string `title`")?;
                self.title = Some(title.to_string());
            }
            RecordKind::Thinking => {
                let choice = required(r.choice, "choice")?;
                self.thinking = Some(choice.get().into());
            }
            RecordKind::Unreported => {
                let tokens = r.tokens.ok_or("an `unreported` record needs `tokens`")?;
                self.accounts.reserve(tokens);
            }
            RecordKind::ChildDebit => {
                let child = r.child_session_id.as_ref().ok_or("a `child_debit` needs `childSessionId`")?;
                let tokens = r.tokens.ok_or("a `child_debit` needs `tokens`")?;
                self.accounts.debit(child, tokens);
            }
            RecordKind::SideUsage => {
                let usage = r.usage.as_ref().ok_or("a `side_usage` record needs `usage`")?;
                self.accounts.add_response(usage, r.usage_reported != Some(false), r.cost_usd);
                if r.usage_reported != Some(false) {
                    self.book(r.t.as_deref(), r.model.as_deref(), usage, r.cost_usd);
                }
            }
            RecordKind::End => {
                let stop = r.stop_reason.map(|s| s.get()).unwrap_or("null");
                let steps = r.steps.map(|s| s.to_string()).unwrap_or_else(|| "null".into());
                self.ended = Some(format!(r#"{{"stopReason":{stop},"steps":{steps}}}"#).into());
            }
        }
        // A user's message of another role is kept, with its warning (when
        // the message gave none of its own).
        Ok(warning.or_else(|| not_the_users(kind, r)))
    }

    /// Appends a message, or the note that stands in for one too deep to
    /// carry (with its warning).
    fn push(
        &mut self,
        json: String,
        mut origin: Origin,
        may_nest_deep: bool,
    ) -> Option<(WarningKind, String)> {
        match may_nest_deep.then(|| fit(&json, origin.line)).flatten() {
            None => {
                self.messages.push(Message { json: Rc::new(json), origin });
                None
            }
            Some((note, whole, warning)) => {
                origin.dropped = whole;
                self.messages.push(Message { json: Rc::new(note), origin });
                Some(warning)
            }
        }
    }

    pub fn cost_incomplete(&self) -> bool {
        self.accounts.cost_incomplete()
    }
}

/// A message a compaction kept verbatim keeps the origin it had (its model
/// epoch, its redaction); a new one (a summary, a trimmed result) belongs to
/// the compaction record.
///
/// The old messages are found in a map of their text (built once; the
/// latest of equal ones wins, as the search from the end found it): a search
/// of the whole old conversation for each kept message was quadratic when a
/// compaction kept the whole conversation (a stage-1 prune, or pi's
/// compaction keeping from an early entry: 8,000 turns took 11 s to replay).
fn carry_origins(old: &[Message], kept: Vec<String>, origin: Origin) -> Vec<Message> {
    // A few kept (a summary and the last prompt): searched from the end,
    // length first, without hashing the old conversation.
    let few = kept.len() <= 8;
    let by_text: std::collections::HashMap<&str, &Message> =
        if few { Default::default() } else { old.iter().map(|m| (m.json.as_str(), m)).collect() };
    kept.into_iter()
        .map(|json| {
            let same = if few {
                old.iter().rev().find(|m| m.json.len() == json.len() && *m.json == *json)
            } else {
                by_text.get(json.as_str()).copied()
            };
            let origin = match same {
                Some(m) => Origin { redacted: m.origin.redacted || origin.redacted, ..m.origin },
                None => origin,
            };
            Message { json: Rc::new(json), origin }
        })
        .collect()
}

/// None when `json` (a valid message) can be carried; else what replaces
/// it, whether that is a note for the whole message (`origin.dropped`),
/// and the warning to give. Only the blocks too deep give way when the
/// message has the usual shape (too_deep.rs).
fn fit(json: &str, line: u64) -> Option<(String, bool, (WarningKind, String))> {
    if !crate::bytes::nests_deeper_than(json.as_bytes(), MAX_NESTING) {
        return None;
    }
    if let Some(kept) = crate::too_deep::blocks_as_notes(json, MAX_NESTING, line) {
        if !crate::bytes::nests_deeper_than(kept.as_bytes(), MAX_NESTING) {
            let warning = format!("a message block nests deeper than {MAX_NESTING} levels: a note stands in its place, the rest of the message is kept");
            return Some((kept, false, (WarningKind::TooDeep, warning)));
        }
    }
    // Rare, so a second parse costs nothing that matters.
    let parts: Option<MessageParts> = serde_json::from_str(json).ok();
    let assistant = parts.and_then(|p| p.get("role")).is_some_and(|r| r.get() == r#""assistant""#);
    let role = if assistant { "assistant" } else { "user" };
    let note = format!(
        r#"{{"role":"{role}","content":[{{"type":"text","text":"[A message was dropped here at replay: its JSON nested deeper than {MAX_NESTING} levels (journal line {line}).]"}}]}}"#
    );
    let warning =
        format!("a {role} message nests deeper than {MAX_NESTING} levels: a note stands in its place");
    Some((note, true, (WarningKind::TooDeep, warning)))
}

/// The message a record line adds to the conversation, as the history keeps
/// it (a prompt, a continue note, tool results, a response); None for other
/// records and for lines that do not parse. A viewer that let the history
/// forget its messages reads them again from their lines.
pub fn message_of_line(line: &str) -> Option<String> {
    let line = line.strip_suffix('\r').unwrap_or(line);
    crate::record::with_fields(line, |kind, r| match kind {
        RecordKind::User | RecordKind::Continue | RecordKind::ToolResults => message_json(r.message.as_ref()),
        RecordKind::Assistant => {
            let response = r.response.as_ref().ok_or("no response")?;
            Ok(format!(r#"{{"role":"assistant","content":{}}}"#, response.content.get()))
        }
        _ => Err("no message".into()),
    })
    .ok()
}

/// The message of a `user`, `continue` or `tool_results` record is the
/// user's (spec §2: `{role:"user", content}`). Another role is kept, as
/// written, with a warning: a strict live write refuses it, and the model's
/// view and a resume leave out a message of no known role.
pub(crate) fn not_the_users(kind: RecordKind, r: &Fields) -> Option<(WarningKind, String)> {
    if !matches!(kind, RecordKind::User | RecordKind::Continue | RecordKind::ToolResults) {
        return None;
    }
    let role = r.message.as_ref()?.get("role")?.get();
    (role != r#""user""#).then(|| {
        // (A role written as a long value is named by its start.)
        let role = role.char_indices().nth(40).map_or(role, |(at, _)| &role[..at]);
        (
            WarningKind::BadField,
            format!("the message of a `{}` record must have role \"user\", not {role}", kind.as_str()),
        )
    })
}

fn message_json(message: Option<&MessageParts>) -> Result<String, String> {
    message.ok_or("the record needs `message`")?.checked_json("message")
}

fn set_if(slot: &mut Option<Box<str>>, raw: Option<&RawValue>) {
    if let Some(raw) = raw {
        if raw_kind(raw) != b'n' {
            *slot = Some(raw.get().into());
        }
    }
}

fn required<'a>(raw: Option<&'a RawValue>, name: &str) -> Result<&'a RawValue, String> {
    raw.ok_or_else(|| format!("the record needs `{name}`"))
}

#[cfg(test)]
mod carry_tests {
    use super::*;

    /// `carry_origins` against its definition (each kept message takes the
    /// origin of the latest equal old one), with few kept and with many (the
    /// map), equal texts repeated, and texts of one length that differ.
    #[test]
    fn kept_messages_take_the_latest_equal_ones_origin() {
        let texts = ["{\"a\":1}", "{\"a\":2}", "{\"b\":1}", "{\"a\":1}", "{\"long\":true}"];
        let old: Vec<Message> = (0..40)
            .map(|i| Message {
                json: Rc::new(texts[i * 7 % texts.len()].to_owned()),
                origin: Origin { redacted: i % 3 == 0, epoch: i as u32, line: i as u64 + 1, dropped: false },
            })
            .collect();
        let new = Origin { redacted: false, epoch: 99, line: 500, dropped: false };
        for n in [1, 5, 8, 9, 30] {
            let kept: Vec<String> = (0..n)
                .map(|k| ["{\"a\":1}", "{\"c\":3}", "{\"a\":2}", "{\"b\":1}"][k % 4].to_owned())
                .collect();
            let got = carry_origins(&old, kept.clone(), new);
            for (k, json) in kept.iter().enumerate() {
                let want = match old.iter().rev().find(|m| *m.json == *json) {
                    Some(m) => Origin { redacted: m.origin.redacted || new.redacted, ..m.origin },
                    None => new,
                };
                assert_eq!(got[k].origin, want, "{n} kept, {k}: {json}");
                assert_eq!(*got[k].json, *json);
            }
        }
    }
}
