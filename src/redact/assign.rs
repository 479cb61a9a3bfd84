//! Rule 3: a secret-named thing given a value (spec §5). The name stays, the
//! value goes, unless the value is code (looksLikeCode) or a placeholder.
//!
//! Forms: `name = v`, `name: v`, `name := v`, `name => v`, comparisons both
//! ways (`pass !== "v"`, `"v" == my_password`), quoted names (JSON, dicts),
//! `("name", "v")` calls, `Type secret("v")`, CLI flags (`--password v`),
//! `Authorization: Bearer v`, and `user:pass@` in URLs.

use super::context::{self, skip_blanks, skip_blanks_back, Context, WIDE_COLON, WIDE_EQUALS};
use super::fields;
use super::names::{self, classify_name, NameClass, MAX_NAME};
use super::value::{
    is_code_expression, is_ident, is_ident_start, is_keyword_value, is_minified_name, is_word_path,
    keeps_literal, keeps_value, looks_made, passphrase_len,
};

/// Longest value taken; a longer one is cut there (the cap keeps adversarial
/// input such as `password=password=…` linear).
pub(super) const MAX_VALUE: usize = 1024;

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

/// Whole quoted value starting at the quote `q` at `start`: its inner span
/// (end at the closing quote, or at the line end when there is none).
fn quoted_value(text: &[u8], start: usize) -> (usize, usize) {
    let q = text[start];
    let inner = start + 1;
    let limit = text.len().min(inner + MAX_VALUE);
    let mut i = inner;
    while i < limit {
        match text[i] {
            b'\\' => i += 2,
            b'\n' | b'\r' => break,
            c if c == q => break,
            _ => i += 1,
        }
    }
    (inner, i.min(limit))
}

/// An unquoted value from `start`: up to white space, `&` or a quote, less a
/// trailing `;` or `,`.
fn bare_value(text: &[u8], start: usize) -> (usize, usize) {
    let limit = text.len().min(start + MAX_VALUE);
    // Inside brackets (`jwt.sign(payload, secret)`, `headers["key"]`) blanks
    // and quotes belong to the expression. A closing bracket with no opening
    // one ends the value: it closes what the name stood in (`(key: string)`,
    // `[key: string]: unknown`, `{"preTokens":155979}`), and so does `<` or
    // `>` (`<div key={todo.id}>`) and an escaped line break or quote of the
    // raw JSON line the text sits in.
    let mut depth = 0u32;
    let mut end = limit;
    for (i, &b) in text[start..limit].iter().enumerate() {
        let stop = match b {
            b'(' | b'[' | b'{' => {
                depth += 1;
                false
            }
            b')' | b']' | b'}' => match depth.checked_sub(1) {
                Some(d) => {
                    depth = d;
                    false
                }
                None => true,
            },
            b'\n' | b'\r' => true,
            // `{apiKey:B,authToken:Q}`, `this.key=k;this.iv=v`: minified code
            // has no blank after a comma or a semicolon; the next name and
            // its operator end the value.
            b',' | b';' => depth == 0 && next_is_assignment(text, start + i + 1),
            // `A?.schemes??[…]`, `a.clientSecret||""`: code's operators.
            b'|' | b'?' => depth == 0 && text.get(start + i + 1) == Some(&b),
            b'\\' => depth == 0 && matches!(text.get(start + i + 1), Some(b'n' | b'r' | b't' | b'"')),
            b' ' | b'\t' | b'&' | b'"' | b'\'' | b'`' | b'<' | b'>' => depth == 0,
            0xC2 => depth == 0 && text.get(start + i + 1) == Some(&0xA0),
            // Chinese and Japanese text's punctuation (`context::cjk_value_end`).
            0xE3 | 0xEF => depth == 0 && context::is_cjk_stop(&text[start + i..]),
            _ => false,
        };
        if stop {
            end = start + i;
            break;
        }
    }
    end = context::cjk_value_end(text, start, past_stray_closer(text, end, limit));
    while end > start && matches!(text[end - 1], b';' | b',') {
        end -= 1;
    }
    (start, end)
}

