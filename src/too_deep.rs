//! A message nested deeper than `MAX_NESTING` keeps what it can: only its
//! blocks that nest too deep give way to notes. A review (stop 49) found
//! one tool call's 5,000-level input replacing a whole assistant message,
//! its thinking, its text and five calls, whose results were then orphans.
//!
//! Each block too deep becomes, by its type:
//! - a `tool_use`: the same id and name with an empty `input`, after a
//!   text note, so its result still answers it;
//! - a `tool_result`: the same `tool_use_id`, an error whose content is the
//!   note;
//! - any other: the note as a text block.
//!
//! The blocks are found by `json_skim` (no recursion: serde_json stops at
//! 128 levels); a message whose shape is not `{ role, content: [...] }`,
//! or whose role or ids are not plain strings, is left to the caller,
//! which puts one note in the place of the whole message.

#![forbid(unsafe_code)]

use crate::bytes::nests_deeper_than;
use crate::json_skim::{elements, members};
use crate::json_str::push_str_literal;

/// The message with its too-deep blocks as notes, or None when it has no
/// such shape. `max`: the levels a message may hold (the message object
/// is 1, its content array 2, a block 3).
pub fn blocks_as_notes(json: &str, max: usize, line: u64) -> Option<String> {
    let (mut role, mut content) = (None, None);
    for (key, value) in members(json)? {
        match key {
            "role" => role = Some(value),
            "content" => content = Some(value),
            _ => return None,
        }
    }
    let mut out = String::from(r#"{"role":"#);
    out.push_str(plain_string(role?)?);
    out.push_str(r#","content":["#);
    // Written piece by piece: format! here cost the module over a kilobyte.
    let tail =
        format!(" was left out at replay: its JSON nested deeper than {max} levels (journal line {line}).]");
    for (k, block) in elements(content?)?.enumerate() {
        if k > 0 {
            out.push(',');
        }
        if !nests_deeper_than(block.as_bytes(), max.saturating_sub(2)) {
            out.push_str(block);
            continue;
        }
        let field = |name: &str| members(block)?.find(|(k, _)| *k == name).and_then(|(_, v)| plain_string(v));
        match field("type") {
            Some(r#""tool_use""#) => {
                let (id, name) = (field("id")?, field("name")?);
                text_block(&mut out, &["[The input of tool call ", &id[1..id.len() - 1], &tail]);
                for piece in
                    [r#","#, r#"{"type":"tool_use","id":"#, id, r#","name":"#, name, r#","input":{}}"#]
                {
                    out.push_str(piece);
                }
            }
            Some(r#""tool_result""#) => {
                out.push_str(r#"{"type":"tool_result","tool_use_id":"#);
                out.push_str(field("tool_use_id")?);
                out.push_str(r#","content":["#);
                text_block(&mut out, &["[This tool result", &tail]);
                out.push_str(r#"],"is_error":true}"#);
            }
            _ => text_block(&mut out, &["[A block", &tail]),
        }
    }
    out.push_str("]}");
    Some(out)
}

/// A JSON string of letters, digits and plain punctuation (an id, a role,
/// a type), as written; None for anything else (an escape, a structure).
fn plain_string(raw: &str) -> Option<&str> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    (inner.len() <= 256 && inner.bytes().all(|b| b.is_ascii_graphic() && b != b'"' && b != b'\\'))
        .then_some(raw)
}

/// A text block of `pieces`, written after what `out` holds.
fn text_block(out: &mut String, pieces: &[&str]) {
    out.push_str(r#"{"type":"text","text":"#);
    push_str_literal(out, &pieces.concat());
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn deep(levels: usize) -> String {
        format!("{}1{}", "[".repeat(levels), "]".repeat(levels))
    }

    #[test]
    fn only_the_deep_blocks_give_way() {
        let m = format!(
            r#"{{"role":"assistant","content":[{{"type":"thinking","thinking":"t","signature":"s"}},{{"type":"text","text":"hi"}},{{"type":"tool_use","id":"toolu_1","name":"Bash","input":{{"x":{}}}}},{{"type":"tool_use","id":"toolu_2","name":"Read","input":{{"path":"a"}}}}]}}"#,
            deep(5000)
        );
        let out = blocks_as_notes(&m, 100, 7).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let blocks = v["content"].as_array().unwrap();
        assert_eq!(blocks.len(), 5);
        assert_eq!(blocks[0]["type"], "thinking");
        assert_eq!(blocks[1]["text"], "hi");
        assert!(blocks[2]["text"].as_str().unwrap().contains("tool call toolu_1 was left out at replay"));
        assert!(blocks[2]["text"].as_str().unwrap().contains("journal line 7"));
        assert_eq!(blocks[3], serde_json::json!({"type":"tool_use","id":"toolu_1","name":"Bash","input":{}}));
        assert_eq!(blocks[4]["input"]["path"], "a");
        assert!(!nests_deeper_than(out.as_bytes(), 100));
    }

    #[test]
    fn a_result_stays_an_answer_and_other_blocks_become_text() {
        let m = format!(
            r#"{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"toolu_1","content":{}}},{}]}}"#,
            deep(200),
            deep(200)
        );
        let v: serde_json::Value = serde_json::from_str(&blocks_as_notes(&m, 100, 2).unwrap()).unwrap();
        assert_eq!(v["content"][0]["tool_use_id"], "toolu_1");
        assert_eq!(v["content"][0]["is_error"], true);
        assert_eq!(v["content"][1]["type"], "text");
        // A block exactly at the limit stays: 98 levels inside a block at level 3 is 100.
        let m = format!(r#"{{"role":"user","content":[{{"type":"x","v":{}}}]}}"#, deep(97));
        assert!(!nests_deeper_than(m.as_bytes(), 100));
        assert_eq!(blocks_as_notes(&m, 100, 1).unwrap(), m);
    }

    #[test]
    fn other_shapes_are_left_to_the_caller() {
        let d = deep(300);
        for m in [
            format!(r#"{{"role":"user","content":"x","extra":{d}}}"#),
            format!(r#"{{"role":{d},"content":[]}}"#),
            format!(
                r#"{{"role":"user","content":[{{"type":"tool_use","id":{d},"name":"x","input":{{}}}}]}}"#
            ),
            format!(r#"{{"role":"us\"er","content":[{d}]}}"#),
            d.clone(),
        ] {
            assert_eq!(blocks_as_notes(&m, 100, 1), None, "{}", &m[..60]);
        }
    }
}
