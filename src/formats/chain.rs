//! Claude Code's conversation tree: which lines are the conversation a
//! resume rebuilds, and which lines are a subagent's run inside the file.
//!
//! The rules, and where each comes from:
//! - **Every line with a `uuid` is a node, whatever its type** (`user`,
//!   `assistant`, `system` such as `turn_duration` or `stop_hook_summary`,
//!   `attachment`, `progress`, ...): Claude Code writes each line's
//!   `parentUuid` as the uuid of the line written before it, so skipping a
//!   type breaks the chain (anthropics/claude-code#22107 describes the
//!   loader walking "backward from the last entry via parentUuid"; the
//!   codemie-code fixture `session-9eda1058.jsonl` chains its prompts through
//!   `system/turn_duration` lines).
//! - **The leaf is the last line of the file that is not a `progress` line**
//!   (nor a sidechain's, in a main file). Claude Code 1.x took the newest
//!   message (`getLastLog`, quoted in anthropics/claude-code#4457); later
//!   versions stopped letting progress lines end the chain after
//!   anthropics/claude-code#33651 and #35024 (a subagent's progress lines,
//!   flushed late, were taken as the leaf and the conversation was lost).
//!   The seed `004` (a clone whose storage mirrors `sessionStorage.ts`)
//!   restores "its message history" from the file the same way.
//! - **A compaction is crossed through `logicalParentUuid`**: the
//!   `compact_boundary` line has no `parentUuid` and names the line before it
//!   there (codemie-code's `session-624a4a58.jsonl`).
//! - **Parallel calls rejoin**: Claude Code writes each `tool_use` of one
//!   response as its own line (one `message.id`), chained one after the
//!   other, and each result as a child of its own call, so the walk meets
//!   one result only. Claude Code's `buildConversationChain` then runs
//!   `recoverOrphanedParallelToolResults`: every line of a response with a
//!   line on the chain joins it, and so does every tool result whose parent
//!   is one of them (described in Ruya-AI/cozempic#57 and
//!   anthropics/claude-code#31330; codemie-code's `turn-2.jsonl`).
//! - **Anything else off the chain is another branch** (a rewind, an edited
//!   prompt): left out, and said by the reader.
//! - **A sidechain run** (`isSidechain` lines in a main file, as Claude Code
//!   1.x wrote a Task's subagent) starts at a sidechain line whose parent is
//!   no sidechain line; each of its lines belongs to the run of its parent
//!   (claude-code-viewer's `5c0375b4-….jsonl`). claude-code-log links such a
//!   run to the Task call whose `prompt` is the run's first message; the
//!   reader does the same.
//!
//! Linear in the number of lines: maps by uuid, one walk, which the doctor
//! may carry on past a break it repairs (`Chain::repoint`).

use std::collections::{HashMap, HashSet};

/// What the chain needs of one line that has a place in the tree.
#[derive(Debug, Clone, Copy, Default)]
pub struct Node<'a> {
    pub uuid: Option<&'a str>,
    pub parent: Option<&'a str>,
    pub sidechain: bool,
    /// A `progress` line: a link, never the leaf.
    pub progress: bool,
    /// An assistant line's `message.id`.
    pub response: Option<&'a str>,
    /// A user line of tool results.
    pub tool_results: bool,
}

/// Which nodes are on the active chain. `child_run`: the file is a
/// subagent's run (every line a sidechain), so sidechain lines may be the
/// leaf. None when no line has a uuid (a hand-made file): all of it is the
/// conversation.
pub fn active(nodes: &[Node], child_run: bool) -> Option<Vec<bool>> {
    let mut chain = Chain::new(nodes);
    chain.walk(leaf(nodes, child_run)?);
    // A line without a uuid cannot be placed: it stays, as before trees.
    Some(nodes.iter().map(|n| n.uuid.is_none_or(|u| chain.on.contains(u))).collect())
}

/// The last node that may end the conversation: not `progress`, not a
/// sidechain's in a main file.
pub fn leaf<'a>(nodes: &[Node<'a>], child_run: bool) -> Option<&'a str> {
    nodes.iter().rev().find(|n| n.uuid.is_some() && !n.progress && (child_run || !n.sidechain))?.uuid
}

/// The active chain, grown from the leaf. By uuid, as Claude Code's map of
/// messages is: the last line with a uuid gives its parent, and every line
/// with a uuid on the chain is on it (a file that repeats a uuid keeps each
/// copy). The walk may go on later (`repoint`: the doctor's repair of a
/// break names another parent), and the chain grows with it: a line never
/// leaves it.
pub struct Chain<'a> {
    /// By uuid: the last node with it; by node, the node before it with
    /// the same uuid (usize::MAX: none).
    last_of: HashMap<&'a str, usize>,
    same_before: Vec<usize>,
    /// By node: its parent and its response id.
    parents: Vec<Option<&'a str>>,
    response: Vec<Option<&'a str>>,
    /// By response id: the uuids of its lines.
    responses: HashMap<&'a str, Vec<&'a str>>,
    /// By parent uuid: the uuids of the tool results nodes under it.
    results_under: HashMap<&'a str, Vec<&'a str>>,
    /// The walk (a uuid no line has ends it).
    walked: HashSet<&'a str>,
    /// The lines of responses the walk reached, whose results join too.
    members: HashSet<&'a str>,
    /// Every uuid on the chain.
    pub on: HashSet<&'a str>,
    /// Where `repoint` changed the parent the walk follows from a uuid.
    moved: HashMap<&'a str, Option<&'a str>>,
    /// The nodes that joined the chain, in the order they did (each once).
    pub joined: Vec<usize>,
}

