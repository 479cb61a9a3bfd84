//! Rule 2: secrets with a known shape (spec §5). Each detector starts at a
//! prefilter hit and looks only forward (and one byte back for a boundary),
//! with a cap on how far: a 10 MB run of `sk-sk-sk-…` costs linear time.

use super::triggers::{Hit, Trigger};

/// No token of these kinds is longer; longer runs are not matched at all.
const MAX_TOKEN: usize = 1024;

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

fn is_token(b: u8) -> bool {
    is_word(b) || b == b'-'
}

/// The text before `pos` does not continue a token of `class` (a letter
/// that ends an escape or a colour code does not: `tokens::after_escape`).
fn starts_token(text: &[u8], pos: usize, class: fn(u8) -> bool) -> bool {
    pos == 0 || !class(text[pos - 1]) || glued(text, pos) || super::tokens::after_escape(text, pos)
}

/// A `-` or `_` before `pos` joins a name to a key, as file names do
/// (`creds-AIza….json`, `backup_sk-ant-….txt`): the key's own prefix starts
/// there. A letter or digit before it would be inside a longer string.
pub(super) fn glued(text: &[u8], pos: usize) -> bool {
    pos > 0 && matches!(text[pos - 1], b'-' | b'_')
}

/// The end of the run of `class` bytes from `start`, or None when it is
/// longer than `MAX_TOKEN`.
fn run_end(text: &[u8], start: usize, class: fn(u8) -> bool) -> Option<usize> {
    let limit = text.len().min(start + MAX_TOKEN + 1);
    let end = text[start.min(limit)..limit].iter().position(|&b| !class(b)).map_or(limit, |i| start + i);
    (end - start <= MAX_TOKEN).then_some(end)
}

/// A placeholder such as `ghp_xxxx…` or `xoxb-xxxxxxxxx-xxxx`: at most two
/// distinct characters besides separators.
fn is_placeholder(body: &[u8]) -> bool {
    let mut seen: Vec<u8> = Vec::new();
    for &b in body.iter().filter(|b| !matches!(b, b'-' | b'_' | b'.')) {
        if !seen.contains(&b) {
            seen.push(b);
            if seen.len() > 2 {
                return false;
            }
        }
    }
    true
}

/// A run of 8 or more consecutive characters (`abcdefgh`, `01234567`): an
/// alphabet in code, not a key.
pub fn has_sequence(value: &[u8]) -> bool {
    let mut run = 1;
    for w in value.windows(2) {
        if w[0].is_ascii_alphanumeric() && w[1] == w[0].wrapping_add(1) {
            run += 1;
            if run >= 8 {
                return true;
            }
        } else {
            run = 1;
        }
    }
    false
}

/// The span a known-format secret starting at `hit` covers.
pub fn detect(text: &[u8], hit: &Hit) -> Option<(usize, usize)> {
    let pos = hit.pos;
    match hit.trigger {
        Trigger::Sk => sk_key(text, pos),
        Trigger::Aws => aws_key_id(text, pos),
        Trigger::GitHub => github_token(text, pos),
        Trigger::Slack => slack_token(text, pos),
        Trigger::SlackHook => slack_webhook(text, pos),
        Trigger::Google => google_key(text, pos),
        Trigger::Jwt => jwt(text, pos),
        Trigger::PrivateKey => private_key(text, pos),
        _ => None,
    }
}

/// Anthropic credentials (`sk-ant-` and a kind: API keys `api03-…AA`,
/// Admin keys `admin01-`, the OAuth tokens Claude Code keeps, `oat01-` and
/// `ort01-`, console session keys `sid01-`, and any kind to come) and
/// OpenAI keys (every current kind, and the legacy ones, carries the
/// `T3BlbkFJ` marker).
fn sk_key(text: &[u8], pos: usize) -> Option<(usize, usize)> {
    if !text[pos..].starts_with(b"sk-") || !starts_token(text, pos, is_token) {
        return None;
    }
    let end = run_end(text, pos, is_token)?;
    let token = &text[pos..end];
    if let Some(rest) = token.strip_prefix(b"sk-ant-") {
        // Any kind, any length from 40: only API and Admin keys were taken
        // (80 characters or more), and a Claude Code OAuth token reached the
        // disk whole (a new-user review, stop 48). An API or Admin key of 80
        // or more goes whatever it holds, but a 95-character body without
        // the documented "AA" (gitleaks' strict-format example of a non-key);
        // others go from 40 unless a placeholder (`xxxx…`); shorter ones
        // that are not keys are a cheap loss.
        let (kind, body) = rest.split_at(rest.iter().position(|&b| b == b'-').map_or(0, |i| i + 1));
        if matches!(kind, b"api03-" | b"admin01-") && body.len() >= 80 {
            return (body.ends_with(b"AA") || body.len() != 95).then_some((pos, end));
        }
        return (body.len() >= 40 && !is_placeholder(body)).then_some((pos, end));
    }
    let marker = token.windows(8).any(|w| w == b"T3BlbkFJ");
    (marker && token.len() >= 20).then_some((pos, end))
}

