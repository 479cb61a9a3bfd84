//! The JavaScript surface (spec §8). The only file that knows about JS.
//!
//! Rules kept here: every argument is checked before it reaches the core
//! (generated glue does not check types, and a wrong one can trap); every
//! failure is a thrown JS `Error` that names the function and the argument;
//! big results cross as one JSON string that JS parses once.

use crate::accounting::{budget_note_parts, format_cost_parts};
use crate::journal::Journal as CoreJournal;
use crate::listing;
use crate::redact::Redactor as CoreRedactor;
use crate::resume;
use crate::state::SessionState;
use serde::Deserialize;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// A JS `Error` with a stable `code`, as Node's own errors carry: hosts
/// branch on the code, never on the message text.
fn coded(code: &str, msg: impl std::fmt::Display) -> JsValue {
    let e = js_sys::Error::new(&msg.to_string());
    let _ = js_sys::Reflect::set(&e, &"code".into(), &code.into());
    e.into()
}

/// An argument that is not what the function takes.
fn error(msg: impl std::fmt::Display) -> JsValue {
    coded("ERR_INVALID_ARG", msg)
}

fn type_name(v: &JsValue) -> String {
    if v.is_null() {
        "null".into()
    } else if js_sys::Array::is_array(v) {
        "an array".into()
    } else {
        v.js_typeof().as_string().unwrap_or_else(|| "unknown".into())
    }
}

/// Parses JSON text made by the core into JS values.
fn parse_json(text: &str) -> Result<JsValue, JsValue> {
    js_sys::JSON::parse(text)
        .map_err(|_| coded("ERR_INTERNAL", "internal error: the core produced invalid JSON"))
}

/// A JS value as JSON text (`JSON.stringify`, then one copy into wasm).
fn js_json(v: &JsValue, what: &str) -> Result<String, JsValue> {
    js_sys::JSON::stringify(v)
        .ok()
        .and_then(|s| js_text(&s))
        .ok_or_else(|| error(format!("{what} could not be turned into JSON")))
}

/// A small JS value (options, a few fields) read through JSON: serde_json is
/// in the module anyway, so these few reads need no second deserializer
/// (serde-wasm-bindgen; dropping it measured 0.6 KB gzipped and one
/// dependency less).
fn from_js<T: for<'de> Deserialize<'de>>(v: JsValue, what: &str) -> Result<T, JsValue> {
    let text = js_json(&v, what)?;
    serde_json::from_str(&text).map_err(|e| {
        let e = e.to_string();
        let e = e.rfind(" at line ").map_or(e.as_str(), |i| &e[..i]).to_owned();
        error(format!("{what}: {e}"))
    })
}

// ---- Big strings in ------------------------------------------------------

#[wasm_bindgen]
extern "C" {
    /// The host's TextEncoder (Node 12+, every browser). Its `encodeInto`
    /// writes UTF-8 straight into wasm memory at memcpy speed; the glue's
    /// own string copy walks the string one character at a time in JS.
    type TextEncoder;
    #[wasm_bindgen(constructor)]
    fn new() -> TextEncoder;
    #[wasm_bindgen(method, js_name = encodeInto)]
    fn encode_into(this: &TextEncoder, text: &js_sys::JsString, dest: &js_sys::Uint8Array) -> EncodeResult;
    type EncodeResult;
    #[wasm_bindgen(method, getter)]
    fn written(this: &EncodeResult) -> f64;
}

thread_local! {
    /// One encoder for the instance: creating one costs more than a short
    /// record's whole write.
    static ENCODER: TextEncoder = TextEncoder::new();
}

/// Encodes `text` into `buf` (which must hold 3 bytes per UTF-16 unit) and
/// returns the bytes written.
fn encode_into(text: &js_sys::JsString, buf: &mut [u8]) -> usize {
    // SAFETY: the view is used at once and dropped, and nothing allocates in
    // wasm memory (which could move it) between its creation and its use.
    let view = unsafe { js_sys::Uint8Array::view_mut_raw(buf.as_mut_ptr(), buf.len()) };
    let written = ENCODER.with(|e| e.encode_into(text, &view).written() as usize);
    drop(view);
    written.min(buf.len())
}

/// UTF-16 units per chunk: large enough that the per-call cost vanishes,
/// small enough that no second copy of a big journal exists at once.
const CHUNK_UNITS: u32 = 1 << 20;

/// Feeds a JS string to a journal in chunks, without ever holding all of it
/// in wasm memory. A chunk never ends between the halves of a surrogate pair.
fn feed_js_string(journal: &mut CoreJournal, text: &js_sys::JsString) {
    let len = text.length();
    // A UTF-16 unit becomes at most 3 UTF-8 bytes.
    let mut buf = vec![0u8; 3 * CHUNK_UNITS.min(len) as usize];
    let mut start = 0;
    while start < len {
        let mut end = (start + CHUNK_UNITS).min(len);
        if end < len && (0xD800..0xDC00).contains(&(text.char_code_at(end - 1) as u32)) {
            end -= 1;
        }
        let written = encode_into(&text.slice(start, end), &mut buf);
        let Some(bytes) = buf.get(..written) else { break };
        // SAFETY: `encodeInto` writes UTF-8 and nothing else: the Encoding
        // Standard converts its input to scalar values first (a lone
        // surrogate becomes U+FFFD) and writes only whole sequences, and the
        // chunk never splits a surrogate pair. Checking again cost 7% of a
        // 100 MB replay (110 against 118 ms), which is what it saves.
        journal.feed(unsafe { std::str::from_utf8_unchecked(bytes) });
        start = end;
    }
}

