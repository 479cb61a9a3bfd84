//! Rule 3 where a structure, not an operator, pairs a secret's name with its
//! value (a red-team review found each of these on disk):
//! - a setting whose name is itself a field's value, its value the next
//!   field: a HAR header (`{"name": "x-api-key", "value": "…"}`), a
//!   Kubernetes or ECS `env` entry (`- name: DB_PASSWORD` then
//!   `value: …`), a Postman variable (`"key": …, "value": …`), .NET's
//!   `<add key="StripeSecret" value="…"/>`, Terraform's `{ name = …, value = … }`;
//! - an XML element: `<password>…</password>` (Maven's settings.xml);
//! - a Markdown table row of two cells: `| DB_PASSWORD | … |`;
//! - a Markdown table's column under a secret's name in its header row
//!   (`| user | password |`, then each row's cell);
//! - a YAML value on the line under its key (`password:` or `password: |`);
//! - JSON whose quotes are escaped, inside a string (a log line's
//!   `"{\"password\": \"…\"}"`).
//!
//! `assign.rs` asks `of` about each secret-looking name before it looks for
//! an operator; the answer is a few byte comparisons around the name.

#![forbid(unsafe_code)]

use super::assign::{after_scheme, value_at, MAX_VALUE};
use super::context::{content_start, line_end, line_start, skip_blanks, skip_blanks_back};
use super::names::{classify_name, NameClass};
use super::value::keeps_value;

/// How the name at `start..end` is paired with its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field {
    /// The name is the value of a `name` or `key` label, and a `value`
    /// field follows it: its value starts at the byte given.
    Labelled(usize),
    /// `<name>value</name>`.
    Element,
    /// `| name | value |`: the value cell's span.
    Row(usize, usize),
    /// `\"name\": …`.
    Escaped,
    /// A YAML key whose value is the next line, alone and indented deeper
    /// (`password:` or `password: |`, then `  v`): the value's span.
    NextLine(usize, usize),
}

fn is_blank(b: u8) -> bool {
    matches!(b, b' ' | b'\t')
}

/// How the name at `start..end` sits in a structure, if it does.
#[inline(never)]
pub fn of(text: &[u8], start: usize, end: usize) -> Option<Field> {
    let before = start.checked_sub(1).map(|i| text[i]);
    let after = text.get(end).copied();
    match (before, after) {
        (Some(b'<'), Some(b'>')) => Some(Field::Element),
        (Some(b'"'), Some(b'\\')) if start >= 2 && text[start - 2] == b'\\' => {
            let i = skip_blanks(text, end + 2);
            (text.get(end + 1) == Some(&b'"') && text.get(i) == Some(&b':')).then_some(Field::Escaped)
        }
        (_, Some(b':')) => next_line(text, start, end),
        _ => labelled(text, start, end).or_else(|| row(text, start, end)),
    }
}

/// The value's span for a name that `of` placed, when it is a secret.
#[inline(never)]
pub fn value(
    text: &[u8],
    start: usize,
    end: usize,
    field: Field,
    class: NameClass,
) -> Option<(usize, usize)> {
    let (span, quoted) = match field {
        Field::Labelled(at) => value_at(text, at)?,
        Field::Element => (element(text, start, end)?, true),
        Field::Row(s, e) | Field::NextLine(s, e) => ((s, e), true),
        Field::Escaped => escaped(text, skip_blanks(text, end + 2) + 1)?,
    };
    let (s, e) = after_scheme(text, span);
    (e > s && !keeps_value(&text[s..e], quoted, class)).then_some((s, e))
}

/// Whether the label `key` at `start..end` names a setting rather than
/// holding a secret: `"key": "x-api-key", "value": …` (Postman). Its value
/// is the setting's name, which `of` then pairs with the `value` field.
#[inline(never)]
pub fn labels_a_setting(text: &[u8], start: usize, end: usize) -> bool {
    let q = start.checked_sub(1).map(|i| text[i]).filter(|&b| b == b'"' || b == b'\'');
    let mut i = end;
    if let Some(q) = q {
        if text.get(i) != Some(&q) {
            return false;
        }
        i += 1;
    }
    let i = skip_blanks(text, i);
    if !matches!(text.get(i), Some(b':' | b'=')) {
        return false;
    }
    let v = skip_blanks(text, i + 1);
    let v_end = match text.get(v) {
        Some(&q @ (b'"' | b'\'')) => match text[v + 1..].iter().take(MAX_VALUE).position(|&b| b == q) {
            Some(p) => v + 2 + p,
            None => return false,
        },
        _ => {
            v + text[v..]
                .iter()
                .take(MAX_VALUE)
                .take_while(|&&b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b','))
                .count()
        }
    };
    v_end > v && sibling_value(text, v_end).is_some()
}

