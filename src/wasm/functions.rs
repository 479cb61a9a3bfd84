//! Bindings: accounting, listing and ids, resume.

use super::*;

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

#[wasm_bindgen(js_name = addCosts, unchecked_return_type = "CostSum")]
pub fn add_costs(parts: JsValue) -> Result<JsValue, JsValue> {
    if !js_sys::Array::is_array(&parts) {
        return Err(error(format!(
            "addCosts(parts): parts must be an array of figures (null: a part that could not be read), got {}",
            type_name(&parts)
        )));
    }
    // A null part is one that could not be read: its cost is unknown. (Each
    // part is read as formatCost reads its argument: a read of its own
    // measured 0.8 KB gzipped more.)
    let mut sum = crate::accounting::CostSum::default();
    for p in js_sys::Array::from(&parts).iter() {
        if p.is_null() {
            sum.add(None, false);
        } else {
            let v = cost_view(p, "addCosts(parts): each part")?;
            sum.add(v.cost_usd, v.cost_incomplete);
        }
    }
    let out = js_sys::Object::new();
    let cost = sum.cost_usd.map_or(JsValue::NULL, JsValue::from_f64);
    let _ = js_sys::Reflect::set(&out, &"costUsd".into(), &cost);
    let _ = js_sys::Reflect::set(&out, &"costIncomplete".into(), &sum.incomplete.into());
    Ok(out.into())
}

// ---- Listing and ids -----------------------------------------------------

#[wasm_bindgen(js_name = summariseSession, unchecked_return_type = "SessionRow")]
pub fn summarise_session(
    id: JsValue,
    updated: JsValue,
    journal: JsValue,
    #[wasm_bindgen(unchecked_param_type = "{ redactor?: Redactor } | undefined")] options: JsValue,
) -> Result<JsValue, JsValue> {
    let id = text_arg(&id, "summariseSession(id, updated, journal): id")?;
    let redactor = super::redactor::redactor_of(&options, "summariseSession(id, updated, journal, options)")?;
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
    let row = listing::summarise_state(&id, &updated, &state, redactor.as_deref());
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
                json: std::rc::Rc::new(m.get().into()),
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
    // Unsaid, thinking is what the session's own `thinking` record chose
    // (spec §2: "a resume brings it back"), as resumeSession's view reads it.
    if options.thinking.is_none() {
        let choice = js_sys::Reflect::get(&state, &"thinking".into()).unwrap_or(JsValue::UNDEFINED);
        if !choice.is_undefined() && !choice.is_null() {
            let json = js_json(&choice, &format!("{name}(state, options): state.thinking"))?;
            options.thinking = resume::view::thinking_on(Some(&json));
        }
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
    // `{ thinking }`, a boolean; anything else said, as every call's options
    // are (a `thinking: "yes"` read as false checked the wrong rules).
    let what = "checkMessages(messages, options): options";
    let thinking = if options.is_undefined() || options.is_null() {
        false
    } else if !options.is_object() {
        return Err(error(format!("{what} must be an object, got {}", type_name(&options))));
    } else {
        flag(&options, "thinking", what)?
    };
    let json = js_json(&messages, "checkMessages(messages, options): messages")?;
    let raw: Vec<&serde_json::value::RawValue> =
        serde_json::from_str(&json).map_err(|e| error(format!("checkMessages(messages, options): {e}")))?;
    let texts: Vec<String> = raw.iter().map(|m| m.get().to_owned()).collect();
    let problems: Vec<String> =
        resume::check_messages(&texts, thinking).iter().map(resume::Problem::to_json).collect();
    parse_json(&format!("[{}]", problems.join(",")))
}
