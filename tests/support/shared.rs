//! `../shared` holds material from other public projects (the labelled
//! redaction corpus, other agents' transcripts). Tests may read it, the
//! repository never carries a copy, and a clone without it must still pass:
//! a test that needs it asks here and skips, saying so, when it is absent.

use std::path::PathBuf;

/// The path of `rel` under `../shared` (or under `$GARUDA_SHARED`, which
/// `.ci/test` points at nothing once to prove a bare clone passes), or
/// `None` after printing one line that says which test skipped and why.
pub fn shared_file(test: &str, rel: &str) -> Option<PathBuf> {
    let base = std::env::var_os("GARUDA_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let path = base.join(rel);
    if path.exists() {
        Some(path)
    } else {
        println!(
            "SKIP {test}: {} is absent (../shared sits beside the repository in CI; a bare clone skips this)",
            path.display()
        );
        None
    }
}

/// Every `.jsonl` and `.json` file under `dir`, at any depth.
#[allow(dead_code)] // not every test that includes this file walks a folder
pub fn session_files(dir: &std::path::Path) -> Vec<PathBuf> {
    fn walk(dir: &std::path::Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, out);
            } else if p.extension().is_some_and(|x| x == "jsonl" || x == "json") {
                out.push(p);
            }
        }
    }
    let mut out = Vec::new();
    walk(dir, &mut out);
    out
}
