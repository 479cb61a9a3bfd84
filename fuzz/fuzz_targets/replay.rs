#![no_main]
//! See tests/support/invariants.rs for what this target checks.

#[path = "../../tests/support/invariants.rs"]
mod invariants;

libfuzzer_sys::fuzz_target!(|data: &[u8]| invariants::replay(data));
