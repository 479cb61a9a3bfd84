//! What the fuzzers check (tests/support/invariants.rs), run on stable over
//! every crasher they ever found (tests/fuzz-crashers/<target>/) and over
//! their seed journals: a crash fixed once stays fixed.

#[path = "support/invariants.rs"]
mod invariants;

use std::path::Path;

type Check = fn(&[u8]);

const TARGETS: &[(&str, Check)] = &[
    ("replay", invariants::replay),
    ("live", invariants::live_equals_replay),
    ("redact", invariants::redact),
    ("repair", invariants::check_and_repair),
];

fn files_in(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_file()).collect())
        .unwrap_or_default();
    files.sort();
    files
}

#[test]
fn every_kept_crasher_now_passes_its_target() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fuzz-crashers");
    let mut ran = 0;
    for (target, check) in TARGETS {
        for file in files_in(&root.join(target)) {
            let data = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            check(&data);
            ran += 1;
        }
    }
    println!("{ran} kept crashers passed");
}

#[test]
fn every_seed_journal_passes_every_target() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut seeds = files_in(&root.join("tests/golden"));
    seeds.extend(files_in(&root.join("web-demo/samples")));
    seeds.retain(|p| p.extension().is_some_and(|e| e == "jsonl"));
    assert!(seeds.len() > 10, "the seed journals are in the repository");
    for seed in &seeds {
        let data = std::fs::read(seed).unwrap_or_else(|e| panic!("{}: {e}", seed.display()));
        for (target, check) in TARGETS {
            let result = std::panic::catch_unwind(|| check(&data));
            assert!(result.is_ok(), "{target} on {}", seed.display());
        }
    }
}