/// A JS string as Rust text. Long strings go through `encodeInto` (one
/// native copy); short ones through the glue (less per-call set-up).
fn js_text(value: &JsValue) -> Option<String> {
    let text = value.dyn_ref::<js_sys::JsString>()?;
    let len = text.length();
    if len < 256 {
        return text.as_string();
    }
    let mut buf = vec![0u8; 3 * len as usize];
    let written = encode_into(text, &mut buf);
    buf.truncate(written);
    String::from_utf8(buf).ok()
}

fn text_arg(v: &JsValue, what: &str) -> Result<String, JsValue> {
    js_text(v).ok_or_else(|| error(format!("{what} must be a string, got {}", type_name(v))))
}

// ---- Redactor -------------------------------------------------------------

thread_local! {
    /// Live Redactors by id, so `new Journal({ redactor })` can find the Rust
    /// side of a JS `Redactor` without taking it over (the same Redactor may
    /// serve many journals).
    static REDACTORS: RefCell<Vec<(u32, Rc<CoreRedactor>)>> = const { RefCell::new(Vec::new()) };
    static NEXT_ID: RefCell<u32> = const { RefCell::new(1) };
}

#[derive(Deserialize, Default)]
struct RedactorOptions {
    #[serde(default)]
    env: BTreeMap<String, Option<String>>,
    #[serde(default)]
    rules: Vec<RuleOption>,
}

/// A user's rule: `{ name, pattern }` (a regex-lite pattern).
#[derive(Deserialize)]
struct RuleOption {
    name: String,
    pattern: String,
}

/// `new Redactor({ env })`: replaces secrets with `[REDACTED]` (spec §5).
#[wasm_bindgen]
pub struct Redactor {
    inner: Rc<CoreRedactor>,
    id: u32,
}

#[wasm_bindgen]
impl Redactor {
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<Redactor, JsValue> {
        let options: RedactorOptions = if options.is_undefined() || options.is_null() {
            RedactorOptions::default()
        } else if options.is_object() {
            from_js(
                options,
                "new Redactor(options): options.env must map names to strings and options.rules be [{ name, pattern }]",
            )?
        } else {
            return Err(error(format!(
                "new Redactor(options): options must be an object, got {}",
                type_name(&options)
            )));
        };
        let env = options.env.into_iter().filter_map(|(k, v)| v.map(|v| (k, v)));
        let rules = options.rules.iter().map(|r| (r.name.as_str(), r.pattern.as_str()));
        let inner = Rc::new(
            CoreRedactor::with_rules(env, rules)
                .map_err(|e| coded("ERR_BAD_RULE", format!("new Redactor(options): {e}")))?,
        );
        let id = NEXT_ID.with(|n| {
            let mut n = n.borrow_mut();
            *n = n.wrapping_add(1);
            *n
        });
        REDACTORS.with(|r| r.borrow_mut().push((id, inner.clone())));
        Ok(Redactor { inner, id })
    }

    /// Ties a JS `Redactor` to its Rust side; not part of the public API.
    #[wasm_bindgen(getter, js_name = "__redactorId")]
    pub fn redactor_id(&self) -> u32 {
        self.id
    }

    /// `{ line, changed }`: the line to write. An unchanged line comes back
    /// byte-identical; a changed record gains `"redacted": true`.
    #[wasm_bindgen(js_name = redactLine, unchecked_return_type = "{ line: string; changed: boolean }")]
    pub fn redact_line(&self, line: JsValue) -> Result<JsValue, JsValue> {
        let text = text_arg(&line, "redactLine(line): line")?;
        let out = self
            .inner
            .redact_line(&text)
            .map_err(|e| coded("ERR_BAD_RECORD", format!("redactLine(line): {e}")))?;
        // An unchanged line is the caller's own string: nothing to copy back.
        let result_line = if out.changed { JsValue::from_str(&out.line) } else { line };
        let result = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&result, &"line".into(), &result_line);
        let _ = js_sys::Reflect::set(&result, &"changed".into(), &JsValue::from_bool(out.changed));
        Ok(result.into())
    }

    /// Redacts free text (not a journal line).
    pub fn redact(&self, text: JsValue) -> Result<JsValue, JsValue> {
        let input = text_arg(&text, "redact(text): text")?;
        Ok(match self.inner.redact(&input) {
            std::borrow::Cow::Borrowed(_) => text,
            std::borrow::Cow::Owned(out) => JsValue::from_str(&out),
        })
    }

    /// Redacts a whole journal (text or the file's bytes): records as
    /// `redactLine` does, other lines as free text.
    #[wasm_bindgen(
        js_name = redactJournal,
        unchecked_return_type = "{ text: string; lines: number; changed: number; notRecords: number; rules: Record<string, number> }"
    )]
    pub fn redact_journal(&self, journal: JsValue) -> Result<JsValue, JsValue> {
        let text = if journal.is_instance_of::<js_sys::Uint8Array>() {
            String::from_utf8(js_sys::Uint8Array::from(journal).to_vec())
                .map_err(|_| error("redactJournal(journal): the bytes are not UTF-8"))?
        } else {
            text_arg(&journal, "redactJournal(journal): journal (a string or a Uint8Array)")?
        };
        let out = self.inner.redact_journal(&text);
        drop(text);
        let result = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&result, &"text".into(), &JsValue::from_str(&out.text));
        let _ = js_sys::Reflect::set(&result, &"lines".into(), &JsValue::from_f64(out.lines as f64));
        let _ = js_sys::Reflect::set(&result, &"changed".into(), &JsValue::from_f64(out.changed as f64));
        let _ =
            js_sys::Reflect::set(&result, &"notRecords".into(), &JsValue::from_f64(out.not_records as f64));
        let rules = js_sys::Object::new();
        for (rule, count) in &out.rules {
            let _ = js_sys::Reflect::set(&rules, &JsValue::from_str(rule), &JsValue::from_f64(*count as f64));
        }
        let _ = js_sys::Reflect::set(&result, &"rules".into(), &rules);
        Ok(result.into())
    }
}

