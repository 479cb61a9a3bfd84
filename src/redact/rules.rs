//! The rule that found a secret, and the rules users add.
//!
//! Users add their own token formats, as gitleaks users do: a name and a
//! pattern, compiled with regex-lite, whose searches are O(m·n) at worst, so
//! no pattern can hang on an adversarial line. A pattern that starts with a
//! literal of three bytes or more (`acme_[a-z0-9]{32}`) joins the keyword
//! prefilter: it is tried, anchored, only where its literal occurs, over at
//! most `MAX_MATCH` bytes (a token is not longer). Anchored attempts stop as
//! soon as the pattern cannot match, so they cost a few steps each; should a
//! pattern keep them running (`acme_.*Q` on `acme_acme_…`), the work is
//! bounded and the rest of the text gets one linear unanchored pass. A
//! pattern without a literal runs over every string in one such pass.

#![forbid(unsafe_code)]

use regex_lite::Regex;
use std::fmt;

/// The longest match a user rule takes, in bytes (as the built-in formats
/// take no token longer than 1 KiB).
pub const MAX_MATCH: usize = 1024;

/// The longest pattern taken: a longer one is refused (its position search
/// below compiles each prefix, so this bounds that work too).
const MAX_PATTERN: usize = 1000;

/// The rule that found a secret, for the counts a redaction reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rule {
    EnvValue,
    Assignment,
    UrlCredentials,
    Authorization,
    AnthropicKey,
    OpenaiKey,
    AwsKeyId,
    GithubToken,
    Slack,
    GoogleApiKey,
    Jwt,
    PrivateKey,
    RecordField,
    /// `mysql -pPW`, `sshpass -p`, `curl -u user:PW`, `.pgpass`, `.netrc`.
    CommandCredential,
    /// An AWS secret access key beside its key id.
    AwsSecretKey,
    /// A vendor token, by its row in `tokens::TOKENS`.
    Token(u16),
    /// A user's rule, by its index among the Redactor's rules.
    Custom(u32),
}

impl Rule {
    /// The rule's name; a custom rule's is its user's.
    pub fn name(self, custom: &[CustomRule]) -> &str {
        match self {
            Rule::EnvValue => "env-value",
            Rule::Assignment => "assignment",
            Rule::UrlCredentials => "url-credentials",
            Rule::Authorization => "authorization",
            Rule::AnthropicKey => "anthropic-key",
            Rule::OpenaiKey => "openai-key",
            Rule::AwsKeyId => "aws-key-id",
            Rule::GithubToken => "github-token",
            Rule::Slack => "slack",
            Rule::GoogleApiKey => "google-api-key",
            Rule::Jwt => "jwt",
            Rule::PrivateKey => "private-key",
            Rule::RecordField => "record-field",
            Rule::CommandCredential => "command-credential",
            Rule::AwsSecretKey => "aws-secret-key",
            Rule::Token(i) => super::tokens::TOKENS.get(usize::from(i)).map_or("token", |f| f.rule),
            Rule::Custom(i) => custom.get(i as usize).map_or("custom", |r| r.name.as_str()),
        }
    }
}

/// A rule a user wrote: compiled, with the literal every match starts with
/// (when the pattern has one).
#[derive(Clone)]
pub struct CustomRule {
    pub name: String,
    regex: Regex,
    /// The pattern anchored at the start: tried at each literal hit.
    anchored: Regex,
    /// The same, without regex-lite, for patterns of literals and bounded
    /// class runs (most token formats).
    simple: Option<super::simple::Simple>,
    /// The pattern can match without bound (`*`, `+`, `{n,}`): an anchored
    /// attempt could run its whole window, so one unanchored pass from the
    /// first hit is cheaper.
    unbounded: bool,
    /// A literal every match starts with, and whether it is matched exactly
    /// (else ASCII case-insensitively, after a leading `(?i)`).
    pub literal: Option<(Vec<u8>, bool)>,
}

impl fmt::Debug for CustomRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CustomRule({:?})", self.name)
    }
}

/// A rule that cannot be used: its name and what is wrong, with the
/// position (a character index) in the pattern when there is one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RuleError {
    pub rule: String,
    pub position: Option<usize>,
    pub message: String,
}

impl fmt::Display for RuleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.position {
            Some(p) => write!(f, "rule {:?}: bad pattern at position {p}: {}", self.rule, self.message),
            None => write!(f, "rule {:?}: {}", self.rule, self.message),
        }
    }
}

impl std::error::Error for RuleError {}

