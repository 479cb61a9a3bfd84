//! A fast path for the shape most token rules have: literals and bounded
//! runs of ASCII classes, such as `glpat-[0-9a-zA-Z_-]{20}` or
//! `sk_live_[0-9a-zA-Z]{24,99}`. regex-lite's engine takes tens of
//! nanoseconds a byte and more a call; these patterns need neither its
//! generality nor its cost. A pattern is taken only when greedy matching
//! is exact for it (each variable run is last or followed by something it
//! cannot match), so the result is regex-lite's leftmost-first match; a
//! test checks the two agree. Anything else stays with regex-lite.

#![forbid(unsafe_code)]

/// One item: a set of bytes, repeated `min..=max` times.
#[derive(Debug, Clone)]
struct Item {
    set: [u64; 4],
    min: u16,
    max: u16,
}

impl Item {
    fn has(&self, b: u8) -> bool {
        self.set[usize::from(b >> 6)] & (1 << (b & 63)) != 0
    }

    fn disjoint(&self, other: &Item) -> bool {
        self.set.iter().zip(&other.set).all(|(a, b)| a & b == 0)
    }
}

/// A compiled simple pattern.
#[derive(Debug, Clone)]
pub struct Simple {
    items: Vec<Item>,
}

fn set_of(bytes: impl IntoIterator<Item = u8>) -> [u64; 4] {
    let mut set = [0u64; 4];
    for b in bytes {
        set[usize::from(b >> 6)] |= 1 << (b & 63);
    }
    set
}

/// Adds the other ASCII case of every letter in the set.
fn fold(set: &mut [u64; 4]) {
    for b in b'a'..=b'z' {
        let upper = b - 32;
        let has = |s: &[u64; 4], x: u8| s[usize::from(x >> 6)] & (1 << (x & 63)) != 0;
        if has(set, b) || has(set, upper) {
            set[usize::from(b >> 6)] |= 1 << (b & 63);
            set[usize::from(upper >> 6)] |= 1 << (upper & 63);
        }
    }
}

impl Simple {
    /// The pattern as a simple one, or None when it is not of that shape.
    pub fn parse(pattern: &str) -> Option<Simple> {
        let (body, insensitive) = match pattern.strip_prefix("(?i)") {
            Some(rest) => (rest, true),
            None => (pattern, false),
        };
        let b = body.as_bytes();
        let mut items: Vec<Item> = Vec::new();
        let mut i = 0;
        while i < b.len() {
            let mut set = match b[i] {
                b'[' => {
                    let (set, end) = class(b, i + 1)?;
                    i = end;
                    set
                }
                b'\\' => {
                    let e = *b.get(i + 1)?;
                    i += 2;
                    match e {
                        b'd' => set_of(b'0'..=b'9'),
                        b'w' => set_of((b'0'..=b'9').chain(b'a'..=b'z').chain(b'A'..=b'Z').chain([b'_'])),
                        p if p.is_ascii_punctuation() => set_of([p]),
                        _ => return None,
                    }
                }
                c if c.is_ascii() && !b"()|.^$*+?{}]".contains(&c) && !c.is_ascii_whitespace() => {
                    i += 1;
                    set_of([c])
                }
                _ => return None,
            };
            if insensitive {
                fold(&mut set);
            }
            let (min, max) = match b.get(i) {
                Some(b'?') => {
                    i += 1;
                    (0, 1)
                }
                Some(b'{') => {
                    let close = b[i..].iter().position(|&c| c == b'}')? + i;
                    let inner = std::str::from_utf8(&b[i + 1..close]).ok()?;
                    i = close + 1;
                    match inner.split_once(',') {
                        None => {
                            let n = inner.parse().ok()?;
                            (n, n)
                        }
                        Some((lo, hi)) => (lo.parse().ok()?, hi.parse().ok()?),
                    }
                }
                Some(b'*' | b'+') => return None,
                _ => (1, 1),
            };
            if min > max || max > 1024 {
                return None;
            }
            // Greedy matching is exact when a variable run is last, or is
            // followed by a fixed item it cannot match (then giving back
            // characters could never let the next item match).
            if let Some(prev) = items.last() {
                let next = Item { set, min, max };
                if prev.min != prev.max && (min != max || min == 0 || !prev.disjoint(&next)) {
                    return None;
                }
            }
            items.push(Item { set, min, max });
        }
        if items.iter().map(|it| usize::from(it.min)).sum::<usize>() == 0 {
            return None;
        }
        Some(Simple { items })
    }

