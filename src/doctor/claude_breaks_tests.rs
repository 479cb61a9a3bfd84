//! The chain breaks found as the chain grows (`claude_breaks.rs`) against
//! the way they were found before: the whole tree built again after each
//! break (kept here as the oracle), on the doctor's fixtures and on files
//! made of every shape a break can take.

use super::super::rules::{node_rows, nodes};
use super::super::*;
use super::chain_breaks;

/// The oracle: the former `tree`, which built the tree again whole...
fn tree(rows: &Rows, parents: &HashMap<usize, Option<String>>) -> Tree {
    let index = node_rows(rows);
    let child_run = !index.is_empty() && index.iter().all(|&i| rows.row(i).sidechain);
    let nodes = nodes(rows, &index, parents);
    let mut on = vec![false; rows.len()];
    match chain::active(&nodes, child_run) {
        Some(path) => {
            for (k, &i) in index.iter().enumerate() {
                on[i] = path[k];
            }
        }
        // No line has a uuid: all of it is the conversation.
        None => on.iter_mut().enumerate().for_each(|(i, o)| *o = rows.row(i).parsed),
    }
    Tree { child_run, on }
}

/// ... and the former `chain_breaks`, word for word but for its name.
/// The chain breaks: for each line whose parent names no line, the line
/// written before it, which the repair names instead. Repeated until the
/// walk reaches the first line, so every break is found.
fn rebuilt(rows: &Rows, problems: &mut Vec<Problem>) -> HashMap<usize, Option<String>> {
    let uuids: HashSet<&str> =
        (0..rows.len()).filter_map(|i| rows.str(rows.parsed(i).filter(|p| p.node)?.uuid)).collect();
    let mut parents: HashMap<usize, Option<String>> = HashMap::new();
    let index: Vec<usize> = (0..rows.len()).filter(|&i| rows.parsed(i).is_some_and(|p| p.node)).collect();
    loop {
        let t = tree(rows, &parents);
        let main = |i: usize| {
            let p = rows.row(i);
            (t.child_run || !p.sidechain) && !p.progress && p.uuid != S::NONE
        };
        let broken = index.iter().copied().find(|&i| {
            let p = rows.row(i);
            let parent = parents.get(&i).map_or(rows.str(p.parent), |o| o.as_deref());
            t.on[i] && !parents.contains_key(&i) && parent.is_some_and(|u| !uuids.contains(u))
        });
        let Some(i) = broken else { return parents };
        let before = index.iter().copied().rfind(|&j| j < i && main(j));
        let p = rows.row(i);
        if let (true, Some(j)) = (p.compact_boundary, before) {
            // What a resume sends starts after the boundary anyway: only the
            // transcript before the compaction is out of the walk.
            problems.push(Problem {
                line: rows.line(i),
                kind: Kind::BrokenChain,
                severity: Severity::Warning,
                message: format!(
                    "the compaction's logicalParentUuid {} names no line: lines {}..{} (before the compaction) are out of the transcript; resume sends what follows it, so it is left as it is",
                    rows.str(p.parent).unwrap_or(""),
                    rows.line(index[0]),
                    rows.line(j)
                ),
            });
            parents.insert(i, rows.str(p.parent).map(str::to_owned));
            continue;
        }
        let Some(j) = before else {
            // The first line of the conversation: nothing before it is lost.
            parents.insert(i, rows.str(p.parent).map(str::to_owned));
            continue;
        };
        problems.push(Problem {
            line: rows.line(i),
            kind: Kind::BrokenChain,
            severity: Severity::Error,
            message: format!(
                "its parentUuid {} names no line of the file: the resumed conversation starts here and lines {}..{} are lost",
                rows.str(p.parent).unwrap_or(""),
                rows.line(index[0]),
                rows.line(j)
            ),
        });
        parents.insert(i, rows.str(rows.row(j).uuid).map(str::to_owned));
    }
}

/// Both ways on one file: the same repairs, the same problems in the
/// file's order (the order the diagnosis gives them in).
fn same(text: &str) -> usize {
    let mut ignored = Vec::new();
    let rows = rows(text.as_bytes(), &mut ignored);
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let (grown, t) = chain_breaks(&rows, &mut a);
    let rebuilt = rebuilt(&rows, &mut b);
    let whole = tree(&rows, &rebuilt);
    assert_eq!((t.child_run, &t.on), (whole.child_run, &whole.on), "{text}");
    crate::doctor::sort_problems(&mut a);
    crate::doctor::sort_problems(&mut b);
    assert_eq!(grown, rebuilt, "{text}");
    assert_eq!(format!("{a:?}"), format!("{b:?}"), "{text}");
    grown.len()
}

