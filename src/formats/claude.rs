//! Claude Code sessions (`~/.claude/projects/<project>/<session>.jsonl`).
//!
//! What this reader gets right, and why:
//! - while streaming, Claude Code writes one line per content block, all with
//!   the same `message.id`; only the last carries the real output tokens.
//!   Lines are merged by `message.id` plus `requestId` (Bedrock writes no
//!   `requestId`), the blocks joined in order, the largest usage kept;
//! - the conversation is the active path, the chain Claude Code rebuilds on
//!   resume (see `chain.rs` for each rule and where it comes from): from the
//!   last leaf back through `parentUuid` (across a compaction through
//!   `logicalParentUuid`) over every line with a `uuid`, whatever its type;
//!   the parallel calls of one response rejoin with their results. Lines on
//!   other branches (a rewind, an edited prompt) are left out, and said;
//! - sidechains (`isSidechain`: a Task subagent's lines inside the file) are
//!   a child run: their usage counts, as side usage, not their messages; a
//!   run whose first prompt is a Task call's `prompt` is that call's child
//!   run (`sidechain-<toolUseId>`, read alone with `Reader::run`). A file
//!   that is all sidechain (`agent-<id>.jsonl`) is the child run itself;
//! - a prompt typed while the agent worked (`attachment` of type
//!   `queued_command`) is a prompt, where Claude Code put it;
//! - `system/compact_boundary` plus the `isCompactSummary` message is a
//!   compaction;
//! - titles: `custom-title`, then `ai-title`, then a `summary` whose
//!   `leafUuid` is on the active path (summaries often point into other files,
//!   so the last summary is not the title);
//! - `isMeta` lines and command wrappers go to the model but are not prompts;
//! - `cache_creation` splits 5-minute and 1-hour cache writes, priced apart.

use super::chain;
use super::records as rec;
use super::{Notice, Out};
use crate::prices::{Prices, Tokens};
use serde::Deserialize;
use serde_json::value::RawValue;
use std::collections::{HashMap, HashSet};
use std::rc::Rc;

// The usage-only mode (`Reader::usage_only`): its own file.
#[path = "claude_usage.rs"]
mod usage;
use usage::UsageOnly;

// The inline runs a read keeps, to read each alone (`Reader::keep_runs`).
#[path = "claude_runs.rs"]
mod runs;
use runs::KeptRuns;

// The child runs a tool results line links (`calls`): its own file.
#[path = "claude_calls.rs"]
mod calls;
use calls::child_calls;

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase")]
struct Line<'a> {
    #[serde(rename = "type", borrow)]
    kind: Option<std::borrow::Cow<'a, str>>,
    subtype: Option<String>,
    uuid: Option<String>,
    parent_uuid: Option<String>,
    logical_parent_uuid: Option<String>,
    #[serde(default)]
    is_sidechain: bool,
    #[serde(default)]
    is_meta: bool,
    #[serde(default)]
    is_compact_summary: bool,
    session_id: Option<String>,
    timestamp: Option<String>,
    cwd: Option<String>,
    version: Option<String>,
    request_id: Option<String>,
    #[serde(borrow)]
    message: Option<Msg<'a>>,
    // summary, custom-title, ai-title
    summary: Option<String>,
    leaf_uuid: Option<String>,
    custom_title: Option<String>,
    ai_title: Option<String>,
    title: Option<String>,
    compact_metadata: Option<CompactMetadata>,
    /// CC 2.x context lines; a `queued_command` is a prompt typed while the
    /// agent worked.
    #[serde(borrow)]
    attachment: Option<Attachment<'a>>,
    /// What the tool returned, as Claude Code shows it: a Task's names its
    /// subagent (`agentId`), which links the call to the child run's file.
    #[serde(borrow)]
    tool_use_result: Option<&'a RawValue>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Attachment<'a> {
    #[serde(rename = "type")]
    kind: Option<String>,
    /// A string, or content blocks (text and images).
    #[serde(borrow)]
    prompt: Option<&'a RawValue>,
    command_mode: Option<String>,
    #[serde(default)]
    is_meta: bool,
}

