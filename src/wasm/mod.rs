//! The JavaScript surface (spec §8). The only module that knows about JS:
//! this file holds the shared argument checks and string transfer;
//! `redactor`, `journal` (the Journal, the transcript), `replay`
//! (rebuildState, importSession) and `functions`
//! (accounting, listing, resume) hold the bindings.
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

mod context;
mod doctor;
mod doctor_stream;
mod functions;
mod grow;
mod journal;
mod redactor;
mod replay;

pub use context::*;
pub use doctor::*;
pub use functions::*;
pub use journal::*;
pub use redactor::*;
pub use replay::*;

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

/// The boolean option `name` of `options` (an object): false when absent,
/// an error naming it when it is anything but true or false. `what` names
/// the options in the message ("new Journal(options): options").
fn flag(options: &JsValue, name: &str, what: &str) -> Result<bool, JsValue> {
    let v = js_sys::Reflect::get(options, &name.into()).unwrap_or(JsValue::UNDEFINED);
    match v.as_bool() {
        Some(b) => Ok(b),
        None if v.is_undefined() => Ok(false),
        None => Err(error(format!("{what}.{name} must be true or false, got {}", type_name(&v)))),
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

/// Calls `each` with a JS string's text a chunk at a time (`CHUNK_UNITS`),
/// encoded into one reused buffer: the whole string is never in wasm
/// memory twice. A chunk never ends between the halves of a surrogate
/// pair. Stops at the first error `each` returns.
fn js_chunks(
    text: &js_sys::JsString,
    mut each: impl FnMut(&str) -> Result<(), JsValue>,
) -> Result<(), JsValue> {
    let len = text.length();
    // A UTF-16 unit becomes at most 3 UTF-8 bytes.
    let mut buf = vec![0u8; 3 * CHUNK_UNITS.min(len) as usize];
    let mut start = 0;
    while start < len {
        let mut end = start.saturating_add(CHUNK_UNITS).min(len);
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
        each(unsafe { std::str::from_utf8_unchecked(bytes) })?;
        start = end;
    }
    Ok(())
}

/// Feeds a JS string to a journal in chunks, without ever holding all of it
/// in wasm memory.
fn feed_js_string(
    journal: &mut CoreJournal,
    text: &js_sys::JsString,
    mut starts: Option<&mut crate::lines::LineStarts>,
    what: &str,
) -> Result<(), JsValue> {
    js_chunks(text, |chunk| {
        if let Some(starts) = starts.as_deref_mut() {
            starts.add(chunk.as_bytes());
        }
        journal.feed(chunk);
        room(what)
    })
}

/// Bytes per chunk when a Uint8Array is fed: the input is never copied into
/// wasm memory whole (a 1 GB file would be a quarter of the address space).
const CHUNK_BYTES: u32 = 8 << 20;

/// Feeds a JS Uint8Array to a journal a chunk at a time.
fn feed_js_bytes(journal: &mut CoreJournal, bytes: &js_sys::Uint8Array, what: &str) -> Result<(), JsValue> {
    let len = bytes.length();
    let mut start = 0;
    while start < len {
        let end = start.saturating_add(CHUNK_BYTES).min(len);
        // A copy per chunk, not one zeroed buffer reused: zeroing it cost
        // more than the allocation (the allocator hands back the same block).
        let chunk = bytes.subarray(start, end).to_vec();
        journal.feed_bytes(&chunk);
        drop(chunk);
        room(what)?;
        start = end;
    }
    Ok(())
}

/// ERR_INPUT_TOO_LARGE once the module's memory is near wasm32's 4 GiB: a
/// failed allocation would abort the module, so whole-input calls stop
/// first and say what to do instead.
fn room(what: &str) -> Result<(), JsValue> {
    if grow::near_limit() {
        return Err(too_large(what, IN_PARTS));
    }
    Ok(())
}

/// What a journal too large for one call is read with.
const IN_PARTS: &str = "read it in parts: Journal.feed, then figures or messagesFrom";

/// V8's longest string, 2^29 - 24 UTF-16 units: a UTF-8 text over this many
/// bytes may not fit in one (a byte is at most one unit).
const MAX_JS_STRING: usize = (1 << 29) - 24;

fn too_large(what: &str, instead: &str) -> JsValue {
    coded(
        "ERR_INPUT_TOO_LARGE",
        format!("{what}: too large for one call (the module's memory is wasm32's 4 GiB, a JS string holds 512 MiB); {instead}"),
    )
}

/// A JS string as Rust text. Long strings go through `encodeInto` (a
/// native copy), a chunk at a time (`js_chunks`); short ones
/// through the glue (less per-call set-up).
///
/// Why chunks: encoded whole, the string needed a zeroed buffer of three
/// bytes per unit, kept as the text's capacity, and a UTF-8 check of what
/// `encodeInto` wrote. `redactJournal` of a 100 MB journal zeroed 300 MB
/// and checked 100 MB again: in a fresh process (the CLI's case) the call
/// took 1.76-2.06 s and peaked at 660 MB RSS; now 1.48-1.74 s and 466 MB
/// (repeated calls in one process, whose memory is grown already: 2%).
/// One 3 MB buffer is zeroed, each chunk is copied once more, and the text
/// holds about what it needs.
fn js_text(value: &JsValue) -> Option<String> {
    let text = value.dyn_ref::<js_sys::JsString>()?;
    let len = text.length();
    if len < 256 {
        return text.as_string();
    }
    // A unit is at least one byte: exact for ASCII, which journals mostly are.
    let mut out = String::with_capacity(len as usize);
    js_chunks(text, |chunk| {
        out.push_str(chunk);
        Ok(())
    })
    .ok()?;
    Some(out)
}

thread_local! {
    /// The buffer `with_js_text` encodes records into, kept between calls:
    /// allocating and zeroing three bytes per unit for every `write` was a
    /// tenth of a 1 KB record's cost.
    static SCRATCH: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Records up to this size (in UTF-16 units) are encoded into `SCRATCH`;
/// longer ones get a buffer of their own, so the kept one stays small.
const SCRATCH_UNITS: usize = 64 * 1024;

/// Calls `f` with a JS string as Rust text, without copying it into a
/// `String` of its own: what `write` needs for each record.
fn with_js_text<R>(value: &JsValue, f: impl FnOnce(&str) -> R) -> Option<R> {
    let text = value.dyn_ref::<js_sys::JsString>()?;
    let len = text.length() as usize;
    if !(256..=SCRATCH_UNITS).contains(&len) {
        return js_text(value).map(|s| f(&s));
    }
    SCRATCH.with(|cell| {
        // Taken out while in use: a call made inside `f` (there is none
        // today) would find it empty and only allocate.
        let mut buf = std::mem::take(&mut *cell.borrow_mut());
        if buf.len() < 3 * len {
            buf.resize(3 * len, 0);
        }
        let written = encode_into(text, &mut buf[..3 * len]);
        let out = std::str::from_utf8(&buf[..written]).ok().map(f);
        *cell.borrow_mut() = buf;
        out
    })
}

fn text_arg(v: &JsValue, what: &str) -> Result<String, JsValue> {
    js_text(v).ok_or_else(|| error(format!("{what} must be a string, got {}", type_name(v))))
}
