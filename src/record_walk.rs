//! A journal line's `Fields` read by one validating walk, for the lines
//! that are plain objects (all of them, in practice); anything else goes
//! to serde_json as before (`record::with_fields`).
//!
//! Why: replay spent two thirds of its time in serde_json's reading of
//! `Fields`, most of it stepping over the strings of message content (8
//! bytes a step, a u64 SWAR), only to keep that content as raw text. Here
//! every value is validated by json_check's walk (16 bytes a step with wasm
//! SIMD, each stop in a step taken from one mask), the big ones (a
//! message's members, a response's content) are borrowed as they are, and
//! the counts, flags, usages and tool calls are read on the way; serde_json
//! reads only a price, a subagent's report and a string with escapes, each
//! on its own span. Replay of the 100 MB bench journal: 118 -> 91 ms.
//!
//! The rule: when this returns `Some`, it is exactly what
//! `serde_json::from_str::<Fields>` gives (the tests compare the two on
//! every line of the real transcripts and on cut and mutated lines); when
//! serde_json would refuse the line or read it another way (a duplicate
//! field, an escaped key, a struct written as an array), it returns `None`.

#![forbid(unsafe_code)]

use crate::accounting::Usage;
use crate::json_check::{skip_ws, string_ends, value_end_within};
use crate::record::{Call, Fields, MessageParts, Response};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// The line's fields, or None for serde_json to read (or refuse) it.
pub(crate) fn fields(line: &str) -> Option<Fields<'_>> {
    let b = line.as_bytes();
    let mut f = Fields::default();
    let mut seen = 0u32;
    let end = members(line, skip_ws(b, 0), |key, at| {
        // A key with an escape may spell a field's name: serde decodes it.
        let Some(slot) = slot(plain(key)?) else {
            return value_end_within(b, at, VALUE_DEPTH); // an unknown field, ignored (but validated)
        };
        if seen & (1 << slot) != 0 {
            return None; // serde refuses a duplicate field
        }
        seen |= 1 << slot;
        let (_, read) = FIELDS.get(slot)?;
        read(&mut f, line, at)
    })?;
    // `type` is the one field serde requires.
    f.shallow = true;
    (skip_ws(b, end) == line.len() && seen & 1 != 0).then_some(f)
}

/// How the walk's reading of `line` differs from serde_json's, if it does:
/// what the tests and the replay fuzz target hold it to. The walk may leave
/// a line to serde_json; what it reads must be serde_json's reading, and
/// nest at most `SHALLOW` deep.
#[doc(hidden)]
pub fn differs_from_serde(line: &str) -> Option<String> {
    let walked = fields(line)?;
    match serde_json::from_str::<Fields>(line) {
        Err(e) => Some(format!("the walk read a line serde_json refuses ({e})")),
        Ok(read) => {
            let read = Fields { shallow: true, ..read };
            if format!("{walked:?}") != format!("{read:?}") {
                Some(format!("the walk read {walked:?}, serde_json {read:?}"))
            } else if crate::bytes::nests_deeper_than(line.as_bytes(), crate::record::SHALLOW) {
                Some("the walk read a line that nests deeper than SHALLOW".into())
            } else {
                None
            }
        }
    }
}

/// Whether the walk reads `line` (rather than leave it to serde_json).
#[doc(hidden)]
pub fn walks(line: &str) -> bool {
    fields(line).is_some()
}

/// How deep a value the walk takes may nest. The walk's own levels (the
/// line, a message or a response or the calls, a call) are three more, so
/// a line it reads nests at most `record::SHALLOW` deep and the replay need
/// not count its brackets (`Fields::shallow`); a deeper line goes to serde_json.
const VALUE_DEPTH: usize = crate::record::SHALLOW - 3;

/// Reads the value at `at` into its field of `Fields`; returns where it ends.
type Read = for<'a> fn(&mut Fields<'a>, &'a str, usize) -> Option<usize>;

/// Each field of `Fields` by its JSON name (`type` first), with its reader.
/// A test holds the names to the ones serde derives. The objects whose
/// members are kept raw (a message, a response) are walked once, member by
/// member: a whole-value check first would read their text twice.
#[rustfmt::skip]
// `fields` marks the fields seen in a u32, one bit each.
const _: () = assert!(FIELDS.len() <= 32);

