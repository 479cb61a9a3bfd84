//! The keyword prefilter: one pass over the text finds every place where a
//! rule could match, so the rules run only near those places (the way
//! gitleaks and trufflehog use keywords). regex-lite has no literal
//! optimisations, so scanning whole texts with patterns would be slow.
//!
//! Three tests, each rarer to pass than the one before: the position's raw
//! byte pair in a 64 KB table (four positions per 8-byte load, so most of a
//! text costs a load and an OR per byte); then a hash of the first three
//! bytes, ASCII-folded, in a 64 Ki-bit table (pairs such as "to", "se" or
//! "pa" start a word every few bytes of English, three bytes do not); then
//! the literals of that prefix.

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
    /// `----BEGIN`, `----END`: a key block (its marker has five dashes, or four).
    PrivateKey,
    /// `://`: credentials in a URL.
    Url,
    /// `bearer`, `basic`: an Authorization scheme.
    Scheme,
    /// A part of a secret-looking name (`pass`, `token`, `key`, ...).
    Name,
    /// A command or file line that takes a credential bare: `mysql`,
    /// `sshpass`, `curl `, a `.pgpass` port (`commands.rs`).
    Command,
    /// A vendor token's prefix (index into `tokens::TOKENS`).
    Token(u16),
    /// The value of a secret environment variable (index into the values).
    Env(u32),
    /// The literal a user's rule starts with (index into the rules).
    Custom(u32),
    /// A password's name in another script (index into `local::WORDS`).
    Local(u8),
}

struct Literal {
    /// The folded first three bytes.
    prefix: u32,
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
    /// Byte `a | b << 8` is set when some literal starts with the raw pair
    /// a, b in any case: the first test. Raw bytes, so a position costs one
    /// 16-bit load and one table load (64 KB, of which a text touches the
    /// few lines its own pairs live in); folding and bit arithmetic made the
    /// loop twice as long.
    pairs: Box<[u8]>,
    /// Bit `bit(prefix)` is set when some literal starts with that prefix.
    bits: Box<[u64; 1024]>,
    /// Sorted by prefix.
    literals: Vec<Literal>,
    /// (prefix, first literal, end): the literals of each prefix, for a
    /// binary search on the rare positions whose bit is set.
    buckets: Vec<(u32, usize, usize)>,
    /// Per byte value, the length of the longest literal that holds it
    /// (0: none does), in either case where the literal is blind to case:
    /// how far around a decoded escape a hit could reach (`Decoded::hits`).
    longest_with: Box<[usize; 256]>,
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
    ("----begin", Trigger::PrivateKey),
    ("----end", Trigger::PrivateKey),
    ("://", Trigger::Url),
    ("bearer", Trigger::Scheme),
    ("basic", Trigger::Scheme),
    ("pass", Trigger::Name),
    ("pwd", Trigger::Name),
    // `pw: v`, `DB_PW=v`, `{"pw": "v"}` (`{\"pw\": …` in a journal line),
    // `{'pw': 'v'}`: a literal is three bytes at least, so the shortest
    // spelling of a password's name is found by the operator or quote
    // after it.
    ("pw:", Trigger::Name),
    ("pw=", Trigger::Name),
    ("pw\"", Trigger::Name),
    ("pw'", Trigger::Name),
    ("pw\\", Trigger::Name),
    ("pw ", Trigger::Name),
    ("secret", Trigger::Name),
    ("token", Trigger::Name),
    ("key", Trigger::Name),
    ("auth", Trigger::Name),
    ("cred", Trigger::Name),
    ("pin", Trigger::Name),
    // A password in other languages (`names.rs`), by a part whose first
    // two bytes already start a literal above, or are rare: each new
    // common pair slows the scan (`kennwort`'s `ken` ends every `token`,
    // `heslo`'s `he` starts `the`; Czech's word is left out).
    ("nnwort", Trigger::Name),
    ("achtwo", Trigger::Name),
    ("asana", Trigger::Name),
    ("senha", Trigger::Name),
    // `Cookie:` and `Set-Cookie:` headers carry sessions.
    ("cookie", Trigger::Name),
    ("mysql", Trigger::Command),
    ("mariadb", Trigger::Command),
    ("sshpass", Trigger::Command),
    ("curl ", Trigger::Command),
    // `docker login -p PW` (and podman's): the flag, not the command's
    // name, is the literal: `do` and `po` start a word every few bytes of
    // English, `-p` seldom.
    ("-p ", Trigger::Command),
    ("-p=", Trigger::Command),
    // GitHub Actions' `::add-mask::VALUE` names a secret to hide from the log.
    ("::add-mask::", Trigger::Command),
    (":5432:", Trigger::Command),
    (":5433:", Trigger::Command),
    (":6432:", Trigger::Command),
    (":*:", Trigger::Command),
];

