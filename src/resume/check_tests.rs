//! `check_part`: a history judged a part at a time, cut before assistant
//! messages, names the same problems as the whole (the doctor judges a
//! long session so, issue 28).

use super::*;

/// A history with a problem of each kind the parts could miss or repeat:
/// the first message not a user's, empty content (and the last assistant
/// message empty, which is allowed), a blank text, a misplaced block, an
/// orphan, a duplicate, a result after other content, an unanswered call,
/// runs of user messages, an empty assistant message a part ends with, a
/// tool_use id used again turns later (the one rule that spans parts), and
/// an open tool loop at the end.
fn history() -> Vec<Msg> {
    let a = |c: &str| format!(r#"{{"role":"assistant","content":{c}}}"#);
    let u = |c: &str| format!(r#"{{"role":"user","content":{c}}}"#);
    let call = |id: &str| format!(r#"[{{"type":"tool_use","id":"{id}","name":"bash","input":{{}}}}]"#);
    let result = |id: &str| format!(r#"{{"type":"tool_result","tool_use_id":"{id}","content":"ok"}}"#);
    let text = r#"{"type":"text","text":"hi"}"#;
    let jsons = [
        a(r#"[{"type":"text","text":"first"}]"#),
        u(r#""go""#),
        a(&call("t1")),
        u(&format!("[{}]", result("t1"))),
        a("[]"),
        u(r#"[{"type":"text","text":"  "}]"#),
        a(&call("t2")),
        u(&format!("[{},{}]", result("t2"), result("t2"))),
        a(&call("t3")),
        u(&format!("[{text},{}]", result("t3"))),
        u(&format!("[{}]", result("t9"))),
        a(r#"[{"type":"tool_result","tool_use_id":"x","content":"no"}]"#),
        u(r#""next""#),
        a(&call("t4")),
        u(r#""no result""#),
        a(&call("t5")),
        u(&format!("[{}]", result("t5"))),
        a("[]"),
        a(r#"[{"type":"text","text":"two in a row"}]"#),
        u(r#""again""#),
        a(&call("t1")),
        u(&format!("[{}]", result("t1"))),
        a(&call("t6")),
        u(&format!("[{}]", result("t6"))),
    ];
    jsons.iter().filter_map(|j| Msg::parse(j, Default::default(), None)).collect()
}

fn keys(problems: &[Problem]) -> Vec<(usize, ProblemKind, String)> {
    problems.iter().map(|p| (p.index, p.kind, p.message.clone())).collect()
}

#[test]
fn parts_cut_before_assistant_messages_name_what_the_whole_names() {
    let msgs = history();
    let assistants: Vec<usize> = (1..msgs.len()).filter(|&i| msgs[i].role == Role::Assistant).collect();
    for thinking in [false, true] {
        let whole = keys(&check(&msgs, thinking));
        assert!(whole.len() >= 8, "the history names its problems: {whole:?}");
        // Every way of cutting it before assistant messages (a bit per cut).
        for mask in 0u32..(1 << assistants.len()) {
            let cuts: Vec<usize> = assistants
                .iter()
                .enumerate()
                .filter(|(k, _)| mask & (1 << k) != 0)
                .map(|(_, &i)| i)
                .chain([msgs.len()])
                .collect();
            let mut got = Vec::new();
            let mut from = 0;
            let mut uses = Default::default();
            for &to in &cuts {
                got.extend(keys(&check_part(&msgs[from..to], thinking, from, msgs.len(), &mut uses)));
                from = to;
            }
            assert_eq!(got, whole, "cut at {cuts:?}, thinking {thinking}");
        }
    }
}

#[test]
fn an_empty_history_is_named_once() {
    assert_eq!(keys(&check_part(&[], false, 0, 0, &mut Default::default())).len(), 1);
    assert!(
        check_part(&[], false, 3, 7, &mut Default::default()).is_empty(),
        "an empty part of a history is not the empty history"
    );
}
