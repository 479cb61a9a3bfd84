//! Property tests over generated journals (the bench generator's sessions,
//! with random damage): live writes equal replay after every record, and
//! any chunking of the text replays to the same state.

#[path = "support/generator.rs"]
mod generator;

use garuda_session::{rebuild_state, Journal};
use generator::Rng;

const SEEDS: u64 = 24;

fn small_journal(seed: u64) -> String {
    generator::journal(seed, 40_000)
}

#[test]
fn live_writes_equal_replay_after_every_record() {
    for seed in 0..SEEDS {
        let text = small_journal(seed);
        let mut live = Journal::default();
        let mut written = String::new();
        for (i, line) in text.lines().enumerate() {
            let out = live.write(line).unwrap_or_else(|e| panic!("seed {seed} line {}: {e}", i + 1));
            written.push_str(&out);
            written.push('\n');
            assert_eq!(live.state(), &rebuild_state(&written), "seed {seed}, after line {}", i + 1);
        }
    }
}

/// Damage of the kinds a crash, an editor or an old bug leaves.
fn damage(text: &str, rng: &mut Rng) -> String {
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    for _ in 0..1 + rng.below(6) {
        if lines.is_empty() {
            break;
        }
        let i = rng.below(lines.len() as u64) as usize;
        match rng.below(6) {
            0 => {
                let cut = rng.below(lines[i].len() as u64 + 1) as usize;
                let cut = (0..=cut).rev().find(|c| lines[i].is_char_boundary(*c)).unwrap_or(0);
                lines[i].truncate(cut);
            }
            1 => {
                lines.remove(i);
            }
            2 => lines.insert(i, "\u{0}garbage \u{1F600} {".to_owned()),
            3 => lines.insert(i, r#"{"t":"x","type":"undo"}"#.to_owned()),
            4 => lines.insert(i, r#"{"t":"x","type":"redo"}"#.to_owned()),
            _ => lines.insert(i, r#"{"t":"x","type":"model","model":"claude-other"}"#.to_owned()),
        }
    }
    let mut out = lines.join("\n");
    if rng.chance(50) {
        // A torn tail: the last write stopped part-way.
        let cut = rng.below(out.len() as u64) as usize;
        let cut = (0..=cut).rev().find(|c| out.is_char_boundary(*c)).unwrap_or(0);
        out.truncate(cut);
    } else {
        out.push('\n');
    }
    out
}

#[test]
fn damaged_journals_replay_the_same_in_any_chunking() {
    let mut rng = Rng::new(99);
    for seed in 0..SEEDS {
        let text = damage(&small_journal(seed), &mut rng);
        let whole = rebuild_state(&text);
        let bytes = text.as_bytes();
        for _ in 0..4 {
            let mut journal = Journal::default();
            let mut at = 0;
            while at < bytes.len() {
                let size = 1 + rng.below(4096) as usize;
                let end = (at + size).min(bytes.len());
                journal.feed_bytes(&bytes[at..end]);
                at = end;
            }
            journal.finish();
            assert_eq!(journal.state(), &whole, "seed {seed}");
        }
        // The state is always valid JSON, whatever the damage.
        let json: serde_json::Value = serde_json::from_str(&whole.to_json()).expect("state JSON");
        assert!(json["messages"].is_array());
    }
}

#[test]
fn generated_journals_replay_without_warnings() {
    for seed in 0..SEEDS {
        let state = rebuild_state(&small_journal(seed));
        assert!(state.warnings.is_empty(), "seed {seed}: {:?}", state.warnings);
        assert!(!state.messages.is_empty());
    }
}

/// Resume output passes checkMessages for every generated journal, whole,
/// cut at random lines (a crash), with damage, and resumed with another
/// model, with thinking on and off.
#[test]
fn resumed_histories_are_always_acceptable() {
    use garuda_session::resume::{check_messages, resume, ResumeOptions};
    let mut rng = Rng::new(7);
    for seed in 0..SEEDS {
        let text = small_journal(seed);
        let lines: Vec<&str> = text.lines().collect();
        let mut variants = vec![text.clone(), damage(&text, &mut rng)];
        for _ in 0..6 {
            let cut = 1 + rng.below(lines.len() as u64) as usize;
            variants.push(lines[..cut].join("\n"));
        }
        for variant in variants {
            let state = rebuild_state(&variant);
            for (model, thinking) in
                [(None, Some(true)), (Some("claude-other"), Some(true)), (None, Some(false)), (None, None)]
            {
                let options =
                    ResumeOptions { model: model.map(str::to_owned).or(state.model.clone()), thinking };
                let resumed = resume(&state, &options);
                assert!(resumed.report.remaining.is_empty(), "seed {seed}: {:?}", resumed.report.remaining);
                let problems = check_messages(&resumed.messages_json(), thinking == Some(true));
                assert!(problems.is_empty() || state.messages.is_empty(), "seed {seed}: {problems:?}");
            }
        }
    }
}

/// Nothing panics, whatever the input: random mixes of trigger fragments,
/// JSON punctuation, escapes and multi-byte characters through the
/// Redactor, replay and resume.
#[test]
fn random_input_never_panics() {
    use garuda_session::resume::{check_messages, resume, ResumeOptions};
    use garuda_session::Redactor;
    const PIECES: &[&str] = &[
        "{",
        "}",
        "[",
        "]",
        "\"",
        ":",
        ",",
        "\\",
        "\\u00",
        "\\ud83d",
        "\n",
        "\r",
        " ",
        "=",
        "==",
        "=>",
        "--",
        "://",
        "@",
        "password",
        "token",
        "key",
        "pin",
        "secret",
        "Bearer ",
        "sk-",
        "sk-ant-api03-",
        "T3BlbkFJ",
        "AKIA",
        "ghp_",
        "github_pat_",
        "xoxb-1",
        "hooks.slack.com/services/",
        "AIza",
        "eyJ",
        ".",
        "-----BEGIN PRIVATE KEY-----",
        "-----END",
        "[REDACTED]",
        "é",
        "😀",
        "\u{0}",
        "type",
        "\"type\":\"user\"",
        "\"message\"",
        "\"role\":\"user\"",
        "\"content\"",
        "tool_use",
        "tool_result",
        "thinking",
        "signature",
        "12345",
        "${X}",
        "'",
        "`",
        "(",
        ")",
    ];
    let mut rng = Rng::new(11);
    let redactor = Redactor::new([("API_KEY", "abcdefgh12"), ("DB_PASSWORD", "p@ss word!")]);
    for _ in 0..20_000 {
        let mut text = String::new();
        for _ in 0..rng.below(60) {
            text.push_str(PIECES[rng.below(PIECES.len() as u64) as usize]);
        }
        let _ = redactor.redact(&text);
        let _ = redactor.redact_line(&text);
        let wrapped = format!(
            r#"{{"type":"user","message":{{"role":"user","content":{}}}}}"#,
            serde_json::to_string(&text).unwrap_or_default()
        );
        let out = redactor.redact_line(&wrapped).expect("a JSON object is always accepted");
        assert!(serde_json::from_str::<serde_json::Value>(&out.line).is_ok(), "{wrapped}");
        let state = rebuild_state(&format!("{text}\n{wrapped}\n{text}"));
        let resumed = resume(&state, &ResumeOptions { model: None, thinking: Some(true) });
        let _ = check_messages(&resumed.messages_json(), true);
    }
}

/// Pruning any acceptable history gives an acceptable history (issue 26):
/// every resumed history of the generated journals, cut and damaged as
/// above, pruned with 0 to 3 protected turns, with thinking on and off,
/// still passes checkMessages; pruning it again changes nothing; the
/// messages pruning did not list are the input's, byte for byte.
#[test]
fn pruning_an_acceptable_history_keeps_it_acceptable() {
    use garuda_session::context::{prune_old_tool_outputs, PruneOptions};
    use garuda_session::resume::{check_messages, resume, ResumeOptions};
    let mut rng = Rng::new(26);
    let mut pruned_any = 0;
    for seed in 0..SEEDS {
        let text = small_journal(seed);
        let lines: Vec<&str> = text.lines().collect();
        let mut variants = vec![text.clone(), damage(&text, &mut rng)];
        for _ in 0..3 {
            let cut = 1 + rng.below(lines.len() as u64) as usize;
            variants.push(lines[..cut].join("\n"));
        }
        for variant in variants {
            let state = rebuild_state(&variant);
            for thinking in [true, false] {
                let options = ResumeOptions { model: state.model.clone(), thinking: Some(thinking) };
                let history = resume(&state, &options).messages_json();
                if !check_messages(&history, thinking).is_empty() {
                    continue; // an empty history: nothing to prune
                }
                for turns in 0..4 {
                    let refs: Vec<&str> = history.iter().map(String::as_str).collect();
                    let p = prune_old_tool_outputs(
                        &refs,
                        &PruneOptions { protect_turns: turns, ..Default::default() },
                    );
                    let mut out = history.clone();
                    for (i, json) in &p.replaced {
                        out[*i] = json.clone();
                    }
                    let problems = check_messages(&out, thinking);
                    assert!(
                        problems.is_empty(),
                        "seed {seed}, {turns} turns, thinking {thinking}: {problems:?}"
                    );
                    let refs: Vec<&str> = out.iter().map(String::as_str).collect();
                    let again = prune_old_tool_outputs(
                        &refs,
                        &PruneOptions { protect_turns: turns, ..Default::default() },
                    );
                    assert!(again.replaced.is_empty(), "seed {seed}: pruning twice changed more");
                    pruned_any += p.results;
                }
            }
        }
    }
    assert!(pruned_any > 100, "the generated histories must have results to prune ({pruned_any})");
}
