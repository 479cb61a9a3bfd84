//! What a name says about the value it is given (spec §5 rule 3):
//! `OPENAI_API_KEY` and `db_password` name secrets, `tokenBudget` and
//! `passwordMinLength` name metadata, and a bare `key` is a weak signal.

/// Longest name considered; longer identifiers are data, not names.
pub const MAX_NAME: usize = 128;

/// What a name says about its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NameClass {
    /// The value is a secret (unless it is code or a placeholder).
    pub secret: bool,
    /// A number under this name is a secret too (a PIN, a numeric password).
    pub numeric: bool,
    /// The only secret word is `key`: a weaker signal (React keys, map keys).
    pub generic_key: bool,
    /// A value a person may have chosen (a password, a passphrase, a PIN, a
    /// secret): plain words are secrets here. Under the names of
    /// machine-made credentials (api keys, tokens), plain words are not.
    pub human: bool,
}

/// Words that make a name a secret's name, matched as whole words.
fn is_secret_word(w: &[u8]) -> bool {
    matches!(
        w,
        b"key"
            | b"keys"
            | b"auth"
            | b"authorization"
            | b"pin"
            | b"pw"
            | b"pwd"
            | b"pass"
            | b"passwd"
            | b"cred"
            | b"creds"
            | b"bearer"
            // Portuguese for a password.
            | b"senha"
    )
}

/// Word parts that make a name a secret's name wherever they appear in a word
/// (`apikey`, `authtoken`, `dbpassword`, `clientsecret`).
const SECRET_PARTS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "credential",
    "apikey",
    "accesskey",
    "privatekey",
    "secretkey",
    "authkey",
    // A password in German (two words), Norwegian, Dutch and Finnish: a
    // person's login, pasted in their own language (the words that are not
    // ASCII are in `local.rs`).
    "passwort",
    "kennwort",
    "passord",
    "wachtwoord",
    "salasana",
];

/// Words that say the value is metadata about a secret, not the secret.
fn is_metadata_word(w: &[u8]) -> bool {
    matches!(
        w,
        b"length"
            | b"len"
            | b"count"
            | b"id"
            | b"ids"
            | b"uuid"
            | b"url"
            | b"urls"
            | b"uri"
            | b"name"
            | b"names"
            | b"type"
            | b"types"
            | b"kind"
            | b"budget"
            | b"max"
            | b"min"
            | b"input"
            | b"output"
            | b"size"
            | b"limit"
            | b"limits"
            | b"ttl"
            | b"expiry"
            | b"expires"
            | b"expiration"
            | b"timeout"
            | b"file"
            | b"files"
            | b"path"
            | b"dir"
            | b"prefix"
            | b"suffix"
            | b"format"
            | b"field"
            | b"fields"
            | b"hint"
            | b"version"
            | b"index"
            | b"idx"
            | b"usage"
            | b"cache"
            | b"reported"
            | b"unreported"
            | b"public"
            | b"pub"
            | b"label"
            | b"title"
            | b"description"
            | b"placeholder"
            | b"pattern"
            | b"regex"
            | b"policy"
            | b"rotation"
            | b"algorithm"
            | b"alg"
            | b"mode"
            | b"required"
            | b"tokenizer"
            | b"tokenize"
            | b"tokenizers"
            | b"tokenized"
            | b"endpoint"
            | b"header"
            | b"headers"
            | b"location"
            | b"store"
            | b"manager"
            | b"provider"
            | b"source"
            | b"helper"
            | b"validator"
            | b"schema"
            | b"chars"
            // A count: `preTokens`, `totalTokens`, `tokens: 1200`.
            | b"tokens"
            // A measure of the secret's handling, a number in code and
            // settings (`PASSWORD_HASH_ITERATIONS = 310000`,
            // `SECRET_KEY_BITS = 4096`, `pinDisplayMs: 2500`), not a PIN.
            | b"iterations"
            | b"iteration"
            | b"iter"
            | b"rounds"
            | b"bits"
            | b"duration"
            | b"lockout"
            | b"ms"
            | b"millis"
            | b"seconds"
            | b"secs"
            | b"minutes"
            | b"hours"
            | b"days"
            | b"attempts"
            | b"retries"
            | b"interval"
            | b"delay"
            | b"lifetime"
    )
}

