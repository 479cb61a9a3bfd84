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
//!   signature kept; #63410: thinking of another model). The repair drops
//!   thinking by the prefix rule: from the first bad block on, and from the
//!   first change the repair makes on, since a signature made over the old
//!   prefix no longer holds;
//! - `checkMessages` (`resume/check.rs`) judges the rest of the history's
//!   shape as the API would.
//!
//! Every line the repair does not need to touch is written back byte for
//! byte; a touched line is edited in place (its `message.content` array or
//! its parent's uuid spliced), so its other fields keep their bytes too.

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

#[derive(Debug)]
struct Block {
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    User,
    Assistant,
}

/// What the doctor keeps of one parsed line.
#[derive(Debug)]
struct Parsed {
    uuid: Option<String>,
    parent: Option<String>,
    sidechain: bool,
    progress: bool,
    compact_boundary: bool,
    /// A line with a place in the tree (`chain.rs`).
    node: bool,
    role: Option<Role>,
    response: Option<String>,
    model: Option<String>,
    blocks: Vec<Block>,
    /// What only the repair needs (None in a streamed diagnosis: a line of
    /// a file too large to hold keeps no more than the rules read).
    edit: Option<Box<Edits>>,
    /// The content's blocks as `checkMessages` judges them (a string
    /// content: its text block), without their text.
    checks: Vec<Block2>,
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

static NO_EDITS: Edits =
    Edits { parent_span: None, content_span: None, block_spans: Vec::new(), copy: Vec::new() };

impl Parsed {
    fn edits(&self) -> &Edits {
        self.edit.as_deref().unwrap_or(&NO_EDITS)
    }
}

/// What `parsed` gives for a row that did not parse: the walks below index
/// rows they filtered as parsed, and an empty parse is what a row that
/// somehow was not would mean to them (never a panic, in wasm).
static UNPARSED: Parsed = Parsed {
    uuid: None,
    parent: None,
    sidechain: false,
    progress: false,
    compact_boundary: false,
    node: false,
    role: None,
    response: None,
    model: None,
    blocks: Vec::new(),
    edit: None,
    checks: Vec::new(),
};

impl Row<'_> {
    fn parsed(&self) -> &Parsed {
        self.parsed.as_deref().unwrap_or(&UNPARSED)
    }
}

pub(super) struct Row<'a> {
    line: u64,
    /// The line's bytes in the input (without its newline).
    range: (usize, usize),
    text: &'a str,
    /// Whether the line ended with a newline.
    newline: bool,
    /// Boxed: a file's rows stay small in one Vec however much each holds.
    parsed: Option<Box<Parsed>>,
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

fn parse_block(raw: &RawValue) -> Block {
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
    Block {
        kind,
        id: id.map(str::to_owned),
        name: h.and_then(|h| h.name.as_deref()).map(str::to_owned),
        empty: text.trim().is_empty(),
        text_hash: hash(text),
        signature: h.and_then(|h| h.signature.as_deref()).filter(|s| !s.is_empty()).map(hash),
    }
}

