//! Unit tests of the doctor's edge cases; the fixtures and the oracles
//! written apart from it are tests/doctor.rs.
use super::*;

/// A Claude Code line: `kind`, its uuid and parent, and its message.
fn line(kind: &str, uuid: &str, parent: Option<&str>, message: &str) -> String {
    let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
    format!(
        r#"{{"parentUuid":{parent},"isSidechain":false,"sessionId":"s","type":"{kind}","message":{message},"uuid":"{uuid}"}}"#
    )
}

fn user(uuid: &str, parent: Option<&str>, content: &str) -> String {
    line("user", uuid, parent, &format!(r#"{{"role":"user","content":{content}}}"#))
}

fn assistant(uuid: &str, parent: &str, id: &str, block: &str) -> String {
    line(
        "assistant",
        uuid,
        Some(parent),
        &format!(r#"{{"id":"{id}","role":"assistant","model":"claude-x","content":[{block}]}}"#),
    )
}

fn file(lines: &[String]) -> Vec<u8> {
    (lines.join("\n") + "\n").into_bytes()
}

fn kinds(d: &Diagnosis) -> Vec<(u64, Kind)> {
    d.problems.iter().map(|p| (p.line, p.kind)).collect()
}

#[test]
fn a_file_that_resumes_comes_back_byte_identical() {
    let f = file(&[
        user("u1", None, r#""hi""#),
        assistant("a1", "u1", "m1", r#"{"type":"text","text":"hello"}"#),
    ]);
    let d = diagnose(&f, None);
    assert!(d.resumes(), "{}", d.to_json());
    let r = repair(&f, None);
    assert_eq!(r.bytes, f);
    assert!(r.changes.is_empty());
    // Without its last newline too.
    let r = repair(&f[..f.len() - 1], None);
    assert_eq!(r.bytes, &f[..f.len() - 1]);
}

#[test]
fn a_signature_seen_on_another_text_is_a_changed_text_and_an_unsigned_block_is_said() {
    let f = file(&[
        user("u1", None, r#""hi""#),
        assistant("a1", "u1", "m1", r#"{"type":"thinking","thinking":"plan A","signature":"S1"}"#),
        assistant("a2", "a1", "m1", r#"{"type":"text","text":"ok"}"#),
        user("u2", Some("a2"), r#""again""#),
        assistant("a3", "u2", "m2", r#"{"type":"thinking","thinking":"plan B","signature":"S1"}"#),
        assistant("a4", "a3", "m2", r#"{"type":"thinking","thinking":"plan C"}"#),
        assistant("a5", "a4", "m2", r#"{"type":"text","text":"done"}"#),
    ]);
    let d = diagnose(&f, None);
    assert_eq!(kinds(&d), vec![(5, Kind::ThinkingChanged), (6, Kind::ThinkingUnsigned)]);
    let r = repair(&f, None);
    assert!(r.after.resumes(), "{}", r.after.to_json());
    // The first thinking (line 2) was signed over its own text and stays.
    let dropped: Vec<u64> =
        r.changes.iter().filter(|c| c.kind == ChangeKind::ThinkingDropped).map(|c| c.line).collect();
    assert_eq!(dropped, vec![5, 6]);
    assert!(String::from_utf8(r.bytes).unwrap().contains("plan A"));
}

/// A signed thinking block with an empty text: display omitted when no
/// signed block of the session has text (the API takes it back as it is),
/// the text lost (claude-code#63147) when others have theirs.
#[test]
fn empty_signed_thinking_is_omitted_display_unless_other_blocks_have_text() {
    let empty = r#"{"type":"thinking","thinking":"","signature":"S1"}"#;
    let omitted = file(&[
        user("u1", None, r#""hi""#),
        assistant("a1", "u1", "m1", empty),
        assistant("a2", "a1", "m1", r#"{"type":"text","text":"ok"}"#),
        user("u2", Some("a2"), r#""again""#),
        assistant("a3", "u2", "m2", r#"{"type":"thinking","thinking":"","signature":"S2"}"#),
        assistant("a4", "a3", "m2", r#"{"type":"text","text":"done"}"#),
    ]);
    let d = diagnose(&omitted, None);
    assert!(d.resumes(), "{}", d.to_json());
    assert_eq!(kinds(&d), vec![]);
    assert_eq!(repair(&omitted, None).bytes, omitted);

    let lost = file(&[
        user("u1", None, r#""hi""#),
        assistant("a1", "u1", "m1", empty),
        assistant("a2", "a1", "m1", r#"{"type":"text","text":"ok"}"#),
        user("u2", Some("a2"), r#""again""#),
        assistant("a3", "u2", "m2", r#"{"type":"thinking","thinking":"plan B","signature":"S2"}"#),
        assistant("a4", "a3", "m2", r#"{"type":"text","text":"done"}"#),
    ]);
    let d = diagnose(&lost, None);
    assert!(!d.resumes());
    assert_eq!(kinds(&d), vec![(2, Kind::ThinkingEmpty)]);
    assert!(repair(&lost, None).after.resumes());
    // An unsigned empty block is unsigned either way.
    let unsigned = file(&[
        user("u1", None, r#""hi""#),
        assistant("a1", "u1", "m1", r#"{"type":"thinking","thinking":""}"#),
        assistant("a2", "a1", "m1", r#"{"type":"text","text":"ok"}"#),
    ]);
    assert_eq!(kinds(&diagnose(&unsigned, None)), vec![(2, Kind::ThinkingUnsigned)]);
}

/// Claude Code 2.1.332 writes the display on the line (`thinkingDisplay`):
/// it decides for the line's blocks whatever the session's others hold.
#[test]
fn the_lines_thinking_display_decides_over_the_session() {
    let said =
        |display: &str, line: String| line.replacen('{', &format!(r#"{{"thinkingDisplay":"{display}","#), 1);
    let empty = r#"{"type":"thinking","thinking":"","signature":"S1"}"#;
    let f = |display: &str, other: &str| {
        file(&[
            user("u1", None, r#""hi""#),
            said(display, assistant("a1", "u1", "m1", empty)),
            assistant("a2", "a1", "m1", r#"{"type":"text","text":"ok"}"#),
            user("u2", Some("a2"), r#""again""#),
            assistant("a3", "u2", "m2", other),
            assistant("a4", "a3", "m2", r#"{"type":"text","text":"done"}"#),
        ])
    };
    let with_text = r#"{"type":"thinking","thinking":"plan B","signature":"S2"}"#;
    let without = r#"{"type":"thinking","thinking":"","signature":"S2"}"#;
    // Omitted on its line: taken back, though another block has text.
    let d = diagnose(&f("omitted", with_text), None);
    assert!(d.resumes(), "{}", d.to_json());
    // Summarized on its line: the text was lost, though no block has text.
    assert_eq!(kinds(&diagnose(&f("summarized", without), None)), vec![(2, Kind::ThinkingEmpty)]);
}

#[test]
fn one_unanswered_call_of_parallel_calls_gets_a_result_that_rejoins_the_chain() {
    let f = file(&[
        user("u1", None, r#""read both""#),
        assistant("a1", "u1", "m1", r#"{"type":"tool_use","id":"t1","name":"Read","input":{}}"#),
        assistant("a2", "a1", "m1", r#"{"type":"tool_use","id":"t2","name":"Read","input":{}}"#),
        user("r2", Some("a2"), r#"[{"type":"tool_result","tool_use_id":"t2","content":"two"}]"#),
        assistant("a3", "r2", "m2", r#"{"type":"text","text":"one was lost"}"#),
    ]);
    assert_eq!(kinds(&diagnose(&f, None)), vec![(2, Kind::ToolUseUnanswered)]);
    let r = repair(&f, None);
    assert!(r.after.resumes(), "{}", r.after.to_json());
    let text = String::from_utf8(r.bytes).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // After the response's lines, a child of the call's line; a2 keeps its parent.
    assert_eq!(lines.len(), 6);
    assert!(
        lines[3].contains(r#""parentUuid":"a1""#) && lines[3].contains(r#""tool_use_id":"t1""#),
        "{}",
        lines[3]
    );
    assert_eq!(lines[2], f.split(|&b| b == b'\n').nth(2).map(|l| std::str::from_utf8(l).unwrap()).unwrap());
    assert_eq!(r.changes.iter().map(|c| c.kind).collect::<Vec<_>>(), vec![ChangeKind::ResultAdded]);
}

#[test]
fn a_file_without_uuids_gets_a_result_without_one() {
    let f = concat!(
        r#"{"type":"user","sessionId":"s","message":{"role":"user","content":"ls"}}"#,
        "\n",
        r#"{"type":"assistant","sessionId":"s","message":{"id":"m","role":"assistant","content":[{"type":"tool_use","id":"t","name":"Bash","input":{}}]}}"#,
        "\n"
    );
    // Without a uuid the first line reads as Garuda's own: the format is given.
    let r = repair(f.as_bytes(), Some(Format::ClaudeCode));
    assert_eq!(r.changes.len(), 1);
    assert!(r.after.resumes(), "{}", r.after.to_json());
    let text = String::from_utf8(r.bytes).unwrap();
    assert!(!text.lines().nth(2).unwrap().contains("uuid"), "{text}");
}

#[test]
fn lines_that_do_not_parse_are_warnings_and_stay() {
    let mut f = file(&[user("u1", None, r#""hi""#)]);
    f.extend_from_slice(b"{\"type\":\"user\",\xff}\n[1,2]\n");
    let d = diagnose(&f, None);
    assert!(d.resumes());
    assert_eq!(kinds(&d), vec![(2, Kind::BadLine), (3, Kind::BadLine)]);
    assert_eq!(repair(&f, None).bytes, f);
}

/// A byte that is not UTF-8 inside a string: Claude Code reads the line
/// with U+FFFD (Node's `utf8`), so its chain goes on through it; --fix
/// cannot cut its spans (the lossy text's offsets are not the file's), so
/// it leaves the line whole and says no change of it.
#[test]
fn a_line_with_a_byte_that_is_not_utf8_is_read_and_left_whole() {
    let bad = user(
        "u2",
        Some("a1"),
        r#"[{"type":"tool_result","tool_use_id":"toolu_gone","content":"caf\xff"},{"type":"text","text":"go on"}]"#,
    )
    .replace("\\xff", "\u{FFFF}");
    let lines = [
        user("u1", None, r#""hi""#),
        assistant("a1", "u1", "m1", r#"{"type":"text","text":"hello"}"#),
        bad,
        assistant("a2", "u2", "m2", r#"{"type":"text","text":"done"}"#),
    ];
    let mut f = file(&lines);
    let at = f.windows(3).position(|w| w == "\u{FFFF}".as_bytes()).unwrap();
    f.splice(at..at + 3, [0xff]);
    let d = diagnose(&f, None);
    let k = kinds(&d);
    assert!(k.contains(&(3, Kind::BadLine)), "{k:?}");
    assert!(!k.iter().any(|(_, kind)| *kind == Kind::BrokenChain), "the chain goes through line 3: {k:?}");
    assert!(k.contains(&(3, Kind::ToolResultOrphan)), "the line's blocks were read: {k:?}");
    let r = repair(&f, None);
    assert_eq!(r.bytes, f, "line 3 is left whole");
    assert!(r.changes.iter().all(|c| c.line != 3), "{:?}", r.changes);
}

#[test]
fn a_subagent_file_is_its_own_conversation() {
    let side = |l: String| l.replace(r#""isSidechain":false"#, r#""isSidechain":true"#);
    let f = file(&[
        side(user("s1", Some("in-the-main-file"), r#""do the task""#)),
        side(assistant("s2", "s1", "m1", r#"{"type":"tool_use","id":"t","name":"Bash","input":{}}"#)),
    ]);
    // Its first line's parent is in the main file: nothing of this file is lost.
    assert_eq!(kinds(&diagnose(&f, None)), vec![(2, Kind::ToolUseUnanswered)]);
    let r = repair(&f, None);
    assert!(r.after.resumes(), "{}", r.after.to_json());
    assert!(String::from_utf8(r.bytes).unwrap().lines().nth(2).unwrap().contains(r#""isSidechain":true"#));
}

#[test]
fn size_limits() {
    let mut p = Vec::new();
    claude::size(50_000_000, &mut p);
    assert!(p.is_empty());
    claude::size(102_000_000, &mut p);
    claude::size(600_000_000, &mut p);
    assert_eq!(p.iter().map(|p| p.severity).collect::<Vec<_>>(), vec![Severity::Warning, Severity::Error]);
}

#[test]
fn a_garuda_journal_goes_through_resume_and_is_never_rewritten() {
    let g = b"{\"type\":\"start\",\"sessionId\":\"s\",\"model\":\"m\"}\n";
    let d = diagnose(g, None);
    assert_eq!(d.format, Some(Format::Garuda));
    assert!(d.problems.is_empty() && d.resumes(), "{}", d.to_json());
    assert_eq!(repair(g, None).bytes, g);
    assert_eq!(repair(b"", None).bytes, b"");
    // An open call and a junk line: resume answers the call, replay skips
    // the line; both said as warnings, on their lines where known.
    let open = concat!(
        r#"{"type":"start","sessionId":"s","model":"m"}"#,
        "\nnot json\n",
        r#"{"type":"user","message":{"role":"user","content":"go"}}"#,
        "\n",
        r#"{"type":"assistant","step":1,"response":{"content":[{"type":"tool_use","id":"toolu_1","name":"x","input":{}}],"usage":{}},"costUsd":0}"#,
        "\n"
    );
    let d = diagnose(open.as_bytes(), None);
    assert_eq!(kinds(&d), vec![(0, Kind::ToolUseUnanswered), (2, Kind::BadLine)], "{}", d.to_json());
    assert!(d.resumes());
    assert_eq!(repair(open.as_bytes(), None).bytes, open.as_bytes());
    // Read in chunks: the same.
    let mut s = Streaming::new(None);
    for c in open.as_bytes().chunks(5) {
        s.feed(c);
    }
    assert_eq!(s.finish(), d);
}

/// A pi v3 entry: a message of `role` with `content`, its id and parent.
fn pi(id: &str, parent: &str, message: &str) -> String {
    format!(
        r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-11-20T10:00:00.000Z","message":{message}}}"#
    )
}

fn pi_session(entries: &[String]) -> Vec<u8> {
    let mut lines =
        vec![r#"{"type":"session","version":3,"id":"s","timestamp":"2026-11-20T10:00:00.000Z","cwd":"/w"}"#
            .to_owned()];
    lines.extend_from_slice(entries);
    file(&lines)
}

const PI_USER: &str = r#"{"role":"user","content":[{"type":"text","text":"go"}]}"#;

fn pi_call(id: &str, stop: &str) -> String {
    format!(
        r#"{{"role":"assistant","content":[{{"type":"toolCall","id":"{id}","name":"read","arguments":{{}}}}],"model":"m","stopReason":"{stop}"}}"#
    )
}

fn pi_result(id: &str) -> String {
    format!(
        r#"{{"role":"toolResult","toolCallId":"{id}","toolName":"read","content":[{{"type":"text","text":"x"}}]}}"#
    )
}

#[test]
fn pi_a_result_cut_from_its_call_by_a_compaction_is_an_error_an_open_call_a_warning() {
    let whole = pi_session(&[
        pi("u1", "", PI_USER),
        pi("a1", "u1", &pi_call("t1", "toolUse")),
        pi("r1", "a1", &pi_result("t1")),
        pi("a2", "r1", &pi_call("t2", "toolUse")),
    ]);
    let d = diagnose(&whole, None);
    assert_eq!(d.format, Some(Format::Pi));
    assert_eq!(kinds(&d), vec![(5, Kind::ToolUseUnanswered)], "{}", d.to_json());
    assert!(d.resumes(), "pi answers an open call itself");
    // pi#4570: the compaction keeps from the result on; its call is gone.
    let cut = pi_session(&[
        pi("u1", "", PI_USER),
        pi("a1", "u1", &pi_call("t1", "toolUse")),
        pi("r1", "a1", &pi_result("t1")),
        r#"{"type":"compaction","id":"c1","parentId":"r1","timestamp":"2026-11-20T10:00:01.000Z","summary":"read a file","firstKeptEntryId":"r1","tokensBefore":100}"#.to_owned(),
        pi("u2", "c1", PI_USER),
    ]);
    let d = diagnose(&cut, None);
    assert!(!d.resumes(), "{}", d.to_json());
    assert!(d.problems.iter().any(|p| p.kind == Kind::ToolResultOrphan && p.severity == Severity::Error));
    // The result's entry goes; the compaction takes its parent, and keeps
    // from the next entry of the path (itself: nothing is kept).
    let r = repair(&cut, None);
    assert!(r.after.resumes(), "{}", r.after.to_json());
    let changes: Vec<(u64, ChangeKind)> = r.changes.iter().map(|c| (c.line, c.kind)).collect();
    assert_eq!(
        changes,
        vec![
            (4, ChangeKind::ResultDropped),
            (4, ChangeKind::LineRemoved),
            (5, ChangeKind::Reparented),
            (5, ChangeKind::Reparented)
        ]
    );
    let text = String::from_utf8(r.bytes).unwrap();
    assert!(text.contains(r#""parentId":"a1""#) && text.contains(r#""firstKeptEntryId":"c1""#), "{text}");
    assert_eq!(text.lines().count(), 5);
    // An aborted message is left out by pi: its result answers nothing.
    let aborted = pi_session(&[
        pi("u1", "", PI_USER),
        pi("a1", "u1", &pi_call("t1", "aborted")),
        pi("r1", "a1", &pi_result("t1")),
    ]);
    let d = diagnose(&aborted, None);
    assert_eq!(kinds(&d), vec![(4, Kind::ToolResultOrphan)], "{}", d.to_json());
    // Read in chunks: the same.
    let mut s = Streaming::new(None);
    for c in aborted.chunks(3) {
        s.feed(c);
    }
    assert_eq!(s.finish(), d);
}

#[test]
fn gemini_pairs_are_said_as_warnings_only() {
    let g = br#"{"sessionId":"s","projectHash":"h","startTime":"2026-11-20T10:00:00.000Z","messages":[]}"#;
    let d = diagnose(g, None);
    assert_eq!(d.format, Some(Format::Gemini));
    assert!(d.resumes() && d.problems.iter().all(|p| p.severity == Severity::Warning), "{}", d.to_json());
    assert_eq!(repair(g, None).bytes, g);
}

#[test]
fn a_compaction_whose_logical_parent_is_lost_is_a_warning_and_stays() {
    let boundary = r#"{"parentUuid":null,"logicalParentUuid":"gone","isSidechain":false,"sessionId":"s","type":"system","subtype":"compact_boundary","uuid":"b1"}"#;
    let f = file(&[
        user("u1", None, r#""hi""#),
        assistant("a1", "u1", "m1", r#"{"type":"text","text":"hello"}"#),
        boundary.to_owned(),
        user("c1", Some("b1"), r#""summary""#),
        assistant("a2", "c1", "m2", r#"{"type":"text","text":"go on"}"#),
    ]);
    let d = diagnose(&f, None);
    assert!(d.resumes(), "{}", d.to_json());
    assert_eq!(kinds(&d), vec![(3, Kind::BrokenChain)]);
    assert_eq!(repair(&f, None).bytes, f);
}

#[test]
fn a_result_added_after_a_line_that_goes_is_still_written() {
    // The call's response ends with a thinking-only line whose thinking the
    // prefix rule drops (it is unsigned): the added result follows it.
    let f = file(&[
        user("u1", None, r#""go""#),
        assistant("a1", "u1", "m1", r#"{"type":"tool_use","id":"t1","name":"Bash","input":{}}"#),
        assistant("a2", "a1", "m1", r#"{"type":"thinking","thinking":"hmm"}"#),
    ]);
    let r = repair(&f, None);
    assert!(r.after.resumes(), "{}", r.after.to_json());
    let text = String::from_utf8(r.bytes).unwrap();
    assert_eq!(text.lines().count(), 3, "{text}");
    assert!(text.lines().nth(2).unwrap().contains(r#""tool_use_id":"t1""#));
}

#[test]
fn a_codex_rollout_torn_at_its_very_end_loses_only_the_torn_bytes() {
    let meta = r#"{"timestamp":"t","type":"session_meta","payload":{"id":"s"}}"#;
    let mut f = format!("{meta}\n").into_bytes();
    f.extend_from_slice(b"{\"timestamp\":\"t\",\"type\":\"response_item\",\"payload\":{\"type\":\"message\",\"text\":\"caf\xc3");
    let d = diagnose(&f, None);
    assert_eq!(kinds(&d), vec![(2, Kind::BadLine)]);
    assert!(!d.resumes());
    let r = repair(&f, None);
    assert_eq!(r.bytes, format!("{meta}\n").into_bytes(), "the line before keeps its newline");
    assert_eq!(
        r.changes.iter().map(|c| (c.line, c.kind)).collect::<Vec<_>>(),
        vec![(2, ChangeKind::LineRemoved)]
    );
    assert!(r.after.resumes());
    // Blank lines and CRLF are what Codex's `lines()` reads past.
    let crlf = format!("{meta}\r\n\r\n");
    assert!(diagnose(crlf.as_bytes(), None).problems.is_empty());
    assert_eq!(repair(crlf.as_bytes(), None).bytes, crlf.as_bytes());
}

/// Gemini CLI takes a JSON document only with a `sessionId`
/// (parseLegacyRecordFallback), and copies its `messages` (initialize). A
/// document naming neither is no session at all (a manifest, settings).
#[test]
fn a_json_document_is_a_gemini_session_only_with_its_id_and_messages() {
    let doc = |body: &str| format!("{{\n{body}\n}}\n").into_bytes();
    let none = diagnose(&doc(r#""manifest_version": 1"#), None);
    assert_eq!(none.format, None, "{}", none.to_json());
    assert_eq!(Streaming::new(None).tap_feed(&doc(r#""manifest_version": 1"#)).format, None);
    for (body, resumes) in [
        (r#""sessionId": "s""#, false),
        (r#""messages": []"#, false),
        (
            r#""sessionId": "s",
"messages": []"#,
            true,
        ),
    ] {
        let d = diagnose(&doc(body), None);
        assert_eq!(d.format, Some(Format::Gemini), "{body}");
        assert_eq!(d.resumes(), resumes, "{body}: {}", d.to_json());
        if !resumes {
            assert_eq!(kinds(&d), vec![(1, Kind::NoSession)], "{body}");
        }
    }
}

impl Streaming {
    fn tap_feed(mut self, bytes: &[u8]) -> Diagnosis {
        self.feed(bytes);
        self.finish()
    }
}
