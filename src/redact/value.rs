//! looksLikeCode and friends (spec §5 rule 3): whether the value given to a
//! secret's name stays. Code, numbers, placeholders and templates stay; so
//! do words under names of machine-made credentials. A literal that looks
//! made by a person or a machine goes.

use super::formats::has_sequence;
use super::names::NameClass;

pub fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$'
}

pub fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$'
}

/// `a.b.c`, `getToken()`, `await getToken()`, `z.string().min(8)`,
/// `request.headers["apikey"]`, `Option<String>`, `string[]`: an expression,
/// not data.
pub fn is_code_expression(v: &[u8]) -> bool {
    let mut v = v;
    for kw in [&b"await "[..], b"new ", b"typeof "] {
        if let Some(rest) = v.strip_prefix(kw) {
            v = rest;
        }
    }
    let mut i = 0;
    let mut parts = 0;
    let mut punctuation = false;
    while i < v.len() {
        if !is_ident_start(v[i]) {
            return false;
        }
        while i < v.len() && is_ident(v[i]) {
            i += 1;
        }
        parts += 1;
        // Calls, indexing and generics, balanced.
        while i < v.len() && matches!(v[i], b'(' | b'[' | b'<') {
            let (open, close) = match v[i] {
                b'(' => (b'(', b')'),
                b'[' => (b'[', b']'),
                _ => (b'<', b'>'),
            };
            let mut depth = 0;
            let start = i;
            while i < v.len() {
                if v[i] == open {
                    depth += 1;
                } else if v[i] == close {
                    depth -= 1;
                    if depth == 0 {
                        break;
                    }
                }
                i += 1;
            }
            if i - start > 256 {
                return false;
            }
            if i >= v.len() {
                // `Field(` at the end of a line: a call whose arguments
                // follow on the next lines (`discord_bot_token: str = Field(`).
                return open == b'(' && start + 1 == v.len();
            }
            i += 1;
            punctuation = true;
        }
        if i >= v.len() {
            break;
        }
        match v[i] {
            b'.' => i += 1,
            b'?' if v.get(i + 1) == Some(&b'.') => i += 2,
            b':' if v.get(i + 1) == Some(&b':') => i += 2,
            // `options.token!` (a non-null assertion); `Winter2024!` is no call.
            b'!' if i + 1 == v.len() && (punctuation || parts > 1) => i += 1,
            _ => return false,
        }
        punctuation = true;
    }
    parts > 0 && (punctuation || parts > 1)
}

/// A path of names made of words, as people write them (`errors.notFound`,
/// `settings.DEFAULT_URL`): each part (between `.`, `_` and `-`) lower case
/// (`not`), capitalised (`Found`), an acronym of two to five letters
/// (`HTTP`), these run together in camel case (`notFound`, `HTTPServer`,
/// `iPhone`), or all capitals (`DEFAULT`); a run of four letters of one case
/// or more has a vowel. A made string breaks one of these by chance in most
/// places: a lone capital between others (`ZJuoY`), a long run of capitals
/// (`kaTLMYWS`), lower case no one speaks (`Ifzzq`), letter pairs words do
/// not hold (`KSNWRnYPWgHwmgKN`: see `has_made_pairs`). A path has no empty
/// step (`COSqgNlNMJayr...` is no path).
#[inline(never)]
pub fn is_word_path(v: &[u8]) -> bool {
    v.split(|&b| b == b'.')
        .all(|step| !step.is_empty() && step.split(|&b| matches!(b, b'_' | b'-')).all(is_word_part))
}

/// Letter pairs that words, in English and in code, almost never hold: row
/// `a`, bit `b` is the pair `ab`. These are the pairs found in at most five
/// of the distinct words (seen twice or more) of the peers' transcripts in
/// `../shared/peers`, less 45 pairs of everyday words those transcripts
/// happen to lack (`jazz`, `linux`, `xml`, `www`, `ctx`): 221 pairs, where a
/// random letter pair is one of them a third of the time.
const RARE_PAIRS: [u32; 26] = [
    66048, 48342176, 48300608, 46203392, 0, 48338562, 48301600, 48301668, 512, 65748718, 48337542, 33620480,
    48301760, 42008576, 33619968, 48301568, 66058238, 42009216, 8454656, 66048, 56689152, 65777326, 61937254,
    41101034, 10553056, 33537774,
];