/// `"name": "x-api-key"`, `key="ApiSecret"`, `- name: DB_PASSWORD`: the
/// name is the value of a `name` or `key` label, and a `value` field
/// follows.
fn labelled(text: &[u8], start: usize, end: usize) -> Option<Field> {
    let q = start.checked_sub(1).map(|i| text[i]).filter(|&b| b == b'"' || b == b'\'');
    let mut i = start - usize::from(q.is_some());
    let mut after = end;
    if let Some(q) = q {
        if text.get(end) != Some(&q) {
            return None;
        }
        after += 1;
    }
    i = skip_blanks_back(text, i);
    if !matches!(i.checked_sub(1).map(|k| text[k]), Some(b':' | b'=')) {
        return None;
    }
    i = skip_blanks_back(text, i - 1);
    let lq = i.checked_sub(1).map(|k| text[k]).filter(|&b| b == b'"' || b == b'\'');
    i -= usize::from(lq.is_some());
    let label = [&b"name"[..], b"key"]
        .into_iter()
        .find(|l| i >= l.len() && text[i - l.len()..i].eq_ignore_ascii_case(l))?;
    let ls = i - label.len();
    let bounded = match lq {
        Some(q) => ls > 0 && text[ls - 1] == q,
        None => {
            ls == 0 || !(text[ls - 1].is_ascii_alphanumeric() || matches!(text[ls - 1], b'_' | b'-' | b'.'))
        }
    };
    if !bounded {
        return None;
    }
    sibling_value(text, after).map(Field::Labelled)
}

/// The `value` field right after a setting's name: `, "value": v`,
/// ` value="v"`, or `value: v` on the next line. Returns where the value
/// starts (after the operator).
fn sibling_value(text: &[u8], from: usize) -> Option<usize> {
    let limit = text.len().min(from + 128);
    let (mut j, mut comma, mut breaks) = (from, false, 0);
    while j < limit {
        match text[j] {
            b' ' | b'\t' | b'\r' => {}
            b',' if !comma => comma = true,
            b'\n' if breaks == 0 => breaks = 1,
            _ => break,
        }
        j += 1;
    }
    // A separator is needed: `"DB_PASSWORD"value` is no pair.
    if j == from {
        return None;
    }
    let q = text.get(j).copied().filter(|&b| b == b'"' || b == b'\'');
    j += usize::from(q.is_some());
    if !text.get(j..j + 5)?.eq_ignore_ascii_case(b"value") {
        return None;
    }
    j += 5;
    if let Some(q) = q {
        if text.get(j) != Some(&q) {
            return None;
        }
        j += 1;
    }
    let j = skip_blanks(text, j);
    matches!(text.get(j), Some(b':' | b'=')).then_some(j + 1)
}

/// `<password>v</password>`: the element's text, trimmed, when the same
/// name closes it.
fn element(text: &[u8], start: usize, end: usize) -> Option<(usize, usize)> {
    let s = end + 1;
    let close = s + text[s..].iter().take(MAX_VALUE).position(|&b| b == b'<')?;
    let name = &text[start..end];
    let closes = text[close..].starts_with(b"</")
        && text.get(close + 2..close + 2 + name.len()).is_some_and(|n| n.eq_ignore_ascii_case(name))
        && text.get(close + 2 + name.len()) == Some(&b'>');
    let v = text[s..close].trim_ascii();
    let vs = s + text[s..close].iter().take_while(|b| b.is_ascii_whitespace()).count();
    (closes && !v.is_empty()).then_some((vs, vs + v.len()))
}

/// `| password | v |` ending its line: a table of settings, two cells a
/// row. (A third cell makes it a table of parameters, `| token | string |
/// what it is |`, whose second cell is no value.) The value has no blank.
fn row(text: &[u8], start: usize, end: usize) -> Option<Field> {
    let b = skip_blanks_back(text, start);
    if b == 0 || text[b - 1] != b'|' {
        return None;
    }
    let i = skip_blanks(text, end);
    if text.get(i) != Some(&b'|') {
        return None;
    }
    let s = skip_blanks(text, i + 1);
    let e = s + text[s..]
        .iter()
        .take(MAX_VALUE)
        .take_while(|&&b| !matches!(b, b' ' | b'\t' | b'|' | b'\n' | b'\r'))
        .count();
    let k = skip_blanks(text, e);
    // (In a raw journal line the line break is escaped: `|\\n`.)
    let last = text.get(k) == Some(&b'|')
        && matches!(text.get(skip_blanks(text, k + 1)), None | Some(b'\n' | b'\r' | b'\\'));
    (e > s && last).then_some(Field::Row(s, e))
}