impl Drop for Redactor {
    fn drop(&mut self) {
        let id = self.id;
        let _ = REDACTORS.try_with(|r| r.borrow_mut().retain(|(k, _)| *k != id));
    }
}

/// The Redactor a Journal's options name, or None for the default one
/// (which the Journal builds at its first write, if it ever writes).
fn redactor_of(options: &JsValue) -> Result<Option<Rc<CoreRedactor>>, JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(None);
    }
    if !options.is_object() {
        return Err(error(format!(
            "new Journal(options): options must be an object, got {}",
            type_name(options)
        )));
    }
    let redactor = js_sys::Reflect::get(options, &"redactor".into()).unwrap_or(JsValue::UNDEFINED);
    if redactor.is_undefined() || redactor.is_null() {
        return Ok(None);
    }
    let id = js_sys::Reflect::get(&redactor, &"__redactorId".into())
        .ok()
        .and_then(|v| v.as_f64())
        .ok_or_else(|| error("new Journal(options): options.redactor must be a Redactor"))?;
    REDACTORS
        .with(|r| r.borrow().iter().find(|(k, _)| f64::from(*k) == id).map(|(_, v)| v.clone()))
        .map(Some)
        .ok_or_else(|| error("new Journal(options): options.redactor was freed"))
}

// ---- Journal and replay ---------------------------------------------------

/// The pure in-memory journal: `write` redacts, applies and returns the line
/// to append; `feed`/`finish` replay existing text.
#[wasm_bindgen]
pub struct Journal {
    inner: CoreJournal,
    /// The transcript, built as the journal reads (see `extended_transcript`).
    transcript: crate::transcript::Transcript,
    /// `lean: true`: a Garuda journal's history forgets each message once
    /// the transcript has its entry; the host hands its lines back.
    lean: bool,
}

#[wasm_bindgen]
impl Journal {
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<Journal, JsValue> {
        let mut lean = false;
        let mut inner = match redactor_of(&options)? {
            Some(redactor) => CoreJournal::shared(redactor),
            None => CoreJournal::default(),
        };
        if options.is_object() {
            let flag = |name: &str| -> Result<bool, JsValue> {
                let v = js_sys::Reflect::get(&options, &name.into()).unwrap_or(JsValue::UNDEFINED);
                match v.as_bool() {
                    Some(b) => Ok(b),
                    None if v.is_undefined() => Ok(false),
                    None => Err(error(format!(
                        "new Journal(options): options.{name} must be true or false, got {}",
                        type_name(&v)
                    ))),
                }
            };
            inner = inner.with_model_view(flag("modelView")?).with_strict(flag("strict")?);
            inner = ReadOptions::from_js(&options, "new Journal(options): options")?.apply(inner);
            if flag("keepTranslation")? {
                inner = inner.keeping_translation();
            }
            if flag("usageOnly")? {
                inner = inner.for_usage();
            }
            lean = flag("lean")?;
            let max = js_sys::Reflect::get(&options, &"maxLineBytes".into()).unwrap_or(JsValue::UNDEFINED);
            if !max.is_undefined() {
                match max.as_f64() {
                    Some(n) if n >= 1.0 && n.fract() == 0.0 && n <= 4_294_967_295.0 => {
                        inner = inner.with_max_line(n as usize)
                    }
                    _ => {
                        return Err(error(format!(
                            "new Journal(options): options.maxLineBytes must be a whole number of bytes from 1 to 2^32 - 1, got {}",
                            type_name(&max)
                        )))
                    }
                }
            }
        }
        Ok(Journal { inner, transcript: Default::default(), lean })
    }

