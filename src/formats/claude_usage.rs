//! The Claude Code reader's usage-only mode (`Reader::usage_only`): each
//! response's largest usage, model and time, and nothing else, for
//! `usage` reports over many files.

use super::{find, Key, Line, Merged, Reader};
use crate::formats::records as rec;
use crate::formats::Notice;
use crate::prices::{Prices, Tokens};
use std::collections::HashMap;
use std::rc::Rc;

/// The usage-only mode: each response's largest usage, its model and time.
#[derive(Debug, Default)]
pub(super) struct UsageOnly {
    responses: HashMap<Key, Merged>,
    /// Responses without an id, each counted as it is.
    unkeyed: Vec<Merged>,
    session_id: Option<String>,
}

/// Whether a line may be a model response. A line's `message` comes early
/// and names its role first: a user line (most of a file's bytes: tool
/// results) is passed over after a few hundred bytes, unparsed.
fn may_be_response(line: &[u8]) -> bool {
    let head = &line[..line.len().min(8192)];
    match find(head, b"\"message\":{") {
        Some(i) => {
            let after = &line[i..line.len().min(i + 400)];
            find(after, b"\"role\":\"assistant\"").is_some() || find(after, b"\"role\":").is_none()
        }
        None => find(line, b"\"usage\"").is_some(),
    }
}

impl Reader {
    /// A reader that keeps only what a usage report needs.
    pub fn usage_only(prices: Rc<Prices>) -> Reader {
        Reader { usage_only: Some(UsageOnly::default()), ..Reader::new(prices) }
    }

    /// Whether lines may be passed over unread: in the usage-only mode.
    pub fn may_pass_over(&self) -> bool {
        self.usage_only.is_some()
    }

    /// Whether the usage-only mode reads nothing of `line` (it cannot be a
    /// model response): `usage_line` would return at once.
    pub fn passes_over(&self, line: &[u8]) -> bool {
        self.usage_only.is_some() && !may_be_response(line)
    }

    pub(super) fn usage_line(&mut self, number: u64, text: &str, notices: &mut Vec<Notice>) {
        let Some(u) = &mut self.usage_only else { return };
        if !may_be_response(text.as_bytes()) {
            return;
        }
        // The same line type as a full read (one copy of its parser in the
        // module); the content stays unparsed raw text.
        let l: Line = match serde_json::from_str(text) {
            Ok(l) => l,
            Err(e) => return notices.push(Notice::unread(number, "a Claude Code line", text, &e)),
        };
        if u.session_id.is_none() {
            u.session_id = l.session_id;
        }
        if l.kind.as_deref() != Some("assistant") {
            return;
        }
        let Some(m) = l.message else { return };
        // A line with no usage is no request (ccusage passes it over too):
        // it would add an entry and a last activity of no tokens.
        let Some(usage) = m.usage else { return };
        let tokens = usage.tokens();
        let entry: Merged = (l.timestamp.unwrap_or_default(), tokens, m.model);
        match m.id {
            Some(id) => {
                let slot = u
                    .responses
                    .entry((id, l.request_id))
                    .or_insert_with(|| (entry.0.clone(), Tokens::default(), None));
                // The line whose usage is kept gives the time too: the
                // response's last streamed line, as ccusage counts it (its
                // blocks end and its sessions' last activity are that line's).
                if tokens.output > slot.1.output || slot.1 == Tokens::default() {
                    slot.1 = tokens;
                    slot.0 = entry.0;
                }
                if slot.2.is_none() {
                    slot.2 = entry.2;
                }
            }
            None => u.unkeyed.push(entry),
        }
    }

    pub(super) fn usage_finish(&mut self) {
        let Some(u) = self.usage_only.take() else { return };
        // The session's id is handed back typed too (`take_session_id`), not
        // as a start record: applying that one record per file ran the
        // record parser and the state's apply often enough for V8 to compile
        // both with TurboFan (53 ms of one core, 30 and 23, in a `usage` of
        // 500 MB over 1,386 files) for nothing a usage report reads.
        self.usage_session_id = u.session_id;
        // In no particular order: the totals and the ledger are sums. Handed
        // back typed (`take_responses`), not as side_usage records: a record
        // per response written and parsed again was an eighth of `usage`.
        let keyed = u.responses.into_iter().map(|(k, v)| (Some(k), v));
        for (key, (t, tokens, model)) in keyed.chain(u.unkeyed.into_iter().map(|v| (None, v))) {
            let real = model.filter(|m| m != "<synthetic>");
            let cost = if tokens == Tokens::default() {
                Some(0.0)
            } else {
                let id = key.as_ref().map(|(id, _)| id.as_str());
                rec::priced_response(&self.prices, real.as_deref(), id, &tokens)
            };
            let key = key.map_or(0.0, |(id, request)| crate::usage_rows::key_of(&id, request.as_deref()));
            self.keys.push((key, tokens.cache_write_1h));
            let t = Some(t).filter(|t| !t.is_empty());
            self.responses.push(crate::formats::Response { t, model: real, tokens, cost });
        }
    }

    /// A usage-only read's session id (its first line's), after `finish`.
    pub fn take_session_id(&mut self) -> Option<String> {
        self.usage_session_id.take()
    }

    /// A usage-only read's responses, in the order of `request_keys`.
    pub fn take_responses(&mut self) -> Vec<crate::formats::Response> {
        std::mem::take(&mut self.responses)
    }

    /// The keys of a usage-only read's responses (`Reader::request_keys`), after `finish`.
    pub fn request_keys(&self) -> &[(f64, u64)] {
        &self.keys
    }
}
