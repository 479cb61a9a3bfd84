//! The journal's own edge cases: long lines, strict writes, the model view,
//! warning bounds, a byte-order mark.
use super::*;

const TITLE: &str = r#"{"type":"title","title":"ok"}"#;

fn long_line(n: usize) -> String {
    format!(r#"{{"type":"title","title":"{}"}}"#, "x".repeat(n))
}

/// A line over the maximum is skipped with a warning, whole or split
/// into chunks of any size, and the lines around it still count.
#[test]
fn a_line_over_the_maximum_is_skipped_with_a_warning_however_it_arrives() {
    let text = format!("{TITLE}\n{}\n{TITLE}\n", long_line(500));
    for step in [1, 7, 64, 100, 1000, text.len()] {
        let mut j = Journal::default().with_max_line(200);
        for chunk in text.as_bytes().chunks(step) {
            j.feed_bytes(chunk);
        }
        j.finish();
        let s = j.state();
        assert_eq!(s.warnings.len(), 1, "step {step}: {:?}", s.warnings);
        assert_eq!((s.warnings[0].line, s.warnings[0].kind), (2, WarningKind::LineTooLong), "step {step}");
        assert_eq!(s.title.as_deref(), Some("ok"), "step {step}");
        assert_eq!(j.line_count(), 3, "step {step}");
        assert!(j.partial.capacity() <= 400, "step {step}: the long line was buffered");
    }
    let mut j = Journal::default().with_max_line(200);
    j.feed(&format!("{TITLE}\n{}", long_line(500)));
    j.finish();
    assert_eq!(j.state().warnings[0].kind, WarningKind::LineTooLong, "an overlong last line");
    assert!(!j.state().torn_tail);
}

#[test]
fn a_record_over_the_maximum_is_refused_at_write_and_nothing_changes() {
    let mut j = Journal::default().with_max_line(200);
    j.write(TITLE).expect("a short record");
    let before = j.state().clone();
    let e = j.write(&long_line(500)).expect_err("too long");
    assert!(e.to_string().contains("maximum line size of 200 bytes"), "{e}");
    assert_eq!(j.state(), &before);
    assert_eq!(j.line_count(), 1);
}

/// The model may see a secret, the disk may not: in model view, memory
/// keeps what the agent wrote and the line is redacted; the message is
/// marked redacted just as replay of the line marks it.
#[test]
fn model_view_keeps_the_secret_in_memory_and_off_the_line() {
    let secret = "pl4nted-S3CRET-value";
    let redactor = Redactor::new([("MY_API_TOKEN", secret)]);
    let mut live = Journal::new(redactor).with_model_view(true);
    let record = format!(r#"{{"type":"user","message":{{"role":"user","content":"token {secret}"}}}}"#);
    let line = live.write(&record).expect("written").into_owned();
    assert!(!line.contains(secret) && line.contains("[REDACTED]"));
    assert!(live.state().messages[0].json.contains(secret), "memory keeps what the model saw");
    assert!(live.state().messages[0].origin.redacted);
    let replayed = rebuild_state(&format!("{line}\n"));
    assert!(replayed.messages[0].origin.redacted);
    assert_eq!(replayed.prompts, live.state().prompts);
    assert_eq!(replayed.messages.len(), live.state().messages.len());
}

#[test]
fn strict_writes_refuse_what_replay_would_skip_and_change_nothing() {
    let mut live = Journal::default().with_strict(true);
    live.write(TITLE).expect("fine");
    let before = live.state().clone();
    for (record, says) in [
        (r#"{"type":"assistant","step":"three","response":{"content":[]}}"#, "`step`"),
        (r#"{"type":"unreported","tokens":"many"}"#, "`tokens`"),
        (r#"{"type":"hologram"}"#, "unknown record type"),
        (r#"{"type":"undo"}"#, "empty undo stack"),
    ] {
        let e = live.write(record).expect_err(record).to_string();
        assert!(e.contains(says), "{record}: {e}");
        assert_eq!(live.state(), &before, "{record}");
        assert_eq!(live.line_count(), 1, "{record}");
    }
}

/// A user's message is the user's (spec §2): a `user`, `continue` or
/// `tool_results` record whose message has another role is kept on replay
/// with a warning naming it (the model's view and a resume leave out a role
/// they do not know), and refused by a strict live write.
#[test]
fn a_users_message_of_another_role_is_kept_with_a_warning_and_refused_live() {
    let records = [
        r#"{"type":"user","message":{"role":"suer","content":"hi"}}"#,
        r#"{"type":"continue","message":{"role":"assistant","content":"go on"},"maxTokens":8}"#,
        r#"{"type":"tool_results","message":{"role":"system","content":[]},"calls":[]}"#,
    ];
    let mut replay = Journal::default();
    replay.feed(&records.join("\n"));
    replay.finish();
    let s = replay.state();
    assert_eq!(s.messages.len(), 3, "nothing is lost");
    let said: Vec<(u64, WarningKind, &str)> =
        s.warnings.iter().map(|w| (w.line, w.kind, w.message.as_str())).collect();
    assert_eq!(
        said,
        [
            (1, WarningKind::BadField, r#"the message of a `user` record must have role "user", not "suer""#),
            (
                2,
                WarningKind::BadField,
                r#"the message of a `continue` record must have role "user", not "assistant""#
            ),
            (
                3,
                WarningKind::BadField,
                r#"the message of a `tool_results` record must have role "user", not "system""#
            ),
        ]
    );
    let mut live = Journal::default().with_strict(true);
    live.write(TITLE).expect("fine");
    let before = live.state().clone();
    for record in records {
        let e = live.write(record).expect_err(record).to_string();
        assert!(e.starts_with("bad-field: the message of a"), "{record}: {e}");
        assert_eq!(live.state(), &before, "{record}: nothing changes");
        assert_eq!(live.line_count(), 1, "{record}");
    }
    live.write(r#"{"type":"user","message":{"role":"user","content":"hi"}}"#).expect("the user's");
}

/// Junk lines cost memory by kind, not by line: the first
/// `WARNINGS_KEPT` of each kind keep their line, the rest are counted,
/// and the records among the junk are still read.
#[test]
fn warnings_are_kept_per_kind_up_to_a_bound_and_counted_beyond() {
    use crate::state::WARNINGS_KEPT;
    let mut text = String::new();
    for i in 0..1000 {
        text.push_str(if i % 2 == 0 { "junk\n" } else { "{\"type\":\"hologram\"}\n" });
    }
    text.push_str(TITLE);
    text.push('\n');
    let mut j = Journal::default();
    j.feed(&text);
    j.finish();
    let s = j.state();
    assert_eq!(s.title.as_deref(), Some("ok"));
    let kept = |k: WarningKind| s.warnings.iter().filter(|w| w.kind == k).count() as u64;
    assert_eq!(kept(WarningKind::BadJson), WARNINGS_KEPT);
    assert_eq!(kept(WarningKind::UnknownType), WARNINGS_KEPT);
    assert_eq!(s.warnings[0].line, 1);
    assert_eq!(s.warnings.iter().rfind(|w| w.kind == WarningKind::BadJson).map(|w| w.line), Some(199));
    assert_eq!(s.warning_counts[WarningKind::BadJson.index()], 500);
    assert_eq!(s.warning_counts[WarningKind::UnknownType.index()], 500);
    assert_eq!(s.warning_total(), 1000);
    let json = s.to_json();
    assert!(
        json.contains(r#""warningCounts":{"bad-json":500,"unknown-type":500}"#),
        "{}",
        &json[json.len() - 300..]
    );
    assert!(rebuild_state(TITLE).to_json().contains(r#""warningCounts":{}"#));
}

/// A UTF-8 byte-order mark at the start of a file is not part of its
/// first record: the record is read (and its format detected).
#[test]
fn a_byte_order_mark_at_the_start_is_skipped() {
    let start = r#"{"type":"start","sessionId":"s","model":"m"}"#;
    let s = rebuild_state(&format!("\u{feff}{start}\n{TITLE}\n"));
    assert_eq!(s.warnings, vec![]);
    assert_eq!(s.session_id.as_deref(), Some(r#""s""#));
    assert_eq!(s.format, Some(Format::Garuda));
    let mut j = Journal::default();
    j.feed_bytes(&[0xef]);
    j.feed_bytes(&[0xbb, 0xbf]);
    j.feed_bytes(start.as_bytes());
    j.finish();
    assert_eq!(j.state().session_id.as_deref(), Some(r#""s""#), "a mark split across chunks");
    // Only at the start: a mark inside the file is a bad line as before.
    assert_eq!(rebuild_state(&format!("{TITLE}\n\u{feff}{start}\n")).warnings.len(), 1);
}

/// A side_usage's `purpose` is read (the history's landmark says it), but
/// never makes the record invalid: not a string, or given twice (which
/// serde_json refuses), the usage still counts, as before it was read.
#[test]
fn a_side_usage_counts_whatever_its_purpose() {
    for purpose in
        [r#""purpose":5"#, r#""purpose":"a","purpose":"b""#, r#""purpose":null"#, r#""purpose":"""#]
    {
        let line = format!(r#"{{"type":"side_usage",{purpose},"usage":{{"inputTokens":5}},"costUsd":0.5}}"#);
        let mut j = Journal::default().with_history();
        j.feed(&format!("{line}\n"));
        j.finish();
        let s = j.state();
        assert_eq!(s.accounts.usage.input_tokens, 5, "{line}");
        assert!(s.warnings.is_empty(), "{line}: {:?}", s.warnings);
        let told: Vec<&str> = s
            .history
            .iter()
            .flatten()
            .filter_map(|h| match h {
                crate::state::HistoryItem::Landmark { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(told, ["side_usage: 5 tokens"], "{line}");
    }
}
