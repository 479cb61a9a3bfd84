//! Bindings: truncateToolOutput, pruneOldToolOutputs (src/context/).
//! Options are read through serde (`from_js`), each field checked there:
//! an unknown field or a value of the wrong type is ERR_INVALID_ARG.

use super::*;
use crate::context::{prune_old_tool_outputs, truncate_tool_output, Limits, PruneOptions};

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct TruncateArgs {
    max_bytes: Option<u32>,
    max_lines: Option<u32>,
    head_lines: Option<u32>,
    tail_lines: Option<u32>,
    /// Where the whole output was kept (what `keepFullOutput` returned).
    full_output_at: Option<String>,
}

fn options<T: for<'de> Deserialize<'de> + Default>(v: JsValue, what: &str) -> Result<T, JsValue> {
    if v.is_undefined() || v.is_null() {
        return Ok(T::default());
    }
    if !v.is_object() || js_sys::Array::is_array(&v) {
        return Err(error(format!("{what} must be an object, got {}", type_name(&v))));
    }
    from_js(v, what)
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
    let args: TruncateArgs = options(opts, &format!("{what}: options"))?;
    let d = Limits::default();
    let limits = Limits {
        max_bytes: args.max_bytes.map_or(d.max_bytes, |n| n as usize),
        max_lines: args.max_lines.map_or(d.max_lines, |n| n as usize),
        head_lines: args.head_lines.map_or(d.head_lines, |n| n as usize),
        tail_lines: args.tail_lines.map_or(d.tail_lines, |n| n as usize),
    };
    let t = truncate_tool_output(&text, &limits, args.full_output_at.as_deref());
    let out = js_sys::Object::new();
    // Untruncated: the caller's own string back, no copy out of wasm.
    let text = if t.truncated { JsValue::from_str(&t.text) } else { output };
    let _ = js_sys::Reflect::set(&out, &"text".into(), &text);
    let _ = js_sys::Reflect::set(&out, &"truncated".into(), &t.truncated.into());
    let _ = js_sys::Reflect::set(&out, &"omittedLines".into(), &(t.omitted_lines as f64).into());
    let _ = js_sys::Reflect::set(&out, &"omittedBytes".into(), &(t.omitted_bytes as f64).into());
    Ok(out.into())
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct PruneArgs {
    #[serde(default = "two")]
    protect_turns: u32,
    #[serde(default)]
    kept: std::collections::HashMap<String, String>,
}

fn two() -> u32 {
    2
}

impl Default for PruneArgs {
    fn default() -> PruneArgs {
        PruneArgs { protect_turns: 2, kept: Default::default() }
    }
}

/// The new array and the report: the messages pruning did not change are
/// the caller's own objects (no copy crosses back for them).
fn pruned(messages: JsValue, opts: JsValue, name: &str) -> Result<(js_sys::Array, JsValue), JsValue> {
    let what = format!("{name}(messages, options)");
    if !js_sys::Array::is_array(&messages) {
        return Err(error(format!("{what}: messages must be an array, got {}", type_name(&messages))));
    }
    let args: PruneArgs = options(opts, &format!("{what}: options"))?;
    let json = js_json(&messages, &format!("{what}: messages"))?;
    let raw: Vec<&serde_json::value::RawValue> =
        serde_json::from_str(&json).map_err(|e| error(format!("{what}: messages: {e}")))?;
    let texts: Vec<&str> = raw.iter().map(|m| m.get()).collect();
    let p = prune_old_tool_outputs(&texts, &PruneOptions { protect_turns: args.protect_turns as usize, kept: args.kept });
    let parsed = parse_json(&p.to_json())?;
    let out = js_sys::Array::from(&messages).slice(0, js_sys::Array::from(&messages).length());
    let replaced = js_sys::Array::from(&js_sys::Reflect::get(&parsed, &"replaced".into()).unwrap_or_default());
    for pair in replaced.iter() {
        let pair = js_sys::Array::from(&pair);
        let index = pair.get(0).as_f64().unwrap_or(-1.0);
        if index >= 0.0 {
            out.set(index as u32, pair.get(1));
        }
    }
    Ok((out, js_sys::Reflect::get(&parsed, &"report".into()).unwrap_or_default()))
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
    let _ = js_sys::Reflect::set(&out, &"report".into(), &report);
    Ok(out.into())
}
