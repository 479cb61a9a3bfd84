//! The context tools at the JS boundary (issue 26), shared by `tests/node.rs`
//! and `tests/browser.rs`: truncateToolOutput, pruneOldToolOutputs and the
//! strict load, the same assertions in Node and in headless Chromium.

use garuda_session::wasm;
use js_sys::{Array, Object, Reflect, JSON};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

fn code_of<T>(result: Result<T, JsValue>) -> String {
    match result {
        Ok(_) => "no error".into(),
        Err(e) => get(&e, "code").as_string().unwrap_or_default(),
    }
}

fn object(json: &str) -> JsValue {
    JSON::parse(json).expect("test JSON")
}

#[wasm_bindgen_test]
fn truncate_tool_output_keeps_head_and_tail_and_checks_its_options() {
    let output: String = (1..=5000).map(|i| format!("line {i}\n")).collect();
    let t = wasm::truncate(output.clone().into(), object(r#"{"fullOutputAt":"/tmp/x.txt"}"#)).unwrap();
    assert_eq!(get(&t, "truncated"), JsValue::TRUE);
    assert_eq!(get(&t, "omittedLines").as_f64(), Some(4300.0));
    let text = get(&t, "text").as_string().unwrap();
    assert!(text.starts_with("line 1\n") && text.ends_with("line 5000\n"));
    assert!(text.contains("4,300 lines") && text.contains("/tmp/x.txt"));
    // Small: the same string back.
    let small = wasm::truncate("ok\n".into(), JsValue::UNDEFINED).unwrap();
    assert_eq!(get(&small, "truncated"), JsValue::FALSE);
    assert_eq!(get(&small, "text").as_string().as_deref(), Some("ok\n"));
    // A lone surrogate (half an emoji from `.slice()`) never empties the output.
    let half = js_sys::JsString::from_char_code1(0xD83D);
    let lone = wasm::truncate(half.into(), JsValue::UNDEFINED).unwrap();
    assert_eq!(js_sys::JsString::from(get(&lone, "text")).length(), 1);
    // One line over the budget keeps its start and end, cut between
    // characters (four-byte ones here, two UTF-16 units in JS).
    let line = wasm::truncate("😀".repeat(50_000).into(), object(r#"{"maxBytes":1001}"#)).unwrap();
    let text = get(&line, "text").as_string().unwrap();
    let (head, rest) = text.split_once('\n').unwrap();
    let (note, tail) = rest.split_once('\n').unwrap();
    assert!(note.starts_with("[… part of a line (") && !text.contains('\u{FFFD}'), "{note}");
    assert_eq!((head, tail), ("😀".repeat(71).as_str(), "😀".repeat(178).as_str()));
    assert_eq!(get(&line, "omittedBytes").as_f64(), Some(4.0 * (50_000 - 71 - 178) as f64));
    for bad in [r#"{"maxBytes":-1}"#, r#"{"maxLines":1.5}"#, r#"{"headLine":3}"#, r#"{"fullOutputAt":5}"#] {
        assert_eq!(code_of(wasm::truncate("x".into(), object(bad))), "ERR_INVALID_ARG", "{bad}");
    }
    assert_eq!(code_of(wasm::truncate(JsValue::from(42), JsValue::UNDEFINED)), "ERR_INVALID_ARG");
}

fn history() -> Array {
    let mut h = Vec::new();
    for t in 0..3 {
        h.push(format!(r#"{{"role":"user","content":"prompt {t}"}}"#));
        h.push(format!(r#"{{"role":"assistant","content":[{{"type":"thinking","thinking":"t","signature":"s{t}"}},{{"type":"tool_use","id":"toolu_{t}","name":"Read","input":{{}}}}]}}"#));
        h.push(format!(r#"{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"toolu_{t}","content":"{}"}}]}}"#, "x".repeat(500)));
        h.push(r#"{"role":"assistant","content":[{"type":"text","text":"done"}]}"#.to_owned());
    }
    h.iter().map(|m| object(m)).collect()
}

#[wasm_bindgen_test]
fn prune_old_tool_outputs_gives_a_new_array_and_leaves_the_input() {
    let input = history();
    let before = JSON::stringify(&input).unwrap().as_string().unwrap();
    let r = wasm::prune_with_report(
        input.clone().into(),
        object(r#"{"protectTurns":1,"kept":{"toolu_0":"/k/toolu_0.txt"}}"#),
    )
    .unwrap();
    assert_eq!(JSON::stringify(&input).unwrap().as_string().unwrap(), before, "the input is unchanged");
    let out = Array::from(&get(&r, "messages"));
    assert_eq!(out.length(), 12);
    let report = get(&r, "report");
    assert_eq!(get(&report, "prunedResults").as_f64(), Some(2.0));
    assert!(get(&report, "savedTokens").as_f64().unwrap() > 100.0);
    let first = JSON::stringify(&out.get(2)).unwrap().as_string().unwrap();
    assert!(
        first.contains("[Output of Read (call toolu_0) pruned") && first.contains("/k/toolu_0.txt"),
        "{first}"
    );
    // Unchanged messages are the caller's own objects; thinking after the first pruned result goes.
    assert!(Object::is(&out.get(0), &input.get(0)) && Object::is(&out.get(1), &input.get(1)));
    assert!(!JSON::stringify(&out.get(5)).unwrap().as_string().unwrap().contains("thinking"));
    let problems = wasm::check_messages(out.into(), object(r#"{"thinking":true}"#)).unwrap();
    assert_eq!(Array::from(&problems).length(), 0);
    // The plain form returns the array; bad options are errors with codes.
    assert!(Array::is_array(&wasm::prune(history().into(), JsValue::UNDEFINED).unwrap()));
    assert_eq!(code_of(wasm::prune(JsValue::from("x"), JsValue::UNDEFINED)), "ERR_INVALID_ARG");
    assert_eq!(code_of(wasm::prune(history().into(), object(r#"{"protectTurns":-2}"#))), "ERR_INVALID_ARG");
}

/// The JS objects' path and the JSON text path of the core decide alike:
/// the same messages, byte for byte, on histories with thinking, images,
/// string results, blank prompts and kept outputs.
#[wasm_bindgen_test]
fn the_object_path_and_the_json_path_agree() {
    use garuda_session::context::{prune_old_tool_outputs, PruneOptions};
    let mut h: Vec<String> =
        Array::from(&history()).iter().map(|m| JSON::stringify(&m).unwrap().as_string().unwrap()).collect();
    h.insert(4, r#"{"role":"user","content":"  "}"#.to_owned());
    h.push(
        r#"{"role":"assistant","content":[{"type":"thinking","thinking":"only","signature":"z"}]}"#
            .to_owned(),
    );
    h.push(r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_9","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}}]},{"type":"text","text":"next"}]}"#.to_owned());
    h.push(r#"{"role":"assistant","content":[{"type":"text","text":"ok"}]}"#.to_owned());
    h.push(r#"{"role":"user","content":"last prompt"}"#.to_owned());
    for turns in 0..4 {
        let opts = object(&format!(r#"{{"protectTurns":{turns},"kept":{{"toolu_1":"/k/1"}}}}"#));
        let js: Array = h.iter().map(|m| object(m)).collect();
        let r = wasm::prune_with_report(js.into(), opts).unwrap();
        let got = JSON::stringify(&get(&r, "messages")).unwrap().as_string().unwrap();
        let refs: Vec<&str> = h.iter().map(String::as_str).collect();
        let p = prune_old_tool_outputs(
            &refs,
            &PruneOptions { protect_turns: turns, kept: vec![("toolu_1".into(), "/k/1".into())] },
        );
        let mut want = h.clone();
        for (i, json) in &p.replaced {
            want[*i] = json.clone();
        }
        let want: Array = want.iter().map(|m| object(m)).collect();
        assert_eq!(got, JSON::stringify(&want).unwrap().as_string().unwrap(), "{turns} turns");
        assert_eq!(get(&get(&r, "report"), "prunedResults").as_f64(), Some(p.results as f64));
    }
}

const START: &str = r#"{"t":"2026-01-01T00:00:00Z","type":"start","sessionId":"s","model":"m"}"#;

#[wasm_bindgen_test]
fn a_strict_load_fails_closed_naming_the_first_bad_line() {
    let text = format!("{START}\n{{\"t\":\"x\",\"type\":\"mode\",\"mode\":\"full\"}}\nnot json\n");
    // Tolerant by default.
    assert!(wasm::rebuild_state(text.clone().into(), JsValue::UNDEFINED).is_ok());
    let err = wasm::rebuild_state(text.clone().into(), object(r#"{"strict":true}"#)).unwrap_err();
    assert_eq!(get(&err, "code").as_string().as_deref(), Some("ERR_JOURNAL_CORRUPT"));
    assert_eq!(get(&err, "line").as_f64(), Some(2.0));
    assert_eq!(get(&err, "kind").as_string().as_deref(), Some("unknown-type"));
    assert!(wasm::rebuild_state(format!("{START}\n").into(), object(r#"{"strict":true}"#)).is_ok());
    let torn = format!("{START}\n{{\"t\":\"x\",\"type\"");
    let err = wasm::rebuild_state(torn.into(), object(r#"{"strict":true}"#)).unwrap_err();
    assert_eq!(
        (get(&err, "line").as_f64(), get(&err, "kind").as_string()),
        (Some(2.0), Some("torn-tail".into()))
    );
    assert_eq!(
        code_of(wasm::rebuild_state(text.clone().into(), object(r#"{"strict":"yes"}"#))),
        "ERR_INVALID_ARG"
    );

    // A Journal tells its corruption; with strictLoad, finish() throws.
    let mut j = wasm::Journal::new(JsValue::UNDEFINED).unwrap();
    j.feed(text.clone().into()).unwrap();
    j.finish().unwrap();
    assert_eq!(get(&j.corruption(), "line").as_f64(), Some(2.0));
    let mut strict = wasm::Journal::new(object(r#"{"strictLoad":true}"#)).unwrap();
    strict.feed(text.into()).unwrap();
    assert_eq!(code_of(strict.finish()), "ERR_JOURNAL_CORRUPT");
    let mut clean = wasm::Journal::new(object(r#"{"strictLoad":true}"#)).unwrap();
    clean.feed(format!("{START}\n").into()).unwrap();
    assert!(clean.finish().is_ok() && clean.corruption().is_null());
}
