//! Each reader on small fixtures written in its format's shape (the real
//! transcripts of ../shared/peers are read by tests/peers_formats.rs).

use crate::formats::Format;
use crate::journal::Journal;
use crate::record::RecordKind;
use crate::state::{HistoryItem, SessionState, WarningKind};

pub fn read(text: &str) -> SessionState {
    let mut j = Journal::default();
    j.feed(text);
    j.finish();
    j.into_state()
}

/// Every fixture of tests/formats/, each read by its format's reader.
pub const FIXTURES: [&str; 10] = [
    "claude-code.jsonl",
    "claude-code-chain.jsonl",
    "codex.jsonl",
    "codex-totals.jsonl",
    "pi.jsonl",
    "pi-v1.jsonl",
    "gemini.json",
    "gemini-oneline.json",
    "gemini-history.json",
    "gemini.jsonl",
];

pub fn fixture(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/formats").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn detection_names_each_format_from_its_first_line() {
    for (line, format) in [
        (r#"{"type":"start","sessionId":"s","model":"m"}"#, Some(Format::Garuda)),
        (r#"{"type":"user","message":{"role":"user","content":"hi"}}"#, Some(Format::Garuda)),
        (
            r#"{"parentUuid":null,"isSidechain":false,"sessionId":"x","type":"user","message":{"role":"user","content":"hi"},"uuid":"u1"}"#,
            Some(Format::ClaudeCode),
        ),
        (r#"{"type":"summary","summary":"t","leafUuid":"u"}"#, Some(Format::ClaudeCode)),
        (
            r#"{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"r"}}"#,
            Some(Format::Codex),
        ),
        (
            r#"{"type":"session","version":3,"id":"p","timestamp":"2026-01-01T00:00:00Z","cwd":"/x"}"#,
            Some(Format::Pi),
        ),
        ("{", Some(Format::Gemini)),
        (r#"{"sessionId":"g","projectHash":"h","startTime":"2026-01-01T00:00:00Z"}"#, Some(Format::Gemini)),
        (r#"{"hello":"world"}"#, None),
        ("not json", None),
    ] {
        assert_eq!(Format::detect(line), format, "{line}");
    }
}

#[test]
fn claude_code_merges_streamed_blocks_follows_the_active_path_and_prices_cache_writes() {
    let s = read(&fixture("claude-code.jsonl"));
    assert_eq!(s.format, Some(Format::ClaudeCode));
    assert_eq!(s.prompts, 2, "the command wrapper and the meta line are not prompts");
    assert_eq!(s.steps, 3, "three responses: the streamed one merged");
    assert_eq!(s.title.as_deref(), Some("Fix the parser"), "the custom title wins");
    // The streamed response: its usage once, the largest; the sidechain's as side usage.
    assert_eq!(
        s.accounts.usage.output_tokens,
        300 + 40 + 25 + 7 + 100,
        "the abandoned branch's request was paid for too"
    );
    assert_eq!(s.accounts.usage.cache_write_tokens, 2000 + 1000);
    assert!(s.warnings.iter().any(|w| w.kind == WarningKind::OtherBranch), "{:?}", s.warnings);
    let texts: Vec<&str> = s.messages.iter().map(|m| m.json.as_str()).collect();
    assert!(!texts.iter().any(|m| m.contains("abandoned")), "the rewound branch is not in the conversation");
    assert!(texts.iter().any(|m| m.contains("toolu_1") && m.contains("tool_use")), "blocks joined");
    // 5-minute and 1-hour writes are priced apart: 1000 at 3.75 and 1000 at 6 per million, and so on.
    let cost = s.accounts.cost_usd.expect("priced");
    let expect = (10.0 * 3.0 + 300.0 * 15.0 + 1000.0 * 3.75 + 1000.0 * 6.0 + 500.0 * 0.3) / 1e6
        + (5.0 * 3.0 + 40.0 * 15.0 + 1000.0 * 3.75) / 1e6
        + (3.0 * 3.0 + 25.0 * 15.0) / 1e6
        + (2.0 * 1.0 + 7.0 * 5.0) / 1e6
        + (100.0 * 3.0 + 100.0 * 15.0) / 1e6;
    assert!((cost - expect).abs() < 1e-9, "{cost} vs {expect}");
}

#[test]
fn codex_counts_advancing_totals_only_and_takes_cached_tokens_out_of_input() {
    let s = read(&fixture("codex.jsonl"));
    assert_eq!(s.format, Some(Format::Codex));
    assert_eq!(s.prompts, 1, "the environment context is not a prompt");
    let u = s.accounts.usage;
    assert_eq!(
        (u.input_tokens, u.cache_read_tokens, u.output_tokens),
        (1000 - 800 + 1500 - 1200, 800 + 1200, 50 + 70)
    );
    assert!(
        s.messages.iter().any(|m| m.json.contains("redacted_thinking")),
        "encrypted reasoning kept as ciphertext"
    );
    assert!(s.accounts.cost_usd.is_some());
}

#[test]
fn a_codex_rollout_without_token_counts_has_an_unknown_cost() {
    let text: String = fixture("codex.jsonl")
        .lines()
        .filter(|l| !l.contains("token_count"))
        .map(|l| format!("{l}\n"))
        .collect();
    let s = read(&text);
    assert_eq!(s.accounts.cost_usd, None, "unknown, never $0");
    assert!(s.warnings.iter().any(|w| w.kind == WarningKind::UsageUnknown));
}

#[test]
fn pi_keeps_its_recorded_cost_and_the_tree_path() {
    let s = read(&fixture("pi.jsonl"));
    assert_eq!(s.format, Some(Format::Pi));
    assert_eq!(s.accounts.cost_usd, Some(0.5 + 0.25), "recorded costs win over the table");
    assert_eq!(s.prompts, 2);
    assert!(
        s.messages.iter().any(|m| m.json.contains(r#""signature":"sig-1""#)),
        "thinkingSignature is the signature"
    );
    assert!(s.warnings.iter().any(|w| w.kind == WarningKind::OtherBranch));
}

#[test]
fn gemini_reads_the_document_and_the_jsonl_with_patches() {
    for name in ["gemini.json", "gemini.jsonl"] {
        let s = read(&fixture(name));
        assert_eq!(s.format, Some(Format::Gemini), "{name}");
        assert_eq!(s.prompts, 1, "{name}");
        let u = s.accounts.usage;
        assert_eq!(
            (u.input_tokens, u.cache_read_tokens, u.output_tokens),
            (1000 - 400 + 1200 - 1000, 400 + 1000, 30 + 20 + 40),
            "{name}: thoughts billed as output"
        );
        assert!(s.messages.iter().any(|m| m.json.contains("tool_result")), "{name}");
    }
}

/// A JSON file that is not a session (a settings file, a manifest) opens
/// like a Gemini CLI document: it says so, where it read as an empty
/// session, and its format is unknown (it was a Gemini session that cost
/// $0, and `replay` printed it so).
#[test]
fn a_json_document_without_messages_is_not_a_gemini_session() {
    for text in ["{\n  \"manifest_version\": 1,\n  \"files\": []\n}\n", "{\n\"messages\": 3\n}\n"] {
        let s = read(text);
        assert_eq!(s.format, None);
        assert_eq!(s.accounts.cost_usd, None);
        assert!(s.messages.is_empty());
        let w: Vec<_> = s.warnings.iter().map(|w| (w.line, w.kind)).collect();
        assert_eq!(w, vec![(1, WarningKind::BadRecord)], "{text}");
    }
    // An empty session is still one.
    let s = read("{\n\"sessionId\": \"s\",\n\"messages\": []\n}\n");
    assert_eq!(s.warnings, vec![]);
    assert_eq!(s.format, Some(Format::Gemini));
}

#[test]
fn chunking_never_changes_what_a_reader_gives() {
    for name in FIXTURES {
        let text = fixture(name);
        let whole = read(&text);
        for step in [1, 7, 100] {
            let mut j = Journal::default();
            for chunk in text.as_bytes().chunks(step) {
                j.feed_bytes(chunk);
            }
            j.finish();
            assert_eq!(j.state(), &whole, "{name} in chunks of {step}");
        }
    }
}

/// What Garuda would send after importing any of them: the resumed history
/// passes checkMessages (unsigned thoughts of other models are dropped).
#[test]
fn every_reader_gives_a_history_that_resumes_to_one_the_api_accepts() {
    for name in FIXTURES {
        let s = read(&fixture(name));
        let resumed = crate::resume::resume(&s, &crate::resume::ResumeOptions::default());
        assert_eq!(crate::resume::check_messages(&resumed.messages_json(), false), vec![], "{name}");
        assert!(!resumed.messages_json().is_empty(), "{name}");
    }
}

/// A usage report's replay (no messages) counts what the full one counts.
#[test]
fn usage_only_replay_counts_the_same() {
    let text = fixture("claude-code.jsonl");
    let full = read(&text);
    let mut j = Journal::default().for_usage();
    j.feed(&text);
    j.finish();
    let quick = j.into_state();
    assert_eq!(quick.accounts.usage, full.accounts.usage);
    assert_eq!(
        quick.accounts.cost_usd.map(|c| (c * 1e9).round()),
        full.accounts.cost_usd.map(|c| (c * 1e9).round())
    );
    let days = |s: &SessionState| {
        s.ledger.iter().map(|((d, m), e)| (d.clone(), m.clone(), e.usage)).collect::<Vec<_>>()
    };
    assert_eq!(days(&quick), days(&full));
    assert!(quick.messages.is_empty());
    // The session's id comes back typed, not as a record: the same id.
    assert!(full.session_id.is_some());
    assert_eq!(quick.session_id, full.session_id);
    // Kept as records (keepTranslation with usageOnly), the read still
    // starts with the session's start record, replayed to the same id.
    let mut kept = Journal::default().for_usage().keeping_translation();
    kept.feed(&text);
    kept.finish();
    let records = kept.take_translated();
    assert!(records[0].1.starts_with(r#"{"type":"start","sessionId":"#), "{:?}", records[0]);
    let mut again = Journal::default();
    for (_, record) in &records {
        again.read_line(record);
    }
    again.finish();
    assert_eq!(again.into_state().session_id, full.session_id);
}

fn usage_bytes(chunks: &[&[u8]]) -> SessionState {
    let mut j = Journal::default().for_usage();
    for c in chunks {
        j.feed_bytes(c);
    }
    j.finish();
    j.into_state()
}

/// The usage-only read of bytes passes user lines over unread (no UTF-8
/// check): split at every byte it counts what the whole text does, a user
/// line that is not UTF-8 changes nothing and is not warned about (nothing
/// in it is read), and an assistant line that is not UTF-8 still is.
#[test]
fn usage_only_bytes_pass_user_lines_over() {
    let text = fixture("claude-code.jsonl");
    let whole = usage_bytes(&[text.as_bytes()]);
    let full = read(&text);
    assert_eq!(whole.accounts.usage, full.accounts.usage);
    assert!(whole.accounts.usage.output_tokens > 0);
    let b = text.as_bytes();
    for cut in 0..=b.len() {
        let split = usage_bytes(&[&b[..cut], &b[cut..]]);
        assert_eq!(split.accounts.usage, whole.accounts.usage, "cut at {cut}");
        assert_eq!(split.warnings.len(), whole.warnings.len(), "cut at {cut}");
    }
    // A user line with a byte that is not UTF-8, after the first line.
    let first_end = text.find('\n').unwrap() + 1;
    let bad_user =
        [&br#"{"type":"user","message":{"role":"user","content":"caf"#[..], &[0xff], br#""},"uuid":"x-1"}"#]
            .concat();
    let mut with_user = b[..first_end].to_vec();
    with_user.extend_from_slice(&bad_user);
    with_user.push(b'\n');
    with_user.extend_from_slice(&b[first_end..]);
    let s = usage_bytes(&[&with_user]);
    assert_eq!(s.accounts.usage, whole.accounts.usage);
    assert_eq!(s.warnings.len(), whole.warnings.len());
    // An assistant line that is not UTF-8 is read, its bad byte a U+FFFD as
    // Claude Code's and ccusage's own reading of the file has it: counted,
    // and warned about.
    let bad_reply = [
        &br#"{"type":"assistant","message":{"role":"assistant","id":"m-bad","model":"claude-sonnet-4-5","content":[{"type":"text","text":""#[..],
        &[0xff],
        br#""}],"usage":{"input_tokens":5,"output_tokens":5}},"uuid":"x-2"}"#,
    ]
    .concat();
    let mut with_reply = b[..first_end].to_vec();
    with_reply.extend_from_slice(&bad_reply);
    with_reply.push(b'\n');
    with_reply.extend_from_slice(&b[first_end..]);
    let s = usage_bytes(&[&with_reply]);
    assert_eq!(s.accounts.usage.input_tokens, whole.accounts.usage.input_tokens + 5);
    assert_eq!(s.accounts.usage.output_tokens, whole.accounts.usage.output_tokens + 5);
    assert_eq!(s.warnings.len(), whole.warnings.len() + 1);
    assert!(
        s.warnings.iter().any(|w| w.line == 2 && w.kind == crate::state::WarningKind::NotUtf8),
        "{:?}",
        s.warnings
    );
}

/// Times that are not ISO dates (or cut a character at byte 10) give no day, and no panic.
#[test]
fn odd_times_never_panic() {
    for t in ["2026-01-0é:00", "é", "", "2026-1-1", "20260101T00:00:00Z"] {
        let line = format!(
            r#"{{"type":"assistant","step":1,"response":{{"content":[],"usage":{{"inputTokens":1}}}},"t":{}}}"#,
            crate::formats::records::string(t)
        );
        let s = read(&format!("{line}\n"));
        assert_eq!(s.ledger.len(), 1, "{t}");
        assert_eq!(s.ledger[0].0 .0, "", "{t}");
    }
}

/// pi v1: `firstKeptEntryIndex` counts the header as entry 0, and a line of
/// two objects gives both, with a warning.
#[test]
fn pi_v1_indices_are_header_relative_and_joined_objects_are_both_read() {
    let s = read(&fixture("pi-v1.jsonl"));
    assert_eq!(s.format, Some(Format::Pi));
    let first = s.messages.get(1).map(|m| m.json.as_str()).unwrap_or("");
    assert!(
        first.contains(r#""type":"tool_use""#) && first.contains("call_1"),
        "the kept call comes first: {first}"
    );
    let text: Vec<&str> = s.messages.iter().map(|m| m.json.as_str()).collect();
    assert!(text.iter().any(|m| m.contains(r#""tool_use_id":"call_1""#)), "its result stays a result");
    assert!(
        text.iter().any(|m| m.contains("Now run it")) && text.iter().any(|m| m.contains("It printed hi."))
    );
    assert_eq!((s.prompts, s.steps), (2, 3));
    let joined: Vec<_> =
        s.warnings.iter().filter(|w| w.message.contains("2 JSON objects on one line")).collect();
    assert_eq!(joined.len(), 1, "{:?}", s.warnings);
    assert_eq!(joined[0].line, 7);
    assert!(!s.torn_tail);
}

/// Codex: each request's usage on its own day (23:58 on 01-10 is not 01-11,
/// when the next prompt came), totals-only counts by their growth, and each
/// record at the time of the line it cites.
#[test]
fn codex_usage_at_its_own_time_and_totals_only_counts_by_difference() {
    let mut j = Journal::default().with_history();
    j.feed(&fixture("codex-totals.jsonl"));
    j.finish();
    let s = j.into_state();
    let u = s.accounts.usage;
    // 1000 (600 cached) + 40, then +1500 (1200 cached) + 30, then 500 with 600 cached (input 0) + 10.
    assert_eq!((u.input_tokens, u.cache_read_tokens, u.output_tokens), (400 + 300, 600 + 1200 + 600, 80));
    assert!(s.accounts.cost_usd.is_some_and(|c| c > 0.0), "priced, not $0: {:?}", s.accounts.cost_usd);
    let day = |d: &str| {
        s.ledger.iter().filter(|((day, _), _)| day == d).map(|(_, e)| e.usage.output_tokens).sum::<u64>()
    };
    assert_eq!((day("2026-01-10"), day("2026-01-11")), (70, 10), "{:?}", s.ledger);
    let times: Vec<(RecordKind, String)> = s
        .history
        .iter()
        .flatten()
        .filter_map(|h| match h {
            HistoryItem::Message { kind, turn: Some(t), .. } => Some((*kind, t.t.as_deref()?.to_owned())),
            _ => None,
        })
        .collect();
    let of = |k: RecordKind| {
        times.iter().filter(|(kind, _)| *kind == k).map(|(_, t)| t.as_str()).collect::<Vec<_>>()
    };
    assert_eq!(
        of(RecordKind::Assistant),
        ["2026-01-10T23:58:00.000Z", "2026-01-10T23:58:30.000Z", "2026-01-11T09:00:05.000Z"]
    );
    assert_eq!(of(RecordKind::ToolResults), ["2026-01-10T23:58:02.000Z"]);
}

/// Gemini CLI: the document on one line reads as the pretty one; the
/// `history`/`parts` shape is a conversation with unknown usage; a shape
/// that gives no message is a warning with an unknown cost, never $0.
#[test]
fn gemini_one_line_history_shape_and_nothing_read_is_said() {
    let pretty = read(&fixture("gemini.json"));
    let one_line = read(&fixture("gemini-oneline.json"));
    assert_eq!(one_line.messages, pretty.messages);
    assert_eq!((one_line.prompts, one_line.accounts.usage), (pretty.prompts, pretty.accounts.usage));
    let h = read(&fixture("gemini-history.json"));
    assert_eq!(h.format, Some(Format::Gemini));
    assert_eq!((h.prompts, h.steps), (1, 2));
    let text: Vec<&str> = h.messages.iter().map(|m| m.json.as_str()).collect();
    assert!(
        text.iter().any(|m| m.contains(r#""tool_use_id":"read_file-1""#)),
        "the response answers its call: {text:?}"
    );
    assert_eq!(h.accounts.cost_usd, None, "no token counts: unknown, not $0");
    assert!(h.warnings.iter().any(|w| w.kind == WarningKind::UsageUnknown));
    // A JSONL file of its header alone: an empty session, not a document that failed.
    let lone =
        read("{\"sessionId\":\"g\",\"projectHash\":\"h\",\"startTime\":\"2026-04-01T10:00:00.000Z\"}\n");
    assert_eq!(lone.format, Some(Format::Gemini));
    assert!(lone.warnings.is_empty() && lone.accounts.cost_usd == Some(0.0), "{:?}", lone.warnings);
    let odd = read(
        "{\"sessionId\":\"g\",\"startTime\":\"2026-01-01T00:00:00Z\",\"turns\":[{\"content\":\"hello\"}]}\n",
    );
    assert_eq!(odd.format, Some(Format::Gemini));
    assert!(odd.messages.is_empty());
    assert_eq!(odd.accounts.cost_usd, None);
    assert!(odd.warnings.iter().any(|w| w.kind == WarningKind::UsageUnknown), "{:?}", odd.warnings);
}

/// Codex writes a prompt twice, as a `response_item` and as a `user_message`
/// event, in either order (codex/agent-sessions-sanitized: the event first):
/// one prompt either way.
#[test]
fn codex_a_prompt_and_its_echo_are_one_prompt_in_either_order() {
    let meta = r#"{"timestamp":"2026-02-01T10:00:00Z","type":"session_meta","payload":{"id":"r"}}"#;
    let item = r#"{"timestamp":"2026-02-01T10:00:01Z","type":"response_item","payload":{"type":"message","role":"user","content":[{"type":"input_text","text":"List the files"}]}}"#;
    let event = r#"{"timestamp":"2026-02-01T10:00:01Z","type":"event_msg","payload":{"type":"user_message","message":"List the files"}}"#;
    for lines in [[meta, item, event], [meta, event, item]] {
        let s = read(&(lines.join("\n") + "\n"));
        assert_eq!(s.prompts, 1, "{lines:?}");
    }
    let again = read(&([meta, item, event, item].join("\n") + "\n"));
    assert_eq!(again.prompts, 2, "the same words typed again are a prompt again");
}

/// A Claude Code response whose one tool input nests 5,000 levels deep (a
/// review's hostile file, stop 49): its thinking, its text and all five
/// calls stay, with a note for the one input; every result still answers
/// its call, and the history resumes to one the API accepts.
#[test]
fn one_deep_tool_input_costs_that_input_only() {
    let deep = format!("{}1{}", "[".repeat(5000), "]".repeat(5000));
    let call = |i: usize, input: &str| {
        format!(r#"{{"type":"tool_use","id":"toolu_{i}","name":"Bash","input":{input}}}"#)
    };
    let mut blocks = vec![
        r#"{"type":"thinking","thinking":"plan","signature":"c2ln"}"#.to_owned(),
        r#"{"type":"text","text":"running five"}"#.to_owned(),
    ];
    blocks.extend((0..5).map(|i| {
        call(i, &if i == 2 { format!(r#"{{"x":{deep}}}"#) } else { format!(r#"{{"command":"echo {i}"}}"#) })
    }));
    let results: Vec<String> = (0..5)
        .map(|i| format!(r#"{{"type":"tool_result","tool_use_id":"toolu_{i}","content":"{i}"}}"#))
        .collect();
    let base = r#""sessionId":"s","timestamp":"2026-12-01T10:00:00.000Z","cwd":"/w","version":"2.0.0""#;
    let file = [
        format!(r#"{{{base},"type":"user","uuid":"u1","parentUuid":null,"message":{{"role":"user","content":"go"}}}}"#),
        format!(r#"{{{base},"type":"assistant","uuid":"a1","parentUuid":"u1","message":{{"id":"m1","role":"assistant","model":"claude-sonnet-4-5","content":[{}],"usage":{{"input_tokens":1,"output_tokens":1}}}}}}"#, blocks.join(",")),
        format!(r#"{{{base},"type":"user","uuid":"u2","parentUuid":"a1","message":{{"role":"user","content":[{}]}}}}"#, results.join(",")),
    ]
    .join("\n");
    let s = read(&file);
    assert_eq!(s.messages.len(), 3);
    let reply: serde_json::Value = serde_json::from_str(&s.messages[1].json).unwrap();
    let kinds: Vec<&str> =
        reply["content"].as_array().unwrap().iter().map(|b| b["type"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["thinking", "text", "tool_use", "tool_use", "text", "tool_use", "tool_use", "tool_use"]
    );
    assert_eq!(reply["content"][5]["input"], serde_json::json!({}));
    assert!(!s.messages[1].origin.dropped);
    assert!(s.warnings.iter().any(|w| w.kind == WarningKind::TooDeep && w.line == 2), "{:?}", s.warnings);
    let texts: Vec<String> = s.messages.iter().map(|m| m.json.to_string()).collect();
    assert_eq!(crate::resume::check_messages(&texts, false), vec![]);
}

/// A line of the format's shape with a value of the wrong type is a bad
/// field named by its path; a line that is not JSON is bad JSON, and the
/// last such line, unfinished, a torn tail.
#[test]
fn a_line_the_reader_cannot_read_says_which_value_and_why() {
    let line = |n: u32, input: &str| {
        format!(
            r#"{{"type":"assistant","sessionId":"s","uuid":"u{n}","parentUuid":null,"timestamp":"2026-01-01T10:00:0{n}Z","requestId":"r{n}","message":{{"id":"m{n}","role":"assistant","model":"claude-sonnet-4-5","content":[],"usage":{{"input_tokens":{input},"output_tokens":1}}}}}}"#
        )
    };
    let text = format!(
        "{}\n{}\n{{nope\n{}\n{{\"type\":\"assistant\",\"mess",
        line(1, "5"),
        line(2, "\"6\""),
        line(3, "-1")
    );
    for usage_only in [false, true] {
        let mut j = if usage_only { Journal::default().for_usage() } else { Journal::default() };
        j.feed(&text);
        j.finish();
        let s = j.state();
        let w: Vec<_> = s.warnings.iter().map(|w| (w.line, w.kind, w.message.as_str())).collect();
        let mut want = vec![
            (2, WarningKind::BadField, "not a Claude Code line: `message.usage.input_tokens`: invalid type: string \"6\", expected u64"),
            (3, WarningKind::BadJson, "not a Claude Code line: key must be a string"),
            (4, WarningKind::BadField, "not a Claude Code line: `message.usage.input_tokens`: invalid value: integer `-1`, expected u64"),
        ];
        if usage_only {
            // A usage read passes over a line that is no response unread.
            want.remove(1);
        }
        assert_eq!(w, want, "usage_only {usage_only}");
        // (A usage read passes over it too: it holds no usage.)
        assert_eq!(s.torn_tail, !usage_only);
    }
}

/// A `{` opens a Gemini CLI document only as its file's first line: a JSON
/// array of objects (Gemini CLI's logs.json) is in no known format, as the
/// doctor and export say, where replay read it from its second line on.
#[test]
fn a_json_array_is_no_gemini_document() {
    let s = read("[\n  {\n    \"sessionId\": \"s\",\n    \"type\": \"user\"\n  }\n]\n");
    assert_eq!(s.format, None);
    assert!(s.warnings.iter().all(|w| w.kind == WarningKind::BadJson));
    // A first line that is not JSON before a Garuda journal still leaves the journal read.
    let s = read("garbage\n{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n");
    assert_eq!((s.format, s.prompts), (Some(Format::Garuda), 1));
}

#[test]
fn a_line_that_is_json_but_no_object_is_a_bad_record() {
    let s = read("{\"type\":\"user\",\"sessionId\":\"s\",\"uuid\":\"u1\",\"parentUuid\":null,\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n[1,2]\n7\n");
    assert_eq!(s.format, Some(Format::ClaudeCode));
    let w: Vec<_> = s.warnings.iter().map(|w| (w.line, w.kind)).collect();
    assert_eq!(w, vec![(2, WarningKind::BadRecord), (3, WarningKind::BadRecord)]);
}

/// A crash that left one byte of a journal's first record: a lone `{` is no
/// Gemini CLI document. Alone it is of no format (and costs nothing
/// known); with records after it (a store writes on after a torn line) the
/// journal is read, the `{` a torn line.
#[test]
fn a_lone_brace_is_a_torn_line_not_a_gemini_document() {
    let alone = read("{");
    assert_eq!(alone.format, None);
    assert_eq!(alone.accounts.cost_usd, None);
    let journal = "{\n{\"type\":\"resume\",\"model\":\"m\",\"sessionId\":\"s\"}\n{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n";
    let s = read(journal);
    assert_eq!(s.format, Some(Format::Garuda));
    assert_eq!(s.messages.len(), 1);
    assert_eq!(
        s.warnings.iter().map(|w| (w.line, w.kind)).collect::<Vec<_>>(),
        vec![(1, WarningKind::BadJson)]
    );
    // A Gemini CLI document still opens with a lone `{`.
    let doc = read(&fixture("gemini.json"));
    assert_eq!(doc.format, Some(Format::Gemini));
    assert!(!doc.messages.is_empty());
}

/// A format asked for that the file is not in reads what it can, and says
/// so: a Garuda journal read as Codex counted nothing, silently ($0, exit 0).
#[test]
fn a_forced_format_the_file_is_not_in_is_a_warning() {
    let journal = fixture("codex.jsonl");
    let mut j = Journal::default().with_format(Format::Pi);
    j.feed(&journal);
    j.finish();
    let s = j.into_state();
    assert!(
        s.warnings.iter().any(|w| w.line == 1 && w.message.contains("is a codex session's")),
        "{:?}",
        s.warnings
    );
    let mut j = Journal::default().with_format(Format::Codex);
    j.feed(&journal);
    j.finish();
    assert!(j.into_state().warnings.iter().all(|w| !w.message.contains("was asked for")));
}

/// An import of a session whose usage its agent never wrote (a Codex
/// rollout without token_count) replays to an unknown cost, as the rollout
/// does: its responses say `costUsd: null` (a new user's review: the import
/// said $0, and so did every replay and usage of it after).
#[test]
fn an_import_keeps_an_unknown_cost_unknown() {
    let rollout = fixture("codex.jsonl")
        .lines()
        .filter(|l| !l.contains(r#""token_count""#))
        .collect::<Vec<_>>()
        .join("\n");
    let original = read(&rollout);
    assert_eq!(original.format, Some(Format::Codex));
    assert_eq!(original.accounts.cost_usd, None);
    let mut j = Journal::default().keeping_translation();
    j.feed(&rollout);
    j.finish();
    let imported: String = j.take_translated().into_iter().map(|(_, r)| r + "\n").collect();
    assert!(imported.contains(r#""costUsd":null"#), "{imported}");
    let replayed = read(&imported);
    assert_eq!(replayed.format, Some(Format::Garuda));
    assert_eq!(replayed.accounts.cost_usd, None, "{imported}");
    assert_eq!(replayed.messages.len(), original.messages.len());
    // With its token counts, the same rollout imports at its known cost.
    let mut j = Journal::default().keeping_translation();
    j.feed(&fixture("codex.jsonl"));
    j.finish();
    let imported: String = j.take_translated().into_iter().map(|(_, r)| r + "\n").collect();
    assert!(!imported.contains(r#""costUsd":null"#));
    assert!(read(&imported).accounts.cost_usd.is_some());
}