/// Made letters, not words: eight letters or more with two rare pairs inside
/// their words (pairs across a camel-case step, `dT` in `addTitle`, do not
/// count). Of the peers' distinct words of 8 to 24 letters, 162 of 8,134
/// have two, most of them random text themselves (12 of the 6,485 seen twice
/// or more: `TIOCGWINSZ`, `MathSqrt`); of 16 random letters, 83% (mixed case)
/// to 94% (one case). One rare pair is a name (`Backward`, `mdHeading`).
fn has_made_pairs(part: &[u8]) -> bool {
    if part.len() < 8 {
        return false;
    }
    let mut rare = 0;
    for i in 1..part.len() {
        let (a, b) = (part[i - 1], part[i]);
        if !a.is_ascii_alphabetic() || !b.is_ascii_alphabetic() {
            continue;
        }
        // A camel-case step: `tT` in `getToken`, `PS` in `HTTPServer`.
        let step = a.is_ascii_lowercase() && b.is_ascii_uppercase()
            || a.is_ascii_uppercase()
                && b.is_ascii_uppercase()
                && part.get(i + 1).is_some_and(u8::is_ascii_lowercase);
        let (a, b) = (a.to_ascii_lowercase() - b'a', b.to_ascii_lowercase() - b'a');
        if !step && RARE_PAIRS[usize::from(a)] >> b & 1 == 1 {
            rare += 1;
        }
    }
    rare >= 2
}

/// Letters no one writes as a word: two rare pairs (`has_made_pairs`), or
/// case that flips at each of six letters (`YuXxEs`; in the peers'
/// transcripts only random ids do, `msg_01…`).
fn is_made_letters(part: &[u8]) -> bool {
    let flips = |w: &[u8]| {
        w.iter().all(u8::is_ascii_alphabetic)
            && w.windows(2).all(|p| p[0].is_ascii_uppercase() != p[1].is_ascii_uppercase())
    };
    has_made_pairs(part) || part.windows(6).any(flips)
}

fn is_word_part(part: &[u8]) -> bool {
    if is_made_letters(part) {
        return false;
    }
    let vowel = |run: &[u8]| run.len() < 4 || run.iter().any(|b| b"aeiouyAEIOUY".contains(b));
    if part.iter().all(u8::is_ascii_uppercase) {
        // SCREAMING_CASE: a word in capitals (`DEFAULT`).
        return vowel(part);
    }
    let mut i = 0;
    while i < part.len() {
        // A run of capitals (none at the start of `notFound`), then lower case.
        let caps = i;
        while i < part.len() && part[i].is_ascii_uppercase() {
            i += 1;
        }
        let low = i;
        while i < part.len() && part[i].is_ascii_lowercase() {
            i += 1;
        }
        if i == low && i == caps {
            return false; // a digit or a symbol
        }
        // Before lower case the run's last capital starts a word
        // (HTTPServer: HTTP, Server): what is left is an acronym; at the
        // end the whole run is.
        let acronym = if i > low { low - caps - usize::from(low > caps) } else { low - caps };
        if acronym == 1 || acronym > 5 || !vowel(&part[low..i]) {
            return false;
        }
    }
    true
}

