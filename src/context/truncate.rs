//! `truncateToolOutput`: a tool output too large for the context keeps its
//! first and last lines and a note of what was left out (the seed
//! `001_dbd289b3f56b60c7.txt`, jcode's TruncateToolOutput: 50 KB or 2,000
//! lines, head 200, tail 500).
//!
//! Choices where the seed is silent, made for the model reading the result:
//! - Lines are what `\n` ends; a last line without one counts too.
//! - Whole lines where any fit: a line that does not fit is left out whole.
//! - The kept text stays within `max_bytes` (plus the note): the head may
//!   use its share of the bytes (`max_bytes × head/(head+tail)`), the tail
//!   the rest. With lines of 80 bytes the defaults keep about 180 and 450
//!   lines.
//! - A side whose first line alone is over its share (minified JSON, a
//!   bundle, one 10 MB line) keeps the part of that line that fits, cut at
//!   a character boundary, rather than nothing: the model then sees how the
//!   output begins and ends. The note says a line was cut.

#![forbid(unsafe_code)]

use crate::accounting::thousands;
use crate::bytes::{count_byte, find_byte};

/// The seed's defaults.
pub const MAX_BYTES: usize = 50 * 1024;
pub const MAX_LINES: usize = 2000;
pub const HEAD_LINES: usize = 200;
pub const TAIL_LINES: usize = 500;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    pub max_bytes: usize,
    pub max_lines: usize,
    pub head_lines: usize,
    pub tail_lines: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits { max_bytes: MAX_BYTES, max_lines: MAX_LINES, head_lines: HEAD_LINES, tail_lines: TAIL_LINES }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Truncated<'a> {
    /// The output itself when nothing was cut (borrowed: no copy of a
    /// small output), else head, note and tail.
    pub text: std::borrow::Cow<'a, str>,
    pub truncated: bool,
    pub omitted_lines: usize,
    pub omitted_bytes: usize,
}

/// Truncates `output` when it is over `limits.max_bytes` or has more than
/// `limits.max_lines` lines. `full_at` names where the whole output was
/// kept (a path, a store key), for the note; None says it was not kept.
pub fn truncate_tool_output<'a>(output: &'a str, limits: &Limits, full_at: Option<&str>) -> Truncated<'a> {
    let bytes = output.as_bytes();
    let lines = line_count(bytes);
    if bytes.len() <= limits.max_bytes && lines <= limits.max_lines {
        return Truncated { text: output.into(), truncated: false, omitted_lines: 0, omitted_bytes: 0 };
    }
    let limits = &within_max_lines(limits);
    let (head_share, tail_share) = shares(limits);
    let mut head_end = head_end(bytes, limits.head_lines, head_share);
    if head_end == 0 && limits.head_lines > 0 {
        // Not even the first line fits: its start, whole characters.
        head_end = char_floor(output, head_share.min(bytes.len()));
    }
    let head_cut = head_end > 0 && head_end < bytes.len() && bytes[head_end - 1] != b'\n';
    // Whole tail lines start after the line the head cut.
    let floor = match head_cut {
        true => find_byte(&bytes[head_end..], b'\n').map_or(bytes.len(), |i| head_end + i + 1),
        false => head_end,
    };
    let mut tail_start = tail_start(bytes, floor, limits.tail_lines, tail_share);
    if tail_start == bytes.len() && limits.tail_lines > 0 {
        // Not even the last line fits: its end, whole characters.
        tail_start = char_ceil(output, bytes.len().saturating_sub(tail_share).max(head_end));
    }
    // Lines with a byte kept, a line cut on both sides counted once.
    let (head_lines, tail_lines) = (line_count(&bytes[..head_end]), line_count(&bytes[tail_start..]));
    let tail_cut = tail_start > 0 && tail_start < bytes.len() && bytes[tail_start - 1] != b'\n';
    let shared = head_cut && tail_cut && find_byte(&bytes[head_end..tail_start], b'\n').is_none();
    let omitted_lines = (lines + usize::from(shared)).saturating_sub(head_lines + tail_lines);
    let cut_lines = usize::from(head_cut) + usize::from(tail_cut) - usize::from(shared);
    let omitted_bytes = tail_start - head_end;
    if omitted_bytes == 0 {
        // Nothing left out: a note of nothing would only make it longer.
        return Truncated { text: output.into(), truncated: false, omitted_lines: 0, omitted_bytes: 0 };
    }
    // Both ends are character boundaries: after a `\n`, the text's ends,
    // or a cut made at one.
    let (head, tail) = (&output[..head_end], &output[tail_start..]);
    let mut text = String::with_capacity(head.len() + tail.len() + 200);
    text.push_str(head);
    if !head.is_empty() && !head.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(&note(omitted_lines, cut_lines, omitted_bytes, full_at));
    if !tail.is_empty() {
        text.push('\n');
        text.push_str(tail);
    }
    Truncated { text: text.into(), truncated: true, omitted_lines, omitted_bytes }
}

