//! Compiled only under #[cfg(test)] (see mod.rs). A password told in a
//! person's own language or in a sentence: `パスワード：v`, `Passwort: v`,
//! `my password is v`. Each case leaked before `local.rs` and `prose.rs`
//! (stop 53 left them open). What a sentence says about a password, and
//! code that reads like one, stays: those cases come from real text (crate
//! sources, Python's library, Node's docs) where a first version of the
//! rule took a value.

use super::spelling_tests::gone_from_text_and_record;
use super::tests::redactor;

const SECRET: &str = "Zq8vLm2pXr";

#[test]
fn a_password_named_in_another_language_goes() {
    let r = redactor();
    for name in [
        "パスワード",
        "密码",
        "数据库密码",
        "密碼",
        "口令",
        "비밀번호",
        "пароль",
        "Пароль",
        "ПАРОЛЬ",
        "лозинка",
        "contraseña",
        "Contraseña",
        "mot de passe",
        "Mot de passe",
        "hasło",
        "Lösenord",
        "şifre",
        "Şifre",
        "jelszó",
        "mật khẩu",
        "סיסמה",
        "كلمة المرور",
        "पासवर्ड",
        "รหัสผ่าน",
        "Passwort",
        "Kennwort",
        "DB_KENNWORT",
        "wachtwoord",
        "senha",
        "salasana",
        "passord",
    ] {
        for op in [": ", " = ", "：", "＝", "\u{a0}: "] {
            gone_from_text_and_record(&r, &format!("{name}{op}{SECRET}"), SECRET);
        }
        gone_from_text_and_record(&r, &format!(r#"{{"{name}": "{SECRET}"}}"#), SECRET);
    }
    assert_eq!(r.redact("暗証番号: 4821"), "暗証番号: [REDACTED]");
    // The sentence after the value stays: Chinese and Japanese put no
    // blank before it (`context::cjk_value_end`).
    for (text, kept) in [
        ("パスワード：Zq8vLm2pXr。次にログインします", "。次にログインします"),
        ("密码：Zq8vLm2pXr，用户名：admin", "，用户名：admin"),
        ("パスワード：Zq8vLm2pXr　ユーザー名：taro", "　ユーザー名：taro"),
        ("password: Zq8vLm2pXr（本番）", "（本番）"),
    ] {
        let out = r.redact(text);
        assert!(!out.contains(SECRET) && out.ends_with(kept), "{out}");
    }
}

#[test]
fn another_language_s_word_for_something_else_stays() {
    let r = redactor();
    for text in [
        // A password's word inside another word, or a form of it that names no value.
        "пароля: нет",
        "Введите пароль пользователя",
        "パスワードを入力してください",
        // Values that are no secret under any name.
        "пароль: ${DB_PASS}",
        "パスワード: <your-password>",
        "contraseña: string",
        "passwortLength: 12",
        "tokenBudget: 20000000",
        "5 passed: mot de passe",
    ] {
        assert_eq!(r.redact(text), text);
    }
}

#[test]
fn a_password_told_in_a_sentence_goes() {
    let r = redactor();
    for (text, secret) in [
        ("my password is hunter2", "hunter2"),
        ("the password is Zq8vLm2pXr.", SECRET),
        ("password is: P@ssw0rd!", "P@ssw0rd"),
        ("the password is 'letmein'", "letmein"),
        // In a journal line the quotes are escapes.
        (r#"the password is "letmein""#, "letmein"),
        ("the password is `hunter2`", "hunter2"),
        ("the password is hunter2 and the user is bob", "hunter2"),
        ("The passphrase is correct horse battery staple", "horse battery"),
        ("the PIN is 4821", "4821"),
        ("the api key is Zq8vLm2pXrT7wQ9kH3nB5cJ1", "Zq8vLm2pXrT7"),
        ("Das Passwort ist Zq8vLm2pXr", SECRET),
        ("Das Passwort lautet Geheim123", "Geheim123"),
        ("le mot de passe est Zq8vLm2pXr", SECRET),
        ("la contraseña es Zq8vLm2pXr", SECRET),
        ("a senha é Zq8vLm2pXr", SECRET),
        // Particles, with no blank before what follows.
        ("パスワードはZq8vLm2pXrです", SECRET),
        ("新しいパスワードは Zq8vLm2pXr です。", SECRET),
        ("비밀번호는 Zq8vLm2pXr입니다", SECRET),
        ("密码是Zq8vLm2pXr，请妥善保管", SECRET),
        ("数据库密码为123456", "123456"),
        // Set to a value; a dash for the verb.
        ("set the password to hunter2", "hunter2"),
        ("I changed the root password to Zq8vLm2pXr.", SECRET),
        ("la password è Zq8vLm2pXr", SECRET),
        ("hasło to Zq8vLm2pXr", SECRET),
        ("пароль — Zq8vLm2pXr", SECRET),
        ("Passwort – Zq8vLm2pXr", SECRET),
        ("password - Zq8vLm2pXr", SECRET),
        // What the password is for, then the verb or a colon.
        ("the password for admin is Zq8vLm2pXr", SECRET),
        ("the password for the staging db is Zq8vLm2pXr!", SECRET),
        ("password for root: Zq8vLm2pXr", SECRET),
        ("password for `root@db1`: Zq8vLm2pXr", SECRET),
        ("the password to the wifi is Zq8vLm2pXr", SECRET),
        ("set the password for admin to Zq8vLm2pXr", SECRET),
        ("Das Passwort für den Server ist Zq8vLm2pXr", SECRET),
        // `pw`, the shortest spelling of the name.
        ("pw: Zq8vLm2pXr", SECRET),
        ("DB_PW=Zq8vLm2pXr", SECRET),
        (r#"{"pw": "Zq8vLm2pXr"}"#, SECRET),
        ("{'pw': 'Zq8vLm2pXr'}", SECRET),
        ("cfg['pw'] = 'Zq8vLm2pXr'", SECRET),
        ("the pw is Zq8vLm2pXr", SECRET),
        // Auxiliaries before the verb.
        ("the password should be Zq8vLm2pXr", SECRET),
        ("the new password will be Zq8vLm2pXr", SECRET),
        ("password has been Zq8vLm2pXr for a year", SECRET),
        ("password was set to 'Zq8vLm2pXr'", SECRET),
        ("password changed to Zq8vLm2pXr", SECRET),
        ("the admin password has been changed to Zq8vLm2pXr", SECRET),
        ("the password is now Zq8vLm2pXr", SECRET),
        ("the password for root should be Zq8vLm2pXr", SECRET),
        // After a new line or a tab, escaped in a journal line (`\npw`).
        ("notes\npw: Zq8vLm2pXr", SECRET),
        ("notes\npw is: Zq8vLm2pXr", SECRET),
        ("notes\npasswd Zq8vLm2pXr", SECRET),
        ("a\tpassword Zq8vLm2pXr", SECRET),
        ("secret \t= Zq8vLm2pXr", SECRET),
        // The value before the name.
        ("use Zq8vLm2pXr as the password", SECRET),
        ("Zq8vLm2pXr is the password", SECRET),
        ("and Zq8vLm2pXr is my password.", SECRET),
        ("set Zq8vLm2pXr as the admin password for now", SECRET),
        ("try 'hunter2' as the password", "hunter2"),
        // No verb: the name, a blank, a made value.
        ("log in with password Zq8vLm2pXr", SECRET),
        ("user admin, password Zq8vLm2pXr.", SECRET),
        ("Password Zq8vLm2pXr", SECRET),
        // A number with a verb's kana or a full stop after it is a PIN.
        ("暗証番号は4821です", "4821"),
        ("密码是20240615。", "20240615"),
    ] {
        gone_from_text_and_record(&r, text, secret);
    }
}

#[test]
fn what_a_sentence_says_about_a_password_stays() {
    let r = redactor();
    for text in [
        "the password is required",
        "the password is too short",
        "the password is stored in the keychain",
        "the passphrase is stored in the keychain",
        "the password is the same as before",
        "password is hashed with argon2id",
        "the password is 12 characters long",
        "the pin is 4 digits",
        "the token is expired",
        "the key is F5",
        "the password is ${PW}",
        "password is process.env.DB_PASSWORD",
        "maxTokens is 4096",
        "パスワードはGitHubの設定で変更できます",
        "パスワードは8文字以上にしてください",
        "密码是必填项",
        "reset the password to default",
        "password reset link sent",
        "func login(user, password string) error",
        "var password uint32",
        "password hashing with argon2id",
        "password sha256",
        "const pw = getPass();",
        "pw = new PrintWriter(out)",
        "pw: string",
        // markdown-it's encoded entity table spells `Pw` and `p1Pw`.
        "<5p<JwNZt2@3p=Pw:5p;Ou!5r3c7&!#:p>3Ds}KvG",
        "5qlJwNZt*@3p1Pw:5p/Ou!5p2JvG'!6Vye",
        // From real text: a URL's query, a keyword list.
        r#"b"GET /channel?passwd HTTP/1.1\r\nHost: myserver.com\r\n\r\n","#,
        "'INPUT LEAKPROOF|10 COST ROWS NOWAIT SEARCH UNTIL ENCRYPTED|10 PASSWORD CONFLICT|10 ' +",
        "the password for the admin user is required",
        "the password should be at least 12 characters",
        "SELECT pw_hash2 AS password FROM users",
        "if pw_hash_v2 is password:",
        "that is the password",
        "which is your password",
        "Zq8vLm2pXr is the password hash",
        "DB_PASSWORD is the password",
        "${PW} is the password",
        "use the env var as the password",
        "42 is the password length",
        "sha256 is the password",
        "the password should be the same as before",
        "password must be 12 chars",
        "password will be hashed with argon2id",
        "password has been reset",
        "the password was changed to a random one",
        "the password can be found in 1Password",
        "password is set to expire",
        "the token has been changed to the new one",
        "token was set to TOKEN_VALUE_PLACEHOLDER",
        "the password is now required",
        "password for root: see the vault",
        "the token for this request is expired",
        "the key of the map is id",
        "Reset password for user: admin",
        "- ``parse_all`` - (default= ``True``) - flag to pass to :class:`parse_string` when running tests",
        "set the password to .",
        "hash the password to sha256",
        "encode the api key to base64",
        "send the token to server2",
        "convert the key to u64",
        "la password è obbligatoria",
        "password - required",
        "- password - the user's password",
        "--password - Password to use (8 characters or more)",
        // A number with a counter: a date or a count.
        "パスワードは2024年に変更されました",
        "密码是8位数字",
        "비밀번호는 8자 이상이어야 합니다",
        "비밀번호는 2024년에 바뀌었습니다",
        // Python.
        "if password is None:",
        "assert token is not None",
        "token is self._token",
        // From real text (see the module's comment).
        "// Secret is SHA-256 hash of 'Super secret!' passed through HKDF-SHA256.",
        "/// Note: The password is `&[u8]` and not `&str` because the",
        "source argument for a token is `args[token.index]`.",
    ] {
        assert_eq!(r.redact(text), text);
    }
}
