//! A kept run reads as `with_run` reads it from the whole file: the oracle
//! is that read, on the fixtures and on a file built to be awkward (calls
//! with one prompt, a run with no call, runs interleaved, a bad line).

use crate::journal::Journal;

/// The whole file read once, keeping its runs.
fn kept(text: &str) -> Journal {
    let mut j = Journal::default().with_history().keeping_runs();
    j.feed(text);
    j.finish();
    j
}

/// The oracle: the file read again, for one run alone.
fn alone(text: &str, id: &str) -> Journal {
    let mut j = Journal::default().with_history().with_run(id);
    j.feed(text);
    j.finish();
    j
}

/// Each run's state is the oracle's, but for the warnings about the file's
/// own lines (a line that is not JSON), which the session's read gave.
fn same_runs(text: &str, ids: &[&str]) -> usize {
    let mut main = kept(text);
    let mut found = 0;
    for id in ids {
        let want = alone(text, id);
        let Some(got) = main.run_journal(id) else {
            assert_eq!(want.state().prompts + want.state().steps, 0, "{id}: the whole file has a run");
            continue;
        };
        found += 1;
        let mut want = want.into_state();
        let got = got.into_state();
        for w in main.state().warnings.iter().filter(|w| w.kind == crate::state::WarningKind::BadJson) {
            if let Some(i) = want.warnings.iter().position(|x| x == w) {
                want.warnings.remove(i);
                want.warning_counts[w.kind.index()] -= 1;
            }
        }
        assert_eq!(got, want, "{id}");
        assert!(got.prompts >= 1, "{id}: {got:?}");
    }
    found
}

#[test]
fn the_fixture_run_reads_as_the_whole_file_reads_it() {
    let text = crate::formats::tests::fixture("claude-code-chain.jsonl");
    assert_eq!(same_runs(&text, &["toolu_task", "toolu_nowhere"]), 1);
    // Without `keeping_runs`, nothing is kept.
    let mut j = Journal::default().with_history();
    j.feed(&text);
    j.finish();
    assert!(j.run_journal("toolu_task").is_none());
}

/// Task calls and their runs, some awkward: two calls with one prompt (the
/// first run is the first call's), runs interleaved with the session and
/// each other, a sidechain no call started, a line that is not JSON.
#[test]
fn awkward_runs_read_as_the_whole_file_reads_them() {
    let sid = "11111111-2222-3333-4444-555555555555";
    let line = |o: serde_json::Value| {
        let mut v = serde_json::json!({ "userType": "external", "cwd": "/p", "sessionId": sid, "version": "1.0.108", "isSidechain": false });
        v.as_object_mut().unwrap().extend(o.as_object().unwrap().clone());
        v.to_string()
    };
    let user = |uuid: &str, parent: Option<&str>, side: bool, content: serde_json::Value| {
        line(
            serde_json::json!({ "type": "user", "uuid": uuid, "parentUuid": parent, "isSidechain": side, "timestamp": "2026-01-01T00:00:00Z", "message": { "role": "user", "content": content } }),
        )
    };
    let reply = |uuid: &str, parent: &str, side: bool, mid: &str, content: serde_json::Value| {
        line(
            serde_json::json!({ "type": "assistant", "uuid": uuid, "parentUuid": parent, "isSidechain": side, "requestId": format!("req_{mid}"), "timestamp": "2026-01-01T00:00:01Z",
            "message": { "id": mid, "type": "message", "role": "assistant", "model": "claude-sonnet-4-20250514", "content": content, "usage": { "input_tokens": 4, "output_tokens": 30 } } }),
        )
    };
    let task = |id: &str, prompt: &str| serde_json::json!([{ "type": "tool_use", "id": id, "name": "Task", "input": { "prompt": prompt } }]);
    let result =
        |id: &str| serde_json::json!([{ "type": "tool_result", "tool_use_id": id, "content": "done" }]);
    let text = [
        user("m1", None, false, "start".into()),
        reply("m2", "m1", false, "msg_1", task("toolu_a", "same prompt")),
        reply("m3", "m2", false, "msg_2", task("toolu_b", "same prompt")),
        user("a1", None, true, "same prompt".into()),
        user("x1", None, true, "a run no call started".into()),
        "{not json".to_owned(),
        user("b1", None, true, "same prompt".into()),
        reply("a2", "a1", true, "msg_a", serde_json::json!([{ "type": "text", "text": "run a answers" }])),
        reply("b2", "b1", true, "msg_b", serde_json::json!([{ "type": "text", "text": "run b answers" }])),
        user("m4", Some("m3"), false, result("toolu_a")),
        user("m5", Some("m4"), false, result("toolu_b")),
        reply("m6", "m5", false, "msg_3", task("toolu_c", "another")),
        user("c1", None, true, "another".into()),
        reply("c2", "c1", true, "msg_c", serde_json::json!([{ "type": "text", "text": "run c answers" }])),
        user("m7", Some("m6"), false, result("toolu_c")),
    ]
    .join("\n");
    assert_eq!(same_runs(&text, &["toolu_a", "toolu_b", "toolu_c", "toolu_x"]), 3);
    let mut main = kept(&text);
    let b = main.run_journal("toolu_b").unwrap();
    let all: String = b.state().messages.iter().map(|m| m.json.as_str()).collect();
    assert!(all.contains("run b answers") && !all.contains("run a answers"), "{all}");
    // Asked twice, a run reads the same twice.
    assert_eq!(main.run_journal("toolu_c").unwrap().state(), main.run_journal("toolu_c").unwrap().state());
}