impl<'a> Chain<'a> {
    pub fn new(nodes: &[Node<'a>]) -> Chain<'a> {
        let mut c = Chain {
            last_of: HashMap::new(),
            same_before: vec![usize::MAX; nodes.len()],
            parents: nodes.iter().map(|n| n.parent).collect(),
            response: nodes.iter().map(|n| n.response).collect(),
            responses: HashMap::new(),
            results_under: HashMap::new(),
            walked: HashSet::new(),
            members: HashSet::new(),
            on: HashSet::new(),
            moved: HashMap::new(),
            joined: Vec::new(),
        };
        for (i, n) in nodes.iter().enumerate() {
            let Some(u) = n.uuid else { continue };
            if let Some(before) = c.last_of.insert(u, i) {
                c.same_before[i] = before;
            }
            if let Some(r) = n.response {
                c.responses.entry(r).or_default().push(u);
            }
            if let (true, Some(p)) = (n.tool_results, n.parent) {
                c.results_under.entry(p).or_default().push(u);
            }
        }
        c
    }

    /// Walks on from `from` until a uuid walked already (a cycle, a
    /// hand-edited file, ends the walk) or one with no parent. Each uuid
    /// reached brings the other lines of its responses (Claude Code's
    /// `recoverOrphanedParallelToolResults`) and the results under them.
    pub fn walk(&mut self, from: &'a str) {
        let mut at = Some(from);
        while let Some(u) = at {
            if !self.walked.insert(u) {
                break;
            }
            self.join(u);
            let mut k = self.last_of.get(u).copied().unwrap_or(usize::MAX);
            while let Some(&before) = self.same_before.get(k) {
                // Each response once: taken out of the map when reached.
                let lines = self.response[k].and_then(|r| self.responses.remove(r)).unwrap_or_default();
                if lines.len() > 1 {
                    for m in lines {
                        if self.members.insert(m) {
                            self.join(m);
                            for x in self.results_under.remove(m).unwrap_or_default() {
                                self.join(x);
                            }
                        }
                    }
                }
                k = before;
            }
            at = self.parent_of(u);
        }
    }

    /// Node `i` now names `to` as its parent. When the walk follows it (it
    /// is the last node with its uuid) and came through it, the walk goes on
    /// from `to`.
    pub fn repoint(&mut self, nodes: &[Node<'a>], i: usize, to: Option<&'a str>) {
        let Some(u) = nodes.get(i).and_then(|n| n.uuid) else { return };
        if self.last_of.get(u) != Some(&i) {
            return;
        }
        self.moved.insert(u, to);
        if let (true, Some(to)) = (self.walked.contains(u), to) {
            self.walk(to);
        }
    }

    fn parent_of(&self, u: &'a str) -> Option<&'a str> {
        match self.moved.get(u) {
            Some(p) => *p,
            None => self.last_of.get(u).and_then(|&i| self.parents.get(i).copied().flatten()),
        }
    }

    /// The nodes with uuid `u` are on the chain (last first).
    fn join(&mut self, u: &'a str) {
        if self.on.insert(u) {
            let mut k = self.last_of.get(u).copied().unwrap_or(usize::MAX);
            while let Some(&before) = self.same_before.get(k) {
                self.joined.push(k);
                k = before;
            }
        }
    }
}

/// For each sidechain node, the index of the first node of its run (its
/// root); None for the others. Parents come before their children in a
/// file, so one pass suffices; a parent written later starts a run.
pub fn run_roots(nodes: &[Node]) -> Vec<Option<usize>> {
    let mut index: HashMap<&str, usize> = HashMap::new();
    let mut roots = Vec::with_capacity(nodes.len());
    for (i, n) in nodes.iter().enumerate() {
        let root = n.sidechain.then(|| {
            n.parent
                .and_then(|p| index.get(p).copied())
                .and_then(|j: usize| roots.get(j).copied().flatten())
                .unwrap_or(i)
        });
        roots.push(root);
        if let (Some(u), true) = (n.uuid, n.sidechain) {
            index.insert(u, i);
        }
    }
    roots
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node<'a>(uuid: &'a str, parent: Option<&'a str>) -> Node<'a> {
        Node { uuid: Some(uuid), parent, ..Node::default() }
    }

    #[test]
    fn every_typed_line_links_and_progress_is_never_the_leaf() {
        let mut sys = node("s", Some("a"));
        sys.progress = false;
        let mut prog = node("p", Some("b"));
        prog.progress = true;
        let nodes = [node("u", None), node("a", Some("u")), sys, node("b", Some("s")), prog];
        let on = active(&nodes, false).unwrap();
        assert_eq!(on, vec![true, true, true, true, false]);
    }

    #[test]
    fn parallel_calls_and_their_results_rejoin_but_a_rewind_stays_out() {
        let mut a1 = node("a1", Some("u"));
        a1.response = Some("m");
        let mut a2 = node("a2", Some("a1"));
        a2.response = Some("m");
        let mut r1 = node("r1", Some("a1"));
        r1.tool_results = true;
        let mut r2 = node("r2", Some("a2"));
        r2.tool_results = true;
        let rewound = node("x", Some("u"));
        let nodes = [node("u", None), a1, a2, r1, r2, rewound, node("next", Some("r1"))];
        let on = active(&nodes, false).unwrap();
        assert_eq!(on, vec![true, true, true, true, true, false, true]);
    }

    #[test]
    fn sidechain_lines_belong_to_the_run_of_their_first_line() {
        let side = |u: &'static str, p: Option<&'static str>| Node { sidechain: true, ..node(u, p) };
        let nodes = [
            node("m", None),
            side("s1", None),
            side("s2", Some("s1")),
            node("m2", Some("m")),
            side("t1", None),
        ];
        assert_eq!(run_roots(&nodes), vec![None, Some(1), Some(1), None, Some(4)]);
    }
}
