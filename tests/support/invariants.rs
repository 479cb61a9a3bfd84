//! The properties every input must keep, shared by the fuzz targets
//! (`fuzz/fuzz_targets/*.rs`) and by the regression tests that replay what
//! the fuzzers found (`tests/fuzz_regressions.rs`). Each function takes the
//! raw bytes a fuzzer made and panics when a property breaks.

#![allow(dead_code)] // each includer uses some of these

use garuda_session::resume::{check_messages, resume, ResumeOptions};
use garuda_session::{rebuild_state, Journal, Redactor, SessionState};

/// An env secret the Redactor is told about; the fuzzers plant it.
pub const PLANTED_NAME: &str = "FUZZ_API_TOKEN";
pub const PLANTED: &str = "pl4nted-S3CRET-value";

/// Any resumed history is one the API accepts (spec §6 rule 5), whatever
/// the options.
fn resumes_acceptably(state: &SessionState, what: &str) {
    for (model, thinking) in [(None, None), (Some("another-model"), Some(true)), (None, Some(false))] {
        let options = ResumeOptions { model: model.map(str::to_owned).or(state.model.clone()), thinking };
        let resumed = resume(state, &options);
        assert!(resumed.report.remaining.is_empty(), "{what}: {:?}", resumed.report.remaining);
        let messages = resumed.messages_json();
        if !messages.is_empty() {
            let problems = check_messages(&messages, thinking == Some(true));
            assert!(problems.is_empty(), "{what}: {problems:?}");
        }
        for m in &messages {
            assert!(
                serde_json::from_str::<serde_json::Value>(m).is_ok(),
                "{what}: a message is not JSON: {m}"
            );
        }
    }
}

/// Replay of bytes: the same state fed whole or in chunks of any size, and
/// its resume is acceptable.
pub fn replay(data: &[u8]) {
    let mut whole = Journal::default();
    whole.feed_bytes(data);
    whole.finish();
    let step = 1 + data.first().map_or(7, |&b| b as usize % 61);
    let mut chunked = Journal::default().with_line_starts();
    for chunk in data.chunks(step) {
        chunked.feed_bytes(chunk);
    }
    chunked.finish();
    assert_eq!(whole.state(), chunked.state(), "chunks of {step} bytes replay differently");
    // The line starts replay notes in its own newline search: those of the
    // bytes split at each newline, however the chunks fell.
    let mut at = 0u64;
    let lines: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    for (i, line) in lines.iter().enumerate() {
        let range = Some((at, at + line.len() as u64));
        assert_eq!(chunked.line_range(i as u64 + 1), range, "line {} in chunks of {step}", i + 1);
        at += line.len() as u64 + 1;
    }
    assert_eq!(chunked.line_range(lines.len() as u64 + 1), None);
    if let Ok(text) = std::str::from_utf8(data) {
        assert_eq!(&rebuild_state(text), whole.state(), "text and bytes replay differently");
    }
    for w in &whole.state().warnings {
        assert!(
            w.line >= 1 && w.line <= whole.line_count(),
            "warning line {} of {}",
            w.line,
            whole.line_count()
        );
    }
    resumes_acceptably(whole.state(), "replay");
    transcript_reads_everything(data);
    // Each line the walk reads (record_walk.rs), it reads as serde_json does.
    for line in data.split(|&b| b == b'\n').filter_map(|l| std::str::from_utf8(l).ok()) {
        if let Some(difference) = garuda_session::record_walk::differs_from_serde(line) {
            panic!("{difference}: {line}");
        }
    }
}