/// The value after `\"name\":` from `i`: `\"v\"` (up to the next escaped
/// quote) or a bare word.
fn escaped(text: &[u8], i: usize) -> Option<((usize, usize), bool)> {
    let i = skip_blanks(text, i);
    if text[i..].starts_with(b"\\\"") {
        let s = i + 2;
        let limit = text.len().min(s + MAX_VALUE);
        let e = (s..limit).find(|&k| text[k] == b'\\' && text.get(k + 1) == Some(&b'"')).unwrap_or(limit);
        return Some(((s, e), true));
    }
    let e = i + text[i..]
        .iter()
        .take(MAX_VALUE)
        .take_while(|&&b| !matches!(b, b',' | b'}' | b'\\' | b' ' | b'\n'))
        .count();
    Some(((i, e), false))
}

/// The indentation of the line holding `pos`, if only blanks (and a YAML
/// list's `- `) come before `pos` on it.
fn key_indent(text: &[u8], pos: usize) -> Option<usize> {
    // (`line_start` looks a bounded way back: a long line of `password:`
    // over and over stays linear.)
    let ls = line_start(text, pos);
    let head = &text[ls..pos];
    let indent = head.iter().take_while(|&&b| is_blank(b)).count();
    let rest = &head[indent..];
    (rest.is_empty() || rest == b"- ").then_some(indent)
}

