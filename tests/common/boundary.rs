//! Tests of the JS boundary, shared by `tests/node.rs` and `tests/browser.rs`
//! (the same assertions in Node and in headless Chromium).

use garuda_session::wasm;
use js_sys::{Array, Object, Reflect, Uint8Array, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

const JOURNAL: &str = concat!(
    r#"{"t":"2026-11-29T10:00:00.000Z","type":"start","sessionId":"s1","model":"m1"}"#,
    "\n",
    r#"{"t":"2026-11-29T10:00:01.000Z","type":"user","message":{"role":"user","content":"héllo 😀 wörld"}}"#,
    "\n",
    r#"{"t":"2026-11-29T10:00:02.000Z","type":"assistant","step":1,"response":{"content":[{"type":"text","text":"hi"}],"usage":{"inputTokens":10,"outputTokens":5}},"costUsd":0.25}"#,
    "\n",
    r#"{"t":"2026-11-29T10:00:03.000Z","type":"unreported","tokens":100}"#,
    "\n",
    "not json\n",
    r#"{"t":"2026-11-29T10:00:04.000Z","type":"assis"#,
);

/// `rebuildState(journal)` with no options.
fn rebuild(journal: JsValue) -> Result<JsValue, JsValue> {
    wasm::rebuild_state(journal, JsValue::UNDEFINED)
}

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

fn json(v: &JsValue) -> String {
    JSON::stringify(v).ok().and_then(|s| s.as_string()).unwrap_or_default()
}

/// The thrown value is a real `Error` whose message says what was wrong
/// and which carries a stable `code`.
fn assert_error<T>(result: Result<T, JsValue>, needle: &str) {
    let Err(err) = result else { panic!("should throw an Error mentioning {needle:?}") };
    let code = get(&err, "code").as_string().unwrap_or_default();
    assert!(code.starts_with("ERR_"), "the Error carries a code, got {code:?}");
    let err: js_sys::Error = err.dyn_into().expect("a JS Error, not a bare string");
    let message: String = err.message().into();
    assert!(message.contains(needle), "message {message:?} should mention {needle:?}");
}

/// The code of the Error a call threw.
fn code_of<T>(result: Result<T, JsValue>) -> String {
    match result {
        Ok(_) => "no error".into(),
        Err(e) => get(&e, "code").as_string().unwrap_or_default(),
    }
}

#[wasm_bindgen_test]
fn rebuild_state_from_text_lines_and_bytes_agree() {
    let from_text = rebuild(JOURNAL.into()).expect("text");
    let lines: Array = JOURNAL.split('\n').map(JsValue::from).collect();
    let from_lines = rebuild(lines.into()).expect("lines");
    let from_bytes = rebuild(Uint8Array::from(JOURNAL.as_bytes()).into()).expect("bytes");
    assert_eq!(json(&from_text), json(&from_lines));
    assert_eq!(json(&from_text), json(&from_bytes));
    assert_eq!(get(&from_text, "prompts").as_f64(), Some(1.0));
    assert_eq!(get(&from_text, "tornTail").as_bool(), Some(true));
    assert_eq!(get(&from_text, "costUsd").as_f64(), Some(0.25));
    let warnings: Array = get(&from_text, "warnings").into();
    assert_eq!(warnings.length(), 1);
    assert_eq!(get(&warnings.get(0), "line").as_f64(), Some(5.0));
    assert_eq!(get(&warnings.get(0), "kind").as_string().as_deref(), Some("bad-json"));
    let messages: Array = get(&from_text, "messages").into();
    let content = get(&messages.get(0), "content").as_string();
    assert_eq!(content.as_deref(), Some("héllo 😀 wörld"));
}

#[wasm_bindgen_test]
fn a_big_string_is_fed_in_chunks_without_splitting_characters() {
    // Over the 1 Mi-unit chunk size, with surrogate pairs at every offset.
    let filler = "😀".repeat(300_000) + "é";
    let line = format!(r#"{{"t":"x","type":"user","message":{{"role":"user","content":"{filler}"}}}}"#);
    let text = format!("{line}\n{line}\n{line}\n");
    let state = rebuild(text.as_str().into()).expect("big text");
    let messages: Array = get(&state, "messages").into();
    assert_eq!(messages.length(), 3);
    for i in 0..3 {
        assert_eq!(get(&messages.get(i), "content").as_string().as_deref(), Some(filler.as_str()));
    }
    assert_eq!(Array::from(&get(&state, "warnings")).length(), 0);
}

#[wasm_bindgen_test]
fn a_big_string_argument_crosses_whole_in_chunks() {
    // A text argument (here `redact`'s and `redactJournal`'s) over the
    // 1 Mi-unit chunk size, surrogate pairs at every offset of it, a lone
    // surrogate (U+FFFD, as TextEncoder defines) and a secret at the end.
    let r = redactor_with_env("SERVICE_TOKEN", "tok-1234567890abcdef");
    let filler = "é😀".repeat(400_000);
    let text = js_sys::JsString::from(format!("{filler} a").as_str())
        .concat(&js_sys::JsString::from_char_code1(0xD800))
        .concat(&js_sys::JsString::from(" tok-1234567890abcdef"));
    let out = r.redact(text.into()).expect("big text");
    assert_eq!(out.as_string(), Some(format!("{filler} a\u{FFFD} [REDACTED]")));
    let line = format!(r#"{{"type":"title","title":"{filler}"}}"#);
    let journal = format!("{line}\n{line} tok-1234567890abcdef\n");
    let out = r.redact_journal(journal.as_str().into()).expect("big journal");
    assert_eq!(get(&out, "lines").as_f64(), Some(2.0));
    assert_eq!(get(&out, "text").as_string(), Some(format!("{line}\n{line} [REDACTED]\n")));
}

#[wasm_bindgen_test]
fn a_lone_surrogate_in_a_string_replays_as_the_replacement_character() {
    // JS strings may hold what UTF-8 cannot; the text crosses as U+FFFD,
    // as TextEncoder defines, and the record is not lost.
    let head = js_sys::JsString::from(r#"{"type":"user","message":{"role":"user","content":"a"#);
    let tail = js_sys::JsString::from("b\"}}\n");
    let text = head.concat(&js_sys::JsString::from_char_code1(0xD800)).concat(&tail);
    let state = rebuild(text.into()).expect("text with a lone surrogate");
    let messages: Array = get(&state, "messages").into();
    assert_eq!(messages.length(), 1);
    assert_eq!(get(&messages.get(0), "content").as_string().as_deref(), Some("a\u{FFFD}b"));
    assert_eq!(Array::from(&get(&state, "warnings")).length(), 0);
}

#[wasm_bindgen_test]
fn journal_write_matches_replay_and_takes_objects_or_text() {
    let mut journal = wasm::Journal::new(JsValue::UNDEFINED).expect("journal");
    let mut written = String::new();
    for line in JOURNAL.lines().take(4) {
        let record = JSON::parse(line).expect("record");
        let out = journal.write(record).expect("write an object").as_string().expect("a string");
        written.push_str(&out);
        written.push('\n');
    }
    let live = journal.state().expect("state");
    let replayed = rebuild(written.as_str().into()).expect("replay");
    assert_eq!(json(&live), json(&replayed));
    let out = journal.write(r#"{"type":"title","title":"T"}"#.into()).expect("write text");
    assert_eq!(out.as_string().as_deref(), Some(r#"{"type":"title","title":"T"}"#));
    assert_eq!(get(&journal.state().expect("state"), "title").as_string().as_deref(), Some("T"));
    assert_eq!(journal.line_count(), 5.0);
}

#[wasm_bindgen_test]
fn bad_arguments_throw_errors_that_say_what_was_wrong() {
    assert_error(rebuild(42.into()), "journal must be a string");
    assert_error(
        rebuild(Array::of1(&7.into()).into()),
        "journal[0] must be a line (string) or a record (object)",
    );
    let mut journal = wasm::Journal::new(JsValue::UNDEFINED).expect("journal");
    assert_error(journal.write(42.into()), "record must be an object or a JSON string");
    assert_error(journal.write("not json".into()), "JSON object");
    assert_error(journal.write("[1]".into()), "JSON object");
    assert_error(journal.feed(JsValue::NULL), "chunk must be a string or a Uint8Array");
    assert_eq!(journal.line_count(), 0.0, "refused records change nothing");
    let fake = Object::new();
    let _ = Reflect::set(&fake, &"redactor".into(), &Object::new());
    assert_error(wasm::Journal::new(fake.into()), "options.redactor must be a Redactor");
    assert_error(wasm::Journal::new(5.into()), "options must be an object");
    assert_error(wasm::format_cost("x".into()), "state must be a state object");
    assert_error(wasm::validate_session_id(JsValue::UNDEFINED), "id must be a string");
    assert_error(wasm::new_session_id("today".into()), "now must be a Date");
    assert_error(
        wasm::summarise_session("a".into(), 5.into(), "".into(), JsValue::UNDEFINED),
        "updated must be",
    );
    assert_error(
        wasm::summarise_session("a".into(), "2026-11-29T10:00:05.000Z".into(), "".into(), 5.into()),
        "options must be an object",
    );
}

#[wasm_bindgen_test]
fn journal_feed_takes_chunks_of_text_or_bytes() {
    let mut journal = wasm::Journal::new(JsValue::UNDEFINED).expect("journal");
    let bytes = JOURNAL.as_bytes();
    // Split inside the multi-byte "😀" on purpose.
    let cut = JOURNAL.find('😀').expect("emoji") + 2;
    journal.feed(Uint8Array::from(&bytes[..cut]).into()).expect("bytes");
    journal.feed(Uint8Array::from(&bytes[cut..200]).into()).expect("bytes");
    let rest = std::str::from_utf8(&bytes[200..]).expect("boundary");
    journal.feed(rest.into()).expect("text");
    journal.finish().expect("finish");
    let whole = rebuild(JOURNAL.into()).expect("whole");
    assert_eq!(json(&journal.state().expect("state")), json(&whole));
}

#[wasm_bindgen_test]
fn add_costs_adds_known_parts_and_marks_unknown_ones() {
    let figures = |text: &str| JSON::parse(text).expect("json");
    let parts = Array::of3(
        &figures(r#"{"costUsd":1.5,"costIncomplete":false,"usage":{}}"#),
        &figures(r#"{"costUsd":0.25}"#),
        &figures(r#"{"costUsd":null,"costIncomplete":false}"#),
    );
    let sum = wasm::add_costs(parts.clone().into()).expect("sum");
    assert_eq!(json(&sum), r#"{"costUsd":1.75,"costIncomplete":true}"#, "an unknown run: a lower bound");
    assert_eq!(wasm::format_cost(sum).expect("cost"), "≥ $1.75 (incomplete)");
    parts.set(2, JsValue::NULL);
    let sum = wasm::add_costs(parts.clone().into()).expect("sum");
    assert_eq!(json(&sum), r#"{"costUsd":1.75,"costIncomplete":true}"#, "an unread run (null) too");
    parts.pop();
    assert_eq!(
        json(&wasm::add_costs(parts.into()).expect("sum")),
        r#"{"costUsd":1.75,"costIncomplete":false}"#
    );
    let unknown = wasm::add_costs(Array::of1(&JsValue::NULL).into()).expect("sum");
    assert_eq!(wasm::format_cost(unknown).expect("cost"), "unknown", "never $0");
    assert_error(wasm::add_costs("x".into()), "parts must be an array");
    assert_error(wasm::add_costs(Array::of1(&JsValue::from(3)).into()), "each part must be a state object");
}

#[wasm_bindgen_test]
fn accounting_and_listing() {
    let state = rebuild(JOURNAL.into()).expect("state");
    assert_eq!(wasm::format_cost(state.clone()).expect("cost"), "≥ $0.2500 (incomplete)");
    let note = wasm::budget_note(state.clone()).expect("note");
    assert_eq!(
        note.as_string().as_deref(),
        Some("budget 115 tokens: 15 reported + 100 unreported + 0 pending (subagents)")
    );
    let empty = rebuild("".into()).expect("empty");
    assert!(wasm::budget_note(empty).expect("note").is_null());
    let row = wasm::summarise_session(
        "s1".into(),
        "2026-11-29T10:00:05.000Z".into(),
        JOURNAL.into(),
        JsValue::UNDEFINED,
    )
    .expect("row");
    assert_eq!(get(&row, "prompt").as_string().as_deref(), Some("héllo 😀 wörld"));
    assert_eq!(get(&row, "model").as_string().as_deref(), Some("m1"));
    assert_eq!(get(&row, "cost").as_string().as_deref(), Some("≥ $0.2500 (incomplete)"));
    assert_eq!(wasm::validate_session_id("../x".into()).ok(), Some(false));
    assert_eq!(wasm::validate_session_id("20261129-100000-ab12".into()).ok(), Some(true));
    let date = js_sys::Date::new(&JsValue::from_f64(1_796_016_348_000.0));
    let id = wasm::new_session_id(date.into()).expect("id");
    assert!(id.starts_with("20261130-052548-"), "{id}");
    assert_eq!(id.len(), 20);
    assert!(id[16..].bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()));
}

fn redactor_with_env(name: &str, value: &str) -> wasm::Redactor {
    let env = Object::new();
    let _ = Reflect::set(&env, &name.into(), &value.into());
    let options = Object::new();
    let _ = Reflect::set(&options, &"env".into(), &env);
    wasm::Redactor::new(options.into()).expect("redactor")
}

#[wasm_bindgen_test]
fn redactor_redacts_lines_text_and_journals() {
    let r = redactor_with_env("SERVICE_TOKEN", "tok-1234567890abcdef");
    let clean = r#"{"type":"title","title":"tokenBudget: 20000000"}"#;
    let out = r.redact_line(clean.into()).expect("clean line");
    assert_eq!(get(&out, "changed").as_bool(), Some(false));
    assert_eq!(get(&out, "line").as_string().as_deref(), Some(clean));
    let dirty = r#"{"type":"user","message":{"role":"user","content":"use tok-1234567890abcdef and 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"}}"#;
    let out = r.redact_line(dirty.into()).expect("dirty line");
    assert_eq!(get(&out, "changed").as_bool(), Some(true));
    assert_eq!(
        get(&out, "line").as_string().as_deref(),
        Some(
            r#"{"type":"user","message":{"role":"user","content":"use [REDACTED] and [REDACTED]"},"redacted":true}"#
        )
    );
    let text = r.redact("password = \"hunter2hunter\"".into()).expect("text");
    assert_eq!(text.as_string().as_deref(), Some("password = \"[REDACTED]\""));
    let journal = format!("{clean}\n{dirty}\nnot json with tok-1234567890abcdef\n");
    let out = r.redact_journal(journal.as_str().into()).expect("journal");
    assert_eq!(get(&out, "lines").as_f64(), Some(3.0));
    assert_eq!(get(&out, "changed").as_f64(), Some(2.0));
    assert_eq!(get(&out, "notRecords").as_f64(), Some(1.0));
    assert!(!get(&out, "text").as_string().unwrap_or_default().contains("tok-1234567890abcdef"));
    assert_eq!(get(&out, "notUtf8").as_f64(), Some(0.0));
    // Bytes that are not UTF-8 are data: redacted, the bad byte as U+FFFD
    // and its line counted (this threw ERR_INVALID_ARG).
    let mut bytes = format!("{dirty}\n").into_bytes();
    bytes.extend_from_slice(b"tok-1234567890abcdef \xff end\n{\"type\":\"title\",\"title\":\"ok\"}\n");
    let out = r.redact_journal(Uint8Array::from(bytes.as_slice()).into()).expect("bytes not UTF-8");
    assert_eq!(get(&out, "lines").as_f64(), Some(3.0));
    assert_eq!(get(&out, "notUtf8").as_f64(), Some(1.0));
    let text = get(&out, "text").as_string().unwrap_or_default();
    assert!(text.contains("[REDACTED] \u{FFFD} end\n") && !text.contains("tok-1234567890abcdef"), "{text}");
    assert_error(r.redact_line(5.into()), "line must be a string");
    assert_error(r.redact_line("[1]".into()), "JSON object");
    assert_error(r.redact(JsValue::NULL), "text must be a string");
    assert_error(wasm::Redactor::new("env".into()), "options must be an object");
}

#[wasm_bindgen_test]
fn journal_write_redacts_with_its_redactor_and_marks_the_record() {
    let r = redactor_with_env("DB_PASSWORD", "correct-horse-battery");
    let options = Object::new();
    let _ = Reflect::set(&options, &"redactor".into(), &JsValue::from(r));
    let mut journal = wasm::Journal::new(options.into()).expect("journal");
    let record = JSON::parse(
        r#"{"type":"user","message":{"role":"user","content":"db pw is correct-horse-battery"}}"#,
    )
    .expect("record");
    let line = journal.write(record).expect("write").as_string().expect("line");
    assert_eq!(
        line,
        r#"{"type":"user","message":{"role":"user","content":"db pw is [REDACTED]"},"redacted":true}"#
    );
    let state = journal.state().expect("state");
    let origins: Array = get(&state, "messageOrigins").into();
    assert_eq!(get(&origins.get(0), "redacted").as_bool(), Some(true));
}

#[wasm_bindgen_test]
fn resume_closes_open_calls_and_reports() {
    let journal = concat!(
        r#"{"type":"start","model":"m1"}"#,
        "\n",
        r#"{"type":"user","message":{"role":"user","content":"go"}}"#,
        "\n",
        r#"{"type":"assistant","step":1,"response":{"content":[{"type":"thinking","thinking":"t","signature":"c2ln"},{"type":"tool_use","id":"t1","name":"bash","input":{}}],"usage":{}},"costUsd":0}"#,
        "\n",
    );
    let state = rebuild(journal.into()).expect("state");
    let options = Object::new();
    let _ = Reflect::set(&options, &"model".into(), &"m2".into());
    let out = wasm::repair_for_resume(state.clone(), options.into()).expect("resume");
    let report = get(&out, "report");
    assert_eq!(json(&get(&report, "toolCallsAnswered")), r#"["t1"]"#);
    assert_eq!(get(&get(&report, "thinkingDropped"), "model-switch").as_f64(), Some(1.0));
    let messages = get(&out, "messages");
    assert_eq!(Array::from(&messages).length(), 3);
    let problems = wasm::check_messages(messages, JsValue::UNDEFINED).expect("check");
    assert_eq!(Array::from(&problems).length(), 0);
    let record = wasm::close_open_tool_calls(state).expect("close");
    assert_eq!(get(&record, "synthetic").as_bool(), Some(true));
    let mut j = wasm::Journal::new(JsValue::UNDEFINED).expect("journal");
    j.feed(journal.into()).expect("feed");
    j.write(record).expect("write the synthetic record");
    assert!(wasm::close_open_tool_calls(j.state().expect("state")).expect("close").is_null());
    let bad = Array::of1(&"not a message".into());
    let problems = wasm::check_messages(bad.into(), JsValue::UNDEFINED).expect("check");
    assert_eq!(get(&Array::from(&problems).get(0), "kind").as_string().as_deref(), Some("not-a-message"));
    assert_error(wasm::resume_messages(5.into(), JsValue::UNDEFINED), "state must be a state object");
    assert_error(wasm::check_messages("x".into(), JsValue::UNDEFINED), "messages must be an array");
    // Its options are said wrong as every call's are, not read as false.
    let yes = Object::new();
    let _ = Reflect::set(&yes, &"thinking".into(), &"yes".into());
    assert_error(
        wasm::check_messages(Array::new().into(), yes.into()),
        "options.thinking must be true or false, got string",
    );
    assert_error(
        wasm::check_messages(Array::new().into(), "thinking".into()),
        "options must be an object, got string",
    );
    assert_eq!(code_of(wasm::check_messages(Array::new().into(), 1.into())), "ERR_INVALID_ARG");
    let null_ok = wasm::check_messages(Array::new().into(), JsValue::NULL).expect("null options");
    assert!(Array::is_array(&null_ok));
}

/// Issue 10, finding 2: one line nested 100,000 deep made `resumeMessages`
/// throw (`JSON.stringify` overflows the JS stack), so the session could
/// never be resumed. Now replay warns and resume returns a valid history.
/// (A message of blocks keeps those not too deep, src/too_deep.rs; this one,
/// with a field beside its content, gives way whole.)
#[wasm_bindgen_test]
fn a_line_nested_too_deep_never_stops_a_resume() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let journal = format!(
        "{}\n{}\n",
        r#"{"type":"start","model":"m1"}"#,
        format_args!(r#"{{"type":"user","message":{{"role":"user","content":"x","meta":{deep}}}}}"#)
    );
    let state = rebuild(journal.into()).expect("replay never throws on data");
    let warnings: Array = get(&state, "warnings").into();
    assert_eq!(get(&warnings.get(0), "kind").as_string().as_deref(), Some("too-deep"));
    assert_eq!(get(&warnings.get(0), "line").as_f64(), Some(2.0));
    let resumed =
        wasm::repair_for_resume(state.clone(), JsValue::UNDEFINED).expect("resume never throws on data");
    let report = get(&resumed, "report");
    assert_eq!(get(&report, "messagesDroppedAtReplay").as_f64(), Some(1.0));
    let problems: Array =
        wasm::check_messages(get(&resumed, "messages"), JsValue::UNDEFINED).expect("checked").into();
    assert_eq!(problems.length(), 0, "{}", json(&problems));
}

/// `new Redactor({ rules })`: the user's patterns cross the boundary, find
/// their tokens, and a bad one throws an Error naming the rule and position.
#[wasm_bindgen_test]
fn custom_rules_cross_the_boundary() {
    let rules = JSON::parse(r#"{"rules":[{"name":"acme","pattern":"acme_[a-z0-9]{16}"}]}"#).expect("json");
    let r = wasm::Redactor::new(rules).expect("redactor");
    let out = r.redact("use acme_0123abcd4567efgh".into()).expect("redact");
    assert_eq!(out.as_string().as_deref(), Some("use [REDACTED]"));
    let journal = r.redact_journal("plain acme_0123abcd4567efgh\n".into()).expect("journal");
    assert_eq!(get(&get(&journal, "rules"), "acme").as_f64(), Some(1.0));
    let bad = JSON::parse(r#"{"rules":[{"name":"broken","pattern":"tok_[a-z"}]}"#).expect("json");
    assert_error(wasm::Redactor::new(bad), "rule \"broken\": bad pattern at position 4");
    let shapeless = JSON::parse(r#"{"rules":[{"name":"x"}]}"#).expect("json");
    assert_error(wasm::Redactor::new(shapeless), "pattern");
}

/// Errors carry stable codes: hosts branch on them, not on message text.
#[wasm_bindgen_test]
fn errors_carry_stable_codes() {
    assert_eq!(code_of(rebuild(JsValue::from(42))), "ERR_INVALID_ARG");
    let r = wasm::Redactor::new(JsValue::UNDEFINED).expect("redactor");
    assert_eq!(code_of(r.redact_line("[1]".into())), "ERR_BAD_RECORD");
    let bad = JSON::parse(r#"{"rules":[{"name":"x","pattern":"("}]}"#).expect("json");
    assert_eq!(code_of(wasm::Redactor::new(bad)), "ERR_BAD_RULE");
    let mut j = wasm::Journal::new(JSON::parse(r#"{"maxLineBytes":100}"#).expect("json")).expect("journal");
    assert_eq!(code_of(j.write("not json".into())), "ERR_BAD_RECORD");
    let long = format!(r#"{{"type":"title","title":"{}"}}"#, "x".repeat(200));
    assert_eq!(code_of(j.write(long.into())), "ERR_LINE_TOO_LONG");
}

/// Another agent's session through the JS surface: detected or forced with
/// `format`, imported as a redacted Garuda journal; a bad format is an
/// argument error that names the formats, and a file in no known format is
/// ERR_UNKNOWN_FORMAT.
#[wasm_bindgen_test]
fn other_agents_sessions_are_read_forced_and_imported() {
    let codex = concat!(
        r#"{"timestamp":"2026-02-01T10:00:00.000Z","type":"session_meta","payload":{"id":"r1","cwd":"/w"}}"#,
        "\n",
        r#"{"timestamp":"2026-02-01T10:00:00.100Z","type":"turn_context","payload":{"model":"gpt-5.1-codex"}}"#,
        "\n",
        r#"{"timestamp":"2026-02-01T10:00:01.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}}"#,
        "\n",
        r#"{"timestamp":"2026-02-01T10:00:02.000Z","type":"response_item","payload":{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hello"}]}}"#,
        "\n",
        r#"{"timestamp":"2026-02-01T10:00:02.100Z","type":"event_msg","payload":{"type":"token_count","info":{"total_token_usage":{"input_tokens":100,"cached_input_tokens":40,"output_tokens":10,"total_tokens":110},"last_token_usage":{"input_tokens":100,"cached_input_tokens":40,"output_tokens":10,"total_tokens":110}}}}"#,
        "\n",
    );
    let state = rebuild(codex.into()).expect("codex");
    assert_eq!(get(&state, "format").as_string().as_deref(), Some("codex"));
    assert_eq!(get(&get(&state, "usage"), "inputTokens").as_f64(), Some(60.0));
    assert!(get(&state, "costUsd").as_f64().is_some_and(|c| c > 0.0));
    let options = Object::new();
    Reflect::set(&options, &"format".into(), &"klingon".into()).unwrap();
    assert_error(
        wasm::rebuild_state(codex.into(), options.into()),
        "format must be one of garuda, claude-code, codex, pi, gemini",
    );
    let imported = wasm::import_session(codex.into(), JsValue::UNDEFINED).expect("import");
    let back = rebuild(imported.as_str().into()).expect("the imported journal");
    assert_eq!(get(&back, "format").as_string().as_deref(), Some("garuda"));
    assert_eq!(get(&back, "prompts").as_f64(), Some(1.0));
    assert_eq!(
        code_of(wasm::import_session(r#"{"hello":1}"#.into(), JsValue::UNDEFINED)),
        "ERR_UNKNOWN_FORMAT"
    );
}

/// A lean journal notes where each line starts as bytes or text are fed
/// (its reader reads a line again from the file), in UTF-8 bytes.
#[wasm_bindgen_test]
fn a_lean_journal_gives_each_lines_byte_range() {
    let options = Object::new();
    Reflect::set(&options, &"history".into(), &true.into()).unwrap();
    Reflect::set(&options, &"lean".into(), &true.into()).unwrap();
    let range = |j: &wasm::Journal, n: f64| json(&j.line_range(n.into()).expect("a line number"));
    let bytes = JOURNAL.as_bytes();
    let lines: Vec<&str> = JOURNAL.split('\n').collect();
    let mut from_bytes = wasm::Journal::new(options.clone().into()).unwrap();
    // Split inside the second line's multi-byte characters.
    from_bytes.feed(Uint8Array::from(&bytes[..130]).into()).unwrap();
    from_bytes.feed(Uint8Array::from(&bytes[130..]).into()).unwrap();
    let mut from_text = wasm::Journal::new(options.into()).unwrap();
    from_text.feed(JOURNAL.into()).unwrap();
    let mut at = 0;
    for (i, line) in lines.iter().enumerate() {
        let want = format!("[{at},{}]", at + line.len());
        assert_eq!(range(&from_bytes, (i + 1) as f64), want, "line {}", i + 1);
        assert_eq!(range(&from_text, (i + 1) as f64), want, "line {}", i + 1);
        at += line.len() + 1;
    }
    assert_eq!(range(&from_bytes, (lines.len() + 1) as f64), "");
    assert_eq!(code_of(from_bytes.line_range(0.into())), "ERR_INVALID_ARG");
    // Without `lean`, nothing is kept.
    let mut plain = wasm::Journal::new(JsValue::UNDEFINED).unwrap();
    plain.feed(JOURNAL.into()).unwrap();
    assert!(plain.line_range(1.into()).unwrap().is_undefined());
}

#[wasm_bindgen_test]
fn diagnose_and_repair_cross_the_boundary() {
    // A Codex rollout torn inside "é", the next line appended to it.
    let mut torn = br#"{"timestamp":"t","type":"session_meta","payload":{"id":"s"}}"#.to_vec();
    torn.extend_from_slice(b"\n{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"role\":\"user\",\"content\":\"caf\xc3");
    torn.extend_from_slice(br#"{"timestamp":"t","type":"response_item","payload":{"type":"message","role":"user","content":"ok"}}"#);
    torn.push(b'\n');
    let bytes: JsValue = Uint8Array::from(torn.as_slice()).into();
    let d = wasm::diagnose(bytes.clone(), JsValue::UNDEFINED).expect("diagnose");
    assert_eq!(get(&d, "format").as_string().as_deref(), Some("codex"));
    assert_eq!(get(&d, "resumes").as_bool(), Some(false));
    assert!(
        json(&get(&d, "problems")).contains(r#""line":2,"kind":"bad-line","severity":"error""#),
        "{}",
        json(&d)
    );
    let r = wasm::repair(bytes, JsValue::UNDEFINED).expect("repair");
    let out = get(&r, "bytes").dyn_into::<Uint8Array>().expect("bytes are a Uint8Array").to_vec();
    assert!(std::str::from_utf8(&out).is_ok() && out.len() < torn.len());
    assert_eq!(get(&get(&get(&r, "report"), "after"), "resumes").as_bool(), Some(true));
    // A string goes in too; bad arguments are Errors with a code.
    let ok = r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s"}}"#;
    let d = wasm::diagnose(ok.into(), Object::new().into()).expect("a string");
    assert_eq!(get(&d, "resumes").as_bool(), Some(true));
    assert_error(wasm::diagnose(5.into(), JsValue::UNDEFINED), "Uint8Array or a string");
    let bad = Object::new();
    Reflect::set(&bad, &"format".into(), &"nope".into()).unwrap();
    assert_error(wasm::repair(ok.into(), bad.into()), "options.format");
}