#[derive(Deserialize)]
struct Msg<'a> {
    id: Option<String>,
    model: Option<String>,
    #[serde(borrow)]
    content: Option<&'a RawValue>,
    usage: Option<ApiUsage>,
}

#[derive(Deserialize, Default, Clone, Copy)]
struct ApiUsage {
    #[serde(default)]
    input_tokens: Option<u64>,
    #[serde(default)]
    output_tokens: Option<u64>,
    #[serde(default)]
    cache_read_input_tokens: Option<u64>,
    #[serde(default)]
    cache_creation_input_tokens: Option<u64>,
    cache_creation: Option<CacheCreation>,
}

#[derive(Deserialize, Default, Clone, Copy)]
struct CacheCreation {
    ephemeral_5m_input_tokens: Option<u64>,
    ephemeral_1h_input_tokens: Option<u64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct CompactMetadata {
    pre_tokens: Option<u64>,
}

impl ApiUsage {
    fn tokens(&self) -> Tokens {
        let write = self.cache_creation_input_tokens.unwrap_or(0);
        let (w5, w1) = match self.cache_creation {
            Some(c) if c.ephemeral_5m_input_tokens.is_some() || c.ephemeral_1h_input_tokens.is_some() => {
                let w1 = c.ephemeral_1h_input_tokens.unwrap_or(0);
                (c.ephemeral_5m_input_tokens.unwrap_or(write.saturating_sub(w1)), w1)
            }
            _ => (write, 0),
        };
        Tokens {
            input: self.input_tokens.unwrap_or(0),
            output: self.output_tokens.unwrap_or(0),
            cache_read: self.cache_read_input_tokens.unwrap_or(0),
            cache_write_5m: w5,
            cache_write_1h: w1,
        }
    }
}

/// A response's identity: `message.id` and `requestId` (None on Bedrock).
type Key = (String, Option<String>);

/// What is kept of a line until the end of the file.
#[derive(Debug)]
enum Kept {
    User {
        content: Box<str>,
        /// The subagent a Task call ran (`agent-<id>`, the child run's file name).
        agent: Option<String>,
        prompt: bool,
        compact_summary: bool,
        /// All of its content is tool results.
        results: bool,
        /// A slash command's wrapper (`<command-name>/init</command-name>`):
        /// a prompt when the model was asked about it (`asked`).
        command: bool,
        /// `isMeta`: the agent's text, such as a command's expansion.
        meta: bool,
    },
    /// One streamed piece of a response: its blocks (a JSON array) and usage.
    Assistant {
        key: Option<Key>,
        blocks: Box<str>,
        usage: Tokens,
        model: Option<String>,
    },
    CompactBoundary {
        pre_tokens: u64,
    },
    /// A line with no message (`system`, `progress`, most `attachment`s):
    /// only its place in the tree.
    Link {
        progress: bool,
    },
}

#[derive(Debug)]
struct Entry {
    line: u64,
    uuid: Option<String>,
    parent: Option<String>,
    sidechain: bool,
    t: Option<String>,
    kept: Kept,
}

#[derive(Debug)]
pub struct Reader {
    prices: Rc<Prices>,
    entries: Vec<Entry>,
    session_id: Option<String>,
    root: Option<String>,
    version: Option<String>,
    custom_title: Option<String>,
    ai_title: Option<String>,
    /// `summary` lines: (leafUuid, summary).
    summaries: Vec<(String, String)>,
    /// Task calls of the main conversation: (tool_use id, prompt), to find
    /// the sidechain run each started.
    tasks: Vec<(String, String)>,
    /// Read one sidechain run alone: the Task call's tool_use id.
    run: Option<String>,
    lines: u64,
    /// Usage reports need the responses' usage only: no messages, no paths.
    usage_only: Option<UsageOnly>,
    /// After a usage-only read: each response's key and 1-hour cache write
    /// (`request_keys`).
    keys: Vec<(f64, u64)>,
    /// After a usage-only read: each response (`take_responses`).
    responses: Vec<super::Response>,
    /// After a usage-only read: the session's id (`take_session_id`).
    usage_session_id: Option<String>,
    /// Each inline run's entries, kept at the end of the file (`keep_runs`).
    kept_runs: Option<KeptRuns>,
}

/// A response being put together: its blocks (in usage-only mode, its time),
/// its largest usage and its model. One type for both modes keeps the wasm
/// to one copy of the map's code.
type Merged = (String, Tokens, Option<String>);

/// memchr's substring search (SIMD): the `"usage"` search runs over whole
/// lines that have no `message` early.
fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    crate::bytes::find_bytes(hay, needle)
}