fn parse_line(text: &str) -> Result<Parsed, String> {
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
    Ok(Parsed {
        parent: raw_string(named_parent),
        uuid: l.uuid,
        sidechain: l.is_sidechain,
        progress: kind == "progress",
        compact_boundary: kind == "system" && l.subtype.as_deref() == Some("compact_boundary"),
        node,
        role,
        response: l.message.as_ref().filter(|_| role == Some(Role::Assistant)).and_then(|m| m.id.clone()),
        model: l.message.as_ref().and_then(|m| m.model.clone()),
        blocks,
        checks: match (string_span, content_span) {
            (Some((a, b)), _) => {
                vec![crate::resume::block_summary(&format!(r#"{{"type":"text","text":{}}}"#, &text[a..b]))]
            }
            _ => block_spans.iter().map(|&(a, b)| crate::resume::block_summary(&text[a..b])).collect(),
        },
        edit: Some(Box::new(Edits {
            parent_span: named_parent.filter(|r| r.get().starts_with('"')).map(|r| span(text, r)),
            content_span,
            block_spans,
            copy,
        })),
    })
}

fn rows<'a>(bytes: &'a [u8], problems: &mut Vec<Problem>) -> Vec<Row<'a>> {
    let mut out = Vec::new();
    let mut pieces = bytes.split(|&b| b == b'\n').peekable();
    let mut line = 0;
    let mut at = 0;
    while let Some(piece) = pieces.next() {
        let range = (at, at + piece.len());
        at += piece.len() + 1;
        let last = pieces.peek().is_none();
        if last && piece.is_empty() {
            break;
        }
        line += 1;
        out.push(row(line, piece, range, !last, problems));
    }
    out
}

/// One line as a row (what the whole-file and the streamed diagnosis share).
pub(super) fn row<'a>(
    line: u64,
    piece: &'a [u8],
    range: (usize, usize),
    newline: bool,
    problems: &mut Vec<Problem>,
) -> Row<'a> {
    let bad = |why: String| Problem { line, kind: Kind::BadLine, severity: Severity::Warning, message: why };
    let (text, parsed) = match std::str::from_utf8(piece) {
        Err(_) => {
            problems.push(bad("the line is not UTF-8: Claude Code skips it".into()));
            ("", None)
        }
        Ok(t) if t.trim().is_empty() => (t, None),
        Ok(t) => match parse_line(t) {
            Ok(p) => (t, Some(Box::new(p))),
            Err(e) => {
                problems.push(bad(format!("the line is not a JSON object ({e}): Claude Code skips it")));
                (t, None)
            }
        },
    };
    Row { line, range, text, newline, parsed }
}

impl Row<'_> {
    /// The row without its text or what only a repair needs: what a
    /// diagnosis of a file too large to hold keeps of each line.
    pub(super) fn summary(self) -> Row<'static> {
        let parsed = self.parsed.map(|p| Box::new(Parsed { edit: None, ..*p }));
        Row { line: self.line, range: (0, 0), text: "", newline: self.newline, parsed }
    }
}

/// The tree of the rows, with parents overridden by the chain repair.
struct Tree {
    /// Row index of each node.
    index: Vec<usize>,
    child_run: bool,
    /// Per row: on the active chain (rows that are not nodes: false).
    on: Vec<bool>,
}

fn tree(rows: &[Row], parents: &HashMap<usize, Option<String>>) -> Tree {
    let index: Vec<usize> = rows
        .iter()
        .enumerate()
        .filter(|(_, r)| r.parsed.as_ref().is_some_and(|p| p.node))
        .map(|(i, _)| i)
        .collect();
    let child_run =
        !index.is_empty() && index.iter().all(|&i| rows[i].parsed.as_ref().is_some_and(|p| p.sidechain));
    let nodes: Vec<chain::Node> = index
        .iter()
        .map(|&i| {
            let p = rows[i].parsed();
            chain::Node {
                uuid: p.uuid.as_deref(),
                parent: parents.get(&i).map_or(p.parent.as_deref(), |o| o.as_deref()),
                sidechain: p.sidechain,
                progress: p.progress,
                response: p.response.as_deref(),
                tool_results: p.role == Some(Role::User)
                    && !p.blocks.is_empty()
                    && p.blocks.iter().all(|b| b.kind == BlockKind::ToolResult),
            }
        })
        .collect();
    let mut on = vec![false; rows.len()];
    match chain::active(&nodes, child_run) {
        Some(path) => {
            for (k, &i) in index.iter().enumerate() {
                on[i] = path[k];
            }
        }
        // No line has a uuid: all of it is the conversation.
        None => on.iter_mut().zip(rows).for_each(|(o, r)| *o = r.parsed.is_some()),
    }
    Tree { index, child_run, on }
}