/// AKIA/ASIA/ABIA/ACCA/A3T? and 16 more: 20 upper-case letters and digits.
fn aws_key_id(text: &[u8], pos: usize) -> Option<(usize, usize)> {
    let rest = &text[pos..];
    let prefix = [&b"AKIA"[..], b"ASIA", b"ABIA", b"ACCA"].iter().any(|p| rest.starts_with(p))
        || (rest.starts_with(b"A3T")
            && rest.get(3).is_some_and(|b| b.is_ascii_uppercase() || b.is_ascii_digit()));
    if !prefix || !starts_token(text, pos, |b| b.is_ascii_alphanumeric()) {
        return None;
    }
    let end = pos + 20;
    let id = text.get(pos..end)?;
    let shaped = id.iter().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit());
    let bounded = text.get(end).is_none_or(|b| !b.is_ascii_alphanumeric());
    // AWS's documentation placeholder (AKIAIOSFODNN7EXAMPLE) is not a key.
    (shaped && bounded && !id.ends_with(b"EXAMPLE")).then_some((pos, end))
}

/// GitHub tokens: the whole token goes, even past the documented length.
fn github_token(text: &[u8], pos: usize) -> Option<(usize, usize)> {
    let rest = &text[pos..];
    let (prefix, min) = if rest.starts_with(b"github_pat_") {
        (11, 22)
    } else if [&b"ghp_"[..], b"gho_", b"ghu_", b"ghs_", b"ghr_"].iter().any(|p| rest.starts_with(p)) {
        (4, 36)
    } else {
        return None;
    };
    if !starts_token(text, pos, is_word) {
        return None;
    }
    let end = run_end(text, pos, is_word)?;
    let body = &text[pos + prefix..end];
    (body.len() >= min && !is_placeholder(body)).then_some((pos, end))
}

/// Slack tokens: `xox[abeoprs]-` or `xapp-`, then a numeric first segment
/// and at least one more, 20 characters or more.
fn slack_token(text: &[u8], pos: usize) -> Option<(usize, usize)> {
    let rest = &text[pos..];
    // Both prefixes are five bytes.
    let xox = rest.len() > 4 && rest.starts_with(b"xox") && b"abeoprs".contains(&rest[3]) && rest[4] == b'-';
    if !(xox || rest.starts_with(b"xapp-")) {
        return None;
    }
    let prefix = 5;
    if !starts_token(text, pos, |b| b.is_ascii_alphanumeric()) {
        return None;
    }
    let end = run_end(text, pos + prefix, |b| b.is_ascii_alphanumeric() || b == b'-')?;
    let body = &text[pos + prefix..end];
    let mut segments = body.split(|&b| b == b'-');
    let first_numeric = segments.next().is_some_and(|s| !s.is_empty() && s.iter().all(u8::is_ascii_digit));
    let more = segments.next().is_some_and(|s| !s.is_empty());
    (first_numeric && more && body.len() >= 20 && !is_placeholder(body)).then_some((pos, end))
}

/// `https://hooks.slack.com/services/…` (and workflows, triggers): the whole URL.
fn slack_webhook(text: &[u8], pos: usize) -> Option<(usize, usize)> {
    let after = pos + b"hooks.slack.com".len();
    let path = &text[after..];
    let kind =
        [&b"/services/"[..], b"/workflows/", b"/triggers/"].into_iter().find(|k| path.starts_with(k))?;
    let end = run_end(text, after + kind.len(), |b| is_word(b) || b == b'/')?;
    if end - after - kind.len() < 8 {
        return None;
    }
    let start = [&b"https://"[..], b"http://"]
        .iter()
        .find(|s| pos >= s.len() && text[pos - s.len()..pos].eq_ignore_ascii_case(s))
        .map_or(pos, |s| pos - s.len());
    Some((start, end))
}

