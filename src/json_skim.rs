//! Walking JSON text already known to be valid (a message this crate wrote
//! from checked parts): where a value ends, an object's members, an
//! array's elements, without checking the grammar a second time.
//!
//! Why not serde_json: it checks every byte of a string it skips (control
//! characters, escapes), eight at a time, stopping at each escape; a
//! checked text needs only its quotes. Here memchr finds each `"` (SIMD in
//! the module's build) and the backslashes before it say whether it is
//! escaped, so a tool result full of `\n` is crossed in long strides.
//! Building a 1 GB journal's transcript read every message once more this
//! way instead of through serde.
//!
//! On text that is not valid JSON the answers are wrong but safe: every
//! step moves forward, no index leaves the text, nothing panics.
//! A leaf module: it imports nothing of the crate.

#![forbid(unsafe_code)]

/// Past the closing quote of the string whose opening quote is at `i`
/// (the text's end when it has none).
pub fn string_end(b: &[u8], i: usize) -> usize {
    let mut at = i.saturating_add(1);
    while let Some(rest) = b.get(at..) {
        let Some(q) = memchr::memchr(b'"', rest) else { break };
        let q = at + q;
        // Escaped when an odd run of backslashes comes before it (the run
        // cannot reach back past the opening quote).
        let slashes = b[at..q].iter().rev().take_while(|&&c| c == b'\\').count();
        if slashes % 2 == 0 {
            return q + 1;
        }
        at = q + 1;
    }
    b.len()
}

/// Past the end of the value that starts at `i` (a string, an object or
/// array with all it holds, or a scalar); always past `i`.
pub fn value_end(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(b'"') => string_end(b, i),
        Some(b'{' | b'[') => {
            let mut depth = 0usize;
            let mut at = i;
            while let Some(&c) = b.get(at) {
                match c {
                    b'"' => {
                        at = string_end(b, at);
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth = depth.saturating_sub(1);
                        if depth == 0 {
                            return at + 1;
                        }
                    }
                    _ => {}
                }
                at += 1;
            }
            b.len()
        }
        Some(_) => {
            let ends = |c: &u8| matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r');
            let len = b[i..].iter().position(ends).unwrap_or(b.len() - i);
            i + len.max(1)
        }
        None => b.len(),
    }
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = b.get(i) {
        i += 1;
    }
    i
}

/// An object's members as `(key, value)`: the key as written between its
/// quotes (escapes left in), the value's whole text. None when the text is
/// not an object.
pub fn members(text: &str) -> Option<Members<'_>> {
    let at = skip_ws(text.as_bytes(), 0);
    (text.as_bytes().get(at) == Some(&b'{')).then(|| members_at(text, at))
}

/// An array's elements, each value's whole text. None when the text is not an array.
pub fn elements(text: &str) -> Option<Elements<'_>> {
    let at = skip_ws(text.as_bytes(), 0);
    (text.as_bytes().get(at) == Some(&b'[')).then(|| elements_at(text, at))
}

/// The members of the object whose `{` is at `open` in `text`: a value
/// inside a larger text, walked in place (its values are slices of `text`).
pub fn members_at(text: &str, open: usize) -> Members<'_> {
    Members { text, at: open.saturating_add(1), end: text.len() }
}

/// The elements of the array whose `[` is at `open` in `text` (see `members_at`).
pub fn elements_at(text: &str, open: usize) -> Elements<'_> {
    Elements { text, at: open.saturating_add(1), end: text.len() }
}

/// See `members`. Besides iterating, a caller may cross a value itself:
/// `next_key`, then `value` or its own walk and `resume` where it ended.
/// That is how an array is read in the same pass that finds its end.
pub struct Members<'a> {
    text: &'a str,
    at: usize,
    /// Past the closing brace once the walk reached it (else the text's end).
    end: usize,
}

