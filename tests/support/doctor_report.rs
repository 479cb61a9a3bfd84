//! What a doctor fixture's `.report.json` holds, shared by the Claude Code
//! (`tests/doctor.rs`) and Codex (`tests/doctor_codex.rs`) fixture tests.

use garuda_session::doctor::{self, Repaired};
use serde_json::Value;

/// The problems `diagnose` finds in `input` and the changes `repair` made.
pub fn report_json(input: &[u8], r: &Repaired) -> Value {
    let d = doctor::diagnose(input, None);
    serde_json::json!({
        "problems": serde_json::from_str::<Value>(&d.to_json()).unwrap()["problems"],
        "changes": serde_json::from_str::<Value>(&r.report_json()).unwrap()["changes"],
    })
}