    /// Takes a record (an object, or its JSON text), redacts it, applies it,
    /// and returns the line to append (without its newline).
    #[wasm_bindgen(unchecked_return_type = "string")]
    pub fn write(&mut self, record: JsValue) -> Result<JsValue, JsValue> {
        let line = if record.is_string() {
            record
        } else if record.is_object() && !js_sys::Array::is_array(&record) {
            js_sys::JSON::stringify(&record)
                .map(JsValue::from)
                .map_err(|_| error("write(record): record could not be turned into JSON"))?
        } else {
            return Err(error(format!(
                "write(record): record must be an object or a JSON string, got {}",
                type_name(&record)
            )));
        };
        let text =
            js_text(&line).ok_or_else(|| error("write(record): record could not be turned into JSON"))?;
        match self.inner.write(&text).map_err(|e| {
            let code = if e.to_string().contains("maximum line size") {
                "ERR_LINE_TOO_LONG"
            } else {
                "ERR_BAD_RECORD"
            };
            coded(code, format!("write(record): {e}"))
        })? {
            // Unchanged: hand back the caller's own string, no copy.
            std::borrow::Cow::Borrowed(_) => Ok(line),
            std::borrow::Cow::Owned(out) => Ok(JsValue::from_str(&out)),
        }
    }

    /// Feeds journal text read from disk (a string, or bytes as read from
    /// the file): any chunking, no redaction.
    pub fn feed(&mut self, chunk: JsValue) -> Result<(), JsValue> {
        if let Some(text) = chunk.dyn_ref::<js_sys::JsString>() {
            feed_js_string(&mut self.inner, text);
        } else if chunk.is_instance_of::<js_sys::Uint8Array>() {
            self.inner.feed_bytes(&js_sys::Uint8Array::from(chunk).to_vec());
        } else {
            return Err(error(format!(
                "feed(chunk): chunk must be a string or a Uint8Array, got {}",
                type_name(&chunk)
            )));
        }
        Ok(())
    }

    /// Ends fed text: a last line without a newline is applied, or is a torn tail.
    pub fn finish(&mut self) {
        self.inner.finish();
    }