/// `password:` (or `password: |`, `>-`) ending its line, and the value
/// alone on the next line, indented deeper, with nothing deeper after it.
fn next_line(text: &[u8], start: usize, end: usize) -> Option<Field> {
    let mut i = skip_blanks(text, end + 1);
    if matches!(text.get(i), Some(b'|' | b'>')) {
        i += 1;
        i += usize::from(matches!(text.get(i), Some(b'-' | b'+')));
        i = skip_blanks(text, i);
    }
    i += usize::from(text.get(i) == Some(&b'\r'));
    if text.get(i) != Some(&b'\n')
        || start.checked_sub(1).is_some_and(|k| text[k] == b'"' || text[k] == b'\'')
    {
        return None;
    }
    let indent = key_indent(text, start)?;
    let ls = i + 1;
    let s = skip_blanks(text, ls);
    let e = s + text[s..]
        .iter()
        .take(MAX_VALUE)
        .take_while(|&&b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
        .count();
    let k = skip_blanks(text, e);
    let k = k + usize::from(text.get(k) == Some(&b'\r'));
    let deeper = s - ls > indent;
    let alone = e > s && !matches!(text[s], b'-' | b'#' | b'{' | b'[') && text[e - 1] != b':';
    // The line after is no deeper than the key: the value is one line.
    let then = match text.get(k) {
        None => true,
        Some(b'\n') => skip_blanks(text, k + 1) - (k + 1) <= indent,
        _ => false,
    };
    (deeper && alone && then).then_some(Field::NextLine(s, e))
}

/// A Markdown table under a header row that names a secret in a cell: which
/// columns hold secrets, and where its rows start.
pub struct Table {
    /// Each secret column's index, and what its name says.
    columns: Vec<(usize, NameClass)>,
    /// The rows start with a pipe (`| a | b |`, not `a | b`).
    leading: bool,
    /// The end of the delimiter row: the rows follow.
    rows_from: usize,
    /// The end of the header row (other names in it need no look).
    pub header_end: usize,
}

/// A pipe beside the name at `start..end`, blanks between: a table's cell.
pub fn beside_pipe(text: &[u8], start: usize, end: usize) -> bool {
    text.get(skip_blanks(text, end)) == Some(&b'|')
        || skip_blanks_back(text, start).checked_sub(1).is_some_and(|i| text[i] == b'|')
}

/// The table whose header row holds the name at `start..end` alone in a
/// cell (`| user | password |`, or a table without outer pipes), with the
/// header's delimiter row (`|---|:--|`) on the next line, and a secret's
/// name in one of its cells at least. Not a bare `key` (`| Key | Action |`:
/// a table of shortcuts).
#[inline(never)]
pub fn table_header(text: &[u8], start: usize, end: usize) -> Option<Table> {
    // The cheap test first.
    if !beside_pipe(text, start, end) {
        return None;
    }
    let b = skip_blanks_back(text, start);
    let a = skip_blanks(text, end);
    let (ls, le) = (line_start(text, start), line_end(text, start));
    let cs = content_start(text, ls, le);
    if cs > b || end > le || a > le {
        return None;
    }
    if !(b == cs || text[b - 1] == b'|') || !(a == le || text[a] == b'|') {
        return None;
    }
    let ds = past_break(text, le)?;
    let de = line_end(text, ds);
    if !is_delimiter_row(&text[content_start(text, ds, de)..de]) {
        return None;
    }
    let leading = text[cs] == b'|';
    let mut columns = Vec::new();
    for_each_cell(text, cs + usize::from(leading), le, |index, (s, e)| {
        let name = text[s..e].trim_ascii();
        let name = name.strip_prefix(b"**").and_then(|n| n.strip_suffix(b"**")).unwrap_or(name);
        let class = std::str::from_utf8(name).map(classify_name).unwrap_or_default();
        if class.secret && !class.generic_key {
            columns.push((index, class));
        }
        index < 64
    });
    (!columns.is_empty()).then_some(Table { columns, leading, rows_from: de, header_end: le })
}

/// `|---|:--:|`, `--- | ---`: dashes, colons, pipes and blanks only.
fn is_delimiter_row(row: &[u8]) -> bool {
    let (mut pipes, mut dashes) = (0, 0);
    for &b in row {
        match b {
            b'|' => pipes += 1,
            b'-' => dashes += 1,
            b':' | b' ' | b'\t' => {}
            _ => return false,
        }
    }
    pipes > 0 && dashes >= 3
}

/// Calls `f` with each cell of the row between `from` (after a leading
/// pipe) and `to`, and its index, until `f` says stop: cells end at pipes
/// that are not escaped (`\|`); what follows the last pipe is a cell when
/// it is not blank (`a | b`).
fn for_each_cell(text: &[u8], from: usize, to: usize, mut f: impl FnMut(usize, (usize, usize)) -> bool) {
    let (mut s, mut index) = (from, 0);
    for j in from..to {
        if text[j] == b'|' && !(j > 0 && text[j - 1] == b'\\') {
            if !f(index, (s, j)) {
                return;
            }
            index += 1;
            s = j + 1;
        }
    }
    if !text[s..to].trim_ascii().is_empty() {
        f(index, (s, to));
    }
}

/// The secret cells of a table's secret columns, row by row: up to the
/// first line that is no row (or another table's delimiter row), 1,000
/// rows at most, so each line is looked at for one table. A cell's code
/// span (`` `v` ``) goes without its backticks.
#[inline(never)]
pub fn column_values(text: &[u8], table: &Table, out: &mut Vec<(usize, usize)>) {
    let mut at = table.rows_from;
    for _ in 0..1000 {
        let Some(ls) = past_break(text, at) else { return };
        let le = line_end(text, ls);
        let cs = content_start(text, ls, le);
        let row = &text[cs..le];
        if !row.contains(&b'|') || table.leading && row[0] != b'|' || is_delimiter_row(row) {
            return;
        }
        at = le;
        let mut columns = table.columns.iter().peekable();
        for_each_cell(text, cs + usize::from(table.leading), le, |index, (s, e)| {
            if let Some(&(_, class)) = columns.next_if(|(i, _)| *i == index) {
                let s = skip_blanks(text, s);
                let e = skip_blanks_back(text, e).max(s);
                let (s, e) = match &text[s..e] {
                    [b'`', inner @ .., b'`'] if !inner.is_empty() => (s + 1, e - 1),
                    _ => (s, e),
                };
                if e > s && !keeps_value(&text[s..e], true, class) {
                    out.push((s, e));
                }
            }
            columns.peek().is_some()
        });
    }
}

/// Past the line break at `at` (`\n` or `\r\n`), or None at the text's end
/// or a line cut at `MAX_LINE`.
fn past_break(text: &[u8], at: usize) -> Option<usize> {
    match text.get(at)? {
        b'\r' if text.get(at + 1) == Some(&b'\n') => Some(at + 2),
        b'\n' | b'\r' => Some(at + 1),
        _ => None,
    }
}
