//! The model view across the JS boundary (issue 20), shared by `tests/node.rs`
//! and `tests/browser.rs`: a live Journal's `viewFrom` after a resume and a
//! model switch, its tracked open tool calls, `snapshotTop`, and a lone
//! surrogate written from JS.

use garuda_session::wasm;
use js_sys::{Array, Object, Reflect, JSON};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::*;

const SECRET: &str = "pl4nted-S3CRET-value-0042";

fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &key.into()).unwrap_or(JsValue::UNDEFINED)
}

/// A live journal (model view, strict) with a Redactor that knows SECRET.
fn live() -> wasm::Journal {
    let env = Object::new();
    let _ = Reflect::set(&env, &"MY_API_TOKEN".into(), &SECRET.into());
    let r = Object::new();
    let _ = Reflect::set(&r, &"env".into(), &env);
    let options = Object::new();
    let _ =
        Reflect::set(&options, &"redactor".into(), &wasm::Redactor::new(r.into()).expect("redactor").into());
    let _ = Reflect::set(&options, &"modelView".into(), &true.into());
    let _ = Reflect::set(&options, &"strict".into(), &true.into());
    wasm::Journal::new(options.into()).expect("journal")
}

fn write(j: &mut wasm::Journal, record: &str) -> String {
    j.write(JSON::parse(record).expect("record")).expect("written").as_string().expect("line")
}

fn answer(step: u32, call: &str) -> String {
    format!(
        r#"{{"type":"assistant","step":{step},"response":{{"content":[{{"type":"thinking","thinking":"plan {step}","signature":"sig{step}"}},{{"type":"text","text":"ok"}}{call}],"usage":{{}}}}}}"#
    )
}

/// Indices of the view's messages that hold thinking.
fn thinking_at(j: &mut wasm::Journal) -> Vec<u32> {
    let view: Array = j.view_from(0.0.into()).expect("view").into();
    (0..view.length())
        .filter(|&i| {
            let content = get(&view.get(i), "content");
            Array::is_array(&content) && Array::from(&content).iter().any(|b| get(&b, "type") == "thinking")
        })
        .collect()
}

#[wasm_bindgen_test]
fn the_view_applies_the_thinking_rules_after_resume_and_switch() {
    let mut j = live();
    let mut disk = String::new();
    for r in [
        r#"{"type":"start","model":"m1"}"#.to_owned(),
        r#"{"type":"user","message":{"role":"user","content":"go"}}"#.to_owned(),
        answer(1, r#",{"type":"tool_use","id":"t1","name":"bash","input":{}}"#),
        format!(
            r#"{{"type":"tool_results","message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t1","content":"MY_API_TOKEN={SECRET}"}}]}},"calls":[]}}"#
        ),
        answer(2, ""),
        r#"{"type":"user","message":{"role":"user","content":"more"}}"#.to_owned(),
        answer(3, ""),
    ] {
        disk.push_str(&write(&mut j, &r));
        disk.push('\n');
    }
    assert_eq!(thinking_at(&mut j), vec![1, 3, 5], "live: all kept");
    // Resumed with the same model: from the first redacted message on, none.
    let mut r = live();
    r.feed(disk.as_str().into()).expect("fed");
    r.finish().expect("finish");
    let generation = r.view_generation();
    write(&mut r, r#"{"type":"resume","model":"m1"}"#);
    assert_ne!(r.view_generation(), generation);
    assert_eq!(thinking_at(&mut r), vec![1]);
    assert_eq!(r.view_count(), 6.0);
    let report = r.view_report().expect("report");
    assert_eq!(get(&get(&report, "thinkingDropped"), "redacted-record").as_f64(), Some(2.0));
    // A live switch: none before it, the new turn's kept.
    write(&mut r, r#"{"type":"model","model":"m2"}"#);
    assert_eq!(thinking_at(&mut r), Vec::<u32>::new());
    write(&mut r, r#"{"type":"user","message":{"role":"user","content":"again"}}"#);
    write(&mut r, &answer(4, r#",{"type":"tool_use","id":"t4","name":"read","input":{}}"#));
    assert_eq!(thinking_at(&mut r), vec![7]);
    assert_eq!(r.open_tool_calls(), 1.0);
    let record = r.close_open_tool_calls("2026-12-01T00:00:00.000Z".into()).expect("record");
    assert_eq!(get(&record, "synthetic").as_bool(), Some(true));
    j.write(record.clone()).expect("a record the journal takes");
    r.write(record).expect("written");
    assert_eq!(r.open_tool_calls(), 0.0);
    assert!(r.close_open_tool_calls("x".into()).expect("nothing").is_null());
}

#[wasm_bindgen_test]
fn snapshot_top_and_a_lone_surrogate_from_js() {
    let mut j = live();
    write(&mut j, r#"{"type":"start","model":"m1"}"#);
    assert!(j.snapshot_top("undo".into()).expect("none").is_null());
    assert!(j.snapshot_top("sideways".into()).is_err());
    write(&mut j, r#"{"type":"snapshot","messages":0,"tree":{"n":1},"prompt":"p"}"#);
    let top = j.snapshot_top("undo".into()).expect("top");
    assert_eq!(get(&top, "prompt"), "p");
    // Half an emoji, as JS strings hold it: the view keeps it.
    let record = Object::new();
    let message = Object::new();
    let _ = Reflect::set(&message, &"role".into(), &"user".into());
    let _ = Reflect::set(&message, &"content".into(), &js_sys::JsString::from_char_code1(0xD83D).into());
    let _ = Reflect::set(&record, &"type".into(), &"user".into());
    let _ = Reflect::set(&record, &"message".into(), &message);
    j.write(record.into()).expect("written");
    write(&mut j, r#"{"type":"resume","model":"m1"}"#);
    let view: Array = j.view_from(0.0.into()).expect("view").into();
    assert_eq!(view.length(), 1);
    let content: js_sys::JsString = get(&view.get(0), "content").into();
    assert_eq!(content.char_code_at(0), f64::from(0xD83Du16));
}