/// The end of a bare value that stopped at `end`, before a closing bracket
/// that closes nothing: past it and the rest of its blank-free token when
/// that cannot be code (`the password: TGQXP}fa+;N>Upjt` leaked from the
/// `}` on). Code is a lowercase word alone (minified code's `B}function`,
/// `)return`), a call, block, assignment, member or list (`A)}.then(`,
/// `B},c=`), markup (`)</b>`), or long. (Not after `<` or `>`: that is a
/// type's, `Option<String>`.) Out of line: inlined, it cost the wasm 30
/// bytes more (gzipped).
#[inline(never)]
fn past_stray_closer(text: &[u8], end: usize, limit: usize) -> usize {
    if end >= limit || !matches!(text[end], b')' | b']' | b'}') {
        return end;
    }
    let tail = &text[end + 1..limit];
    let blank = |b: &u8| b.is_ascii_whitespace() || matches!(b, b'"' | b'\'' | b'`');
    let tail = &tail[..tail.iter().position(blank).unwrap_or(tail.len())];
    let code = |b: &u8| matches!(b, b'(' | b'{' | b'=' | b'.' | b',' | b':' | b'\\' | b'/');
    if tail.first().is_some_and(u8::is_ascii_alphanumeric)
        && tail.len() <= 64
        && !tail.iter().all(u8::is_ascii_lowercase)
        && !tail.iter().any(code)
    {
        end + 1 + tail.len()
    } else {
        end
    }
}

/// Whether code at `i` starts the next item of a list or the next
/// statement: a spread, or a name or a dotted path (quoted or not) and then
/// an operator or a bracket (`authToken:Q`, `B.seed=K(…)`, `x.length===0)`,
/// `a!=b`, `B}`). A password with a comma in it (`password=abc,def`) is no such thing.
fn next_is_assignment(text: &[u8], i: usize) -> bool {
    let mut j = skip_blanks(text, i);
    if text[j.min(text.len())..].starts_with(b"...") || matches!(text.get(j), Some(b'!' | b'{')) {
        return true;
    }
    let quote = text.get(j).filter(|q| matches!(q, b'"' | b'\''));
    j += usize::from(quote.is_some());
    let name =
        text[j.min(text.len())..].iter().take(MAX_NAME).take_while(|&&b| is_ident(b) || b == b'.').count();
    if name == 0 || !text.get(j).copied().is_some_and(is_ident_start) {
        return false;
    }
    j += name;
    if let Some(q) = quote {
        if text.get(j) != Some(q) {
            return false;
        }
        j += 1;
    }
    match text.get(j) {
        Some(b':') => text.get(j + 1) != Some(&b':'),
        Some(b'=' | b'(' | b'[' | b')' | b'}') => true,
        Some(&b @ (b'!' | b'&' | b'|')) => text.get(j + 1) == Some(if b == b'!' { &b'=' } else { &b }),
        _ => false,
    }
}

/// The value after an operator at `i`: (span, quoted).
pub(super) fn value_at(text: &[u8], i: usize) -> Option<((usize, usize), bool)> {
    let i = skip_blanks(text, i);
    match text.get(i)? {
        b'"' | b'\'' | b'`' => Some((quoted_value(text, i), true)),
        b'\n' | b'\r' => None,
        _ => {
            // `Authorization: Bearer v`: the scheme stays, the credential goes.
            let (s, e) = after_scheme(text, (i, text.len().min(i + MAX_VALUE)));
            Some((bare_value(text, s), false)).filter(|_| s <= e)
        }
    }
}

/// Where an `Authorization: Bearer v` value's secret part starts.
pub(super) fn after_scheme(text: &[u8], (start, end): (usize, usize)) -> (usize, usize) {
    for scheme in [&b"bearer "[..], b"basic ", b"token "] {
        if text[start..end].len() > scheme.len()
            && text[start..start + scheme.len()].eq_ignore_ascii_case(scheme)
        {
            let s = skip_blanks(text, start + scheme.len());
            return (s, end);
        }
    }
    (start, end)
}

