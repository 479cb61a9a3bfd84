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
mod commands;
mod context;
mod fields;
mod formats;
mod jsonline;
mod local;
mod names;
mod prose;
mod rules;
mod simple;
mod tokens;
mod triggers;
mod value;

use crate::bytes::find_byte;
use serde::de::IgnoredAny;
use std::borrow::Cow;
use std::fmt;
use triggers::{Trigger, Triggers};

pub use names::{classify_name, NameClass};
pub use rules::{CustomRule, Rule, RuleError};

/// What a secret becomes.
pub const MARKER: &str = "[REDACTED]";

/// Shortest environment value that rule 1 removes.
const MIN_ENV_VALUE: usize = 8;

/// The result of `redactLine`: the line to write, and whether it changed.
#[derive(Debug, Clone, PartialEq)]
pub struct LineRedaction<'a> {
    pub line: Cow<'a, str>,
    pub changed: bool,
    /// The rule of each secret removed (`Rule::name` gives `jwt`,
    /// `assignment`, or a user rule's name).
    pub rules: Vec<Rule>,
}

/// A redacted journal and what changed in it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JournalRedaction {
    pub text: String,
    pub lines: usize,
    /// Lines that changed.
    pub changed: usize,
    /// Lines that are not JSON objects (redacted as free text).
    pub not_records: usize,
    /// Secrets removed, by rule name.
    pub rules: std::collections::BTreeMap<String, usize>,
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
    /// The user's rules, in the order given.
    custom: Vec<CustomRule>,
    /// Some user rule has no literal: every string must be searched.
    search_all: bool,
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
        Redactor::build(self.env_values.clone(), self.custom.clone())
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
        let inner = &json[1..json.len() - 1];
        out.push(inner.as_bytes().to_vec());
        // A JSON file a tool printed (`cat config.json`), held in a journal
        // line's string: escaped twice. The prefilter reads the line's raw
        // text, and a value with a quote or a backslash is spelled so there.
        if let Ok(twice) = serde_json::to_string(inner) {
            out.push(twice.as_bytes()[1..twice.len() - 1].to_vec());
        }
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
    sort_small(&mut out, |a, b| a <= b);
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
        sort_small(&mut env_values, |a, b| a.len() > b.len() || (a.len() == b.len() && a <= b));
        env_values.dedup();
        Redactor::build(env_values, Vec::new())
    }

    /// A Redactor for an environment and the user's own rules (name,
    /// pattern). A bad pattern is an error naming the rule and the position.
    pub fn with_rules<I, K, V, R, N, P>(env: I, rules: R) -> Result<Redactor, RuleError>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
        R: IntoIterator<Item = (N, P)>,
        N: AsRef<str>,
        P: AsRef<str>,
    {
        let custom = rules
            .into_iter()
            .map(|(name, pattern)| CustomRule::new(name.as_ref(), pattern.as_ref()))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Redactor::build(Redactor::new(env).env_values, custom))
    }

    fn build(env_values: Vec<Vec<u8>>, custom: Vec<CustomRule>) -> Redactor {
        let search_all = custom.iter().any(|r| r.literal.is_none());
        Redactor { triggers: Triggers::new(&env_values, &custom), env_values, custom, search_all }
    }

    /// The name of the rule that found a secret.
    pub fn rule_name(&self, rule: Rule) -> &str {
        rule.name(&self.custom)
    }

    /// Redacts free text.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        let spans = self.text_spans(text);
        if spans.is_empty() {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        let mut at = 0;
        for (start, end, _) in spans {
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
    fn text_spans(&self, text: &str) -> Vec<Span> {
        spans_at_hits(text, self.triggers.scan(text.as_bytes()).into_iter(), &self.custom)
    }

    // Hits inside a secret already found are skipped: that keeps inputs
    // such as `password=password=…` or BEGIN lines without END linear.
    // A value found by rule 3 does not hide a known format inside it.
}

/// The secret spans of `text`, given its prefilter hits (in order), and
/// the user's rules.
fn spans_at_hits(text: &str, hits: impl Iterator<Item = triggers::Hit>, custom: &[CustomRule]) -> Vec<Span> {
    let (str_text, text) = (text, text.as_bytes());
    let mut spans = Vec::new();
    let mut format_end = 0;
    let mut value_end = 0;
    let mut name_end = 0;
    // A table column's cells, from its header's name (`assign::assignment`),
    // in order of position. Kept apart until the end: they lie ahead of
    // the hits still to come, which must still be looked at (a name in
    // another cell of a row), and the spans list stays nearly sorted.
    let mut column = Vec::new();
    // A user rule searches once per text, from its literal's first hit (or
    // from the start when it has no literal): one linear pass each.
    let mut searched = vec![false; custom.len()];
    let mut found = Vec::new();
    for (i, rule) in custom.iter().enumerate().filter(|(_, r)| r.literal.is_none()) {
        searched[i] = true;
        found.clear();
        rule.find_all(str_text, 0, &mut found);
        spans.extend(found.iter().map(|&(s, e)| (s, e, Rule::Custom(i as u32))));
    }
    // A user rule with a literal is tried where its literal occurs: its
    // hits are gathered here, per rule, and tried after the loop.
    let mut custom_hits: Vec<Vec<usize>> = Vec::new();
    for hit in hits {
        if let Trigger::Custom(i) = hit.trigger {
            if custom_hits.is_empty() {
                custom_hits.resize(custom.len(), Vec::new());
            }
            if let Some(list) = custom_hits.get_mut(i as usize) {
                list.push(hit.pos);
            }
            continue;
        }
        let span = match hit.trigger {
            Trigger::Env(_) => Some((hit.pos, hit.pos + hit.len)),
            Trigger::Name | Trigger::Url | Trigger::Scheme if hit.pos < value_end.max(format_end) => continue,
            Trigger::Name if hit.pos < name_end => continue,
            Trigger::Name => {
                let (end, span) = assign::assignment(text, hit.pos, &mut column);
                name_end = end;
                span
            }
            Trigger::Local(_) if hit.pos < value_end.max(format_end) => continue,
            Trigger::Local(i) => local::name_at(text, hit.pos, usize::from(i)).and_then(|(name, class)| {
                assign::value_of(text, name, class).or_else(|| prose::particle_value(text, name.1, class))
            }),
            Trigger::Url => assign::url_credentials(text, hit.pos),
            Trigger::Command if hit.pos < value_end => continue,
            Trigger::Command => commands::detect(text, hit.pos, hit.len),
            Trigger::Scheme => assign::scheme_credentials(text, hit.pos, hit.len),
            _ if hit.pos < format_end => continue,
            Trigger::Custom(_) => None,
            Trigger::Token(i) => tokens::detect(text, hit.pos, usize::from(i)),
            Trigger::Aws => {
                // An AWS secret access key beside its key id (prose, a CSV,
                // `aws configure list`) goes with it.
                let id = formats::detect(text, &hit);
                if let Some((_, end)) = id {
                    if let Some((s, e)) = formats::aws_secret_near(text, end) {
                        spans.push((s, e, Rule::AwsSecretKey));
                    }
                }
                id
            }
            _ => formats::detect(text, &hit),
        };
        let Some((s, e)) = span.filter(|(s, e)| e > s) else { continue };
        spans.push((s, e, rule_of(text, &hit)));
        match hit.trigger {
            Trigger::Name | Trigger::Local(_) | Trigger::Url | Trigger::Scheme | Trigger::Command => {
                value_end = value_end.max(e)
            }
            _ => format_end = format_end.max(e),
        }
    }
    for (i, positions) in custom_hits.iter().enumerate() {
        let Some(rule) = custom.get(i).filter(|_| !searched[i] && !positions.is_empty()) else { continue };
        found.clear();
        rule.find_at_hits(str_text, positions, &mut found);
        spans.extend(found.iter().map(|&(s, e)| (s, e, Rule::Custom(i as u32))));
    }
    merge(spans, &column)
}

impl Redactor {
    /// `redactLine`: redacts one journal line. An unchanged line comes back
    /// byte-identical (borrowed); a changed record gains `"redacted": true`.
    pub fn redact_line<'a>(&self, line: &'a str) -> Result<LineRedaction<'a>, RedactorError> {
        check_object(line)?;
        self.redact_line_lazily(line)
    }

    /// `redact_line` that validates the line only when it must look inside
    /// it; an unchanged line may be invalid, and the caller (`Journal::write`,
    /// which parses every line anyway) checks it. Saves a parse per write.
    pub(crate) fn redact_line_lazily<'a>(&self, line: &'a str) -> Result<LineRedaction<'a>, RedactorError> {
        let unchanged = LineRedaction { line: Cow::Borrowed(line), changed: false, rules: Vec::new() };
        let mut hits = self.triggers.scan(line.as_bytes());
        let inert = |h: &triggers::Hit| match h.trigger {
            Trigger::Name => assign::name_is_inert(line.as_bytes(), h.pos),
            // `passed` is no `mot de passe`.
            Trigger::Local(i) => local::name_at(line.as_bytes(), h.pos, usize::from(i)).is_none(),
            _ => false,
        };
        // `\u` escapes could spell a trigger the prefilter cannot see.
        if has_unicode_escape(line.as_bytes()) {
            // Decode and look at every string: the slow, rare path below.
        } else if !self.search_all {
            // A name that test finds inert assigns nothing in the line's
            // structure either (the line would be kept whole were all its
            // names so): only the others are looked at there, and a string
            // whose hits are all inert is not decoded. Each hit is judged once.
            hits.retain(|h| !inert(h));
            // The common case: `inputTokens`, "the token budget": names that
            // are metadata or assign nothing. No need for the line's structure.
            if hits.is_empty() {
                return Ok(unchanged);
            }
        }
        check_object(line)?;
        let t = jsonline::tokenize(line);
        let mut edits = self.line_edits(line, &t, &hits);
        if edits.is_empty() {
            return Ok(unchanged);
        }
        // `"redacted": true`: replace a top-level value the record has...
        if let Some((s, e)) = t.top_redacted {
            let at = edits.partition_point(|x| (x.0, x.1) <= (s, e));
            edits.insert(at, (s, e, "true", None));
        }
        let mut rules = Vec::new();
        let mut out = apply_edits(line, &edits, &mut rules);
        // ...or add one.
        if t.top_redacted.is_none() {
            add_marker(&mut out);
        }
        // Edits replace whole string contents or whole numbers, so the line
        // stays JSON; checked anyway, since a broken line would be worse than
        // a refused one.
        serde_json::from_str::<IgnoredAny>(&out)
            .map_err(|e| RedactorError(format!("internal error: redaction broke the line ({e})")))?;
        Ok(LineRedaction { line: Cow::Owned(out), changed: true, rules })
    }

    /// Redacts a whole journal text line by line: records through
    /// `redact_line`, and lines that are not records (a torn tail, a bad
    /// edit) as free text, so no secret survives in them either.
    pub fn redact_journal(&self, text: &str) -> JournalRedaction {
        let mut out = String::with_capacity(text.len());
        let mut stats = JournalRedaction::default();
        for piece in text.split_inclusive('\n') {
            let (line, newline) = match piece.strip_suffix('\n') {
                Some(l) => (l, "\n"),
                None => (piece, ""),
            };
            let (line, cr) = match line.strip_suffix('\r') {
                Some(l) => (l, "\r"),
                None => (line, ""),
            };
            stats.lines += 1;
            match self.redact_line(line) {
                Ok(r) => {
                    stats.changed += usize::from(r.changed);
                    for &rule in &r.rules {
                        *stats.rules.entry(self.rule_name(rule).to_owned()).or_insert(0) += 1;
                    }
                    out.push_str(&r.line);
                }
                Err(_) if line.trim().is_empty() => out.push_str(line),
                Err(_) => {
                    stats.not_records += 1;
                    let spans = self.text_spans(line);
                    stats.changed += usize::from(!spans.is_empty());
                    for &(_, _, rule) in &spans {
                        *stats.rules.entry(self.rule_name(rule).to_owned()).or_insert(0) += 1;
                    }
                    out.push_str(&self.redact(line));
                }
            }
            out.push_str(cr);
            out.push_str(newline);
        }
        stats.text = out;
        stats
    }

    /// A record on its way to disk: one line (a record spread over several
    /// lines is compacted first), redacted.
    pub fn redact_record<'a>(&self, record: &'a str) -> Result<Cow<'a, str>, RedactorError> {
        check_object(record)?;
        self.redact_record_lazily(record)
    }

    /// `redact_record` that leaves validating an unchanged line to the caller.
    pub(crate) fn redact_record_lazily<'a>(&self, record: &'a str) -> Result<Cow<'a, str>, RedactorError> {
        let bytes = record.as_bytes();
        if find_byte(bytes, b'\n').is_some() || find_byte(bytes, b'\r').is_some() {
            // Pretty-printed JSON: raw line breaks can only be white space
            // between tokens (inside strings they are escaped), so blanks
            // serve as well and the record becomes one line.
            let one_line = record.replace(['\n', '\r'], " ");
            return Ok(Cow::Owned(self.redact_line(&one_line)?.line.into_owned()));
        }
        Ok(self.redact_line_lazily(record)?.line)
    }

    /// The replacements a line needs: (start, end, replacement).
    fn line_edits(&self, line: &str, t: &jsonline::Tokens, hits: &[triggers::Hit]) -> Vec<Edit> {
        let bytes = line.as_bytes();
        // Which string tokens hold a hit (both are in order of position).
        let mut hot = vec![false; t.strings.len()];
        let mut h = 0;
        for (i, s) in t.strings.iter().enumerate() {
            while h < hits.len() && hits[h].pos < s.start {
                h += 1;
            }
            hot[i] = self.search_all
                || (h < hits.len() && hits[h].pos < s.end)
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
            // Neither the string nor its key holds a hit: nothing to do, and
            // no key to decode or classify.
            if !hot[i] && !s.key.is_some_and(|k| hot[k]) {
                continue;
            }
            let key = s.key.map(|k| (k, text_of(k)));
            if !s.is_key && is_exempt(line, t, s, key.as_ref().map(|(_, k)| k.as_ref())) {
                // Ciphertext and signatures go back byte for byte: what looks
                // like a token there is chance. A value the Redactor was given
                // (an environment secret) is not, and goes like anywhere else;
                // the record is then `redacted`, and resume leaves out the
                // thinking its signature covered (§6 rule 3). The live
                // fuzzer planted one in a thinking block's signature.
                if hot[i] {
                    self.env_edits(line, s, hits, &mut edits);
                }
                continue;
            }
            // Rule 3 in the record's own structure: a value under a secret name.
            if let Some((k, name)) = &key {
                if hot[*k] {
                    let class = classify_name(name);
                    if class.secret && structural_secret(&text_of(i), class) {
                        edits.push((s.start, s.end, MARKER, Some(Rule::RecordField)));
                        continue;
                    }
                }
            }
            if !hot[i] {
                continue;
            }
            if s.escaped {
                let decoded = jsonline::decode(t.raw(line, s), s.start);
                // The line's hits, moved into the text, or (rarely) a scan of it.
                let found = decoded.hits(hits, s.end, &self.triggers);
                let found = found.unwrap_or_else(|| self.triggers.scan(decoded.text.as_bytes()));
                for (a, b, rule) in spans_at_hits(&decoded.text, found.into_iter(), &self.custom) {
                    let start = decoded.raw_offset(a).min(s.end);
                    let end = decoded.raw_offset(b).min(s.end);
                    edits.push((start, end, MARKER, Some(rule)));
                }
            } else {
                // The line's own hits serve: no second scan.
                let raw = t.raw(line, s);
                let first = hits.partition_point(|h| h.pos < s.start);
                let inside = hits[first..]
                    .iter()
                    .take_while(|h| h.pos + h.len <= s.end)
                    .map(|h| triggers::Hit { pos: h.pos - s.start, ..*h });
                for (a, b, rule) in spans_at_hits(raw, inside, &self.custom) {
                    edits.push((s.start + a, s.start + b, MARKER, Some(rule)));
                }
            }
        }
        let mut numbers = Vec::new();
        for n in &t.numbers {
            let Some(k) = n.key.filter(|k| hot[*k]) else { continue };
            let class = classify_name(&text_of(k));
            let digits = bytes[n.start..n.end].iter().filter(|b| b.is_ascii_digit()).count();
            if class.secret && class.numeric && digits >= 4 {
                numbers.push((n.start, n.end, "\"[REDACTED]\"", Some(Rule::RecordField)));
            }
        }
        // Both lists are in order of position: merge them.
        merge_sorted(edits, numbers)
    }

    /// The edits that remove the Redactor's own values (environment
    /// secrets) from string `s` of `line`, and nothing else.
    fn env_edits(&self, line: &str, s: &jsonline::Str, hits: &[triggers::Hit], edits: &mut Vec<Edit>) {
        if s.escaped {
            let decoded = jsonline::decode(line.get(s.start..s.end).unwrap_or(""), s.start);
            // The line's hits moved into the text, as for a hot string.
            let found = decoded.hits(hits, s.end, &self.triggers);
            for h in found.unwrap_or_else(|| self.triggers.scan(decoded.text.as_bytes())) {
                if let Trigger::Env(_) = h.trigger {
                    let start = decoded.raw_offset(h.pos).min(s.end);
                    edits.push((
                        start,
                        decoded.raw_offset(h.pos + h.len).min(s.end),
                        MARKER,
                        Some(Rule::EnvValue),
                    ));
                }
            }
        } else {
            // The line's own hits: the scan's exact matches of each value
            // (a token pattern's span over the same bytes does not hide them).
            let first = hits.partition_point(|h| h.pos < s.start);
            for h in hits[first..].iter().take_while(|h| h.pos + h.len <= s.end) {
                if let Trigger::Env(_) = h.trigger {
                    edits.push((h.pos, h.pos + h.len, MARKER, Some(Rule::EnvValue)));
                }
            }
        }
    }
}

