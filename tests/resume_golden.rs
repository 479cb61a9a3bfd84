//! Golden resumes: `tests/golden/resume/NAME.jsonl` replays and resumes (with
//! the options in `NAME.resume.json`) to exactly the messages and report
//! there. `UPDATE_GOLDEN=1` rewrites them (keeping the options).

use garuda_session::rebuild_state;
use garuda_session::resume::{check_messages, resume, ResumeOptions};
use serde_json::{json, Value};
use std::path::Path;

#[test]
fn golden_resumes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/golden/resume");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/golden/resume")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    assert!(files.len() >= 14, "golden resumes are missing");
    let mut failures = Vec::new();
    for path in files {
        let text = std::fs::read_to_string(&path).expect("journal");
        let expected_path = path.with_extension("resume.json");
        let expected: Value =
            serde_json::from_str(&std::fs::read_to_string(&expected_path).expect("expected file"))
                .expect("JSON");
        let state = rebuild_state(&text);
        let options = ResumeOptions {
            model: expected["options"]["model"].as_str().map(str::to_owned).or(state.model.clone()),
            thinking: expected["options"]["thinking"].as_bool(),
        };
        let resumed = resume(&state, &options);
        let actual: Value = serde_json::from_str(&resumed.to_json()).expect("JSON");
        // Every golden output is what the API accepts.
        let problems = check_messages(&resumed.messages_json(), options.thinking == Some(true));
        assert!(problems.is_empty(), "{}: {problems:?}", path.display());
        let actual = json!({"options": expected["options"], "messages": actual["messages"], "report": actual["report"]});
        if update {
            std::fs::write(&expected_path, serde_json::to_string_pretty(&actual).expect("JSON") + "\n")
                .expect("write");
        } else if actual != expected {
            failures.push(format!(
                "{}\n--- expected\n{}\n--- actual\n{}",
                path.display(),
                serde_json::to_string_pretty(&expected).unwrap_or_default(),
                serde_json::to_string_pretty(&actual).unwrap_or_default()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