/// `AIza` and exactly 35 more characters.
fn google_key(text: &[u8], pos: usize) -> Option<(usize, usize)> {
    if !text[pos..].starts_with(b"AIza") || !starts_token(text, pos, is_token) {
        return None;
    }
    let end = pos + 39;
    let key = text.get(pos..end)?;
    let shaped = key.iter().all(|&b| is_token(b));
    let bounded = text.get(end).is_none_or(|&b| !is_token(b));
    (shaped && bounded && !has_sequence(key)).then_some((pos, end))
}

/// A JWT: `eyJ…` header, `eyJ…` claims, and a signature that may be empty;
/// wrapped across lines too (`wrapped_run_end`).
fn jwt(text: &[u8], pos: usize) -> Option<(usize, usize)> {
    if !text[pos..].starts_with(b"eyJ") || !starts_token(text, pos, is_token) {
        return None;
    }
    let header_end = wrapped_run_end(text, pos, MAX_TOKEN)?;
    if header_end - pos < 10 || text.get(header_end) != Some(&b'.') {
        return None;
    }
    let claims = part_start(text, header_end + 1);
    if !text[claims..].starts_with(b"eyJ") {
        return None;
    }
    let claims_end = wrapped_run_end(text, claims, MAX_TOKEN)?;
    if claims_end - claims < 10 || text.get(claims_end) != Some(&b'.') {
        return None;
    }
    // The shortest signature of a signed JWT is HS256's 43 characters: one
    // that ends a line shorter than that goes on on the next.
    let end = wrapped_run_end(text, part_start(text, claims_end + 1), 43)?;
    Some((pos, end))
}

/// Past a line break at `at` (`\n`, `\r\n`, or their JSON escapes in a
/// journal line's text) when a token character or a `.` follows it, else
/// `at`.
fn part_start(text: &[u8], at: usize) -> usize {
    let rest = &text[at..];
    let next = [&b"\r\n"[..], b"\n", b"\\r\\n", b"\\n"]
        .into_iter()
        .find(|br| rest.starts_with(br))
        .map(|br| at + br.len());
    next.filter(|&n| text.get(n).is_some_and(|&b| is_token(b) || b == b'.')).unwrap_or(at)
}

/// The end of a JWT part's run from `start`, across the line breaks of a
/// token wrapped at a fixed width (`base64 -w 76`, a terminal, a mail; the
/// red team's token left its signature on the second line) while the run
/// holds fewer than `wrap_below` characters: a break goes on when a token
/// character follows it, and a header's or claims' run (`wrap_below` is
/// `MAX_TOKEN`) ends at a `.` that starts the next line. Those must end at
/// a `.`, so a line that merely follows one is not taken. None past
/// `MAX_TOKEN`.
fn wrapped_run_end(text: &[u8], start: usize, wrap_below: usize) -> Option<usize> {
    let mut end = run_end(text, start, is_token)?;
    let mut chars = end - start;
    while chars < wrap_below {
        let next = part_start(text, end);
        if next == end {
            break;
        }
        if text[next] == b'.' {
            if wrap_below == MAX_TOKEN {
                end = next;
            }
            break;
        }
        let e = run_end(text, next, is_token)?;
        chars += e - next;
        if chars > MAX_TOKEN {
            return None;
        }
        end = e;
    }
    Some(end)
}

/// `-----BEGIN … PRIVATE KEY-----` to its END line, the whole block; with no
/// END line (truncated output), the marker and the base64 lines after it
/// (`key_body`), or the text to its end when what follows is not base64
/// (whatever the body is, it is the key's), but nothing when the marker is
/// a string in code (`starts_key_line`). An END line with no
/// BEGIN before it (a paginated Read, a key split across two outputs): the
/// body lines before it (`key_tail`). The trigger is four dashes and the
/// word, so `pos` may be one or two dashes into the marker.
fn private_key(text: &[u8], pos: usize) -> Option<(usize, usize)> {
    let start = pos - text[..pos].iter().rev().take(2).take_while(|&&b| b == b'-').count();
    if text[pos..].starts_with(b"----END") {
        return key_tail(text, start, pos);
    }
    let header_start = pos + b"----BEGIN".len();
    let header_len = text[header_start..].iter().take(80).position(|&b| b == b'-')?;
    if !is_private_key_label(&text[header_start..header_start + header_len]) {
        return None;
    }
    let body_start = dashes_end(text, header_start + header_len)?;
    let Some(end_at) = find(&text[body_start..], b"----END").map(|i| body_start + i) else {
        // No END line: output cut short, or the marker in code.
        return starts_key_line(text, body_start)
            .then(|| (start, key_body(text, body_start).unwrap_or(text.len())));
    };
    // An END marker: the block ends after its closing dashes.
    let marker_end = key_end_marker(text, end_at).unwrap_or(end_at + 7);
    // A body too small to be a key (an empty block, a one-word example)
    // stays: at least 16 letters and digits.
    let body = text[body_start..end_at].iter().filter(|b| b.is_ascii_alphanumeric()).count();
    (body >= 16).then_some((start, marker_end))
}

