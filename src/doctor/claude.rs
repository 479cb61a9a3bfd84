//! The doctor for Claude Code sessions: the rules Claude Code resumes by,
//! and the least edit of the file that makes it resume.
//!
//! What a resume sends, and why each check exists:
//! - the conversation is the active chain (`formats/chain.rs`: from the last
//!   line back through `parentUuid`, every line with a `uuid` a link); a
//!   `parentUuid` that names no line stops the walk, and everything before
//!   it is lost. The repair names the line written before it instead, as
//!   Claude Code does when it writes a line;
//! - after a compaction only what follows the last `compact_boundary` on the
//!   chain goes to the API, so a result whose call was compacted away is an
//!   orphan (pi #4570, claude-code #45286);
//! - the API joins adjacent messages of one role into one turn; every
//!   `tool_use` needs a `tool_result` in the next turn and every result a
//!   call in the turn before (claude-code #473, claude-agent-sdk-python #631);
//! - a thinking block needs its signature, and the signature covers its text
//!   and everything before it (claude-code #63147: text saved as `""` with the
//!   signature kept, told from `display: "omitted"` thinking by the line's
//!   `thinkingDisplay`, else by the other blocks of the session; #63410:
//!   thinking of another model). The repair drops
//!   thinking by the prefix rule: from the first bad block on, and from the
//!   first change the repair makes on, since a signature made over the old
//!   prefix no longer holds;
//! - `checkMessages` (`resume/check.rs`) judges the rest of the history's
//!   shape as the API would.
//!
//! Every line the repair does not need to touch is written back byte for
//! byte; a touched line is edited in place (its `message.content` array or
//! its parent's uuid spliced), so its other fields keep their bytes too.

use super::strs::{Strs, S};
use super::{Change, ChangeKind, Kind, Problem, Severity};
use crate::formats::chain;
use crate::json_str::str_literal;
use serde::Deserialize;
use serde_json::value::RawValue;
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

/// Node's longest string (V8: 2^29 - 24 UTF-16 units): a file read whole
/// into one string, as Claude Code reads a session, cannot be longer.
const V8_MAX_STRING: usize = (1 << 29) - 24;
/// claude-code #23373: a 102 MB session failed to resume with "No
/// conversation found". Above this, a warning.
const LARGE: usize = 100 * 1000 * 1000;
/// The content of the result added for a call that has none: the same words
/// Garuda's own resume uses (`resume::INTERRUPTED`).
const INTERRUPTED: &str = crate::resume::INTERRUPTED;

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct LineHead<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    subtype: Option<Cow<'a, str>>,
    uuid: Option<String>,
    #[serde(borrow)]
    parent_uuid: Option<&'a RawValue>,
    #[serde(borrow)]
    logical_parent_uuid: Option<&'a RawValue>,
    #[serde(default)]
    is_sidechain: bool,
    #[serde(borrow)]
    session_id: Option<&'a RawValue>,
    #[serde(borrow)]
    cwd: Option<&'a RawValue>,
    #[serde(borrow)]
    version: Option<&'a RawValue>,
    #[serde(borrow)]
    git_branch: Option<&'a RawValue>,
    #[serde(borrow)]
    timestamp: Option<&'a RawValue>,
    /// The display its thinking was asked with (Claude Code 2.1.332 writes
    /// it on the line holding the block: "omitted" when the API sent the
    /// thinking without its text).
    #[serde(borrow)]
    thinking_display: Option<Cow<'a, str>>,
    #[serde(borrow)]
    message: Option<MessageHead<'a>>,
}

#[derive(Deserialize)]
struct MessageHead<'a> {
    id: Option<String>,
    model: Option<String>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
}

#[derive(Deserialize)]
struct BlockHead<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    tool_use_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    thinking: Option<Cow<'a, str>>,
    #[serde(borrow)]
    signature: Option<Cow<'a, str>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockKind {
    Thinking,
    RedactedThinking,
    ToolUse,
    ToolResult,
    Other,
}

/// A block as parsed, before its strings go to the rows' table.
#[derive(Debug)]
struct ParsedBlock {
    kind: BlockKind,
    /// A tool_use's `id`, a tool_result's `tool_use_id`.
    id: Option<String>,
    name: Option<String>,
    /// Thinking: its text is empty (or only white space).
    empty: bool,
    /// Thinking: hashes of its text and its signature (None: unsigned).
    text_hash: u64,
    signature: Option<u64>,
}

