//! The transcript of the viewer's sample session and of hostile journals.

use super::*;
use crate::journal::Journal;
use crate::redact::Redactor;

use crate::test_shared as shared;

fn transcript_of(text: &str) -> (SessionState, Transcript) {
    let mut j = Journal::new(Redactor::default()).with_history();
    j.feed(text);
    j.finish();
    let state = j.into_state();
    let t = Transcript::new(&state);
    (state, t)
}

/// The sessions of the repository's samples and of ../shared/peers (every
/// format), each read whole with its history: what the transcript's own
/// readers and writers are held to serde's on.
pub(super) fn real_journals() -> Vec<(std::path::PathBuf, Journal)> {
    let mut out = Vec::new();
    for path in real_files() {
        let mut journal = Journal::new(Redactor::default()).with_history();
        journal.feed_bytes(&std::fs::read(&path).unwrap());
        journal.finish();
        out.push((path, journal));
    }
    out
}

/// The session files `real_journals` reads: the samples, and the peers
/// when ../shared is there (found and walked as every test that reads it
/// does: tests/support/shared.rs).
fn real_files() -> Vec<std::path::PathBuf> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut out = shared::session_files(&root.join("web-demo/samples"));
    if let Some(peers) = shared::shared_file("the transcript's tests of real sessions (the peers)", "peers") {
        out.extend(shared::session_files(&peers));
    }
    out
}

fn sample() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web-demo/samples/viewer-sample.jsonl");
    std::fs::read_to_string(path).expect("the viewer sample")
}

