//! The repair of a Claude Code session (`claude.rs` finds what to mend):
//! the bad thinking dropped by the prefix rule, an error result added for a
//! call that has none, an orphan result dropped, the chain mended; every
//! line it does not touch written back byte for byte.

use super::*;

/// A fresh uuid (v4 shape), the same for the same input so a repair is
/// reproducible, and unlike any uuid of the file.
fn fresh_uuid(seed: &str, taken: &HashSet<String>) -> String {
    for n in 0u64.. {
        let a = hash(&format!("{seed}\u{0}{n}"));
        let b = hash(&format!("{n}\u{0}{seed}"));
        let u = format!(
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            0x8000 | ((b >> 48) & 0x3fff),
            b & 0xffff_ffff_ffff
        );
        if !taken.contains(&u) {
            return u;
        }
    }
    // Not reached: a file holds fewer uuids than there are seeds.
    String::new()
}

pub fn repair(bytes: &[u8]) -> (Vec<u8>, Vec<Change>) {
    let mut changes = Vec::new();
    let mut ignored = Vec::new();
    let rows = rows(bytes, &mut ignored);
    let (parents, t) = chain_breaks(&rows, &mut ignored);
    let plan = history(&rows, &t, &mut ignored);
    let parsed = |i: usize| rows.parsed(i);
    let line = |i: usize| rows.line(i);
    // The parent the chain repair gives row `i` (else its own).
    let parent_of =
        |i: usize, p: &Row| parents.get(&i).cloned().unwrap_or_else(|| rows.str(p.parent).map(str::to_owned));
    if parents
        .values()
        .zip(parents.keys())
        .all(|(p, &i)| parsed(i).and_then(|x| rows.str(x.parent)) == p.as_deref())
        && plan.bad_thinking.is_empty()
        && plan.orphans.is_empty()
        && plan.unanswered.is_empty()
    {
        return (bytes.to_vec(), changes);
    }
    // The prefix rule: from the first bad thinking, or the first change the
    // repair makes to the history, every later thinking block goes.
    let first_change = plan
        .orphans
        .iter()
        .copied()
        .chain(plan.unanswered.iter().map(|&(_, after, _)| (after, usize::MAX)))
        .min();
    let first_bad = plan.bad_thinking.first().map(|b| b.0);
    let cut = [first_change, first_bad].into_iter().flatten().min();
    let mut drop: HashMap<usize, Vec<usize>> = HashMap::new();
    for &(i, b) in &plan.thinking {
        if cut.is_some_and(|c| (i, b) >= c) {
            // (The refused thinking is in history order: found by halving,
            // so a model switch that refuses every block stays linear.)
            let bad = plan.bad_thinking.binary_search_by(|(p, _)| p.cmp(&(i, b)));
            let why = match bad.ok().and_then(|k| plan.bad_thinking.get(k)) {
                Some((_, why)) => why.clone(),
                None if first_bad.is_some_and(|f| f <= (i, b))
                    && first_change.is_none_or(|c| first_bad <= Some(c)) =>
                {
                    format!(
                        "after the refused thinking on line {}: its signature covers what came before it",
                        first_bad.map_or(0, |f| line(f.0))
                    )
                }
                None => format!(
                    "after the change on line {}: its signature covers what came before it",
                    first_change.map_or(0, |c| line(c.0))
                ),
            };
            changes.push(Change {
                line: line(i),
                kind: ChangeKind::ThinkingDropped,
                block: Some(b),
                message: format!("thinking block {b} dropped: {why}"),
            });
            drop.entry(i).or_default().push(b);
        }
    }
    for &(i, b) in &plan.orphans {
        let id = rows.blocks(i).get(b).and_then(|x| rows.str(x.id)).unwrap_or_default();
        changes.push(Change {
            line: line(i),
            kind: ChangeKind::ResultDropped,
            block: Some(b),
            message: format!("tool_result block {b} for {id} dropped: it answers no call"),
        });
        drop.entry(i).or_default().push(b);
    }
    // Lines emptied go; their children take their parent.
    let mut removed: HashMap<String, Option<String>> = HashMap::new();
    let mut gone: HashSet<usize> = HashSet::new();
    let mut content: HashMap<usize, String> = HashMap::new();
    for (&i, bs) in &drop {
        let Some(p) = parsed(i) else { continue };
        let text = rows.text(i);
        if text.edits.block_spans.len() < rows.blocks(i).len() {
            // Read with U+FFFD for bytes that are not UTF-8: no spans of
            // the file's to cut, so the line stays as it is, and so do
            // the changes said of it.
            changes.retain(|c| c.line != line(i));
            continue;
        }
        let kept: Vec<&str> = text
            .edits
            .block_spans
            .iter()
            .enumerate()
            .filter(|(b, _)| !bs.contains(b))
            .map(|(_, &(a, z))| text.text.get(a..z).unwrap_or_default())
            .collect();
        if kept.is_empty() {
            gone.insert(i);
            if let Some(u) = rows.str(p.uuid) {
                removed.insert(u.to_owned(), parent_of(i, p));
            }
            changes.push(Change {
                line: line(i),
                kind: ChangeKind::LineRemoved,
                block: None,
                message: "the line is left out: all it held was dropped".into(),
            });
        } else {
            content.insert(i, format!("[{}]", kept.join(",")));
        }
    }
    // Synthetic results: one line per call line, a child of it.
    let taken: HashSet<String> =
        (0..rows.len()).filter_map(|i| Some(rows.str(parsed(i)?.uuid)?.to_owned())).collect();
    let mut taken_now = taken.clone();
    let mut synthetic_of: HashMap<String, (String, Option<String>)> = HashMap::new();
    let mut inserts: HashMap<usize, Vec<String>> = HashMap::new();
    for (call, after, ids) in &plan.unanswered {
        let Some(p) = parsed(*call) else { continue };
        let results: Vec<String> = ids
            .iter()
            .map(|id| {
                format!(
                    r#"{{"type":"tool_result","tool_use_id":{},"content":{},"is_error":true}}"#,
                    str_literal(id),
                    str_literal(INTERRUPTED)
                )
            })
            .collect();
        let mut fields = Vec::new();
        let uuid = rows.str(p.uuid).map(|u| {
            let fresh = fresh_uuid(&format!("{u}\u{0}{}", ids.join(",")), &taken_now);
            taken_now.insert(fresh.clone());
            fields.push(format!(r#""parentUuid":{}"#, str_literal(u)));
            synthetic_of.insert(u.to_string(), (fresh.clone(), rows.str(p.response).map(str::to_owned)));
            fresh
        });
        fields.push(format!(r#""isSidechain":{}"#, p.sidechain));
        fields.push(r#""userType":"external""#.to_owned());
        let copy = &rows.text(*call).edits.copy;
        for (key, raw) in copy.iter().filter(|(k, _)| *k != "timestamp") {
            fields.push(format!(r#""{key}":{raw}"#));
        }
        fields
            .push(format!(r#""type":"user","message":{{"role":"user","content":[{}]}}"#, results.join(",")));
        if let Some(u) = &uuid {
            fields.push(format!(r#""uuid":{}"#, str_literal(u)));
        }
        if let Some((_, raw)) = copy.iter().find(|(k, _)| *k == "timestamp") {
            fields.push(format!(r#""timestamp":{raw}"#));
        }
        inserts.entry(*after).or_default().push(format!("{{{}}}", fields.join(",")));
        changes.push(Change {
            line: line(*after),
            kind: ChangeKind::ResultAdded,
            block: None,
            message: format!(
                "a line added after this one: an error tool_result for {} (the call on line {}), {}",
                ids.join(", "),
                line(*call),
                uuid.map_or("without a uuid, as the file has none".to_owned(), |u| format!("uuid {u}"))
            ),
        });
    }
    // Parents: the chain repair's, then past removed lines, then to the
    // synthetic result that now follows a call.
    // The first line of each uuid, to name a new parent by its line.
    // (Collected from the last line up: the first line's entry is the one left.)
    let first_line: HashMap<&str, u64> =
        (0..rows.len()).rev().filter_map(|i| Some((rows.str(parsed(i)?.uuid)?, line(i)))).collect();
    let mut out: Vec<u8> = Vec::with_capacity(bytes.len() + 256);
    for i in 0..rows.len() {
        let r = rows.text(i);
        if gone.contains(&i) {
            // A result added after a line that went still goes here.
            for l in inserts.get(&i).into_iter().flatten() {
                out.extend_from_slice(l.as_bytes());
                out.push(b'\n');
            }
            continue;
        }
        let mut edits = Vec::new();
        // Edited content is an array: its span is there.
        if let (Some(c), Some(span)) = (content.get(&i), parsed(i).and(r.edits.content_span)) {
            edits.push((span, c.clone()));
        }
        if let Some((p, parent_span)) = parsed(i).and_then(|p| Some((p, r.edits.parent_span?))) {
            let mut parent = parent_of(i, p);
            let mut steps = 0;
            while let Some(next) = parent.as_ref().and_then(|u| removed.get(u)) {
                parent = next.clone();
                steps += 1;
                if steps > removed.len() {
                    break;
                }
            }
            if let Some((fresh, response)) = parent.as_ref().and_then(|u| synthetic_of.get(u)) {
                if response.is_none() || response.as_deref() != rows.str(p.response) {
                    parent = Some(fresh.clone());
                }
            }
            if parent.as_deref() != rows.str(p.parent) {
                let target = match &parent {
                    Some(u) => first_line
                        .get(u.as_str())
                        .map_or_else(|| format!("the added result {u}"), |l| format!("line {l}")),
                    None => "no line (it starts the conversation)".into(),
                };
                changes.push(Change {
                    line: line(i),
                    kind: ChangeKind::Reparented,
                    block: None,
                    message: format!(
                        "its parent is now {target} (was {})",
                        rows.str(p.parent).unwrap_or("none")
                    ),
                });
                edits.push((parent_span, parent.as_deref().map_or("null".to_owned(), str_literal)));
            }
        }
        if edits.is_empty() {
            out.extend_from_slice(&bytes[r.range.0..r.range.1]);
        } else {
            out.extend_from_slice(super::super::raw::splice(r.text, edits).as_bytes());
        }
        let added = inserts.get(&i);
        if rows.row(i).newline || added.is_some() {
            out.push(b'\n');
        }
        for l in added.into_iter().flatten() {
            out.extend_from_slice(l.as_bytes());
            out.push(b'\n');
        }
    }
    super::super::sort_changes(&mut changes);
    (out, changes)
}