/// A block as a row keeps it (its strings in the rows' table).
#[derive(Debug, Clone, Copy)]
struct Block {
    kind: BlockKind,
    id: S,
    name: S,
    empty: bool,
    /// Thinking: a signature's hash in `sig` (else unsigned).
    signed: bool,
    text_hash: u64,
    sig: u64,
}

impl Block {
    fn signature(&self) -> Option<u64> {
        self.signed.then_some(self.sig)
    }
}

impl ParsedBlock {
    /// The block without its strings (the caller names them).
    fn compact(&self) -> Block {
        Block {
            kind: self.kind,
            id: S::NONE,
            name: S::NONE,
            empty: self.empty,
            signed: self.signature.is_some(),
            text_hash: self.text_hash,
            sig: self.signature.unwrap_or(0),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    User,
    Assistant,
}

/// What the doctor keeps of one line: one small fixed record. Its strings
/// are in `Rows::strs`, its blocks in `Rows::blocks` and `Rows::checks`
/// (from `blocks` and `checks` to where the next row's start), so a file's
/// rows are a few flat Vecs, not allocations per line (issue 28: a 1 GB
/// session in bounded memory).
#[derive(Debug, Clone, Copy)]
struct Row {
    /// The line is a JSON object (else only `newline` and the starts are set).
    parsed: bool,
    /// Whether the line ended with a newline.
    newline: bool,
    uuid: S,
    parent: S,
    sidechain: bool,
    progress: bool,
    compact_boundary: bool,
    /// A line with a place in the tree (`chain.rs`).
    node: bool,
    role: Option<Role>,
    response: S,
    model: S,
    /// `thinkingDisplay` of the line: Some(true) when "omitted", Some(false)
    /// when another display, None when the line does not say.
    omitted: Option<bool>,
    blocks: usize,
    checks: usize,
}

/// A block as `checkMessages` judges it (`resume::block_summary`, its JSON
/// text dropped), its strings in the rows' table: `expand` gives back the
/// summary, field for field.
#[derive(Debug)]
struct Check {
    kind: crate::resume::message::Kind,
    fault: Option<&'static str>,
    blank: bool,
    signed: bool,
    legacy_redacted: bool,
    id: S,
    name: S,
}

/// A block as `checkMessages` sees it (`resume::block_summary`).
type Block2 = crate::resume::message::Block;

/// Where a repair edits a line, and what it copies from it.
#[derive(Debug, Default)]
struct Edits {
    /// The byte range of the raw value that names the parent.
    parent_span: Option<(usize, usize)>,
    /// The byte range of `message.content` when it is an array.
    content_span: Option<(usize, usize)>,
    /// Each block's byte range in the line.
    block_spans: Vec<(usize, usize)>,
    /// Raw fields a synthetic line copies.
    copy: Vec<(&'static str, String)>,
}

/// What only a repair needs of a line: kept when the file is read whole,
/// never by a streamed diagnosis.
struct Text<'a> {
    /// The line's bytes in the input (without its newline).
    range: (usize, usize),
    text: &'a str,
    edits: Edits,
}

/// The rows of a file, and what they name.
pub(super) struct Rows<'a> {
    rows: Vec<Row>,
    blocks: Vec<Block>,
    checks: Vec<Check>,
    strs: Strs,
    /// Each row's text and edits (a file read whole; None: streamed).
    texts: Option<Vec<Text<'a>>>,
    /// The last uuids and tool_use ids: what a parent or a tool_result's id
    /// usually repeats, stored once.
    uuids: [S; 8],
    calls: [S; 8],
}

static NO_TEXT: Text = Text {
    range: (0, 0),
    text: "",
    edits: Edits { parent_span: None, content_span: None, block_spans: Vec::new(), copy: Vec::new() },
};

/// What `row` gives for an index past the rows: the walks below index rows
/// they found, and an empty line is what a row that somehow was not would
/// mean to them (never a panic, in wasm).
static UNPARSED: Row = Row {
    parsed: false,
    newline: false,
    uuid: S::NONE,
    parent: S::NONE,
    sidechain: false,
    progress: false,
    compact_boundary: false,
    node: false,
    role: None,
    response: S::NONE,
    model: S::NONE,
    omitted: None,
    blocks: 0,
    checks: 0,
};

impl<'a> Rows<'a> {
    /// No rows yet; `texts`: keep each line's text, for a repair.
    pub(super) fn new(texts: bool) -> Rows<'a> {
        Rows {
            rows: Vec::new(),
            blocks: Vec::new(),
            checks: Vec::new(),
            strs: Strs::default(),
            texts: texts.then(Vec::new),
            uuids: [S::NONE; 8],
            calls: [S::NONE; 8],
        }
    }