/// Words that make a name a measure when they end it (`PASSWORD_COST`,
/// `SECRET_BYTES`, `password_grace_logins`: a red team's list of settings
/// redacted as PINs). Only at the end: `TWO_FACTOR_SECRET`, `SOPS_AGE_KEY`
/// and `STEP_CA_PASSWORD` are secrets. `w` is a word as `for_each_word`
/// cuts it, in lower case.
#[inline(never)]
fn is_measure_word(w: &[u8]) -> bool {
    const WORDS: [&[u8]; 16] = [
        b"cost",
        b"factor",
        b"kib",
        b"mib",
        b"memory",
        b"parallelism",
        b"bytes",
        b"port",
        b"strength",
        b"score",
        b"digits",
        b"logins",
        b"age",
        b"step",
        b"steps",
        b"threshold",
    ];
    WORDS.contains(&w)
}

/// Words that make a `key` strong: `api key`, `access key`, `private key`.
fn is_strong_word(w: &[u8]) -> bool {
    matches!(
        w,
        b"api"
            | b"access"
            | b"private"
            | b"secret"
            | b"client"
            | b"master"
            | b"signing"
            | b"encryption"
            | b"license"
    )
}

/// Whether a name is a passphrase's (`passphrase`, `GPG_PASSPHRASE`),
/// whose value may be several plain words (`value::passphrase_len`).
pub fn is_passphrase(name: &[u8]) -> bool {
    name.windows(10).any(|w| w.eq_ignore_ascii_case(b"passphrase"))
}

/// Numbers under these names go (a PIN), when they have 4 digits or more.
const NUMERIC_PARTS: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "passwort",
    "kennwort",
    "passord",
    "wachtwoord",
    "salasana",
];

/// Calls `f` with each word of a name, lowercased: `apiKey`, `API_KEY`,
/// `x-api-key`, `APIKey2` all give `api`, `key` (and `2`). No allocation:
/// this runs for every name the prefilter finds.
fn for_each_word(name: &[u8], mut f: impl FnMut(&[u8])) {
    let mut buf = [0u8; MAX_NAME];
    let mut len = 0;
    for (i, &c) in name.iter().enumerate() {
        if !c.is_ascii_alphanumeric() {
            if len > 0 {
                f(&buf[..len]);
                len = 0;
            }
            continue;
        }
        if len > 0 {
            let p = name[i - 1];
            let next_lower = name.get(i + 1).is_some_and(|n| n.is_ascii_lowercase());
            let boundary = (p.is_ascii_lowercase() && c.is_ascii_uppercase())
                || (p.is_ascii_uppercase() && c.is_ascii_uppercase() && next_lower)
                || (p.is_ascii_digit() != c.is_ascii_digit());
            if boundary {
                f(&buf[..len]);
                len = 0;
            }
        }
        if len < buf.len() {
            buf[len] = c.to_ascii_lowercase();
            len += 1;
        }
    }
    if len > 0 {
        f(&buf[..len]);
    }
}

fn contains(word: &[u8], part: &str) -> bool {
    word.windows(part.len()).any(|w| w == part.as_bytes())
}

/// Names of up to this many bytes are remembered by `classify_name`.
const KEPT_NAME: usize = 24;

/// A remembered name: its length (0: the slot is empty), bytes and class.
type Kept = (usize, [u8; KEPT_NAME], NameClass);

thread_local! {
    /// The names classified last, one per slot of a 64-slot table keyed by
    /// a hash of the name. A journal names the same few on most lines
    /// (`tokenBudget`, `maxTokens`, `apiKey`: 810,000 names in a 100 MB
    /// one), and classifying one is three passes over its words with
    /// substring searches, a tenth of redacting a line.
    static KEPT: std::cell::RefCell<[Kept; 64]> = const { std::cell::RefCell::new([(0, [0; KEPT_NAME], NameClass { secret: false, numeric: false, generic_key: false, human: false }); 64]) };
}