/// The name (identifier, dotted path, `--flag`) around byte `pos`, at most
/// `MAX_NAME` long.
fn name_bounds(text: &[u8], pos: usize) -> (usize, usize) {
    let mut start = pos;
    while start > 0 && is_name_byte(text[start - 1]) && pos - start < MAX_NAME {
        start -= 1;
    }
    let mut end = pos;
    while end < text.len() && is_name_byte(text[end]) && end - start < MAX_NAME {
        end += 1;
    }
    (start, end)
}

/// Whether a name hit in a raw journal line can be ignored without looking
/// at the line's structure: its name is not a secret's, or nothing around
/// it assigns a value (and no escape hides what follows it).
pub fn name_is_inert(text: &[u8], pos: usize) -> bool {
    let (mut start, end) = name_bounds(text, pos);
    // After an escape the bounds take its letter: `\npw: v` (a new line in
    // a JSON string) reads `npw`, no secret's name, and the line was kept
    // with the value in it. The name starts past the letter.
    if start > 0 && text[start - 1] == b'\\' && start < pos {
        start += 1;
    }
    let name = &text[start..end];
    let name = name.strip_prefix(b"--").unwrap_or(name);
    let Ok(name) = std::str::from_utf8(name) else { return false };
    // The syntax test first: it is cheaper than classifying the name, and
    // most names in prose ("the token budget") are followed by no value.
    // (`password \t= v`: an escaped tab or new line before the operator.)
    let escaped_around = text.get(skip_blanks(text, end)) == Some(&b'\\')
        || (start > 0 && text[start - 1] == b'"' && start > 1 && text[start - 2] == b'\\');
    // (A name beside a pipe may head a Markdown table's column, whose line
    // breaks a raw journal line escapes: the decoded text decides. Asked
    // last: `inputTokens` passes every name test of a usage record.)
    if !escaped_around
        && !looks_assigned(text, start, end)
        && fields::of(text, start, end).is_none()
        && !fields::beside_pipe(text, start, end)
    {
        // `password PW` may be a .netrc line (`commands.rs`), whose line
        // breaks a raw journal line escapes: the decoded text decides.
        // So may `with password Zq8v…` (`prose::bare_value`) and `use
        // Zq8v… as the password` (`prose::value_before`).
        let bare = (super::prose::takes_bare_value(name.as_bytes()) && text.get(end) == Some(&b' '))
            || super::prose::told_before(text, (start, end)).is_some();
        return !bare && (!may_be_sentence(text, end) || sentence_stays(text, (start, end), name));
    }
    !classify_name(name).secret && !is_cookie_header(name, text.get(end))
}

/// Whether a sentence may go on from the name that ends at `end` (`my
/// password is v`, `prose.rs`): a blank, then a verb's first letter or more
/// blanks. Asked of every name the prefilter finds with no operator after
/// it, so the rest of the test is out of line.
#[inline]
fn may_be_sentence(text: &[u8], end: usize) -> bool {
    matches!(text.get(end), Some(b' ' | b'\t' | 0xC2))
        && text
            .get(end + 1)
            .is_some_and(|&b| matches!(b, b' ' | b'\t' | 0xC2 | 0xA0) || super::prose::may_start_verb(b))
}

/// Whether a sentence's value after a name in a raw journal line stays
/// (`apiKey is undefined`: 1,818 lines of a 100 MB journal say so, and
/// looking at their structure cost 2% of redacting it), judged in the raw
/// line where it can be.
#[inline(never)]
fn sentence_stays(text: &[u8], (start, end): (usize, usize), name: &str) -> bool {
    // The name first: `tokens for`, `tokenBudget of` (5,500 lines of a
    // 100 MB journal) name no secret, and finding a verb after `for` walks
    // up to four words.
    let class = classify_name(name);
    if !class.secret {
        return true;
    }
    let Some(after) = verb_end(text, end) else { return true };
    super::prose::raw_value_stays(text, (start, end), after, class)
}

/// Where the verb of `my password is v` ends, when one follows the name
/// that ends at `end` (`prose.rs`).
fn verb_end(text: &[u8], end: usize) -> Option<usize> {
    let i = skip_blanks(text, end);
    // The verbs' first letters first: this runs for every name the
    // prefilter finds with no operator after it.
    if i == end || !super::prose::may_start_verb(*text.get(i)?) {
        return None;
    }
    super::prose::verb(&text[i..]).map(|n| i + n)
}

