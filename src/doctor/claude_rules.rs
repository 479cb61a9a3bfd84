//! The rules a Claude Code session resumes by (`claude.rs` reads its rows):
//! the active chain and where it breaks, the history a resume sends after
//! the last compaction, its thinking by the prefix rule, and the rest of
//! the API's rules by `checkMessages`. What each finds is a `Problem`, and
//! the `Plan` the repair (`claude_repair.rs`) carries out.

use super::*;

/// The tree of the rows, with parents overridden by the chain repair.
pub(super) struct Tree {
    pub(super) child_run: bool,
    /// Per row: on the active chain (rows that are not nodes: false).
    pub(super) on: Vec<bool>,
}

/// The rows with a place in the tree.
pub(super) fn node_rows(rows: &Rows) -> Vec<usize> {
    (0..rows.len()).filter(|&i| rows.parsed(i).is_some_and(|p| p.node)).collect()
}

/// The tree's node of each of those rows, parents overridden by `parents`.
pub(super) fn nodes<'r>(
    rows: &'r Rows,
    index: &[usize],
    parents: &'r HashMap<usize, Option<String>>,
) -> Vec<chain::Node<'r>> {
    index
        .iter()
        .map(|&i| {
            let p = rows.row(i);
            let blocks = rows.blocks(i);
            chain::Node {
                uuid: rows.str(p.uuid),
                parent: parents.get(&i).map_or(rows.str(p.parent), |o| o.as_deref()),
                sidechain: p.sidechain,
                progress: p.progress,
                response: rows.str(p.response),
                tool_results: p.role == Some(Role::User)
                    && !blocks.is_empty()
                    && blocks.iter().all(|b| b.kind == BlockKind::ToolResult),
            }
        })
        .collect()
}

/// A place in the history: row index, block index.
pub(super) type Pos = (usize, usize);

/// What the history sent on resume needs, found on the (chain-repaired) rows.
#[derive(Default)]
pub(super) struct Plan {
    /// Thinking the API refuses: where, and why (the first is where the
    /// prefix rule starts).
    pub(super) bad_thinking: Vec<(Pos, String)>,
    /// Every thinking block of the history.
    pub(super) thinking: Vec<Pos>,
    /// Results that answer no call.
    pub(super) orphans: Vec<Pos>,
    /// Calls with no result: the call's row, where the synthetic line goes
    /// (after this row), and the ids.
    pub(super) unanswered: Vec<(usize, usize, Vec<String>)>,
}

/// The turns of a history: runs of one role, as the API joins them, each
/// a range of the history's rows.
pub(super) type Turn = (Role, usize, usize);

