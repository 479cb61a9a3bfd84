//! The doctor for Gemini CLI sessions: what Gemini CLI sends on resume, by
//! its own source (google-gemini/gemini-cli at 5411f113), and the least
//! edit of the file that makes it resume.
//!
//! What Gemini CLI does with the file, and why each check exists:
//! - `packages/core/src/services/chatRecordingService.ts`,
//!   `loadConversationRecord`: a JSONL file is read a line at a time, a line
//!   that does not parse skipped; a record with a string `id` is a message,
//!   and one with an id seen before replaces it where it was; `$rewindTo`
//!   drops the messages from that id on (all of them when it names none);
//!   `$set.messages` (a checkpoint) and a one-line record holding
//!   `messages` give the messages again. A file whose lines name no
//!   `sessionId` and `projectHash` is parsed whole as one JSON document
//!   (`parseLegacyRecordFallback`, the older `session-*.json`);
//! - `packages/core/src/utils/sessionUtils.ts`,
//!   `convertSessionToClientHistory`: a `gemini` message becomes a model
//!   turn, its calls taken from `content` when a part there is a
//!   `functionCall` or a thought, else from `toolCalls`; the responses are
//!   the `result` of each tool call record that has one (a string, an array
//!   of parts, or one part), in a user turn right after it. A call whose
//!   record has no result (a crash while the tool ran) is sent without a
//!   response, and the Gemini API refuses a function call turn whose
//!   response parts do not match its calls (gemini-cli#1690): an error, and
//!   the repair gives the record an error result, shaped as Gemini CLI's own
//!   stand-in for a lost response (`utils/historyHardening.ts`, which only
//!   runs when context management is turned on). A response no call of the
//!   message asks for is an error too: the repair takes that record's
//!   `result` out;
//! - thinking: the file keeps thought summaries (no signature) or thought
//!   parts; `core/geminiChat.ts` strips thought parts and gives the first
//!   call of a turn a stand-in signature when it has none (`stripThoughts`),
//!   so no thinking in the file can make the API refuse it: nothing to
//!   judge.
//!
//! Every byte the repair does not need to touch stays: a result is spliced
//! into its record, a record into its message's `toolCalls`.

use super::raw;
use super::{Change, ChangeKind, Kind, Problem, Severity};
use crate::json_str::str_literal;
use serde_json::value::RawValue;
use serde_json::Value;

/// The result a call that has none is given (Garuda's own words for it).
const INTERRUPTED: &str = crate::resume::INTERRUPTED;

/// The text spans are taken in: the whole file (a document) or one line.
struct Unit<'a> {
    bytes: &'a [u8],
    text: &'a str,
    /// The line it starts on.
    line: u64,
    newline: bool,
}

/// A message Gemini CLI loads: its unit and its JSON text.
struct Msg<'a> {
    unit: usize,
    raw: &'a str,
}

/// A change to make: where (unit, span), what with, and its report.
struct Edit {
    unit: usize,
    span: (usize, usize),
    with: String,
    change: Change,
}

struct Load<'a> {
    units: Vec<Unit<'a>>,
    messages: Vec<Msg<'a>>,
    problems: Vec<Problem>,
    /// One JSON document that names no session (no `sessionId`, no
    /// `messages`): a settings file or a manifest, not a Gemini CLI file.
    no_session: bool,
}

fn units_of(bytes: &[u8]) -> Vec<Unit<'_>> {
    raw::lines(bytes)
        .into_iter()
        .map(|(line, piece, newline)| Unit {
            bytes: piece,
            text: std::str::from_utf8(piece).unwrap_or(""),
            line,
            newline,
        })
        .collect()
}

fn messages_of<'a>(unit: usize, list: Option<&'a RawValue>) -> Vec<Msg<'a>> {
    let items = list.and_then(|l| raw::array(l.get())).unwrap_or_default();
    items
        .into_iter()
        .filter(|m| raw::object(m.get()).is_some_and(|o| raw::string(&o, "id").is_some()))
        .map(|m| Msg { unit, raw: m.get() })
        .collect()
}

