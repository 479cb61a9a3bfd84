//! Bindings: truncateToolOutput, pruneOldToolOutputs (src/context/).
//! Options are checked field by field: an unknown field or a value of the
//! wrong type is ERR_INVALID_ARG naming it.

use super::*;
use crate::context::prune::{
    plan, BlockView, MessageView, PLACEHOLDER_MARK, PLACEHOLDER_PREFIX, THINKING_LEFT_OUT,
};
use crate::context::{truncate_tool_output, Limits, PruneOptions, Pruned};
use crate::resume::message::{Kind, Role};

/// An options object's fields, each read as its JSON text. One parse for
/// every option struct here: a serde derive per struct cost the module
/// about 10 KB gzipped (each monomorphises serde_json's struct reader).
struct Fields {
    json: String,
    what: String,
}

impl Fields {
    fn of(v: JsValue, what: &str) -> Result<Fields, JsValue> {
        if v.is_undefined() || v.is_null() {
            return Ok(Fields { json: "{}".into(), what: what.into() });
        }
        if !v.is_object() || js_sys::Array::is_array(&v) {
            return Err(error(format!("{what} must be an object, got {}", type_name(&v))));
        }
        Ok(Fields { json: js_json(&v, what)?, what: what.into() })
    }

    /// Checks that every field is one of `known`, then hands each to `each`.
    fn read(
        &self,
        known: &[&str],
        mut each: impl FnMut(&str, &str) -> Result<(), String>,
    ) -> Result<(), JsValue> {
        let parts: crate::record::MessageParts = serde_json::from_str(&self.json)
            .map_err(|_| error(format!("{} must be a plain object", self.what)))?;
        for (key, value) in parts.fields() {
            if !known.contains(&key.as_ref()) {
                return Err(error(format!(
                    "{}: unknown option `{key}` (known: {})",
                    self.what,
                    known.join(", ")
                )));
            }
            if value.get() == "null" {
                continue;
            }
            each(key, value.get()).map_err(|e| error(format!("{}.{key} {e}", self.what)))?;
        }
        Ok(())
    }
}

/// A whole number of at most 2^32 - 1, as JSON text.
fn count(json: &str) -> Result<usize, String> {
    json.parse::<u32>()
        .map(|n| n as usize)
        .map_err(|_| format!("must be a whole number from 0 to 2^32 - 1, got {json}"))
}

fn string(json: &str) -> Result<String, String> {
    serde_json::from_str::<String>(json).map_err(|_| format!("must be a string, got {json}"))
}

/// A tool output too large for the context, cut to its first and last
/// lines with a note of what went (50 KB or 2,000 lines; 200 and 500 lines).
#[wasm_bindgen(js_name = truncateToolOutput, unchecked_return_type = "TruncatedOutput")]
pub fn truncate(
    output: JsValue,
    #[wasm_bindgen(unchecked_param_type = "TruncateOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let what = "truncateToolOutput(output, options)";
    let text = text_arg(&output, &format!("{what}: output"))?;
    let mut limits = Limits::default();
    let mut full_at = None;
    Fields::of(opts, &format!("{what}: options"))?.read(
        &["maxBytes", "maxLines", "headLines", "tailLines", "fullOutputAt"],
        |key, v| {
            match key {
                "maxBytes" => limits.max_bytes = count(v)?,
                "maxLines" => limits.max_lines = count(v)?,
                "headLines" => limits.head_lines = count(v)?,
                "tailLines" => limits.tail_lines = count(v)?,
                _ => full_at = Some(string(v)?),
            }
            Ok(())
        },
    )?;
    let t = truncate_tool_output(&text, &limits, full_at.as_deref());
    let out = js_sys::Object::new();
    // Untruncated: the caller's own string back, no copy out of wasm.
    let text = if t.truncated { JsValue::from_str(&t.text) } else { output };
    let _ = js_sys::Reflect::set(&out, &"text".into(), &text);
    let _ = js_sys::Reflect::set(&out, &"truncated".into(), &t.truncated.into());
    let _ = js_sys::Reflect::set(&out, &"omittedLines".into(), &(t.omitted_lines as f64).into());
    let _ = js_sys::Reflect::set(&out, &"omittedBytes".into(), &(t.omitted_bytes as f64).into());
    Ok(out.into())
}

#[wasm_bindgen(module = "/src/wasm/js/prune.js")]
extern "C" {
    // The walk over the caller's objects and the copy that carries out the
    // plan, in JS (js/prune.js says why): two boundary calls for a history.
    #[wasm_bindgen(js_name = pruneFacts)]
    fn prune_facts(messages: &js_sys::Array, prefix: &str, mark: &str) -> js_sys::Array;
    #[wasm_bindgen(js_name = pruneApply)]
    fn prune_apply(messages: &js_sys::Array, plan: &[u32], texts: &str, left_out: &str) -> js_sys::Array;
}

// js/prune.js's codes.
const HAS_ID: u32 = 8;
const HAS_NAME: u32 = 16;
const PLACEHOLDER: u32 = 32;

fn kind(code: u32) -> Kind {
    match code & 7 {
        1 => Kind::ToolResult,
        2 => Kind::ToolUse,
        3 => Kind::Text,
        4 => Kind::Thinking,
        5 => Kind::RedactedThinking,
        _ => Kind::Other,
    }
}

