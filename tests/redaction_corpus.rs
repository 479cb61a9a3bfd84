//! Scores the labelled corpus (`../shared/corpus/redaction.jsonl`) as its
//! README says: a secret line passes when no expected span survives, a clean
//! line when the output equals the input (a record: the same JSON, without
//! the `redacted` marker). Recall must be 1.0 and the keep rate at least
//! 0.95; every deliberate disagreement with a label is listed below with
//! its reason, and the test fails if the list and the results differ.

#[path = "support/shared.rs"]
mod shared;

use garuda_session::Redactor;
use serde_json::Value;

/// Clean lines we redact on purpose (text prefix, why).
const DISAGREEMENTS: &[(&str, &str)] = &[
    (
        "gemini api key = 'AIzaSyDW1PXXav-TxriHUIrj1djZfHKIuInr7A'",
        "not a Google key (34 characters), but `api key` is a secret name and the value is an opaque literal: rule 3 removes it, as the corpus note expects",
    ),
    (
        "sk-ant-api03-abc123xyz-456de-klMnopqrstuvwx-3456yza789bcde-1234fghijklmnopAA",
        "too short for an API key's documented 93 characters, but any sk-ant- credential of 40 or more goes (Claude Code's OAuth tokens are not API keys and leaked): the corpus note calls its removal harmless",
    ),
];

struct Outcome {
    text: String,
    secret: bool,
    passed: bool,
    output: String,
}

fn score(line: &Value) -> Outcome {
    let text = line["text"].as_str().unwrap_or_default().to_owned();
    let env: Vec<(String, String)> = line["env"]
        .as_object()
        .map(|m| m.iter().map(|(k, v)| (k.clone(), v.as_str().unwrap_or_default().to_owned())).collect())
        .unwrap_or_default();
    let redactor = Redactor::new(env);
    let is_record = serde_json::from_str::<Value>(&text).is_ok_and(|v| v.is_object());
    let output = if is_record {
        redactor.redact_line(&text).map(|r| r.line.into_owned()).unwrap_or_else(|e| format!("ERROR {e}"))
    } else {
        redactor.redact(&text).into_owned()
    };
    let secret = line["secret"].as_bool().unwrap_or(false);
    let passed = if secret {
        let spans: Vec<String> = match &line["expected_span"] {
            Value::String(s) => vec![s.clone()],
            Value::Array(items) => items.iter().filter_map(|s| s.as_str().map(str::to_owned)).collect(),
            _ => Vec::new(),
        };
        !spans.is_empty() && spans.iter().all(|s| !output.contains(s.as_str()))
    } else if is_record {
        let mut out: Value = serde_json::from_str(&output).unwrap_or(Value::Null);
        if let Some(obj) = out.as_object_mut() {
            obj.remove("redacted");
        }
        serde_json::from_str::<Value>(&text).ok() == Some(out)
    } else {
        output == text
    };
    Outcome { text, secret, passed, output }
}

#[test]
fn corpus_recall_is_one_and_keep_rate_at_least_95_percent() {
    let Some(path) = shared::shared_file("corpus", "corpus/redaction.jsonl") else { return };
    let corpus = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let outcomes: Vec<Outcome> = corpus
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| score(&serde_json::from_str(l).expect("corpus line is JSON")))
        .collect();
    let secrets: Vec<&Outcome> = outcomes.iter().filter(|o| o.secret).collect();
    let clean: Vec<&Outcome> = outcomes.iter().filter(|o| !o.secret).collect();
    let recall = secrets.iter().filter(|o| o.passed).count() as f64 / secrets.len() as f64;
    let keep = clean.iter().filter(|o| o.passed).count() as f64 / clean.len() as f64;
    println!(
        "corpus: {} lines; recall {}/{} = {recall:.3}; keep rate {}/{} = {keep:.3}",
        outcomes.len(),
        secrets.iter().filter(|o| o.passed).count(),
        secrets.len(),
        clean.iter().filter(|o| o.passed).count(),
        clean.len()
    );
    let missed: Vec<String> = secrets
        .iter()
        .filter(|o| !o.passed)
        .map(|o| format!("MISSED {:?}\n   -> {:?}", o.text, o.output))
        .collect();
    assert!(missed.is_empty(), "secrets that survived:\n{}", missed.join("\n"));
    let changed: Vec<&&Outcome> = clean.iter().filter(|o| !o.passed).collect();
    let unexpected: Vec<String> = changed
        .iter()
        .filter(|o| !DISAGREEMENTS.iter().any(|(prefix, _)| o.text.starts_with(prefix)))
        .map(|o| format!("CHANGED {:?}\n   -> {:?}", o.text, o.output))
        .collect();
    assert!(unexpected.is_empty(), "clean lines changed without a listed reason:\n{}", unexpected.join("\n"));
    let stale: Vec<&str> = DISAGREEMENTS
        .iter()
        .filter(|(prefix, _)| !changed.iter().any(|o| o.text.starts_with(prefix)))
        .map(|(prefix, _)| *prefix)
        .collect();
    assert!(stale.is_empty(), "listed disagreements that no longer happen: {stale:?}");
    assert!(keep >= 0.95, "keep rate {keep:.3}");
}
