//! `/sessions` rows and session ids (spec §7).

use crate::accounting::format_cost;
use crate::journal::rebuild_state;
use crate::redact::Redactor;
use crate::state::SessionState;

/// One `/sessions` row.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRow {
    pub id: String,
    pub updated: String,
    /// The first line of the first prompt, 60 characters at most.
    pub prompt: String,
    pub prompts: u64,
    pub model: Option<String>,
    pub title: Option<String>,
    pub cost: String,
    pub cost_usd: Option<f64>,
    pub cost_incomplete: bool,
    /// The format the session was read in (`garuda`, `claude-code`, ...); None: no known format.
    pub format: Option<&'static str>,
    /// Runs inside the file (Claude Code sidechains): the ids of the Task
    /// calls that started them (`runs`, left out when there are none).
    pub runs: Vec<String>,
}

impl SessionRow {
    /// The row as a JSON object (camelCase).
    pub fn to_json(&self) -> String {
        use crate::json_str::str_literal as lit;
        let opt = |s: &Option<String>| s.as_deref().map_or_else(|| "null".to_owned(), lit);
        let cost_usd =
            self.cost_usd.and_then(serde_json::Number::from_f64).map_or("null".to_owned(), |n| n.to_string());
        let runs = if self.runs.is_empty() {
            String::new()
        } else {
            format!(r#","runs":[{}]"#, self.runs.iter().map(|r| lit(r)).collect::<Vec<_>>().join(","))
        };
        format!(
            r#"{{"id":{},"updated":{},"prompt":{},"prompts":{},"model":{},"title":{},"cost":{},"costUsd":{},"costIncomplete":{},"format":{}{runs}}}"#,
            lit(&self.id),
            lit(&self.updated),
            lit(&self.prompt),
            self.prompts,
            opt(&self.model),
            opt(&self.title),
            lit(&self.cost),
            cost_usd,
            self.cost_incomplete,
            self.format.map_or_else(|| "null".to_owned(), lit)
        )
    }
}

const PROMPT_CHARS: usize = 60;

/// `summariseSession(id, updated, journal)`.
pub fn summarise_session(id: &str, updated: &str, journal: &str) -> SessionRow {
    let state = rebuild_state(journal);
    summarise_state(id, updated, &state, None)
}

/// The row of a replayed session. With a Redactor, the prompt and the
/// title pass through it: another agent's session was never redacted, and
/// its row is what a sessions index (`serve`, `list`) shows. The prompt is
/// redacted whole, before it is cut to its first line: a key cut short by
/// the cut no longer looks like one, and its first half would stay.
pub fn summarise_state(
    id: &str,
    updated: &str,
    state: &SessionState,
    redactor: Option<&Redactor>,
) -> SessionRow {
    let redacted = |text: &str| redactor.map_or_else(|| text.to_owned(), |r| r.redact(text).into_owned());
    SessionRow {
        id: id.to_owned(),
        updated: updated.to_owned(),
        // Not a slash command's caveat or a reminder (the transcript's boilerplate rules).
        prompt: crate::transcript::index_prompt(state)
            .map(|p| first_line(&redacted(&p), PROMPT_CHARS))
            .unwrap_or_default(),
        prompts: state.prompts,
        model: state.model.clone(),
        title: state.title.as_deref().map(redacted),
        cost: format_cost(&state.accounts),
        cost_usd: state.accounts.cost_usd,
        cost_incomplete: state.cost_incomplete(),
        format: state.format.map(|f| f.as_str()),
        runs: state.inline_runs.clone(),
    }
}

/// The first non-blank line, cut to `max` characters (with an ellipsis).
fn first_line(text: &str, max: usize) -> String {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    if line.chars().count() <= max {
        return line.to_owned();
    }
    let mut cut: String = line.chars().take(max - 1).collect();
    cut.push('…');
    cut
}

/// `validateSessionId`: letters, digits, `-` and `_` only, and not empty.
/// This is what keeps `--resume ../x` from reaching the file system.
pub fn validate_session_id(id: &str) -> bool {
    !id.is_empty() && id.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// `newSessionId`: `YYYYMMDD-HHMMSS-xxxx` in UTC. The host supplies the time
/// and the randomness (the core has no clock and no entropy of its own).
pub fn new_session_id(unix_millis: i64, random: [u8; 4]) -> String {
    const ALPHABET: &[u8; 36] = b"abcdefghijklmnopqrstuvwxyz0123456789";
    let secs = unix_millis.div_euclid(1000);
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    let suffix: String = random.iter().map(|b| ALPHABET[*b as usize % 36] as char).collect();
    format!("{y:04}{m:02}{d:02}-{:02}{:02}{:02}-{suffix}", rem / 3600, rem % 3600 / 60, rem % 60)
}

/// Days since 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
/// algorithm), so the core needs no date crate.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_names_the_runs_inside_its_file_and_only_those() {
        let journal = [
            r#"{"type":"start","sessionId":"s","model":"claude-sonnet-4-5"}"#,
            r#"{"type":"user","message":{"role":"user","content":"go"}}"#,
            r#"{"type":"tool_results","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"x"},{"type":"tool_result","tool_use_id":"b","content":"y"}]},"calls":[{"toolUseId":"a","childSessionId":"sidechain-a"},{"toolUseId":"b","childSessionId":"explore-b"},{"toolUseId":"a","childSessionId":"sidechain-a"}]}"#,
        ]
        .join("\n");
        let row = summarise_session("s", "", &journal);
        assert_eq!(row.runs, ["a"], "a child in its own file is not a run inside this one; each run once");
        assert!(row.to_json().ends_with(r#","runs":["a"]}"#), "{}", row.to_json());
        assert!(!summarise_session("s", "", journal.lines().take(2).collect::<Vec<_>>().join("\n").as_str())
            .to_json()
            .contains("runs"));
    }

    #[test]
    fn a_row_given_a_redactor_shows_no_secret_of_its_prompt_or_title() {
        // Another agent's session (Claude Code's lines): never redacted on
        // disk. The cut at 60 characters falls inside the token, so the
        // prompt must be redacted before it is cut.
        let token = "ghp_k9Xm2k9Xm2k9Xm2k9Xm2k9Xm2k9Xm2k9Xm2a";
        let journal = [
            format!(r#"{{"parentUuid":null,"isSidechain":false,"userType":"external","cwd":"/w","sessionId":"s","version":"2.0.76","type":"user","message":{{"role":"user","content":"please use the deploy key {token} now"}},"uuid":"u1","timestamp":"2026-01-01T00:00:00Z"}}"#),
            format!(r#"{{"type":"custom-title","customTitle":"deploy with {token}","sessionId":"s"}}"#),
        ]
        .join("\n");
        let state = rebuild_state(&journal);
        let plain = summarise_state("s", "", &state, None);
        assert!(
            plain.prompt.contains("ghp_k9Xm2"),
            "without a Redactor the row is as read: {}",
            plain.prompt
        );
        let row = summarise_state("s", "", &state, Some(&Redactor::default()));
        assert_eq!(row.prompt, "please use the deploy key [REDACTED] now");
        assert_eq!(row.title.as_deref(), Some("deploy with [REDACTED]"));
        assert!(!row.to_json().contains("k9Xm2"), "{}", row.to_json());
        assert_eq!((row.format, plain.format), (Some("claude-code"), Some("claude-code")));
    }

    #[test]
    fn ids() {
        assert!(validate_session_id("20261130-052548-ab12"));
        assert!(validate_session_id("explore-toolu_01"));
        for bad in ["", "../x", "a/b", "a b", "a.b", "é", "x\0"] {
            assert!(!validate_session_id(bad), "{bad:?}");
        }
        // 2026-11-30T05:25:48Z
        assert_eq!(new_session_id(1_796_016_348_000, [0, 35, 36, 1]), "20261130-052548-a9ab");
        assert_eq!(new_session_id(0, [25, 26, 0, 0]), "19700101-000000-z0aa");
        assert_eq!(new_session_id(951_825_600_000, [0; 4]), "20000229-120000-aaaa");
    }

    #[test]
    fn first_line_is_cut_to_sixty_characters() {
        assert_eq!(first_line("\n  fix the bug  \nmore", 60), "fix the bug");
        let long = "é".repeat(80);
        let cut = first_line(&long, 60);
        assert_eq!(cut.chars().count(), 60);
        assert!(cut.ends_with('…'));
    }
}
