//! The strings a diagnosis keeps of every line (uuids, parents, message and
//! tool ids, models, tool names), stored in one growing text: a line's row
//! holds 8-byte references, not an allocation per string (issue 28: a
//! 1 GB session's ~650k lines in bounded memory). The strings are kept
//! whole, never hashed: every comparison the rules make is of the text
//! itself, so no two ids can be taken for one.
//!
//! A string equal to one the caller has at hand (a line's parent is the
//! uuid of the line before; a tool_result's id, a recent call's) is stored
//! once and referenced twice; models and tool names, which repeat across
//! the file, are stored once each.

/// Where a string's bytes are in a `Strs` (`S::NONE`: no string).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct S {
    at: usize,
    len: usize,
}

impl S {
    pub(super) const NONE: S = S { at: usize::MAX, len: 0 };
}

/// The distinct values `intern` looks through: models and tool names are a
/// few; past this many, a file of ever new names stores each where it comes.
const FEW: usize = 64;

#[derive(Default)]
pub(super) struct Strs {
    text: String,
    few: Vec<S>,
}

impl Strs {
    #[inline(never)]
    pub(super) fn get(&self, s: S) -> Option<&str> {
        if s.at == usize::MAX {
            return None;
        }
        self.text.get(s.at..s.at + s.len)
    }

    #[inline(never)]
    pub(super) fn add(&mut self, s: Option<&str>) -> S {
        let Some(s) = s else { return S::NONE };
        let at = self.text.len();
        self.text.push_str(s);
        S { at, len: s.len() }
    }

    /// `s`, as one of `like` when one of them is the same string.
    #[inline(never)]
    pub(super) fn add_like(&mut self, s: Option<&str>, like: &[S]) -> S {
        match like.iter().find(|&&l| s.is_some() && self.get(l) == s) {
            Some(&l) => l,
            None => self.add(s),
        }
    }

    /// `s`, stored once however often it comes (for values that repeat).
    pub(super) fn intern(&mut self, s: Option<&str>) -> S {
        let few = std::mem::take(&mut self.few);
        let at = self.add_like(s, &few);
        self.few = few;
        if at != S::NONE && self.few.len() < FEW && !self.few.contains(&at) {
            self.few.push(at);
        }
        at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_come_back_as_they_went_in_shared_or_not() {
        let mut t = Strs::default();
        let a = t.add(Some("u-1"));
        let none = t.add(None);
        let b = t.add_like(Some("u-1"), &[S::NONE, a]);
        let c = t.add_like(Some("u-2"), &[a]);
        let m1 = t.intern(Some("claude-x"));
        let m2 = t.intern(Some("claude-x"));
        let e = t.add(Some(""));
        assert_eq!(
            (t.get(a), t.get(none), t.get(b), t.get(c)),
            (Some("u-1"), None, Some("u-1"), Some("u-2"))
        );
        assert_eq!((b, m1), (a, m2));
        assert_eq!((t.get(m1), t.get(e), t.get(S::NONE)), (Some("claude-x"), Some(""), None));
        assert_eq!(t.add_like(None, &[a]), S::NONE);
    }
}