/// Folds ASCII letters to lowercase for the table. Other bytes may fold
/// together (`@` and a backquote), which only costs a literal compare.
fn fold(b: u8) -> u32 {
    u32::from(b | 0x20)
}

fn prefix(bytes: &[u8]) -> u32 {
    bytes.iter().take(3).fold(0u32, |w, &b| (w << 8) | fold(b))
}

/// The table bit of a folded three-byte prefix.
fn bit(prefix: u32) -> usize {
    (prefix.wrapping_mul(0x9E37_79B1) >> 16) as usize
}

impl Triggers {
    /// The fixed literals plus each secret environment value (and its other
    /// spellings), matched exactly, plus the literal of each user rule that
    /// has one.
    pub fn new(env_values: &[Vec<u8>], custom: &[super::rules::CustomRule]) -> Triggers {
        let mut literals: Vec<Literal> = FIXED
            .iter()
            .map(|(lit, trigger)| Literal {
                prefix: prefix(lit.as_bytes()),
                bytes: lit.as_bytes().into(),
                exact: false,
                trigger: *trigger,
            })
            .collect();
        for (i, lit) in super::local::literals() {
            literals.push(Literal {
                prefix: prefix(lit.as_bytes()),
                bytes: lit.as_bytes().into(),
                exact: false,
                trigger: Trigger::Local(i as u8),
            });
        }
        // Vendor prefixes match exactly: `SG.` and `sk_live_` are case-sensitive.
        for (i, format) in super::tokens::TOKENS.iter().enumerate() {
            for lit in format.triggers {
                literals.push(Literal {
                    prefix: prefix(lit.as_bytes()),
                    bytes: lit.as_bytes().into(),
                    exact: true,
                    trigger: Trigger::Token(i as u16),
                });
            }
        }
        for (i, value) in env_values.iter().enumerate() {
            if value.len() >= 3 {
                literals.push(Literal {
                    prefix: prefix(value),
                    bytes: value.clone().into(),
                    exact: true,
                    trigger: Trigger::Env(i as u32),
                });
            }
        }
        for (i, rule) in custom.iter().enumerate() {
            if let Some((bytes, exact)) = &rule.literal {
                literals.push(Literal {
                    prefix: prefix(bytes),
                    bytes: bytes.clone().into(),
                    exact: *exact,
                    trigger: Trigger::Custom(i as u32),
                });
            }
        }
        // Longer literals first within a prefix: an env value before a shorter one.
        super::sort_small(&mut literals, |a, b| {
            a.prefix < b.prefix || (a.prefix == b.prefix && a.bytes.len() >= b.bytes.len())
        });
        let mut bits = Box::new([0u64; 1024]);
        let mut pairs = vec![0u8; 1 << 16].into_boxed_slice();
        let mut buckets: Vec<(u32, usize, usize)> = Vec::new();
        for (i, lit) in literals.iter().enumerate() {
            let b = bit(lit.prefix);
            bits[b / 64] |= 1 << (b % 64);
            // Every raw pair that folds to the literal's first two bytes.
            let (a, b) = ((lit.prefix >> 16) as u8, (lit.prefix >> 8) as u8);
            for raw_a in [a, a & !0x20] {
                for raw_b in [b, b & !0x20] {
                    if fold(raw_a) == u32::from(a) && fold(raw_b) == u32::from(b) {
                        pairs[usize::from(raw_a) | usize::from(raw_b) << 8] = 1;
                    }
                }
            }
            match buckets.last_mut() {
                Some(last) if last.0 == lit.prefix => last.2 = i + 1,
                _ => buckets.push((lit.prefix, i, i + 1)),
            }
        }
        let mut longest_with = Box::new([0; 256]);
        for lit in &literals {
            for &b in lit.bytes.iter() {
                let cases = if lit.exact { [b, b] } else { [b.to_ascii_lowercase(), b.to_ascii_uppercase()] };
                for c in cases {
                    longest_with[usize::from(c)] = longest_with[usize::from(c)].max(lit.bytes.len());
                }
            }
        }
        Triggers { pairs, bits, literals, buckets, longest_with }
    }

    /// The length of the longest literal that holds byte `c` (0: none).
    pub fn longest_with(&self, c: u8) -> usize {
        self.longest_with[usize::from(c)]
    }

    /// Every hit in `text`, in order of position.
    pub fn scan(&self, text: &[u8]) -> Vec<Hit> {
        let mut hits = Vec::new();
        let Ok(pairs) = <&[u8; 1 << 16]>::try_from(self.pairs.as_ref()) else { return hits };
        let mut at = 0;
        // Four positions per 8-byte load, one branch for the four: most
        // steps of prose and code have no pair at all. The positions that
        // have one are taken from the four answers' bits, in the same step:
        // searching the bytes again for them, as a loop that returned the
        // first and began anew after it did, cost a twentieth of the scan
        // (a pair starts one position in fifteen of a journal). The last
        // load is padded with zeros, which start no pair and end none.
        while at + 2 < text.len() {
            let mut last = [0; 8];
            let chunk = text.get(at..at + 8).unwrap_or_else(|| {
                last[..text.len() - at].copy_from_slice(&text[at..]);
                &last
            });
            let w = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
            let pair = |shift: u32| pairs[(w >> shift) as usize & 0xFFFF];
            let mut found = pair(0) | pair(8) << 1 | pair(16) << 2 | pair(24) << 3;
            while found != 0 {
                self.try_at(text, at + found.trailing_zeros() as usize, &mut hits);
                found &= found - 1;
            }
            at += 4;
        }
        hits
    }