    fn len(&self) -> usize {
        self.rows.len()
    }

    /// The 1-based line of row `i` (a row per line, blank ones too).
    fn line(&self, i: usize) -> u64 {
        i as u64 + 1
    }

    #[inline(never)]
    fn row(&self, i: usize) -> &Row {
        self.rows.get(i).unwrap_or(&UNPARSED)
    }

    /// Row `i` when its line parsed.
    #[inline(never)]
    fn parsed(&self, i: usize) -> Option<&Row> {
        self.rows.get(i).filter(|r| r.parsed)
    }

    #[inline(never)]
    fn str(&self, s: S) -> Option<&str> {
        self.strs.get(s)
    }

    #[inline(never)]
    fn blocks(&self, i: usize) -> &[Block] {
        let from = self.row(i).blocks;
        let to = self.rows.get(i + 1).map_or(self.blocks.len(), |r| r.blocks);
        self.blocks.get(from..to).unwrap_or_default()
    }

    #[inline(never)]
    fn checks(&self, i: usize) -> &[Check] {
        let from = self.row(i).checks;
        let to = self.rows.get(i + 1).map_or(self.checks.len(), |r| r.checks);
        self.checks.get(from..to).unwrap_or_default()
    }

    #[inline(never)]
    fn text(&self, i: usize) -> &Text<'a> {
        self.texts.as_ref().and_then(|t| t.get(i)).unwrap_or(&NO_TEXT)
    }

    /// Check `c` as `checkMessages` takes it.
    fn expand(&self, c: &Check) -> Block2 {
        Block2 {
            json: String::new(),
            kind: c.kind,
            id: self.str(c.id).map(str::to_owned),
            name: self.str(c.name).map(str::to_owned),
            blank: c.blank,
            signed: c.signed,
            legacy_redacted: c.legacy_redacted,
            fault: c.fault,
            at: None,
        }
    }

    fn check(&mut self, b: Block2, like: S, like_name: S) -> Check {
        Check {
            kind: b.kind,
            fault: b.fault,
            blank: b.blank,
            signed: b.signed,
            legacy_redacted: b.legacy_redacted,
            id: self.strs.add_like(b.id.as_deref(), &[like]),
            name: self.strs.add_like(b.name.as_deref(), &[like_name]),
        }
    }

    /// One line as a row (what the whole-file and the streamed diagnosis
    /// share): its problems, if any, go to `problems`.
    #[inline(never)]
    pub(super) fn push(
        &mut self,
        piece: &'a [u8],
        range: (usize, usize),
        newline: bool,
        problems: &mut Vec<Problem>,
    ) {
        let edits = self.push_line(piece, newline, problems);
        if let Some(texts) = &mut self.texts {
            let text = std::str::from_utf8(piece).unwrap_or("");
            texts.push(Text { range, text, edits });
        }
    }

    /// `push` without keeping the text (a streamed line).
    pub(super) fn push_summary(&mut self, piece: &[u8], newline: bool, problems: &mut Vec<Problem>) {
        self.push_line(piece, newline, problems);
    }

    fn push_line(&mut self, piece: &[u8], newline: bool, problems: &mut Vec<Problem>) -> Edits {
        let line = self.line(self.len());
        let bad =
            |why: String| Problem { line, kind: Kind::BadLine, severity: Severity::Warning, message: why };
        let parsed = match std::str::from_utf8(piece) {
            // Claude Code reads its file as a UTF-8 string (Node's `utf8`),
            // each bad byte a U+FFFD, and so does replay. The lossy text's
            // offsets are not the file's: no edits, so --fix copies it whole.
            Err(_) => match self.parse_line(&String::from_utf8_lossy(piece), newline) {
                Ok(_) => {
                    problems.push(bad(
                        "the line has bytes that are not UTF-8: Claude Code reads each as U+FFFD; --fix leaves the line as it is".into(),
                    ));
                    Some(Edits::default())
                }
                Err(e) => {
                    problems.push(bad(format!("the line is not a JSON object ({e}): Claude Code skips it")));
                    None
                }
            },
            Ok(t) if t.trim().is_empty() => None,
            Ok(t) => match self.parse_line(t, newline) {
                Ok(edits) => Some(edits),
                Err(e) => {
                    problems.push(bad(format!("the line is not a JSON object ({e}): Claude Code skips it")));
                    None
                }
            },
        };
        parsed.unwrap_or_else(|| {
            let (blocks, checks) = (self.blocks.len(), self.checks.len());
            self.rows.push(Row { newline, blocks, checks, ..UNPARSED });
            Edits::default()
        })
    }

    /// Parses a line into a row, its blocks and checks (all pushed, or
    /// none when the line is not a JSON object).
    fn parse_line(&mut self, text: &str, newline: bool) -> Result<Edits, String> {
        let l: LineHead = serde_json::from_str(text).map_err(|e| e.to_string())?;
        let kind = l.kind.as_deref().unwrap_or("");
        // The line's type says the role (as Claude Code's loader reads it).
        let role = match kind {
            "user" if l.message.is_some() => Some(Role::User),
            "assistant" if l.message.is_some() => Some(Role::Assistant),
            _ => None,
        };
        let content = l.message.as_ref().and_then(|m| m.content);
        let (mut blocks, mut block_spans, mut content_span) = (Vec::new(), Vec::new(), None);
        if let Some(c) = content.filter(|c| c.get().starts_with('[')) {
            if let Ok(items) = serde_json::from_str::<Vec<&RawValue>>(c.get()) {
                content_span = Some(span(text, c));
                for item in items {
                    blocks.push(parse_block(item));
                    block_spans.push(span(text, item));
                }
            }
        }
        let string_span = content.filter(|c| c.get().starts_with('"')).map(|c| span(text, c));
        let named_parent = l.parent_uuid.or(l.logical_parent_uuid);
        let node = l.uuid.is_some()
            && !matches!(kind, "summary" | "custom-title" | "ai-title")
            && !(matches!(kind, "user" | "assistant") && l.message.is_none());
        let mut copy = Vec::new();
        for (key, raw) in [
            ("cwd", l.cwd),
            ("sessionId", l.session_id),
            ("version", l.version),
            ("gitBranch", l.git_branch),
            ("timestamp", l.timestamp),
        ] {
            if let Some(r) = raw {
                copy.push((key, r.get().to_owned()));
            }
        }
        let checks: Vec<Block2> = match (string_span, content_span) {
            (Some((a, b)), _) => {
                vec![crate::resume::block_summary(&format!(r#"{{"type":"text","text":{}}}"#, &text[a..b]))]
            }
            _ => block_spans.iter().map(|&(a, b)| crate::resume::block_summary(&text[a..b])).collect(),
        };
        let previous = self.rows.last().map_or(S::NONE, |r| r.response);
        let response =
            l.message.as_ref().filter(|_| role == Some(Role::Assistant)).and_then(|m| m.id.as_deref());
        let row = Row {
            parsed: true,
            newline,
            parent: self.strs.add_like(raw_string(named_parent).as_deref(), &self.uuids),
            uuid: self.strs.add(l.uuid.as_deref()),
            sidechain: l.is_sidechain,
            progress: kind == "progress",
            compact_boundary: kind == "system" && l.subtype.as_deref() == Some("compact_boundary"),
            node,
            role,
            response: self.strs.add_like(response, &[previous]),
            model: self.strs.intern(l.message.as_ref().and_then(|m| m.model.as_deref())),
            omitted: l.thinking_display.as_deref().map(|d| d == "omitted"),
            blocks: self.blocks.len(),
            checks: self.checks.len(),
        };
        if row.uuid != S::NONE {
            self.uuids.copy_within(..7, 1);
            self.uuids[0] = row.uuid;
        }
        let mut ids = Vec::with_capacity(blocks.len());
        for b in blocks {
            let id = match b.kind {
                BlockKind::ToolUse => self.strs.add(b.id.as_deref()),
                _ => self.strs.add_like(b.id.as_deref(), &self.calls),
            };
            if b.kind == BlockKind::ToolUse && id != S::NONE {
                self.calls.copy_within(..7, 1);
                self.calls[0] = id;
            }
            let name = self.strs.intern(b.name.as_deref());
            ids.push((id, name));
            self.blocks.push(Block { id, name, ..b.compact() });
        }
        for (k, c) in checks.into_iter().enumerate() {
            debug_assert!(c.json.is_empty() && c.at.is_none());
            let (id, name) = ids.get(k).copied().unwrap_or((S::NONE, S::NONE));
            let c = self.check(c, id, name);
            self.checks.push(c);
        }
        self.rows.push(row);
        Ok(Edits {
            parent_span: named_parent.filter(|r| r.get().starts_with('"')).map(|r| span(text, r)),
            content_span,
            block_spans,
            copy,
        })
    }
}

fn span(text: &str, raw: &RawValue) -> (usize, usize) {
    // A borrowed RawValue is a slice of `text`: its offset is where it sits.
    let start = raw.get().as_ptr() as usize - text.as_ptr() as usize;
    (start, start + raw.get().len())
}

/// FNV-1a 64: stable across Rust releases (std's hasher is not promised to
/// be), so a repair's fresh uuids are the same wherever it runs.
fn hash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

fn raw_string(raw: Option<&RawValue>) -> Option<String> {
    serde_json::from_str::<String>(raw?.get()).ok()
}

fn parse_block(raw: &RawValue) -> ParsedBlock {
    let head: Option<BlockHead> = serde_json::from_str(raw.get()).ok();
    let kind = match head.as_ref().and_then(|h| h.kind.as_deref()) {
        Some("thinking") => BlockKind::Thinking,
        Some("redacted_thinking") => BlockKind::RedactedThinking,
        Some("tool_use") => BlockKind::ToolUse,
        Some("tool_result") => BlockKind::ToolResult,
        _ => BlockKind::Other,
    };
    let h = head.as_ref();
    let id = match kind {
        BlockKind::ToolUse => h.and_then(|h| h.id.as_deref()),
        BlockKind::ToolResult => h.and_then(|h| h.tool_use_id.as_deref()),
        _ => None,
    };
    let text = h.and_then(|h| h.thinking.as_deref()).unwrap_or("");
    ParsedBlock {
        kind,
        id: id.map(str::to_owned),
        name: h.and_then(|h| h.name.as_deref()).map(str::to_owned),
        empty: text.trim().is_empty(),
        text_hash: hash(text),
        signature: h.and_then(|h| h.signature.as_deref()).filter(|s| !s.is_empty()).map(hash),
    }
}

fn rows<'a>(bytes: &'a [u8], problems: &mut Vec<Problem>) -> Rows<'a> {
    let mut out = Rows::new(true);
    let mut pieces = bytes.split(|&b| b == b'\n').peekable();
    let mut at = 0;
    while let Some(piece) = pieces.next() {
        let range = (at, at + piece.len());
        at += piece.len() + 1;
        let last = pieces.peek().is_none();
        if last && piece.is_empty() {
            break;
        }
        out.push(piece, range, !last, problems);
    }
    out
}