/// `Cookie:` names a secret only as a header (`context.rs` decides).
fn is_cookie_header(name: &str, next: Option<&u8>) -> bool {
    next == Some(&b':') && (name.eq_ignore_ascii_case("cookie") || name.eq_ignore_ascii_case("set-cookie"))
}

/// The assignment whose name contains the prefilter hit at `pos`, if any:
/// returns the name's end (to skip other hits in it) and the value's span.
/// A name heading a Markdown table's column puts the column's secret cells
/// in `column` instead.
pub fn assignment(
    text: &[u8],
    pos: usize,
    column: &mut Vec<(usize, usize)>,
) -> (usize, Option<(usize, usize)>) {
    let (start, end) = name_bounds(text, pos);
    // A Markdown table's header row: the secrets are the cells below it (a
    // table of users and passwords reached the disk whole). Its other
    // names need no look.
    if let Some(table) = fields::table_header(text, start, end) {
        fields::column_values(text, &table, column);
        return (table.header_end, None);
    }
    // A .netrc line first: `password 2=ou#…` would read as Go's `var x T = v`.
    if let Some(span) = super::commands::netrc(text, start, end) {
        return (end, Some(span));
    }
    let field = fields::of(text, start, end);
    if field.is_none() && !looks_assigned(text, start, end) && verb_end(text, end).is_none() {
        // `with password Zq8vLm2pXr`, `use Zq8vLm2pXr as the password` (`prose.rs`).
        let span = super::prose::bare_value(text, (start, end));
        return (end, span.or_else(|| super::prose::value_before(text, (start, end))));
    }
    let raw = &text[start..end];
    let cli = raw.starts_with(b"--");
    let name_bytes = raw.trim_ascii_start().strip_prefix(b"--").unwrap_or(raw);
    let name_bytes = name_bytes.strip_suffix(b".").unwrap_or(name_bytes);
    let Ok(name) = std::str::from_utf8(name_bytes) else { return (end, None) };
    let mut class = classify_name(name);
    if !class.secret && is_cookie_header(name, text.get(end)) {
        class = NameClass { secret: true, ..NameClass::default() };
    }
    if !class.secret {
        return (end, None);
    }
    if let Some(field) = field {
        return (end, fields::value(text, start, end, field, class));
    }
    // `"key": "x-api-key", "value": …`: `key` labels a setting's name.
    if name.eq_ignore_ascii_case("key") && fields::labels_a_setting(text, start, end) {
        return (end, None);
    }
    // `Cache restored from key: Linux-node-8f3a…` (GitHub Actions' cache
    // log), `signed with key: 3AA5C…`: a bare `key` after a preposition is
    // prose naming a key, not a setting. (A token of a known format there
    // still goes, by its format.)
    if class.generic_key && after_preposition(text, start) {
        return (end, None);
    }
    let span = find_value(text, start, end, cli, class);
    (end, span)
}

/// The value given to a name found by other means than `name_bounds` (a
/// password's name in another script, `local.rs`), judged under `class`.
pub(super) fn value_of(
    text: &[u8],
    (start, end): (usize, usize),
    class: NameClass,
) -> Option<(usize, usize)> {
    if !looks_assigned(text, start, end) && verb_end(text, end).is_none() {
        return None;
    }
    find_value(text, start, end, false, class)
}

/// Whether the word before the name at `start` (a blank between) is
/// `from`, `with`, `for`, `by` or `using`.
fn after_preposition(text: &[u8], start: usize) -> bool {
    // (Bounded: a few blanks and six letters back.)
    let floor = start.saturating_sub(4);
    let e = floor + text[floor..start].trim_ascii_end().len();
    if e == start {
        return false;
    }
    let floor = e.saturating_sub(6);
    let s = text[floor..e].iter().rposition(|b| !b.is_ascii_alphabetic()).map_or(floor, |i| floor + i + 1);
    (s == 0 || !text[s - 1].is_ascii_alphabetic())
        && matches!(&text[s..e], b"from" | b"with" | b"for" | b"by" | b"using")
}