impl CustomRule {
    pub fn new(name: &str, pattern: &str) -> Result<CustomRule, RuleError> {
        let fail = |position, message: String| RuleError { rule: name.to_owned(), position, message };
        if name.trim().is_empty() {
            return Err(fail(None, "a rule needs a name".into()));
        }
        if pattern.is_empty() {
            return Err(fail(None, "the pattern is empty".into()));
        }
        if pattern.len() > MAX_PATTERN {
            return Err(fail(None, format!("the pattern is longer than {MAX_PATTERN} bytes")));
        }
        let regex =
            Regex::new(pattern).map_err(|e| fail(Some(error_position(pattern, &e)), e.to_string()))?;
        if regex.is_match("") {
            return Err(fail(
                None,
                "the pattern matches the empty string, so it would match everywhere".into(),
            ));
        }
        let anchored = Regex::new(&format!("^(?:{pattern})")).map_err(|e| fail(None, e.to_string()))?;
        let unbounded = is_unbounded(pattern);
        let simple = super::simple::Simple::parse(pattern);
        Ok(CustomRule {
            name: name.to_owned(),
            regex,
            anchored,
            simple,
            unbounded,
            literal: leading_literal(pattern),
        })
    }

    /// Matches that start at literal hits (`hits`, positions in order), as
    /// byte spans of `text`. Hits inside a match are skipped. Anchored
    /// attempts may look at as many bytes as the text has (and 64 KiB more)
    /// in all; past that, one unanchored pass from the current hit finishes
    /// the text, so the total stays linear whatever the pattern.
    pub fn find_at_hits(&self, text: &str, hits: &[usize], out: &mut Vec<(usize, usize)>) {
        if self.unbounded {
            if let Some(&first) = hits.first() {
                self.find_all(text, first, out);
            }
            return;
        }
        let mut covered = 0;
        if let Some(simple) = &self.simple {
            // The fast path may look at each byte four times on average
            // (dense hits each look a few bytes past their literal).
            let mut budget = text.len().saturating_mul(4).saturating_add(64 << 10);
            for &pos in hits {
                if pos < covered {
                    continue;
                }
                match simple.match_at(text.as_bytes(), pos) {
                    Ok(end) if end > pos => {
                        out.push((pos, end));
                        covered = end;
                    }
                    Ok(_) => {}
                    Err(looked) if looked - pos > budget => {
                        // A pattern whose failed attempts keep looking far
                        // (`abc[a-z]{1000}x` on `abcabc…`): one pass instead.
                        self.find_all(text, pos, out);
                        return;
                    }
                    Err(looked) => budget -= looked - pos,
                }
            }
            return;
        }
        let mut budget = text.len().saturating_add(64 << 10);
        for &pos in hits {
            if pos < covered || !text.is_char_boundary(pos) {
                continue;
            }
            // The window ends on a character boundary (at most 3 steps back).
            let mut end = text.len().min(pos + MAX_MATCH);
            while !text.is_char_boundary(end) {
                end -= 1;
            }
            if end - pos > budget {
                self.find_all(text, pos, out);
                return;
            }
            budget -= end - pos;
            if let Some(m) = self.anchored.find(&text[pos..end]).filter(|m| !m.is_empty()) {
                out.push((pos, pos + m.end()));
                covered = pos + m.end();
            }
        }
    }

    /// Every match in `text` from byte `from` on (a char boundary), as byte
    /// spans of `text`. One linear pass.
    pub fn find_all(&self, text: &str, from: usize, out: &mut Vec<(usize, usize)>) {
        let Some(tail) = text.get(from..) else { return };
        out.extend(
            self.regex.find_iter(tail).filter(|m| !m.is_empty()).map(|m| (from + m.start(), from + m.end())),
        );
    }
}

/// Where in `pattern` the parse fails: the shortest prefix that fails with
/// the same error as the whole pattern ends there. regex-lite's errors say
/// what, not where.
fn error_position(pattern: &str, error: &regex_lite::Error) -> usize {
    let message = error.to_string();
    let cuts = pattern.char_indices().map(|(i, c)| i + c.len_utf8());
    for (chars, cut) in cuts.enumerate() {
        if Regex::new(&pattern[..cut]).is_err_and(|e| e.to_string() == message) {
            return chars;
        }
    }
    pattern.chars().count()
}

