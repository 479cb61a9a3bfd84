//! Bindings: the Redactor.

use super::*;

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
        // Encoded into the instance's kept buffer: no allocation per line.
        let out = with_js_text(&line, |text| {
            self.inner.redact_line(text).map(|r| r.changed.then(|| JsValue::from_str(&r.line)))
        })
        .ok_or_else(|| error(format!("redactLine(line): line must be a string, got {}", type_name(&line))))?
        .map_err(|e| coded("ERR_BAD_RECORD", format!("redactLine(line): {e}")))?;
        // An unchanged line is the caller's own string: nothing to copy back.
        let changed = out.is_some();
        Ok(line_result(&out.unwrap_or(line), changed))
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
        unchecked_return_type = "{ text: string; lines: number; changed: number; notRecords: number; rules: Record<string, number>; notUtf8: number }"
    )]
    pub fn redact_journal(&self, journal: JsValue) -> Result<JsValue, JsValue> {
        let what = "redactJournal(journal)";
        // The redacted text comes back as one JS string (a string given fits one already).
        if journal.dyn_ref::<js_sys::Uint8Array>().is_some_and(|b| b.length() as usize > MAX_JS_STRING) {
            return Err(too_large(what, "redact it a line at a time with redactLine"));
        }
        // Bytes that are not UTF-8 (a torn write, another tool's file) are
        // data, not a wrong argument: the text comes back as a string, which
        // cannot hold them, so each invalid sequence becomes U+FFFD and the
        // lines that held one are counted (`notUtf8`). This threw
        // ERR_INVALID_ARG and redacted nothing. (The CLI's `redact` keeps
        // such bytes as they are: it writes bytes, not a string.)
        let mut not_utf8 = 0;
        let text = if journal.is_instance_of::<js_sys::Uint8Array>() {
            match String::from_utf8(js_sys::Uint8Array::from(journal).to_vec()) {
                Ok(text) => text,
                Err(e) => {
                    let bytes = e.into_bytes();
                    not_utf8 =
                        bytes.split(|&b| b == b'\n').filter(|l| std::str::from_utf8(l).is_err()).count();
                    String::from_utf8_lossy(&bytes).into_owned()
                }
            }
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
        let _ = js_sys::Reflect::set(&result, &"notUtf8".into(), &JsValue::from_f64(not_utf8 as f64));
        Ok(result.into())
    }
}

#[wasm_bindgen(module = "/src/wasm/js/results.js")]
extern "C" {
    // redactLine's result, made in JS (js/results.js says why).
    #[wasm_bindgen(js_name = lineResult)]
    fn line_result(line: &JsValue, changed: bool) -> JsValue;
}

impl Drop for Redactor {
    fn drop(&mut self) {
        let id = self.id;
        let _ = REDACTORS.try_with(|r| r.borrow_mut().retain(|(k, _)| *k != id));
    }
}

/// The Redactor a call's options name (`{ redactor }`), or None (a
/// Journal then builds the default one at its first write, if it ever
/// writes). `what` names the call in errors.
pub(super) fn redactor_of(options: &JsValue, what: &str) -> Result<Option<Rc<CoreRedactor>>, JsValue> {
    if options.is_undefined() || options.is_null() {
        return Ok(None);
    }
    if !options.is_object() {
        return Err(error(format!("{what}: options must be an object, got {}", type_name(options))));
    }
    let redactor = js_sys::Reflect::get(options, &"redactor".into()).unwrap_or(JsValue::UNDEFINED);
    if redactor.is_undefined() || redactor.is_null() {
        return Ok(None);
    }
    let id = js_sys::Reflect::get(&redactor, &"__redactorId".into())
        .ok()
        .and_then(|v| v.as_f64())
        .ok_or_else(|| error(format!("{what}: options.redactor must be a Redactor")))?;
    REDACTORS
        .with(|r| r.borrow().iter().find(|(k, _)| f64::from(*k) == id).map(|(_, v)| v.clone()))
        .map(Some)
        .ok_or_else(|| error(format!("{what}: options.redactor was freed")))
}
