//! The TypeScript declarations (pkg-template/index.d.ts) against the Rust
//! types they describe, so the two cannot drift: every record kind has its
//! interface with the fields replay reads, and every warning kind is in
//! `WarningKind`.

use garuda_session::record::RecordKind;
use garuda_session::WarningKind;

fn declarations() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("pkg-template/index.d.ts");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The text of the interface whose `type` is `kind`, with the interfaces it
/// extends (one level: `RecordBase`, `SessionMetadata`).
fn interface_of(d: &str, kind: &str) -> Option<String> {
    // Record interfaces extend RecordBase (blocks share some type names).
    let marker = format!("type: \"{kind}\"");
    let line = d
        .lines()
        .find(|l| l.starts_with("export interface ") && l.contains("RecordBase") && l.contains(&marker))?;
    let start = d.find(line)?;
    let at = start + line.find(&marker)?;
    let end = at + d[at..].find('}')?;
    let mut text = d[start..=end].to_owned();
    let header = &d[start..at];
    for base in ["RecordBase", "SessionMetadata"] {
        if header.contains(base) {
            let b = d.find(&format!("interface {base} {{"))?;
            text.push_str(&d[b..b + d[b..].find("\n}")?]);
        }
    }
    Some(text)
}

#[test]
fn every_record_kind_has_an_interface_with_its_fields() {
    let d = declarations();
    for kind in RecordKind::ALL {
        let text =
            interface_of(&d, kind.as_str()).unwrap_or_else(|| panic!("no interface for `{}`", kind.as_str()));
        for field in kind.fields() {
            assert!(
                text.contains(&format!("{field}?:")) || text.contains(&format!("{field}:")),
                "`{}` lacks `{field}`",
                kind.as_str()
            );
        }
        let union = &d[d.find("export type JournalRecord =").expect("the union")..];
        let name = text.trim_start_matches("export interface ").split_whitespace().next().unwrap_or("");
        assert!(
            union[..union.find(';').unwrap_or(union.len())].contains(name),
            "{name} is not in JournalRecord"
        );
    }
}

#[test]
fn every_warning_kind_is_declared() {
    let d = declarations();
    let line = d.lines().find(|l| l.starts_with("export type WarningKind")).expect("WarningKind");
    for kind in WarningKind::ALL {
        assert!(line.contains(&format!("\"{}\"", kind.as_str())), "{} missing from {line}", kind.as_str());
    }
}

/// The text of `export type <name> = …;` in the declarations.
fn type_alias(d: &str, name: &str) -> String {
    let start = d.find(&format!("export type {name} =")).unwrap_or_else(|| panic!("no type {name}"));
    d[start..start + d[start..].find(';').unwrap_or(0)].to_owned()
}

#[test]
fn every_drop_reason_and_problem_kind_is_declared() {
    use garuda_session::resume::{DropReason, ProblemKind};
    let d = declarations();
    let reasons = type_alias(&d, "ThinkingDropReason");
    for r in DropReason::ALL {
        assert!(
            reasons.contains(&format!("\"{}\"", r.as_str())),
            "{} missing from ThinkingDropReason",
            r.as_str()
        );
    }
    let problems = type_alias(&d, "MessageProblemKind");
    for p in ProblemKind::ALL {
        assert!(
            problems.contains(&format!("\"{}\"", p.as_str())),
            "{} missing from MessageProblemKind",
            p.as_str()
        );
    }
}

/// The text of a declaration from its first line to the blank line after it.
fn declaration<'a>(d: &'a str, head: &str) -> &'a str {
    let start = d.find(head).unwrap_or_else(|| panic!("no `{head}`"));
    let rest = &d[start..];
    &rest[..rest.find("\n\n").unwrap_or(rest.len())]
}

/// The keys of a serialised value.
fn keys(v: &impl serde::Serialize) -> Vec<String> {
    match serde_json::to_value(v).expect("serialises") {
        serde_json::Value::Object(m) => m.keys().cloned().collect(),
        other => panic!("not an object: {other}"),
    }
}

