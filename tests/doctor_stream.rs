//! The doctor's diagnosis of a file read in chunks (`doctor::Streaming`,
//! what a host uses for a file too large to hold: issue 28 asks for a 1 GB
//! Claude Code session in bounded memory) is the diagnosis of the file read
//! whole, on every fixture of tests/doctor/ (every agent) and every file of
//! ../shared/peers, for chunk sizes that cut lines and UTF-8 characters
//! anywhere.

#[path = "support/shared.rs"]
mod shared;

use garuda_session::doctor;
use std::path::{Path, PathBuf};

fn streamed(bytes: &[u8], size: usize) -> doctor::Diagnosis {
    let mut s = doctor::Streaming::new(None);
    for chunk in bytes.chunks(size) {
        s.feed(chunk);
    }
    s.finish()
}

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/doctor");
    let mut out = shared::session_files(&dir);
    out.sort();
    assert!(out.len() > 20, "the doctor's fixtures are not where they were");
    out
}

#[test]
fn every_fixture_streamed_in_any_chunks_gets_the_whole_file_s_report() {
    for f in fixtures() {
        let bytes = std::fs::read(&f).unwrap();
        let whole = doctor::diagnose(&bytes, None);
        for size in [1, 2, 3, 7, 64, 1000, 1 << 20] {
            assert_eq!(streamed(&bytes, size), whole, "{} in chunks of {size}", f.display());
        }
    }
}

#[test]
fn every_peer_file_streamed_gets_the_whole_file_s_report() {
    let Some(peers) = shared::shared_file("every_peer_file_streamed_gets_the_whole_file_s_report", "peers")
    else {
        return;
    };
    let mut n = 0;
    for f in shared::session_files(&peers) {
        let bytes = std::fs::read(&f).unwrap();
        let whole = doctor::diagnose(&bytes, None);
        for size in [4093, 65536] {
            assert_eq!(streamed(&bytes, size), whole, "{} in chunks of {size}", f.display());
        }
        n += 1;
    }
    assert!(n > 10, "too few peer files under {}", peers.display());
}