pub(super) fn size(len: usize, problems: &mut Vec<Problem>) {
    let mb = len as f64 / 1e6;
    if len > V8_MAX_STRING {
        problems.push(Problem {
            line: 0,
            kind: Kind::TooLarge,
            severity: Severity::Error,
            message: format!("the file is {mb:.0} MB: longer than Node's longest string, so it cannot be read whole to resume"),
        });
    } else if len > LARGE {
        problems.push(Problem {
            line: 0,
            kind: Kind::TooLarge,
            severity: Severity::Warning,
            message: format!("the file is {mb:.0} MB: sessions this large have failed to resume (claude-code#23373, 102 MB)"),
        });
    }
}

pub fn diagnose(bytes: &[u8]) -> Vec<Problem> {
    let mut problems = Vec::new();
    let rows = rows(bytes, &mut problems);
    diagnose_rows(bytes.len(), &rows, problems)
}

/// The diagnosis of the rows of a file of `len` bytes (read whole, or in
/// chunks by `claude_stream.rs`), after the problems its lines had.
pub(super) fn diagnose_rows(len: usize, rows: &Rows, mut problems: Vec<Problem>) -> Vec<Problem> {
    size(len, &mut problems);
    let (_, t) = chain_breaks(rows, &mut problems);
    history(rows, &t, &mut problems);
    super::sort_problems(&mut problems);
    problems
}

// The rules (the active chain, the history a resume sends, its thinking,
// the rest of the API's rules) and the repair (the least edit that makes
// the file resume): child modules, so they read this file's rows as they are.
#[path = "claude_rules.rs"]
mod rules;
use rules::*;
#[path = "claude_breaks.rs"]
mod breaks;
use breaks::chain_breaks;
#[path = "claude_repair.rs"]
mod repair;
pub use repair::repair;