pub(super) fn history(rows: &Rows, t: &Tree, problems: &mut Vec<Problem>) -> Plan {
    let row = |i: usize| rows.row(i);
    let main: Vec<usize> = (0..rows.len())
        .filter(|&i| t.on[i] && rows.parsed(i).is_some_and(|p| t.child_run || !p.sidechain))
        .collect();
    // Only what follows the last compaction is sent.
    let from = main.iter().rposition(|&i| row(i).compact_boundary).map_or(0, |k| k + 1);
    let boundary = from.checked_sub(1).map(|k| rows.line(main[k]));
    let hist: Vec<usize> = main[from..].iter().copied().filter(|&i| row(i).role.is_some()).collect();
    drop(main);
    let mut turns: Vec<Turn> = Vec::new();
    for (h, &i) in hist.iter().enumerate() {
        let Some(role) = row(i).role else { continue };
        match turns.last_mut() {
            Some((r, _, end)) if *r == role => *end = h + 1,
            _ => turns.push((role, h, h + 1)),
        }
    }
    let rs_of = |&(_, a, z): &Turn| hist.get(a..z).unwrap_or_default();
    let mut plan = Plan::default();
    // Where each tool_use of the file is, to say where a lost call went.
    let calls_anywhere: HashMap<&str, u64> = (0..rows.len())
        .flat_map(|i| {
            rows.blocks(i)
                .iter()
                .filter(|b| b.kind == BlockKind::ToolUse)
                .filter_map(move |b| Some((rows.str(b.id)?, rows.line(i))))
        })
        .collect();
    for (k, turn) in turns.iter().enumerate() {
        let uses = |rs: &[usize]| -> Vec<(usize, String, Option<String>)> {
            rs.iter()
                .flat_map(|&i| {
                    rows.blocks(i).iter().filter(|b| b.kind == BlockKind::ToolUse).filter_map(move |b| {
                        Some((i, rows.str(b.id)?.to_owned(), rows.str(b.name).map(str::to_owned)))
                    })
                })
                .collect()
        };
        let rs = rs_of(turn);
        match turn.0 {
            Role::Assistant => {
                let answered: HashSet<&str> = match turns.get(k + 1) {
                    Some(next @ (Role::User, _, _)) => rs_of(next)
                        .iter()
                        .flat_map(|&i| rows.blocks(i).iter())
                        .filter(|b| b.kind == BlockKind::ToolResult)
                        .filter_map(|b| rows.str(b.id))
                        .collect(),
                    _ => HashSet::new(),
                };
                for (i, id, name) in uses(rs) {
                    if answered.contains(id.as_str()) {
                        continue;
                    }
                    problems.push(Problem {
                        line: rows.line(i),
                        kind: Kind::ToolUseUnanswered,
                        severity: Severity::Error,
                        message: format!(
                            "tool_use {id} ({}) has no tool_result in the next message: the API refuses the history (a crash between the call and its result?)",
                            name.as_deref().unwrap_or("?")
                        ),
                    });
                    // After the call's response (its parallel lines stay together).
                    let response = rows.str(row(i).response);
                    let mut after = i;
                    while rows
                        .parsed(after + 1)
                        .is_some_and(|p| rows.str(p.response).is_some() && rows.str(p.response) == response)
                    {
                        after += 1;
                    }
                    // A row's calls come one after another: the last entry
                    // is the only one that can be this row's.
                    match plan.unanswered.last_mut().filter(|(c, _, _)| *c == i) {
                        Some((_, _, ids)) => ids.push(id),
                        None => plan.unanswered.push((i, after, vec![id])),
                    }
                }
            }
            Role::User => {
                // A set: with thousands of parallel calls a list searched
                // for each result was quadratic (12,000 calls, 0.3 s).
                let asked: HashSet<String> = match k.checked_sub(1).map(|p| &turns[p]) {
                    Some(prev @ (Role::Assistant, _, _)) => {
                        uses(rs_of(prev)).into_iter().map(|(_, id, _)| id).collect()
                    }
                    _ => HashSet::new(),
                };
                let mut answered: HashSet<String> = HashSet::new();
                for &i in rs {
                    for (b, block) in rows.blocks(i).iter().enumerate() {
                        if block.kind != BlockKind::ToolResult {
                            continue;
                        }
                        let id = rows.str(block.id).unwrap_or_default().to_owned();
                        let why = if !asked.contains(&id) {
                            // An empty id is named as one ("for  answers" read as a typo).
                            let named = if id.is_empty() { "(no id)" } else { id.as_str() };
                            match (calls_anywhere.get(id.as_str()), boundary) {
                                (Some(&at), Some(cut)) if at < cut => format!(
                                    "tool_result for {named} answers no tool_use of the message before it: its call (line {at}) is before the compaction at line {cut}"
                                ),
                                (Some(&at), _) => format!("tool_result for {named} answers no tool_use of the message before it (its call is on line {at})"),
                                _ => format!("tool_result for {named} answers no tool_use: its call is nowhere in the file"),
                            }
                        } else if answered.contains(&id) {
                            format!("a second tool_result for {id}")
                        } else {
                            answered.insert(id);
                            continue;
                        };
                        problems.push(Problem {
                            line: rows.line(i),
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
    drop(calls_anywhere);
    thinking(rows, &hist, problems, &mut plan);
    // A turn with an orphan result: the orphan says why (its results may
    // also come after other content, which its removal settles).
    // (The orphans are in the order of their rows: found by halving.)
    let orphan = |i: &usize| plan.orphans.binary_search_by(|&(o, _)| o.cmp(i)).is_ok();
    let explained: HashSet<usize> =
        turns.iter().enumerate().filter(|(_, turn)| rs_of(turn).iter().any(orphan)).map(|(k, _)| k).collect();
    refused(rows, &hist, &turns, &explained, problems);
    plan
}

/// Whether a signed thinking block of an assistant message has text.
#[inline(never)]
fn any_signed_text(rows: &Rows, hist: &[usize]) -> bool {
    hist.iter().any(|&i| {
        rows.row(i).role == Some(Role::Assistant)
            && rows.blocks(i).iter().any(|b| b.kind == BlockKind::Thinking && b.signed && !b.empty)
    })
}

/// Thinking the API refuses: unsigned, signed over an empty or changed text,
/// or made by another model than the one the session resumes with.
pub(super) fn thinking(rows: &Rows, hist: &[usize], problems: &mut Vec<Problem>, plan: &mut Plan) {
    let row = |i: usize| rows.row(i);
    let real = |m: S| rows.str(m).filter(|&m| m != "<synthetic>");
    let resume_model = hist
        .iter()
        .rev()
        .filter(|&&i| row(i).role == Some(Role::Assistant))
        .find_map(|&i| real(row(i).model));
    // A signed block with empty text is one of two things: thinking asked
    // for with `display: "omitted"` (what Claude Code 2.1.332 asks in a
    // non-interactive session, and the API's default on recent models),
    // which comes with an empty text and goes back so, accepted; or a text
    // lost on the way to disk with its signature kept (claude-code#63147),
    // refused. Claude Code 2.1.332 says which on the line
    // (`thinkingDisplay`). Where a line does not say, the session does: the
    // display is chosen per session, so a session where no signed block
    // has text is read as the first, and one where some have text as the
    // second.
    let session_omitted = !any_signed_text(rows, hist);
    let mut signed: HashMap<u64, u64> = HashMap::new();
    for &i in hist {
        let p = row(i);
        if p.role != Some(Role::Assistant) {
            continue;
        }
        for (b, block) in rows.blocks(i).iter().enumerate() {
            let why = match block.kind {
                BlockKind::Thinking => match block.signature() {
                    None => Some((Kind::ThinkingUnsigned, "a thinking block has no signature".to_owned())),
                    Some(_) if block.empty && !p.omitted.unwrap_or(session_omitted) => Some((
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
            let why = why.or_else(|| match (real(p.model), resume_model) {
                (Some(m), Some(r)) if m != r => Some((
                    Kind::ThinkingModelSwitch,
                    format!("thinking signed by {m}, and the session resumes with {r}: the API refuses thinking of another model"),
                )),
                _ => None,
            });
            plan.thinking.push((i, b));
            if let Some((kind, message)) = why {
                problems.push(Problem {
                    line: rows.line(i),
                    kind,
                    severity: Severity::Error,
                    message: message.clone(),
                });
                plan.bad_thinking.push(((i, b), message));
            }
        }
    }
}

/// How many turns `refused` gives `checkMessages` at once: the check's
/// rules look at a turn and its neighbours only, so a history of any
/// length is judged in parts this long (cut before an assistant turn),
/// never all its blocks copied at once.
pub(super) const TURNS_AT_ONCE: usize = 4096;

/// The rest of the API's rules, by `checkMessages` on the history's turns
/// (what the checks above already said is not said twice).
pub(super) fn refused(
    rows: &Rows,
    hist: &[usize],
    turns: &[Turn],
    explained: &HashSet<usize>,
    problems: &mut Vec<Problem>,
) {
    use crate::resume::ProblemKind as P;
    let mut at = 0;
    // The tool_use ids of the parts judged so far (they are unique in the whole).
    let mut uses = Default::default();
    while at < turns.len() {
        // Turns alternate roles: a part ends before an assistant turn (or at
        // the end), so the user turn answering its last call is in it.
        let mut end = (at + TURNS_AT_ONCE).min(turns.len());
        if turns.get(end).is_some_and(|t| t.0 == Role::User) {
            end += 1;
        }
        // Each turn's blocks as summarised when the line was read (the text
        // may be gone: a file read in chunks keeps no line whole).
        let messages: Vec<(bool, Vec<Block2>)> = turns[at..end]
            .iter()
            .map(|&(role, a, z)| {
                let rs = hist.get(a..z).unwrap_or_default();
                (
                    role == Role::User,
                    rs.iter().flat_map(|&i| rows.checks(i).iter().map(|c| rows.expand(c))).collect(),
                )
            })
            .collect();
        for p in crate::resume::check_summaries(messages, at, turns.len(), &mut uses) {
            if matches!(
                p.kind,
                P::ToolUseUnanswered | P::ToolResultOrphan | P::ThinkingUnsigned | P::NotAMessage
            ) || (p.kind == P::ToolResultNotFirst && explained.contains(&p.index))
            {
                continue;
            }
            let line = turns.get(p.index).and_then(|&(_, a, _)| hist.get(a)).map_or(0, |&i| rows.line(i));
            problems.push(Problem {
                line,
                kind: Kind::Refused,
                severity: Severity::Error,
                message: p.message,
            });
        }
        at = end;
    }
}