/// Placeholders: `<your-key>`, `***`, `xxxx`, `your_api_key_here`.
fn is_placeholder(v: &[u8]) -> bool {
    if v.len() >= 2 && v[0] == b'<' && v[v.len() - 1] == b'>' {
        return true;
    }
    let mut chars = v.iter().filter(|b| !matches!(b, b'-' | b'_' | b'.' | b' '));
    if let Some(first) = chars.next() {
        if chars.all(|b| b.eq_ignore_ascii_case(first)) {
            return true;
        }
    }
    let lower = v.to_ascii_lowercase();
    let has = |w: &[u8]| lower.windows(w.len()).any(|x| x == w);
    has(b"your") && (has(b"key") || has(b"token") || has(b"secret") || has(b"password"))
        || [&b"changeme"[..], b"example", b"dummy", b"redacted", b"none", b"nil", b"undefined"]
            .contains(&&lower[..])
}

/// Template references: `${X}`, `$X`, `{{ x }}`, `%X%`, `{x}`, `$(cmd)`.
fn is_template(v: &[u8]) -> bool {
    // `\${{ secrets.X }}`: a template written inside another one.
    let v = v.strip_prefix(b"\\").filter(|r| r.first() == Some(&b'$')).unwrap_or(v);
    let n = v.len();
    // A template literal that interpolates (`~${pwd.slice(home.length)}`):
    // `${` then a balanced expression and `}`.
    if let Some(i) = v.windows(2).position(|w| w == b"${") {
        let mut depth = 0i32;
        for &b in &v[i + 2..] {
            match b {
                b'(' | b'[' => depth += 1,
                b')' | b']' => {
                    depth -= 1;
                    if depth < 0 {
                        break;
                    }
                }
                b'}' if depth == 0 => return true,
                b'{' | b'#' | b'\n' | b'$' => break,
                _ => {}
            }
        }
    }
    (v.starts_with(b"${") || v.starts_with(b"{{") || v.starts_with(b"$(") || v.starts_with(b"#{"))
        || (v.first() == Some(&b'$') && v.len() > 1 && v[1..].iter().all(|&c| is_ident(c)))
        || (n >= 3 && v[0] == b'%' && v[n - 1] == b'%')
        || (n >= 2 && v[0] == b'{' && v[n - 1] == b'}')
}

fn is_number(v: &[u8]) -> bool {
    let digits = v.strip_prefix(b"-").unwrap_or(v);
    !digits.is_empty() && digits.iter().all(|b| b.is_ascii_digit() || *b == b'.') && digits[0] != b'.'
}

/// A word that may end in digits (`OAUTH2`, `HankelH1`, `v2`), or digits.
pub(super) fn is_word_then_digits(w: &[u8]) -> bool {
    let letters = w.iter().position(u8::is_ascii_digit).unwrap_or(w.len());
    w[letters..].iter().all(u8::is_ascii_digit)
        && w[..letters].iter().all(u8::is_ascii_alphabetic)
        && is_word_part(&w[..letters])
}

/// The values of JavaScript's keywords: `void 0`'s `void`, `null`, ...
pub fn is_keyword_value(v: &[u8]) -> bool {
    [&b"void"[..], b"null", b"undefined", b"true", b"false"].contains(&v)
}

/// A minifier's name: three identifier characters at most (`dI0`, `Z1`).
pub fn is_minified_name(v: &[u8]) -> bool {
    !v.is_empty() && v.len() < 4 && is_ident_start(v[0]) && v.iter().all(|&b| is_ident(b))
}

/// Words and numbers between blanks, with a sentence's punctuation.
fn is_sentence(v: &[u8]) -> bool {
    v.split(|&b| b == b' ').filter(|w| !w.is_empty()).all(|w| {
        let w = w
            .strip_suffix(b".")
            .or_else(|| w.strip_suffix(b","))
            .or_else(|| w.strip_suffix(b":"))
            .unwrap_or(w);
        let w = w.strip_suffix(b"?").or_else(|| w.strip_suffix(b"!")).unwrap_or(w);
        w.is_empty()
            || w.iter().all(u8::is_ascii_digit)
            || w.iter().all(u8::is_ascii_alphabetic) && is_word_part(w)
    })
}