fn load(bytes: &[u8]) -> Load<'_> {
    let mut problems = Vec::new();
    let lines = units_of(bytes);
    // (id, message) in load order; a later copy replaces an earlier in place.
    let mut live = Live::default();
    let mut meta_session = false;
    let mut meta_project = false;
    for (u, unit) in lines.iter().enumerate() {
        if unit.bytes.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let members = (!unit.text.is_empty()).then(|| raw::object(unit.text)).flatten();
        let Some(m) = members else {
            problems.push(Problem {
                line: unit.line,
                kind: Kind::BadLine,
                severity: Severity::Warning,
                message: "the line is not a JSON object: Gemini CLI skips it (chatRecordingService.ts, loadConversationRecord)".into(),
            });
            continue;
        };
        if let Some(to) = raw::string(&m, "$rewindTo") {
            live.rewind_to(&to);
        } else if raw::string(&m, "id").is_some() {
            live.put(Msg { unit: u, raw: unit.text });
        } else if let Some(s) = m.get("$set").filter(|s| s.get().starts_with('{')) {
            let sm = raw::object(s.get()).unwrap_or_default();
            meta_session |= raw::string(&sm, "sessionId").is_some();
            meta_project |= raw::string(&sm, "projectHash").is_some();
            if sm.get("messages").is_some_and(|l| l.get().starts_with('[')) {
                live.truncate(0);
                for msg in messages_of(u, sm.get("messages").copied()) {
                    live.put(msg);
                }
            }
        } else if raw::string(&m, "sessionId").is_some() && raw::string(&m, "projectHash").is_some() {
            meta_session = true;
            meta_project = true;
            for msg in messages_of(u, m.get("messages").copied()) {
                live.put(msg);
            }
        }
    }
    if meta_session && meta_project {
        return Load {
            units: lines,
            messages: live.list.into_iter().map(|(_, m)| m).collect(),
            problems,
            no_session: false,
        };
    }
    // parseLegacyRecordFallback: the whole file, one JSON document.
    let whole = std::str::from_utf8(bytes).ok();
    let doc = whole.and_then(|w| raw::object(w).map(|d| (w, d)));
    let Some((text, d)) = doc else {
        problems.push(Problem {
            line: 0,
            kind: Kind::NoSession,
            severity: Severity::Error,
            message: "no line names the session (sessionId and projectHash), and the file is not one JSON document: Gemini CLI cannot load it (chatRecordingService.ts, loadConversationRecord)".into(),
        });
        return Load { units: lines, messages: Vec::new(), problems, no_session: false };
    };
    let unit = Unit { bytes, text, line: 1, newline: false };
    // Any JSON object reads as a document (a settings file, a manifest):
    // Gemini CLI takes one only with a `sessionId` (isLegacyRecord), and
    // copies its `messages` into the new file (initialize), which throws
    // when there are none.
    let missing = if !d.contains_key("sessionId") {
        Some("no `sessionId`: Gemini CLI does not load it (chatRecordingService.ts, parseLegacyRecordFallback)")
    } else if !d.get("messages").is_some_and(|l| l.get().starts_with('[')) {
        Some("no `messages` array: Gemini CLI fails to resume it (chatRecordingService.ts, initialize)")
    } else {
        None
    };
    if let Some(why) = missing {
        // Its lines are not JSONL lines to warn about: the file is read whole.
        let problems = vec![Problem {
            line: 1,
            kind: Kind::NoSession,
            severity: Severity::Error,
            message: format!("the file is one JSON document with {why}"),
        }];
        let no_session = !d.contains_key("sessionId") && !d.contains_key("messages");
        return Load { units: vec![unit], messages: Vec::new(), problems, no_session };
    }
    let messages = messages_of(0, d.get("messages").copied());
    Load { units: vec![unit], messages, problems: Vec::new(), no_session: false }
}