impl Reader {
    pub fn new(prices: Rc<Prices>) -> Reader {
        Reader {
            usage_only: None,
            prices,
            entries: Vec::new(),
            session_id: None,
            root: None,
            version: None,
            custom_title: None,
            ai_title: None,
            summaries: Vec::new(),
            tasks: Vec::new(),
            run: None,
            lines: 0,
            keys: Vec::new(),
            responses: Vec::new(),
            usage_session_id: None,
            kept_runs: None,
        }
    }

    pub fn line(&mut self, number: u64, text: &str, notices: &mut Vec<Notice>) {
        self.lines = number;
        if self.usage_only.is_some() {
            return self.usage_line(number, text, notices);
        }
        self.full_line(number, text, notices);
    }

    /// A line of a full read. Out of line, as each mode's path is: V8
    /// optimises a hot function whole, and a usage read needs none of this.
    #[inline(never)]
    fn full_line(&mut self, number: u64, text: &str, notices: &mut Vec<Notice>) {
        let mut l: Line = match serde_json::from_str(text) {
            Ok(l) => l,
            Err(e) => {
                notices.push(Notice::unread(number, "a Claude Code line", text, &e));
                return;
            }
        };
        // Moved, not copied: these are on every line.
        if self.session_id.is_none() {
            self.session_id = l.session_id.take();
        }
        if self.root.is_none() {
            self.root = l.cwd.take();
        }
        if l.version.is_some() {
            self.version = l.version.take();
        }
        let kind = l.kind.as_deref().unwrap_or("");
        let kept = match kind {
            "summary" => {
                if let (Some(leaf), Some(summary)) = (l.leaf_uuid, l.summary) {
                    self.summaries.push((leaf, summary));
                }
                return;
            }
            "custom-title" => {
                self.custom_title = l.custom_title.or(l.title).or(self.custom_title.take());
                return;
            }
            "ai-title" => {
                self.ai_title = l.ai_title.or(l.title).or(self.ai_title.take());
                return;
            }
            "system" if l.subtype.as_deref() == Some("compact_boundary") => Kept::CompactBoundary {
                pre_tokens: l.compact_metadata.and_then(|m| m.pre_tokens).unwrap_or(0),
            },
            "attachment" => {
                match l.attachment.as_ref().filter(|a| a.kind.as_deref() == Some("queued_command")) {
                    // Claude Code hands a queued prompt to the model as the user's
                    // message; a queued bash command or a meta one is not typed text.
                    Some(Attachment { prompt: Some(p), command_mode, is_meta, .. }) => Kept::User {
                        content: p.get().into(),
                        agent: None,
                        prompt: !is_meta && command_mode.as_deref().is_none_or(|m| m == "prompt"),
                        compact_summary: false,
                        results: false,
                        command: false,
                        meta: *is_meta,
                    },
                    _ => Kept::Link { progress: false },
                }
            }
            "user" => {
                let Some(m) = &l.message else { return };
                let Some(content) = m.content else { return };
                let raw = content.get();
                // One parse of the blocks says both.
                let blocks = content_blocks(raw);
                let results = blocks.as_deref().is_some_and(all_tool_results);
                let prompt =
                    !l.is_meta && !l.is_compact_summary && !results && is_prompt(raw, blocks.as_deref());
                // Cheap test first: most results are not a subagent's.
                let agent = l
                    .tool_use_result
                    .filter(|r| find(r.get().as_bytes(), b"\"agentId\"").is_some())
                    .and_then(|r| serde_json::from_str::<serde_json::Value>(r.get()).ok())
                    .and_then(|v| v.get("agentId").and_then(|a| a.as_str()).map(|a| format!("agent-{a}")));
                let command = !l.is_meta && !results && is_command(raw, blocks.as_deref());
                Kept::User {
                    content: raw.into(),
                    agent,
                    prompt,
                    compact_summary: l.is_compact_summary,
                    results,
                    command,
                    meta: l.is_meta,
                }
            }
            "assistant" => {
                let Some(m) = &l.message else { return };
                let blocks: Box<str> = match m.content {
                    Some(c) if c.get().trim_start().starts_with('[') => c.get().into(),
                    Some(c) => format!(r#"[{{"type":"text","text":{}}}]"#, c.get()).into(),
                    None => "[]".into(),
                };
                if !l.is_sidechain {
                    self.note_tasks(&blocks);
                }
                let key = m.id.clone().map(|id| (id, l.request_id.clone()));
                Kept::Assistant {
                    key,
                    blocks,
                    usage: m.usage.unwrap_or_default().tokens(),
                    model: m.model.clone(),
                }
            }
            // Every other line with a uuid is a link of the chain (chain.rs).
            _ if l.uuid.is_some() => Kept::Link { progress: kind == "progress" },
            _ => return,
        };
        self.entries.push(Entry {
            line: number,
            uuid: l.uuid,
            parent: l.parent_uuid.or(l.logical_parent_uuid),
            sidechain: l.is_sidechain,
            t: l.timestamp,
            kept,
        });
    }

    /// A reader of one sidechain run of a main file: the child run the Task
    /// call `tool_use_id` started, as if it were its own file.
    pub fn run(prices: Rc<Prices>, tool_use_id: &str) -> Reader {
        Reader { run: Some(tool_use_id.to_owned()), ..Reader::new(prices) }
    }

    /// Task calls (their id and prompt), to find the sidechain run of each.
    /// Most responses name no Task: they are passed over unparsed.
    fn note_tasks(&mut self, blocks: &str) {
        let b = blocks.as_bytes();
        if find(b, b"\"tool_use\"").is_none()
            || (find(b, b"\"Task\"").is_none() && find(b, b"\"Agent\"").is_none())
        {
            return;
        }
        for block in content_blocks(blocks).unwrap_or_default() {
            let name = block.get("name").and_then(|n| n.as_str());
            if block.get("type").and_then(|t| t.as_str()) != Some("tool_use")
                || !matches!(name, Some("Task" | "Agent"))
            {
                continue;
            }
            let id = block.get("id").and_then(|v| v.as_str());
            let prompt = block.get("input").and_then(|i| i.get("prompt")).and_then(|v| v.as_str());
            if let (Some(id), Some(prompt)) = (id, prompt) {
                self.tasks.push((id.to_owned(), prompt.to_owned()));
            }
        }
    }

    /// The tree's view of each entry (chain.rs).
    fn nodes(&self) -> Vec<chain::Node<'_>> {
        self.entries
            .iter()
            .map(|e| chain::Node {
                uuid: e.uuid.as_deref(),
                parent: e.parent.as_deref(),
                sidechain: e.sidechain,
                progress: matches!(e.kept, Kept::Link { progress: true }),
                response: match &e.kept {
                    Kept::Assistant { key: Some((id, _)), .. } => Some(id.as_str()),
                    _ => None,
                },
                tool_results: matches!(e.kept, Kept::User { results: true, .. }),
            })
            .collect()
    }

