//! The keyword prefilter: one pass over the text finds every place where a
//! rule could match, so the rules run only near those places (the way
//! gitleaks and trufflehog use keywords). regex-lite has no literal
//! optimisations, so scanning whole texts with patterns would be slow.
//!
//! Each trigger literal is indexed by its first two bytes (ASCII-folded) in a
//! 64 Ki-bit table: most positions of a text cost one table lookup.

/// What a hit may be the start of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trigger {
    /// `sk-`: Anthropic and OpenAI keys.
    Sk,
    /// AWS access key id prefixes.
    Aws,
    /// `ghp_` ... `github_pat_`.
    GitHub,
    /// `xox?-`, `xapp-`.
    Slack,
    /// `hooks.slack.com`.
    SlackHook,
    /// `AIza`.
    Google,
    /// `eyJ`: a JWT's header.
    Jwt,
    /// `-----BEGIN`: a key block.
    PrivateKey,
    /// `://`: credentials in a URL.
    Url,
    /// `bearer`, `basic`: an Authorization scheme.
    Scheme,
    /// A part of a secret-looking name (`pass`, `token`, `key`, ...).
    Name,
    /// The value of a secret environment variable (index into the values).
    Env(u32),
}

struct Literal {
    /// The folded first two bytes, to skip the others quickly.
    pair: usize,
    /// Lowercase unless `exact`.
    bytes: Box<[u8]>,
    exact: bool,
    trigger: Trigger,
}

impl Literal {
    fn matches(&self, rest: &[u8]) -> bool {
        match rest.get(..self.bytes.len()) {
            Some(head) if self.exact => head == &*self.bytes,
            Some(head) => head.eq_ignore_ascii_case(&self.bytes),
            None => false,
        }
    }
}

/// A hit: `trigger` may start at byte `pos`; `len` is the literal's length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hit {
    pub pos: usize,
    pub len: usize,
    pub trigger: Trigger,
}

pub struct Triggers {
    /// Bit `pair` is set when some literal starts with that folded pair.
    pairs: Box<[u64; 1024]>,
    literals: Vec<Literal>,
}

const FIXED: &[(&str, Trigger)] = &[
    ("sk-", Trigger::Sk),
    ("akia", Trigger::Aws),
    ("asia", Trigger::Aws),
    ("abia", Trigger::Aws),
    ("acca", Trigger::Aws),
    ("a3t", Trigger::Aws),
    ("ghp_", Trigger::GitHub),
    ("gho_", Trigger::GitHub),
    ("ghu_", Trigger::GitHub),
    ("ghs_", Trigger::GitHub),
    ("ghr_", Trigger::GitHub),
    ("github_pat_", Trigger::GitHub),
    ("xox", Trigger::Slack),
    ("xapp-", Trigger::Slack),
    ("hooks.slack.com", Trigger::SlackHook),
    ("aiza", Trigger::Google),
    ("eyj", Trigger::Jwt),
    ("-----begin", Trigger::PrivateKey),
    ("://", Trigger::Url),
    ("bearer", Trigger::Scheme),
    ("basic", Trigger::Scheme),
    ("pass", Trigger::Name),
    ("pwd", Trigger::Name),
    ("secret", Trigger::Name),
    ("token", Trigger::Name),
    ("key", Trigger::Name),
    ("auth", Trigger::Name),
    ("cred", Trigger::Name),
    ("pin", Trigger::Name),
];

fn pair(a: u8, b: u8) -> usize {
    (usize::from(a.to_ascii_lowercase()) << 8) | usize::from(b.to_ascii_lowercase())
}

impl Triggers {
    /// The fixed literals plus each secret environment value (and its other
    /// spellings), matched exactly.
    pub fn new(env_values: &[Vec<u8>]) -> Triggers {
        let mut literals: Vec<Literal> = FIXED
            .iter()
            .map(|(lit, trigger)| Literal {
                pair: pair(lit.as_bytes()[0], lit.as_bytes()[1]),
                bytes: lit.as_bytes().into(),
                exact: false,
                trigger: *trigger,
            })
            .collect();
        for (i, value) in env_values.iter().enumerate() {
            if let [a, b, ..] = value[..] {
                literals.push(Literal {
                    pair: pair(a, b),
                    bytes: value.clone().into(),
                    exact: true,
                    trigger: Trigger::Env(i as u32),
                });
            }
        }
        let mut pairs = Box::new([0u64; 1024]);
        for lit in &literals {
            pairs[lit.pair / 64] |= 1 << (lit.pair % 64);
        }
        Triggers { pairs, literals }
    }

    /// Every hit in `text`, in order of position.
    pub fn scan(&self, text: &[u8]) -> Vec<Hit> {
        let mut hits = Vec::new();
        if text.len() < 2 {
            return hits;
        }
        let mut prev = text[0];
        for (i, &b) in text.iter().enumerate().skip(1) {
            let p = pair(prev, b);
            prev = b;
            if self.pairs[p / 64] & (1 << (p % 64)) == 0 {
                continue;
            }
            let at = i - 1;
            let rest = &text[at..];
            for lit in self.literals.iter().filter(|l| l.pair == p) {
                if lit.matches(rest) {
                    hits.push(Hit { pos: at, len: lit.bytes.len(), trigger: lit.trigger });
                }
            }
        }
        hits
    }

    /// Whether `text` holds any trigger at all (the common answer is no).
    pub fn any(&self, text: &[u8]) -> bool {
        if text.len() < 2 {
            return false;
        }
        let mut prev = text[0];
        for (i, &b) in text.iter().enumerate().skip(1) {
            let p = pair(prev, b);
            prev = b;
            if self.pairs[p / 64] & (1 << (p % 64)) != 0 {
                let rest = &text[i - 1..];
                if self.literals.iter().any(|l| l.pair == p && l.matches(rest)) {
                    return true;
                }
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_literals_case_insensitively_and_env_values_exactly() {
        let t = Triggers::new(&[b"Hunter2Hunter2".to_vec()]);
        let hits = t.scan(b"my PASSWORD is Hunter2Hunter2, not hunter2hunter2");
        let kinds: Vec<_> = hits.iter().map(|h| (h.pos, h.trigger)).collect();
        assert_eq!(kinds, vec![(3, Trigger::Name), (15, Trigger::Env(0))]);
        assert!(!t.any(b"nothing to see here"));
        assert!(t.any(b"an eyJ header"));
    }
}
