//! Hostile bytes around real sessions (`../shared/peers/` and the golden
//! journals), each checked against what the bytes themselves say, not
//! against the reader:
//! - a UTF-8 byte-order mark before the first line changes nothing (an
//!   editor's BOM dropped the `start` record as a bad line);
//! - junk lines slipped between the records of a JSONL session cost one
//!   `bad-json` count each and nothing else: the state is the clean file's,
//!   the counts grow by exactly the lines inserted, and however many there
//!   are, at most `WARNINGS_KEPT` of a kind are kept.

#[path = "support/shared.rs"]
mod shared;

use garuda_session::state::WARNINGS_KEPT;
use garuda_session::{Journal, SessionState, WarningKind};
use std::path::PathBuf;

fn read(bytes: &[u8], step: usize) -> SessionState {
    let mut j = Journal::default();
    for chunk in bytes.chunks(step.max(1)) {
        j.feed_bytes(chunk);
    }
    j.finish();
    j.into_state()
}

fn files() -> Vec<PathBuf> {
    let golden = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden");
    let mut all: Vec<PathBuf> = shared::session_files(&golden);
    if let Some(peers) = shared::shared_file("peers_hardening", "peers") {
        all.extend(shared::session_files(&peers));
    }
    all.retain(|p| {
        let name = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
        !name.ends_with(".state.json")
            && name != "manifest.json"
            && name != "logs.json"
            && !name.ends_with(".meta.json")
    });
    all.sort();
    all
}

/// What a session says, leaving out what junk changes by design: its
/// warnings, and the line numbers (origins, history) that the inserted
/// lines shift.
fn gist(s: &SessionState) -> String {
    let messages: Vec<&str> = s.messages.iter().map(|m| m.json.as_str()).collect();
    format!(
        "{:?} {:?} {:?} {:?} {} {} {} {:?} {:?} {} {:?} {:?} {:?} {:?} {:?}",
        s.session_id,
        s.model,
        messages,
        s.accounts,
        s.context_tokens,
        s.steps,
        s.prompts,
        s.title,
        s.first_prompt,
        s.epoch,
        s.ended,
        s.format,
        s.ledger,
        s.torn_tail,
        s.undo.len()
    )
}

#[test]
fn a_byte_order_mark_before_the_first_line_changes_nothing() {
    for path in files() {
        let bytes = std::fs::read(&path).expect("readable");
        if bytes.starts_with(b"\xEF\xBB\xBF") {
            continue;
        }
        let plain = read(&bytes, usize::MAX);
        let marked = [b"\xEF\xBB\xBF".as_slice(), &bytes].concat();
        assert_eq!(read(&marked, usize::MAX), plain, "{}", path.display());
        assert_eq!(read(&marked, 2), plain, "{}: the mark split across chunks", path.display());
    }
}

#[test]
fn junk_between_the_records_of_a_real_session_costs_a_count_per_line_and_nothing_else() {
    let mut checked = 0;
    for path in files() {
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let bytes = std::fs::read(&path).expect("readable");
        let text = String::from_utf8_lossy(&bytes);
        // Whole lines only, so the junk never lands inside a record (a file
        // without a final newline keeps its last line as it was).
        let Some(body_end) = text.rfind('\n') else { continue };
        let lines: Vec<&str> = text[..body_end].split('\n').collect();
        if lines.len() < 2 {
            continue;
        }
        let clean = read(&bytes, usize::MAX);
        // After every line but the first (a junk first line would hide the format).
        let per_gap = 1 + (2 * WARNINGS_KEPT as usize) / lines.len();
        let mut dirty = String::with_capacity(text.len() + lines.len() * per_gap * 5);
        let mut inserted = 0u64;
        for (i, line) in lines.iter().enumerate() {
            dirty.push_str(line);
            dirty.push('\n');
            if i > 0 {
                for _ in 0..per_gap {
                    dirty.push_str("junk\n");
                    inserted += 1;
                }
            }
        }
        dirty.push_str(&text[body_end + 1..]);
        let junky = read(dirty.as_bytes(), 4093);
        let k = WarningKind::BadJson.index();
        assert_eq!(
            junky.warning_counts[k],
            clean.warning_counts[k] + inserted,
            "{}: one bad-json count per junk line",
            path.display()
        );
        assert!(inserted > WARNINGS_KEPT, "{}: enough junk to pass the bound", path.display());
        for kind in WarningKind::ALL {
            let kept = junky.warnings.iter().filter(|w| w.kind == kind).count() as u64;
            assert_eq!(
                kept,
                junky.warning_counts[kind.index()].min(WARNINGS_KEPT),
                "{}: {kind:?} kept",
                path.display()
            );
        }
        assert_eq!(gist(&junky), gist(&clean), "{}: the junk changed the state", path.display());
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} files checked");
}

/// One byte that is not UTF-8 inside a text of a real session (a bad sector,
/// a tool's output cut mid-character) is read as Node reads the file, the
/// way the agents' own loaders and ccusage read it: as U+FFFD. The oracle
/// is the same file with that byte written as U+FFFD, which is valid:
/// the two states are the same but for the warning, and no message is lost
/// (a Claude Code line dropped for it broke the chain, and every turn
/// before it left the conversation).
#[test]
fn a_byte_that_is_not_utf8_is_read_as_the_replacement_character() {
    let mut checked = 0;
    for path in files() {
        if path.extension().is_none_or(|e| e != "jsonl") {
            continue;
        }
        let bytes = std::fs::read(&path).expect("readable");
        let starts: Vec<usize> = std::iter::once(0)
            .chain(bytes.iter().enumerate().filter(|(_, &b)| b == b'\n').map(|(i, _)| i + 1))
            .collect();
        // The middle line's first text value: a letter after `"text":"` or `"content":"`.
        let middle = starts[starts.len() / 2];
        let line_end = bytes[middle..].iter().position(|&b| b == b'\n').map_or(bytes.len(), |i| middle + i);
        let line = &bytes[middle..line_end];
        let Some(at) = [&b"\"text\":\""[..], b"\"content\":\""]
            .iter()
            .find_map(|key| line.windows(key.len()).position(|w| w == *key).map(|i| i + key.len()))
        else {
            continue;
        };
        if !line.get(at).is_some_and(u8::is_ascii_alphabetic) {
            continue;
        }
        let at = middle + at;
        let mut dirty = bytes.clone();
        dirty[at] = 0xFF;
        let oracle = [&bytes[..at], "\u{FFFD}".as_bytes(), &bytes[at + 1..]].concat();
        let (clean, read_dirty, read_oracle) =
            (read(&bytes, usize::MAX), read(&dirty, 4093), read(&oracle, usize::MAX));
        assert_eq!(gist(&read_dirty), gist(&read_oracle), "{}", path.display());
        assert_eq!(read_dirty.messages.len(), clean.messages.len(), "{}: a message lost", path.display());
        let line_no = starts.iter().position(|&s| s == middle).unwrap() as u64 + 1;
        let k = WarningKind::NotUtf8;
        assert_eq!(read_dirty.warning_counts[k.index()], 1, "{}", path.display());
        assert!(
            read_dirty.warnings.iter().any(|w| w.kind == k && w.line == line_no),
            "{}: {:?}",
            path.display(),
            read_dirty.warnings
        );
        checked += 1;
    }
    assert!(checked >= 20, "only {checked} files checked");
}