    /// The hits at `pos`, whose pair is in the table: the rarer tests.
    #[inline]
    fn try_at(&self, text: &[u8], pos: usize, hits: &mut Vec<Hit>) {
        let Some(&[first, second, third]) = text.get(pos..pos + 3) else { return };
        let prefix = (fold(first) << 16) | (fold(second) << 8) | fold(third);
        let k = bit(prefix);
        if self.bits[k >> 6] & (1 << (k & 63)) == 0 {
            return;
        }
        let Ok(found) = self.buckets.binary_search_by_key(&prefix, |b| b.0) else { return };
        let (_, first, end) = self.buckets[found];
        for lit in &self.literals[first..end] {
            if lit.matches(&text[pos..]) {
                // Prose names a token or a key every few lines: room for
                // several at the first, one allocation rather than three;
                // a text with no hit allocates nothing.
                if hits.is_empty() {
                    hits.reserve(16);
                }
                hits.push(Hit { pos, len: lit.bytes.len(), trigger: lit.trigger });
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_literals_case_insensitively_and_env_values_exactly() {
        let t = Triggers::new(&[b"Hunter2Hunter2".to_vec()], &[]);
        let hits = t.scan(b"my PASSWORD is Hunter2Hunter2, not hunter2hunter2");
        let kinds: Vec<_> = hits.iter().map(|h| (h.pos, h.trigger)).collect();
        assert_eq!(kinds, vec![(3, Trigger::Name), (15, Trigger::Env(0))]);
        assert!(t.scan(b"nothing to see here").is_empty());
        assert_eq!(t.scan(b"an eyJ header").len(), 1);
    }

    /// The obvious scan: every literal tried at every position.
    fn naive(t: &Triggers, text: &[u8]) -> Vec<Hit> {
        let mut hits = Vec::new();
        for pos in 0..text.len() {
            for lit in &t.literals {
                if pos + 3 <= text.len() && lit.matches(&text[pos..]) {
                    hits.push(Hit { pos, len: lit.bytes.len(), trigger: lit.trigger });
                }
            }
        }
        hits
    }

    #[test]
    fn the_fast_scan_finds_what_the_obvious_one_finds() {
        let t = Triggers::new(&[b"Hunter2Hunter2".to_vec(), b"s3".to_vec()], &[]);
        let pieces: &[&[u8]] = &[
            b"token",
            b"PASS",
            b"sk-",
            b"eyJ",
            b"://",
            b"Hunter2Hunter2",
            b"x",
            b"  ",
            b"ke",
            b"y",
            b"\xff",
            b"-----BEGIN",
            b"SG.",
            b":AA",
            b"MTA",
            b"sig=",
            b"SECRET-KEY-1",
            b"curl ",
            b":*:",
        ];
        // Every piece at every offset of the 4-position blocks, near the end
        // of the text, and cut short by it.
        for lead in 0..12 {
            for piece in pieces {
                for tail in 0..10 {
                    let mut text = vec![b'.'; lead];
                    text.extend_from_slice(piece);
                    text.extend(std::iter::repeat_n(b'.', tail));
                    for cut in 0..=text.len() {
                        let hits = t.scan(&text[..cut]);
                        let expected = naive(&t, &text[..cut]);
                        assert_eq!(hits.len(), expected.len(), "{:?}", String::from_utf8_lossy(&text[..cut]));
                        for (a, b) in hits.iter().zip(&expected) {
                            assert_eq!((a.pos, a.len, a.trigger), (b.pos, b.len, b.trigger));
                        }
                    }
                }
            }
        }
        // Pseudo-random text over the literals' own letters.
        let alphabet = b"tokenpasKEYsk-eyJ:/aAuthcredpinHunter2 SG.MTAsig=*";
        let mut seed = 0x9E37_79B9u32;
        for len in 0..300 {
            let text: Vec<u8> = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 17;
                    seed ^= seed << 5;
                    alphabet[seed as usize % alphabet.len()]
                })
                .collect();
            let hits: Vec<_> = t.scan(&text).iter().map(|h| (h.pos, h.len, h.trigger)).collect();
            let expected: Vec<_> = naive(&t, &text).iter().map(|h| (h.pos, h.len, h.trigger)).collect();
            assert_eq!(hits, expected);
        }
    }
}
