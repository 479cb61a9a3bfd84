//! Compiled only under #[cfg(test)] (see mod.rs). Each rule on a small history; the golden journals in tests/ pin whole
//! sessions.

use super::*;
use crate::journal::rebuild_state;

fn resumed(journal: &str, model: &str, thinking: Option<bool>) -> (Vec<serde_json::Value>, RepairReport) {
    let state = rebuild_state(journal);
    let r = resume(&state, &ResumeOptions { model: Some(model.into()), thinking });
    let messages = r.messages_json().iter().map(|m| serde_json::from_str(m).expect("JSON")).collect();
    (messages, r.report)
}

const START: &str = r#"{"type":"start","model":"m1"}"#;
const USER: &str = r#"{"type":"user","message":{"role":"user","content":"go"}}"#;

fn assistant(content: &str) -> String {
    format!(r#"{{"type":"assistant","step":1,"response":{{"content":{content},"usage":{{}}}},"costUsd":0}}"#)
}

fn results(content: &str) -> String {
    format!(r#"{{"type":"tool_results","message":{{"role":"user","content":{content}}},"calls":[]}}"#)
}

const THINK: &str = r#"{"type":"thinking","thinking":"plan","signature":"c2ln"}"#;

#[test]
fn open_tool_calls_get_an_error_result_and_close_open_tool_calls_matches() {
    let j = [
        START,
        USER,
        &assistant(&format!(r#"[{THINK},{{"type":"tool_use","id":"t1","name":"bash","input":{{}}}}]"#)),
    ]
    .join("\n");
    let (messages, report) = resumed(&j, "m1", None);
    assert_eq!(report.tool_calls_answered, vec!["t1".to_owned()]);
    assert_eq!(messages.len(), 3);
    assert_eq!(messages[2]["content"][0]["content"], INTERRUPTED);
    assert_eq!(messages[2]["content"][0]["is_error"], true);
    assert_eq!(messages[1]["content"][0]["type"], "thinking", "the last turn keeps its thinking");
    assert!(report.remaining.is_empty(), "{:?}", report.remaining);
    let state = rebuild_state(&j);
    let record = close_open_tool_calls(&state, "2026-11-30T00:00:00.000Z").expect("a record");
    let mut journal = crate::Journal::default();
    journal.feed(&j);
    journal.feed("\n");
    journal.write(&record).expect("written");
    assert_eq!(close_open_tool_calls(journal.state(), "x"), None, "nothing is left open");
    let (_, report) = resumed(&format!("{j}\n{record}"), "m1", Some(true));
    assert!(report.tool_calls_answered.is_empty());
    assert!(report.remaining.is_empty(), "{:?}", report.remaining);
}

#[test]
fn a_model_switch_drops_thinking_before_it() {
    let a = assistant(&format!(r#"[{THINK},{{"type":"text","text":"one"}}]"#));
    let j = [START, USER, &a, r#"{"type":"model","model":"m2"}"#, USER, &a].join("\n");
    let (messages, report) = resumed(&j, "m2", None);
    assert_eq!(messages[1]["content"].as_array().map(Vec::len), Some(1));
    assert_eq!(messages[3]["content"][0]["type"], "thinking");
    assert_eq!(report.dropped_for(DropReason::ModelSwitch), 1);
    // Resuming with yet another model drops all of it.
    let (_, report) = resumed(&j, "m3", None);
    assert_eq!(report.dropped_for(DropReason::ModelSwitch), 2);
}

#[test]
fn thinking_goes_from_the_first_redacted_record_and_after_a_legacy_marker() {
    let a = assistant(&format!(r#"[{THINK},{{"type":"text","text":"one"}}]"#));
    let redacted_user =
        r#"{"type":"user","message":{"role":"user","content":"key [REDACTED]"},"redacted":true}"#;
    let j = [START, USER, &a, redacted_user, &a, USER, &a].join("\n");
    let (messages, report) = resumed(&j, "m1", None);
    assert_eq!(messages[1]["content"][0]["type"], "thinking", "before the redaction: kept");
    assert_eq!(report.dropped_for(DropReason::RedactedRecord), 2);
    let legacy = assistant(
        r#"[{"type":"thinking","thinking":"the key [REDACTED]","signature":"c2ln"},{"type":"text","text":"x"}]"#,
    );
    let j = [START, USER, &a, USER, &legacy, USER, &a].join("\n");
    let (_, report) = resumed(&j, "m1", None);
    assert_eq!(report.dropped_for(DropReason::LegacyRedacted), 2);
    assert_eq!(
        report
            .dropped
            .iter()
            .filter(|d| d.reason == DropReason::LegacyRedacted)
            .map(|d| d.message)
            .collect::<Vec<_>>(),
        vec![3, 5]
    );
}

#[test]
fn damaged_histories_come_out_acceptable_and_reported() {
    // Starts with the assistant, an orphan result, a blank text block, two
    // user messages in a row, a result after text, a duplicate id.
    let j = [
        START,
        &assistant(r#"[{"type":"text","text":"hello"},{"type":"text","text":"  "}]"#),
        &results(r#"[{"type":"tool_result","tool_use_id":"gone","content":"42 files"}]"#),
        USER,
        &assistant(r#"[{"type":"tool_use","id":"a","name":"x","input":{}},{"type":"tool_use","id":"a","name":"y","input":{}}]"#),
        &results(r#"[{"type":"text","text":"note"},{"type":"tool_result","tool_use_id":"a","content":"1"},{"type":"tool_result","tool_use_id":"a","content":"2"}]"#),
    ]
    .join("\n");
    let (messages, report) = resumed(&j, "m1", Some(true));
    assert!(report.remaining.is_empty(), "{:?}\n{messages:#?}", report.remaining);
    assert!(report.leading_note_added);
    assert_eq!(report.orphan_results_to_text, 1);
    assert_eq!(report.blank_text_removed, 1);
    assert_eq!(report.messages_merged, 1);
    assert_eq!(report.tool_use_ids_renamed, 1);
    assert_eq!(report.results_moved_first, 1);
    let text = messages[2]["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("42 files"), "an orphan's content is kept as text: {text}");
}

#[test]
fn check_messages_names_each_problem() {
    let msgs = [
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"x","input":{}}]}"#,
        r#"{"role":"user","content":[{"type":"text","text":""},{"type":"tool_result","tool_use_id":"u","content":"r"}]}"#,
        r#"{"role":"assistant","content":[{"type":"thinking","thinking":"x"}]}"#,
        r#"{"role":"user","content":[]}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"d","name":"x","input":{}}]}"#,
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"d","content":"1"}]}"#,
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"d","content":"2"}]}"#,
    ]
    .map(str::to_owned);
    let kinds: Vec<&str> = check_messages(&msgs, false).iter().map(|p| p.kind.as_str()).collect();
    for kind in [
        "first-not-user",
        "tool-use-unanswered",
        "empty-text",
        "tool-result-orphan",
        "tool-result-not-first",
        "tool-result-duplicate",
        "thinking-unsigned",
        "empty-content",
    ] {
        assert!(kinds.contains(&kind), "{kind} in {kinds:?}");
    }
    let loop_without_thinking = [
        r#"{"role":"user","content":"go"}"#,
        r#"{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"x","input":{}}]}"#,
        r#"{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"r"}]}"#,
    ]
    .map(str::to_owned);
    assert!(check_messages(&loop_without_thinking, false).is_empty());
    let kinds: Vec<&str> =
        check_messages(&loop_without_thinking, true).iter().map(|p| p.kind.as_str()).collect();
    assert_eq!(kinds, vec!["thinking-missing"]);
}

#[test]
fn thinking_on_turns_an_unsigned_tool_loop_into_text() {
    let j = [
        START,
        USER,
        &assistant(r#"[{"type":"tool_use","id":"t","name":"read","input":{"path":"a"}}]"#),
        &results(r#"[{"type":"tool_result","tool_use_id":"t","content":"file text"}]"#),
    ]
    .join("\n");
    let (messages, report) = resumed(&j, "m1", Some(true));
    assert!(report.tool_loop_to_text);
    assert!(report.remaining.is_empty(), "{:?}", report.remaining);
    assert!(messages[2]["content"][0]["text"].as_str().unwrap_or_default().contains("file text"));
    let (_, report) = resumed(&j, "m1", Some(false));
    assert!(!report.tool_loop_to_text);
}

#[test]
fn thinking_off_drops_all_thinking() {
    let a = assistant(&format!(r#"[{THINK},{{"type":"text","text":"one"}}]"#));
    let j = [START, USER, &a].join("\n");
    let (messages, report) = resumed(&j, "m1", Some(false));
    assert_eq!(report.dropped_for(DropReason::ThinkingOff), 1);
    assert_eq!(messages[1]["content"][0]["type"], "text");
}

/// Issue 10, finding 4: blocks the API refuses were passed through and
/// `checkMessages` saw nothing wrong.
#[test]
fn blocks_of_a_shape_the_api_refuses_are_found_and_mended_or_dropped() {
    let bad_user =
        r#"{"type":"user","message":{"role":"user","content":[null,1,{"text":"no type"},{"type":"text"}]}}"#;
    let bad_call = assistant(r#"[{"type":"text","text":"calling"},{"type":"tool_use"}]"#);
    let j = [START, bad_user, &bad_call].join("\n");
    let state = rebuild_state(&j);
    let texts: Vec<String> = state.messages.iter().map(|m| m.json.to_string()).collect();
    let problems = check_messages(&texts, false);
    let bad: Vec<&Problem> = problems.iter().filter(|p| p.kind == ProblemKind::BadBlock).collect();
    assert_eq!(bad.len(), 5, "null, 1, no type, text without text, tool_use without id: {problems:?}");
    let (messages, report) = resumed(&j, "m1", None);
    assert!(report.remaining.is_empty(), "{:?}", report.remaining);
    assert_eq!(report.bad_blocks.iter().filter(|b| b.fix == BlockFix::Dropped).count(), 3);
    assert_eq!(report.bad_blocks.iter().filter(|b| b.fix == BlockFix::Mended).count(), 2);
    assert!(report.bad_blocks.iter().all(|b| b.line > 0), "each names its journal line");
    assert_eq!(messages[0]["content"][0]["text"], "no type", "a typeless text is mended, not lost");
    assert_eq!(messages[1]["content"][1]["type"], "text", "a malformed call is kept as text");
    let json = resume(&state, &ResumeOptions::default()).to_json();
    assert!(json.contains(r#""blocksDropped":3,"blocksMended":2"#), "{json}");
}

#[test]
fn known_blocks_with_fields_of_the_wrong_type_are_refused_and_unknown_types_pass() {
    let cases = [
        (r#"{"type":"text","text":5}"#, true),
        (r#"{"type":"image"}"#, true),
        (r#"{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AA=="}}"#, false),
        (r#"{"type":"tool_result","tool_use_id":"t","content":7}"#, true),
        (r#"{"type":"tool_result","tool_use_id":"t","is_error":"yes"}"#, true),
        (r#"{"type":"redacted_thinking"}"#, true),
        (r#"{"type":"tool_use","id":"t","name":"x","input":[]}"#, true),
        (r#"{"type":"tool_use","id":"","name":"x","input":{}}"#, true),
        (r#"{"type":"some_future_block","anything":1}"#, false),
    ];
    for (json, refused) in cases {
        assert_eq!(message::Block::parse(json).fault.is_some(), refused, "{json}");
    }
}

/// Issue 10, finding 2: a message nested 100,000 deep made the session
/// impossible to resume. Replay now puts a note in its place, with a warning.
/// Content that is blocks keeps its blocks, a note for each too deep (stop
/// 49); content of another shape gives way whole.
#[test]
fn a_message_nested_too_deep_is_dropped_at_replay_and_counted_on_resume() {
    let blocks = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let j = [START, &format!(r#"{{"type":"user","message":{{"role":"user","content":{blocks}}}}}"#), USER]
        .join("\n");
    let state = rebuild_state(&j);
    assert_eq!((state.warnings[0].line, state.warnings[0].kind), (2, crate::WarningKind::TooDeep));
    assert!(!state.messages[0].origin.dropped, "its one block gave way, not the message");
    assert!(state.messages[0].json.contains("A block was left out at replay"), "{}", state.messages[0].json);
    let (_, report) = resumed(&j, "m1", None);
    assert_eq!(report.messages_dropped_at_replay, 0);
    // A message of another shape (a field beside its content): it gives way whole.
    let j = [
        START,
        &format!(r#"{{"type":"user","message":{{"role":"user","content":"x","meta":{blocks}}}}}"#),
        USER,
    ]
    .join("\n");
    let state = rebuild_state(&j);
    assert_eq!(state.prompts, 2, "the record still counts");
    assert_eq!(state.warnings.len(), 1);
    assert_eq!((state.warnings[0].line, state.warnings[0].kind), (2, crate::WarningKind::TooDeep));
    assert!(state.messages[0].origin.dropped);
    assert!(state.messages[0].json.len() < 300);
    let (messages, report) = resumed(&j, "m1", None);
    assert_eq!(report.messages_dropped_at_replay, 1);
    assert!(report.remaining.is_empty(), "{:?}", report.remaining);
    assert_eq!(messages.len(), 1, "the note and the next prompt are one user turn");
}

/// Issue 9: closeOpenToolCalls after partial results wrote a second user
/// message, and checkMessages then reported the journal's own messages.
/// The API joins consecutive user messages into one turn; so does the check.
#[test]
fn partial_results_and_the_closing_record_are_one_turn() {
    let calls = r#"[{"type":"tool_use","id":"t1","name":"a","input":{}},{"type":"tool_use","id":"t2","name":"b","input":{}}]"#;
    let partial = results(r#"[{"type":"tool_result","tool_use_id":"t1","content":"done"}]"#);
    let j = [START, USER, &assistant(calls), &partial].join("\n");
    let state = rebuild_state(&j);
    let record = close_open_tool_calls(&state, "2026-11-30T00:00:00.000Z").expect("t2 is open");
    let mut journal = crate::Journal::default();
    journal.feed(&format!("{j}\n"));
    journal.write(&record).expect("written");
    let texts: Vec<String> = journal.state().messages.iter().map(|m| m.json.to_string()).collect();
    assert_eq!(texts.len(), 4, "the closing record is a message of its own");
    assert_eq!(check_messages(&texts, false), vec![], "but one turn with the partial results");
    // Text in the first user message of a run still puts results after it.
    let bad =
        [START, USER, &assistant(calls), &results(r#"[{"type":"text","text":"hi"}]"#), &partial].join("\n");
    let texts: Vec<String> = rebuild_state(&bad).messages.iter().map(|m| m.json.to_string()).collect();
    assert!(check_messages(&texts, false).iter().any(|p| p.kind == ProblemKind::ToolResultNotFirst));
}

/// Half an emoji (what JS `.slice()` leaves, and `JSON.stringify` writes as
/// an escape) is text, not nothing: the prompt and the answer stay, the
/// escape goes back as it came.
#[test]
fn a_lone_surrogate_keeps_its_message_and_its_escape() {
    let prompt = r#"{"type":"user","message":{"role":"user","content":"half \ud83d here"}}"#;
    let block = r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"\ud83d"}]}}"#;
    let reply = assistant(r#"[{"type":"text","text":"an answer \udc00"}]"#);
    let j = [START, prompt, &reply, block, &reply].join("\n");
    let state = rebuild_state(&j);
    let r = resume(&state, &ResumeOptions::default());
    let (out, report) = (r.messages_json(), r.report);
    assert_eq!(out.len(), 4, "{out:?} {report:?}");
    assert_eq!(report.messages_removed + report.blank_text_removed, 0);
    assert!(out[0].contains(r"half \ud83d here"), "{}", out[0]);
    assert!(out[2].contains(r"\ud83d"), "{}", out[2]);
    assert!(check_messages(&out, false).is_empty());
    assert_eq!(super::message::lenient(r#""a\ud83d\ude00b\\ud83d""#).as_deref(), Some("a😀b\\ud83d"));
    assert_eq!(super::message::lenient(r#""\udc00x""#).as_deref(), Some("\u{fffd}x"));
}

/// repairThinking, as checkMessages sees it: a signed block whose text the
/// Redactor changed is refused by the API.
#[test]
fn check_messages_flags_signed_thinking_whose_text_was_redacted() {
    let msgs = [
        r#"{"role":"user","content":"go"}"#,
        r#"{"role":"assistant","content":[{"type":"thinking","thinking":"the key [REDACTED]","signature":"c2ln"},{"type":"text","text":"x"}]}"#,
    ]
    .map(str::to_owned);
    let kinds: Vec<&str> = check_messages(&msgs, false).iter().map(|p| p.kind.as_str()).collect();
    assert_eq!(kinds, ["thinking-redacted"]);
}

/// Many tool calls, reused ids among them: each reuse renamed once, every
/// call answered (the sets that made this linear give what the lists gave).
#[test]
fn many_tool_calls_with_reused_ids_are_renamed_and_answered() {
    let mut lines = vec![START.to_owned(), USER.to_owned()];
    for i in 0..2000 {
        let id = format!("t{}", i % 1500);
        lines.push(assistant(&format!(r#"[{{"type":"tool_use","id":"{id}","name":"x","input":{{}}}}]"#)));
        lines.push(results(&format!(r#"[{{"type":"tool_result","tool_use_id":"{id}","content":"r"}}]"#)));
    }
    let (messages, report) = resumed(&lines.join("\n"), "m1", None);
    assert_eq!(report.tool_use_ids_renamed, 500);
    assert!(report.remaining.is_empty(), "{:?}", &report.remaining[..3.min(report.remaining.len())]);
    assert_eq!(messages.len(), 4001);
    assert_eq!(messages[3001]["content"][0]["id"], "t0_dup2");
    assert_eq!(messages[3002]["content"][0]["tool_use_id"], "t0_dup2");
}