/// Cheap test before classifying the name: is there assignment syntax
/// around it at all? Most names in prose and code have none.
fn looks_assigned(text: &[u8], start: usize, end: usize) -> bool {
    let mut i = end;
    if matches!(text.get(i), Some(b'"' | b'\'' | b'`')) {
        i += 1;
    }
    if text.get(i) == Some(&b']') {
        i += 1;
    }
    let i = skip_blanks(text, i);
    let next = text.get(i).copied().unwrap_or(b'\n');
    if matches!(next, b'=' | b':' | b'!' | b'?' | b',' | b'(') {
        return true;
    }
    if next == 0xEF && (text[i..].starts_with(WIDE_COLON) || text[i..].starts_with(WIDE_EQUALS)) {
        return true;
    }
    // `--password value`, and `"value" == name` on the left.
    let mut j = start;
    if j > 0 && matches!(text[j - 1], b'"' | b'\'') {
        j -= 1;
    }
    let j = skip_blanks_back(text, j);
    text[start..].starts_with(b"--")
        || (j > 0 && text[j - 1] == b'=')
        || (is_ident(next) && i > end && after_type(text, i, false).is_some())
}

/// The value of a data context (see `context.rs`), if the name is in one:
/// `Some(span or None)`; `None` when the context is code.
fn data_context_value(
    text: &[u8],
    start: usize,
    end: usize,
    op: &[u8],
    op_at: usize,
    class: NameClass,
) -> Option<Option<(usize, usize)>> {
    let after = op_at + op.len();
    let ctx = context::of(text, start, end, op, op_at, after);
    if ctx == Context::Code {
        return None;
    }
    let v_at = skip_blanks(text, after);
    // `--password --verbose`: the next flag, not a value.
    if ctx == Context::Flag && op.is_empty() && text.get(v_at) == Some(&b'-') {
        return Some(None);
    }
    let stop = if ctx == Context::Header {
        start.checked_sub(1).map(|i| text[i]).filter(|q| matches!(q, b'\'' | b'"'))
    } else {
        None
    };
    let Some((span, quoted)) = context::data_value(text, v_at, ctx, MAX_VALUE, stop) else {
        return Some(None);
    };
    let span = after_scheme(text, span);
    Some((span.1 > span.0 && !context::keeps(&text[span.0..span.1], quoted, ctx, class)).then_some(span))
}

/// `Authorization: …` as a `-H '…'` argument: the name follows a quote
/// that does not close after it.
fn quoted_header(text: &[u8], start: usize, end: usize, class: NameClass) -> Option<Option<(usize, usize)>> {
    if !matches!(start.checked_sub(1).map(|i| text[i]), Some(b'\'' | b'"')) || text.get(end) != Some(&b':') {
        return None;
    }
    data_context_value(text, start, end, b":", end, class)
}

