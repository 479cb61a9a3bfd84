//! The prefilter that passes over user lines naming no child run
//! (`names_a_child`), against the blocks parsed.

use super::*;

/// The prefilter never says no where a block's `tool_use_id` is a
/// child's call (the definition: the blocks parsed), whatever the spacing
/// or escapes; and says no where no block names one.
#[test]
fn names_a_child_misses_no_call_the_blocks_name() {
    let children: HashMap<String, String> = [("toolu_1", "run1"), ("toolu_2", "run2")]
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let contents = [
        r#"[{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}]"#,
        r#"[{"type":"tool_result", "tool_use_id" : "toolu_1","content":"x"}]"#,
        r#"[{"type":"tool_result","tool_use_id":"toolu_9","content":"toolu_1"},{"tool_use_id":"toolu_1"}]"#,
        r#"[{"type":"tool_result","tool_use_id":"toolu_\u0031","content":"x"}]"#,
        r#"[{"type":"tool_result","tool_use_id":"toolu_9","content":"the text says toolu_1"}]"#,
        r#"[{"type":"tool_result","tool_use_id":"toolu_9","content":"{\"tool_use_id\":\"toolu_1\"}"}]"#,
        r#"[{"type":"text","text":"no results"}]"#,
        r#"[{"tool_use_id":"#,
    ];
    for content in contents {
        let named = content_blocks(content).unwrap_or_default().iter().any(|b| {
            b.get("tool_use_id").and_then(|v| v.as_str()).is_some_and(|id| children.contains_key(id))
        });
        if named {
            assert!(names_a_child(content, &children), "{content}");
        }
    }
    assert!(!names_a_child(contents[4], &children), "a child's id in text only");
    assert!(!names_a_child(contents[6], &children));
}