    /// The slash commands of the conversation (`on(i, entry)`) the model
    /// answered, each a prompt (a turn): after the command and its expansion
    /// (`isMeta` texts, as `/init` and custom commands write them) comes a
    /// response. A built-in such as `/clear` or `/model` is answered by
    /// `<local-command-stdout>` and asks nothing, so it stays context; an
    /// expansion sent with the next typed prompt is that prompt's turn.
    fn asked_commands(&self, on: impl Fn(usize, &Entry) -> bool) -> HashSet<usize> {
        let mut asked = HashSet::new();
        let mut open: Option<usize> = None;
        for (i, e) in self.entries.iter().enumerate() {
            if !on(i, e) {
                continue;
            }
            match &e.kept {
                Kept::User { command: true, .. } => {
                    open = Some(i);
                    continue;
                }
                Kept::User { meta: true, results: false, compact_summary: false, .. } => continue,
                Kept::Assistant { .. } => {
                    if let Some(c) = open {
                        asked.insert(c);
                    }
                }
                Kept::User { .. } => {}
                _ => continue,
            }
            open = None;
        }
        asked
    }

    /// The sidechain runs that a Task call started: tool_use id → the
    /// entries' index of the run's first line. A run is a Task's when its
    /// first line is a prompt equal to the call's `prompt` (chain.rs).
    fn task_runs(&self, roots: &[Option<usize>]) -> HashMap<String, usize> {
        let mut runs = HashMap::new();
        if self.tasks.is_empty() {
            return runs;
        }
        // Calls with the same prompt take the runs that start with it in order.
        let mut by_prompt: HashMap<&str, std::collections::VecDeque<&str>> = HashMap::new();
        for (id, p) in &self.tasks {
            by_prompt.entry(p.trim()).or_default().push_back(id);
        }
        for (i, root) in roots.iter().enumerate() {
            if *root != Some(i) {
                continue;
            }
            if let Kept::User { content, results: false, .. } = &self.entries[i].kept {
                let text = plain_text(content);
                if let Some(id) = by_prompt.get_mut(text.trim()).and_then(|ids| ids.pop_front()) {
                    runs.insert(id.to_owned(), i);
                }
            }
        }
        runs
    }