/// The chain breaks: for each line whose parent names no line, the line
/// written before it, which the repair names instead. Repeated until the
/// walk reaches the first line, so every break is found.
fn chain_breaks(rows: &[Row], problems: &mut Vec<Problem>) -> HashMap<usize, Option<String>> {
    let uuids: HashSet<&str> =
        rows.iter().filter_map(|r| r.parsed.as_ref().filter(|p| p.node)?.uuid.as_deref()).collect();
    let mut parents: HashMap<usize, Option<String>> = HashMap::new();
    loop {
        let t = tree(rows, &parents);
        let main = |i: usize| {
            let p = rows[i].parsed();
            (t.child_run || !p.sidechain) && !p.progress && p.uuid.is_some()
        };
        let broken = t.index.iter().copied().find(|&i| {
            let p = rows[i].parsed();
            let parent = parents.get(&i).map_or(p.parent.as_deref(), |o| o.as_deref());
            t.on[i] && !parents.contains_key(&i) && parent.is_some_and(|u| !uuids.contains(u))
        });
        let Some(i) = broken else { return parents };
        let before = t.index.iter().copied().rfind(|&j| j < i && main(j));
        let p = rows[i].parsed();
        if let (true, Some(j)) = (p.compact_boundary, before) {
            // What a resume sends starts after the boundary anyway: only the
            // transcript before the compaction is out of the walk.
            problems.push(Problem {
                line: rows[i].line,
                kind: Kind::BrokenChain,
                severity: Severity::Warning,
                message: format!(
                    "the compaction's logicalParentUuid {} names no line: lines {}..{} (before the compaction) are out of the transcript; resume sends what follows it, so it is left as it is",
                    p.parent.as_deref().unwrap_or(""),
                    rows[t.index[0]].line,
                    rows[j].line
                ),
            });
            parents.insert(i, p.parent.clone());
            continue;
        }
        let Some(j) = before else {
            // The first line of the conversation: nothing before it is lost.
            parents.insert(i, rows[i].parsed.as_ref().and_then(|p| p.parent.clone()));
            continue;
        };
        problems.push(Problem {
            line: rows[i].line,
            kind: Kind::BrokenChain,
            severity: Severity::Error,
            message: format!(
                "its parentUuid {} names no line of the file: the resumed conversation starts here and lines {}..{} are lost",
                p.parent.as_deref().unwrap_or(""),
                rows[t.index[0]].line,
                rows[j].line
            ),
        });
        parents.insert(i, rows[j].parsed.as_ref().and_then(|p| p.uuid.clone()));
    }
}

/// A place in the history: row index, block index.
type Pos = (usize, usize);

/// What the history sent on resume needs, found on the (chain-repaired) rows.
#[derive(Default)]
struct Plan {
    /// Thinking the API refuses: where, and why (the first is where the
    /// prefix rule starts).
    bad_thinking: Vec<(Pos, String)>,
    /// Every thinking block of the history.
    thinking: Vec<Pos>,
    /// Results that answer no call.
    orphans: Vec<Pos>,
    /// Calls with no result: the call's row, where the synthetic line goes
    /// (after this row), and the ids.
    unanswered: Vec<(usize, usize, Vec<String>)>,
}

