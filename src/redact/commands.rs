//! Credentials that commands and their files take without a `name=` before
//! them (rule 3's data contexts, `context.rs`): `mysql -pPW`,
//! `sshpass -p PW`, `curl -u user:PW`, `docker login -p PW`,
//! `::add-mask::PW` (GitHub Actions), a `.netrc`
//! line (`machine h login u password PW`) and a `.pgpass` line
//! (`host:port:db:user:PW`). Each starts
//! at a prefilter hit (the command's name, `-p `, `:5432:`) and looks only along
//! its own line.

use super::context::{line_end, line_start, skip_blanks};
use super::names::NameClass;
use super::value::keeps_literal;

/// Longest value taken.
const MAX_VALUE: usize = 1024;

fn human() -> NameClass {
    NameClass { secret: true, numeric: true, human: true, ..NameClass::default() }
}

/// A value from `i`: quoted (inner span) or to white space.
fn word(text: &[u8], i: usize, le: usize) -> Option<(usize, usize)> {
    let le = le.min(i + MAX_VALUE);
    let first = *text.get(i).filter(|_| i < le)?;
    if matches!(first, b'\'' | b'"') {
        let end = text[i + 1..le].iter().position(|&b| b == first).map_or(le, |p| i + 1 + p);
        return Some((i + 1, end));
    }
    let end = text[i..le].iter().position(|b| matches!(b, b' ' | b'\t')).map_or(le, |p| i + p);
    Some((i, end))
}

/// The span kept only when it is a literal (not `$MYSQL_PWD`, not `***`).
fn literal(text: &[u8], span: (usize, usize)) -> Option<(usize, usize)> {
    (span.1 > span.0 && !keeps_literal(&text[span.0..span.1], human())).then_some(span)
}

/// Where the command that starts at `pos` ends: its line, cut at `&&`,
/// `||`, `;`, or a `|` or `&` with a blank before it (a lone `&` inside a
/// word is a password's, not the shell's).
fn command_end(text: &[u8], pos: usize) -> usize {
    let le = line_end(text, pos);
    (pos..le)
        .find(|&k| match text[k] {
            b';' => true,
            b'&' | b'|' => {
                text.get(k + 1) == Some(&text[k]) || (k > 0 && matches!(text[k - 1], b' ' | b'\t'))
            }
            _ => false,
        })
        .unwrap_or(le)
}

/// Finds ` flag` (preceded by a blank) in `text[from..to]`.
fn find_flag(text: &[u8], from: usize, to: usize, flag: &[u8]) -> Option<usize> {
    let hay = &text[from..to];
    let mut at = 0;
    while let Some(p) = hay[at..].windows(flag.len()).position(|w| w == flag) {
        let k = from + at + p;
        if k > 0 && matches!(text[k - 1], b' ' | b'\t') {
            return Some(k);
        }
        at += p + 1;
    }
    None
}

/// The secret a command hit (`len` bytes at `pos`) gives, if any.
pub fn detect(text: &[u8], pos: usize, len: usize) -> Option<(usize, usize)> {
    let lit = text[pos..pos + len].to_ascii_lowercase();
    let lit = &lit[..];
    // The command's name must be a word of its own (not `mysql_connect`).
    let bounded_before = pos == 0 || !text[pos - 1].is_ascii_alphanumeric() && text[pos - 1] != b'_';
    match lit {
        b"mysql" | b"mariadb" | b"sshpass" | b"curl " if !bounded_before => None,
        b"mysql" | b"mariadb" => {
            // `-pSECRET` (glued: `-p secret` would prompt and name a database).
            let end = command_end(text, pos);
            let k = find_flag(text, pos, end, b"-p")?;
            let v = k + 2;
            if text.get(v).is_none_or(|b| matches!(b, b' ' | b'\t')) {
                return None;
            }
            literal(text, word(text, v, end)?)
        }
        b"sshpass" => {
            let end = command_end(text, pos);
            let k = find_flag(text, pos, end, b"-p")?;
            literal(text, word(text, skip_blanks(text, k + 2).min(end), end)?)
        }
        b"-p " | b"-p=" => registry_login(text, pos),
        // The value is a word: in `echo "::add-mask::$TOKEN"` a quote ends it.
        b"::add-mask::" => {
            let v = pos + len;
            let le = line_end(text, v).min(v + MAX_VALUE);
            let end = text[v..le]
                .iter()
                .position(|b| matches!(b, b' ' | b'\t' | b'"' | b'\''))
                .map_or(le, |p| v + p);
            literal(text, (v, end))
        }
        b"curl " => {
            let end = command_end(text, pos);
            let (k, n) = find_flag(text, pos, end, b"-u ")
                .map(|k| (k, 3))
                .or_else(|| find_flag(text, pos, end, b"--user ").map(|k| (k, 7)))?;
            let (s, e) = word(text, k + n, end)?;
            // `user:password`: the user stays.
            let colon = text[s..e].iter().position(|&b| b == b':')?;
            literal(text, (s + colon + 1, e))
        }
        _ => pgpass(text, pos),
    }
}

