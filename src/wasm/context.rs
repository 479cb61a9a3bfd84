//! Bindings: truncateToolOutput, pruneOldToolOutputs (src/context/).
//! Options are checked field by field: an unknown field or a value of the
//! wrong type is ERR_INVALID_ARG naming it.

use super::*;
use crate::context::prune::{plan, BlockView, MessageView, PLACEHOLDER_PREFIX, THINKING_LEFT_OUT};
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

/// One block's facts read off the JS object (owned: JS strings copied once).
struct Facts {
    kind: Kind,
    id: Option<String>,
    name: Option<String>,
    size: usize,
    images: usize,
    placeholder: bool,
}

/// The JS strings pruning reads with, made once: a key made from a Rust
/// `&str` is decoded from wasm memory at every use, which was most of
/// pruning's time (20,000 messages: 90 of 130 ms).
struct Keys {
    role: JsValue,
    content: JsValue,
    kind: JsValue,
    id: JsValue,
    name: JsValue,
    tool_use_id: JsValue,
    text: JsValue,
    source: JsValue,
    data: JsValue,
    user: JsValue,
    assistant: JsValue,
    image: JsValue,
    types: [(JsValue, Kind); 5],
    prefix: js_sys::JsString,
    mark: js_sys::JsString,
}

thread_local! {
    static KEYS: Keys = Keys {
        role: "role".into(),
        content: "content".into(),
        kind: "type".into(),
        id: "id".into(),
        name: "name".into(),
        tool_use_id: "tool_use_id".into(),
        text: "text".into(),
        source: "source".into(),
        data: "data".into(),
        user: "user".into(),
        assistant: "assistant".into(),
        image: "image".into(),
        types: [
            ("tool_result".into(), Kind::ToolResult),
            ("tool_use".into(), Kind::ToolUse),
            ("text".into(), Kind::Text),
            ("thinking".into(), Kind::Thinking),
            ("redacted_thinking".into(), Kind::RedactedThinking),
        ],
        prefix: PLACEHOLDER_PREFIX.into(),
        mark: ") pruned to keep the context small.".into(),
    };
}

#[wasm_bindgen]
extern "C" {
    // A JS string whose startsWith and includes take a kept JS string
    // (js-sys's take a Rust `&str`, decoded at every call).
    type Text;
    #[wasm_bindgen(method, js_name = startsWith)]
    fn starts_with(this: &Text, search: &js_sys::JsString) -> bool;
    #[wasm_bindgen(method, js_name = includes)]
    fn includes(this: &Text, search: &js_sys::JsString) -> bool;
}

fn field(v: &JsValue, key: &JsValue) -> JsValue {
    js_sys::Reflect::get(v, key).unwrap_or(JsValue::UNDEFINED)
}

fn kind_of(k: &Keys, t: &JsValue) -> Kind {
    k.types.iter().find(|(name, _)| name == t).map_or(Kind::Other, |(_, kind)| *kind)
}

/// A tool result's content: its size in characters, its images, whether
/// it is a placeholder. Read in place: the content is never copied into
/// wasm (a history's results are most of its bytes).
fn content_facts(k: &Keys, content: &JsValue) -> (usize, usize, bool) {
    if let Some(s) = content.dyn_ref::<js_sys::JsString>() {
        let t: &Text = s.unchecked_ref();
        let placeholder = t.starts_with(&k.prefix) && t.includes(&k.mark);
        return (s.length() as usize + 2, 0, placeholder);
    }
    if !js_sys::Array::is_array(content) {
        return (0, 0, false);
    }
    let (mut size, mut images) = (2, 0);
    for b in content.unchecked_ref::<js_sys::Array>().iter() {
        size += 32;
        if field(&b, &k.kind) == k.image {
            images += 1;
        }
        for text in [field(&b, &k.text), field(&field(&b, &k.source), &k.data)] {
            if let Some(s) = text.dyn_ref::<js_sys::JsString>() {
                size += s.length() as usize;
            }
        }
    }
    (size, images, false)
}