/// The transcript of any bytes: built whole or while the bytes arrive in
/// chunks, the same entries; each line with a record or a warning is an
/// entry; every entry reads whole as JSON; a search never fails.
fn transcript_reads_everything(data: &[u8]) {
    use garuda_session::transcript::Transcript;
    let mut j = Journal::default().with_history();
    let mut growing = Transcript::default();
    let step = 1 + data.last().map_or(5, |&b| b as usize % 97);
    for chunk in data.chunks(step) {
        j.feed_bytes(chunk);
        growing.extend(j.state());
    }
    j.finish();
    growing.extend(j.state());
    growing.settle(j.state());
    let whole = Transcript::new(j.state());
    assert_eq!(whole.entries(), growing.entries(), "a transcript built while reading differs");
    for i in 0..whole.len() {
        let json = whole.entry_json(j.state(), i).expect("an entry");
        assert!(serde_json::from_str::<serde_json::Value>(&json).is_ok(), "entry {i} is not JSON");
    }
    assert!(whole.entry_json(j.state(), whole.len()).is_none());
    let _ = whole.search(j.state(), "a\u{e9}\"");
    let index: serde_json::Value =
        serde_json::from_str(&whole.index_json(0, usize::MAX)).expect("the index is JSON");
    assert_eq!(index.as_array().map(Vec::len), Some(whole.len()));
    taken_while_reading_and_patched(data, step, data.len() % 2 == 0, "these bytes");
}

/// Entries as a reader takes them while a journal is read (`index_json`
/// before settling, as the viewer's worker drafts them), with the patch
/// applied at the end (`patch_json`: in slices of 7 with `settle_each`, else
/// whole), are the entries of a whole build; `settle_each`: settled after
/// every chunk, as when entries are drawn while reading (the patch must then
/// undo what those settles said). Returns false when settling moved entries
/// (the reader takes them again; there is no patch).
pub fn taken_while_reading_and_patched(
    bytes: &[u8],
    chunk_size: usize,
    settle_each: bool,
    what: &str,
) -> bool {
    use garuda_session::transcript::Transcript;
    use serde_json::Value;
    let mut whole = Journal::default().with_history();
    whole.feed_bytes(bytes);
    whole.finish();
    let full = Transcript::new(whole.state());
    let mut j = Journal::default().with_history();
    let mut t = Transcript::default();
    let mut taken: Vec<Value> = Vec::new();
    let take = |t: &Transcript, taken: &mut Vec<Value>| {
        let Value::Array(more) = serde_json::from_str(&t.index_json(taken.len(), t.len())).expect("JSON")
        else {
            panic!("{what}: the index is not an array")
        };
        taken.extend(more);
    };
    for (k, chunk) in bytes.chunks(chunk_size.max(1)).enumerate() {
        j.feed_bytes(chunk);
        t.extend(j.state());
        // The first screen settles what there is so far.
        if k == 1 || settle_each {
            t.settle(j.state());
        }
        take(&t, &mut taken);
        t.forget_messages(j.history_mut());
    }
    j.finish();
    t.extend(j.state());
    take(&t, &mut taken);
    t.settle(j.state());
    if t.patch_json(0, 0).is_none() {
        return false;
    }
    let step = if settle_each { 7 } else { t.len().max(1) };
    for from in (0..t.len()).step_by(step) {
        let patch: Value =
            serde_json::from_str(&t.patch_json(from, from + step).expect("a patch")).expect("JSON");
        apply_patch(&mut taken, &patch, what);
    }
    let expected: Value = serde_json::from_str(&full.index_json(0, full.len())).expect("JSON");
    assert_eq!(Value::Array(taken), expected, "{what}: chunks of {chunk_size}, settled each: {settle_each}");
    true
}

/// A patch (`patch_json`'s columns) applied to entries taken as JSON, as
/// its documentation says a reader applies it: each field set, or removed
/// where the patch says absent.
fn apply_patch(taken: &mut [serde_json::Value], patch: &serde_json::Value, what: &str) {
    use serde_json::Value;
    let set = |o: &mut serde_json::Map<String, Value>, k: &str, v: Option<Value>| match v {
        Some(v) => drop(o.insert(k.into(), v)),
        None => drop(o.remove(k)),
    };
    let from = patch["from"].as_u64().expect("from") as usize;
    let column = |name: &str| patch[name].as_str().expect(name).chars().collect::<Vec<_>>();
    let (fates, thinking, under) = (column("fate"), column("thinkingFate"), column("underCalls"));
    let name = |codes: &str, c: char| patch["codes"][codes].get(c.to_string()).cloned();
    for (i, ((f, t), u)) in fates.into_iter().zip(thinking).zip(under).enumerate() {
        let Some(Value::Object(e)) = taken.get_mut(from + i) else { panic!("{what}: entry {}", from + i) };
        set(e, "fate", name("fate", f));
        set(e, "thinkingFate", name("thinkingFate", t));
        set(e, "underCalls", (u == '1').then_some(Value::Bool(true)));
        e.remove("droppedWhy");
    }
    for row in patch["droppedWhy"].as_array().expect("droppedWhy").chunks(2) {
        let i = row[0].as_u64().expect("an index") as usize;
        taken[i]["droppedWhy"] = row[1].clone();
    }
    for row in patch["tools"].as_array().expect("tools").chunks(6) {
        let (i, k) = (row[0].as_u64().expect("an index") as usize, row[1].as_u64().expect("a tool") as usize);
        let Value::Object(tool) = &mut taken[i]["tools"][k] else { panic!("{what}: tool {k} of {i}") };
        let present = |v: &Value| (!v.is_null()).then(|| v.clone());
        set(tool, "pair", present(&row[2]));
        set(tool, "name", present(&row[3]));
        let flags = row[4].as_u64().expect("flags");
        set(tool, "error", (flags & 1 != 0).then_some(Value::Bool(true)));
        set(tool, "interrupted", (flags & 2 != 0).then_some(Value::Bool(true)));
        set(tool, "child", present(&row[5]));
    }
}