/// Whether a BEGIN marker with no END line after it starts a key: what
/// follows it on its line is nothing (the line ends, or the text: output
/// cut short) or base64 (a key on one line). A quote or code after it is
/// a string in code (`line.startsWith('-----BEGIN PRIVATE KEY-----')) {`),
/// and redacting from it to the text's end, as this did, took all the
/// code after it.
fn starts_key_line(text: &[u8], body_start: usize) -> bool {
    let at = blanks(text, body_start);
    at == text.len()
        || line_ends(text, at).is_some()
        || text[at..].iter().take(16).filter(|&&b| is_b64(b)).count() == 16
}

fn is_b64(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=')
}

fn blanks(text: &[u8], mut at: usize) -> usize {
    while let Some(b' ' | b'\t') = text.get(at) {
        at += 1;
    }
    at
}

/// Past the line ends at `at` (None: there is none): newlines or, in a
/// journal line's JSON text, `\n` (`\\n` for a `\n` written in a shell
/// string).
fn line_ends(text: &[u8], mut at: usize) -> Option<usize> {
    let from = at;
    while let Some(&b) = text.get(at) {
        let slashes = text[at..].iter().take(8).take_while(|&&c| c == b'\\').count();
        if matches!(b, b'\n' | b'\r') {
            at += 1;
        } else if slashes > 0 && matches!(text.get(at + slashes), Some(b'n' | b'r')) {
            at += slashes + 1;
        } else {
            break;
        }
    }
    (at > from).then_some(at)
}

/// Where a key's body ends when its BEGIN marker has no END line after it
/// and its line ends there: whole lines of base64 (a line's leading spaces
/// and a Read's `   12→` number kept; an encrypted key's `Proc-Type:` and
/// `DEK-Info:` lines are part of it), up to the first line that is not
/// one, whose base64 start goes too when it is long enough to be a cut key
/// line. None when there are fewer than 16 such characters (a body that is
/// not base64: the caller then takes the text to its end).
fn key_body(text: &[u8], body_start: usize) -> Option<usize> {
    let mut end = body_start;
    let mut body = 0;
    let mut at = body_start;
    while body <= 16384 {
        let Some(line) = line_ends(text, blanks(text, at)) else { break };
        // A line's lead: spaces, a Read's `   12→`.
        let mut lead = blanks(text, line);
        let digits = text[lead..].iter().take(12).take_while(|b| b.is_ascii_digit()).count();
        if text[lead + digits..].starts_with("→".as_bytes()) {
            lead = blanks(text, lead + digits + "→".len());
        }
        if text[lead..].starts_with(b"Proc-Type:") || text[lead..].starts_with(b"DEK-Info:") {
            at = lead
                + text[lead..].iter().take(200).take_while(|&&b| !matches!(b, b'\n' | b'\r' | b'\\')).count();
            end = at;
            continue;
        }
        let run = text[lead..].iter().take(1024).take_while(|&&b| is_b64(b)).count();
        // A line that is not base64 to its end: its base64 start goes when
        // the cut may have fallen inside it (16 characters or more; `Done.`
        // after a key stays).
        let whole = lead + run == text.len() || line_ends(text, blanks(text, lead + run)).is_some();
        if run == 0 || (!whole && run < 16) {
            break;
        }
        body += run;
        at = lead + run;
        end = at;
        if !whole {
            break;
        }
    }
    (body >= 16).then_some(end)
}

fn is_private_key_label(label: &[u8]) -> bool {
    label.ends_with(b"PRIVATE KEY") || label.ends_with(b"PRIVATE KEY BLOCK")
}

