//! The Redactor (spec §5): nothing secret reaches the disk.
//!
//! Three rules replace secrets with `[REDACTED]`: the values of secret
//! environment variables (rule 1, wherever they appear), known formats (rule
//! 2, `formats.rs`), and values of secret-named assignments (rule 3,
//! `assign.rs`). A keyword prefilter (`triggers.rs`) finds the few places
//! where any rule could match; lines without one are returned untouched
//! after a validity check. Journal lines are redacted in their own bytes
//! (`jsonline.rs`): string by string, decoded, with the exemptions of §5.

mod assign;
mod formats;
mod jsonline;
mod triggers;

use serde::de::IgnoredAny;
use std::borrow::Cow;
use std::fmt;
use triggers::{Trigger, Triggers};

pub use assign::{classify_name, NameClass};

/// What a secret becomes.
pub const MARKER: &str = "[REDACTED]";

/// Shortest environment value that rule 1 removes.
const MIN_ENV_VALUE: usize = 8;

/// The result of `redactLine`: the line to write, and whether it changed.
#[derive(Debug, Clone, PartialEq)]
pub struct LineRedaction<'a> {
    pub line: Cow<'a, str>,
    pub changed: bool,
}

/// A line the Redactor cannot take: it is not one JSON object.
#[derive(Debug, Clone, PartialEq)]
pub struct RedactorError(String);

impl fmt::Display for RedactorError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for RedactorError {}

pub struct Redactor {
    triggers: Triggers,
    /// Every spelling of every secret environment value, longest first.
    env_values: Vec<Vec<u8>>,
}

impl fmt::Debug for Redactor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Never print the values themselves.
        write!(f, "Redactor {{ env values: {} }}", self.env_values.len())
    }
}

impl Default for Redactor {
    fn default() -> Self {
        Redactor::new(std::iter::empty::<(&str, &str)>())
    }
}

impl Clone for Redactor {
    fn clone(&self) -> Self {
        Redactor { triggers: Triggers::new(&self.env_values), env_values: self.env_values.clone() }
    }
}

/// Rule 1's names: KEY, TOKEN, SECRET, PASSWORD, PASSWD or CREDENTIAL.
pub fn is_secret_env_name(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    ["KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL"].iter().any(|w| upper.contains(w))
}

/// The spellings a value takes in text: as is, JSON-escaped (a journal line),
/// and percent-encoded (a URL or a query string).
fn spellings(value: &str) -> Vec<Vec<u8>> {
    let mut out = vec![value.as_bytes().to_vec()];
    if let Ok(json) = serde_json::to_string(value) {
        out.push(json.as_bytes()[1..json.len() - 1].to_vec());
    }
    let mut percent = String::new();
    let mut form = String::new();
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            percent.push(char::from(b));
            form.push(char::from(b));
        } else {
            percent.push_str(&format!("%{b:02X}"));
            if b == b' ' {
                form.push('+');
            } else {
                form.push_str(&format!("%{b:02X}"));
            }
        }
    }
    out.push(percent.clone().into_bytes());
    out.push(percent.to_ascii_lowercase().into_bytes());
    out.push(form.into_bytes());
    out.sort();
    out.dedup();
    out
}