/// Words that make a plain-word value a stand-in, not a credential:
/// `test-key`, `my-token`, `dummy_secret`.
fn is_stand_in_word(w: &[u8]) -> bool {
    matches!(w, b"test" | b"my" | b"your" | b"fake" | b"dummy" | b"example" | b"sample" | b"mock" | b"demo")
}

/// A stand-in (`test-key`, `my_api_token`, `sk-test-1234`): a stand-in word,
/// and every other run of letters or digits a number or a word as people
/// write it. A made value with `_MY` or `test` somewhere in it is not one
/// (`ogqxmYrwRmghh_MY`).
fn is_stand_in(v: &[u8]) -> bool {
    let mut runs = v.split(|b| !b.is_ascii_alphanumeric()).filter(|w| !w.is_empty());
    let mut any = false;
    let all = runs.all(|w| {
        let stand_in = is_stand_in_word(&w.to_ascii_lowercase());
        any |= stand_in;
        stand_in || w.iter().all(u8::is_ascii_digit) || is_word_part(w)
    });
    any && all
}

/// Words in a value that say it is (or names) a secret: `real_secret`.
fn is_secret_ish_word(w: &[u8]) -> bool {
    matches!(w, b"secret" | b"password" | b"passwd" | b"token" | b"key" | b"credential" | b"pass")
}

/// An environment variable's name (`GEMINI_API_KEY`, `OAUTH2_TOKEN`,
/// `K8S_TOKEN`): words in capitals joined by single `_`s. A word may end in
/// digits; only a short one (an acronym) has digits inside. A name, not its
/// value: a made value in capitals and digits (`EHP_3QUTNQ0JCFT5`,
/// `RADMK7US7RMJPXE_`) has digits where no name does.
fn is_env_name(v: &[u8]) -> bool {
    let word = |w: &[u8]| {
        w.first().is_some_and(u8::is_ascii_uppercase)
            && w.iter().all(|&b| b.is_ascii_uppercase() || b.is_ascii_digit())
            && (w.len() <= 5 || is_word_then_digits(w))
    };
    v.contains(&b'_')
        && v.split(|&b| b == b'_')
            .enumerate()
            .all(|(i, w)| word(w) || i > 0 && !w.is_empty() && w.iter().all(u8::is_ascii_digit))
}

/// Plain words, not a made credential: letters joined by `-`, `_`, `.` or
/// blanks, with no digit; one case throughout (`proxy-handled`, `ollama`,
/// `REDACTED_API_KEY`), or shorter than 24 with each word written as people
/// write words (`apiKey`, `OpenAI`: see `is_word_path`). Machine-made keys
/// and tokens mix cases and digits; one without a digit mixes cases where no
/// word does (`ogqxmYrwRmghh_MY`).
fn is_plain_words(v: &[u8]) -> bool {
    if !v.iter().all(|&b| b.is_ascii_alphabetic() || matches!(b, b'-' | b'_' | b'.' | b' ')) {
        return false;
    }
    let upper = v.iter().any(u8::is_ascii_uppercase);
    let lower = v.iter().any(u8::is_ascii_lowercase);
    if upper && lower {
        v.len() < 24 && v.split(|&b| b == b' ').all(is_word_path)
    } else {
        v.split(|&b| matches!(b, b'-' | b'_' | b'.' | b' ')).all(|w| !has_made_pairs(w))
    }
}

fn words(v: &[u8]) -> impl Iterator<Item = Vec<u8>> + '_ {
    v.split(|b| !b.is_ascii_alphanumeric()).filter(|w| !w.is_empty()).map(|w| w.to_ascii_lowercase())
}