/// A string value under a secret name is a secret unless it is code, a
/// placeholder, a template or plain words (a bare `key` is weak too: a
/// browser tool's `{"key": "ArrowDown"}` stays; see `value::keeps_value`).
fn structural_secret(value: &str, class: NameClass) -> bool {
    !value::keeps_value(value.as_bytes(), true, class)
}

/// §5's exemptions, byte for byte: ciphertext and signatures go back to the
/// API unchanged (but for the Redactor's own values: `env_edits`).
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

/// Insertion sort, stable: the lists here are short or nearly sorted (spans
/// and edits come in order of position), and each use of the standard
/// sorts adds a few KB of wasm.
pub(crate) fn sort_small<T>(items: &mut [T], in_order: impl Fn(&T, &T) -> bool) {
    for i in 1..items.len() {
        let mut j = i;
        while j > 0 && !in_order(&items[j - 1], &items[j]) {
            items.swap(j - 1, j);
            j -= 1;
        }
    }
}

/// (start, end, replacement, rule): the marker edit has no rule.
type Edit = (usize, usize, &'static str, Option<Rule>);

/// (start, end, rule).
type Span = (usize, usize, Rule);

/// The rule a span was found by, for the counts `redact` reports.
fn rule_of(text: &[u8], hit: &triggers::Hit) -> Rule {
    match hit.trigger {
        Trigger::Env(_) => Rule::EnvValue,
        Trigger::Name | Trigger::Local(_) => Rule::Assignment,
        Trigger::Url => Rule::UrlCredentials,
        Trigger::Scheme => Rule::Authorization,
        Trigger::Command => Rule::CommandCredential,
        Trigger::Sk if text[hit.pos..].starts_with(b"sk-ant-") => Rule::AnthropicKey,
        Trigger::Sk => Rule::OpenaiKey,
        Trigger::Aws => Rule::AwsKeyId,
        Trigger::GitHub => Rule::GithubToken,
        Trigger::Slack | Trigger::SlackHook => Rule::Slack,
        Trigger::Google => Rule::GoogleApiKey,
        Trigger::Jwt => Rule::Jwt,
        Trigger::PrivateKey => Rule::PrivateKey,
        Trigger::Custom(i) => Rule::Custom(i),
        Trigger::Token(i) => Rule::Token(i),
    }
}

fn merge_sorted(a: Vec<Edit>, b: Vec<Edit>) -> Vec<Edit> {
    let mut out = Vec::with_capacity(a.len() + b.len());
    let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
    loop {
        let next = match (a.peek(), b.peek()) {
            (Some(x), Some(y)) if (x.0, x.1) <= (y.0, y.1) => a.next(),
            (Some(_), Some(_)) => b.next(),
            (Some(_), None) => a.next(),
            (None, Some(_)) => b.next(),
            (None, None) => break,
        };
        out.extend(next);
    }
    out
}

/// The spans sorted and joined where they touch, with a table's column
/// `cells` (sorted already) among them.
fn merge(mut spans: Vec<Span>, cells: &[(usize, usize)]) -> Vec<Span> {
    sort_small(&mut spans, |a, b| (a.0, a.1) <= (b.0, b.1));
    let mut out: Vec<Span> = Vec::with_capacity(spans.len() + cells.len());
    let mut cells = cells.iter().map(|&(s, e)| (s, e, Rule::Assignment)).peekable();
    let mut spans = spans.into_iter().peekable();
    while let Some((s, e, rule)) = match (spans.peek(), cells.peek()) {
        (Some(a), Some(c)) if (c.0, c.1) < (a.0, a.1) => cells.next(),
        (None, Some(_)) => cells.next(),
        _ => spans.next(),
    } {
        match out.last_mut() {
            Some(last) if s <= last.1 => last.1 = last.1.max(e),
            _ => out.push((s, e, rule)),
        }
    }
    out
}

/// Applies sorted edits; overlapping ones merge into the first.
fn apply_edits(line: &str, edits: &[Edit], rules: &mut Vec<Rule>) -> String {
    let mut out = String::with_capacity(line.len() + 32);
    let mut at = 0;
    let mut i = 0;
    while i < edits.len() {
        let (start, mut end, replacement, rule) = edits[i];
        while i + 1 < edits.len() && edits[i + 1].0 < end {
            i += 1;
            end = end.max(edits[i].1);
        }
        if start >= at {
            out.push_str(line.get(at..start).unwrap_or(""));
            out.push_str(replacement);
            at = end;
            if let Some(rule) = rule {
                rules.push(rule);
            }
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

/// A `\u` escape anywhere in the line.
fn has_unicode_escape(bytes: &[u8]) -> bool {
    let mut at = 0;
    while let Some(i) = find_byte(&bytes[at..], b'\\') {
        if bytes.get(at + i + 1) == Some(&b'u') {
            return true;
        }
        at += i + 2;
        if at >= bytes.len() {
            return false;
        }
    }
    false
}

fn not_an_object(e: serde_json::Error) -> RedactorError {
    RedactorError(format!("a journal line must be a JSON object: {e}"))
}

fn check_object(line: &str) -> Result<(), RedactorError> {
    if line.trim_start().as_bytes().first() != Some(&b'{') {
        return Err(RedactorError("a journal line must be a JSON object".into()));
    }
    if crate::json_check::is_json(line.as_bytes()) {
        return Ok(());
    }
    // Refused (rare): serde_json says where and why, as it always did.
    serde_json::from_str::<IgnoredAny>(line)
        .map(|_| ())
        .map_err(not_an_object)
        .and(Err(RedactorError("a journal line must be a JSON object".into())))
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod context_tests;

#[cfg(test)]
mod decoded_hits_tests;

#[cfg(test)]
mod env_tests;

#[cfg(test)]
mod language_tests;
#[cfg(test)]
mod spelling_tests;