/// A message's role and blocks' facts, or None when it is not a message.
fn message_facts(k: &Keys, m: &JsValue) -> Option<(Role, Vec<Facts>)> {
    let role = field(m, &k.role);
    let role = if role == k.user {
        Role::User
    } else if role == k.assistant {
        Role::Assistant
    } else {
        return None;
    };
    let content = field(m, &k.content);
    if let Some(s) = content.dyn_ref::<js_sys::JsString>() {
        let blank = s.trim().length() == 0;
        let text = Facts { kind: Kind::Text, id: None, name: None, size: 0, images: 0, placeholder: false };
        return Some((role, if blank { Vec::new() } else { vec![text] }));
    }
    if !js_sys::Array::is_array(&content) {
        return None;
    }
    let blocks = content
        .unchecked_ref::<js_sys::Array>()
        .iter()
        .map(|b| {
            let kind = kind_of(k, &field(&b, &k.kind));
            let mut f = Facts { kind, id: None, name: None, size: 0, images: 0, placeholder: false };
            match kind {
                Kind::ToolUse => {
                    f.id = field(&b, &k.id).as_string();
                    f.name = field(&b, &k.name).as_string();
                }
                Kind::ToolResult => {
                    f.id = field(&b, &k.tool_use_id).as_string();
                    (f.size, f.images, f.placeholder) = content_facts(k, &field(&b, &k.content));
                }
                _ => {}
            }
            f
        })
        .collect();
    Some((role, blocks))
}

/// A shallow copy of a JS object (its own enumerable fields, in order).
fn copy(v: &JsValue) -> js_sys::Object {
    js_sys::Object::assign(&js_sys::Object::new(), &js_sys::Object::from(v.clone()))
}

/// The new array and the report. The core decides (`context::prune::plan`)
/// from each message's facts, read off the JS objects; only the messages
/// it changes are copied (shallowly), the rest are the caller's own.
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
    // Viewed, not converted: js_sys::Array::from is JS's Array.from, a copy
    // of every array it is given (it was a tenth of pruning's time).
    let input: &js_sys::Array = messages.unchecked_ref();
    let facts: Vec<Option<(Role, Vec<Facts>)>> =
        KEYS.with(|k| input.iter().map(|m| message_facts(k, &m)).collect());
    let views: Vec<Option<MessageView>> = facts
        .iter()
        .map(|m| {
            m.as_ref().map(|(role, blocks)| MessageView {
                role: *role,
                blocks: blocks
                    .iter()
                    .map(|f| BlockView {
                        kind: f.kind,
                        id: f.id.as_deref(),
                        name: f.name.as_deref(),
                        size: f.size,
                        images: f.images,
                        placeholder: f.placeholder,
                    })
                    .collect(),
            })
        })
        .collect();
    let mut report = Pruned::default();
    let plan = plan(&views, &options, &mut report);
    let out = input.slice(0, input.length());
    // Each changed message: a copy with a copy of its content array.
    let mut copies: Vec<(usize, js_sys::Object, js_sys::Array)> = Vec::new();
    let mut slot = vec![u32::MAX; facts.len()];
    let mut copy_of = |i: usize, copies: &mut Vec<(usize, js_sys::Object, js_sys::Array)>| -> usize {
        if slot[i] != u32::MAX {
            return slot[i] as usize;
        }
        let m = input.get(i as u32);
        let content = KEYS.with(|k| field(&m, &k.content));
        // The plan changes only messages whose content it read as an array.
        let content =
            if js_sys::Array::is_array(&content) { content.unchecked_into() } else { js_sys::Array::new() };
        copies.push((i, copy(&m), content.slice(0, content.length())));
        slot[i] = (copies.len() - 1) as u32;
        copies.len() - 1
    };
    for (i, j, text) in &plan.replace {
        let k = copy_of(*i, &mut copies);
        let content = &copies[k].2;
        let block = copy(&content.get(*j as u32));
        KEYS.with(|k| js_sys::Reflect::set(&block, &k.content, &JsValue::from_str(text))).ok();
        content.set(*j as u32, block.into());
    }
    // Thinking dropped: each such message's blocks again without them.
    let mut at = 0;
    while at < plan.drop.len() {
        let i = plan.drop[at].0;
        let k = copy_of(i, &mut copies);
        let kept = js_sys::Array::new();
        for (j, b) in copies[k].2.iter().enumerate() {
            if plan.drop[at..].iter().take_while(|(m, _)| *m == i).any(|&(_, d)| d == j) {
                continue;
            }
            kept.push(&b);
        }
        copies[k].2 = kept;
        while at < plan.drop.len() && plan.drop[at].0 == i {
            at += 1;
        }
    }
    for i in &plan.fill {
        let k = copy_of(*i, &mut copies);
        let text = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&text, &"type".into(), &"text".into());
        let _ = js_sys::Reflect::set(&text, &"text".into(), &THINKING_LEFT_OUT.into());
        copies[k].2.push(&text);
    }
    for (i, m, content) in copies {
        KEYS.with(|k| js_sys::Reflect::set(&m, &k.content, &content)).ok();
        out.set(i as u32, m.into());
    }
    Ok((out, report))
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