fn find_value(text: &[u8], start: usize, end: usize, cli: bool, class: NameClass) -> Option<(usize, usize)> {
    if let Some(found) = quoted_header(text, start, end, class) {
        return found;
    }
    let before = start.checked_sub(1).map(|i| text[i]);
    let quote = before.filter(|q| matches!(q, b'"' | b'\'' | b'`'));
    let mut i = end;
    if let Some(q) = quote {
        if text.get(i) != Some(&q) {
            return quoted_assignment(text, end, q, class);
        }
        i += 1;
        if text.get(i) == Some(&b']') {
            i += 1;
        }
    }
    let j = skip_blanks(text, i);
    let rest = &text[j..];
    let op = [&b":="[..], b"=>", b"===", b"!==", b"==", b"!=", b"?=", b"=", b":", WIDE_COLON, WIDE_EQUALS]
        .into_iter()
        .find(|op| rest.starts_with(op) && !(op == b":" && rest.get(1) == Some(&b':')));
    let found = if let Some(op) = op {
        if op == b"=" && quote.is_none() && closes_string(text, start, j + 1) {
            return None;
        }
        // `**GitHub Copilot OAuth:**4. Shortened`: a Markdown label whose
        // emphasis closes after the colon, then prose.
        if op == b":" && matches!(text.get(j + 1), Some(b'*' | b'_')) && text.get(j + 2) == text.get(j + 1) {
            return None;
        }
        if let Some(found) = data_context_value(text, start, end, op, j, class) {
            return found;
        }
        let after = j + op.len();
        // `passphrase: correct horse battery staple`: a person's words, all
        // of them. (Only under a passphrase's name: `First pass: collect
        // tool results` is a comment in a real transcript, and `Forgot
        // password: reset link sent` is prose.)
        if class.human && matches!(op, b":" | b"=") && names::is_passphrase(&text[start..end]) {
            let v = skip_blanks(text, after);
            if let Some(len) = passphrase_len(&text[v..context::line_end(text, v)]) {
                return Some((v, v + len));
            }
        }
        let comparison = matches!(op, b"===" | b"!==" | b"==" | b"!=");
        match value_at(text, after) {
            // `s.key===Z1`, `a.key!=null`: a comparison's literal is quoted;
            // a bare operand is an expression.
            Some(((s, e), false)) if comparison && bare_operand(&text[s..e]) => return None,
            // `auth.ts:12:import`: a grep line's file and line number.
            Some(((s, _), false)) if op == b":" && is_grep_prefix(&text[start..end], &text[s..]) => {
                return None
            }
            // `apiKey: string = "…"`, `api_key: str = "…"`: the value follows the type.
            Some(bare @ (_, false)) if op == b":" => {
                after_type(text, after, true).and_then(|k| value_at(text, k)).or(Some(bare))
            }
            found => found,
        }
    } else if matches!(quote, Some(b'"' | b'\'')) && rest.first() == Some(&b',') {
        // ("api_token", "value"): a lookup with a default, a setter. Only a
        // value that looks made by a machine: call arguments are mostly
        // other names (`sanitize('API_KEY', 'api-key')`).
        value_at(text, j + 1).filter(|&((s, e), quoted)| {
            // `.s("AWSSecurityTokenServiceV20110615", "AssumeRoleWithWebIdentity")`: words are not made.
            quoted
                && matches!(text[s - 1], b'"' | b'\'')
                && looks_made(&text[s..e])
                && !is_word_path(&text[s..e])
        })
    } else if cli && j > i && i < text.len() {
        return data_context_value(text, start, end, b"", j, class).flatten();
    } else if rest.first() == Some(&b'(') && j == i && quote.is_none() && is_declaration(text, start) {
        // std::string secret("value");
        value_at(text, j + 1).filter(|(_, quoted)| *quoted)
    } else if let Some(n) = super::prose::verb(rest).filter(|_| j > i && quote.is_none()) {
        // `my password is hunter2`: a sentence (`prose.rs`).
        return super::prose::value(text, (start, end), j + n, class);
    } else if j > i && quote.is_none() {
        // `var apiKey string = "…"` (Go): a one-word type, then the value.
        after_type(text, j, false).and_then(|k| value_at(text, k))
    } else {
        None
    };
    if let Some((span, quoted)) = found {
        let span = after_scheme(text, span);
        if span.1 > span.0 && !keeps_value(&text[span.0..span.1], quoted, class) {
            return Some(span);
        }
        return None;
    }
    reversed_comparison(text, start - usize::from(quote.is_some()), class)
}

/// Whether the quote right after `name=` (at `at`) closes a string the
/// name sits in: `"https://h/login?password=" + pw`, `"…;Password=" + pw`.
/// The string opened before the name on its line (an odd number of that
/// quote, unescaped, between the line's start and the name; an apostrophe
/// inside a word, `it's`, is none), and code follows the quote: an operator,
/// a closing bracket, a separator or the line's end. A value would follow
/// an opening one (`password='hunter2'`).
fn closes_string(text: &[u8], start: usize, at: usize) -> bool {
    let Some(&q) = text.get(at).filter(|q| matches!(q, b'"' | b'\'' | b'`')) else { return false };
    let next = text.get(skip_blanks(text, at + 1)).copied().unwrap_or(b'\n');
    if !matches!(next, b'+' | b'.' | b')' | b']' | b'}' | b',' | b';' | b'|' | b'\n' | b'\r') {
        return false;
    }
    let ls = context::line_start(text, start);
    let word = |k: usize| {
        k > ls && k + 1 < start && text[k - 1].is_ascii_alphanumeric() && text[k + 1].is_ascii_alphanumeric()
    };
    let mut odd = false;
    let mut k = ls;
    while k < start {
        match text[k] {
            b'\\' => k += 1,
            c if c == q && !word(k) => odd = !odd,
            _ => {}
        }
        k += 1;
    }
    odd
}