/// Live writes: every record written is one line, and replaying the lines
/// written gives the live state (the seed's "the journal always matches
/// memory"); no planted secret reaches the lines.
pub fn live_equals_replay(data: &[u8]) {
    let text = String::from_utf8_lossy(data).replace("PLANT", PLANTED);
    let mut live = Journal::new(Redactor::new([(PLANTED_NAME, PLANTED)]));
    // The same records through a journal that keeps the model's view, as a
    // live session's does (its memory keeps what it was given, unredacted).
    let mut viewed = Journal::new(Redactor::new([(PLANTED_NAME, PLANTED)])).with_model_view(true);
    let mut written = String::new();
    let mut as_given = true;
    for (i, record) in text.split('\n').enumerate() {
        if let Ok(line) = live.write(record) {
            assert!(!line.contains('\n'), "a written record spans lines: {line:?}");
            assert!(!line.contains(PLANTED), "the planted secret reached the journal: {line}");
            as_given &= matches!(line, std::borrow::Cow::Borrowed(_));
            written.push_str(&line);
            written.push('\n');
        }
        let _ = viewed.write(record);
        // A host reads the model's view after some records (each turn's
        // request): the view then follows the records as they come.
        if i % 2 == 1 {
            viewed.model_view();
        }
    }
    // What `write` writes is a Garuda journal, whatever its first record
    // looks like: replayed as one (detection could take a line that looks
    // like another agent's for that agent's).
    let mut replay =
        Journal::default().with_format(garuda_session::formats::Format::Garuda).with_model_view(true);
    replay.feed(&written);
    replay.finish();
    assert_eq!(replay.state(), live.state(), "live and replay differ for:\n{written}");
    resumes_acceptably(live.state(), "live");
    // The model's view too: what the live journal tracked as records came
    // equals what a replay makes of them at once (when the disk holds what
    // was given: a redacted line differs in memory by design).
    if !as_given {
        return;
    }
    let (view, state) = viewed.model_view();
    let live_view = (view.json_from(state, 0), view.open_calls().to_vec());
    let as_written: Vec<String> = state.messages.iter().map(|m| m.json.to_string()).collect();
    view_is_sendable(&live_view.0, !live_view.1.is_empty(), &as_written, &written);
    let (view, state) = replay.model_view();
    let replay_view = (view.json_from(state, 0), view.open_calls().to_vec());
    assert_eq!(replay_view, live_view, "the model's view differs, live and replayed, for:\n{written}");
}