/// A pattern or a described shape, not a value: `sk-[alphanumeric]{20,}`,
/// `[base64].[base64]`, `[trimmed for fixture]`.
fn is_pattern(v: &[u8]) -> bool {
    let bracketed_word = v.windows(2).enumerate().any(|(i, w)| {
        w[0] == b'[' && w[1].is_ascii_lowercase() && {
            let rest = &v[i + 1..];
            let end = rest.iter().position(|&b| b == b']');
            end.is_some_and(|e| {
                e >= 3 && rest[..e].iter().all(|&b| b.is_ascii_lowercase() || b"-_ ".contains(&b))
            })
        }
    });
    let quantifier = v.windows(2).enumerate().any(|(i, w)| {
        w[0] == b'{' && w[1].is_ascii_digit() && {
            let rest = &v[i + 1..];
            let end = rest.iter().position(|&b| b == b'}');
            end.is_some_and(|e| rest[..e].iter().all(|&b| b.is_ascii_digit() || b == b','))
        }
    });
    bracketed_word || quantifier
}

/// A value shown in part: `sk-ant-...`, `gsk_…`, `sk-ant-api03-...`, `AIza...`,
/// or a bare prefix `sk-ant-`. What is shown is a vendor's prefix: short
/// steps between `-` and `_`, in lower case and digits or of four characters
/// at most. Twelve made characters and an ellipsis (`kxSXAN-0+gtA8...`,
/// `LhSXLK_5CtSIt...`) are most of a secret.
fn is_elided(v: &[u8]) -> bool {
    let shown = v.strip_suffix(b"...").or_else(|| v.strip_suffix("…".as_bytes()));
    let prefix = |p: &[u8]| {
        p.split(|&b| matches!(b, b'-' | b'_')).all(|w| {
            w.len() <= 4 && w.iter().all(u8::is_ascii_alphanumeric)
                || w.len() <= 6 && w.iter().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
    };
    shown.is_some_and(prefix) || (v.len() <= 12 && matches!(v.last(), Some(b'-' | b'_')))
}

/// An array literal whose every element stays: `['GEMINI_API_KEY',
/// 'GOOGLE_API_KEY']` (env var names), `[]`, `[a, b]`.
fn is_kept_array(v: &[u8], class: NameClass) -> bool {
    let Some(inner) = v.strip_prefix(b"[").and_then(|i| i.strip_suffix(b"]")) else { return false };
    // Items split at the commas outside brackets (`[!0,(Z)=>f(0,Z)]`).
    let mut depth = 0i32;
    let items = inner.split(|&b| {
        depth += i32::from(matches!(b, b'(' | b'[' | b'{')) - i32::from(matches!(b, b')' | b']' | b'}'));
        b == b',' && depth == 0
    });
    items.into_iter().all(|item| {
        let item = item.trim_ascii();
        match item.first() {
            None => true,
            Some(q @ (b'"' | b'\'')) if item.len() >= 2 && item.last() == Some(q) => {
                keeps_value(&item[1..item.len() - 1], true, class)
            }
            _ => keeps_value(item, false, class),
        }
    })
}

/// The length of a passphrase of words at the start of `rest` (the rest of
/// a line after `passphrase:` or `GPG_PASSPHRASE=`): three to eight lowercase
/// words, one blank between, to the line's end, none of them a word prose
/// is made of (`correct horse battery staple`, diceware's shape; not
/// `must be at least twelve letters`, not `see the vault`). A bare value
/// is one word, so the words after the first leaked.
pub fn passphrase_len(rest: &[u8]) -> Option<usize> {
    let line = rest.trim_ascii_end();
    let prose = [
        &b"a"[..],
        b"an",
        b"and",
        b"are",
        b"as",
        b"at",
        b"be",
        b"by",
        b"can",
        b"for",
        b"from",
        b"if",
        b"in",
        b"is",
        b"it",
        b"its",
        b"may",
        b"must",
        b"no",
        b"not",
        b"of",
        b"on",
        b"or",
        b"see",
        b"set",
        b"should",
        b"the",
        b"this",
        b"to",
        b"use",
        b"used",
        b"will",
        b"with",
        b"your",
        b"you",
        b"required",
        b"optional",
    ];
    let mut n = 0;
    for w in line.split(|&b| b == b' ') {
        n += 1;
        if n > 8 || w.is_empty() || !w.iter().all(u8::is_ascii_lowercase) || prose.contains(&w) {
            return None;
        }
    }
    (n >= 3).then_some(line.len())
}

/// A Rust array type after a name's colon, as rustfmt writes it: `key:
/// [u8; 32]`, `static TOKEN_MAP: [bool; 256]` (httparse), `[&str; N]`.
/// An element type and a length, not a value.
fn is_array_type(v: &[u8]) -> bool {
    let Some(inner) = v.strip_prefix(b"[").and_then(|v| v.strip_suffix(b"]")) else { return false };
    let Some(semi) = inner.windows(2).position(|w| w == b"; ") else { return false };
    let (elem, len) = (&inner[..semi], &inner[semi + 2..]);
    elem.first().is_some_and(|&b| b.is_ascii_alphabetic() || b == b'&')
        && elem.iter().all(|&b| b.is_ascii_alphanumeric() || b"_&':<>, ".contains(&b))
        && !len.is_empty()
        && (len.iter().all(u8::is_ascii_digit) || len.iter().all(|&b| b.is_ascii_uppercase() || b == b'_'))
}

/// looksLikeCode and friends: true when the value stays.
pub fn keeps_value(v: &[u8], quoted: bool, class: NameClass) -> bool {
    let v = v.trim_ascii();
    if v.is_empty() || !v.iter().any(u8::is_ascii_alphanumeric) {
        return true;
    }
    let lower = v.to_ascii_lowercase();
    if lower.windows(8).any(|w| w == b"redacted") {
        // `[REDACTED]`, `REDACTED_API_KEY`: what a redactor left.
        return true;
    }
    if [&b"true"[..], b"false", b"null"].contains(&&lower[..]) {
        return true;
    }
    if is_number(v) {
        let digits = v.iter().filter(|b| b.is_ascii_digit()).count();
        return !(class.numeric && digits >= 4);
    }
    if is_placeholder(v) || is_template(v) || has_sequence(v) || is_pattern(v) || is_elided(v) {
        return true;
    }
    if v.starts_with(b"http://") || v.starts_with(b"https://") || v.starts_with(b"/") || v.starts_with(b"./")
    {
        // An endpoint or a path (credentials inside a URL have their own rule).
        return true;
    }
    if is_stand_in(v) {
        return true;
    }
    // `TOKEN: "Token"`, `{ key: "key" }`: the value names what goes there;
    // `AWS_SECRET_KEY: "AWS_SECRET_KEY"` names a variable; `typeof
    // A.SecretAccessKey === "string"` names a type.
    let type_name =
        [&b"string"[..], b"number", b"boolean", b"object", b"function", b"undefined", b"symbol", b"bigint"];
    let names_secret = || words(v).any(|w| is_secret_ish_word(&w));
    if !class.human && is_secret_ish_word(&lower)
        || is_env_name(v) && (names_secret() || !class.human && !v.iter().any(u8::is_ascii_digit))
        || type_name.contains(&v)
        || is_array_type(v)
    {
        return true;
    }
    // `"No issue time in token: "+JSON.stringify(C)`: the quote after the
    // name closes a string, and what follows is code.
    if quoted && v.first() == Some(&b'+') && v.get(1).copied().is_some_and(is_ident_start) {
        return true;
    }
    // A sentence under a machine credential's name (a message, a
    // description): three words or more, each one a word or a number.
    if quoted && !class.human && v.iter().filter(|&&b| b == b' ').count() >= 2 && is_sentence(v) {
        return true;
    }
    // Plain words under the name of a machine-made credential: an enum value,
    // a mode, a stand-in (`apiKey: 'proxy-handled'`, `{ key: 'completed' }`).
    // Not under a password's name, and not when the words name a secret
    // (`some_key = "real_secret"`).
    if !class.human && is_plain_words(v) && (is_env_name(v) || !words(v).any(|w| is_secret_ish_word(&w))) {
        return true;
    }
    if class.generic_key && !looks_made(v) && !words(v).any(|w| is_secret_ish_word(&w)) {
        // `key` alone is weak: only a value that looks made by a machine goes.
        return true;
    }
    if quoted {
        // A string literal is data, unless it is a dotted path like
        // "errors.notFound" (an i18n key, a config path): names made of
        // words. A made value with a dot (`"EI_ZJuoY.fRsOJFX"`) is one too,
        // by shape, and is no path of words.
        return v.len() < 4
            || (v.contains(&b'.')
                && is_code_expression(v)
                && !v.iter().any(u8::is_ascii_digit)
                && is_word_path(v));
    }
    // Code: a parenthesised expression or a cast (`(env.X as 'sso' | 'jwt')`),
    // an array of names, an expression.
    // Code names things in words; a name in made letters
    // (`api_key=JBnkzGrLjuQqYyMR`, `po.KJWAjhjCbEtkA`) is a value.
    if v.split(|&b| !b.is_ascii_alphabetic()).any(is_made_letters) {
        return false;
    }
    // An object literal or a block (`password:{get:function(){…`, whose own
    // names are judged where they stand), a function, a statement after a
    // `case X:` label, a chained assignment (`a.Key=a.Token=void 0`).
    let statement = [&b"function"[..], b"if(", b"for(", b"while(", b"switch(", b"return", b"throw"];
    // Each step of a chain is a member, a minifier's name or a keyword
    // (`af2.CancellationToken=f11={}`, `a.Key=a.Token=void`); the last may
    // be an object or a call.
    let last_opens =
        v.rsplit(|&b| b == b'=').next().is_some_and(|l| matches!(l.first(), Some(b'{' | b'(' | b'[')));
    let chained = v.contains(&b'=') && (v.contains(&b'.') || last_opens) && {
        let steps = v.split(|&b| b == b'=').count();
        v.split(|&b| b == b'=').enumerate().all(|(i, step)| {
            is_code_expression(step)
                || is_minified_name(step)
                || is_keyword_value(step)
                || i + 1 == steps && matches!(step.first(), Some(b'{' | b'(' | b'['))
        })
    };
    // `!!G.withCredentials`, `!0`: a negation; `mQ!=null?mQ:null`: a
    // comparison of code with code.
    let negated = v.iter().take_while(|&&b| b == b'!').count();
    if negated > 0 && negated < v.len() && keeps_value(&v[negated..], false, class) {
        return true;
    }
    let compared = v.windows(2).position(|w| w == b"==" || w == b"!=").is_some_and(|p| {
        let left = &v[..p];
        let right = v[p + 2..].strip_prefix(b"=").unwrap_or(&v[p + 2..]);
        !left.is_empty()
            && (is_code_expression(left) || is_minified_name(left))
            && right.first().is_some_and(|&b| is_ident_start(b) || b.is_ascii_digit() || b == b'"')
    });
    let v_ternary = v.strip_suffix(b"?").unwrap_or(v);
    if compared || is_code_expression(v_ternary) && v_ternary.len() < v.len() {
        return true;
    }
    if matches!(v[0], b'(' | b'{')
        || statement.iter().any(|s| v.starts_with(s))
        || chained
        || is_kept_array(v, class)
        || is_code_expression(v)
    {
        return true;
    }
    // A bare identifier without digits is a variable (`accessToken`, `K`,
    // `string`, a nullable `String?`); with digits (`hunter2`,
    // `CLOJARS_34bf…`) it is a value, unless it is three characters at most:
    // a minifier's name (`CancelToken=dI0`).
    let v = v.strip_suffix(b"?").or_else(|| v.strip_suffix(b"!")).unwrap_or(v);
    if !v.is_empty() && v.iter().all(|&c| is_ident(c)) && is_ident_start(v[0]) {
        let name = v.strip_prefix(b"$").unwrap_or(v);
        return is_minified_name(v) || !v.iter().any(u8::is_ascii_digit) && is_word_path(name);
    }
    v.len() < 4
}

/// A path (`/run/secrets/db`, `./key.pem`, `~/.ssh/id_ed25519`): a file
/// named under a credential's name, not the credential.
fn is_path(v: &[u8]) -> bool {
    let rest = if let Some(r) = v.strip_prefix(b"./").or_else(|| v.strip_prefix(b"~/")) {
        r
    } else if let Some(r) = v.strip_prefix(b"/") {
        r
    } else {
        return false;
    };
    !rest.is_empty()
        && rest.iter().all(|&b| b.is_ascii_alphanumeric() || b"._-/".contains(&b))
        && (rest.contains(&b'/') || rest.contains(&b'.'))
}

/// Whether a value in a data context (a dotenv line, YAML, JSON, a header,
/// URL userinfo, a credential flag) stays: there a value is a literal, so
/// only what cannot be one stays: nothing, references (`$X`, `${X}`,
/// `$(cmd)`, `{{ x }}`), placeholders and elisions (`<your-key>`, `***`,
/// `sk-ant-...`), what a redactor left, booleans, short numbers (or any
/// number under a name that takes none), paths and URLs, and, under a
/// machine credential's name, an env var's name or a stand-in (`test-key`).
/// A bare `key` still needs a machine-made value.
pub fn keeps_literal(v: &[u8], class: NameClass) -> bool {
    let v = v.trim_ascii();
    if v.is_empty() || !v.iter().any(u8::is_ascii_alphanumeric) {
        return true;
    }
    let lower = v.to_ascii_lowercase();
    if lower.windows(8).any(|w| w == b"redacted") {
        return true;
    }
    if [&b"true"[..], b"false", b"null", b"~", b"yes", b"no"].contains(&&lower[..]) {
        return true;
    }
    if is_number(v) {
        let digits = v.iter().filter(|b| b.is_ascii_digit()).count();
        return !(class.numeric && digits >= 4);
    }
    if is_placeholder(v) || is_template(v) || is_pattern(v) || is_elided(v) || has_sequence(v) || is_path(v) {
        return true;
    }
    if v.starts_with(b"http://") || v.starts_with(b"https://") {
        return true;
    }
    // `--api-key key`, `API_TOKEN=token`: the value names what goes there.
    if v.len() <= 12 && is_secret_ish_word(&lower)
        || [&b"apikey"[..], b"api-key", b"api_key"].contains(&&lower[..])
    {
        return true;
    }
    // Stand-ins are plain words (`test-key`, `my-token`); a random value
    // with a `my` between its symbols is not one.
    let plain = v.iter().all(|&b| b.is_ascii_alphabetic() || matches!(b, b'-' | b'_' | b'.'));
    if !class.human && (is_env_name(v) || plain && is_stand_in(v)) {
        return true;
    }
    class.generic_key && !looks_made(v) && !words(v).any(|w| is_secret_ish_word(&w))
}

/// Looks made by a machine, for the weak name `key`: 16 characters or more
/// with no blank, or 8 or more mixing letters and digits with no separator
/// (`v2:stage0key` and `ABC-1234` are identifiers, not keys).
pub fn looks_made(v: &[u8]) -> bool {
    // Words and numbers (`sonnet-4.5-update`, `claude-opus-4-1`): a name.
    let words = v
        .split(|&b| matches!(b, b'.' | b'-' | b'_' | b'/' | b':'))
        .all(|w| !w.is_empty() && is_word_then_digits(w));
    if v.iter().any(u8::is_ascii_whitespace) || words {
        return false;
    }
    let digits = v.iter().any(u8::is_ascii_digit);
    let letters = v.iter().any(u8::is_ascii_alphabetic);
    v.len() >= 16
        || (v.len() >= 8
            && digits
            && letters
            && v.iter().all(|&b| b.is_ascii_alphanumeric() || b"+/=".contains(&b)))
}

#[cfg(test)]
#[path = "value_tests.rs"]
mod tests;