/// Past the dashes that close a PEM marker at `at`: five by RFC 7468, but a
/// copy by hand or a tool's rendering may have four or six, and the key in
/// between is as secret (`----BEGIN RSA PRIVATE KEY----` kept its body
/// whole). None with fewer than four.
fn dashes_end(text: &[u8], at: usize) -> Option<usize> {
    let n = text[at..].iter().take(6).take_while(|&&b| b == b'-').count();
    (n >= 4).then_some(at + n)
}

/// The end of an `-----END … PRIVATE KEY-----` line whose last four dashes
/// before `END` are at `pos` (None: not a private key's).
fn key_end_marker(text: &[u8], pos: usize) -> Option<usize> {
    let label_start = pos + b"----END".len();
    let label_len = text[label_start..].iter().take(80).position(|&b| b == b'-')?;
    if !is_private_key_label(&text[label_start..label_start + label_len]) {
        return None;
    }
    dashes_end(text, label_start + label_len)
}

/// A private key's last lines and its END line, with no BEGIN before: from
/// the END line back over whole lines of base64 (a line's leading spaces
/// and a Read's `   12→` number kept), and the base64 end of the first line
/// that is not whole (`Deploy fix 8vEdN3…`, at least 16 characters). Lines
/// end with a newline or, in a journal line's JSON text, `\n`. The END
/// line starts at `pos`; its last four dashes before `END` are at `marker`.
fn key_tail(text: &[u8], pos: usize, marker: usize) -> Option<(usize, usize)> {
    let end = key_end_marker(text, marker)?;
    // The separator before `at`: its start, or None.
    let separator = |at: usize| -> Option<usize> {
        let mut at = at;
        let mut seen = false;
        loop {
            if at >= 1 && matches!(text[at - 1], b'\n' | b'\r') {
                at -= 1;
            } else if at >= 2 && text[at - 2] == b'\\' && matches!(text[at - 1], b'n' | b'r') {
                at -= 2;
            } else {
                return seen.then_some(at);
            }
            seen = true;
        }
    };
    // The END line's own lead: spaces, a Read's `   12→`.
    let lead_of = |at: usize| -> usize {
        let mut at = at;
        if text[..at].ends_with("→".as_bytes()) {
            at -= 3;
            while at > 0 && text[at - 1].is_ascii_digit() {
                at -= 1;
            }
        }
        while at > 0 && matches!(text[at - 1], b' ' | b'\t') {
            at -= 1;
        }
        at
    };
    let mut start = pos;
    let mut cursor = lead_of(pos);
    let mut body = 0;
    while let Some(line_end) = separator(cursor) {
        if body > 8192 {
            break;
        }
        let run = text[..line_end].iter().rev().take(1024).take_while(|&&b| is_b64(b)).count();
        let run_start = line_end - run;
        // What comes before the run on its line: spaces, a Read's number.
        let line_start = text[..run_start]
            .iter()
            .rposition(|&b| b == b'\n' || b == b'\r' || b == b'\\')
            .map_or(0, |i| if text[i] == b'\\' { i + 2 } else { i + 1 });
        let lead = &text[line_start.min(run_start)..run_start];
        let whole = lead.iter().all(|&b| b == b' ' || b == b'\t' || b.is_ascii_digit())
            || lead.ends_with("→".as_bytes())
                && lead[..lead.len() - 3].iter().all(|&b| b == b' ' || b.is_ascii_digit());
        if run == 0 || (!whole && run < 16) {
            break;
        }
        start = run_start;
        cursor = lead_of(run_start);
        body += run;
        if !whole {
            break;
        }
    }
    (body >= 16).then_some((start, end))
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// A 40-character AWS secret access key within a short distance after a
/// key id (`AKIA… wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY`): base64 letters
/// with both cases, bounded on both sides.
pub fn aws_secret_near(text: &[u8], from: usize) -> Option<(usize, usize)> {
    let is_b64 = |b: u8| b.is_ascii_alphanumeric() || b == b'/' || b == b'+';
    let limit = text.len().min(from + 200);
    let mut i = from;
    while i < limit {
        if !is_b64(text[i]) {
            i += 1;
            continue;
        }
        let start = i;
        while i < text.len() && is_b64(text[i]) {
            i += 1;
        }
        let run = &text[start..i];
        let bounded = start == 0 || !matches!(text[start - 1], b'=' | b'_' | b'-');
        if run.len() == 40
            && bounded
            && run.iter().any(u8::is_ascii_uppercase)
            && run.iter().any(u8::is_ascii_lowercase)
            && text.get(i) != Some(&b'=')
        {
            return Some((start, i));
        }
    }
    None
}