/// The note between head and tail, e.g. "[… 4,300 lines (312,004 bytes)
/// left out …]" or "[… part of a line (1,948,800 bytes) left out …]", and
/// where to find them. `cut`: lines of which only a part was kept.
fn note(lines: usize, cut: usize, bytes: usize, full_at: Option<&str>) -> String {
    // Pushed piece by piece: format! here cost the module 0.4 KB.
    let mut out = String::from("[… ");
    // At most two lines are cut: the head's and the tail's.
    out.push_str(["", "part of a line", "parts of 2 lines"][cut.min(2)]);
    if cut > 0 && lines > 0 {
        out.push_str(" and ");
    }
    if cut == 0 || lines > 0 {
        out.push_str(&thousands(lines as u64));
        out.push_str(if lines == 1 { " line" } else { " lines" });
    }
    out.push_str(" (");
    out.push_str(&thousands(bytes as u64));
    out.push_str(" bytes) left out …");
    match full_at {
        Some(at) => {
            out.push_str(" The full output is kept at ");
            out.push_str(at);
            out.push_str(": read the lines you need from there.]");
        }
        None => out.push_str(
            " The full output was not kept: run the tool again with a narrower query to see them.]",
        ),
    }
    out
}

/// The largest character boundary at or before `i`.
fn char_floor(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest character boundary at or after `i`.
fn char_ceil(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Lines as `\n` ends them, and a last one without it.
fn line_count(bytes: &[u8]) -> usize {
    count_byte(bytes, b'\n') + usize::from(bytes.last().is_some_and(|&b| b != b'\n'))
}

/// Head and tail lines that together keep at most `max_lines`, in their
/// proportion: `{ maxLines: 2, headLines: 5 }` kept the 5 and the tail's
/// 500 of a 10-line output, all of it, with a note of 0 lines between (a
/// new-user review, stop 48).
fn within_max_lines(l: &Limits) -> Limits {
    let lines = l.head_lines.saturating_add(l.tail_lines);
    if lines <= l.max_lines {
        return *l;
    }
    let head = (l.max_lines as u128 * l.head_lines as u128 / lines as u128) as usize;
    Limits { head_lines: head, tail_lines: l.max_lines - head, ..*l }
}

/// The byte shares of head and tail, in proportion to their line counts.
fn shares(l: &Limits) -> (usize, usize) {
    let lines = l.head_lines.saturating_add(l.tail_lines);
    if lines == 0 {
        return (0, 0);
    }
    let head = (l.max_bytes as u128 * l.head_lines as u128 / lines as u128) as usize;
    (head, l.max_bytes - head)
}

/// The end of the first `n` lines that fit in `budget` bytes. Searches
/// no further than the budget: a 10 MB first line costs nothing.
fn head_end(bytes: &[u8], n: usize, budget: usize) -> usize {
    let limit = budget.min(bytes.len());
    let mut end = 0;
    for _ in 0..n {
        let next = match find_byte(&bytes[end..limit], b'\n') {
            Some(i) => end + i + 1,
            None if limit == bytes.len() => bytes.len(),
            None => break, // the line goes past the budget
        };
        if next == end {
            break;
        }
        end = next;
    }
    end
}

/// The start of the last `n` lines (after `floor`) that fit in `budget`
/// bytes, likewise searching no further back than the budget.
fn tail_start(bytes: &[u8], floor: usize, n: usize, budget: usize) -> usize {
    let len = bytes.len();
    // A kept line starts at or after `len - budget`, so the newline before
    // it is at or after `len - budget - 1`.
    let low = floor.max(len.saturating_sub(budget).saturating_sub(1));
    let mut start = len;
    for _ in 0..n {
        if start <= floor {
            break;
        }
        // The line ending at `start` begins after the `\n` before its own last byte.
        let before = match bytes[low..start - 1].iter().rposition(|&b| b == b'\n') {
            Some(i) => low + i + 1,
            None if low == floor => floor,
            None => break,
        };
        if len - before > budget {
            break;
        }
        start = before;
    }
    start
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    #[test]
    fn small_outputs_come_back_as_they_are() {
        let out = numbered(2000);
        let t = truncate_tool_output(&out, &Limits::default(), None);
        assert!(!t.truncated);
        assert!(matches!(t.text, std::borrow::Cow::Borrowed(_)));
        assert_eq!(t.text, out);
    }

    #[test]
    fn long_outputs_keep_head_and_tail_lines_and_say_what_went() {
        let out = numbered(5000);
        let t =
            truncate_tool_output(&out, &Limits::default(), Some(".garuda/sessions/x/outputs/toolu_1.txt"));
        assert!(t.truncated);
        assert_eq!(t.omitted_lines, 4300);
        let lines: Vec<&str> = t.text.lines().collect();
        assert_eq!(lines.len(), 200 + 1 + 500);
        assert_eq!(lines[0], "line 1");
        assert_eq!(lines[199], "line 200");
        assert_eq!(lines[201], "line 4501");
        assert_eq!(lines[700], "line 5000");
        assert!(lines[200].contains("4,300 lines"), "{}", lines[200]);
        assert!(lines[200].contains(".garuda/sessions/x/outputs/toolu_1.txt"));
        let kept: usize = lines.iter().filter(|l| l.starts_with("line ")).map(|l| l.len() + 1).sum();
        assert_eq!(t.omitted_bytes, out.len() - kept);
    }

    #[test]
    fn bytes_bound_the_kept_text_and_lines_are_never_cut() {
        // 100 lines of 2 KB: over 50 KB in bytes, under 2,000 in lines.
        let line = format!("{}é\n", "x".repeat(2045));
        let out = line.repeat(100);
        let t = truncate_tool_output(&out, &Limits::default(), None);
        assert!(t.truncated);
        let kept: Vec<&str> = t.text.lines().filter(|l| !l.starts_with("[…")).collect();
        assert_eq!(t.text.lines().count(), kept.len() + 1, "one note line");
        assert!(kept.iter().map(|l| l.len() + 1).sum::<usize>() <= MAX_BYTES);
        for l in &kept {
            assert_eq!(format!("{l}\n"), line);
        }
        assert_eq!(t.omitted_lines, 100 - kept.len());
        assert!(t.text.contains("was not kept"));
    }

    #[test]
    fn one_huge_line_keeps_its_start_and_end_whole_characters() {
        let out = "ü".repeat(40_000); // 80 KB, no newline
        let t = truncate_tool_output(&out, &Limits::default(), None);
        assert!(t.truncated);
        // The head's share of 50 KB is 200/700 of it, the tail's the rest;
        // an odd share ends inside a two-byte character and stops before it.
        let (head, tail) = (MAX_BYTES * 200 / 700 / 2, (MAX_BYTES - MAX_BYTES * 200 / 700) / 2);
        assert_eq!((t.omitted_lines, t.omitted_bytes), (0, 80_000 - 2 * (head + tail)));
        let lines: Vec<&str> = t.text.lines().collect();
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0], "ü".repeat(head));
        assert!(lines[1].starts_with("[… part of a line ("), "{}", lines[1]);
        assert_eq!(lines[2], "ü".repeat(tail));
    }

    #[test]
    fn a_side_cuts_its_line_only_when_no_whole_line_fits() {
        // A 100 KB first line, short lines after: the head keeps the first
        // line's start, the tail whole lines.
        let mut out = "x".repeat(100_000);
        out.push('\n');
        out.push_str(&numbered(10));
        let t = truncate_tool_output(&out, &Limits::default(), None);
        let lines: Vec<&str> = t.text.lines().collect();
        assert_eq!(lines[0].len(), MAX_BYTES * 200 / 700);
        assert_eq!(lines[2..], numbered(10).lines().collect::<Vec<_>>()[..]);
        assert!(lines[1].starts_with("[… part of a line ("), "{}", lines[1]);
        assert_eq!(t.omitted_lines, 0);
        // Short lines first, a 100 KB last line: the head keeps whole lines,
        // the tail the last line's end.
        let mut out = numbered(10);
        out.push_str(&"y".repeat(100_000));
        let t = truncate_tool_output(&out, &Limits::default(), None);
        let lines: Vec<&str> = t.text.lines().collect();
        assert_eq!(lines[..10], numbered(10).lines().collect::<Vec<_>>()[..]);
        assert!(lines[10].starts_with("[… part of a line ("), "{}", lines[10]);
        assert_eq!(lines[11], "y".repeat(MAX_BYTES - MAX_BYTES * 200 / 700));
        // Two long lines, each cut, and whole lines between left out.
        let out = format!("{}\n{}{}", "a".repeat(60_000), numbered(3), "b".repeat(60_000));
        let t = truncate_tool_output(&out, &Limits::default(), None);
        assert!(t.text.contains("[… parts of 2 lines and 3 lines ("), "{}", &t.text[14_000..15_000]);
        assert_eq!(t.omitted_lines, 3);
        assert_eq!(t.omitted_bytes, out.len() - MAX_BYTES);
    }

    /// Any output, any limits: the kept text is the output's start and end
    /// within `max_bytes` in all, and its figures add up.
    #[test]
    fn cuts_add_up_on_many_shapes() {
        let pieces = ["é", "a", "\n", "long line of text ", "\n\n", "日本"];
        let mut seed = 7u64;
        let mut next = || {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            seed >> 33
        };
        let mut cut = 0;
        for _ in 0..5000 {
            let mut out = String::new();
            for _ in 0..next() % 60 {
                out.push_str(pieces[next() as usize % pieces.len()]);
            }
            let seed = next();
            let max_bytes = seed as usize % 40;
            let l = Limits {
                max_bytes,
                max_lines: (seed >> 6) as usize % 6,
                head_lines: (seed >> 10) as usize % 4,
                tail_lines: (seed >> 14) as usize % 4,
            };
            let t = truncate_tool_output(&out, &l, None);
            if !t.truncated {
                assert_eq!(t.text, out);
                continue;
            }
            let note = t.text.find("[…").unwrap();
            let after = t.text[note..].find('\n').map_or("", |i| &t.text[note + i + 1..]);
            // Before the note: the head, and a newline of its own unless it
            // ended a line.
            let before = &t.text[..note];
            let head_len = out.len() - t.omitted_bytes - after.len();
            assert!(before.len() == head_len || before.len() == head_len + 1 && before.ends_with('\n'));
            assert!(
                out.starts_with(&before[..head_len]) && out.ends_with(after),
                "{l:?} {out:?}: {}",
                t.text
            );
            assert!(head_len + after.len() <= max_bytes, "{l:?} {out:?}: {}", t.text);
            // Lines none of whose bytes were kept, counted from the output.
            let gap = head_len..out.len() - after.len();
            let mut start = 0;
            let mut gone = 0;
            for line in out.split_inclusive('\n') {
                gone += usize::from(gap.start <= start && start + line.len() <= gap.end);
                start += line.len();
            }
            assert_eq!(t.omitted_lines, gone, "{l:?} {out:?}: {}", t.text);
            assert!(line_count(out.as_bytes()) - gone <= l.max_lines, "{l:?} {out:?}: {}", t.text);
            cut += usize::from(t.text.contains("part"));
        }
        assert!(cut > 500, "{cut} outputs with a line cut");
    }

    #[test]
    fn limits_are_the_callers() {
        let out = numbered(10);
        let l = Limits { max_bytes: 1 << 20, max_lines: 5, head_lines: 2, tail_lines: 3 };
        let t = truncate_tool_output(&out, &l, None);
        let lines: Vec<&str> = t.text.lines().collect();
        assert_eq!(lines, ["line 1", "line 2", lines[2], "line 8", "line 9", "line 10"]);
        assert_eq!(t.omitted_lines, 5);
        // No head, no tail: only the note.
        let l = Limits { max_bytes: 10, max_lines: 5, head_lines: 0, tail_lines: 0 };
        let t = truncate_tool_output(&out, &l, None);
        assert_eq!(t.omitted_lines, 10);
        assert!(t.text.starts_with("[… 10 lines"));
    }

    /// Head and tail lines over `max_lines` share `max_lines` in their
    /// proportion: the result keeps at most `max_lines` lines and is never
    /// longer than an output it left nothing out of.
    #[test]
    fn head_and_tail_over_max_lines_share_it() {
        let out = "a\n".repeat(10);
        let l = Limits { max_bytes: 1 << 20, max_lines: 2, head_lines: 5, tail_lines: TAIL_LINES };
        let t = truncate_tool_output(&out, &l, None);
        assert!(t.truncated);
        assert_eq!(t.omitted_lines, 8);
        assert!(t.text.lines().filter(|x| !x.starts_with("[…")).count() <= 2, "{}", t.text);
        for max_lines in 0..12 {
            for head_lines in 0..12 {
                for tail_lines in [0, 1, 3, 11, TAIL_LINES] {
                    let l = Limits { max_bytes: 1 << 20, max_lines, head_lines, tail_lines };
                    let t = truncate_tool_output(&out, &l, None);
                    let kept = t.text.lines().filter(|x| !x.starts_with("[…")).count();
                    assert!(kept <= max_lines.max(10 * usize::from(!t.truncated)), "{l:?}: {}", t.text);
                    assert!(t.truncated == (t.omitted_lines > 0), "{l:?}: no note of nothing");
                }
            }
        }
    }

    #[test]
    fn a_last_line_without_newline_counts_and_is_kept_as_it_was() {
        let mut out = numbered(2500);
        out.push_str("the end");
        let t = truncate_tool_output(&out, &Limits::default(), None);
        assert_eq!(t.omitted_lines, 2501 - 700);
        assert!(t.text.ends_with("line 2500\nthe end"));
    }
}