/// `"POSTGRES_PASSWORD=v"` (docker inspect's Env, a JSON list of settings),
/// `export 'API_TOKEN=v'` (bash -x): an assignment inside quotes, its value
/// up to the closing quote (before its escape, in a journal line's raw
/// text). A value with a space is prose or a command, not a setting.
fn quoted_assignment(text: &[u8], end: usize, q: u8, class: NameClass) -> Option<(usize, usize)> {
    if text.get(end) != Some(&b'=') || text.get(end + 1) == Some(&b'=') {
        return None;
    }
    let s = end + 1;
    let close = text[s..].iter().take(MAX_VALUE + 1).position(|&b| b == q || b == b'\n' || b == b'\r')? + s;
    if text[close] != q {
        return None;
    }
    let e = if q == b'"' && close > s && text[close - 1] == b'\\' { close - 1 } else { close };
    let v = &text[s..e];
    let ok = !v.is_empty() && !v.contains(&b' ') && !keeps_value(v, true, class);
    ok.then_some((s, e))
}

/// An operand of a comparison that is code, not a literal: it starts with
/// a member, a minifier's name or a variable without digits (`s.key===Z1`,
/// `a.key!=null`); `token == hunter2` still compares with a value.
fn bare_operand(v: &[u8]) -> bool {
    let head = v.iter().take_while(|&&b| is_ident(b) || b == b'.').count();
    let after = v.get(head).copied();
    let head = &v[..head];
    !head.is_empty()
        && match after {
            // A ternary on a member or a keyword: `a.key===b.key?x:y`, `a.key!=null?f(a):b`.
            Some(b'?') => head.contains(&b'.') && is_code_expression(head) || is_keyword_value(head),
            Some(b @ (b'&' | b'|')) => v.get(head.len() + 1) == Some(&b),
            other => matches!(other, None | Some(b')' | b';' | b',' | b' ')),
        }
        && keeps_value(head, false, NameClass::default())
        && (is_code_expression(head)
            || is_minified_name(head)
            || is_ident_start(head[0]) && !head.iter().any(u8::is_ascii_digit))
}

/// `file.ts:12:` or `file.ts:12-` (grep -n output): a file name, then a
/// line number, not a name and its value.
fn is_grep_prefix(name: &[u8], value: &[u8]) -> bool {
    let digits = value.iter().take_while(|b| b.is_ascii_digit()).count();
    name.contains(&b'.') && digits > 0 && matches!(value.get(digits), Some(b':' | b'-'))
}

/// Where the value starts after a type annotation that begins at `i` and
/// ends in ` = ` (not `==` or `=>`): `string`, `&'static str`,
/// `Option<String>`, `string | undefined` (`complex`), or one word (Go's
/// `var apiKey string = …`, checked on every name followed by a word, so it
/// stops at the word's end).
fn after_type(text: &[u8], i: usize, complex: bool) -> Option<usize> {
    let i = skip_blanks(text, i);
    let k = if complex {
        complex_type_end(text, i)?
    } else {
        let word = text[i..].iter().take(64).take_while(|&&b| is_ident(b) || b"*.[]".contains(&b)).count();
        skip_blanks(text, i + word)
    };
    let typed = text[i..k].iter().any(|&b| is_ident(b));
    let eq = text.get(k) == Some(&b'=') && !matches!(text.get(k + 1), Some(b'=' | b'>'));
    (typed && eq).then_some(k + 1)
}

/// The end of a type expression from `i` (at the `=` after it), within 64
/// bytes: identifiers, paths, generics, references, unions, optionals.
fn complex_type_end(text: &[u8], i: usize) -> Option<usize> {
    let limit = text.len().min(i + 64);
    let mut depth = 0u32;
    for (k, &b) in text.iter().enumerate().take(limit).skip(i) {
        match b {
            b'<' | b'[' => depth += 1,
            b'>' | b']' => depth = depth.checked_sub(1)?,
            b'=' if depth == 0 => return Some(k),
            b' ' | b'\t' | b'|' | b'?' | b'&' | b'\'' | b',' | b'.' | b':' | b'*' => {}
            _ if is_ident(b) => {}
            _ => return None,
        }
    }
    None
}

