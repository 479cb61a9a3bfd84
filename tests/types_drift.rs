//! The TypeScript declarations (pkg-template/index.d.ts) against the Rust
//! types they describe, so the two cannot drift: every record kind has its
//! interface with the fields replay reads, and every warning kind is in
//! `WarningKind`.

use garuda_session::record::RecordKind;
use garuda_session::WarningKind;

fn declarations() -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("pkg-template/index.d.ts");
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The text of the interface whose `type` is `kind`, with the interfaces it
/// extends (one level: `RecordBase`, `SessionMetadata`).
fn interface_of(d: &str, kind: &str) -> Option<String> {
    // Record interfaces extend RecordBase (blocks share some type names).
    let marker = format!("type: \"{kind}\"");
    let line = d
        .lines()
        .find(|l| l.starts_with("export interface ") && l.contains("RecordBase") && l.contains(&marker))?;
    let start = d.find(line)?;
    let at = start + line.find(&marker)?;
    let end = at + d[at..].find('}')?;
    let mut text = d[start..=end].to_owned();
    let header = &d[start..at];
    for base in ["RecordBase", "SessionMetadata"] {
        if header.contains(base) {
            let b = d.find(&format!("interface {base} {{"))?;
            text.push_str(&d[b..b + d[b..].find("\n}")?]);
        }
    }
    Some(text)
}

#[test]
fn every_record_kind_has_an_interface_with_its_fields() {
    let d = declarations();
    for kind in RecordKind::ALL {
        let text =
            interface_of(&d, kind.as_str()).unwrap_or_else(|| panic!("no interface for `{}`", kind.as_str()));
        for field in kind.fields() {
            assert!(
                text.contains(&format!("{field}?:")) || text.contains(&format!("{field}:")),
                "`{}` lacks `{field}`",
                kind.as_str()
            );
        }
        let union = &d[d.find("export type JournalRecord =").expect("the union")..];
        let name = text.trim_start_matches("export interface ").split_whitespace().next().unwrap_or("");
        assert!(
            union[..union.find(';').unwrap_or(union.len())].contains(name),
            "{name} is not in JournalRecord"
        );
    }
}

#[test]
fn every_warning_kind_is_declared() {
    let d = declarations();
    let line = d.lines().find(|l| l.starts_with("export type WarningKind")).expect("WarningKind");
    for kind in WarningKind::ALL {
        assert!(line.contains(&format!("\"{}\"", kind.as_str())), "{} missing from {line}", kind.as_str());
    }
}

/// The text of `export type <name> = …;` in the declarations.
fn type_alias(d: &str, name: &str) -> String {
    let start = d.find(&format!("export type {name} =")).unwrap_or_else(|| panic!("no type {name}"));
    d[start..start + d[start..].find(';').unwrap_or(0)].to_owned()
}

#[test]
fn every_drop_reason_and_problem_kind_is_declared() {
    use garuda_session::resume::{DropReason, ProblemKind};
    let d = declarations();
    let reasons = type_alias(&d, "ThinkingDropReason");
    for r in DropReason::ALL {
        assert!(
            reasons.contains(&format!("\"{}\"", r.as_str())),
            "{} missing from ThinkingDropReason",
            r.as_str()
        );
    }
    let problems = type_alias(&d, "MessageProblemKind");
    for p in ProblemKind::ALL {
        assert!(
            problems.contains(&format!("\"{}\"", p.as_str())),
            "{} missing from MessageProblemKind",
            p.as_str()
        );
    }
}