/// `docker login -u ci -p PW` (or podman's): the `-p` at `pos` follows
/// `docker login` or `podman login` in the same command (`--password PW`
/// is a flag rule 3 knows).
fn registry_login(text: &[u8], pos: usize) -> Option<(usize, usize)> {
    if pos == 0 || !matches!(text[pos - 1], b' ' | b'\t') {
        return None;
    }
    // A login command is short: 256 bytes back at most.
    let ls = line_start(text, pos).max(pos.saturating_sub(256));
    let head = &text[ls..pos];
    let at = [&b"docker login "[..], b"podman login "]
        .iter()
        .filter_map(|cmd| head.windows(cmd.len()).rposition(|w| w == *cmd))
        .max()?;
    let at = ls + at;
    if (at > 0 && text[at - 1].is_ascii_alphanumeric()) || command_end(text, at) < pos {
        return None;
    }
    let end = command_end(text, pos);
    literal(text, word(text, skip_blanks(text, pos + 3).min(end), end)?)
}

/// A `.pgpass` line around `pos`: `hostname:port:database:username:password`,
/// port digits or `*`; `\:` escapes a colon.
fn pgpass(text: &[u8], pos: usize) -> Option<(usize, usize)> {
    // A .pgpass line is short and has no blank: look 256 bytes each way at
    // most, and stop at the first blank.
    let is_line_byte = |b: &u8| !matches!(b, b'\n' | b'\r' | b' ' | b'\t' | b'"' | b'\'');
    let back = text[pos.saturating_sub(256)..pos].iter().rev().take_while(|b| is_line_byte(b)).count();
    let ls = pos - back;
    let le = pos + text[pos..text.len().min(pos + 256)].iter().take_while(|b| is_line_byte(b)).count();
    if !(ls == 0 || matches!(text[ls - 1], b'\n' | b'\r'))
        || !(le == text.len() || matches!(text[le], b'\n' | b'\r'))
    {
        return None;
    }
    let line = &text[ls..le];
    let mut fields = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < line.len() {
        match line[i] {
            b'\\' => i += 2,
            b':' => {
                fields.push((start, i));
                start = i + 1;
                i += 1;
            }
            _ => i += 1,
        }
    }
    fields.push((start, line.len().min(i)));
    if fields.len() != 5 {
        return None;
    }
    let port = &line[fields[1].0..fields[1].1];
    if !(port == b"*" || (!port.is_empty() && port.iter().all(u8::is_ascii_digit))) {
        return None;
    }
    let (s, e) = fields[4];
    literal(text, (ls + s, ls + e))
}

/// A `.netrc` password: `password` (or `passwd`) followed by a blank and a
/// token, on a line that also says `machine`, `default` or `login`, or right
/// under such a line.
pub fn netrc(text: &[u8], start: usize, end: usize) -> Option<(usize, usize)> {
    let name = &text[start..end];
    if name != b"password" && name != b"passwd" {
        return None;
    }
    if !text.get(end).is_some_and(|b| matches!(b, b' ' | b'\t')) {
        return None;
    }
    // A netrc line is short: 300 bytes back is enough.
    let ls = line_start(text, start).max(start.saturating_sub(300));
    let le = line_end(text, start);
    let before = text[ls..start].trim_ascii();
    let netrc_word =
        |s: &[u8]| s.starts_with(b"machine ") || s.starts_with(b"default") || s.starts_with(b"login ");
    let ok = if before.is_empty() {
        // The line above, for the one-token-a-line layout.
        ls > 0 && {
            let pe = ls - 1;
            let ps = line_start(text, pe).max(pe.saturating_sub(300));
            let above = text[ps..pe].trim_ascii();
            netrc_word(above)
        }
    } else {
        netrc_word(before) || before.windows(7).any(|w| w == b" login ")
    };
    if !ok {
        return None;
    }
    literal(text, word(text, skip_blanks(text, end).min(le), le)?)
}