    /// The end of the match that starts at `pos` (`Ok`), or how far the
    /// attempt looked before it failed (`Err`).
    pub fn match_at(&self, text: &[u8], pos: usize) -> Result<usize, usize> {
        let mut at = pos;
        for it in &self.items {
            let mut n = 0u16;
            while n < it.max && text.get(at).is_some_and(|&b| it.has(b)) {
                at += 1;
                n += 1;
            }
            if n < it.min {
                return Err(at);
            }
        }
        Ok(at)
    }
}

/// An ASCII character class from just after its `[`: its set and the index
/// after its `]`. Negated classes are not simple (they match non-ASCII).
fn class(b: &[u8], mut i: usize) -> Option<([u64; 4], usize)> {
    if b.get(i) == Some(&b'^') {
        return None;
    }
    let mut set = [0u64; 4];
    let mut first = true;
    loop {
        let c = *b.get(i)?;
        if c == b']' && !first {
            return Some((set, i + 1));
        }
        first = false;
        let lo = if c == b'\\' {
            i += 1;
            let e = *b.get(i)?;
            if !e.is_ascii_punctuation() {
                return None;
            }
            e
        } else {
            c
        };
        if !lo.is_ascii() {
            return None;
        }
        i += 1;
        let hi = if b.get(i) == Some(&b'-') && b.get(i + 1).is_some_and(|&n| n != b']') {
            let h = *b.get(i + 1)?;
            if h == b'\\' || !h.is_ascii() || h < lo {
                return None;
            }
            i += 2;
            h
        } else {
            lo
        };
        for x in lo..=hi {
            set[usize::from(x >> 6)] |= 1 << (x & 63);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_taken_and_left() {
        for p in [
            "glpat-[0-9a-zA-Z_-]{20}",
            "sk_live_[0-9a-zA-Z]{24,99}",
            r"SG\.[a-zA-Z0-9_-]{22}\.[a-zA-Z0-9_-]{43}",
            "(?i)acme_[a-z0-9]{32}",
            r"tkt-\d{6}",
            "abcd?e",
        ] {
            assert!(Simple::parse(p).is_some(), "{p}");
        }
        for p in [
            "a.*b",
            "(a|b)cd",
            "[^a-z]{4}",
            "x[a-z]{1,4}[a-c]",
            "a+",
            "é{3}",
            r"\bword",
            "x[a-z]{0,2}[0-9]{0,2}[a-z]",
        ] {
            assert!(Simple::parse(p).is_none(), "{p}");
        }
    }

    /// The fast path and regex-lite agree on where an anchored match ends,
    /// over generated texts for each pattern.
    #[test]
    fn agrees_with_regex_lite() {
        let patterns = [
            "glpat-[0-9a-zA-Z_-]{20}",
            "sk_live_[0-9a-zA-Z]{4,9}",
            r"SG\.[a-z]{2}\.[a-z0-9]{3}",
            "(?i)acme_[a-z0-9]{5}",
            r"tkt-\d{2,3}x",
            "abcd?e",
            r"k\w{3}",
        ];
        let alphabet = b"glpat-sk_liveSGacmeACME_.tkx0123456789abcdezAZ_-k";
        let mut seed = 0x9E37_79B9_u64;
        for p in patterns {
            let simple = Simple::parse(p).expect(p);
            let anchored = regex_lite::Regex::new(&format!("^(?:{p})")).expect(p);
            for _ in 0..5000 {
                let mut text = Vec::new();
                for _ in 0..(seed % 40) {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    text.push(alphabet[(seed % alphabet.len() as u64) as usize]);
                }
                // Start most texts with the pattern's own beginning.
                let mut with_prefix = p
                    .trim_start_matches("(?i)")
                    .split(['[', '\\', '?'])
                    .next()
                    .unwrap_or("")
                    .as_bytes()
                    .to_vec();
                with_prefix.truncate(with_prefix.len().saturating_sub(usize::from(p.contains("d?"))));
                if seed % 3 != 0 {
                    with_prefix.extend_from_slice(&text);
                    text = with_prefix;
                }
                let s = std::str::from_utf8(&text).expect("ascii");
                let expected = anchored.find(s).map(|m| m.end());
                assert_eq!(simple.match_at(&text, 0).ok(), expected, "{p} on {s:?}");
            }
        }
    }
}