/// The literal every match of `pattern` starts with, when it has one of
/// three bytes or more: plain characters (or escaped punctuation) from the
/// start, up to the first thing that is not a literal. A quantifier that
/// could drop the last character drops it from the literal too. A pattern
/// with a top-level `|` has none (each side could start differently).
fn leading_literal(pattern: &str) -> Option<(Vec<u8>, bool)> {
    let (body, exact) = match pattern.strip_prefix("(?i)") {
        Some(rest) => (rest, false),
        None => (pattern, true),
    };
    if has_top_level_alternation(body) {
        return None;
    }
    let mut lit: Vec<u8> = Vec::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        let ch = match c {
            '\\' => match chars.next() {
                Some(p) if p.is_ascii_punctuation() => p,
                _ => break,
            },
            '[' | '(' | ')' | '.' | '^' | '$' | '|' | '*' | '+' | '?' | '{' | '}' => break,
            c if c.is_whitespace() => break,
            c => c,
        };
        if !exact && !ch.is_ascii() {
            break; // Unicode case folding: no byte literal stands for it.
        }
        // A quantifier after this character: `?`, `*` and `{0,` can drop it.
        if matches!(chars.peek(), Some('?' | '*' | '{')) {
            break;
        }
        let mut buf = [0u8; 4];
        let bytes = ch.encode_utf8(&mut buf).as_bytes();
        lit.extend_from_slice(&if exact { bytes.to_vec() } else { bytes.to_ascii_lowercase() });
    }
    (lit.len() >= 3).then_some((lit, exact))
}

/// Whether a pattern can match without bound: `*`, `+` or `{n,}` outside a
/// character class.
fn is_unbounded(pattern: &str) -> bool {
    let (mut class, mut escaped, mut brace) = (false, false, None::<String>);
    for c in pattern.chars() {
        if let Some(b) = brace.as_mut() {
            if c == '}' {
                if b.ends_with(',') {
                    return true;
                }
                brace = None;
            } else {
                b.push(c);
            }
            continue;
        }
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '[' if !class => class = true,
            ']' if class => class = false,
            '*' | '+' if !class => return true,
            '{' if !class => brace = Some(String::new()),
            _ => {}
        }
    }
    false
}

fn has_top_level_alternation(pattern: &str) -> bool {
    let (mut depth, mut class, mut escaped) = (0u32, false, false);
    for c in pattern.chars() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '[' if !class => class = true,
            ']' if class => class = false,
            '(' if !class => depth += 1,
            ')' if !class => depth = depth.saturating_sub(1),
            '|' if !class && depth == 0 => return true,
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_are_prefixes_every_match_starts_with() {
        let cases = [
            ("acme_[a-z0-9]{32}", Some(("acme_", true))),
            ("(?i)acme_[a-z]+", Some(("acme_", false))),
            (r"glpat\-[0-9a-zA-Z_\-]{20}", Some(("glpat-", true))),
            ("abcd?e", Some(("abc", true))),
            ("ab?c", None),
            ("abc+d", Some(("abc", true))),
            ("acme_x|other_y", None),
            ("(acme|other)_[a-z]{8}", None),
            ("[a-z]{40}", None),
            ("ab", None),
            ("key-[0-9]{4}", Some(("key-", true))),
        ];
        for (pattern, expected) in cases {
            let got = leading_literal(pattern);
            let want = expected.map(|(l, e): (&str, bool)| (l.as_bytes().to_vec(), e));
            assert_eq!(got, want, "{pattern}");
        }
    }

    #[test]
    fn a_bad_pattern_names_the_rule_and_the_position() {
        let cases = [("(abc", 0), ("abc[", 3), ("*ab", 0), (r"x\qy", 2), ("a{2,1}", 5)];
        for (pattern, position) in cases {
            let e = CustomRule::new("mine", pattern).expect_err(pattern);
            assert_eq!(e.position, Some(position), "{pattern}: {e}");
            assert!(
                e.to_string().starts_with(&format!("rule \"mine\": bad pattern at position {position}")),
                "{e}"
            );
        }
        assert!(CustomRule::new("empty", "a*").is_err(), "a pattern that matches nothing everywhere");
        assert!(CustomRule::new("", "abc").is_err());
    }

    #[test]
    fn unbounded_patterns_are_told_apart() {
        for p in ["a.*b", "a+", "x{2,}", r"a\d+"] {
            assert!(is_unbounded(p), "{p}");
        }
        for p in ["a{2,5}b", "[*+]{3}", r"a\*b", "glpat-[0-9a-z]{20}"] {
            assert!(!is_unbounded(p), "{p}");
        }
    }

    #[test]
    fn matches_are_found_in_one_pass_from_a_position() {
        let rule = CustomRule::new("acme", "acme_[a-z0-9]{8}").expect("rule");
        let mut out = Vec::new();
        rule.find_all("x acme_abcd1234 acme_short acme_00000000", 2, &mut out);
        assert_eq!(out, vec![(2, 15), (27, 40)]);
    }
}
