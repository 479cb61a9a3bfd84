//! The Garuda session journal core: replay, accounting, redaction and resume.
//!
//! Everything here is pure, in-memory Rust. Hosts (Node, a browser) do the
//! file I/O and hand lines in; `wasm.rs` is the only file that knows about
//! JavaScript. The contract is `JOURNAL.md` (shared/spec); section numbers in
//! comments refer to it.
//!
//! Where each concern lives:
//! - `record`: one journal line, parsed tolerantly into a typed record (§1, §2)
//! - `state`: the session state and how each record changes it (§2, §3)
//! - `accounting`: usage, cost, child debits, budget note, formatCost (§4)
//! - `journal`: reading whole texts, chunks or single lines; live writes (§1, §3)
//! - `redact`: the Redactor (§5)
//! - `resume`: resume repair, closeOpenToolCalls, checkMessages (§6)
//! - `listing`: `/sessions` rows and session ids (§7)
//! - `prices`: the dated price table and the cost of one request
//! - `transcript`: the one transcript model the viewer, export and CLI render
//! - `formats`: readers of other agents' sessions (Claude Code, Codex, pi, Gemini CLI)
//! - `context`: keeping the context small and the load safe (truncation, pruning, the strict load)

pub mod accounting;
pub mod bytes;
pub mod context;
pub mod doctor;
pub mod formats;
pub mod journal;
mod json;
#[doc(hidden)]
pub mod json_check;
pub mod json_path;
mod json_skim;
pub mod json_str;
pub mod lines;
pub mod listing;
mod order;
pub mod prices;
mod prompt_text;
pub mod record;
#[doc(hidden)]
pub mod record_walk;
pub mod redact;
pub mod resume;
mod session_format;
pub mod state;
mod too_deep;
pub mod transcript;
pub mod usage_rows;

/// ../shared's finder for the unit tests that read the peers' sessions
/// (the integration tests load the same file).
#[cfg(test)]
#[path = "../tests/support/shared.rs"]
mod test_shared;

/// The integration tests' fixed-seed xorshift, for unit tests that make
/// their inputs.
#[cfg(test)]
#[path = "../tests/support/rng.rs"]
mod test_rng;

#[cfg(target_arch = "wasm32")]
pub mod wasm;

pub use accounting::{budget_note, format_cost, Usage};
pub use journal::{rebuild_state, Journal, WriteError};
pub use listing::{new_session_id, summarise_session, validate_session_id, SessionRow};
pub use redact::{LineRedaction, Redactor, RedactorError};
pub use state::{Message, Origin, SessionState, Warning, WarningKind};