#[test]
fn the_sample_reads_as_a_transcript() {
    let (state, t) = transcript_of(&sample());
    let e = t.entries();
    let dump: Vec<String> = e
        .iter()
        .map(|e| format!("{} {} {:?} {:?} {}", e.line, e.record, e.fate, e.thinking_fate, e.preview))
        .collect();
    let dump = dump.join("\n");
    // Every kind of entry is there, in line order.
    assert!(e.windows(2).all(|w| w[0].line <= w[1].line), "{dump}");
    assert!(
        e.iter().any(|e| e.kind == EntryKind::Warning && e.record == "bad-json" && e.line == 9),
        "{dump}"
    );
    assert!(e.iter().any(|e| e.fate == Some(Fate::Compacted)), "{dump}");
    assert!(e.iter().any(|e| e.record == "compaction" && e.kind == EntryKind::Landmark), "{dump}");
    // The thinking the model switch leaves out says why.
    let dropped = e.iter().find(|e| e.thinking_fate == Some(ThinkingFate::Dropped)).expect(&dump);
    assert_eq!(dropped.dropped_why.as_deref(), Some("model-switch"));
    // A prompt with a note and an attachment.
    assert!(
        e.iter().any(|e| e.notes == 1 && e.attachments == 1 && e.preview.starts_with("Find the flaky test")),
        "{dump}"
    );
    // Calls paired with their results, both ways.
    let call = e
        .iter()
        .flat_map(|e| &e.tools)
        .find(|t| t.is_use && t.name.as_deref() == Some("explore"))
        .expect(&dump);
    let result_entry = &e[call.pair.expect("paired") as usize];
    let result = result_entry.tools.iter().find(|t| t.id == call.id).expect("the result");
    assert_eq!(result.name.as_deref(), Some("explore"));
    assert!(!result_entry.subagents.is_empty(), "the subagent's report");
    // Responses carry their usage, cost and context size.
    let r = e.iter().find(|e| e.record == "assistant").expect(&dump);
    assert!(r
        .response
        .as_ref()
        .is_some_and(|f| f.usage.is_some() && f.cost_usd.is_some() && f.context_tokens > 0));
    // Whole entries: a prompt's parts told apart, a call with its result.
    let i = e.iter().position(|e| e.notes == 1).expect("the prompt");
    let d = t.entry_json(&state, i).expect("an entry");
    assert!(d.contains(r#"{"type":"prompt","text":"Find the flaky test"#), "{d}");
    assert!(d.contains(r#"{"type":"note","text":"The user is on the release branch"#), "{d}");
    assert!(!d.contains("garuda_note"), "{d}");
    let i = e
        .iter()
        .position(|e| e.tools.iter().any(|t| t.is_use && t.name.as_deref() == Some("explore")))
        .expect("call");
    let d = t.entry_json(&state, i).expect("an entry");
    assert!(d.contains(r#""type":"toolUse""#) && d.contains(r#""result":{"entry":"#), "{d}");
    assert!(t.entry_json(&state, e.len()).is_none());
    // Search, ignoring case.
    assert!(!t.search(&state, "TIME ZONE").is_empty());
    assert!(t.search(&state, "no such text anywhere").is_empty());
    let json = t.index_json(0, 3);
    assert!(json.starts_with(r#"[{"index":0,"line":1,"type":"start","kind":"landmark""#), "{json}");
}

#[test]
fn an_edit_is_a_diff_and_an_image_is_shown_only_from_base64() {
    let lines = [
        r#"{"type":"start","sessionId":"s","model":"claude-sonnet-4-5"}"#,
        r#"{"type":"user","message":{"role":"user","content":"fix it"}}"#,
        r#"{"type":"assistant","step":1,"response":{"content":[{"type":"tool_use","id":"t1","name":"edit_file","input":{"path":"a.ts","old":"a\nb","new":"a\nc"}},{"type":"image","source":{"type":"url","url":"http://evil.example/x.png"}}],"usage":{"inputTokens":5}},"costUsd":0.01}"#,
        r#"{"type":"tool_results","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":[{"type":"text","text":"ok"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},{"type":"image","source":{"type":"base64","media_type":"image/svg+xml","data":"PHN2Zz4="}}]}]},"calls":[]}"#,
    ];
    let (state, t) = transcript_of(&lines.join("\n"));
    let d = t.entry_json(&state, 2).expect("the response");
    assert!(d.contains(r#""diff":[{"path":"a.ts","lines":[[" ","a"],["-","b"],["+","c"]]}]"#), "{d}");
    assert!(d.contains(r#""images":[{"mediaType":"image/png","data":"iVBORw0KGgo="}]"#), "{d}");
    assert!(!d.contains("evil.example") || d.contains(r#"{"type":"other","text":"[image]"}"#), "{d}");
    assert!(!d.contains("svg"), "an SVG image is not shown: {d}");
}

#[test]
fn every_line_of_a_hostile_journal_is_an_entry_and_nothing_panics() {
    let lines = [
        r#"{"type":"user","message":"not an object"}"#,
        r#"{"type":"assistant","step":2,"response":{"content":[null,{"type":"tool_use","id":{},"name":["x"],"input":"y"}],"usage":"lots"},"costUsd":"free"}"#,
        r#"{"type":"tool_results","message":{"role":"user","content":[null,5,"s",{"type":"tool_result","tool_use_id":7,"content":{"a":1}}]},"calls":7}"#,
        r#"{"type":"compaction","afterTokens":"x","beforeTokens":{}}"#,
        "not json",
        r#"{"type":"user","message":{"role":"user","content":[{"type":"text","text":"é"}]}}"#,
    ];
    let (state, t) = transcript_of(&lines.join("\n"));
    let lines_seen: std::collections::BTreeSet<u64> = t.entries().iter().map(|e| e.line).collect();
    assert_eq!(lines_seen.len(), lines.len(), "{:?}", t.entries());
    for i in 0..t.len() {
        assert!(t.entry_json(&state, i).is_some());
    }
}

#[test]
fn a_history_that_forgot_its_messages_reads_them_again_from_their_lines() {
    for name in ["viewer-sample.jsonl", "reading-sample.jsonl", "demo-session.jsonl"] {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("web-demo/samples").join(name);
        let text = std::fs::read_to_string(path).expect("a sample");
        let (state, full) = transcript_of(&text);
        let mut j = Journal::new(Redactor::default()).with_history();
        let mut lean = Transcript::default();
        for chunk in text.as_bytes().chunks(700) {
            j.feed_bytes(chunk);
            lean.extend(j.state());
            lean.forget_messages(j.history_mut());
        }
        j.finish();
        lean.extend(j.state());
        lean.forget_messages(j.history_mut());
        lean.settle(j.state());
        assert_eq!(lean.entries(), full.entries(), "{name}");
        let lines: Vec<&str> = text.split('\n').collect();
        for i in 0..full.len() {
            let wanted = lean.lines_for(j.state(), i);
            let given: Vec<(u64, &str)> = wanted.iter().map(|&l| (l, lines[l as usize - 1])).collect();
            assert_eq!(
                lean.entry_json_with(j.state(), i, &given),
                full.entry_json(&state, i),
                "{name}: entry {i}"
            );
        }
        // Without its lines, a forgotten message says so instead of failing.
        let i = full.entries().iter().position(|e| e.kind == EntryKind::Message).expect("a message");
        assert!(lean.entry_json(j.state(), i).expect("an entry").contains("line was not given"));
    }
}

#[test]
fn cut_keeps_whole_characters_up_to_the_limit() {
    fn slow(text: &str, limit: usize) -> &str {
        text.char_indices().nth(limit).map_or(text, |(at, _)| &text[..at])
    }
    for text in ["", "abc", "héllo wörld", "😀😀😀abc", "abcdefgh😀", "plain ascii text that runs long"]
    {
        for limit in 0..12 {
            assert_eq!(cut(text, limit), slow(text, limit), "{text:?} at {limit}");
        }
    }
}

/// A tool call's `input` is printed with Value's `{:#}` (detail.rs, for the
/// size budget): the same text as serde_json::to_string_pretty.
#[test]
fn pretty_input_is_to_string_pretty() {
    for json in [
        r#"{"command":"ls -la","nested":{"a":[1,2.5,-3e-7,{"b":null}],"e":[],"o":{}},"s":"tab\tquote\" é \u0001"}"#,
        r#"[]"#,
        r#""just a string""#,
        r#"12345678901234567890"#,
    ] {
        let v: serde_json::Value = serde_json::from_str(json).unwrap();
        assert_eq!(format!("{v:#}"), serde_json::to_string_pretty(&v).unwrap(), "{json}");
    }
}

/// Entries are kept in blocks of 4,096 (entries.rs): a transcript of three
/// blocks and more gives each entry at its index, and any range as JSON is
/// the entries of that range, each serialized alone, in order.
#[test]
fn entries_across_blocks_are_in_order_and_ranges_serialize_as_each_alone() {
    let n = 3 * 4096 + 7;
    let mut text = String::from(
        r#"{"type":"start","t":"2026-11-29T10:00:01.704Z","sessionId":"20261129-100000-0007","model":"claude-sonnet-4-5","version":"0.17.2"}"#,
    );
    for i in 0..n {
        text.push('\n');
        text.push_str(&format!(
            r#"{{"type":"user","t":"2026-11-29T10:00:05.776Z","message":{{"role":"user","content":[{{"type":"text","text":"prompt {i}"}}]}}}}"#
        ));
    }
    let (_, t) = transcript_of(&text);
    assert_eq!(t.len(), n + 1);
    for (i, e) in t.entries().iter().enumerate() {
        assert_eq!(e.index as usize, i);
        assert_eq!(e.line as usize, i + 1);
    }
    assert!(t.entries()[4097].preview.contains("prompt 4096"), "{:?}", t.entries()[4097]);
    let alone = |from: usize, to: usize| {
        let each: Vec<String> =
            (from..to.min(t.len())).map(|i| serde_json::to_string(t.entries()[i]).unwrap()).collect();
        format!("[{}]", each.join(","))
    };
    for (from, to) in [
        (0, 0),
        (0, 1),
        (4090, 4100),
        (4095, 4096),
        (4096, 8193),
        (0, n + 1),
        (12000, n + 50),
        (n + 5, n + 9),
    ] {
        assert_eq!(t.index_json(from, to), alone(from, to), "{from}..{to}");
    }
    let settled: serde_json::Value = serde_json::from_str(&t.patch_json(4000, 8200).unwrap()).unwrap();
    assert_eq!((settled["from"].as_u64(), settled["fate"].as_str().map(str::len)), (Some(4000), Some(4200)));
    assert_eq!(
        t.clone().entries.into_iter().map(|e| e.index as usize).collect::<Vec<_>>(),
        (0..=n).collect::<Vec<_>>()
    );
}

/// Each thinking entry's reasons are those the resume report gives for
/// its message's line (found by halves in settle; the definition here is
/// a filter of the whole report), on every real session, the resume
/// golden files (model switches, thinking off, redacted records) and a
/// session of many thinking turns before a model switch.
#[test]
fn dropped_thinking_reasons_are_the_resume_reports_for_each_line() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut texts: Vec<(String, Vec<u8>)> = real_files()
        .into_iter()
        .chain(shared::session_files(&root.join("tests/golden/resume")))
        .map(|p| (p.display().to_string(), std::fs::read(&p).unwrap()))
        .collect();
    let mut many = String::from("{\"type\":\"start\",\"sessionId\":\"s\",\"model\":\"claude-a\"}\n");
    for i in 0..300 {
        many += &format!("{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":\"q{i}\"}}}}\n");
        many += &format!("{{\"type\":\"assistant\",\"step\":{i},\"response\":{{\"content\":[{{\"type\":\"thinking\",\"thinking\":\"t\",\"signature\":\"c2ln\"}},{{\"type\":\"redacted_thinking\",\"data\":\"x\"}},{{\"type\":\"text\",\"text\":\"a\"}}]}}}}\n");
    }
    many += "{\"type\":\"model\",\"model\":\"claude-b\"}\n";
    texts.push(("many thinking turns, then a model switch".into(), many.into_bytes()));
    let mut checked = 0;
    for (name, bytes) in texts {
        let mut j = Journal::new(Redactor::default()).with_history();
        j.feed_bytes(&bytes);
        j.finish();
        let state = j.into_state();
        let t = Transcript::new(&state);
        let report = crate::resume::resume(&state, &crate::resume::ResumeOptions::default()).report;
        for e in t.entries().into_iter().filter(|e| e.thinking > 0 && e.fate == Some(Fate::Live)) {
            let mut why: Vec<&str> = report
                .dropped
                .iter()
                .filter(|d| state.messages.get(d.message).is_some_and(|m| m.origin.line == e.line))
                .map(|d| d.reason.as_str())
                .collect();
            why.sort();
            why.dedup();
            let want = (!why.is_empty()).then(|| why.join(", "));
            assert_eq!(e.dropped_why, want, "{name}: line {}", e.line);
            let fate = if want.is_some() { ThinkingFate::Dropped } else { ThinkingFate::Kept };
            assert_eq!(e.thinking_fate, Some(fate), "{name}: line {}", e.line);
            checked += usize::from(want.is_some());
        }
    }
    assert!(checked >= 300, "{checked} entries with reasons");
}

/// A tool result with no `tool_use_id` answers no call, not a call with no
/// `id` (both read as the id ""): paired so, the result's entry was folded
/// under the call as its answer and shown nowhere (a Claude Code subagent
/// file in the peers, found against claude-code-log's rendering). Each
/// stays its own: the call without a result, the result in its entry.
#[test]
fn a_result_without_an_id_answers_no_call() {
    let journal = concat!(
        r#"{"type":"user","message":{"role":"user","content":"go"}}"#,
        "\n",
        r#"{"type":"assistant","step":1,"response":{"content":[{"type":"tool_use","name":"bash","input":{"command":"grep -rn TODO"}}],"usage":{}},"costUsd":0}"#,
        "\n",
        r#"{"type":"tool_results","message":{"role":"user","content":[{"type":"tool_result","content":"a.txt:1: TODO fix"}]}}"#,
        "\n",
    );
    let (_, t) = transcript_of(journal);
    let e = t.entries();
    let call = e.iter().flat_map(|e| &e.tools).find(|t| t.is_use).expect("the call");
    assert_eq!(call.pair, None, "the call has no result");
    let results = e.iter().find(|e| e.record == "tool_results").expect("the results' entry");
    assert!(!results.under_calls, "the result is shown in its own entry");
    assert!(results.tools.iter().all(|t| t.pair.is_none()));
}
