//! Rule 3 in a sentence: `my password is hunter2`, `the passphrase is
//! correct horse battery staple`, `Das Passwort ist Zq8v…`. A person tells
//! the agent a login the way they would tell a colleague, and no operator
//! stands between the name and the value; the verb does. Sentences also
//! say what a password is like (`the password is required`, `is too
//! short`, `is stored in the keychain`), so a value here is taken only when
//! it is no word as people write it: it has a digit or a symbol, or it is
//! quoted. A password that is one plain word (`letmein`) still reads as
//! prose and stays. What the password is for may come before the verb
//! (`the password for admin is v`), auxiliaries before it (`the password
//! should be v`, `was set to v`), and after `password` a made value may
//! follow with no verb at all (`log in with password Zq8vLm2pXr`).
#![forbid(unsafe_code)]

use super::assign::{value_at, MAX_VALUE};
use super::context::{line_end, skip_blanks};
use super::names::{is_passphrase, NameClass};
use super::value::{is_word_path, is_word_then_digits, keeps_value, passphrase_len};

/// The verbs that join a name to its value, in the languages whose
/// password words the Redactor knows: English, German (`ist`, `lautet`),
/// French (`est`), Spanish (`es`), Portuguese (`é`), Italian (`è`),
/// Swedish (`är`), Danish and Norwegian (`er`). Dutch says `is`. A person
/// also sets a password to a value (`set the password to hunter2`; Polish
/// `hasło to v` says the same), and a dash stands for the verb
/// (`пароль — v`, `password - v`).
const VERBS: [&str; 14] =
    ["is", "was", "ist", "lautet", "est", "es", "é", "è", "är", "er", "to", "-", "–", "—"];

/// Whether a verb of `VERBS`, a word of `QUALIFIERS` or an auxiliary
/// may start with the byte `b`: the test asked of every name the
/// prefilter finds with no operator after it, before `verb` (`é`, `è` and
/// `är` start with 0xC3, which folds to 0xE3; the dashes with 0xE2).
#[inline]
pub fn may_start_verb(b: u8) -> bool {
    matches!(
        b | 0x20,
        b'i' | b'w'
            | b'l'
            | b'e'
            | b't'
            | b'f'
            | b'o'
            | b'p'
            | b's'
            | b'm'
            | b'c'
            | b'h'
            | b'b'
            | b'n'
            | b'-'
            | 0xE2
            | 0xE3
    )
}

/// Whether `w` may stand before the verb: `the password should be v`,
/// `will be v`, `has been v`, `was set to v`, `password changed to v`,
/// `is now v`. After these `be`, `been` and `now` end the verb too. (A
/// match, not a list: this runs at every name with a blank and a word
/// after it.)
fn is_auxiliary(w: &[u8]) -> bool {
    let mut lower = [0u8; 7];
    if w.len() < 2 || w.len() > lower.len() {
        return false;
    }
    for (l, b) in lower.iter_mut().zip(w) {
        *l = b.to_ascii_lowercase();
    }
    matches!(
        &lower[..w.len()],
        b"should"
            | b"will"
            | b"would"
            | b"must"
            | b"can"
            | b"could"
            | b"has"
            | b"have"
            | b"had"
            | b"was"
            | b"is"
            | b"been"
            | b"be"
            | b"set"
            | b"changed"
            | b"now"
    )
}

/// Values a sentence converts a secret to, not secrets: `hash the
/// password to sha256`, `encode the key to base64`. (One string, not an
/// array: a loop over a constant array of them was unrolled, 640 bytes
/// more gzipped.)
const FORMS: &str = "base64 base32 utf8 utf-8 utf16 sha1 sha256 sha512 md5 argon2 argon2id pbkdf2";

/// The length of the verb at the start of `rest` with the blank after it
/// (and a colon: `the password is: v`), if one is there. What a password
/// is for may stand between its name and the verb: `the password for admin
/// is v`, `password for root: v`, `Das Passwort für den Server ist v`, `set
/// the password for admin to v`.
pub fn verb(rest: &[u8]) -> Option<usize> {
    let n = rest.iter().take(5).position(|&b| b == b' ');
    if let Some(n) = n.filter(|&n| QUALIFIERS.iter().any(|q| rest[..n].eq_ignore_ascii_case(q.as_bytes()))) {
        if let Some(k) = qualified(&rest[n + 1..]) {
            return Some(n + 1 + k);
        }
    }
    verb_phrase(rest)
}

/// A verb of `VERBS`, or auxiliaries and then one (`should be`, `was set
/// to`): its length with the blank after it.
fn verb_phrase(rest: &[u8]) -> Option<usize> {
    auxiliaries(rest, 0).or_else(|| plain_verb(rest))
}

