//! The readers over real sessions of other agents (`../shared/peers/`): every
//! file is read in its own format (detected from its first line), in one
//! piece and in chunks alike, without a panic; what each reader must get
//! right is checked on the file that shows it; and every conversation resumes
//! to a history the API accepts. Token totals against ccusage are checked by
//! tests/smoke/ccusage.test.mjs.

#[path = "support/shared.rs"]
mod shared;

use garuda_session::formats::Format;
use garuda_session::resume::{check_messages, resume, ResumeOptions};
use garuda_session::{Journal, SessionState, WarningKind};

fn read(bytes: &[u8], step: usize) -> SessionState {
    let mut j = Journal::default();
    for chunk in bytes.chunks(step.max(1)) {
        j.feed_bytes(chunk);
    }
    j.finish();
    j.into_state()
}

fn peer(rel: &str) -> Option<SessionState> {
    let path = shared::shared_file("peers_formats", &format!("peers/{rel}"))?;
    Some(read(&std::fs::read(path).expect("readable"), usize::MAX))
}

#[test]
fn every_peer_file_is_read_in_its_own_format_and_resumes_to_an_accepted_history() {
    let Some(dir) = shared::shared_file("peers_formats", "peers") else { return };
    let all = shared::session_files(&dir);
    let mut read_files = 0;
    for path in all {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        // Not sessions: a sanitizer's manifest, Gemini's prompt log, a subagent's metadata.
        if name == "manifest.json" || name == "logs.json" || name.ends_with(".meta.json") {
            continue;
        }
        let rel = path.strip_prefix(&dir).expect("under peers").to_string_lossy().into_owned();
        let expected = match rel.split('/').next() {
            Some("claude-code") => Format::ClaudeCode,
            Some("codex") => Format::Codex,
            Some("pi") => Format::Pi,
            Some("gemini") => Format::Gemini,
            _ => continue,
        };
        let bytes = std::fs::read(&path).expect("readable");
        let whole = read(&bytes, usize::MAX);
        assert_eq!(whole.format, Some(expected), "{rel}");
        assert_eq!(read(&bytes, 4093), whole, "{rel}: chunks change nothing");
        // The usage report's quick replay counts the same.
        let mut quick = Journal::default().for_usage();
        quick.feed_bytes(&bytes);
        quick.finish();
        assert_eq!(quick.state().accounts.usage, whole.accounts.usage, "{rel}: usage-only replay");
        assert_eq!(quick.state().session_id, whole.session_id, "{rel}: usage-only replay's session id");
        let resumed = resume(&whole, &ResumeOptions::default());
        assert_eq!(
            check_messages(&resumed.messages_json(), false),
            vec![],
            "{rel}: the resumed history is refused"
        );
        assert!(
            !whole
                .warnings
                .iter()
                .any(|w| w.kind == WarningKind::BadField || w.kind == WarningKind::BadRecord),
            "{rel}: {:?}",
            whole.warnings
        );
        read_files += 1;
    }
    assert!(read_files >= 20, "{read_files} files read");
}

#[test]
fn claude_code_streamed_lines_are_one_response_with_the_last_usage() {
    // Bedrock (no requestId), 47 responses each split into several lines.
    let Some(s) = peer("claude-code/codemie-code/session-196820da.jsonl") else { return };
    assert_eq!(s.steps, 47);
    assert_eq!(s.accounts.usage.output_tokens, 65263, "ccusage's figure: the largest usage of each response");
}

#[test]
fn claude_code_compaction_and_title_rules() {
    let Some(s) = peer("claude-code/codemie-code/session-624a4a58.jsonl") else { return };
    assert!(
        s.messages.first().is_some_and(|m| m.json.contains("This session is being continued")),
        "the compact summary starts the conversation"
    );
    // No summary's leafUuid is in this file: no title from them.
    let Some(s) = peer("claude-code/codemie-code/session-9eda1058.jsonl") else { return };
    assert_eq!(s.title, None, "a summary pointing into another file is not this session's title");
    let Some(s) = peer("claude-code/agent-sessions-sanitized/small.jsonl") else { return };
    assert!(s.title.is_some(), "custom-title or ai-title");
}

#[test]
fn codex_repeated_totals_count_once() {
    // 573 token_count lines, 286 of them repeating the previous total.
    let Some(s) = peer(
        "codex/localpush-sanitized/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl",
    ) else {
        return;
    };
    let u = s.accounts.usage;
    assert_eq!((u.input_tokens, u.cache_read_tokens, u.output_tokens), (2_188_981, 31_621_504, 133_999));
    let Some(s) =
        peer("codex/codemie-code/rollout-2026-05-11T13-28-45-019e1695-0522-7c83-8b39-0dd379793f80.jsonl")
    else {
        return;
    };
    assert_eq!(s.accounts.cost_usd, None, "no token_count: the cost is unknown, not $0");
    assert!(s.prompts >= 3, "prompts recorded only as events are prompts");
}

#[test]
fn pi_recorded_costs_win() {
    let Some(s) = peer("pi/pi-mono/large-session.jsonl") else { return };
    let cost = s.accounts.cost_usd.expect("recorded");
    assert!((cost - 30.330198).abs() < 1e-3, "{cost}: the sum of the costs pi recorded");
    assert!(s.messages.iter().any(|m| m.json.contains("tool_use")));
}

#[test]
fn claude_code_chains_through_system_lines_and_parallel_results_rejoin() {
    // One linear chain of 3 prompts, linked through system/turn_duration lines.
    let Some(s) = peer("claude-code/codemie-code/session-9eda1058.jsonl") else { return };
    assert_eq!(s.prompts, 3);
    assert!(!s.warnings.iter().any(|w| w.kind == WarningKind::OtherBranch), "{:?}", s.warnings);
    // A subagent's file of parallel calls: each result a child of its own call.
    let Some(s) = peer("claude-code/codemie-code/incremental-subagents/turn-2/subagents/agent-a485154.jsonl")
    else {
        return;
    };
    let history = resume(&s, &ResumeOptions::default()).messages_json().join("\n");
    assert_eq!(history.matches(r#""type":"tool_result""#).count(), 20, "all 20 results");
    assert!(!history.contains(garuda_session::transcript::INTERRUPTED));
}

/// The peers' files that are no sessions (a sanitizer's manifest, Gemini
/// CLI's prompt log, a subagent's metadata) are never read as an empty
/// session: each is in no known format (a JSON object that opens like a
/// Gemini CLI document says why in a bad-record warning).
#[test]
fn the_peers_files_that_are_no_sessions_say_so() {
    let Some(dir) = shared::shared_file("peers_formats", "peers") else { return };
    let mut seen = 0;
    for path in shared::session_files(&dir) {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if !(name == "manifest.json" || name == "logs.json" || name.ends_with(".meta.json")) {
            continue;
        }
        seen += 1;
        let s = read(&std::fs::read(&path).expect("readable"), usize::MAX);
        // In no known format: never a session of some format that cost $0.
        assert!(
            s.format.is_none() && s.messages.is_empty(),
            "{}: {:?} {:?}",
            path.display(),
            s.format,
            s.warnings
        );
    }
    assert!(seen > 0, "no such file under {}", dir.display());
}
