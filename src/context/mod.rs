//! Keeping a long session's context small and its load safe: the seed
//! `001_dbd289b3f56b60c7.txt` (jcode's session package) has three tools
//! Garuda's module lacked.
//! - `truncate`: a tool output over 50 KB or 2,000 lines keeps its head and
//!   tail lines and a note of what went (TruncateToolOutput);
//! - `prune`: older tool results become placeholders that say how to get
//!   the data back, the recent turns kept whole (PruneOldToolOutputs);
//! - `strict`: a load that fails closed on the first malformed or unknown
//!   line instead of skipping it (LoadSessionModeStrict).

pub mod prune;
pub mod strict;
pub mod truncate;

pub use prune::{prune_old_tool_outputs, PruneOptions, Pruned};
pub use strict::{corruption, Corruption};
pub use truncate::{truncate_tool_output, Limits, Truncated};
