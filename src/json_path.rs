//! Where in a JSON text a byte offset sits, as a path (`response.usage.inputTokens`,
//! `messages[2].content`): a warning about a bad field names the value that
//! is wrong, not only the record's field that holds it. serde_json says
//! where it stopped (a column), not which key it was under.
//!
//! A leaf module: it imports nothing of the crate. It reads text that
//! serde_json has already read up to the offset, so it needs no error
//! handling of its own: on text that is not JSON it gives some path, never
//! a panic.

#![forbid(unsafe_code)]

enum Step<'a> {
    /// In an object: the last key read, and whether a value follows it.
    Key(Option<&'a str>, bool),
    /// In an array: the index of the element being read.
    Index(usize),
}

/// The path of the value that `text[..offset]` ends in or after, or of the
/// innermost object or array still open there. Keys are written as they
/// are in the text (escapes left as they are); the top level is "".
pub fn path_at(text: &str, offset: usize) -> String {
    let bytes = text.as_bytes();
    let end = offset.min(bytes.len());
    let mut steps: Vec<Step> = Vec::new();
    let mut i = 0;
    while i < end {
        match bytes[i] {
            b'"' => {
                let start = i + 1;
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' {
                    i += if bytes[i] == b'\\' { 2 } else { 1 };
                }
                // A key is a string read where the object expects one.
                if let Some(Step::Key(key, false)) = steps.last_mut() {
                    *key = text.get(start..i.min(bytes.len()));
                }
            }
            b'{' => steps.push(Step::Key(None, false)),
            b'[' => steps.push(Step::Index(0)),
            b'}' | b']' => {
                steps.pop();
            }
            b':' => {
                if let Some(Step::Key(_, value)) = steps.last_mut() {
                    *value = true;
                }
            }
            b',' => match steps.last_mut() {
                Some(Step::Key(key, value)) => (*key, *value) = (None, false),
                Some(Step::Index(n)) => *n += 1,
                None => {}
            },
            _ => {}
        }
        i += 1;
    }
    let mut path = String::new();
    for step in &steps {
        match step {
            Step::Key(Some(key), true) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Step::Key(..) => break,
            Step::Index(n) => {
                path.push('[');
                path.push_str(&n.to_string());
                path.push(']');
            }
        }
    }
    path
}

#[cfg(test)]
mod tests {
    use super::path_at;

    /// The path at the end of `marked`'s first `|` (the mark taken out).
    fn at(marked: &str) -> String {
        let offset = marked.find('|').unwrap();
        path_at(&marked.replacen('|', "", 1), offset)
    }

    #[test]
    fn names_the_value_an_offset_is_in() {
        let cases = [
            (r#"{"a":{"b":{"c":"x"|}}}"#, "a.b.c"),
            (r#"{"a":1,"b":[1,2,{"c":-1|}]}"#, "b[2].c"),
            (r#"{"a":{"b":1|,"c":2}}"#, "a.b"),
            (r#"{"a":{"b":1,"c":{}|}}"#, "a.c"),
            // After the comma, before the next key: the object itself.
            (r#"{"a":{"b":1,|"c":2}}"#, "a"),
            (r#"{"a":[[1],[2,3|]]}"#, "a[1][1]"),
            (r#"{"a\"b":{"c":true|}}"#, r#"a\"b.c"#),
            (r#"{"a":"{[,:"|}"#, "a"),
            (r#"|{"a":1}"#, ""),
            (r#"{"a":1}|"#, ""),
        ];
        for (marked, want) in cases {
            assert_eq!(at(marked), want, "{marked}");
        }
    }

    #[test]
    fn any_text_and_offset_give_a_path() {
        for text in ["", "{", "\"", "\"\\", "[[[", "}}]]", r#"{"a":"#, "{:,\"x\"}", "{\"é\":[1,"] {
            for offset in 0..=text.len() + 2 {
                let _ = path_at(text, offset);
            }
        }
    }
}