/// Up to three auxiliaries (`is_auxiliary`), then a verb (or `be`,
/// `been`, `now`): the longest such phrase (`has been changed to`, not
/// `has been`).
fn auxiliaries(rest: &[u8], depth: u8) -> Option<usize> {
    let n = rest.iter().take(8).position(|&b| b == b' ')?;
    if !is_auxiliary(&rest[..n]) {
        return None;
    }
    let next = &rest[n + 1..];
    let longer = if depth < 2 { auxiliaries(next, depth + 1) } else { None };
    let end = longer.or_else(|| plain_verb(next)).or_else(|| {
        let w = next.iter().take(5).position(|&b| b == b' ')?;
        ["be", "been", "now"].iter().any(|t| next[..w].eq_ignore_ascii_case(t.as_bytes())).then_some(w + 1)
    });
    end.map(|k| n + 1 + k)
}

/// The words that say what a password is for (`to` is a verb too: `set the
/// password to v`).
const QUALIFIERS: [&str; 6] = ["for", "of", "to", "für", "pour", "para"];

/// Past the colon or the verb after at most four words (`admin`, `the
/// staging db`, `root@db1`), if one comes.
fn qualified(rest: &[u8]) -> Option<usize> {
    let mut i = 0;
    for _ in 0..4 {
        let word =
            rest[i..].iter().take(64).take_while(|b| b.is_ascii_alphanumeric() || b"_.@/-`'".contains(b));
        let w = word.count();
        if w == 0 {
            return None;
        }
        i += w;
        match rest.get(i..i + 2) {
            Some(b": ") => return Some(i + 2),
            Some([b' ', _]) => {
                i += 1;
                if let Some(n) = verb_phrase(&rest[i..]) {
                    return Some(i + n);
                }
            }
            _ => return None,
        }
    }
    None
}

/// The length of a verb of `VERBS` at the start of `rest` with the blank
/// after it (and a colon: `the password is: v`).
fn plain_verb(rest: &[u8]) -> Option<usize> {
    // The word's length first: most words after a name are no verb, and
    // longer than any.
    let n = rest.iter().take(7).position(|&b| b == b' ' || b == b':')?;
    if !VERBS.iter().any(|v| v.len() == n && rest[..n].eq_ignore_ascii_case(v.as_bytes())) {
        return None;
    }
    Some(if rest[n] == b':' && rest.get(n + 1) == Some(&b' ') { n + 2 } else { n + 1 })
}

/// The value after the verb (which ends at `after`) of the secret's name
/// `text[start..end]`, if it is one.
pub fn value(
    text: &[u8],
    (start, end): (usize, usize),
    after: usize,
    class: NameClass,
) -> Option<(usize, usize)> {
    let v = skip_blanks(text, after);
    if is_passphrase(&text[start..end]) {
        if let Some(len) = passphrase_len(&text[v..line_end(text, v)]) {
            return Some((v, v + len));
        }
    }
    let ((s, mut e), quoted) = value_at(text, after)?;
    if !quoted {
        e = before_stops(text, s, e);
    }
    // Markdown's backquotes mark code in prose as often as a value
    // (`the password is \`&[u8]\``): what they hold is judged as bare.
    let quoted = quoted && text[s - 1] != b'`';
    let v = &text[s..e];
    // `to` joins a value only to what a person chose: a key or a token is
    // converted or sent to something (`the token to the server`), and
    // `pass to` is the verb (`flag to pass to :class:\`parse_string\``).
    let said = text[..after].trim_ascii_end();
    if said.len() > 2
        && said[said.len() - 3..].eq_ignore_ascii_case(b" to")
        && (!class.human
            || text[start..end].eq_ignore_ascii_case(b"pass")
            || !v.first().is_some_and(u8::is_ascii_alphanumeric))
    {
        return None;
    }
    (!describes(v, quoted)
        && !is_form(v)
        && ends_clause(text, e + usize::from(text.get(e) == Some(&b'`')))
        && !keeps_value(v, quoted, class))
    .then_some((s, e))
}

/// `log in with password Zq8vLm2pXr`, `user admin, password Zq8vLm2pXr`:
/// `password` (or `passwd`), one blank, then the value, no verb between.
/// Prose puts a word there (`password reset`, `password hashing`) and code
/// a type (`password string`, `password uint32`), so only a value of eight
/// characters or more with letters and digits that is no word with a
/// number after it (`hunter2`, `uint32` stay), ending its clause.
#[inline(never)]
pub fn bare_value(text: &[u8], (start, end): (usize, usize)) -> Option<(usize, usize)> {
    let name = &text[start..end];
    if text.get(end) != Some(&b' ')
        || !takes_bare_value(name)
        || !text.get(end + 1).is_some_and(u8::is_ascii_alphanumeric)
    {
        return None;
    }
    let ((s, e), _) = value_at(text, end + 1)?;
    let e = before_stops(text, s, e);
    let v = &text[s..e];
    (made(v) && !describes(v, false) && !is_form(v) && ends_clause(text, e) && !keeps_value(v, false, HUMAN))
        .then_some((s, e))
}