    pub fn finish(&mut self, out: &mut Out, notices: &mut Vec<Notice>) {
        if self.usage_only.is_some() {
            return self.usage_finish();
        }
        self.full_finish(out, notices);
    }

    /// The end of a full read (out of line: see `full_line`).
    #[inline(never)]
    fn full_finish(&mut self, out: &mut Out, notices: &mut Vec<Notice>) {
        let (roots, runs) = self.records(out, notices);
        self.stash_runs(&roots, runs);
        self.entries.clear();
    }

    /// The records of the entries read (`entries`), and what the inline
    /// runs are: each entry's run (by its first entry) and each Task
    /// call's run (`stash_runs`).
    fn records(
        &mut self,
        out: &mut Out,
        notices: &mut Vec<Notice>,
    ) -> (Vec<Option<usize>>, HashMap<String, usize>) {
        if let Some(id) = self.run.take() {
            // One sidechain run alone: its lines are the file.
            let nodes = self.nodes();
            let roots = chain::run_roots(&nodes);
            let root = self.task_runs(&roots).get(&id).copied();
            let keep: Vec<bool> = roots.iter().map(|r| root.is_some() && *r == root).collect();
            let mut i = 0;
            self.entries.retain(|_| {
                i += 1;
                keep[i - 1]
            });
        }
        // A subagent's own file: every line is a sidechain, and it is the run.
        let child_run = self.entries.iter().all(|e| e.sidechain) && !self.entries.is_empty();
        let nodes = self.nodes();
        let path = chain::active(&nodes, child_run);
        // Each Task call's inline run, named as a child run (chain.rs).
        let (roots, runs) = if child_run {
            (Vec::new(), HashMap::new())
        } else {
            let roots = chain::run_roots(&nodes);
            let runs = self.task_runs(&roots);
            (roots, runs)
        };
        let children: HashMap<String, String> =
            runs.keys().map(|id| (id.clone(), format!("{}{id}", super::INLINE_RUN))).collect();
        // The runs a Task call started, by their first entry: a response of
        // one is drawn under the call when a result the transcript gets
        // names the run (`child_calls`; not when the file ends before the
        // result, or the result is on another branch). Its side usage is
        // written as an inline run's, and made a subagent's again at the
        // end if no such result came (`pending`, `shown`).
        let mut task_run = vec![false; roots.len()];
        for &first in runs.values() {
            if let Some(t) = task_run.get_mut(first) {
                *t = true;
            }
        }
        let run_of = |i: usize| roots.get(i).copied().flatten().filter(|&r| task_run.get(r) == Some(&true));
        let mut shown = vec![false; roots.len()];
        let mut pending: Vec<(usize, usize)> = Vec::new(); // (place in `out`, the run's first entry)
        drop(nodes);
        let on_path = |i: usize| path.as_ref().is_none_or(|p| p[i]);
        let main = |e: &Entry| child_run || !e.sidechain;
        let asked = self.asked_commands(|i, e| main(e) && on_path(i));

        // Merge streamed pieces: blocks joined in file order, the largest usage kept.
        let mut merged: HashMap<Key, Merged> = HashMap::new();
        for e in &self.entries {
            if let Kept::Assistant { key: Some(key), blocks, usage, model } = &e.kept {
                let slot =
                    merged.entry(key.clone()).or_insert_with(|| (String::new(), Tokens::default(), None));
                let inner = blocks.trim().trim_start_matches('[').trim_end_matches(']').trim();
                if !inner.is_empty() {
                    if !slot.0.is_empty() {
                        slot.0.push(',');
                    }
                    slot.0.push_str(inner);
                }
                if usage.output > slot.1.output || slot.1 == Tokens::default() {
                    slot.1 = *usage;
                }
                if slot.2.is_none() {
                    slot.2 = model.clone();
                }
            }
        }

        let first_model = self.entries.iter().find_map(|e| match &e.kept {
            Kept::Assistant { model: Some(m), .. } if main(e) && m != "<synthetic>" => Some(m.clone()),
            _ => None,
        });
        let first_t = self.entries.first().and_then(|e| e.t.clone());
        out.push((
            self.entries.first().map_or(1, |e| e.line),
            rec::start(
                self.session_id.as_deref(),
                first_model.as_deref(),
                self.root.as_deref(),
                self.version.as_deref(),
                first_t.as_deref(),
            ),
        ));
        let mut model = first_model;
        let mut step = 0;
        let mut pre_tokens = 0;
        let mut off_path = 0usize;
        for (i, e) in self.entries.iter().enumerate() {
            let t = e.t.as_deref();
            // Off the active path: not the conversation, but its requests were
            // made and paid for, so their usage counts (as side usage).
            let off = main(e) && !on_path(i);
            if off {
                // Links (hook output, progress) fork off the chain as a matter
                // of course: only messages make another branch.
                if matches!(e.kept, Kept::User { .. } | Kept::Assistant { .. }) {
                    off_path += 1;
                }
                if !matches!(e.kept, Kept::Assistant { .. }) {
                    continue;
                }
            }
            match &e.kept {
                Kept::Link { .. } => {}
                Kept::CompactBoundary { pre_tokens: p } => pre_tokens = *p,
                Kept::User { content, agent, prompt, compact_summary, results, .. } if main(e) => {
                    let message = if content.trim_start().starts_with('[') {
                        rec::message("user", content)
                    } else {
                        rec::message("user", &format!(r#"[{{"type":"text","text":{content}}}]"#))
                    };
                    if *compact_summary {
                        out.push((e.line, rec::compaction(pre_tokens, 0, &format!("[{message}]"), t)));
                    } else if *results {
                        let record = rec::tool_results(&message, t);
                        let calls = child_calls(content, agent.as_deref(), &children, &mut |id| {
                            if let Some(s) = runs.get(id).and_then(|&r| shown.get_mut(r)) {
                                *s = true;
                            }
                        });
                        out.push((
                            e.line,
                            match calls {
                                Some(c) => record.replacen(r#""calls":[]"#, &c, 1),
                                None => record,
                            },
                        ));
                    } else {
                        out.push((e.line, rec::user(&message, *prompt || asked.contains(&i), t)));
                    }
                }
                Kept::User { .. } => {}
                Kept::Assistant { key, blocks, usage, model: m } => {
                    let (content, usage, m) = match key {
                        // Taken out when emitted: its later pieces find nothing.
                        Some(k) => match merged.remove(k) {
                            Some((c, u, m2)) => (format!("[{c}]"), u, m2.or(m.clone())),
                            None => continue,
                        },
                        None => (blocks.to_string(), *usage, m.clone()),
                    };
                    let real = m.as_deref().filter(|m| *m != "<synthetic>");
                    let cost = if usage == Tokens::default() {
                        Some(0.0)
                    } else {
                        rec::priced_response(
                            &self.prices,
                            real,
                            key.as_ref().map(|(id, _)| id.as_str()),
                            &usage,
                        )
                    };
                    if !main(e) || off {
                        let purpose = if off {
                            crate::record::ANOTHER_BRANCH_USAGE
                        } else if let Some(r) = run_of(i) {
                            pending.push((out.len(), r));
                            super::INLINE_RUN_USAGE
                        } else {
                            crate::record::SUBAGENT_USAGE
                        };
                        out.push((e.line, rec::side_usage(purpose, &usage, cost, real, t)));
                        continue;
                    }
                    if let Some(real) = real {
                        if model.as_deref() != Some(real) {
                            out.push((e.line, rec::model(real, t)));
                            model = Some(real.to_owned());
                        }
                    }
                    step += 1;
                    out.push((e.line, rec::assistant(step, &content, &usage, cost, real, t)));
                }
            }
        }
        // An inline run no result named is drawn nowhere: its responses are
        // told as a subagent's, as before the run was known. (The purposes as
        // `rec::side_usage` writes INLINE_RUN_USAGE and SUBAGENT_USAGE, spelled
        // out: two format! calls were 440 bytes of the module. The test
        // a_run_no_result_names_is_told_as_a_subagents fails if they drift.)
        for (at, run) in pending {
            if let (Some(false), Some((_, record))) = (shown.get(run).copied(), out.get_mut(at)) {
                *record = record.replacen(r#""purpose":"inline run""#, r#""purpose":"subagent""#, 1);
            }
        }
        if off_path > 0 {
            notices.push(Notice::OtherBranches(self.lines, off_path));
        }
        let summary_title = path.as_ref().and_then(|p| {
            let on: HashSet<&str> = self
                .entries
                .iter()
                .zip(p)
                .filter(|(_, on)| **on)
                .filter_map(|(e, _)| e.uuid.as_deref())
                .collect();
            self.summaries.iter().rev().find(|(leaf, _)| on.contains(leaf.as_str())).map(|(_, s)| s.clone())
        });
        if let Some(title) = self.custom_title.clone().or(self.ai_title.clone()).or(summary_title) {
            out.push((self.lines.max(1), rec::title(&title)));
        }
        (roots, runs)
    }
}

/// The blocks of a user line's content (None: a plain string, or not JSON).
/// A generic Value: these lines are few, and it keeps the wasm small.
fn content_blocks(content: &str) -> Option<Vec<serde_json::Value>> {
    match serde_json::from_str::<serde_json::Value>(content).ok()? {
        serde_json::Value::Array(items) => Some(items),
        _ => None,
    }
}

/// Whether a user line's blocks are all tool results.
fn all_tool_results(blocks: &[serde_json::Value]) -> bool {
    !blocks.is_empty() && blocks.iter().all(|b| b.get("type").and_then(|t| t.as_str()) == Some("tool_result"))
}

/// A user line's text: its string, or its text blocks joined by newlines.
fn text_of(content: &str, blocks: Option<&[serde_json::Value]>) -> String {
    match blocks {
        Some(blocks) => blocks
            .iter()
            .filter_map(|b| b.get("text").and_then(|t| t.as_str()))
            .collect::<Vec<_>>()
            .join("\n"),
        None => serde_json::from_str::<String>(content).unwrap_or_default(),
    }
}

fn plain_text(content: &str) -> String {
    text_of(content, content_blocks(content).as_deref())
}

/// Whether a user line is a slash command's wrapper: Claude Code writes
/// `<command-message>…</command-message>`, `<command-name>/init</command-name>`
/// and `<command-args>…</command-args>` (in either order) for a command
/// typed at its prompt (peers: claude-code-viewer's `/init` and
/// `/orchestrator` sessions, codemie-code's `/clear`).
fn is_command(content: &str, blocks: Option<&[serde_json::Value]>) -> bool {
    let text = text_of(content, blocks);
    let t = text.trim_start();
    (t.starts_with("<command-name>") || t.starts_with("<command-message>")) && t.contains("</command-name>")
}

/// Whether a user line is a prompt someone typed: not a command's wrapper
/// (`<command-name>`, `<local-command-stdout>`), not an interruption note.
/// (Tool results are told apart before.)
fn is_prompt(content: &str, blocks: Option<&[serde_json::Value]>) -> bool {
    let text = text_of(content, blocks);
    let t = text.trim_start();
    !(t.starts_with("<command-")
        || t.starts_with("<local-command-")
        || t.starts_with("[Request interrupted")
        || t.starts_with("Caveat: The messages below"))
}
