//! Context decides, then shape (rule 3). A value in a *data* context is a
//! literal whatever it looks like: a dotenv or shell assignment, a YAML
//! value, a JSON value, URL userinfo, a credential header, a credential
//! flag. There `SuperSecretPassword` or `correct horse battery staple` is a
//! password, not a variable or prose. Only references (`$X`, `${X}`,
//! `$(cmd)`, `{{ x }}`), placeholders, elisions and what a redactor left
//! stay. In a *code* context (`password: SecretStr = Field(`,
//! `apiKey: options.apiKey,`) looksLikeCode (`value.rs`) still decides.
//!
//! Every test here looks at the one line around a name the prefilter found
//! (and, for YAML, the lines above it up to its parent), never further.

use super::names::NameClass;
use super::value::{is_code_expression, is_word_path, keeps_literal};

/// Where a value sits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Context {
    /// `NAME=value` at the start of a line (dotenv, `export`, `set`): the
    /// value runs to the end of the line when the rest is plain words.
    Dotenv,
    /// `PGPASSWORD=v psql`, `docker run -e DB_PASSWORD=v postgres`: an
    /// env-shaped assignment inside a command. Its value is one word: the
    /// words after it are the command's.
    Shell,
    /// `name: value` at the start of a line, not under a class or a type.
    Yaml,
    /// `"name": "value"`: JSON text.
    Json,
    /// `Authorization: …`, `Cookie: …` as a header line or a `-H` argument.
    Header,
    /// `--password v`, `--password=v`.
    Flag,
    /// `name = value` under a `[section]` line: INI, TOML, `.pypirc`.
    Ini,
    /// Anything else: code, prose.
    Code,
}

/// How far a line is looked along, each way: a line longer than this is
/// not a config line, and the bound keeps a 10 MB line of `password=…`
/// linear (each hit looks at most this far).
const MAX_LINE: usize = 1024;

/// The start of the line holding `pos`, or `pos - MAX_LINE` on a longer one.
pub fn line_start(text: &[u8], pos: usize) -> usize {
    let floor = pos.saturating_sub(MAX_LINE);
    text[floor..pos].iter().rposition(|&b| b == b'\n' || b == b'\r').map_or(floor, |i| floor + i + 1)
}

/// The end of the line holding `pos` (at its line break, the text's end,
/// or `pos + MAX_LINE`).
pub fn line_end(text: &[u8], pos: usize) -> usize {
    let cap = text.len().min(pos + MAX_LINE);
    text[pos..cap].iter().position(|&b| b == b'\n' || b == b'\r').map_or(cap, |i| pos + i)
}