    /// With `keepTranslation`: the records read from another agent's session
    /// since the last call, as `[line, record JSON text]` pairs (the line of
    /// the file each came from); none for a Garuda journal.
    #[wasm_bindgen(unchecked_return_type = "[number, string][]")]
    pub fn translated(&mut self) -> Result<JsValue, JsValue> {
        let mut out = String::from("[");
        for (i, (line, record)) in self.inner.take_translated().iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str(&format!("[{line},{}]", crate::json::str_literal(record)));
        }
        out.push(']');
        parse_json(&out)
    }

    /// The format read so far: null until a line says one.
    #[wasm_bindgen(getter, unchecked_return_type = "SessionFormat | null")]
    pub fn format(&self) -> JsValue {
        self.inner.state().format.map_or(JsValue::NULL, |f| JsValue::from_str(f.as_str()))
    }

    #[wasm_bindgen(getter, js_name = lineCount)]
    pub fn line_count(&self) -> f64 {
        self.inner.line_count() as f64
    }

    /// The number of messages in the conversation (a number, no JSON).
    #[wasm_bindgen(getter, js_name = messageCount)]
    pub fn message_count(&self) -> f64 {
        self.inner.state().messages.len() as f64
    }

    /// The number of warnings so far (a number, no JSON).
    #[wasm_bindgen(getter, js_name = warningCount)]
    pub fn warning_count(&self) -> f64 {
        self.inner.state().warnings.len() as f64
    }

    #[wasm_bindgen(unchecked_return_type = "SessionState")]
    pub fn state(&self) -> Result<JsValue, JsValue> {
        parse_json(&self.inner.state().to_json())
    }

    /// The figures an agent reads every turn (usage, cost, context size,
    /// message count, model, ...) without the messages: O(1) of the
    /// conversation.
    #[wasm_bindgen(unchecked_return_type = "JournalFigures")]
    pub fn figures(&self) -> Result<JsValue, JsValue> {
        parse_json(&crate::json::figures_json(self.inner.state()))
    }

    /// The messages from index `from` on, with their origins: a host that
    /// keeps its own copy asks only for what is new.
    #[wasm_bindgen(js_name = messagesFrom, unchecked_return_type = "{ messages: Message[]; messageOrigins: MessageOrigin[] }")]
    pub fn messages_from(&self, from: f64) -> Result<JsValue, JsValue> {
        if !(from >= 0.0 && from.fract() == 0.0) {
            return Err(error("messagesFrom(from): from must be a whole number of messages, 0 or more"));
        }
        parse_json(&crate::json::messages_from_json(self.inner.state(), from as usize))
    }

    /// Only the messages, for hosts that need no more.
    #[wasm_bindgen(unchecked_return_type = "Message[]")]
    pub fn messages(&self) -> Result<JsValue, JsValue> {
        parse_json(&self.inner.state().messages_json())
    }

    /// What resume would change in this journal's conversation (the report
    /// of `repairForResume`, without handing the messages over).
    #[wasm_bindgen(js_name = resumeReport, unchecked_return_type = "RepairReport")]
    pub fn resume_report(&self) -> Result<JsValue, JsValue> {
        parse_json(&resume::resume(self.inner.state(), &resume::ResumeOptions::default()).report.to_json())
    }

    /// The number of transcript entries (a Journal made with `history: true`).
    #[wasm_bindgen(getter, js_name = transcriptLength)]
    pub fn transcript_length(&mut self) -> f64 {
        self.extended_transcript().len() as f64
    }

    /// Transcript entries `from..to` (all by default): the index a reader
    /// lists, built by the core once per change (`history: true` keeps what
    /// it needs; without it, only warnings are entries).
    #[wasm_bindgen(unchecked_return_type = "TranscriptEntry[]")]
    pub fn transcript(&mut self, from: JsValue, to: JsValue) -> Result<JsValue, JsValue> {
        parse_json(&self.transcript_json(from, to).map_err(|_| {
            coded("ERR_INVALID_ARG", "transcript(from, to): from and to must be whole numbers, 0 or more")
        })?)
    }

    /// `transcript(from, to)` as JSON text: a worker hands it to its page as
    /// one string (a copy), not as objects (a structured clone of each).
    #[wasm_bindgen(js_name = transcriptJson)]
    pub fn transcript_json(&mut self, from: JsValue, to: JsValue) -> Result<String, JsValue> {
        let bound = |v: &JsValue, name: &str, default: usize| match v.as_f64() {
            Some(n) if n >= 0.0 && n.fract() == 0.0 => Ok(n as usize),
            None if v.is_undefined() => Ok(default),
            _ => Err(coded(
                "ERR_INVALID_ARG",
                format!("transcriptJson(from, to): {name} must be a whole number, 0 or more"),
            )),
        };
        let (from, to) = (bound(&from, "from", 0)?, bound(&to, "to", usize::MAX)?);
        Ok(self.built_transcript().index_json(from, to))
    }

    /// The journal lines `transcriptEntry(index, lines)` needs (`lean: true`):
    /// the entry's own and its calls' results', when the history forgot them.
    #[wasm_bindgen(js_name = transcriptLinesFor)]
    pub fn transcript_lines_for(&mut self, index: JsValue) -> Result<Vec<f64>, JsValue> {
        let Some(i) = index.as_f64().filter(|n| *n >= 0.0 && n.fract() == 0.0) else {
            return Err(coded(
                "ERR_INVALID_ARG",
                "transcriptLinesFor(index): index must be a whole number, 0 or more",
            ));
        };
        self.built_transcript();
        Ok(self.transcript.lines_for(self.inner.state(), i as usize).into_iter().map(|l| l as f64).collect())
    }

    /// One transcript entry whole (its message as typed parts), or null.
    /// `lines`: `[line number, text]` pairs of the lines `transcriptLinesFor`
    /// named (a lean journal forgot their messages).
    #[wasm_bindgen(js_name = transcriptEntry, unchecked_return_type = "TranscriptEntryDetail | null")]
    pub fn transcript_entry(
        &mut self,
        index: JsValue,
        #[wasm_bindgen(unchecked_param_type = "[number, string][] | undefined")] lines: JsValue,
    ) -> Result<JsValue, JsValue> {
        let Some(i) = index.as_f64().filter(|n| *n >= 0.0 && n.fract() == 0.0) else {
            return Err(coded(
                "ERR_INVALID_ARG",
                "transcriptEntry(index): index must be a whole number, 0 or more",
            ));
        };
        let mut given: Vec<(u64, String)> = Vec::new();
        if !lines.is_undefined() && !lines.is_null() {
            let bad = || {
                coded(
                    "ERR_INVALID_ARG",
                    "transcriptEntry(index, lines): lines must be [line number, text] pairs",
                )
            };
            let array = lines.dyn_ref::<js_sys::Array>().ok_or_else(bad)?;
            for pair in array.iter() {
                let pair = pair.dyn_ref::<js_sys::Array>().ok_or_else(bad)?;
                let line = pair.get(0).as_f64().filter(|n| *n >= 1.0 && n.fract() == 0.0).ok_or_else(bad)?;
                let text = pair.get(1).as_string().ok_or_else(bad)?;
                given.push((line as u64, text));
            }
        }
        let given: Vec<(u64, &str)> = given.iter().map(|(l, t)| (*l, t.as_str())).collect();
        self.built_transcript();
        match self.transcript.entry_json_with(self.inner.state(), i as usize, &given) {
            Some(json) => parse_json(&json),
            None => Ok(JsValue::NULL),
        }
    }

    /// The transcript entries whose text holds `query` (ASCII case ignored).
    #[wasm_bindgen(js_name = searchTranscript)]
    pub fn search_transcript(&mut self, query: JsValue) -> Result<Vec<u32>, JsValue> {
        let Some(q) = query.as_string() else {
            return Err(coded("ERR_INVALID_ARG", "searchTranscript(query): query must be a string"));
        };
        self.built_transcript();
        Ok(self.transcript.search(self.inner.state(), &q))
    }
}

impl Journal {
    /// The transcript, extended by what the journal read since (entries
    /// are built while a journal is read in chunks) and settled.
    fn built_transcript(&mut self) -> &crate::transcript::Transcript {
        self.extended_transcript();
        self.transcript.settle(self.inner.state());
        &self.transcript
    }

    fn extended_transcript(&mut self) -> &mut crate::transcript::Transcript {
        self.transcript.extend(self.inner.state());
        // Only a Garuda journal's lines hold its messages as they are kept;
        // another agent's are translated, so their history stays whole.
        if self.lean && self.inner.state().format == Some(crate::formats::Format::Garuda) {
            self.transcript.forget_messages(self.inner.history_mut());
        }
        &mut self.transcript
    }
}

/// How a journal is read: `{ format, prices }` of rebuildState and new Journal.
#[derive(Default, Clone)]
struct ReadOptions {
    format: Option<crate::formats::Format>,
    /// Keep the whole history (`state.history`).
    history: bool,
    prices: Option<std::rc::Rc<crate::prices::Prices>>,
}

