//! Rule 3 for a password named in a language whose word for it is not
//! ASCII (`contraseña: v`, `пароль = v`, `パスワード：v`, `密码: v`): a
//! person pastes a login into the agent in their own language, and the
//! value reaches the journal as `password: v` would. The ASCII words
//! (`Passwort`, `senha`, `wachtwoord`) are names like any other
//! (`names.rs`); these are not identifiers, so they have a trigger of their
//! own and only the operator forms: the word, then `:` or `=` (ASCII or
//! fullwidth), then the value, kept or taken as under `password`.
#![forbid(unsafe_code)]

use super::context::{IDEOGRAPHIC_SPACE, NBSP, WIDE_COLON, WIDE_EQUALS};
use super::names::{NameClass, MAX_NAME};

/// A word and how much of it comes before its trigger. The trigger is the
/// rest: a literal whose first two bytes start another literal already or
/// are rare, and whose first three are rare in code and English
/// (`contraseña`'s `con` starts `const`, its `seña` starts nothing;
/// `mot de passe`'s `mo` starts `model`, its `passe` shares `pass`'s), matched
/// with ASCII case folded (`Contraseña`); other scripts' capitals are words
/// of their own (`Пароль`).
pub struct Word {
    pub word: &'static str,
    pub skip: usize,
    /// Written between spaces (Latin, Cyrillic, Greek, Arabic, Hebrew,
    /// Devanagari scripts): a letter right after it makes it part of
    /// another word (`пароля`, the genitive, names no value). Chinese,
    /// Japanese and Thai run words together, so no such test holds there.
    pub spaced: bool,
}

const fn w(word: &'static str, skip: usize, spaced: bool) -> Word {
    Word { word, skip, spaced }
}

/// The words: each language's usual word for a login's password (the one
/// its login forms label the field with).
pub const WORDS: &[Word] = &[
    w("contraseña", 6, true),   // Spanish
    w("mot de passe", 7, true), // French
    w("hasło", 2, true),        // Polish
    w("lösenord", 1, true),     // Swedish
    w("şifre", 0, true),        // Turkish
    w("Şifre", 0, true),
    w("jelszó", 3, true),   // Hungarian
    w("mật khẩu", 0, true), // Vietnamese
    w("пароль", 0, true),   // Russian, Ukrainian, Bulgarian
    w("Пароль", 0, true),
    w("ПАРОЛЬ", 0, true),
    w("лозинка", 0, true), // Serbian, Macedonian
    w("Лозинка", 0, true),
    w("κωδικός πρόσβασης", 0, true), // Greek
    w("Κωδικός πρόσβασης", 0, true),
    w("كلمة المرور", 0, true), // Arabic
    w("كلمة السر", 0, true),
    w("סיסמה", 0, true), // Hebrew
    w("סיסמא", 0, true),
    w("पासवर्ड", 0, true),      // Hindi
    w("パスワード", 0, false), // Japanese
    w("暗証番号", 0, false),   // Japanese: a PIN
    w("密码", 0, false),       // Chinese
    w("密碼", 0, false),
    w("口令", 0, false),
    w("비밀번호", 0, true), // Korean
    w("รหัสผ่าน", 0, false),  // Thai
];

/// What the words name: a password, which a person chose (plain words are
/// secrets under it) or a PIN (numbers are).
const CLASS: NameClass = NameClass { secret: true, numeric: true, generic_key: false, human: true };

/// The trigger literal of each word.
pub fn literals() -> impl Iterator<Item = (usize, &'static str)> {
    WORDS.iter().enumerate().map(|(i, w)| (i, &w.word[w.skip..]))
}

/// The name's span when the word `i`'s trigger at `pos` is a whole word
/// (or a compound's end: `Datenbank`-style words run on before it), with
/// the class its value is judged under.
pub fn name_at(text: &[u8], pos: usize, i: usize) -> Option<((usize, usize), NameClass)> {
    let word = WORDS.get(i)?;
    let start = pos.checked_sub(word.skip)?;
    let end = start + word.word.len();
    let head = &word.word.as_bytes()[..word.skip];
    if !text.get(start..pos)?.eq_ignore_ascii_case(head) || end > text.len() {
        return None;
    }
    // (Korean writes its particle on the word: `비밀번호는 v`.)
    if word.spaced && continues_word(&text[end..]) && super::prose::particle(&text[end..]).is_none() {
        return None;
    }
    // The name is the whole word it ends (`数据库密码`, a database's
    // password; `db_пароль`): a quote before that is a key's.
    let floor = start.saturating_sub(MAX_NAME);
    let start = text[floor..start]
        .iter()
        .rposition(|&b| b < 0x80 && !b.is_ascii_alphanumeric() && b != b'_')
        .map_or(start, |k| floor + k + 1);
    Some(((start, end), CLASS))
}

/// Whether `rest` goes on with a letter: an ASCII one, or a character
/// that is not a blank or an operator (a no-break space, `：`, `＝`).
fn continues_word(rest: &[u8]) -> bool {
    match rest.first() {
        Some(b) if b.is_ascii_alphanumeric() => true,
        Some(&b) if b >= 0x80 => {
            ![NBSP, WIDE_COLON, WIDE_EQUALS, IDEOGRAPHIC_SPACE].iter().any(|s| rest.starts_with(s))
        }
        _ => false,
    }
}