fn history(rows: &[Row], t: &Tree, problems: &mut Vec<Problem>) -> Plan {
    let parsed = |i: usize| rows[i].parsed();
    let main: Vec<usize> = (0..rows.len())
        .filter(|&i| t.on[i] && rows[i].parsed.as_ref().is_some_and(|p| t.child_run || !p.sidechain))
        .collect();
    // Only what follows the last compaction is sent.
    let from = main.iter().rposition(|&i| parsed(i).compact_boundary).map_or(0, |k| k + 1);
    let boundary = from.checked_sub(1).map(|k| rows[main[k]].line);
    let hist: Vec<usize> = main[from..].iter().copied().filter(|&i| parsed(i).role.is_some()).collect();
    // Turns: runs of one role, as the API joins them.
    let mut turns: Vec<(Role, Vec<usize>)> = Vec::new();
    for &i in &hist {
        let Some(role) = parsed(i).role else { continue };
        match turns.last_mut() {
            Some((r, rs)) if *r == role => rs.push(i),
            _ => turns.push((role, vec![i])),
        }
    }
    let mut plan = Plan::default();
    // Where each tool_use of the file is, to say where a lost call went.
    let calls_anywhere: HashMap<&str, u64> = rows
        .iter()
        .filter_map(|r| Some((r, r.parsed.as_ref()?)))
        .flat_map(|(r, p)| {
            p.blocks
                .iter()
                .filter(|b| b.kind == BlockKind::ToolUse)
                .filter_map(move |b| Some((b.id.as_deref()?, r.line)))
        })
        .collect();
    for (k, (role, rs)) in turns.iter().enumerate() {
        let uses = |rs: &[usize]| -> Vec<(usize, String, Option<String>)> {
            rs.iter()
                .flat_map(|&i| {
                    parsed(i)
                        .blocks
                        .iter()
                        .filter(|b| b.kind == BlockKind::ToolUse)
                        .filter_map(move |b| Some((i, b.id.clone()?, b.name.clone())))
                })
                .collect()
        };
        match role {
            Role::Assistant => {
                let answered: HashSet<&str> = match turns.get(k + 1) {
                    Some((Role::User, next)) => next
                        .iter()
                        .flat_map(|&i| parsed(i).blocks.iter())
                        .filter(|b| b.kind == BlockKind::ToolResult)
                        .filter_map(|b| b.id.as_deref())
                        .collect(),
                    _ => HashSet::new(),
                };
                for (i, id, name) in uses(rs) {
                    if answered.contains(id.as_str()) {
                        continue;
                    }
                    problems.push(Problem {
                        line: rows[i].line,
                        kind: Kind::ToolUseUnanswered,
                        severity: Severity::Error,
                        message: format!(
                            "tool_use {id} ({}) has no tool_result in the next message: the API refuses the history (a crash between the call and its result?)",
                            name.as_deref().unwrap_or("?")
                        ),
                    });
                    // After the call's response (its parallel lines stay together).
                    let mut after = i;
                    while rows
                        .get(after + 1)
                        .and_then(|r| r.parsed.as_ref())
                        .is_some_and(|p| p.response.is_some() && p.response == parsed(i).response)
                    {
                        after += 1;
                    }
                    match plan.unanswered.iter_mut().find(|(c, _, _)| *c == i) {
                        Some((_, _, ids)) => ids.push(id),
                        None => plan.unanswered.push((i, after, vec![id])),
                    }
                }
            }
            Role::User => {
                let asked: Vec<String> = match k.checked_sub(1).map(|p| &turns[p]) {
                    Some((Role::Assistant, prev)) => uses(prev).into_iter().map(|(_, id, _)| id).collect(),
                    _ => Vec::new(),
                };
                let mut answered: HashSet<String> = HashSet::new();
                for &i in rs {
                    for (b, block) in parsed(i).blocks.iter().enumerate() {
                        if block.kind != BlockKind::ToolResult {
                            continue;
                        }
                        let id = block.id.clone().unwrap_or_default();
                        let why = if !asked.contains(&id) {
                            match (calls_anywhere.get(id.as_str()), boundary) {
                                (Some(&at), Some(cut)) if at < cut => format!(
                                    "tool_result for {id} answers no tool_use of the message before it: its call (line {at}) is before the compaction at line {cut}"
                                ),
                                (Some(&at), _) => format!("tool_result for {id} answers no tool_use of the message before it (its call is on line {at})"),
                                _ => format!("tool_result for {id} answers no tool_use: its call is nowhere in the file"),
                            }
                        } else if answered.contains(&id) {
                            format!("a second tool_result for {id}")
                        } else {
                            answered.insert(id);
                            continue;
                        };
                        problems.push(Problem {
                            line: rows[i].line,
                            kind: Kind::ToolResultOrphan,
                            severity: Severity::Error,
                            message: format!("{why}: the API refuses the history"),
                        });
                        plan.orphans.push((i, b));
                    }
                }
            }
        }
    }
    thinking(rows, &hist, problems, &mut plan);
    // A turn with an orphan result: the orphan says why (its results may
    // also come after other content, which its removal settles).
    let explained: HashSet<usize> = turns
        .iter()
        .enumerate()
        .filter(|(_, (_, rs))| rs.iter().any(|i| plan.orphans.iter().any(|(o, _)| o == i)))
        .map(|(k, _)| k)
        .collect();
    refused(rows, &turns, &explained, problems);
    plan
}