impl Redactor {
    /// A Redactor for an environment (`process.env`): the values of its
    /// secret-named variables are removed wherever they appear.
    pub fn new<I, K, V>(env: I) -> Redactor
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        let mut env_values: Vec<Vec<u8>> = Vec::new();
        for (name, value) in env {
            let value = value.as_ref();
            // A value that is part of the marker would make redaction
            // undo its own work on a second pass.
            if is_secret_env_name(name.as_ref())
                && value.chars().count() >= MIN_ENV_VALUE
                && !value.contains(MARKER)
                && !MARKER.contains(value)
            {
                env_values.extend(spellings(value));
            }
        }
        env_values.sort_by(|a, b| b.len().cmp(&a.len()).then(a.cmp(b)));
        env_values.dedup();
        Redactor { triggers: Triggers::new(&env_values), env_values }
    }

    /// Redacts free text.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let spans = self.text_spans(text.as_bytes());
        if spans.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for (start, end) in spans {
            out.push_str(text.get(at..start).unwrap_or(""));
            out.push_str(MARKER);
            at = end;
        }
        out.push_str(text.get(at..).unwrap_or(""));
        Cow::Owned(out)
    }

    /// The byte spans of `text` that are secret, sorted and disjoint. Spans
    /// start and end on character boundaries (every rule starts and stops at
    /// ASCII bytes, or at the ends of an environment value).
    fn text_spans(&self, text: &[u8]) -> Vec<(usize, usize)> {
        let mut spans = Vec::new();
        // Hits inside a secret already found are skipped: that keeps inputs
        // such as `password=password=…` or BEGIN lines without END linear.
        // A value found by rule 3 does not hide a known format inside it.
        let mut format_end = 0;
        let mut value_end = 0;
        let mut name_end = 0;
        for hit in self.triggers.scan(text) {
            let span = match hit.trigger {
                Trigger::Env(_) => Some((hit.pos, hit.pos + hit.len)),
                Trigger::Name | Trigger::Url | Trigger::Scheme if hit.pos < value_end.max(format_end) => {
                    continue
                }
                Trigger::Name if hit.pos < name_end => continue,
                Trigger::Name => {
                    let (end, span) = assign::assignment(text, hit.pos);
                    name_end = end;
                    span
                }
                Trigger::Url => assign::url_credentials(text, hit.pos),
                Trigger::Scheme => assign::scheme_credentials(text, hit.pos, hit.len),
                _ if hit.pos < format_end => continue,
                _ => formats::detect(text, &hit),
            };
            let Some((s, e)) = span.filter(|(s, e)| e > s) else { continue };
            spans.push((s, e));
            match hit.trigger {
                Trigger::Name | Trigger::Url | Trigger::Scheme => value_end = value_end.max(e),
                _ => format_end = format_end.max(e),
            }
        }
        merge(spans)
    }

    /// `redactLine`: redacts one journal line. An unchanged line comes back
    /// byte-identical (borrowed); a changed record gains `"redacted": true`.
    pub fn redact_line<'a>(&self, line: &'a str) -> Result<LineRedaction<'a>, RedactorError> {
        check_object(line)?;
        let unchanged = LineRedaction { line: Cow::Borrowed(line), changed: false };
        // `\u` escapes could spell a trigger the prefilter cannot see.
        if !self.triggers.any(line.as_bytes()) && !line.contains("\\u") {
            return Ok(unchanged);
        }
        let t = jsonline::tokenize(line);
        let mut edits = self.line_edits(line, &t);
        if edits.is_empty() {
            return Ok(unchanged);
        }
        // `"redacted": true`: replace a top-level value the record has...
        if let Some((s, e)) = t.top_redacted {
            edits.push((s, e, "true"));
            edits.sort_by_key(|e| (e.0, e.1));
        }
        let mut out = apply_edits(line, &edits);
        // ...or add one.
        if t.top_redacted.is_none() {
            add_marker(&mut out);
        }
        if serde_json::from_str::<IgnoredAny>(&out).is_ok() {
            return Ok(LineRedaction { line: Cow::Owned(out), changed: true });
        }
        // Cannot happen for valid input; if it ever did, redacting through a
        // parsed value is slower but cannot produce invalid JSON.
        Ok(LineRedaction { line: Cow::Owned(self.redact_value_line(line)?), changed: true })
    }

    /// A record on its way to disk: one line (a record spread over several
    /// lines is compacted first), redacted.
    pub fn redact_record(&self, record: &str) -> Result<String, RedactorError> {
        if record.contains(['\n', '\r']) {
            let value: serde_json::Value = serde_json::from_str(record).map_err(not_an_object)?;
            return Ok(self.redact_line(&value.to_string())?.line.into_owned());
        }
        Ok(self.redact_line(record)?.line.into_owned())
    }

    /// The replacements a line needs: (start, end, replacement).
    fn line_edits(&self, line: &str, t: &jsonline::Tokens) -> Vec<(usize, usize, &'static str)> {
        let bytes = line.as_bytes();
        let hits = self.triggers.scan(bytes);
        // Which string tokens hold a hit (both are in order of position).
        let mut hot = vec![false; t.strings.len()];
        let mut h = 0;
        for (i, s) in t.strings.iter().enumerate() {
            while h < hits.len() && hits[h].pos < s.start {
                h += 1;
            }
            hot[i] = (h < hits.len() && hits[h].pos < s.end)
                || (s.escaped && line[s.start..s.end].contains("\\u"));
        }
        let text_of = |i: usize| -> Cow<'_, str> {
            let s = &t.strings[i];
            let raw = t.raw(line, s);
            if s.escaped {
                Cow::Owned(jsonline::decode(raw, s.start).text)
            } else {
                Cow::Borrowed(raw)
            }
        };
        let mut edits = Vec::new();
        for (i, s) in t.strings.iter().enumerate() {
            let key = s.key.map(|k| (k, text_of(k)));
            if !s.is_key && is_exempt(line, t, s, key.as_ref().map(|(_, k)| k.as_ref())) {
                continue;
            }
            // Rule 3 in the record's own structure: a value under a secret name.
            if let Some((k, name)) = &key {
                if hot[*k] {
                    let class = classify_name(name);
                    if class.secret && structural_secret(&text_of(i), class) {
                        edits.push((s.start, s.end, MARKER));
                        continue;
                    }
                }
            }
            if !hot[i] {
                continue;
            }
            if s.escaped {
                let decoded = jsonline::decode(t.raw(line, s), s.start);
                for (a, b) in self.text_spans(decoded.text.as_bytes()) {
                    let start = decoded.raw_at.get(a).copied().unwrap_or(s.end);
                    let end = decoded.raw_at.get(b).copied().unwrap_or(s.end);
                    edits.push((start, end, MARKER));
                }
            } else {
                let raw = t.raw(line, s);
                for (a, b) in self.text_spans(raw.as_bytes()) {
                    edits.push((s.start + a, s.start + b, MARKER));
                }
            }
        }
        for n in &t.numbers {
            let Some(k) = n.key.filter(|k| hot[*k]) else { continue };
            let class = classify_name(&text_of(k));
            let digits = bytes[n.start..n.end].iter().filter(|b| b.is_ascii_digit()).count();
            if class.secret && class.numeric && digits >= 4 {
                edits.push((n.start, n.end, "\"[REDACTED]\""));
            }
        }
        edits.sort_by_key(|e| (e.0, e.1));
        edits
    }

    /// The slow, simple path: parse, redact every string, serialise.
    fn redact_value_line(&self, line: &str) -> Result<String, RedactorError> {
        let mut value: serde_json::Value = serde_json::from_str(line).map_err(not_an_object)?;
        self.redact_value(&mut value, None);
        if let Some(obj) = value.as_object_mut() {
            obj.insert("redacted".into(), serde_json::Value::Bool(true));
        }
        Ok(value.to_string())
    }

    fn redact_value(&self, value: &mut serde_json::Value, key: Option<&str>) {
        use serde_json::Value;
        match value {
            Value::String(s) => {
                let class = key.map(classify_name).unwrap_or_default();
                if class.secret && structural_secret(s, class) {
                    *s = MARKER.to_owned();
                } else if let Cow::Owned(r) = self.redact(s) {
                    *s = r;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.redact_value(v, key)),
            Value::Object(map) => {
                let kind = map.get("type").and_then(Value::as_str).unwrap_or("").to_owned();
                for (k, v) in map.iter_mut() {
                    if !exempt_key(k, &kind) {
                        self.redact_value(v, Some(k));
                    }
                }
            }
            _ => {}
        }
    }
}