/// A password's class: what `bare_value` and `value_before` judge under.
const HUMAN: NameClass = NameClass { secret: true, numeric: false, generic_key: false, human: true };

/// Whether a value with no verb or operator to vouch for it is made, not
/// written: eight characters or more, letters and digits and a password's
/// usual symbols (`HTTP/1.1` after `passwd` in a URL, `PASSWORD
/// CONFLICT|10` in a keyword list are not), no word with a number after it
/// (`hunter2`, `uint32`).
fn made(v: &[u8]) -> bool {
    v.len() >= 8
        && v.iter().all(|b| b.is_ascii_alphanumeric() || b"!@#$%^&*_+-=".contains(b))
        && v.iter().any(u8::is_ascii_digit)
        && v.iter().any(u8::is_ascii_alphabetic)
        && !is_word_then_digits(v)
}

/// `use Zq8vLm2pXr as the password`, `Zq8vLm2pXr is my password`: the
/// value before `password` (or `passwd`), told with `as` or `is`, a
/// determiner and at most one word more (`as the admin password`), the
/// name ending its clause. The determiner keeps code out (SQL's `SELECT
/// pw_hash2 AS password`, Python's `if x is password:`); the value must be
/// made, or quoted (`try 'hunter2' as the password`).
#[inline(never)]
pub fn value_before(text: &[u8], (start, end): (usize, usize)) -> Option<(usize, usize)> {
    if !ends_clause(text, end) {
        return None;
    }
    let (mut s, mut e) = told_before(text, (start, end))?;
    let quoted = e - s > 2 && matches!(text[s], b'"' | b'\'') && text[e - 1] == text[s];
    if quoted {
        (s, e) = (s + 1, e - 1);
    }
    let v = &text[s..e];
    ((quoted || made(v)) && !describes(v, quoted) && !is_form(v) && !keeps_value(v, quoted, HUMAN))
        .then_some((s, e))
}

/// The word told with `as` or `is` and a determiner before `password` (or
/// `passwd`) at `text[start..end]`, if the words before it say so (a raw
/// journal line's fast path asks this too: the decoded text judges the
/// value).
pub fn told_before(text: &[u8], (start, end): (usize, usize)) -> Option<(usize, usize)> {
    // (A sentence's full stop may end the name's bounds: `is my password.`)
    let name = &text[start..end];
    if !takes_bare_value(name.strip_suffix(b".").unwrap_or(name)) {
        return None;
    }
    let mut w = word_before(text, start)?;
    if !is_determiner(&text[w.0..w.1]) {
        w = word_before(text, w.0)?;
        if !is_determiner(&text[w.0..w.1]) {
            return None;
        }
    }
    let link = &text[word_before(text, w.0)?.0..w.0 - 1];
    (link.eq_ignore_ascii_case(b"as") || link.eq_ignore_ascii_case(b"is")).then_some(())?;
    word_before(text, w.0 - link.len() - 1)
}

/// The word that ends one blank before `i` (up to the blank before it).
#[inline(never)]
fn word_before(text: &[u8], i: usize) -> Option<(usize, usize)> {
    let e = i.checked_sub(1).filter(|&e| text[e] == b' ')?;
    let s = e - text[..e].iter().rev().take(MAX_VALUE).take_while(|&&b| b != b' ' && b != b'\n').count();
    (s < e).then_some((s, e))
}

/// `the`, `my`, `your`, `our`, `a`, `an`: what `value_before` needs before the name.
fn is_determiner(w: &[u8]) -> bool {
    ["the", "my", "your", "our", "a", "an"].iter().any(|d| w.eq_ignore_ascii_case(d.as_bytes()))
}

/// Whether `bare_value` reads after this name: `password` or `passwd`,
/// whatever the case (the raw fast path asks it too).
pub fn takes_bare_value(name: &[u8]) -> bool {
    name.eq_ignore_ascii_case(b"password") || name.eq_ignore_ascii_case(b"passwd")
}

/// Where a bare value ends before the sentence's punctuation (`is
/// hunter2.`) and Python's colon (`if password is None:`).
fn before_stops(text: &[u8], s: usize, mut e: usize) -> usize {
    while e > s && matches!(text[e - 1], b'.' | b',' | b':' | b';' | b')') {
        e -= 1;
    }
    e
}