impl<'a> Members<'a> {
    /// The next member's key (as written) and where its value starts, the
    /// value not crossed yet: `value` crosses it, or the caller does and
    /// calls `resume` (asked again without either, the same key comes back).
    pub fn next_key(&mut self) -> Option<(&'a str, usize)> {
        let b = self.text.as_bytes();
        let mut at = skip_ws(b, self.at);
        if b.get(at) == Some(&b',') {
            at = skip_ws(b, at + 1);
        }
        if b.get(at) != Some(&b'"') {
            if b.get(at) == Some(&b'}') {
                self.end = at + 1;
            }
            self.at = b.len();
            return None;
        }
        let key_end = string_end(b, at);
        let key = self.text.get(at + 1..key_end.saturating_sub(1).max(at + 1))?;
        at = skip_ws(b, key_end);
        if b.get(at) != Some(&b':') {
            self.at = b.len();
            return None;
        }
        Some((key, skip_ws(b, at + 1)))
    }

    /// The value that starts at `at` (as `next_key` gave it), crossed.
    pub fn value(&mut self, at: usize) -> Option<&'a str> {
        let end = value_end(self.text.as_bytes(), at);
        self.at = end;
        self.text.get(at..end)
    }

    /// Goes on past a value the caller crossed, which ended at `end`.
    pub fn resume(&mut self, end: usize) {
        self.at = end.max(self.at);
    }

    /// Past the object's closing brace, once the walk has ended there (the
    /// text's end when it ended otherwise).
    pub fn end(&self) -> usize {
        self.end
    }
}

impl<'a> Iterator for Members<'a> {
    type Item = (&'a str, &'a str);

    fn next(&mut self) -> Option<Self::Item> {
        let (key, at) = self.next_key()?;
        Some((key, self.value(at)?))
    }
}

/// See `elements`; `next_start` and `resume` as in `Members`.
pub struct Elements<'a> {
    text: &'a str,
    at: usize,
    /// Past the closing bracket once the walk reached it (else the text's end).
    end: usize,
}

impl<'a> Elements<'a> {
    /// Where the next element starts, not crossed yet (see `Members::next_key`).
    pub fn next_start(&mut self) -> Option<usize> {
        let b = self.text.as_bytes();
        let mut at = skip_ws(b, self.at);
        if b.get(at) == Some(&b',') {
            at = skip_ws(b, at + 1);
        }
        match b.get(at) {
            None | Some(b']') => {
                if b.get(at).is_some() {
                    self.end = at + 1;
                }
                self.at = b.len();
                None
            }
            Some(_) => Some(at),
        }
    }

    /// Goes on past an element the caller crossed, which ended at `end`.
    pub fn resume(&mut self, end: usize) {
        self.at = end.max(self.at);
    }

    /// Past the array's closing bracket (see `Members::end`).
    pub fn end(&self) -> usize {
        self.end
    }
}

impl<'a> Iterator for Elements<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<Self::Item> {
        let at = self.next_start()?;
        let end = value_end(self.text.as_bytes(), at);
        self.at = end;
        self.text.get(at..end)
    }
}

/// serde's reading of an object, member by member (keys unescaped, values
/// raw; repeats kept): the oracle of the tests that walk with this module.
#[cfg(test)]
pub(crate) fn serde_members(text: &str) -> Option<Vec<(String, &serde_json::value::RawValue)>> {
    use serde_json::value::RawValue;
    struct V;
    impl<'de> serde::de::Visitor<'de> for V {
        type Value = Vec<(String, &'de RawValue)>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<Self::Value, A::Error> {
            let mut out = Vec::new();
            while let Some(k) = m.next_key::<String>()? {
                out.push((k, m.next_value()?));
            }
            Ok(out)
        }
    }
    serde::Deserializer::deserialize_map(&mut serde_json::Deserializer::from_str(text), V).ok()
}