pub(crate) const FIELDS: [(&str, Read); 32] = [
    ("type", |f, l, at| set(l, at, cow, &mut f.kind)),
    ("redacted", |f, l, at| flag_field(l, at, &mut f.redacted)),
    ("t", |f, l, at| text_field(l, at, &mut f.t)),
    ("sessionId", |f, l, at| raw_field(l, at, &mut f.session_id)),
    ("root", |f, l, at| raw_field(l, at, &mut f.root)),
    ("version", |f, l, at| raw_field(l, at, &mut f.version)),
    ("model", |f, l, at| text_field(l, at, &mut f.model)),
    ("executor", |f, l, at| raw_field(l, at, &mut f.executor)),
    ("isolation", |f, l, at| raw_field(l, at, &mut f.isolation)),
    ("limits", |f, l, at| raw_field(l, at, &mut f.limits)),
    ("message", |f, l, at| nested(l, at, message, &mut f.message)),
    ("step", |f, l, at| count_field(l, at, &mut f.step)),
    ("response", |f, l, at| nested(l, at, response, &mut f.response)),
    ("summary", |f, l, at| nested(l, at, response, &mut f.summary)),
    ("costUsd", |f, l, at| set(l, at, typed, &mut f.cost_usd)),
    ("usageReported", |f, l, at| flag_field(l, at, &mut f.usage_reported)),
    ("usage", |f, l, at| nested(l, at, usage, &mut f.usage)),
    ("calls", |f, l, at| nested(l, at, calls, &mut f.calls)),
    ("messages", |f, l, at| raw_field(l, at, &mut f.messages)),
    ("beforeTokens", |f, l, at| count_field(l, at, &mut f.before_tokens)),
    ("afterTokens", |f, l, at| count_field(l, at, &mut f.after_tokens)),
    ("tree", |f, l, at| raw_field(l, at, &mut f.tree)),
    ("prompt", |f, l, at| raw_field(l, at, &mut f.prompt)),
    ("after", |f, l, at| raw_field(l, at, &mut f.after)),
    ("title", |f, l, at| text_field(l, at, &mut f.title)),
    ("choice", |f, l, at| raw_field(l, at, &mut f.choice)),
    ("tokens", |f, l, at| count_field(l, at, &mut f.tokens)),
    ("childSessionId", |f, l, at| text_field(l, at, &mut f.child_session_id)),
    ("stopReason", |f, l, at| raw_field(l, at, &mut f.stop_reason)),
    ("steps", |f, l, at| count_field(l, at, &mut f.steps)),
    ("synthetic", |f, l, at| flag_field(l, at, &mut f.synthetic)),
    ("purpose", |f, l, at| raw_field(l, at, &mut f.purpose)),
];

// One reader per type, kept out of line: each field's reader is then a
// call, not its own copy of `set`.

#[inline(never)]
fn raw_field<'a>(line: &'a str, at: usize, slot: &mut Option<&'a RawValue>) -> Option<usize> {
    set(line, at, |v| opt(v, raw), slot)
}

#[inline(never)]
fn text_field<'a>(line: &'a str, at: usize, slot: &mut Option<Cow<'a, str>>) -> Option<usize> {
    set(line, at, |v| opt(v, cow), slot)
}

#[inline(never)]
fn count_field(line: &str, at: usize, slot: &mut Option<u64>) -> Option<usize> {
    set(line, at, |v| opt(v, count), slot)
}

#[inline(never)]
fn flag_field(line: &str, at: usize, slot: &mut Option<bool>) -> Option<usize> {
    set(line, at, |v| opt(v, flag), slot)
}

/// The value at `at`, validated and read by `read` into `slot`; returns
/// where it ends.
fn set<'a, T>(
    line: &'a str,
    at: usize,
    read: impl FnOnce(&'a str) -> Option<T>,
    slot: &mut T,
) -> Option<usize> {
    let (value, end) = span(line, at)?;
    *slot = read(value)?;
    Some(end)
}

/// FIELDS' index of a name, looked up by its first byte.
fn slot(key: &str) -> Option<usize> {
    let candidates: &[usize] = match key.as_bytes().first()? {
        b't' => &[0, 2, 21, 24, 26],
        b'r' => &[1, 4, 12],
        b's' => &[3, 11, 13, 28, 29, 30],
        b'v' => &[5],
        b'm' => &[6, 10, 18],
        b'e' => &[7],
        b'i' => &[8],
        b'l' => &[9],
        b'c' => &[14, 17, 25, 27],
        b'u' => &[15, 16],
        b'b' => &[19],
        b'a' => &[20, 23],
        b'p' => &[22, 31],
        _ => &[],
    };
    candidates.iter().copied().find(|&i| FIELDS.get(i).is_some_and(|(name, _)| *name == key))
}