/// The next `units` UTF-16 units of `rest` (JS lengths), split off.
fn take<'a>(rest: &mut &'a str, units: u32) -> &'a str {
    let mut n = 0u32;
    let mut end = rest.len();
    for (at, c) in rest.char_indices() {
        if n >= units {
            end = at;
            break;
        }
        n += c.len_utf16() as u32;
    }
    let (head, tail) = rest.split_at(end);
    *rest = tail;
    head
}

/// The messages' views from js/prune.js's codes; None where the codes run
/// short (they cannot, but a wrong count must not panic).
fn views<'a>(
    codes: &[u32],
    mut strings: &'a str,
    lengths: &[u32],
    n: usize,
) -> Option<Vec<Option<MessageView<'a>>>> {
    let mut out = Vec::with_capacity(n);
    let mut c = codes.iter().copied();
    let mut len = lengths.iter().copied();
    let mut text =
        |len: &mut dyn Iterator<Item = u32>| -> Option<&'a str> { Some(take(&mut strings, len.next()?)) };
    for _ in 0..n {
        let role = match c.next()? {
            1 => Role::User,
            2 => Role::Assistant,
            _ => {
                out.push(None);
                continue;
            }
        };
        let count = c.next()? as usize;
        let mut blocks = Vec::with_capacity(count.min(codes.len()));
        for _ in 0..count {
            let code = c.next()?;
            let id = if code & HAS_ID != 0 { Some(text(&mut len)?) } else { None };
            let name = if code & HAS_NAME != 0 { Some(text(&mut len)?) } else { None };
            let size = c.next()? as usize;
            let images = c.next()? as usize;
            blocks.push(BlockView {
                kind: kind(code),
                id,
                name,
                size,
                images,
                placeholder: code & PLACEHOLDER != 0,
            });
        }
        out.push(Some(MessageView { role, blocks }));
    }
    Some(out)
}

/// The new array and the report. The core decides (`context::prune::plan`)
/// from each message's shape; only the messages it changes are copied
/// (shallowly), the rest are the caller's own.
fn pruned(messages: JsValue, opts: JsValue, name: &str) -> Result<(js_sys::Array, Pruned), JsValue> {
    let what = format!("{name}(messages, options)");
    if !js_sys::Array::is_array(&messages) {
        return Err(error(format!("{what}: messages must be an array, got {}", type_name(&messages))));
    }
    let mut options = PruneOptions { protect_turns: 2, ..Default::default() };
    Fields::of(opts, &format!("{what}: options"))?.read(&["protectTurns", "kept"], |key, v| {
        if key == "protectTurns" {
            options.protect_turns = count(v)?;
            return Ok(());
        }
        let kept: crate::record::MessageParts =
            serde_json::from_str(v).map_err(|_| "must be an object of tool_use id to place".to_owned())?;
        for (id, at) in kept.fields() {
            options.kept.push((id.to_string(), string(at.get())?));
        }
        Ok(())
    })?;
    let input: &js_sys::Array = messages.unchecked_ref();
    let shapes = prune_facts(input, PLACEHOLDER_PREFIX, PLACEHOLDER_MARK);
    let codes = shapes.get(0).unchecked_into::<js_sys::Uint32Array>().to_vec();
    let strings = shapes.get(1).as_string().unwrap_or_default();
    let lengths = shapes.get(2).unchecked_into::<js_sys::Uint32Array>().to_vec();
    let views = views(&codes, &strings, &lengths, input.length() as usize)
        .ok_or_else(|| error(format!("{what}: the messages changed while they were read")))?;
    let mut report = Pruned::default();
    let plan = plan(&views, &options, &mut report);
    let mut codes: Vec<u32> =
        Vec::with_capacity(3 + 3 * plan.replace.len() + 2 * plan.drop.len() + plan.fill.len());
    let mut texts = String::new();
    codes.push(plan.replace.len() as u32);
    for (i, j, text) in &plan.replace {
        codes.extend([*i as u32, *j as u32, text.encode_utf16().count() as u32]);
        texts.push_str(text);
    }
    codes.push(plan.drop.len() as u32);
    for (i, j) in &plan.drop {
        codes.extend([*i as u32, *j as u32]);
    }
    codes.push(plan.fill.len() as u32);
    codes.extend(plan.fill.iter().map(|&i| i as u32));
    Ok((prune_apply(input, &codes, &texts, THINKING_LEFT_OUT), report))
}

/// Older tool results as placeholders that say how to get the data back;
/// the last `protectTurns` turns (2) whole. A new array: the input is unchanged.
#[wasm_bindgen(js_name = pruneOldToolOutputs, unchecked_return_type = "Message[]")]
pub fn prune(
    #[wasm_bindgen(unchecked_param_type = "readonly Message[]")] messages: JsValue,
    #[wasm_bindgen(unchecked_param_type = "PruneOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    Ok(pruned(messages, opts, "pruneOldToolOutputs")?.0.into())
}

/// `pruneOldToolOutputs` with its report (results pruned, tokens saved).
#[wasm_bindgen(js_name = pruneOldToolOutputsWithReport, unchecked_return_type = "{ messages: Message[]; report: PruneReport }")]
pub fn prune_with_report(
    #[wasm_bindgen(unchecked_param_type = "readonly Message[]")] messages: JsValue,
    #[wasm_bindgen(unchecked_param_type = "PruneOptions | undefined")] opts: JsValue,
) -> Result<JsValue, JsValue> {
    let (messages, report) = pruned(messages, opts, "pruneOldToolOutputsWithReport")?;
    let out = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&out, &"messages".into(), &messages);
    let _ = js_sys::Reflect::set(&out, &"report".into(), &parse_json(&report.report_json())?);
    Ok(out.into())
}