/// The messages loaded so far, in load order, with each id's place: a
/// search of the list for each line's id (and each rewind's) was quadratic
/// in a session's messages (16,000 turns took 2.5 s to diagnose).
#[derive(Default)]
struct Live<'a> {
    list: Vec<(String, Msg<'a>)>,
    at: std::collections::HashMap<String, usize>,
}

impl<'a> Live<'a> {
    /// A message: in place of the one with its id, or last.
    fn put(&mut self, msg: Msg<'a>) {
        let id = raw::object(msg.raw).and_then(|o| raw::string(&o, "id")).unwrap_or_default();
        match self.at.get(&id).and_then(|&i| self.list.get_mut(i)) {
            Some(slot) => slot.1 = msg,
            None => {
                self.at.insert(id.clone(), self.list.len());
                self.list.push((id, msg));
            }
        }
    }

    /// `$rewindTo`: the messages before the one with id `to`, or none when no message has it.
    fn rewind_to(&mut self, to: &str) {
        self.truncate(self.at.get(to).copied().unwrap_or(0));
    }

    fn truncate(&mut self, n: usize) {
        for (id, _) in self.list.drain(n.min(self.list.len())..) {
            self.at.remove(&id);
        }
    }
}

/// A tool call record of a message.
struct Record<'a> {
    raw: &'a str,
    id: Option<String>,
    name: String,
    /// The `result` member, whatever its value.
    member: Option<&'a RawValue>,
    /// The ids its result answers (functionResponse parts; a string result
    /// answers the record's own id).
    answers: Vec<Option<String>>,
}

fn truthy(v: &RawValue) -> bool {
    !matches!(v.get(), "null" | "false" | "0" | "\"\"")
}

fn record(raw: &str) -> Option<Record<'_>> {
    let m = raw::object(raw)?;
    let id = raw::string(&m, "id");
    let member = m.get("result").copied();
    // `if (toolCall.result)`: a falsy result is none.
    let result = member.filter(|r| truthy(r));
    let mut answers = Vec::new();
    if let Some(r) = result {
        match serde_json::from_str::<Value>(r.get()).ok() {
            Some(Value::String(_)) => answers.push(id.clone()),
            Some(Value::Array(parts)) => {
                for p in &parts {
                    if let Some(fr) = p.get("functionResponse") {
                        answers.push(fr.get("id").and_then(Value::as_str).map(str::to_owned).or(id.clone()));
                    }
                }
            }
            Some(p @ Value::Object(_)) => {
                if let Some(fr) = p.get("functionResponse") {
                    answers.push(fr.get("id").and_then(Value::as_str).map(str::to_owned).or(id.clone()));
                }
            }
            _ => {}
        }
    }
    Some(Record { raw, id, name: raw::string(&m, "name").unwrap_or_else(|| "?".into()), member, answers })
}

fn synthetic(id: &str, name: &str) -> String {
    format!(
        r#"[{{"functionResponse":{{"id":{},"name":{},"response":{{"error":{}}}}}}}]"#,
        str_literal(id),
        str_literal(name),
        str_literal(INTERRUPTED)
    )
}

