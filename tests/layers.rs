//! The core's layering, read from its sources: which modules may name which.
//! The binding layer (src/wasm/) is the only code that knows JS; the leaf
//! utilities import nothing of the crate; the state and the record model
//! know no reader and no journal (the journal knows which reader it runs).
//! A line that breaks a rule fails here with its file and line number.

use std::fs;
use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Lines of `file` (comments and its unit tests left out) that name one of `names`.
fn naming(file: &Path, names: &[&str]) -> Vec<String> {
    let text = fs::read_to_string(file).expect("a source file is readable");
    text.lines()
        .enumerate()
        .take_while(|(_, line)| line.trim() != "#[cfg(test)]")
        .filter(|(_, line)| !line.trim_start().starts_with("//"))
        .filter(|(_, line)| names.iter().any(|n| line.contains(n)))
        .map(|(i, line)| format!("{}:{}: {}", file.display(), i + 1, line.trim()))
        .collect()
}

/// (files, names they must not use, why)
const RULES: &[(&[&str], &[&str], &str)] = &[
    (
        &["src/json_str.rs", "src/session_format.rs", "src/bytes.rs"],
        &["crate::", "super::"],
        "a leaf utility imports nothing of the crate",
    ),
    (
        &["src/state.rs", "src/record.rs", "src/accounting.rs"],
        &["crate::formats", "crate::journal", "crate::wasm", "crate::doctor", "crate::transcript"],
        "the state and the record model know no reader, journal, doctor or view",
    ),
];

#[test]
fn the_core_knows_no_js_and_the_leaves_import_nothing() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    sources(&root.join("src"), &mut files);
    assert!(files.len() > 50, "the sources were found ({} files)", files.len());
    let mut broken = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(root).expect("under the crate").to_string_lossy().replace('\\', "/");
        // Only the binding layer knows JS.
        if !rel.starts_with("src/wasm/") && rel != "src/wasm.rs" {
            broken.extend(
                naming(file, &["js_sys", "wasm_bindgen", "web_sys"])
                    .into_iter()
                    .map(|l| format!("{l}  (only src/wasm/ knows JS)")),
            );
        }
        for (rule_files, names, why) in RULES {
            if rule_files.contains(&rel.as_str()) {
                broken.extend(naming(file, names).into_iter().map(|l| format!("{l}  ({why})")));
            }
        }
    }
    for (rule_files, _, _) in RULES {
        for f in *rule_files {
            assert!(root.join(f).is_file(), "{f} exists (a rule names it)");
        }
    }
    assert!(broken.is_empty(), "layering broken:\n{}", broken.join("\n"));
}