/// Whether `v` is one of `FORMS`.
fn is_form(v: &[u8]) -> bool {
    FORMS.split(' ').any(|f| v.eq_ignore_ascii_case(f.as_bytes()))
}

/// Whether a sentence's bare value describes the password rather than
/// being it: a word as people write it, or code (a type or a call: `&[u8]`,
/// `Vec<u8>`, `getToken()`).
fn describes(v: &[u8], quoted: bool) -> bool {
    let code = v.iter().any(|b| b"[](){}<>&".contains(b)) || v.windows(2).any(|w| w == b"::");
    !quoted && (code || v.iter().all(u8::is_ascii_alphabetic) || is_word_path(v))
}

/// The particles and the verb that join a password's name to its value in
/// Japanese (`パスワードはv`), Korean (`비밀번호는 v`) and Chinese (`密码是v`,
/// `密码为v`), where no operator and often no blank stands between them.
const PARTICLES: [&str; 5] = ["は", "는", "是", "为", "為"];

/// The particle `rest` starts with, if any.
pub fn particle(rest: &[u8]) -> Option<&'static str> {
    PARTICLES.iter().find(|p| rest.starts_with(p.as_bytes())).copied()
}

/// The value after such a particle, right after the name that ends at
/// `end`: the run of ASCII a password is typed in, up to the script's next
/// character (`パスワードはZq8vです`) or a blank, judged as a sentence's
/// value (`パスワードはGitHubの設定で` names a place, not a password).
pub fn particle_value(text: &[u8], end: usize, class: NameClass) -> Option<(usize, usize)> {
    let particle = particle(&text[end..])?;
    let s = skip_blanks(text, end + particle.len());
    let e = s + text[s..].iter().take(MAX_VALUE).take_while(|b| b.is_ascii_graphic()).count();
    let e = before_stops(text, s, e);
    let v = &text[s..e];
    let value = !v.is_empty() && !describes(v, false) && !counted(v, &text[e..]);
    (value && !keeps_value(v, false, class)).then_some((s, e))
}

/// `パスワードは2024年に変更`, `密码是8位数字`, `비밀번호는 8자 이상`: a
/// number with a counter after it is a date or a count, not a password.
/// Chinese and Japanese count with an ideograph (年, 位, 文字, 桁); Korean
/// with these syllables. (`暗証番号は1234です`: a verb's kana follows.)
fn counted(v: &[u8], after: &[u8]) -> bool {
    const KOREAN: &str = "년월일자개회번시분초글";
    // U+4E00..U+9FFF in UTF-8: E4 B8 80 to E9 BF BF.
    let ideograph = match after {
        [0xe4, b, ..] => *b >= 0xb8,
        [0xe5..=0xe9, ..] => true,
        _ => false,
    };
    v.iter().all(u8::is_ascii_digit)
        && (ideograph || KOREAN.as_bytes().chunks(3).any(|k| after.starts_with(k)))
}

/// Whether `value` finds nothing, asked of a raw journal line (for its
/// fast path): only where the line's escapes cannot change the answer.
/// An escaped quote may open a value the raw bytes do not show (`is
/// \"hunter2\"`), and a passphrase runs to the end of a line the raw
/// bytes do not end where the decoded string does.
pub fn raw_value_stays(text: &[u8], name: (usize, usize), after: usize, class: NameClass) -> bool {
    let v = skip_blanks(text, after);
    let Some(((s, e), _)) = value_at(text, after) else { return true };
    !is_passphrase(&text[name.0..name.1])
        && text.get(v) != Some(&b'\\')
        && !text[s..e].contains(&b'\\')
        && value(text, name, after, class).is_none()
}

/// Whether the value that ends at `e` ends what the sentence says of the
/// name: the line or the sentence ends, or a new clause starts (`is
/// hunter2 and the user is bob`). A noun after it makes the value a
/// description (`Secret is SHA-256 hash of …`).
fn ends_clause(text: &[u8], e: usize) -> bool {
    let i = skip_blanks(text, e);
    let Some(&next) = text.get(i) else { return true };
    if !next.is_ascii_alphanumeric() {
        return true;
    }
    let word = &text[i..i + text[i..].iter().take(8).take_while(|b| b.is_ascii_alphabetic()).count()];
    CLAUSE_WORDS.iter().any(|w| word.eq_ignore_ascii_case(w.as_bytes()))
}

/// Words that start a new clause or add where the value holds (`is v for
/// staging`, `is v on the server`), in English and the languages of `VERBS`.
const CLAUSE_WORDS: [&str; 22] = [
    "and", "but", "so", "or", "for", "on", "in", "at", "to", "with", "from", "please", "then", "if", "when",
    "und", "für", "et", "pour", "y", "para", "e",
];