/// Every problem and the edit that mends it.
fn analyse(l: &Load) -> (Vec<Problem>, Vec<Edit>) {
    let mut problems = Vec::new();
    let mut edits = Vec::new();
    for msg in &l.messages {
        let unit = &l.units[msg.unit];
        let Some(m) = raw::object(msg.raw) else { continue };
        if raw::string(&m, "type").as_deref() != Some("gemini") {
            continue;
        }
        let at = |part: &str| {
            let (a, _) = raw::span(unit.text, part);
            unit.line + raw::line_at(unit.text, a) - 1
        };
        let content: Vec<&RawValue> = match m.get("content") {
            Some(c) if c.get().starts_with('[') => raw::array(c.get()).unwrap_or_default(),
            Some(c) if c.get().starts_with('{') => vec![*c],
            _ => Vec::new(),
        };
        let parts: Vec<Value> =
            content.iter().map(|p| serde_json::from_str(p.get()).unwrap_or(Value::Null)).collect();
        let modern = parts.iter().any(|p| {
            p.get("functionCall").is_some()
                || p.get("thought").is_some_and(|t| t.as_bool() != Some(false) && !t.is_null())
        });
        let calls_raw = m.get("toolCalls").filter(|t| t.get().starts_with('['));
        let records: Vec<Record> = calls_raw
            .and_then(|t| raw::array(t.get()))
            .unwrap_or_default()
            .into_iter()
            .filter_map(|r| record(r.get()))
            .collect();
        let thoughts = m.get("thoughts").is_some_and(|t| t.get().starts_with('[') && t.get() != "[]");
        let has_content = m.get("content").is_some_and(|c| truthy(c));
        if !has_content && !thoughts && records.is_empty() {
            continue; // no model turn, so no responses either
        }
        let timestamp = m.get("timestamp").map_or("\"\"".to_owned(), |t| t.get().to_owned());
        if modern {
            // The calls are the content's functionCall parts.
            for (p, part) in parts.iter().enumerate() {
                let Some(fc) = part.get("functionCall") else { continue };
                let id = fc.get("id").and_then(Value::as_str).map(str::to_owned);
                let name = fc.get("name").and_then(Value::as_str).unwrap_or("?").to_owned();
                if records.iter().any(|r| r.answers.contains(&id)) {
                    continue;
                }
                let line = at(content[p].get());
                let said = id.clone().unwrap_or_default();
                problems.push(unanswered(line, &said, &name));
                let change = added(line, &said, &name);
                let id_s = id.clone().unwrap_or_default();
                if let Some(r) = records.iter().find(|r| r.id == id) {
                    edits.push(give_result(unit, msg.unit, r, &id_s, &name, change));
                } else {
                    let rec = format!(
                        r#"{{"id":{},"name":{},"args":{{}},"result":{},"status":"error","timestamp":{timestamp}}}"#,
                        str_literal(&id_s),
                        str_literal(&name),
                        synthetic(&id_s, &name)
                    );
                    edits.push(match calls_raw {
                        Some(t) => {
                            // Before the array's closing bracket.
                            let at = raw::before_close(unit.text, raw::span(unit.text, t.get()));
                            let empty = raw::array(t.get()).is_none_or(|v| v.is_empty());
                            let with = if empty { rec } else { format!(",{rec}") };
                            Edit { unit: msg.unit, span: (at, at), with, change }
                        }
                        None => {
                            let at = raw::before_close(unit.text, raw::span(unit.text, msg.raw));
                            Edit {
                                unit: msg.unit,
                                span: (at, at),
                                with: format!(r#","toolCalls":[{rec}]"#),
                                change,
                            }
                        }
                    });
                }
            }
            // A response no call of the content asks for.
            let asked: Vec<Option<String>> = parts
                .iter()
                .filter_map(|p| p.get("functionCall"))
                .map(|fc| fc.get("id").and_then(Value::as_str).map(str::to_owned))
                .collect();
            for r in &records {
                if r.answers.is_empty() || r.answers.iter().all(|a| asked.contains(a)) {
                    continue;
                }
                let line = at(r.raw);
                let id = r.id.clone().unwrap_or_default();
                problems.push(Problem {
                    line,
                    kind: Kind::ToolResultOrphan,
                    severity: Severity::Error,
                    message: format!(
                        "the result of the tool call record {id} ({}) answers no functionCall of the message's content: Gemini CLI sends it as a response (sessionUtils.ts, convertSessionToClientHistory), and the Gemini API refuses a response that no call asks for",
                        r.name
                    ),
                });
                let Some(member) = r.member else { continue };
                let Some(span) = raw::member_span(unit.text, raw::span(unit.text, member.get())) else {
                    continue;
                };
                edits.push(Edit {
                    unit: msg.unit,
                    span,
                    with: String::new(),
                    change: Change {
                        line,
                        kind: ChangeKind::ResultDropped,
                        block: None,
                        message: format!(
                            "the result of the tool call record {id} ({}) is taken out: it answers no call",
                            r.name
                        ),
                    },
                });
            }
        } else {
            // The calls are the records: each needs its result.
            for r in &records {
                if !r.answers.is_empty() {
                    continue;
                }
                let line = at(r.raw);
                let id = r.id.clone().unwrap_or_default();
                problems.push(unanswered(line, &id, &r.name));
                let change = added(line, &id, &r.name);
                edits.push(give_result(unit, msg.unit, r, &id, &r.name, change));
            }
        }
    }
    (problems, edits)
}

fn unanswered(line: u64, id: &str, name: &str) -> Problem {
    Problem {
        line,
        kind: Kind::ToolUseUnanswered,
        severity: Severity::Error,
        message: format!(
            "the tool call {id} ({name}) has no result: Gemini CLI sends the call without a response (sessionUtils.ts, convertSessionToClientHistory), and the Gemini API refuses a call turn whose responses do not match its calls (a crash while the tool ran? gemini-cli#1690)"
        ),
    }
}

fn added(line: u64, id: &str, name: &str) -> Change {
    Change {
        line,
        kind: ChangeKind::ResultAdded,
        block: None,
        message: format!("an error result is given to the tool call {id} ({name}), which had none"),
    }
}

/// The record's `result` set to the error result (replaced when it is
/// there and empty, added before the record's closing brace when not).
fn give_result(unit: &Unit, u: usize, r: &Record, id: &str, name: &str, change: Change) -> Edit {
    let with = synthetic(id, name);
    match r.member {
        Some(v) => Edit { unit: u, span: raw::span(unit.text, v.get()), with, change },
        None => {
            let at = raw::before_close(unit.text, raw::span(unit.text, r.raw));
            let empty = raw::object(r.raw).is_none_or(|o| o.is_empty());
            let with = if empty { format!(r#""result":{with}"#) } else { format!(r#","result":{with}"#) };
            Edit { unit: u, span: (at, at), with, change }
        }
    }
}

/// None: the file holds no session at all (one JSON document naming none).
pub fn diagnose(bytes: &[u8]) -> Option<Vec<Problem>> {
    let l = load(bytes);
    if l.no_session {
        return None;
    }
    let (mut problems, _) = analyse(&l);
    problems.extend(l.problems);
    super::sort_problems(&mut problems);
    Some(problems)
}

pub fn repair(bytes: &[u8]) -> (Vec<u8>, Vec<Change>) {
    let l = load(bytes);
    let (_, edits) = analyse(&l);
    if edits.is_empty() {
        return (bytes.to_vec(), Vec::new());
    }
    let mut by_unit: Vec<Vec<((usize, usize), String)>> = vec![Vec::new(); l.units.len()];
    let mut changes = Vec::new();
    for e in edits {
        if let Some(u) = by_unit.get_mut(e.unit) {
            u.push((e.span, e.with));
        }
        changes.push(e.change);
    }
    let mut out = Vec::with_capacity(bytes.len() + 256);
    for (u, unit) in l.units.iter().enumerate() {
        match Some(std::mem::take(&mut by_unit[u])).filter(|ed| !ed.is_empty()) {
            Some(ed) => out.extend_from_slice(raw::splice(unit.text, ed).as_bytes()),
            None => out.extend_from_slice(unit.bytes),
        }
        if unit.newline {
            out.push(b'\n');
        }
    }
    super::sort_changes(&mut changes);
    (out, changes)
}