/// `len` characters of JSON's punctuation, a letter and a digit, from a
/// xorshift `seed`: text the tests walk that is almost, but not, JSON.
#[cfg(test)]
pub(crate) fn soup(seed: &mut u64, len: usize) -> String {
    let alphabet = b"{}[]\",:\\ a1\n";
    (0..len)
        .map(|_| {
            *seed ^= *seed << 13;
            *seed ^= *seed >> 7;
            *seed ^= *seed << 17;
            char::from(alphabet[(*seed % alphabet.len() as u64) as usize])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::value::RawValue;

    /// What serde reads of a valid object: its keys and its values' texts.
    fn serde_strings(text: &str) -> Vec<(String, String)> {
        serde_members(text).unwrap().into_iter().map(|(k, v)| (k, v.get().to_owned())).collect()
    }

    fn skimmed(text: &str) -> Vec<(String, String)> {
        members(text)
            .unwrap()
            .map(|(k, v)| (serde_json::from_str(&format!("\"{k}\"")).unwrap(), v.to_owned()))
            .collect()
    }

    #[rustfmt::skip]
    const OBJECTS: &[&str] = &[
        r#"{}"#, r#" { } "#, r#"{"a":1}"#, r#"{ "a" : [1, {"b": "]}"}, "\"", "\\"] , "c":null,"d":true }"#,
        r#"{"k\"ey":"v\\","e":"\\\"","f":"\\\\","g":-1.5e+3,"h":{"i":{"j":[[],{}]}}}"#,
        r#"{"t\u0079pe":"text","text":"a\nb\u00e9 ✓","x":"}{][,:"}"#,
        "{\"a\"\t:\n\"b\"\r,\"c\":[ 1 , 2 ]}",
    ];

    #[test]
    fn members_are_what_serde_reads() {
        for text in OBJECTS {
            assert_eq!(skimmed(text), serde_strings(text), "{text}");
        }
        // Backslash runs of every length before a quote, at the start of a string and later.
        for n in 0..8 {
            let run = "\\\\".repeat(n);
            let text = format!(r#"{{"a":"{run}","b":"x{run}\"{run}","c":["{run}"]}}"#);
            assert_eq!(skimmed(&text), serde_strings(&text), "{text}");
        }
    }

    #[test]
    fn elements_are_what_serde_reads() {
        for text in [r#"[]"#, r#"[ 1 ,"a\"]",{"b":[2]}, [3], null ]"#, r#"["\\",true,-0.5]"#] {
            let want: Vec<&RawValue> = serde_json::from_str(text).unwrap();
            let got: Vec<&str> = elements(text).unwrap().collect();
            assert_eq!(got, want.iter().map(|r| r.get()).collect::<Vec<_>>(), "{text}");
        }
        assert!(elements("{}").is_none() && members("[]").is_none() && members("").is_none());
    }

    /// A walk in place ends where `value_end` says the value does, inside
    /// a larger text too, and an element crossed by the caller is skipped.
    #[test]
    fn walks_in_place_end_where_the_value_ends() {
        let arrays = [r#"[]"#, r#"[ 1 ,"a\"]",{"b":[2]}, [3], null ]"#, r#"["\\",true,-0.5]"#];
        for text in OBJECTS.iter().chain(&arrays) {
            let inside = format!(r#"{{"x":{text} , "y":2}}"#);
            let open = inside.find(':').unwrap() + 1;
            let b = inside.as_bytes();
            let end = if text.trim_start().starts_with('{') {
                let mut m = members_at(&inside, skip_ws(b, open));
                for _ in m.by_ref() {}
                m.end()
            } else {
                let mut e = elements_at(&inside, skip_ws(b, open));
                while let Some(at) = e.next_start() {
                    e.resume(value_end(b, at));
                }
                e.end()
            };
            assert_eq!(end, value_end(b, skip_ws(b, open)), "{inside}");
            let mut outer = members(&inside).unwrap();
            let (key, at) = outer.next_key().unwrap();
            assert_eq!((key, at), ("x", skip_ws(b, open)));
            outer.resume(end);
            assert_eq!(outer.collect::<Vec<_>>(), [("y", "2")], "{inside}");
        }
    }

    /// Any bytes: no panic, and each walk ends (every step moves on).
    #[test]
    fn any_text_is_walked_safely() {
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for len in 0..200 {
            for _ in 0..50 {
                let text = soup(&mut seed, len);
                let b = text.as_bytes();
                for i in 0..=b.len() {
                    assert!(value_end(b, i) > i || i >= b.len());
                    assert!(value_end(b, i) <= b.len() && string_end(b, i) <= b.len().max(i + 1));
                }
                for text in [format!("{{{text}"), format!("[{text}")] {
                    assert!(members(&text).map_or(0, |m| m.count()) <= text.len());
                    assert!(elements(&text).map_or(0, |e| e.count()) <= text.len());
                }
            }
        }
    }
}