/// Walks the object at `i`, validating it, and hands each member to `each`:
/// its key's literal (quotes included) and where its value starts; `each`
/// validates the value and says where it ends. Returns where the object
/// ends, or None when it is not one valid object or `each` said None.
fn members<'a>(
    line: &'a str,
    i: usize,
    mut each: impl FnMut(&'a str, usize) -> Option<usize>,
) -> Option<usize> {
    let b = line.as_bytes();
    if b.get(i) != Some(&b'{') {
        return None;
    }
    let mut i = skip_ws(b, i + 1);
    if b.get(i) == Some(&b'}') {
        return Some(i + 1);
    }
    loop {
        if b.get(i) != Some(&b'"') {
            return None;
        }
        let key_end = string_ends(b, i + 1)?;
        let key = line.get(i..key_end)?;
        i = skip_ws(b, key_end);
        if b.get(i) != Some(&b':') {
            return None;
        }
        let end = each(key, skip_ws(b, i + 1))?;
        i = skip_ws(b, end);
        match b.get(i)? {
            b',' => i = skip_ws(b, i + 1),
            b'}' => return Some(i + 1),
            _ => return None,
        }
    }
}

/// Walks the array at `i` and hands where each element starts to `each`,
/// which validates it and says where it ends. Returns where the array ends.
/// (`members`' twin: one walk for both, with the brackets as arguments and
/// the key read in a closure, was 2.5 ms slower on replaying 100 MB.)
fn elements(line: &str, i: usize, mut each: impl FnMut(usize) -> Option<usize>) -> Option<usize> {
    let b = line.as_bytes();
    if b.get(i) != Some(&b'[') {
        return None;
    }
    let mut i = skip_ws(b, i + 1);
    if b.get(i) == Some(&b']') {
        return Some(i + 1);
    }
    loop {
        i = skip_ws(b, each(i)?);
        match b.get(i)? {
            b',' => i = skip_ws(b, i + 1),
            b']' => return Some(i + 1),
            _ => return None,
        }
    }
}

/// A key's name when its literal has no escape.
fn plain(literal: &str) -> Option<&str> {
    let inner = literal.strip_prefix('"')?.strip_suffix('"')?;
    // A loop, not `contains` (memchr): keys and the few strings read here
    // are short, and the call cost more than the look (5% of replay).
    (!inner.bytes().any(|c| c == b'\\')).then_some(inner)
}

/// A value already validated, read by serde_json (a small one, and a rare
/// one: a price, a subagent's report).
fn typed<'a, T: Deserialize<'a>>(value: &'a str) -> Option<T> {
    serde_json::from_str(value).ok()
}

