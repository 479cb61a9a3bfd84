//! Bindings: rebuildState and importSession (a whole journal in, a state or
//! a Garuda journal out), and the read options they share with new Journal.

use super::journal::corrupt;
use super::*;

/// How a journal is read: `{ format, prices }` of rebuildState and new Journal.
#[derive(Default, Clone)]
pub(super) struct ReadOptions {
    format: Option<crate::formats::Format>,
    /// Keep the whole history (`state.history`).
    history: bool,
    prices: Option<std::rc::Rc<crate::prices::Prices>>,
    /// One child run inside the file (a Claude Code sidechain's Task call).
    run: Option<String>,
    /// `strict: true` (rebuildState): fail closed on the first malformed or
    /// unknown line (src/context/strict.rs).
    strict: bool,
}

impl ReadOptions {
    pub(super) fn from_js(options: &JsValue, what: &str) -> Result<ReadOptions, JsValue> {
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
        out.history = flag(options, "history", what)?;
        let run = js_sys::Reflect::get(options, &"run".into()).unwrap_or(JsValue::UNDEFINED);
        if !run.is_undefined() {
            out.run = Some(run.as_string().filter(|r| !r.is_empty()).ok_or_else(|| {
                error(format!("{what}.run must be a tool call's id (a string), got {}", type_name(&run)))
            })?);
        }
        out.strict = flag(options, "strict", what)?;
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

    pub(super) fn apply(&self, mut journal: CoreJournal) -> CoreJournal {
        if let Some(f) = self.format {
            journal = journal.with_format(f);
        }
        if let Some(p) = &self.prices {
            journal = journal.with_prices(p.clone());
        }
        if self.history {
            journal = journal.with_history();
        }
        if let Some(id) = &self.run {
            journal = journal.with_run(id);
        }
        journal
    }

    fn journal(&self) -> CoreJournal {
        self.apply(CoreJournal::default())
    }
}

/// A journal argument: the whole text, its bytes (a file as read, no
/// decoding needed), or an array of lines.
pub(super) fn replay_arg(journal: &JsValue, what: &str) -> Result<SessionState, JsValue> {
    replay_with(journal, what, &ReadOptions::default())
}

fn replay_with(journal: &JsValue, what: &str, options: &ReadOptions) -> Result<SessionState, JsValue> {
    replay_counting(journal, what, options).map(|(state, _)| state)
}

/// The replayed state and how many lines were read.
fn replay_counting(
    journal: &JsValue,
    what: &str,
    options: &ReadOptions,
) -> Result<(SessionState, u64), JsValue> {
    let done = |replay: CoreJournal| {
        let lines = replay.line_count();
        (replay.into_state(), lines)
    };
    if let Some(text) = journal.dyn_ref::<js_sys::JsString>() {
        let mut replay = options.journal();
        feed_js_string(&mut replay, text, None, what)?;
        replay.finish();
        room(what)?;
        return Ok(done(replay));
    }
    if journal.is_instance_of::<js_sys::Uint8Array>() {
        let mut replay = options.journal();
        feed_js_bytes(&mut replay, journal.unchecked_ref(), what)?;
        replay.finish();
        room(what)?;
        return Ok(done(replay));
    }
    if !js_sys::Array::is_array(journal) {
        return Err(error(format!(
            "{what} must be a string, a Uint8Array or an array of lines, got {}",
            type_name(journal)
        )));
    }
    // Viewed, not converted: js_sys::Array::from is JS's Array.from, a copy.
    let lines: &js_sys::Array = journal.unchecked_ref();
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
    Ok(done(replay))
}

#[wasm_bindgen(js_name = rebuildState, unchecked_return_type = "SessionState")]
pub fn rebuild_state(
    journal: JsValue,
    #[wasm_bindgen(unchecked_param_type = "ReadOptions | undefined")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let options = ReadOptions::from_js(&options, "rebuildState(journal, options): options")?;
    let (state, lines) = replay_counting(&journal, "rebuildState(journal, options): journal", &options)?;
    if options.strict {
        // Lines read: the torn tail, when there is one, is the last of them.
        if let Some(c) = crate::context::corruption(&state, lines) {
            return Err(corrupt("rebuildState(journal, { strict: true })", &c));
        }
    }
    state_json(&state, "rebuildState(journal, options)")
}

/// The state as one JSON text for JS, or ERR_INPUT_TOO_LARGE when it would
/// not fit in wasm memory or in one JS string: checked before it is written,
/// since a failed allocation aborts the module.
fn state_json(state: &SessionState, what: &str) -> Result<JsValue, JsValue> {
    let size = state.json_size_hint();
    if size > MAX_JS_STRING {
        return Err(too_large(what, IN_PARTS));
    }
    let mut out = String::new();
    out.try_reserve(size).map_err(|_| too_large(what, IN_PARTS))?;
    state.write_json(&mut out);
    parse_json(&out)
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
    let redactor = match redactor_of(&options, what)? {
        Some(r) => r,
        None => std::rc::Rc::new(CoreRedactor::default()),
    };
    let mut j = read.journal().keeping_translation();
    if let Some(text) = journal.dyn_ref::<js_sys::JsString>() {
        feed_js_string(&mut j, text, None, what)?;
    } else if journal.is_instance_of::<js_sys::Uint8Array>() {
        feed_js_bytes(&mut j, journal.unchecked_ref(), what)?;
    } else {
        return Err(error(format!(
            "{what}: journal must be a string or a Uint8Array, got {}",
            type_name(&journal)
        )));
    }
    j.finish();
    room(what)?;
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
