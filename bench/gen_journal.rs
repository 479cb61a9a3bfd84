//! Writes a deterministic realistic journal of about N megabytes to stdout.
//! `cargo run --release --example gen-journal -- 100 [seed] > bench/data/100mb.jsonl`

#[path = "../tests/support/generator.rs"]
mod generator;

use std::io::Write;

fn main() {
    let mut args = std::env::args().skip(1);
    let mb: f64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(1.0);
    let seed: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(7);
    let text = generator::journal(seed, (mb * 1_000_000.0) as usize);
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    if out.write_all(text.as_bytes()).is_err() {
        std::process::exit(1);
    }
}