/// Thinking the API refuses: unsigned, signed over an empty or changed text,
/// or made by another model than the one the session resumes with.
fn thinking(rows: &[Row], hist: &[usize], problems: &mut Vec<Problem>, plan: &mut Plan) {
    let parsed = |i: usize| rows[i].parsed();
    let real = |m: &Option<String>| m.clone().filter(|m| m != "<synthetic>");
    let resume_model = hist
        .iter()
        .rev()
        .filter(|&&i| parsed(i).role == Some(Role::Assistant))
        .find_map(|&i| real(&parsed(i).model));
    let mut signed: HashMap<u64, u64> = HashMap::new();
    for &i in hist {
        let p = parsed(i);
        if p.role != Some(Role::Assistant) {
            continue;
        }
        for (b, block) in p.blocks.iter().enumerate() {
            let why = match block.kind {
                BlockKind::Thinking => match block.signature {
                    None => Some((Kind::ThinkingUnsigned, "a thinking block has no signature".to_owned())),
                    Some(_) if block.empty => Some((
                        Kind::ThinkingEmpty,
                        "a signed thinking block's text is empty (the text was lost and the signature kept, claude-code#63147)".to_owned(),
                    )),
                    Some(sig) => match signed.insert(sig, block.text_hash) {
                        Some(before) if before != block.text_hash => Some((
                            Kind::ThinkingChanged,
                            "a thinking block's signature was seen before on another text: the text was changed".to_owned(),
                        )),
                        _ => None,
                    },
                },
                BlockKind::RedactedThinking => None,
                _ => continue,
            };
            let why = why.or_else(|| match (real(&p.model), &resume_model) {
                (Some(m), Some(r)) if &m != r => Some((
                    Kind::ThinkingModelSwitch,
                    format!("thinking signed by {m}, and the session resumes with {r}: the API refuses thinking of another model"),
                )),
                _ => None,
            });
            plan.thinking.push((i, b));
            if let Some((kind, message)) = why {
                problems.push(Problem {
                    line: rows[i].line,
                    kind,
                    severity: Severity::Error,
                    message: message.clone(),
                });
                plan.bad_thinking.push(((i, b), message));
            }
        }
    }
}

/// The rest of the API's rules, by `checkMessages` on the history's turns
/// (what the checks above already said is not said twice).
fn refused(
    rows: &[Row],
    turns: &[(Role, Vec<usize>)],
    explained: &HashSet<usize>,
    problems: &mut Vec<Problem>,
) {
    use crate::resume::ProblemKind as P;
    // Each turn's blocks as summarised when the line was read (the text
    // may be gone: a file read in chunks keeps no line whole).
    let messages: Vec<(bool, Vec<Block2>)> = turns
        .iter()
        .map(|(role, rs)| {
            (*role == Role::User, rs.iter().flat_map(|&i| rows[i].parsed().checks.iter().cloned()).collect())
        })
        .collect();
    if messages.is_empty() {
        return;
    }
    for p in crate::resume::check_summaries(&messages) {
        if matches!(p.kind, P::ToolUseUnanswered | P::ToolResultOrphan | P::ThinkingUnsigned | P::NotAMessage)
            || (p.kind == P::ToolResultNotFirst && explained.contains(&p.index))
        {
            continue;
        }
        let line = turns.get(p.index).and_then(|(_, rs)| rs.first()).map_or(0, |&i| rows[i].line);
        problems.push(Problem { line, kind: Kind::Refused, severity: Severity::Error, message: p.message });
    }
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
pub(super) fn diagnose_rows(len: usize, rows: &[Row], mut problems: Vec<Problem>) -> Vec<Problem> {
    size(len, &mut problems);
    let parents = chain_breaks(rows, &mut problems);
    let t = tree(rows, &parents);
    history(rows, &t, &mut problems);
    super::sort_problems(&mut problems);
    problems
}

// The repair (the least edit that makes the file resume): a child module,
// so it reads this file's rows and plan as they are.
#[path = "claude_repair.rs"]
mod repair;
pub use repair::repair;
