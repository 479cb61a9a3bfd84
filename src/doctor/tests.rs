//! Unit tests of the doctor; the fixtures and oracles are tests/doctor.rs.
use super::*;

#[test]
fn a_file_that_resumes_comes_back_byte_identical() {
    let f = concat!(
        r#"{"parentUuid":null,"isSidechain":false,"type":"user","message":{"role":"user","content":"hi"},"uuid":"u1","sessionId":"s"}"#,
        "\n",
        r#"{"parentUuid":"u1","isSidechain":false,"type":"assistant","message":{"id":"m1","role":"assistant","model":"claude-x","content":[{"type":"text","text":"hello"}]},"uuid":"a1","sessionId":"s"}"#,
        "\n",
    );
    let d = diagnose(f.as_bytes(), None);
    assert!(d.resumes(), "{}", d.to_json());
    let r = repair(f.as_bytes(), None);
    assert_eq!(r.bytes, f.as_bytes());
    assert!(r.changes.is_empty());
}