/// What the live view sends keeps the API's rules on tool calls and
/// content (spec §6 rule 5): ids used once, each result answering a call of
/// the message before it, first in its message, no empty content or text.
/// Thinking is the agent's as written after the barrier, and calls left
/// open at the end wait for the host's results (`open`). A conversation
/// with a block the API never writes (no `type`, a result without its id)
/// is not checked: such a block goes live as the agent wrote it (the steps
/// that judge a live message read most without a parse), and a resume
/// repairs it.
fn view_is_sendable(view: &str, open: bool, as_written: &[String], written: &str) {
    use garuda_session::resume::ProblemKind as K;
    if check_messages(as_written, false).iter().any(|p| p.kind == K::BadBlock) {
        return;
    }
    let messages: Vec<&serde_json::value::RawValue> =
        serde_json::from_str(view).expect("the view is a JSON array");
    let texts: Vec<String> = messages.iter().map(|m| m.get().to_owned()).collect();
    if texts.is_empty() {
        return;
    }
    let problems = check_messages(&texts, false);
    if problems.iter().any(|p| p.kind == K::BadBlock) {
        return;
    }
    let problems: Vec<_> = problems
        .into_iter()
        .filter(|p| !matches!(p.kind, K::ThinkingUnsigned | K::ThinkingMissing | K::ThinkingRedacted))
        // Calls left open for the host's results: the last response's, with
        // only results after it (the host's answer joins them in one turn).
        .filter(|p| !(open && p.kind == K::ToolUseUnanswered && last_response(&texts) == Some(p.index)))
        .collect();
    assert!(
        problems.is_empty(),
        "the live view breaks the API's rules: {problems:?}\nview: {view}\nfor:\n{written}"
    );
}

/// The index of the view's last response when only tool results follow it.
fn last_response(texts: &[String]) -> Option<usize> {
    let messages: Vec<serde_json::Value> =
        texts.iter().filter_map(|t| serde_json::from_str(t).ok()).collect();
    let at = messages.iter().rposition(|m| m["role"] == "assistant")?;
    let only_results = messages[at + 1..]
        .iter()
        .all(|m| m["content"].as_array().is_some_and(|c| c.iter().all(|b| b["type"] == "tool_result")));
    only_results.then_some(at)
}

/// The Redactor on journal text: the line count stays, each record stays a
/// JSON object, a second pass changes nothing, and no planted secret
/// survives.
pub fn redact(data: &[u8]) {
    let text = String::from_utf8_lossy(data).replace("PLANT", PLANTED);
    let redactor = Redactor::new([(PLANTED_NAME, PLANTED)]);
    let once = redactor.redact_journal(&text);
    assert_eq!(once.text.split('\n').count(), text.split('\n').count(), "the line count changed");
    assert!(!once.text.contains(PLANTED), "the planted secret survived:\n{}", once.text);
    let twice = redactor.redact_journal(&once.text);
    assert_eq!(twice.text, once.text, "a second pass changed the text");
    for (before, after) in text.split('\n').zip(once.text.split('\n')) {
        let was_object = serde_json::from_str::<serde_json::Value>(before).is_ok_and(|v| v.is_object());
        if was_object {
            let now = serde_json::from_str::<serde_json::Value>(after);
            assert!(now.is_ok_and(|v| v.is_object()), "a record stopped being JSON: {before} -> {after}");
        }
        // The Redactor's own JSON check (json_check.rs) against serde_json's.
        let serde_accepts = serde_json::from_str::<serde::de::IgnoredAny>(before).is_ok();
        assert_eq!(
            garuda_session::json_check::is_json(before.as_bytes()),
            serde_accepts,
            "JSON check: {before:?}"
        );
        match redactor.redact_line(before) {
            Ok(r) => {
                assert!(!r.changed || r.line != before);
                assert!(!r.line.contains(PLANTED));
            }
            Err(_) => assert!(!was_object, "a JSON object was refused: {before}"),
        }
    }
    let free = redactor.redact(&text);
    assert!(!free.contains(PLANTED), "the planted secret survived as free text");
    assert_eq!(redactor.redact(&free), free, "a second pass over free text changed it");
}

/// `checkMessages` and the repair on an arbitrary list of messages (the
/// bytes as a JSON array, or each line as one message).
pub fn check_and_repair(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let messages: Vec<String> = match serde_json::from_str::<Vec<Box<serde_json::value::RawValue>>>(&text) {
        Ok(list) => list.into_iter().map(|m| m.get().to_owned()).collect(),
        Err(_) => text.lines().map(str::to_owned).collect(),
    };
    let _ = check_messages(&messages, true);
    let _ = check_messages(&messages, false);
    let journal: String =
        messages.iter().map(|m| format!(r#"{{"type":"user","message":{m}}}"#) + "\n").collect::<String>();
    resumes_acceptably(&rebuild_state(&journal), "repair");
}