/// `Type name(`: the name follows a type and a space.
fn is_declaration(text: &[u8], start: usize) -> bool {
    start >= 2 && text[start - 1] == b' ' && (is_ident(text[start - 2]) || text[start - 2] == b'>')
}

/// `"value" == name`: a quoted literal compared with the name, on its left.
fn reversed_comparison(text: &[u8], name_start: usize, class: NameClass) -> Option<(usize, usize)> {
    let mut i = skip_blanks_back(text, name_start);
    let ops = [&b"==="[..], b"!==", b"==", b"!="];
    let op = ops.into_iter().find(|op| i >= op.len() && &text[i - op.len()..i] == *op)?;
    i = skip_blanks_back(text, i - op.len());
    let q = *text.get(i.checked_sub(1)?)?;
    if !matches!(q, b'"' | b'\'') {
        return None;
    }
    let close = i - 1;
    let floor = close.saturating_sub(MAX_VALUE);
    let open = (floor..close).rev().find(|&k| text[k] == q && (k == 0 || text[k - 1] != b'\\'))?;
    let span = (open + 1, close);
    (!keeps_value(&text[span.0..span.1], true, class)).then_some(span)
}

/// `scheme://user:pass@host`: the password goes, the user stays.
pub fn url_credentials(text: &[u8], pos: usize) -> Option<(usize, usize)> {
    let mut s = pos;
    while s > 0
        && (text[s - 1].is_ascii_alphanumeric() || matches!(text[s - 1], b'+' | b'.' | b'-'))
        && pos - s < 32
    {
        s -= 1;
    }
    if s == pos || !text[s].is_ascii_alphabetic() {
        return None;
    }
    let user_start = pos + 3;
    let limit = text.len().min(user_start + 512);
    // The first `:` before any `@`, and the authority's last `@`: a raw
    // `@` in the password (`u:p@ss@host`: RFC 3986 asks for %40, people
    // paste it as it is). Cut at the first `@`, `p` was too short to be a
    // password and the whole of it stayed.
    let (mut colon, mut at) = (None, None);
    for (i, &b) in text.iter().enumerate().take(limit).skip(user_start) {
        match b {
            b':' if colon.is_none() && at.is_none() => colon = Some(i),
            b'@' => at = Some(i),
            b'/' | b'?' | b'#' | b' ' | b'\n' | b'\r' | b'\t' | b'"' | b'\'' | b'<' | b'>' => break,
            // Past an `@`, a backslash ends the authority too (a `\n` in a
            // journal line's JSON text).
            b'\\' if at.is_some() => break,
            _ => {}
        }
    }
    let span = (colon? + 1, at?);
    // Userinfo is data: its password is a literal, whatever it looks like
    // (`https://user:hunter@host`).
    let human = NameClass { secret: true, human: true, ..NameClass::default() };
    let ok = span.1 > span.0 && !keeps_literal(&text[span.0..span.1], human);
    ok.then_some(span)
}

/// `Bearer v`, `Basic v` where no name precedes (a curl -v line, a log).
pub fn scheme_credentials(text: &[u8], pos: usize, len: usize) -> Option<(usize, usize)> {
    if pos > 0 && text[pos - 1].is_ascii_alphanumeric() {
        return None;
    }
    if text.get(pos + len) != Some(&b' ') {
        return None;
    }
    let start = pos + len + 1;
    let (s, e) = bare_value(text, start);
    let v = &text[s..e];
    let shaped = v.len() >= 8
        && v.iter().all(|&b| b.is_ascii_alphanumeric() || b"._~+/=-".contains(&b))
        && (v.iter().any(u8::is_ascii_digit)
            || (v.iter().any(u8::is_ascii_uppercase) && v.iter().any(u8::is_ascii_lowercase))
            || v.iter().any(|b| b"+/=_".contains(b)));
    (shaped && !keeps_value(v, true, NameClass::default())).then_some((s, e))
}