/// Classifies a name such as `OPENAI_API_KEY`, `passwordMinLength` or `pin`.
pub fn classify_name(name: &str) -> NameClass {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes.len() > KEPT_NAME {
        return classify(bytes);
    }
    let slot =
        bytes.iter().fold(0x811c_9dc5u32, |h, &b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193)) as usize % 64;
    let kept = KEPT.with(|k| {
        let (len, ref kept, class) = k.borrow()[slot];
        (len == bytes.len() && kept[..len] == *bytes).then_some(class)
    });
    if let Some(class) = kept {
        return class;
    }
    let class = classify(bytes);
    KEPT.with(|k| {
        let mut copy = [0; KEPT_NAME];
        copy[..bytes.len()].copy_from_slice(bytes);
        k.borrow_mut()[slot] = (bytes.len(), copy, class);
    });
    class
}

fn classify(name: &[u8]) -> NameClass {
    if name.is_empty() || name.len() > MAX_NAME {
        return NameClass::default();
    }
    // Metadata words first, in a pass of their own: the names a journal
    // repeats on every record (`inputTokens`, `maxTokens`) stop here, before
    // the substring searches below.
    // A GCP service account key's `private_key_id` names the key that signs
    // (https://cloud.google.com/iam/docs/keys-create-delete): it goes with
    // the key, though `id` is otherwise metadata.
    let mut words = 0;
    let mut gcp = [false; 3];
    for_each_word(name, |w| {
        if words < 3 {
            gcp[words] = w == [&b"private"[..], b"key", b"id"][words];
        }
        words += 1;
    });
    if words == 3 && gcp.iter().all(|&g| g) {
        return NameClass { secret: true, ..NameClass::default() };
    }
    let mut metadata = false;
    for_each_word(name, |w| metadata |= is_metadata_word(w));
    // (The last word's answer is what stays.)
    let mut measure = false;
    for_each_word(name, |w| measure = is_measure_word(w));
    if metadata || measure {
        return NameClass::default();
    }
    let (mut secret, mut numeric, mut only_key, mut strong, mut pwd) = (false, false, true, false, false);
    for_each_word(name, |w| {
        // `pw` is two letters, and random text spells them: only as `pw`
        // or `PW` in a name without digits (`=Pw:`, `p1Pw:` are fragments
        // of markdown-it's encoded entity table).
        let short_pw =
            || name.iter().any(u8::is_ascii_digit) || !name.windows(2).any(|p| p == b"pw" || p == b"PW");
        let exact = is_secret_word(w) && !(w == b"pw" && short_pw());
        let part = SECRET_PARTS.iter().any(|p| contains(w, p));
        secret |= exact || part;
        numeric |= matches!(w, b"pin" | b"pass" | b"senha") || NUMERIC_PARTS.iter().any(|p| contains(w, p));
        pwd |= w == b"pwd" || (w == b"pw" && exact);
        only_key &= !part && (!exact || w == b"key" || w == b"keys");
        strong |= is_strong_word(w);
    });
    if !secret {
        return NameClass::default();
    }
    // `key` alone (a map key, a React key, a keyboard key) is weak; `api
    // key`, `access key`, `private key` are not.
    NameClass { secret, numeric, generic_key: only_key && !strong, human: numeric || pwd }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for secret in [
            "password",
            "OPENAI_API_KEY",
            "apiKey",
            "x-api-key",
            "db_pass",
            "user_auth",
            "pin",
            "Authorization",
            "TWO_FACTOR_SECRET",
            "SOPS_AGE_KEY",
            "STEP_CA_PASSWORD",
            "Passwort",
            "DB_KENNWORT",
            "wachtwoord",
            "senha_banco",
        ] {
            assert!(classify_name(secret).secret, "{secret}");
        }
        for meta in [
            "tokenBudget",
            "maxTokens",
            "inputTokens",
            "passwordMinLength",
            "credentialsId",
            "author",
            "keyboard",
            "publicKey",
            "LLM_SECRET_NAME",
            "access_token_url",
            "PASSWORD_COST",
            "password_bcrypt_cost",
            "PASSWORD_MEMORY_KIB",
            "SECRET_BYTES",
            "password_grace_logins",
            "PASSWORD_WARN_AGE",
        ] {
            assert!(!classify_name(meta).secret, "{meta}");
        }
        assert!(classify_name("pin").numeric && classify_name("db_password").numeric);
        assert!(!classify_name("apiKey").numeric);
        assert!(classify_name("some_key").generic_key && !classify_name("apiKey").generic_key);
    }
}
