//! The Redactor over real transcripts of other agents (`../shared/peers/`,
//! about 6,600 lines, none holding a live secret): every line that changes
//! is listed with the span that changed, and the test fails unless that list
//! is exactly the list below of changes made on purpose. Real transcripts
//! are mostly code; the failure this guards against is code the agent reads
//! back after a resume coming out changed.

#[path = "support/shared.rs"]
mod shared;

use garuda_session::Redactor;

/// Changes made on purpose: (file name, a piece of the changed text, why).
/// Placeholders in the peers (`sk-ant-...`, `gsk_...`, `'REDACTED_API_KEY'`,
/// `'proxy-handled'`) all stay: a value shown in part, one a redactor left,
/// or plain words under a machine credential's name is not a credential.
const EXPECTED: &[(&str, &str, &str)] = &[(
    "rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl",
    "CODEMIE_API_KEY: '⟦sk-secret⟧'",
    "a quoted literal under an API key's name that calls itself a secret is taken at its word \
     (the labelled corpus's `some_key = \"real_secret\"` is the same shape and a secret)",
)];

/// What changed in a line: each removed piece as `…context⟦removed⟧context…`.
/// The output is the input with pieces replaced by `[REDACTED]`, so the
/// text between markers is found again in the input, in order.
fn changed_spans(before: &str, after: &str) -> Vec<String> {
    let pieces: Vec<&str> = after.split("[REDACTED]").collect();
    let mut out = Vec::new();
    let mut at = pieces[0].len();
    for (k, piece) in pieces.iter().enumerate().skip(1) {
        let next = if k + 1 == pieces.len() && piece.is_empty() {
            before.len()
        } else {
            before[at..].find(piece).map_or(before.len(), |i| at + i)
        };
        let floor =
            |i: usize| (0..=i.min(before.len())).rev().find(|&k| before.is_char_boundary(k)).unwrap_or(0);
        let removed = &before[at..next];
        let removed =
            if removed.len() > 80 { format!("{}…", &removed[..floor(80)]) } else { removed.to_owned() };
        let left = &before[floor(at.saturating_sub(40))..at];
        let right = &before[next..floor(next + 20)];
        out.push(format!("…{left}⟦{removed}⟧{right}…").replace('\n', "\\n"));
        at = next + piece.len();
    }
    out
}

#[test]
fn real_transcripts_come_out_unchanged_but_for_the_listed_changes() {
    let Some(peers) = shared::shared_file("peers redaction", "peers") else { return };
    let mut all = shared::session_files(&peers);
    all.sort();
    let redactor = Redactor::new(std::iter::empty::<(&str, &str)>());
    let (mut lines, mut changes) = (0, Vec::new());
    for file in &all {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let name = file.file_name().and_then(|n| n.to_str()).unwrap_or("?").to_owned();
        for (i, line) in text.lines().enumerate() {
            lines += 1;
            let out = match redactor.redact_line(line) {
                Ok(r) if r.changed => r.line.into_owned(),
                Ok(_) => continue,
                Err(_) => match redactor.redact(line) {
                    std::borrow::Cow::Owned(o) => o,
                    std::borrow::Cow::Borrowed(_) => continue,
                },
            };
            let out = out.replace(r#","redacted":true"#, "");
            for span in changed_spans(line, &out) {
                changes.push((name.clone(), i + 1, span));
            }
        }
    }
    let changed_lines = {
        let mut l: Vec<(&String, usize)> = changes.iter().map(|(f, n, _)| (f, *n)).collect();
        l.dedup();
        l.len()
    };
    println!(
        "peers: {} files, {lines} lines, {changed_lines} lines changed, {} spans",
        all.len(),
        changes.len()
    );
    for (file, line, span) in &changes {
        println!("  {file}:{line}: {span}");
    }
    let unexpected: Vec<String> = changes
        .iter()
        .filter(|(file, _, span)| !EXPECTED.iter().any(|(f, piece, _)| f == file && span.contains(piece)))
        .map(|(file, line, span)| format!("{file}:{line}: {span}"))
        .collect();
    assert!(unexpected.is_empty(), "lines changed without a listed reason:\n{}", unexpected.join("\n"));
    let stale: Vec<&str> = EXPECTED
        .iter()
        .filter(|(f, piece, _)| !changes.iter().any(|(file, _, span)| file == f && span.contains(piece)))
        .map(|(_, piece, _)| *piece)
        .collect();
    assert!(stale.is_empty(), "listed changes that no longer happen: {stale:?}");
}