/// A run's responses are told in the run when a result the transcript
/// gets names it, and as a subagent's landmark when none does: here the
/// file ends while the subagent works (a session killed mid-Task, or one
/// still being written), so the run is drawn under no call.
#[test]
fn a_run_no_result_names_is_told_as_a_subagents() {
    use crate::record::RecordKind;
    use crate::state::HistoryItem;
    let line = |o: serde_json::Value| {
        let mut v = serde_json::json!({ "sessionId": "s", "version": "1.0.108", "isSidechain": false, "timestamp": "2026-01-01T00:00:00Z" });
        v.as_object_mut().unwrap().extend(o.as_object().unwrap().clone());
        v.to_string()
    };
    let lines = [
        line(
            serde_json::json!({ "type": "user", "uuid": "m1", "parentUuid": null, "message": { "role": "user", "content": "start" } }),
        ),
        line(
            serde_json::json!({ "type": "assistant", "uuid": "m2", "parentUuid": "m1", "requestId": "req_1",
            "message": { "id": "msg_1", "role": "assistant", "model": "claude-sonnet-4-20250514", "usage": { "input_tokens": 4, "output_tokens": 30 },
                "content": [{ "type": "tool_use", "id": "toolu_a", "name": "Task", "input": { "prompt": "look" } }] } }),
        ),
        line(
            serde_json::json!({ "type": "user", "uuid": "a1", "parentUuid": null, "isSidechain": true, "message": { "role": "user", "content": "look" } }),
        ),
        line(
            serde_json::json!({ "type": "assistant", "uuid": "a2", "parentUuid": "a1", "isSidechain": true, "requestId": "req_a",
            "message": { "id": "msg_a", "role": "assistant", "model": "claude-sonnet-4-20250514", "usage": { "input_tokens": 7, "output_tokens": 9 },
                "content": [{ "type": "text", "text": "looking" }] } }),
        ),
    ];
    let result = line(serde_json::json!({ "type": "user", "uuid": "m3", "parentUuid": "m2",
        "message": { "role": "user", "content": [{ "type": "tool_result", "tool_use_id": "toolu_a", "content": "done" }] } }));
    let landmarks = |text: &str| -> Vec<String> {
        let j = kept(text);
        let told = j.state().history.iter().flatten().filter_map(|h| match h {
            HistoryItem::Landmark { kind: RecordKind::SideUsage, text, .. } => Some(text.clone()),
            _ => None,
        });
        assert_eq!(j.state().accounts.usage.output_tokens, 39, "both responses count either way");
        told.collect()
    };
    assert_eq!(landmarks(&lines.join("\n")), ["side_usage: 16 tokens (subagent)"]);
    let whole = format!("{}\n{result}", lines.join("\n"));
    assert_eq!(landmarks(&whole), Vec::<String>::new());
}