impl ReadOptions {
    fn from_js(options: &JsValue, what: &str) -> Result<ReadOptions, JsValue> {
        let mut out = ReadOptions::default();
        if options.is_undefined() || options.is_null() {
            return Ok(out);
        }
        if !options.is_object() {
            return Err(error(format!("{what} must be an object, got {}", type_name(options))));
        }
        let format = js_sys::Reflect::get(options, &"format".into()).unwrap_or(JsValue::UNDEFINED);
        if !format.is_undefined() {
            let names: Vec<&str> = crate::formats::Format::ALL.iter().map(|f| f.as_str()).collect();
            out.format = Some(
                format.as_string().and_then(|f| crate::formats::Format::parse(&f)).ok_or_else(|| {
                    error(format!(
                        "{what}.format must be one of {}, got {}",
                        names.join(", "),
                        type_name(&format)
                    ))
                })?,
            );
        }
        let history = js_sys::Reflect::get(options, &"history".into()).unwrap_or(JsValue::UNDEFINED);
        out.history = match history.as_bool() {
            Some(b) => b,
            None if history.is_undefined() => false,
            None => {
                return Err(error(format!(
                    "{what}.history must be true or false, got {}",
                    type_name(&history)
                )))
            }
        };
        let prices = js_sys::Reflect::get(options, &"prices".into()).unwrap_or(JsValue::UNDEFINED);
        if !prices.is_undefined() {
            let text = if prices.is_string() {
                prices.as_string().unwrap_or_default()
            } else {
                js_json(&prices, &format!("{what}.prices"))?
            };
            let table = crate::prices::Prices::with_overrides(&text)
                .map_err(|e| error(format!("{what}.prices: {e}")))?;
            out.prices = Some(std::rc::Rc::new(table));
        }
        Ok(out)
    }

    fn apply(&self, mut journal: CoreJournal) -> CoreJournal {
        if let Some(f) = self.format {
            journal = journal.with_format(f);
        }
        if let Some(p) = &self.prices {
            journal = journal.with_prices(p.clone());
        }
        if self.history {
            journal = journal.with_history();
        }
        journal
    }

    fn journal(&self) -> CoreJournal {
        self.apply(CoreJournal::default())
    }
}

/// A journal argument: the whole text, its bytes (a file as read, no
/// decoding needed), or an array of lines.
fn replay_arg(journal: &JsValue, what: &str) -> Result<SessionState, JsValue> {
    replay_with(journal, what, &ReadOptions::default())
}

fn replay_with(journal: &JsValue, what: &str, options: &ReadOptions) -> Result<SessionState, JsValue> {
    if let Some(text) = journal.dyn_ref::<js_sys::JsString>() {
        let mut replay = options.journal();
        feed_js_string(&mut replay, text);
        replay.finish();
        return Ok(replay.into_state());
    }
    if journal.is_instance_of::<js_sys::Uint8Array>() {
        let bytes = js_sys::Uint8Array::from(journal.clone()).to_vec();
        let mut replay = options.journal();
        replay.feed_bytes(&bytes);
        drop(bytes);
        replay.finish();
        return Ok(replay.into_state());
    }
    if !js_sys::Array::is_array(journal) {
        return Err(error(format!(
            "{what} must be a string, a Uint8Array or an array of lines, got {}",
            type_name(journal)
        )));
    }
    let lines = js_sys::Array::from(journal);
    let n = lines.length();
    let mut replay = options.journal();
    for i in 0..n {
        let item = lines.get(i);
        // A line, or a record object (what a store's `read()` gives back).
        let line = match item.as_string() {
            Some(line) => line,
            None if item.is_object() && !js_sys::Array::is_array(&item) => {
                js_json(&item, &format!("{what}[{i}]"))?
            }
            None => {
                return Err(error(format!(
                    "{what}[{i}] must be a line (string) or a record (object), got {}",
                    type_name(&item)
                )))
            }
        };
        // Lines as from `text.split("\n")`: only the last one may be torn.
        if i + 1 == n {
            replay.read_last_line(&line);
        } else {
            replay.read_line(&line);
        }
    }
    replay.finish();
    Ok(replay.into_state())
}

#[wasm_bindgen(js_name = rebuildState, unchecked_return_type = "SessionState")]
pub fn rebuild_state(
    journal: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ReadOptions | undefined")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let options = ReadOptions::from_js(&options, "rebuildState(journal, options): options")?;
    let state = replay_with(&journal, "rebuildState(journal, options): journal", &options)?;
    parse_json(&state.to_json())
}

