//! Where a Claude Code session's chain breaks: each line on the active
//! chain whose parent names no line of the file, and the line written
//! before it, which the repair names instead (`chain_breaks`).
//!
//! Each repaired break lets the walk go on past it, to the next break. It
//! was found by building the whole tree again after each break (500
//! breaks in 10,000 lines took 1.1 s; 2,000 in 40,000, 20 s). Here the
//! chain is built once and grows: a repaired break extends the walk from
//! the line it now names, and the lines that join are checked. Which
//! lines break does not depend on the order they are found in (a repair
//! depends on its line alone, and the chain only grows), and the problems
//! are put in the file's order after.
//! The chain is `chain::active`'s, grown as the repairs go
//! (`chain::Chain::repoint`).

use super::rules::{node_rows, nodes};
use super::*;

/// The chain breaks: for each line whose parent names no line, the line
/// written before it, which the repair names instead. Repeated until the
/// walk reaches the first line, so every break is found. With the tree the
/// repaired parents make: the chain as grown (the test builds it again whole).
pub(super) fn chain_breaks(
    rows: &Rows,
    problems: &mut Vec<Problem>,
) -> (HashMap<usize, Option<String>>, Tree) {
    let index = node_rows(rows);
    let child_run = !index.is_empty() && index.iter().all(|&i| rows.row(i).sidechain);
    let none = HashMap::new();
    let nodes = nodes(rows, &index, &none);
    let uuids: HashSet<&str> = nodes.iter().filter_map(|n| n.uuid).collect();
    let main = |i: usize| {
        let p = rows.row(i);
        (child_run || !p.sidechain) && !p.progress && p.uuid != S::NONE
    };
    // The node the repair names instead: the last main line before each.
    let mut before = vec![None; nodes.len()];
    let mut last = None;
    for (k, &i) in index.iter().enumerate() {
        before[k] = last;
        if main(i) {
            last = Some(k);
        }
    }
    let mut chain = chain::Chain::new(&nodes);
    let leaf = chain::leaf(&nodes, child_run);
    match leaf {
        Some(leaf) => {
            // A line without a uuid cannot be placed: it is on the chain.
            chain.joined.extend((0..nodes.len()).filter(|&k| nodes[k].uuid.is_none()));
            chain.walk(leaf);
        }
        // No line has a uuid: all of it is the conversation.
        None => chain.joined.extend(0..nodes.len()),
    }
    let mut parents: HashMap<usize, Option<String>> = HashMap::new();
    // Each node on the chain is checked once, as it joins.
    while let Some(k) = chain.joined.pop() {
        let (i, parent) = (index[k], nodes[k].parent);
        if parents.contains_key(&i) || parent.is_none_or(|u| uuids.contains(u)) {
            continue;
        }
        let Some(j) = before[k] else {
            // The first line of the conversation: nothing before it is lost.
            parents.insert(i, parent.map(str::to_owned));
            continue;
        };
        let (first, last) = (rows.line(index[0]), rows.line(index[j]));
        let named = parent.unwrap_or("");
        if rows.row(i).compact_boundary {
            // What a resume sends starts after the boundary anyway: only the
            // transcript before the compaction is out of the walk.
            problems.push(Problem {
                line: rows.line(i),
                kind: Kind::BrokenChain,
                severity: Severity::Warning,
                message: format!(
                    "the compaction's logicalParentUuid {named} names no line: lines {first}..{last} (before the compaction) are out of the transcript; resume sends what follows it, so it is left as it is"
                ),
            });
            parents.insert(i, parent.map(str::to_owned));
            continue;
        }
        problems.push(Problem {
            line: rows.line(i),
            kind: Kind::BrokenChain,
            severity: Severity::Error,
            message: format!(
                "its parentUuid {named} names no line of the file: the resumed conversation starts here and lines {first}..{last} are lost"
            ),
        });
        parents.insert(i, nodes[j].uuid.map(str::to_owned));
        chain.repoint(&nodes, k, nodes[j].uuid);
    }
    let mut on = vec![false; rows.len()];
    match leaf {
        Some(_) => {
            for (k, &i) in index.iter().enumerate() {
                on[i] = nodes[k].uuid.is_none_or(|u| chain.on.contains(u));
            }
        }
        None => on.iter_mut().enumerate().for_each(|(i, o)| *o = rows.row(i).parsed),
    }
    (parents, Tree { child_run, on })
}

#[cfg(test)]
#[path = "claude_breaks_tests.rs"]
mod tests;
