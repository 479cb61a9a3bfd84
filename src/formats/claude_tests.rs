//! Claude Code's conversation tree on tests/formats/claude-code-chain.jsonl:
//! a CC 2.x session whose chain runs through `system`, `attachment` and
//! `progress` lines, with two parallel calls, a rewound prompt, a Task whose
//! run is inline (`isSidechain`), a queued prompt, and a late progress line
//! after the last message.

use super::tests::{fixture, read};
use crate::journal::Journal;
use crate::state::{HistoryItem, SessionState, WarningKind};

fn chain() -> SessionState {
    read(&fixture("claude-code-chain.jsonl"))
}

fn all_messages(s: &SessionState) -> String {
    s.messages.iter().map(|m| m.json.as_str()).collect::<Vec<_>>().join("\n")
}

#[test]
fn the_chain_runs_through_every_line_with_a_uuid() {
    let s = chain();
    // u1, u2 (after a system/turn_duration line) and the queued prompt.
    assert_eq!(s.prompts, 3, "{}", all_messages(&s));
    let text = all_messages(&s);
    for said in [
        "List the source files",
        "Read parse.ts and find its tests",
        "also check the docs",
        "the docs say nothing",
    ] {
        assert!(text.contains(said), "{said} is in the conversation");
    }
    // a1, the parallel response, the Task call, the last answer.
    assert_eq!(s.steps, 4);
}

#[test]
fn parallel_calls_keep_both_results() {
    let s = chain();
    let text = all_messages(&s);
    for id in ["toolu_read", "toolu_glob", "toolu_task"] {
        assert!(text.contains(&format!(r#""tool_use_id":"{id}""#)), "{id} has its result");
    }
    let resumed = crate::resume::resume(&s, &crate::resume::ResumeOptions::default());
    let history = resumed.messages_json().join("\n");
    assert!(!history.contains(crate::transcript::INTERRUPTED), "no result is made up: {history}");
}

#[test]
fn a_rewound_prompt_stays_out_with_its_warning_and_links_do_not_count_as_branches() {
    let s = chain();
    assert!(!all_messages(&s).contains("took back"));
    let branches: Vec<_> = s.warnings.iter().filter(|w| w.kind == WarningKind::OtherBranch).collect();
    assert_eq!(branches.len(), 1, "{:?}", s.warnings);
    assert!(
        branches[0].message.starts_with("2 lines"),
        "the prompt and its answer only: {}",
        branches[0].message
    );
    // Its request was paid for: 5 + 5 tokens, with the sidechain's 7 + 9.
    let u = s.accounts.usage;
    assert_eq!(u.input_tokens, 10 + 30 + 50 + 60 + 5 + 7);
    assert_eq!(u.output_tokens, 20 + 40 + 30 + 25 + 5 + 9);
}

#[test]
fn an_inline_sidechain_is_the_child_run_of_its_task_call() {
    let mut j = Journal::default().with_history();
    j.feed(&fixture("claude-code-chain.jsonl"));
    j.finish();
    let s = j.into_state();
    let linked = s.history.iter().flatten().any(|h| match h {
        HistoryItem::Message { turn: Some(t), .. } => {
            t.children.iter().any(|(id, child)| id == "toolu_task" && child == "sidechain-toolu_task")
        }
        _ => false,
    });
    assert!(linked, "the Task call names its run");
    // The run, read alone, is a session of its own: one prompt, one response.
    let mut j = Journal::default().with_run("toolu_task");
    j.feed(&fixture("claude-code-chain.jsonl"));
    j.finish();
    let run = j.into_state();
    assert_eq!((run.prompts, run.steps), (1, 1));
    assert!(all_messages(&run).contains("Find the tests of parse.ts"));
    assert_eq!((run.accounts.usage.input_tokens, run.accounts.usage.output_tokens), (7, 9));
    // An unknown call has no run: nothing, and no panic.
    let mut j = Journal::default().with_run("toolu_nowhere");
    j.feed(&fixture("claude-code-chain.jsonl"));
    j.finish();
    assert_eq!(j.state().prompts, 0);
}

/// Slash commands in the shapes Claude Code writes them (the peers'
/// claude-code-viewer `/init` and `/orchestrator` sessions, codemie-code's
/// `/clear`): a command whose expansion the model answered is a turn and the
/// first prompt; `/clear`, answered by local output alone, is not.
#[test]
fn a_slash_command_that_asks_the_model_is_a_turn() {
    let line = |uuid: &str, parent: Option<&str>, rest: &str| {
        let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
        format!(
            r#"{{"parentUuid":{parent},"isSidechain":false,"sessionId":"s","uuid":"{uuid}","timestamp":"2026-01-05T10:00:00.000Z",{rest}}}"#
        )
    };
    let user = |t: &str| {
        format!(
            r#""type":"user","message":{{"role":"user","content":{}}}"#,
            serde_json::to_string(t).unwrap()
        )
    };
    let text = [
        line("c0", None, &user("<command-name>/clear</command-name>\n            <command-message>clear</command-message>\n            <command-args></command-args>")),
        line("c1", Some("c0"), &user("<local-command-stdout></local-command-stdout>")),
        line("u1", Some("c1"), &user("<command-message>init is analyzing your codebase…</command-message>\n<command-name>/init</command-name>\n<command-args>the parser</command-args>")),
        line("u2", Some("u1"), r#""type":"user","isMeta":true,"message":{"role":"user","content":[{"type":"text","text":"Please analyze this codebase and create a CLAUDE.md file."}]}"#),
        line("a1", Some("u2"), r#""type":"assistant","message":{"id":"msg_1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Done."}],"usage":{"input_tokens":3,"output_tokens":2}}"#),
    ]
    .join("\n");
    let s = read(&text);
    assert_eq!(s.prompts, 1, "{}", all_messages(&s));
    assert_eq!(crate::transcript::index_prompt(&s).as_deref(), Some("/init the parser"));
    // The command's words and its expansion both reach the model.
    let text = all_messages(&s);
    assert!(text.contains("/init") && text.contains("create a CLAUDE.md file"));
}