#[test]
fn transcript_entries_and_parts_are_declared_as_the_core_writes_them() {
    use garuda_session::transcript::tools::{SearchGroup, TodoItem, ToolView};
    use garuda_session::transcript::{
        diff::FileDiff, Entry, EntryKind, Fate, Image, Outcome, Part, ResponseFigures, Subagent,
        ThinkingFate, ToolRef,
    };
    let d = declarations();
    // An entry with every field present.
    let entry = Entry {
        index: 1,
        line: 2,
        record: "assistant",
        kind: EntryKind::Message,
        role: Some("assistant"),
        fate: Some(Fate::Live),
        t: Some("2026-01-01T00:00:00Z".into()),
        preview: "p".into(),
        blocks: vec!["text"],
        tools: vec![ToolRef {
            id: "t".into(),
            name: Some("n".into()),
            is_use: true,
            error: true,
            interrupted: true,
            pair: Some(3),
            child: Some("c".into()),
        }],
        thinking: 1,
        thinking_fate: Some(ThinkingFate::Dropped),
        dropped_why: Some("model-switch".into()),
        response: Some(Box::new(ResponseFigures {
            usage: Some(Default::default()),
            cost_usd: None,
            context_tokens: 1,
            context_window: Some(2),
        })),
        notes: 1,
        attachments: 1,
        synthetic: true,
        redacted: true,
        under_calls: true,
        subagents: vec![Subagent { child: None, tokens: 1, cost_usd: None }],
        context: Some("/clear".into()),
    };
    let text = declaration(&d, "export interface TranscriptEntry {");
    for k in keys(&entry) {
        assert!(
            text.contains(&format!("  {k}?:")) || text.contains(&format!("  {k}:")),
            "TranscriptEntry lacks `{k}`"
        );
    }
    let tool = declaration(&d, "export interface TranscriptTool {");
    for k in keys(&entry.tools[0]) {
        assert!(
            tool.contains(&format!("  {k}?:")) || tool.contains(&format!("  {k}:")),
            "TranscriptTool lacks `{k}`"
        );
    }
    // The patch a reader sets on entries it took while the journal was read.
    let patch = declaration(&d, "export interface TranscriptPatch {");
    let mut journal = garuda_session::journal::Journal::new(Default::default()).with_history();
    journal.feed(concat!(
        r#"{"type":"assistant","response":{"content":[{"type":"thinking","thinking":"t","signature":"s"},"#,
        r#"{"type":"tool_use","id":"a","name":"n","input":{}}],"usage":{}}}"#,
        "\n",
        r#"{"type":"tool_results","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"x"}]}}"#,
        "\n",
        r#"{"type":"model","model":"other"}"#,
        "\n",
    ));
    journal.finish();
    let transcript = garuda_session::transcript::Transcript::new(journal.state());
    let written: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&transcript.patch_json(0, 3).expect("a patch")).expect("JSON");
    assert_eq!(written.len(), 7, "every field of the patch: {:?}", written.keys());
    for k in written.keys() {
        assert!(patch.contains(&format!("  {k}:")), "TranscriptPatch lacks `{k}`");
    }
    // Its codes name the values of Fate and ThinkingFate.
    for (column, name) in [("fate", "Fate"), ("thinkingFate", "ThinkingFate")] {
        let names = written["codes"][column].as_object().expect("codes");
        let declared = declaration(&d, &format!("export type {name} ="));
        assert!(
            !names.is_empty() && names.values().all(|v| declared.contains(&v.to_string())),
            "{name}: {names:?}"
        );
        assert!(
            patch.contains(&format!("{column}: Record<string, {name}>")),
            "TranscriptPatch's codes.{column}"
        );
    }
    for (value, name) in [
        (serde_json::to_value(Fate::Compacted), "Fate"),
        (serde_json::to_value(ThinkingFate::NotSent), "ThinkingFate"),
    ] {
        let v = value.expect("serialises");
        assert!(
            declaration(&d, &format!("export type {name} =")).contains(&v.to_string()),
            "{name} lacks {v}"
        );
    }
    // Every part, each with its keys, in the union.
    let image = Image { media_type: "image/png".into(), data: "AA==".into() };
    let s = String::new;
    let parts = [
        Part::Prompt { text: s() },
        Part::Text { text: s() },
        Part::Note { text: s() },
        Part::Attachment { text: s() },
        Part::Thinking { text: s(), redacted: false },
        Part::ToolUse {
            id: s(),
            name: s(),
            input: s(),
            diff: vec![FileDiff { path: s(), lines: vec![('+', s())], whole: true }],
            result: Some(Outcome {
                entry: 1,
                text: s(),
                error: false,
                interrupted: false,
                images: vec![image.clone()],
            }),
            child: None,
            view: Some(ToolView::Mcp { server: s(), tool: s() }),
        },
        Part::ToolResult {
            id: s(),
            name: None,
            text: s(),
            error: false,
            interrupted: false,
            images: vec![],
            call: None,
        },
        Part::Image { media_type: s(), data: s() },
        Part::Context { label: s(), text: s() },
        Part::Other { text: s() },
    ];
    let union = declaration(&d, "export type TranscriptPart =");
    for part in &parts {
        let v = serde_json::to_value(part).expect("serialises");
        let tag = v["type"].as_str().expect("a type").to_owned();
        let at =
            union.find(&format!("type: \"{tag}\"")).unwrap_or_else(|| panic!("TranscriptPart lacks `{tag}`"));
        let member = &union[at..union[at..].find("\n  | ").map_or(union.len(), |e| at + e)];
        for k in keys(part) {
            assert!(
                member.contains(&format!("{k}:")) || member.contains(&format!("{k}?:")),
                "the `{tag}` part lacks `{k}`"
            );
        }
    }
    for k in keys(&image) {
        assert!(
            declaration(&d, "export interface TranscriptImage {").contains(&format!("  {k}:")),
            "TranscriptImage lacks `{k}`"
        );
    }
    // Every tool view, each with every key it can write, in `ToolView`.
    let some = || Some(s());
    let views = [
        ToolView::Shell { command: s(), description: some(), cwd: some(), exit: Some(0), output: some() },
        ToolView::Read { path: s(), first: 1, lines: vec![s()], after: "x".into() },
        ToolView::Todos { items: vec![TodoItem { text: s(), status: s() }], note: some() },
        ToolView::Task { agent: some(), description: some(), prompt: s() },
        ToolView::Search {
            pattern: s(),
            path: some(),
            glob: some(),
            groups: vec![SearchGroup { file: s(), lines: vec![] }],
            rest: "x".into(),
        },
        ToolView::Web { url: some(), query: some(), prompt: some() },
        ToolView::Mcp { server: s(), tool: s() },
        ToolView::Patch { exit: Some(0), output: some() },
    ];
    let union = declaration(&d, "export type ToolView =");
    for view in &views {
        let v = serde_json::to_value(view).expect("serialises");
        let kind = v["kind"].as_str().expect("a kind").to_owned();
        let at =
            union.find(&format!("kind: \"{kind}\"")).unwrap_or_else(|| panic!("ToolView lacks `{kind}`"));
        let member = &union[at..union[at..].find("\n  | ").map_or(union.len(), |e| at + e)];
        for k in keys(view) {
            assert!(
                member.contains(&format!("{k}:")) || member.contains(&format!("{k}?:")),
                "the `{kind}` view lacks `{k}`"
            );
        }
    }
}

/// `transcriptNotes` returns what `TranscriptNotes` declares, field for field.
#[test]
fn transcript_notes_are_declared() {
    let d = declarations();
    let notes = declaration(&d, "export interface TranscriptNotes {");
    let mut journal = garuda_session::journal::Journal::new(Default::default()).with_history();
    journal.feed("not json\n{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":\"hi\"}}\n");
    journal.finish();
    let transcript = garuda_session::transcript::Transcript::new(journal.state());
    let written: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(&transcript.notes_json(10)).expect("JSON");
    assert_eq!(written["warnings"], serde_json::json!([0]), "the bad line's warning: {written:?}");
    assert_eq!(written.len(), 3);
    for k in written.keys() {
        assert!(notes.contains(&format!("  {k}:")), "TranscriptNotes lacks `{k}`");
    }
    assert!(d.contains("transcriptNotes(): TranscriptNotes;"));
}
