//! value.rs's tests: a secret name's value that is code, plain words, an
//! environment variable's name or an elision stays; a made value goes.

use super::*;
use crate::redact::names::classify_name;

#[test]
fn code_stays() {
    let c = classify_name("apiKey");
    for code in [
        "options.apiKey",
        "getToken()",
        "await getToken()",
        "z.string().min(8)",
        "process.env.API_KEY",
        "request.headers[\"apikey\"]",
        "Option<String>",
        "string",
        "accessToken",
        "${API_KEY}",
        "$API_KEY",
        "{{ api_key }}",
        "%API_KEY%",
        "true",
        "null",
        "<your-key>",
        "***",
        "xxxx",
        "20000000",
    ] {
        assert!(keeps_value(code.as_bytes(), false, c), "{code}");
    }
    for secret in
        ["hunter2x", "sk_live_abc123", "CLOJARS_34bf0e88955ff5a1c328d6a7491acc4f48e865a7b8dd4d70a70749037443"]
    {
        assert!(!keeps_value(secret.as_bytes(), false, c), "{secret}");
    }
    assert!(!keeps_value(b"12345678", false, classify_name("password")));
    assert!(keeps_value(b"0", false, classify_name("PuttyPassword")));
}

/// Under a machine credential's name, plain words stay (an enum value, a
/// mode); letters and `_` mixing cases where no word does are a made
/// value (the redaction-at-rest generator's `ogqxmYrwRmghh_MY`).
#[test]
fn mixed_case_plain_words_stay_only_as_words() {
    let c = classify_name("api_token");
    for words in [
        "proxy-handled",
        "proxyHandled",
        "OpenAI",
        "notConfigured",
        "USE_ENV",
        "Not Set",
        "HTTPServerError",
        "REDACTED_FOR_PRIVACY",
        "backwardCompatible",
    ] {
        assert!(keeps_value(words.as_bytes(), true, c), "{words}");
    }
    for made in [
        "ogqxmYrwRmghh_MY",
        "EIxZJuoYfRsOJFX",
        "qWeRtYuIoPaSdF",
        "Ab_cDEfGhIjKl",
        "KSNWRnYPWgHwmgKN",
        "iqrUhQsKVBZDjKpj",
        "UTZWMXYEEKMCDOBQ",
        "COSqgNlNMJayr...",
        "C.YuXxEs_MZ_J.MY",
    ] {
        assert!(!keeps_value(made.as_bytes(), true, c), "{made}");
        assert!(!keeps_literal(made.as_bytes(), c), "{made}");
    }
}

/// An env var's name stays under a secret's name (`API_KEY=OPENAI_API_KEY`);
/// a made value in capitals, digits and `_` does not (the generator's
/// `EHP_3QUTNQ0JCFT5`). Nor does most of a secret shown with an ellipsis.
#[test]
fn env_names_and_elisions_are_not_made_values() {
    let c = classify_name("api_token");
    for name in [
        "GEMINI_API_KEY",
        "OAUTH2_TOKEN",
        "K8S_TOKEN",
        "OPENAI_API_KEY_V2",
        "KEY_2",
        "sk-ant-...",
        "sk-ant-api03-...",
        "gsk_\u{2026}",
    ] {
        assert!(keeps_literal(name.as_bytes(), c), "{name}");
    }
    for made in [
        "EHP_3QUTNQ0JCFT5",
        "RADMK7US7RMJPXE_",
        "BL3NU_4JSG7XJCKP",
        "kxSXAN-0+gtA8...",
        "sk-ant-api03-AbCdEfGhIjKlMn...",
    ] {
        assert!(!keeps_literal(made.as_bytes(), c), "{made}");
        assert!(!keeps_value(made.as_bytes(), true, c), "{made}");
    }
}

/// In code, a quoted dotted path of words stays (an i18n key, a config
/// path); a made value with a dot in it goes.
#[test]
fn quoted_dotted_words_stay_and_made_dotted_values_go() {
    // Under a password's name (a machine credential's keeps plain words of any case, dotted or not).
    let c = classify_name("password");
    for path in [
        "errors.notFound",
        "auth.login.title",
        "com.example.app",
        "server.HTTPServer.port",
        "ui.iPhone.x",
        "db.DEFAULT_URL",
    ] {
        assert!(keeps_value(path.as_bytes(), true, c), "{path}");
    }
    for made in ["EI_ZJuoY.fRsOJFX", "EIxZJuoY.fRsOJFX", "qWeRtYuI.oPaSdF", "Ab.cDEfGhIjKl", "aaaa.bBbbbBBb"]
    {
        assert!(!keeps_value(made.as_bytes(), true, c), "{made}");
    }
    assert!(
        is_word_path(b"notFound")
            && is_word_path(b"HTTPServer")
            && is_word_path(b"EI")
            && is_word_path(b"x")
            && is_word_path(b"db.DEFAULT_URL")
    );
    assert!(
        !is_word_path(b"ZJuoY")
            && !is_word_path(b"IDs")
            && !is_word_path(b"getX")
            && !is_word_path(b"a1")
            && !is_word_path(b"kaTLMYWS")
            && !is_word_path(b"Ifzzq")
    );
}