/// `importSession(journal, options)`: another agent's session as a Garuda
/// journal (JSONL text, every line through the Redactor), so Garuda can
/// resume it. Throws ERR_UNKNOWN_FORMAT when no known format is found.
#[wasm_bindgen(js_name = importSession)]
pub fn import_session(
    journal: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ImportOptions | undefined")] options: JsValue,
) -> Result<String, JsValue> {
    let what = "importSession(journal, options)";
    let read = ReadOptions::from_js(&options, &format!("{what}: options"))?;
    let redactor = match redactor_of(&options)? {
        Some(r) => r,
        None => std::rc::Rc::new(CoreRedactor::default()),
    };
    let mut j = read.journal().keeping_translation();
    if let Some(text) = journal.dyn_ref::<js_sys::JsString>() {
        feed_js_string(&mut j, text);
    } else if journal.is_instance_of::<js_sys::Uint8Array>() {
        j.feed_bytes(&js_sys::Uint8Array::from(journal).to_vec());
    } else {
        return Err(error(format!(
            "{what}: journal must be a string or a Uint8Array, got {}",
            type_name(&journal)
        )));
    }
    j.finish();
    match j.state().format {
        None => {
            let names: Vec<&str> = crate::formats::Format::ALL.iter().map(|f| f.as_str()).collect();
            return Err(coded(
                "ERR_UNKNOWN_FORMAT",
                format!("{what}: no known session format (tried {})", names.join(", ")),
            ));
        }
        Some(crate::formats::Format::Garuda) => {
            return Err(coded("ERR_INVALID_ARG", format!("{what}: this is a Garuda journal already")));
        }
        Some(_) => {}
    }
    let mut out = String::new();
    for (_, record) in j.take_translated() {
        let line =
            redactor.redact_line(&record).map_err(|e| coded("ERR_INTERNAL", format!("{what}: {e}")))?;
        out.push_str(&line.line);
        out.push('\n');
    }
    Ok(out)
}

// ---- Accounting ----------------------------------------------------------

/// The fields of a state object that the cost and budget lines read.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CostView {
    cost_usd: Option<f64>,
    #[serde(default)]
    cost_incomplete: bool,
    #[serde(default)]
    usage: crate::accounting::Usage,
    #[serde(default)]
    unreported_tokens: u64,
    #[serde(default)]
    child_debits: BTreeMap<String, u64>,
}

fn cost_view(state: JsValue, what: &str) -> Result<CostView, JsValue> {
    if !state.is_object() {
        return Err(error(format!(
            "{what} must be a state object from rebuildState, got {}",
            type_name(&state)
        )));
    }
    // Only these fields: the state's messages need not cross again.
    let picked = js_sys::Object::new();
    for name in ["costUsd", "costIncomplete", "usage", "unreportedTokens", "childDebits"] {
        let value = js_sys::Reflect::get(&state, &name.into()).unwrap_or(JsValue::UNDEFINED);
        let _ = js_sys::Reflect::set(&picked, &name.into(), &value);
    }
    from_js(picked.into(), what)
}

#[wasm_bindgen(js_name = formatCost)]
pub fn format_cost(state: JsValue) -> Result<String, JsValue> {
    let v = cost_view(state, "formatCost(state): state")?;
    Ok(format_cost_parts(v.cost_usd, v.cost_incomplete))
}

#[wasm_bindgen(js_name = budgetNote, unchecked_return_type = "string | null")]
pub fn budget_note(state: JsValue) -> Result<JsValue, JsValue> {
    let v = cost_view(state, "budgetNote(state): state")?;
    let pending = v.child_debits.values().fold(0u64, |a, b| a.saturating_add(*b));
    let note = budget_note_parts(v.usage.tokens(), v.unreported_tokens, pending);
    Ok(note.map_or(JsValue::NULL, |n| JsValue::from_str(&n)))
}

// ---- Listing and ids -----------------------------------------------------

#[wasm_bindgen(js_name = summariseSession, unchecked_return_type = "SessionRow")]
pub fn summarise_session(id: JsValue, updated: JsValue, journal: JsValue) -> Result<JsValue, JsValue> {
    let id = text_arg(&id, "summariseSession(id, updated, journal): id")?;
    let updated = if let Some(s) = updated.as_string() {
        s
    } else if updated.is_instance_of::<js_sys::Date>() {
        js_sys::Date::from(updated).to_iso_string().into()
    } else {
        return Err(error(format!(
            "summariseSession(id, updated, journal): updated must be an ISO time string or a Date, got {}",
            type_name(&updated)
        )));
    };
    let state = replay_arg(&journal, "summariseSession(id, updated, journal): journal")?;
    let row = listing::summarise_state(&id, &updated, &state);
    parse_json(&row.to_json())
}

#[wasm_bindgen(js_name = validateSessionId)]
pub fn validate_session_id(id: JsValue) -> Result<bool, JsValue> {
    let id = text_arg(&id, "validateSessionId(id): id")?;
    Ok(listing::validate_session_id(&id))
}

#[wasm_bindgen(js_name = newSessionId)]
pub fn new_session_id(now: JsValue) -> Result<String, JsValue> {
    let millis = if now.is_undefined() || now.is_null() {
        js_sys::Date::now()
    } else if now.is_instance_of::<js_sys::Date>() {
        js_sys::Date::from(now).get_time()
    } else {
        return Err(error(format!("newSessionId(now): now must be a Date, got {}", type_name(&now))));
    };
    if !millis.is_finite() {
        return Err(error("newSessionId(now): now is an invalid Date"));
    }
    let random = [0; 4].map(|_: u8| (js_sys::Math::random() * 36.0) as u8);
    Ok(listing::new_session_id(millis as i64, random))
}

// ---- Resume ---------------------------------------------------------------

#[derive(Deserialize, Default)]
struct OriginView {
    #[serde(default)]
    redacted: bool,
    #[serde(default)]
    epoch: u32,
    #[serde(default)]
    line: u64,
    #[serde(default)]
    dropped: bool,
}

