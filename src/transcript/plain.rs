//! Landmarks in a reader's words. The state names a landmark by its record
//! (`side_usage: 29021 tokens`), which is right for a log and opaque to a
//! person; the transcript says what happened instead.

#![forbid(unsafe_code)]

use crate::record::RecordKind;

/// A landmark's text for a reader, from the state's.
pub fn landmark(kind: RecordKind, text: &str) -> String {
    let number = |prefix: &str| {
        text.strip_prefix(prefix).and_then(|t| t.split(' ').next()).and_then(|n| n.parse::<u64>().ok())
    };
    match kind {
        // No agent compacts to nothing: 0 is an agent that records only the
        // size before (Claude Code), so the size after is not known.
        RecordKind::Compaction => match text
            .strip_prefix("compaction: the conversation so far, summarised (")
            .and_then(|t| t.strip_suffix(" after)"))
            .and_then(|t| t.split_once(" tokens before, "))
            .and_then(|(b, a)| Some((b.parse::<u64>().ok()?, a.parse::<u64>().ok()?)))
        {
            Some((before, 0)) => {
                format!("compaction: the conversation so far ({} tokens) summarised", group(before))
            }
            Some((before, after)) => format!(
                "compaction: the conversation so far ({} tokens) summarised in {}",
                group(before),
                group(after)
            ),
            None => text.replace(" (0 tokens after)", ""),
        },
        // "side_usage: N tokens", and the record's purpose in brackets if it
        // gave one: the readers' own purposes in words, any other as given.
        RecordKind::SideUsage => match number("side_usage: ") {
            Some(n) => {
                let purpose = text.split_once(" tokens (").and_then(|(_, p)| p.strip_suffix(')'));
                let n = group(n);
                use crate::record::{ANOTHER_BRANCH_USAGE, REQUESTS_USAGE, SUBAGENT_USAGE};
                match purpose {
                    Some(ANOTHER_BRANCH_USAGE) => {
                        format!("{n} tokens spent on another branch of the conversation")
                    }
                    Some(SUBAGENT_USAGE) => {
                        format!("{n} tokens spent by a subagent whose run no call in the file started")
                    }
                    Some(REQUESTS_USAGE) => {
                        format!("{n} tokens spent on requests whose responses are not in the file")
                    }
                    Some(p) => format!("{n} tokens spent outside the conversation ({p})"),
                    None => format!(
                        "{n} tokens spent outside the conversation (a side request: a title, a summary…)"
                    ),
                }
            }
            None => text.to_owned(),
        },
        RecordKind::Unreported => match number("unreported: ") {
            Some(n) => format!("{} tokens set aside for a response that was never recorded", group(n)),
            None => text.to_owned(),
        },
        RecordKind::ChildDebit => match (number("child_debit: "), text.split_once(" pending for ")) {
            (Some(n), Some((_, child))) => {
                format!("a subagent's run ({child}) used {} tokens, counted here until it reports", group(n))
            }
            _ => text.to_owned(),
        },
        RecordKind::Start => text.replacen("start: ", "session started: ", 1),
        RecordKind::Resume => text.replacen("resume: ", "resumed: ", 1),
        RecordKind::Model => text.replacen("model: ", "model switched to ", 1),
        _ => text.to_owned(),
    }
}

/// 29021 as "29,021".
fn group(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn landmarks_in_plain_words() {
        assert_eq!(
            landmark(RecordKind::SideUsage, "side_usage: 29021 tokens"),
            "29,021 tokens spent outside the conversation (a side request: a title, a summary…)"
        );
        // The purpose the record gave: the readers' own in words, any other as given.
        for (purpose, said) in [
            ("another branch", "1,200 tokens spent on another branch of the conversation"),
            ("subagent", "1,200 tokens spent by a subagent whose run no call in the file started"),
            ("requests", "1,200 tokens spent on requests whose responses are not in the file"),
            ("title (short)", "1,200 tokens spent outside the conversation (title (short))"),
        ] {
            assert_eq!(
                landmark(RecordKind::SideUsage, &format!("side_usage: 1200 tokens ({purpose})")),
                said
            );
        }
        assert_eq!(
            landmark(
                RecordKind::Compaction,
                "compaction: the conversation so far, summarised (0 tokens after)"
            ),
            "compaction: the conversation so far, summarised"
        );
        assert_eq!(
            landmark(
                RecordKind::Compaction,
                "compaction: the conversation so far, summarised (1200 tokens after)"
            ),
            "compaction: the conversation so far, summarised (1200 tokens after)"
        );
        assert_eq!(
            landmark(
                RecordKind::Compaction,
                "compaction: the conversation so far, summarised (155979 tokens before, 0 after)"
            ),
            "compaction: the conversation so far (155,979 tokens) summarised"
        );
        assert_eq!(
            landmark(
                RecordKind::Compaction,
                "compaction: the conversation so far, summarised (90000 tokens before, 1200 after)"
            ),
            "compaction: the conversation so far (90,000 tokens) summarised in 1,200"
        );
        assert_eq!(
            landmark(RecordKind::ChildDebit, "child_debit: 12 tokens pending for kid"),
            "a subagent's run (kid) used 12 tokens, counted here until it reports"
        );
        assert_eq!(landmark(RecordKind::SideUsage, "side_usage: odd"), "side_usage: odd");
        assert_eq!(group(1), "1");
        assert_eq!(group(1000), "1,000");
        assert_eq!(group(1234567), "1,234,567");
    }
}