#[test]
fn the_doctor_fixtures_break_where_they_did() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut files = Vec::new();
    for sub in ["doctor", "formats"] {
        for e in std::fs::read_dir(dir.join(sub)).into_iter().flatten().flatten() {
            let p = e.path();
            if p.extension().is_some_and(|x| x == "jsonl") {
                files.push(p);
            }
        }
    }
    assert!(files.len() >= 5, "{files:?}");
    for f in files {
        same(&std::fs::read_to_string(&f).unwrap());
    }
}

/// Files of random lines: prompts and replies on one chain, parents that
/// name no line, uuids written twice, a response split over lines with its
/// results, sidechains, progress lines, compactions, lines without a uuid.
#[test]
fn every_shape_of_break_is_found_as_before() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |n: u64| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed % n
    };
    let mut repaired = 0;
    for case in 0..2000 {
        let n = 2 + next(60) as usize;
        let mut lines = Vec::new();
        let mut uuids: Vec<String> = Vec::new();
        for k in 0..n {
            let uuid = if next(12) == 0 && !uuids.is_empty() {
                uuids[next(uuids.len() as u64) as usize].clone()
            } else {
                format!("u{case}-{k}")
            };
            let parent = match next(8) {
                0 => "null".to_owned(),
                1 | 2 => format!("\"missing-{}\"", next(3)),
                3 if !uuids.is_empty() => format!("\"{}\"", uuids[next(uuids.len() as u64) as usize]),
                _ => uuids.last().map_or("null".to_owned(), |u| format!("\"{u}\"")),
            };
            let side = next(6) == 0;
            let uuid_field = if next(15) == 0 { String::new() } else { format!(r#","uuid":"{uuid}""#) };
            let line = match next(7) {
                0 => {
                    format!(r#"{{"type":"progress","parentUuid":{parent},"isSidechain":{side}{uuid_field}}}"#)
                }
                1 => format!(
                    r#"{{"type":"system","subtype":"compact_boundary","parentUuid":null,"logicalParentUuid":{parent},"isSidechain":{side}{uuid_field}}}"#
                ),
                2 | 3 => {
                    let id = format!("msg_{case}_{}", next(4));
                    format!(
                        r#"{{"type":"assistant","parentUuid":{parent},"isSidechain":{side}{uuid_field},"message":{{"id":"{id}","role":"assistant","model":"claude-sonnet-4-5","content":[{{"type":"tool_use","id":"t{k}","name":"Bash","input":{{}}}}],"usage":{{"input_tokens":1,"output_tokens":1}}}}}}"#
                    )
                }
                4 => format!(
                    r#"{{"type":"user","parentUuid":{parent},"isSidechain":{side}{uuid_field},"message":{{"role":"user","content":[{{"type":"tool_result","tool_use_id":"t{}","content":"ok"}}]}}}}"#,
                    next(n as u64)
                ),
                _ => format!(
                    r#"{{"type":"user","parentUuid":{parent},"isSidechain":{side}{uuid_field},"message":{{"role":"user","content":"q {k}"}}}}"#
                ),
            };
            uuids.push(uuid);
            lines.push(line);
        }
        repaired += same(&lines.join("\n"));
    }
    assert!(repaired > 2000, "{repaired} lines repaired over the cases");
}

/// A break every tenth prompt: found as before (and no longer quadratic).
#[test]
fn many_breaks_are_found_as_before() {
    let mut lines = Vec::new();
    let mut p = "null".to_owned();
    for i in 0..300 {
        let parent = if i % 10 == 5 { format!("\"missing-{i}\"") } else { p.clone() };
        lines.push(format!(r#"{{"type":"user","parentUuid":{parent},"uuid":"q{i}","message":{{"role":"user","content":"q {i}"}}}}"#));
        lines.push(format!(r#"{{"type":"assistant","parentUuid":"q{i}","uuid":"a{i}","message":{{"id":"m{i}","role":"assistant","model":"claude-sonnet-4-5","content":[{{"type":"text","text":"a"}}],"usage":{{"input_tokens":1,"output_tokens":1}}}}}}"#));
        p = format!("\"a{i}\"");
    }
    assert_eq!(same(&lines.join("\n")), 30);
}
