//! File edits as diffs, from the tool calls that make them: Garuda's
//! `edit_file` (`path`, `old`, `new`), Claude Code's Edit / MultiEdit / Write,
//! pi's `edit` (`oldText`, `newText`) and `write`, and Codex's `apply_patch`
//! (the patch text itself). A call that edits nothing gives no diff.

#![forbid(unsafe_code)]

use serde::Serialize;
use serde_json::Value;

/// One file's changes: lines marked `+` (added), `-` (removed), ` ` (kept,
/// for context) or `@` (a hunk header of a patch).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FileDiff {
    pub path: String,
    pub lines: Vec<(char, String)>,
    /// The file written whole (a Write, a patch's Add File): its `+` lines
    /// are the file from line 1, so a reader can show it as a file.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub whole: bool,
}

/// Lines of context kept around a change.
const CONTEXT: usize = 3;

fn str_at<'a>(v: &'a Value, keys: &[&str]) -> Option<&'a str> {
    keys.iter().find_map(|k| v.get(*k).and_then(Value::as_str))
}

/// The diffs a tool call's input describes (empty: it edits nothing we know).
pub fn of_call(name: &str, input: &Value) -> Vec<FileDiff> {
    if let Some(patch) =
        str_at(input, &["input", "patch"]).filter(|p| p.trim_start().starts_with("*** Begin Patch"))
    {
        return of_patch(patch);
    }
    let path = str_at(input, &["file_path", "path", "filePath", "file"]).unwrap_or("").to_owned();
    if let Some(edits) = input.get("edits").and_then(Value::as_array) {
        let mut lines = Vec::new();
        for e in edits {
            if let (Some(old), Some(new)) =
                (str_at(e, &["old_string", "oldText", "old"]), str_at(e, &["new_string", "newText", "new"]))
            {
                if !lines.is_empty() {
                    lines.push(('@', String::new()));
                }
                lines.extend(of_edit(old, new));
            }
        }
        return if lines.is_empty() { Vec::new() } else { vec![FileDiff { path, lines, whole: false }] };
    }
    let old = str_at(input, &["old_string", "oldText", "old", "old_str"]);
    let new = str_at(input, &["new_string", "newText", "new", "new_str"]);
    // An edit with no old text inserts (Garuda's edit_file may omit `old`).
    if let Some(new) = new {
        return vec![FileDiff { path, lines: of_edit(old.unwrap_or(""), new), whole: false }];
    }
    let writes = matches!(name, "Write" | "write" | "write_file" | "create_file");
    match str_at(input, &["content", "contents"]) {
        Some(content) if writes => {
            vec![FileDiff {
                path,
                lines: content.lines().map(|l| ('+', l.to_owned())).collect(),
                whole: true,
            }]
        }
        _ => Vec::new(),
    }
}

/// An edit that replaces `old` with `new`: the lines both share at the start
/// and end are context (the last and first few), the rest removed and added.
fn of_edit(old: &str, new: &str) -> Vec<(char, String)> {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let room = a.len().min(b.len()) - prefix;
    let suffix = a.iter().rev().zip(b.iter().rev()).take(room).take_while(|(x, y)| x == y).count();
    let mut out = Vec::new();
    let line = |op: char, l: &&str| (op, (*l).to_owned());
    out.extend(a[prefix.saturating_sub(CONTEXT)..prefix].iter().map(|l| line(' ', l)));
    out.extend(a[prefix..a.len() - suffix].iter().map(|l| line('-', l)));
    out.extend(b[prefix..b.len() - suffix].iter().map(|l| line('+', l)));
    out.extend(a[a.len() - suffix..][..suffix.min(CONTEXT)].iter().map(|l| line(' ', l)));
    out
}

/// Codex's patch format: `*** Update File: p` (or Add, Delete), then hunks
/// of `@@`, ` `, `-` and `+` lines.
fn of_patch(patch: &str) -> Vec<FileDiff> {
    let mut files: Vec<FileDiff> = Vec::new();
    for l in patch.lines() {
        let file = ["*** Update File: ", "*** Add File: ", "*** Delete File: "]
            .iter()
            .find_map(|p| l.strip_prefix(p));
        if let Some(path) = file {
            let whole = l.starts_with("*** Add File: ");
            files.push(FileDiff { path: path.trim().to_owned(), lines: Vec::new(), whole });
            continue;
        }
        let Some(f) = files.last_mut() else { continue };
        if l.starts_with("***") {
            continue;
        }
        let (op, rest) = match l.chars().next() {
            Some(c @ ('+' | '-' | ' ')) => (c, &l[1..]),
            Some('@') => ('@', l.trim_start_matches('@').trim()),
            _ => (' ', l),
        };
        f.lines.push((op, rest.to_owned()));
    }
    files
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ops(d: &[FileDiff]) -> Vec<String> {
        d.iter().flat_map(|f| f.lines.iter().map(|(o, l)| format!("{o}{l}"))).collect()
    }

    #[test]
    fn each_agents_edit_call_is_a_diff() {
        let cases = [
            ("edit_file", json!({"path": "a.ts", "old": "x\ny\nz", "new": "x\nY\nz"})),
            ("Edit", json!({"file_path": "a.ts", "old_string": "x\ny\nz", "new_string": "x\nY\nz"})),
            ("edit", json!({"path": "a.ts", "oldText": "x\ny\nz", "newText": "x\nY\nz"})),
            (
                "MultiEdit",
                json!({"file_path": "a.ts", "edits": [{"old_string": "x\ny\nz", "new_string": "x\nY\nz"}]}),
            ),
        ];
        for (name, input) in cases {
            let d = of_call(name, &input);
            assert_eq!(d[0].path, "a.ts", "{name}");
            assert_eq!(ops(&d), [" x", "-y", "+Y", " z"], "{name}");
        }
    }

    #[test]
    fn writes_and_patches() {
        assert_eq!(ops(&of_call("Write", &json!({"file_path": "n.md", "content": "a\nb"}))), ["+a", "+b"]);
        assert!(of_call("Read", &json!({"file_path": "n.md", "content": "a"})).is_empty());
        let patch = "*** Begin Patch\n*** Update File: src/x.rs\n@@ fn main\n keep\n-old\n+new\n*** Add File: y.txt\n+hi\n*** End Patch";
        let d = of_call("apply_patch", &json!({ "input": patch }));
        assert_eq!(d.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(), ["src/x.rs", "y.txt"]);
        assert_eq!(ops(&d), ["@fn main", " keep", "-old", "+new", "+hi"]);
        // A file written whole is said so (a reader shows it as the file); an edit is not.
        assert_eq!(d.iter().map(|f| f.whole).collect::<Vec<_>>(), [false, true]);
        assert!(of_call("Write", &json!({"file_path": "n.md", "content": "a"}))[0].whole);
        assert!(
            !of_call("Edit", &json!({"file_path": "n.md", "old_string": "", "new_string": "a"}))[0].whole
        );
    }

    #[test]
    fn identical_and_overlapping_texts_never_cut_out_of_bounds() {
        for (a, b) in [("", ""), ("a", "a"), ("a\na", "a"), ("a", "a\na"), ("x\na\na", "x\na"), ("", "q")] {
            let _ = of_edit(a, b);
        }
        assert_eq!(of_edit("a\na", "a"), vec![(' ', "a".to_owned()), ('-', "a".to_owned())]);
    }
}