/// `true` or `false`.
fn flag(value: &str) -> Option<bool> {
    match value {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// A whole number that fits a u64, written with digits only (a validated
/// number, so no leading zero); serde_json reads the rest (`-0` is 0 to it).
fn count(value: &str) -> Option<u64> {
    value.bytes().try_fold(0u64, |n, d| {
        d.is_ascii_digit().then_some(())?;
        n.checked_mul(10)?.checked_add(u64::from(d - b'0'))
    })
}

/// A usage object (`accounting::Usage`): its four counts by either name,
/// null as 0.
fn usage(line: &str, at: usize) -> Option<(Usage, usize)> {
    let mut counts = [0u64; 4];
    let mut seen = 0u8;
    let end = members(line, at, |key, at| {
        let (v, end) = span(line, at)?;
        let slot = match plain(key)? {
            "inputTokens" | "input_tokens" => 0,
            "outputTokens" | "output_tokens" => 1,
            "cacheReadTokens" | "cache_read_input_tokens" => 2,
            "cacheWriteTokens" | "cache_creation_input_tokens" => 3,
            _ => return Some(end),
        };
        if seen & (1 << slot) != 0 {
            return None; // a duplicate field, by either of its names
        }
        seen |= 1 << slot;
        counts[slot] = opt(v, count)?.unwrap_or(0);
        Some(end)
    })?;
    let [input_tokens, output_tokens, cache_read_tokens, cache_write_tokens] = counts;
    Some((Usage { input_tokens, output_tokens, cache_read_tokens, cache_write_tokens }, end))
}

/// A `tool_results` record's calls (`record::Call`).
fn calls(line: &str, at: usize) -> Option<(Vec<Call>, usize)> {
    let mut out = Vec::new();
    let end = elements(line, at, |at| {
        let (mut report, mut tool_use_id, mut child_session_id) = (None, None, None);
        let end = members(line, at, |key, at| {
            let (v, end) = span(line, at)?;
            let slot = match plain(key)? {
                "report" => &mut report,
                "toolUseId" => &mut tool_use_id,
                "childSessionId" => &mut child_session_id,
                _ => return Some(end),
            };
            slot.replace(v).is_none().then_some(end) // else a duplicate field
        })?;
        let id = |v: Option<&str>| v.map_or(Some(None), |v| opt(v, |v| cow(v).map(Cow::into_owned)));
        out.push(Call {
            report: report.map_or(Some(None), typed)?,
            tool_use_id: id(tool_use_id)?,
            child_session_id: id(child_session_id)?,
        });
        Some(end)
    })?;
    Some((out, end))
}

/// `null` as None, anything else read by `read` (None when it cannot be).
fn opt<'a, T>(value: &'a str, read: impl FnOnce(&'a str) -> Option<T>) -> Option<Option<T>> {
    if value == "null" {
        Some(None)
    } else {
        read(value).map(Some)
    }
}

/// A string borrowed from the line when it has no escape, as serde's
/// `#[serde(borrow)]` reads a `Cow<str>`.
fn cow(value: &str) -> Option<Cow<'_, str>> {
    match plain(value) {
        Some(inner) => Some(Cow::Borrowed(inner)),
        None if value.starts_with('"') => serde_json::from_str::<String>(value).ok().map(Cow::Owned),
        None => None,
    }
}

/// A value already validated as `&RawValue`, borrowed, without serde_json
/// stepping over it again. serde_json's raw values cross serde's data model
/// as a one-entry map keyed by this token (its own readers use the same
/// protocol); a serde_json that changed it would make this None, every line
/// would go to serde_json again, and `raw_values_are_borrowed` would fail.
fn raw(value: &str) -> Option<&RawValue> {
    use serde::de::value::{BorrowedStrDeserializer, Error, MapDeserializer};
    let entry = (
        BorrowedStrDeserializer::<Error>::new("$serde_json::private::RawValue"),
        BorrowedStrDeserializer::<Error>::new(value),
    );
    <&RawValue>::deserialize(MapDeserializer::new(std::iter::once(entry))).ok()
}

/// An optional object at `at`: `null`, or what `read` makes of it. Sets
/// `slot` and returns where the value ends.
fn nested<'a, T>(
    line: &'a str,
    at: usize,
    read: impl FnOnce(&'a str, usize) -> Option<(T, usize)>,
    slot: &mut Option<T>,
) -> Option<usize> {
    if line.get(at..at + 4) == Some("null") {
        *slot = None;
        return Some(at + 4);
    }
    let (value, end) = read(line, at)?;
    *slot = Some(value);
    Some(end)
}

/// The value at `at`, validated, and where it ends (None when it nests
/// deeper than `VALUE_DEPTH`).
fn span(line: &str, at: usize) -> Option<(&str, usize)> {
    let end = value_end_within(line.as_bytes(), at, VALUE_DEPTH)?;
    Some((line.get(at..end)?, end))
}

/// A message object at `at`: its members, each kept as raw JSON
/// (`MessageParts`).
fn message(line: &str, at: usize) -> Option<(MessageParts<'_>, usize)> {
    let mut fields = Vec::with_capacity(4);
    let end = members(line, at, |key, at| {
        let (value, end) = span(line, at)?;
        fields.push((cow(key)?, raw(value)?));
        Some(end)
    })?;
    Some((MessageParts::from_fields(fields), end))
}

/// A model response at `at`: `content` kept raw, `usage` and
/// `usageReported` read.
fn response(line: &str, at: usize) -> Option<(Response<'_>, usize)> {
    let (mut content, mut usage, mut usage_reported) = (None, None, None);
    let end = members(line, at, |key, at| {
        let key = plain(key)?;
        if key == "usage" {
            // Walked in place: `null` is refused, as serde refuses it.
            let (value, end) = self::usage(line, at)?;
            return usage.replace(value).is_none().then_some(end);
        }
        let (value, end) = span(line, at)?;
        let slot = match key {
            "content" => &mut content,
            "usageReported" => &mut usage_reported,
            _ => return Some(end),
        };
        slot.replace(value).is_none().then_some(end) // else a duplicate field
    })?;
    let response = Response {
        content: raw(content?)?,
        usage: usage.unwrap_or_default(),
        usage_reported: usage_reported.map_or(Some(None), |v| opt(v, flag))?,
    };
    Some((response, end))
}

#[cfg(test)]
#[path = "record_walk_tests.rs"]
mod tests;