/// A string value under a secret name is a secret unless it is code, a
/// placeholder or a template. A bare `key` is a weak signal in a record (a
/// browser tool's `{"key": "ArrowDown"}`): it needs a digit or 16 characters.
fn structural_secret(value: &str, class: NameClass) -> bool {
    let v = value.as_bytes();
    if assign::keeps_value(v, true, class) {
        return false;
    }
    !class.generic_key || v.iter().any(u8::is_ascii_digit) || v.len() >= 16
}

/// §5's exemptions, byte for byte: ciphertext and signatures go back to the
/// API unchanged.
fn exempt_key(key: &str, object_type: &str) -> bool {
    match key {
        "encrypted_content" | "encrypted_index" => true,
        "signature" => object_type == "thinking",
        "data" => matches!(object_type, "redacted_thinking" | "base64"),
        _ => false,
    }
}

fn is_exempt(line: &str, t: &jsonline::Tokens, s: &jsonline::Str, key: Option<&str>) -> bool {
    let Some(key) = key else { return false };
    let object_type =
        t.containers.get(s.container).and_then(|c| c.type_value).map_or("", |v| t.raw(line, &t.strings[v]));
    // A string directly under the key (not an item of an array under it).
    let direct = t.containers.get(s.container).is_some_and(|c| c.is_object);
    direct && exempt_key(key, object_type)
}

fn merge(mut spans: Vec<(usize, usize)>) -> Vec<(usize, usize)> {
    spans.sort_unstable();
    let mut out: Vec<(usize, usize)> = Vec::with_capacity(spans.len());
    for (s, e) in spans {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e)),
        }
    }
    out
}

/// Applies sorted edits; overlapping ones merge into the first.
fn apply_edits(line: &str, edits: &[(usize, usize, &'static str)]) -> String {
    let mut out = String::with_capacity(line.len() + 32);
    let mut at = 0;
    let mut i = 0;
    while i < edits.len() {
        let (start, mut end, replacement) = edits[i];
        while i + 1 < edits.len() && edits[i + 1].0 < end {
            i += 1;
            end = end.max(edits[i].1);
        }
        if start >= at {
            out.push_str(line.get(at..start).unwrap_or(""));
            out.push_str(replacement);
            at = end;
        }
        i += 1;
    }
    out.push_str(line.get(at..).unwrap_or(""));
    out
}

/// Adds `"redacted":true` as the record's last field.
fn add_marker(out: &mut String) {
    let Some(close) = out.rfind('}') else { return };
    let tail = out.split_off(close);
    let head_len = out.trim_end().len();
    out.truncate(head_len);
    out.push_str(if out.ends_with('{') { r#""redacted":true"# } else { r#","redacted":true"# });
    out.push_str(&tail);
}

fn not_an_object(e: serde_json::Error) -> RedactorError {
    RedactorError(format!("a journal line must be a JSON object: {e}"))
}

fn check_object(line: &str) -> Result<(), RedactorError> {
    if line.trim_start().as_bytes().first() != Some(&b'{') {
        return Err(RedactorError("a journal line must be a JSON object".into()));
    }
    serde_json::from_str::<IgnoredAny>(line).map(|_| ()).map_err(not_an_object)
}

#[cfg(test)]
mod tests;