/// The parts of a JS state object resume reads: its messages (with their
/// origins), model and model epoch.
fn state_messages(
    state: &JsValue,
    what: &str,
) -> Result<(Vec<crate::state::Message>, Option<String>, u32), JsValue> {
    if !state.is_object() {
        return Err(error(format!(
            "{what} must be a state object from rebuildState, got {}",
            type_name(state)
        )));
    }
    let field = |name: &str| js_sys::Reflect::get(state, &name.into()).unwrap_or(JsValue::UNDEFINED);
    let messages = field("messages");
    if !js_sys::Array::is_array(&messages) {
        return Err(error(format!("{what}.messages must be an array of messages")));
    }
    let json = js_json(&messages, &format!("{what}.messages"))?;
    let raw: Vec<&serde_json::value::RawValue> =
        serde_json::from_str(&json).map_err(|e| error(format!("{what}.messages: {e}")))?;
    let origins: Vec<OriginView> = match field("messageOrigins") {
        v if js_sys::Array::is_array(&v) => from_js(v, &format!("{what}.messageOrigins"))?,
        _ => Vec::new(),
    };
    let epoch = field("epoch").as_f64().map_or(0, |e| e as u32);
    let messages = raw
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let o = origins.get(i);
            crate::state::Message {
                json: m.get().into(),
                origin: crate::state::Origin {
                    redacted: o.is_some_and(|o| o.redacted),
                    epoch: o.map_or(epoch, |o| o.epoch),
                    line: o.map_or(0, |o| o.line),
                    dropped: o.is_some_and(|o| o.dropped),
                },
            }
        })
        .collect();
    Ok((messages, field("model").as_string(), epoch))
}

#[derive(Deserialize, Default)]
struct ResumeArgs {
    model: Option<String>,
    thinking: Option<bool>,
}

fn resume_args(options: JsValue, what: &str) -> Result<resume::ResumeOptions, JsValue> {
    let args: ResumeArgs = if options.is_undefined() || options.is_null() {
        ResumeArgs::default()
    } else if options.is_object() {
        from_js(options, what)?
    } else {
        return Err(error(format!(
            "{what} must be an object like {{ model: \"…\" }}, got {}",
            type_name(&options)
        )));
    };
    Ok(resume::ResumeOptions { model: args.model, thinking: args.thinking })
}

fn resumed(state: JsValue, options: JsValue, name: &str) -> Result<resume::Resumed, JsValue> {
    let (messages, model, epoch) = state_messages(&state, &format!("{name}(state, options): state"))?;
    let mut options = resume_args(options, &format!("{name}(state, options): options"))?;
    if options.model.is_none() {
        options.model = model.clone();
    }
    Ok(resume::resume_messages(&messages, model.as_deref(), epoch, &options))
}

/// The messages to send after a resume (spec §6).
#[wasm_bindgen(js_name = resumeMessages, unchecked_return_type = "Message[]")]
pub fn resume_messages(state: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    let r = resumed(state, options, "resumeMessages")?;
    parse_json(&format!("[{}]", r.messages_json().join(",")))
}

/// `resumeMessages` with the repair report.
#[wasm_bindgen(js_name = repairForResume, unchecked_return_type = "{ messages: Message[]; report: RepairReport }")]
pub fn repair_for_resume(state: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    parse_json(&resumed(state, options, "repairForResume")?.to_json())
}

/// The synthetic `tool_results` record for the last assistant message's
/// open tool calls, or null.
#[wasm_bindgen(js_name = closeOpenToolCalls, unchecked_return_type = "JournalRecord | null")]
pub fn close_open_tool_calls(state: JsValue) -> Result<JsValue, JsValue> {
    let (messages, _, _) = state_messages(&state, "closeOpenToolCalls(state): state")?;
    let state = crate::state::SessionState { messages, ..Default::default() };
    let now: String = js_sys::Date::new_0().to_iso_string().into();
    match resume::close_open_tool_calls(&state, &now) {
        Some(record) => parse_json(&record),
        None => Ok(JsValue::NULL),
    }
}

/// The problems for which the API would answer 400.
#[wasm_bindgen(js_name = checkMessages, unchecked_return_type = "MessageProblem[]")]
pub fn check_messages(messages: JsValue, options: JsValue) -> Result<JsValue, JsValue> {
    if !js_sys::Array::is_array(&messages) {
        return Err(error(format!(
            "checkMessages(messages, options): messages must be an array, got {}",
            type_name(&messages)
        )));
    }
    let thinking = if options.is_object() {
        js_sys::Reflect::get(&options, &"thinking".into()).ok().and_then(|t| t.as_bool()).unwrap_or(false)
    } else {
        false
    };
    let json = js_json(&messages, "checkMessages(messages, options): messages")?;
    let raw: Vec<&serde_json::value::RawValue> =
        serde_json::from_str(&json).map_err(|e| error(format!("checkMessages(messages, options): {e}")))?;
    let texts: Vec<String> = raw.iter().map(|m| m.get().to_owned()).collect();
    let problems: Vec<String> =
        resume::check_messages(&texts, thinking).iter().map(resume::Problem::to_json).collect();
    parse_json(&format!("[{}]", problems.join(",")))
}
