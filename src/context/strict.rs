//! The strict load (the seed's LoadSessionModeStrict): "a malformed line
//! could itself be a newer mode transition, so authorization restore must
//! fail closed rather than silently skipping it". Replay stays tolerant;
//! this names the first line a strict reader must refuse.
//!
//! Refused: a line that does not parse, is not an object or has no `type`;
//! a record of an unknown type; a known record with a field of the wrong
//! type (a `user`, `continue` or `tool_results` message of a role other
//! than `user` too); a line over the maximum size (read by nobody); a
//! message too deep to carry; a line that is not UTF-8 (replay reads it
//! with U+FFFD); a torn last line. Not refused: blank lines, and an undo or
//! redo with nothing to take back (well-formed records the spec gives a
//! meaning), nor the notes readers of other agents add (other branches,
//! unknown usage).

#![forbid(unsafe_code)]

use crate::state::{SessionState, WarningKind};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Corruption {
    /// 1-based.
    pub line: u64,
    pub kind: &'static str,
    pub message: String,
}

fn refused(kind: WarningKind) -> bool {
    matches!(
        kind,
        WarningKind::BadJson
            | WarningKind::BadRecord
            | WarningKind::BadField
            | WarningKind::UnknownType
            | WarningKind::TooDeep
            | WarningKind::LineTooLong
            | WarningKind::NotUtf8
    )
}

/// The first line a strict load refuses, or None. `lines` is how many
/// lines were read (the torn tail, when there is one, is the last).
/// Warnings keep the first of each kind, so the earliest is among them.
pub fn corruption(state: &SessionState, lines: u64) -> Option<Corruption> {
    let warned = state
        .warnings
        .iter()
        .filter(|w| refused(w.kind))
        .min_by_key(|w| w.line)
        .map(|w| Corruption { line: w.line, kind: w.kind.as_str(), message: w.message.clone() });
    let torn = state.torn_tail.then(|| Corruption {
        line: lines.max(1),
        kind: "torn-tail",
        message: "the last line was cut off mid-write".to_owned(),
    });
    match (warned, torn) {
        (Some(w), Some(t)) => Some(if t.line < w.line { t } else { w }),
        (w, t) => w.or(t),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::journal::Journal;

    fn first(text: &str) -> Option<(u64, &'static str)> {
        let mut j = Journal::default();
        j.feed(text);
        j.finish();
        corruption(j.state(), j.line_count()).map(|c| (c.line, c.kind))
    }

    #[test]
    fn the_first_malformed_or_unknown_line_is_named() {
        let start = r#"{"t":"2026-01-01T00:00:00Z","type":"start","sessionId":"s","model":"m"}"#;
        let user = r#"{"t":"2026-01-01T00:00:01Z","type":"user","message":{"role":"user","content":"hi"}}"#;
        assert_eq!(first(&format!("{start}\n{user}\n")), None);
        assert_eq!(first(&format!("{start}\n\n{user}\n")), None, "blank lines are no corruption");
        assert_eq!(first(&format!("{start}\n{{not json\n{user}\n")), Some((2, "bad-json")));
        assert_eq!(
            first(&format!("{start}\n{user}\n{{\"t\":\"x\",\"type\":\"mode\"}}\n")),
            Some((3, "unknown-type"))
        );
        assert_eq!(
            first(&format!("{start}\n{{\"t\":\"x\",\"type\":\"title\",\"title\":5}}\n")),
            Some((2, "bad-field"))
        );
        assert_eq!(first(&format!("{start}\n[1]\n{{oops\n")), Some((2, "bad-record")));
        assert_eq!(first(&format!("{start}\n{user}\n{{\"t\":\"x\",\"ty")), Some((3, "torn-tail")));
        assert_eq!(
            first(&format!("{start}\n{{\"t\":\"x\",\"type\":\"undo\"}}\n")),
            None,
            "an empty undo is well-formed"
        );
    }
}