/// Where a line's content starts: after a file viewer's line number
/// (`    12→`, `cat -n`'s `    12\t`), a diff's `+`/`-`, curl -v's `> `,
/// and indentation.
pub fn content_start(text: &[u8], ls: usize, le: usize) -> usize {
    let mut i = ls;
    while i < le && matches!(text[i], b' ' | b'\t') {
        i += 1;
    }
    let digits = text[i..le].iter().take_while(|b| b.is_ascii_digit()).count();
    if digits > 0 {
        let after = i + digits;
        if text[after..le].starts_with("→".as_bytes()) {
            i = after + "→".len();
        } else if text.get(after) == Some(&b'\t') {
            i = after + 1;
        }
    }
    if i + 1 < le && matches!(text[i], b'>' | b'<' | b'+') && text[i + 1] == b' ' {
        i += 2;
    }
    // An opening tag (`<garuda_note>DB_PASSWORD=…`, `<env>`): what follows
    // starts the line's content.
    if text.get(i) == Some(&b'<') {
        let name = text[i + 1..le]
            .iter()
            .take(40)
            .take_while(|&&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            .count();
        if name > 0 && text.get(i + 1 + name) == Some(&b'>') {
            i += name + 2;
        }
    }
    while i < le && matches!(text[i], b' ' | b'\t') {
        i += 1;
    }
    i
}

/// The indentation of a line's content (after a viewer's line number).
fn indent(text: &[u8], ls: usize, le: usize) -> usize {
    let mut i = ls;
    while i < le && matches!(text[i], b' ' | b'\t') {
        i += 1;
    }
    let digits = text[i..le].iter().take_while(|b| b.is_ascii_digit()).count();
    if digits > 0 && text[i + digits..le].starts_with("→".as_bytes()) {
        i += digits + "→".len();
    } else if digits > 0 && text.get(i + digits) == Some(&b'\t') {
        i += digits + 1;
    } else {
        return i - ls;
    }
    let from = i;
    while i < le && matches!(text[i], b' ' | b'\t') {
        i += 1;
    }
    i - from
}

/// `export `, `set `, `declare -x `, `setx `, `env `: words before a shell
/// assignment at the start of a line.
fn after_shell_keyword(text: &[u8], mut i: usize, name_start: usize) -> usize {
    for kw in [&b"export "[..], b"declare -x ", b"set ", b"setx ", b"env ", b"local ", b"readonly "] {
        if text[i..name_start].starts_with(kw) {
            i += kw.len();
            while i < name_start && text[i] == b' ' {
                i += 1;
            }
            break;
        }
    }
    i
}

/// The name (its bytes at `start..end`, without quotes or `--`) and what
/// precedes and follows it decide the context. `op` is the operator found
/// after the name, `op_at` where it starts, `after` where the value may start.
pub fn of(text: &[u8], start: usize, end: usize, op: &[u8], op_at: usize, after: usize) -> Context {
    let raw = &text[start..end];
    if raw.starts_with(b"--") {
        return Context::Flag;
    }
    // Only `=` and `:` make data; other operators (`==`, `:=`, the fullwidth
    // `：`) are code, known before the line is looked along (each hit of a
    // 10 MB line of `パスワード：` looked 2 KB along it).
    if !matches!(op, b"=" | b":") {
        return Context::Code;
    }
    let quote = start.checked_sub(1).map(|i| text[i]).filter(|q| matches!(q, b'"' | b'\'' | b'`'));
    let ls = line_start(text, start);
    let le = line_end(text, start);
    let cs = content_start(text, ls, le);
    match op {
        b"=" => {
            // `NAME=value`, no blank on either side of `=`.
            let tight = op_at == end && text.get(after).is_some_and(|b| !matches!(b, b' ' | b'\t'));
            let at_line_start = after_shell_keyword(text, cs, start) == start;
            let env_shaped = raw.iter().all(|&b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
                && raw.iter().any(u8::is_ascii_uppercase);
            // A lower-case `api_key=api_key,` on a line of its own is a
            // keyword argument, not a dotenv line: only env-shaped names
            // (the dotenv and shell convention) make the line data.
            // `.npmrc`: `//registry.npmjs.org/:_authToken=…`, `_auth=…`.
            let npmrc = (start > cs && text[start - 1] == b':' && text[cs..].starts_with(b"//"))
                || (at_line_start && raw.first() == Some(&b'_'));
            if tight
                && quote.is_none()
                && (at_line_start && env_shaped || npmrc || lone_setting(text, ls, cs, start, after, le))
            {
                // `env API_TOKEN=v node server.js` runs a command after it.
                return if text[cs..start].starts_with(b"env ") { Context::Shell } else { Context::Dotenv };
            }
            // `PGPASSWORD=x psql`, `env API_TOKEN=x cmd`: an env-shaped
            // assignment after a blank is shell too.
            let after_blank = start > ls && matches!(text[start - 1], b' ' | b'\t');
            if tight && quote.is_none() && after_blank && env_shaped && raw.len() >= 4 {
                return Context::Shell;
            }
            // `password = LettersOnly` under a `[section]` (INI, TOML,
            // `.pypirc`): data, whatever the blanks.
            if quote.is_none() && cs == start && under_section(text, ls) {
                return Context::Ini;
            }
            Context::Code
        }
        b":" => {
            if quote == Some(b'"') && text.get(skip_blanks(text, after)) == Some(&b'"') {
                return Context::Json;
            }
            if is_header_position(text, cs, start) && is_header_name(raw) {
                return Context::Header;
            }
            // Not after `- `: a Markdown list (`- Cookies: Show names only`)
            // looks the same and is far more common in a transcript.
            let starts_line = quote.is_none() && cs == start;
            // `password: SecretStr = Field(`: a type, then the value.
            let rest = &text[after.min(le)..le];
            let code = rest.windows(3).position(|w| w == b" //").map_or(rest, |i| &rest[..i]).trim_ascii();
            // An object literal's field ends in `,` (before a `//` comment);
            // a statement in `;`. Words with blanks are prose
            // (`Password: at least 8 characters`), unless quoted.
            let typed = code.windows(3).any(|w| w == b" = ")
                || matches!(code.last(), Some(b',' | b';' | b'{' | b'('))
                || (!matches!(code.first(), Some(b'"' | b'\'')) && code.contains(&b' '));
            if starts_line
                && !typed
                && text.get(after).is_some_and(|b| matches!(b, b' ' | b'\t'))
                && yaml_parent(text, ls)
            {
                return Context::Yaml;
            }
            Context::Code
        }
        _ => Context::Code,
    }
}

/// `password=sunshine` as a whole line, not indented (a file viewer's line
/// number before it is fine; a diff's `+` without a blank after it is not
/// seen past, see `content_start`): a `.properties`, `my.cnf` or
/// `.env` line, whatever the name's case (it leaked as code, found by a
/// new-user review in stop 48). Code rarely looks like this: its
/// assignments have blanks, and a keyword argument alone on a line is
/// indented and ends in `,` or `)`; a minified bundle's `a.b=c` has a dot
/// in its name. The value is one word of 6 characters or more with no
/// bracket, quote, `$` or separator, so no expression is taken for a
/// literal; a dot only in what is no path of words (`A3NDAp8.tyWKC0Nv`,
/// `FsGsiMrHm.uWYQGQ`: one draw in fifty of a password made of letters,
/// digits and symbols leaked as a member expression;
/// `password=config.password` is one).
fn lone_setting(text: &[u8], ls: usize, cs: usize, start: usize, after: usize, le: usize) -> bool {
    let indented = start > ls && text[ls..start].iter().all(|b| matches!(b, b' ' | b'\t'));
    let name = text.get(start..after.saturating_sub(1)).unwrap_or_default();
    let value = before_closing_tag(text.get(after..le).unwrap_or_default());
    cs == start
        && !indented
        && name.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
        && value.len() >= 6
        && !value.iter().any(|b| b" \t()[]{}<>,;'\"`$\\".contains(b))
        && !(value.contains(&b'.') && is_word_path(value) && !value.windows(3).any(lone_lower))
}

/// One lower-case letter between capitals (`FsGsiMrHm`, `FcReLQDeDTB`):
/// made letters, which `is_word_path` lets through when the runs are this
/// short. Code has it (`IdToken`, `MyClass`), but seldom as a path alone
/// on a line after `password=`.
fn lone_lower(w: &[u8]) -> bool {
    w[0].is_ascii_uppercase() && w[1].is_ascii_lowercase() && w[2].is_ascii_uppercase()
}

/// A value up to a closing tag: the line's content starts after an opening
/// tag (`content_start`), so `<garuda_note>password=…</garuda_note>` and
/// Claude Code's `<bash-stdout>…</bash-stdout>` are the setting alone on
/// its line too (the redaction-at-rest test's random values found the
/// note's leak).
fn before_closing_tag(value: &[u8]) -> &[u8] {
    value.windows(2).position(|w| w == b"</").map_or(value, |i| &value[..i])
}

/// A no-break space (U+00A0) in UTF-8: a blank where a word processor, a
/// web page or a chat client put one (`DB_PASSWORD = v` pasted from a
/// page kept its value whole when only ASCII blanks were blanks).
pub(super) const NBSP: &[u8] = "\u{a0}".as_bytes();

/// The fullwidth colon and equals sign of Chinese and Japanese text
/// (`password：v`, `密码 password＝v`): operators as their ASCII forms are.
pub(super) const WIDE_COLON: &[u8] = "\u{ff1a}".as_bytes();
pub(super) const WIDE_EQUALS: &[u8] = "\u{ff1d}".as_bytes();

/// The blank of Chinese and Japanese text.
pub(super) const IDEOGRAPHIC_SPACE: &[u8] = "\u{3000}".as_bytes();

/// Past blanks, tabs and no-break spaces from `i`.
pub(super) fn skip_blanks(text: &[u8], mut i: usize) -> usize {
    while i < text.len() {
        match text[i] {
            b' ' | b'\t' => i += 1,
            0xC2 if text[i..].starts_with(NBSP) => i += 2,
            _ => break,
        }
    }
    i
}

/// Where a value that runs from `start` to `end` ends in Chinese or
/// Japanese text, which has no blanks between words: at the first full
/// stop, comma or colon of those scripts, their ideographic space or a
/// bracket (`パスワード：v。次に…`, `密码：v，用户名：admin`). Without
/// it the rest of the sentence went with the value.
pub(super) fn cjk_value_end(text: &[u8], start: usize, end: usize) -> usize {
    (start..end).find(|&k| is_cjk_stop(&text[k..end])).unwrap_or(end)
}

/// Whether `rest` starts with one of the stops of `cjk_value_end`.
pub(super) fn is_cjk_stop(rest: &[u8]) -> bool {
    const STOPS: [&[u8]; 10] = [
        "。".as_bytes(),
        "、".as_bytes(),
        "，".as_bytes(),
        "；".as_bytes(),
        WIDE_COLON,
        IDEOGRAPHIC_SPACE,
        "（".as_bytes(),
        "）".as_bytes(),
        "「".as_bytes(),
        "」".as_bytes(),
    ];
    matches!(rest.first(), Some(0xE3 | 0xEF)) && STOPS.iter().any(|s| rest.starts_with(s))
}

/// Back over blanks, tabs and no-break spaces before `i`.
pub(super) fn skip_blanks_back(text: &[u8], mut i: usize) -> usize {
    while i > 0 {
        match text[i - 1] {
            b' ' | b'\t' => i -= 1,
            0xA0 if text[..i].ends_with(NBSP) => i -= 2,
            _ => break,
        }
    }
    i
}

/// A header line starts its line (curl -v's `> ` is skipped), or is the
/// quoted argument of `-H` / `--header`.
fn is_header_position(text: &[u8], cs: usize, start: usize) -> bool {
    if cs == start {
        return true;
    }
    let before = &text[cs.max(start.saturating_sub(12))..start];
    [&b"-H '"[..], b"-H \"", b"--header '", b"--header \"", b"-H ", b"--header "]
        .iter()
        .any(|p| before.ends_with(p))
}

/// HTTP credential headers: `Authorization`, `Proxy-Authorization`,
/// `Cookie`, `Set-Cookie`, and any `X-…-Key`/`…-Token` header.
fn is_header_name(raw: &[u8]) -> bool {
    let lower = raw.to_ascii_lowercase();
    if !raw.iter().all(|&b| b.is_ascii_alphanumeric() || b == b'-') {
        return false;
    }
    matches!(
        &lower[..],
        b"authorization" | b"proxy-authorization" | b"cookie" | b"set-cookie" | b"private-token"
    ) || (lower.contains(&b'-')
        && (lower.ends_with(b"-key") || lower.ends_with(b"-token") || lower.ends_with(b"-secret")))
}

/// Whether the line at `ls` sits in YAML rather than under a Python class
/// or a type (`class Settings(BaseSettings):` then `password: SecretStr`):
/// the nearest line above with less indentation decides; a line above
/// ending in `,`, `{`, `(` or `[` means an object literal or a call.
fn yaml_parent(text: &[u8], ls: usize) -> bool {
    let le = line_end(text, ls);
    let own = indent(text, ls, le);
    let mut at = ls;
    let mut first = true;
    // At most a few dozen lines (and 8 KB) up: the parent of a field is near.
    for _ in 0..64 {
        if at == 0 || ls - at > 2 * MAX_LINE {
            return true;
        }
        let pe = at - 1;
        let pe = if pe > 0 && text[pe] == b'\n' && text[pe - 1] == b'\r' { pe - 1 } else { pe };
        let ps = line_start(text, pe);
        at = ps;
        let cs = content_start(text, ps, pe);
        let content = text[cs..pe].trim_ascii_end();
        if content.is_empty() {
            continue;
        }
        if first {
            first = false;
            if matches!(content.last(), Some(b',' | b'{' | b'(' | b'[')) {
                return false;
            }
        }
        if indent(text, ps, pe) < own {
            let code_words =
                [&b"class "[..], b"struct ", b"interface ", b"type ", b"@dataclass", b"data class", b"def "];
            return !code_words.iter().any(|w| content.starts_with(w)) && !content.ends_with(b"):");
        }
        if own == 0 {
            return true;
        }
    }
    true
}

/// Whether the line at `ls` sits under an INI or TOML section: the lines
/// above, up to a `[section]` line, are all `name = value`, `name=value`,
/// comments or blank (at most 32 lines and 2 KB up). Code has statements
/// between, and `[x]` alone is not a section without `name = value` lines
/// under it.
fn under_section(text: &[u8], ls: usize) -> bool {
    let mut at = ls;
    for _ in 0..32 {
        if at == 0 || ls - at > 2 * MAX_LINE {
            return false;
        }
        let pe = at - 1;
        let pe = if pe > 0 && text[pe] == b'\n' && text[pe - 1] == b'\r' { pe - 1 } else { pe };
        let ps = line_start(text, pe);
        at = ps;
        let cs = content_start(text, ps, pe);
        let line = text[cs..pe].trim_ascii_end();
        if line.is_empty() || matches!(line[0], b'#' | b';') {
            continue;
        }
        if line[0] == b'[' && line.last() == Some(&b']') {
            let inner = &line[1..line.len() - 1];
            return !inner.is_empty()
                && inner.iter().all(|&b| b.is_ascii_alphanumeric() || b"_.-\" '[]".contains(&b));
        }
        let name = line.iter().take_while(|&&b| b.is_ascii_alphanumeric() || b"_.-".contains(&b)).count();
        let rest = line[name..].trim_ascii_start();
        if name == 0 || !rest.starts_with(b"=") || rest.starts_with(b"==") {
            return false;
        }
    }
    false
}

/// The span of a value in a data context, from `i` (after the operator and
/// blanks): quoted (to its closing quote), or bare. A bare value ends at
/// the line's end for YAML and headers, and for a dotenv line when the
/// rest of the line is plain words (`PASSPHRASE=correct horse battery
/// staple`); else at white space. A trailing `,` or `;` (a list, a
/// statement) is not part of it.
pub fn data_value(
    text: &[u8],
    i: usize,
    ctx: Context,
    cap: usize,
    stop: Option<u8>,
) -> Option<((usize, usize), bool)> {
    let le = line_end(text, i).min(i + cap);
    // A closing tag ends the value (`<garuda_note>…=v</garuda_note>`).
    let le = text[i.min(le)..le].windows(2).position(|w| w == b"</").map_or(le, |p| i + p);
    let first = *text.get(i)?;
    if i >= le {
        return None;
    }
    if matches!(first, b'"' | b'\'') && !(ctx == Context::Header) {
        let inner = i + 1;
        let mut k = inner;
        while k < le {
            match text[k] {
                b'\\' if first == b'"' => k += 2,
                c if c == first => break,
                _ => k += 1,
            }
        }
        return Some(((inner, k.min(le)), true));
    }
    let word_end =
        |from: usize| text[from..le].iter().position(|b| matches!(b, b' ' | b'\t')).map_or(le, |p| from + p);
    let mut end = match ctx {
        Context::Yaml => {
            // A comment after a blank ends a YAML value.
            let mut e = le;
            for k in i..le {
                if text[k] == b'#' && k > i && matches!(text[k - 1], b' ' | b'\t') {
                    e = k;
                    break;
                }
            }
            e
        }
        // Inside `-H '…'` a header ends at its quote.
        Context::Header => stop.and_then(|q| text[i..le].iter().position(|&b| b == q)).map_or(le, |p| i + p),
        // An INI value is the rest of its line (less a `;` or ` #` comment).
        Context::Ini => (i..le)
            .find(|&k| matches!(text[k], b';' | b'#') && k > i && matches!(text[k - 1], b' ' | b'\t'))
            .unwrap_or(le),
        Context::Dotenv => {
            let w = word_end(i);
            let rest = &text[w..le];
            let plain = rest.iter().all(|&b| b.is_ascii_alphabetic() || matches!(b, b' ' | b'\t'));
            if plain && !rest.trim_ascii().is_empty() {
                le
            } else {
                w
            }
        }
        _ => word_end(i),
    };
    end = cjk_value_end(text, i, end);
    while end > i && matches!(text[end - 1], b' ' | b'\t' | b',' | b';') {
        end -= 1;
    }
    Some(((i, end), false))
}

/// Whether a value in a data context stays. YAML keeps what reads as code
/// there too (`apiKey: options.apiKey`, `password: str`), since a bare
/// `name: value` line is also a Python annotation or an object's last field.
/// A quoted value is a string literal in all of them: data.
pub fn keeps(v: &[u8], quoted: bool, ctx: Context, class: NameClass) -> bool {
    if keeps_literal(v, class) {
        return true;
    }
    // A bare call under a YAML key or an INI section (`get_password()`), a
    // bare primitive type (`password: str`), or a bare dotted path of words
    // under a YAML key (`apiKey: options.apiKey`, a JS object's field) is no
    // password anyone chose. A dotted path that is not words, any under an
    // INI section (`password = J.DYCwuADpWDZeLh` in a .pypirc, where no code
    // sits), and anything in quotes (TOML's `api_token = "EI_ZJuoY.fRsOJFX"`)
    // is a value.
    if !quoted && (ctx == Context::Yaml || ctx == Context::Ini) {
        let t = v.trim_ascii();
        let primitive = [
            &b"str"[..],
            b"string",
            b"int",
            b"bool",
            b"boolean",
            b"bytes",
            b"float",
            b"number",
            b"any",
            b"object",
            b"unknown",
        ]
        .contains(&t);
        return primitive
            || (is_code_expression(t)
                && !t.iter().any(u8::is_ascii_digit)
                && (t.contains(&b'(') || (ctx == Context::Yaml && is_word_path(t))));
    }
    false
}
