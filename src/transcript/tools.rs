//! What a tool call is, for a reader: the call's input and its result read
//! once, here, into a typed view (a shell command with its exit status and
//! output, a file read with its line numbers, a todo list, a subagent's
//! prompt, a search, a fetch, an MCP call), so the viewer, `export` and the
//! CLI draw the same thing and none of them parses a record again. A tool
//! this does not know gets no view (readers show its JSON).
//!
//! The shapes are the agents' own, as their files in ../shared/peers write
//! them (the files win over any fixture): Claude Code's Bash, Read, Grep,
//! Glob, TodoWrite, Task, WebFetch, WebSearch and `mcp__server__tool`; Codex's
//! `exec_command`, `write_stdin`, `shell`, `update_plan` and `apply_patch`;
//! pi's `bash` and `read`; Gemini CLI's `run_shell_command`, `read_file`,
//! `search_file_content`, `glob`, `write_todos`, `delegate_to_agent`,
//! `web_fetch` and `google_web_search`.

#![forbid(unsafe_code)]

use serde::Serialize;
use serde_json::Value;

/// One item of a todo list or plan.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TodoItem {
    pub text: String,
    /// `pending`, `in_progress`, `completed` (as the agent wrote it).
    pub status: String,
}

/// A file's matches in a search's result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchGroup {
    pub file: String,
    pub lines: Vec<String>,
}

/// A tool call as a reader shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum ToolView {
    /// A shell command. `output` is the command's own output, without the
    /// agent's wrapping (Codex's chunk header, pi's exit line, a JSON
    /// envelope); `exit` only when the result says it.
    #[serde(rename_all = "camelCase")]
    Shell {
        command: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cwd: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        exit: Option<i64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        output: Option<String>,
    },
    /// A file read: its lines with their numbers (the first line's number is
    /// `first`), and what followed them in the result (a reminder…).
    #[serde(rename_all = "camelCase")]
    Read {
        path: String,
        first: u64,
        lines: Vec<String>,
        #[serde(skip_serializing_if = "String::is_empty")]
        after: String,
    },
    Todos {
        items: Vec<TodoItem>,
        #[serde(skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    /// A subagent's run: the prompt it was given (Markdown); its report is the result.
    #[serde(rename_all = "camelCase")]
    Task {
        #[serde(skip_serializing_if = "Option::is_none")]
        agent: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        prompt: String,
    },
    /// A grep or glob: matches grouped by file (a file list: files without lines).
    #[serde(rename_all = "camelCase")]
    Search {
        pattern: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        path: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        glob: Option<String>,
        groups: Vec<SearchGroup>,
        /// Result lines not grouped (a count, "No files found"…).
        #[serde(skip_serializing_if = "String::is_empty")]
        rest: String,
    },
    /// A web fetch (`url`) or a web search (`query`).
    #[serde(rename_all = "camelCase")]
    Web {
        #[serde(skip_serializing_if = "Option::is_none")]
        url: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        query: Option<String>,
        #[serde(skip_serializing_if = "Option::is_none")]
        prompt: Option<String>,
    },
    /// A call to an MCP server's tool (`mcp__<server>__<tool>`).
    Mcp { server: String, tool: String },
    /// Codex's apply_patch (the diff is the call's `diff`): its result unwrapped.
    #[serde(rename_all = "camelCase")]
    Patch {
        #[serde(skip_serializing_if = "Option::is_none")]
        exit: Option<i64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        output: Option<String>,
    },
}

// Not inlined (here and below): each call site's copy cost the wasm more
// than the call (the size budget in .ci/build).
#[inline(never)]
fn text(v: &Value, keys: &[&str]) -> Option<String> {
    for k in keys {
        if let Some(Value::String(s)) = v.get(*k) {
            if !s.is_empty() {
                return Some(s.clone());
            }
        }
    }
    None
}

/// A command given as a string or as argv (Codex's `shell` gives `["bash", "-lc", "…"]`).
#[inline(never)]
fn command_of(v: &Value) -> Option<String> {
    for k in ["command", "cmd"] {
        match v.get(k) {
            Some(Value::String(s)) => return Some(s.clone()),
            Some(Value::Array(a)) => {
                let words: Vec<&str> = a.iter().filter_map(Value::as_str).collect();
                // `bash -lc <script>`: the script is the command.
                return Some(match words.as_slice() {
                    [sh, flag, script]
                        if sh.ends_with("sh") && flag.starts_with('-') && flag.ends_with('c') =>
                    {
                        (*script).to_owned()
                    }
                    _ => words.join(" "),
                });
            }
            _ => {}
        }
    }
    None
}

/// The view of a call named `name` with `input`, given its result's text.
pub fn view_of(name: &str, input: &Value, result: Option<&str>) -> Option<ToolView> {
    // Some readers keep a Codex call's unparsed arguments as `{ "input": "<json>" }`.
    let parsed;
    let input = match input.get("input").and_then(Value::as_str) {
        Some(s) if input.as_object().is_some_and(|o| o.len() == 1) && s.trim_start().starts_with('{') => {
            match serde_json::from_str::<Value>(s) {
                Ok(v) => {
                    parsed = v;
                    &parsed
                }
                Err(_) => input,
            }
        }
        _ => input,
    };
    if let Some(rest) = name.strip_prefix("mcp__") {
        let (server, tool) = rest.split_once("__")?;
        return Some(ToolView::Mcp { server: server.to_owned(), tool: tool.to_owned() });
    }
    match name {
        "Bash" | "bash" | "run_shell_command" | "exec_command" | "shell" | "local_shell" => {
            let (exit, output) = match result {
                Some(r) => shell_output(r),
                None => (None, None),
            };
            Some(ToolView::Shell {
                command: command_of(input)?,
                description: text(input, &["description", "justification"]),
                cwd: text(input, &["workdir", "cwd", "dir_path", "directory"]),
                exit,
                output,
            })
        }
        "write_stdin" => {
            let (exit, output) = result.map_or((None, None), shell_output);
            let session = input.get("session_id").map(|s| s.to_string()).unwrap_or_default();
            let chars = text(input, &["chars"]);
            Some(ToolView::Shell {
                description: Some(match &chars {
                    Some(_) => format!("typed into session {session}"),
                    None => format!("waited for session {session}'s output"),
                }),
                command: chars.unwrap_or_default(),
                cwd: None,
                exit,
                output,
            })
        }
        "apply_patch" => {
            let (exit, output) = result.map_or((None, None), shell_output);
            Some(ToolView::Patch { exit, output })
        }
        "Read" | "read" | "read_file" => {
            let path = text(input, &["file_path", "path", "absolute_path"])?;
            let offset = input.get("offset").and_then(Value::as_u64);
            Some(read_view(path, offset, result.unwrap_or("")))
        }
        "TodoWrite" | "write_todos" | "update_plan" => {
            let list = input.get("todos").or_else(|| input.get("plan"))?.as_array()?;
            let items = list
                .iter()
                .filter_map(|t| {
                    Some(TodoItem {
                        text: text(t, &["content", "description", "step", "text"])?,
                        status: text(t, &["status"]).unwrap_or_else(|| "pending".into()),
                    })
                })
                .collect();
            Some(ToolView::Todos { items, note: text(input, &["explanation"]) })
        }
        "Task" | "Agent" | "delegate_to_agent" => Some(ToolView::Task {
            agent: text(input, &["subagent_type", "agent_name"]),
            description: text(input, &["description"]),
            prompt: text(input, &["prompt", "objective"]).unwrap_or_default(),
        }),
        "Grep" | "Glob" | "grep" | "glob" | "search_file_content" | "find" => {
            let (groups, rest) = search_groups(result.unwrap_or(""));
            Some(ToolView::Search {
                pattern: text(input, &["pattern", "query"])?,
                path: text(input, &["path", "dir_path"]),
                glob: text(input, &["glob", "include"]),
                groups,
                rest,
            })
        }
        "WebFetch" | "web_fetch" | "WebSearch" | "web_search" | "google_web_search" => Some(ToolView::Web {
            url: text(input, &["url"]),
            query: text(input, &["query"]),
            prompt: text(input, &["prompt"]),
        }),
        _ => None,
    }
}

/// A shell result's exit status and output, out of each agent's wrapping.
#[inline(never)]
fn shell_output(r: &str) -> (Option<i64>, Option<String>) {
    // Codex (older) and apply_patch: `{"output": "…", "metadata": {"exit_code": 0}}`.
    if r.trim_start().starts_with('{') {
        if let Ok(v) = serde_json::from_str::<Value>(r) {
            if let Some(out) = v.get("output").and_then(Value::as_str) {
                let exit = v.pointer("/metadata/exit_code").and_then(Value::as_i64);
                return (exit, Some(out.to_owned()));
            }
        }
    }
    // Codex's exec_command: a header (`Chunk ID`, `Wall time`, `Process
    // exited with code N`, `Original token count`), then `Output:`.
    if r.starts_with("Chunk ID: ") || r.starts_with("Wall time: ") || r.starts_with("Exit code: ") {
        if let Some(at) = r.find("\nOutput:") {
            let head = &r[..at];
            let exit = head
                .lines()
                .find_map(|l| {
                    l.strip_prefix("Process exited with code ").or_else(|| l.strip_prefix("Exit code: "))
                })
                .and_then(|n| n.trim().parse().ok());
            let body = r[at + "\nOutput:".len()..].strip_prefix('\n').unwrap_or(&r[at + 8..]);
            return (exit, Some(body.to_owned()));
        }
    }
    // Gemini CLI: `Output: …`, then `Error:`, `Exit Code:`, `Signal:`… lines.
    if let Some(body) = r
        .strip_prefix("Output: ")
        .or_else(|| r.strip_prefix("Command: ").and_then(|_| r.split_once("\nOutput: ").map(|x| x.1)))
    {
        const TRAILERS: [&str; 5] =
            ["Error: ", "Exit Code: ", "Signal: ", "Background PIDs: ", "Process Group PGID: "];
        let mut out = Vec::new();
        let mut exit = None;
        let mut trailer = false;
        for l in body.lines() {
            if TRAILERS.iter().any(|t| l.starts_with(t)) {
                trailer = true;
                exit = exit.or_else(|| l.strip_prefix("Exit Code: ").and_then(|n| n.trim().parse().ok()));
            }
            if !trailer {
                out.push(l);
            }
        }
        let out = out.join("\n");
        return (exit, Some(if out == "(empty)" { String::new() } else { out }));
    }
    // Claude Code: `Exit code N` first when the command failed.
    if let Some(rest) = r.strip_prefix("Exit code ") {
        let (n, body) = rest.split_once('\n').unwrap_or((rest, ""));
        if let Ok(code) = n.trim().parse() {
            return (Some(code), Some(body.to_owned()));
        }
    }
    // pi: `Command exited with code N` last when it failed.
    if let Some((body, n)) = r.rsplit_once("Command exited with code ") {
        if let Ok(code) = n.trim().parse() {
            return (Some(code), Some(body.trim_end().to_owned()));
        }
    }
    (None, Some(r.to_owned()))
}

/// A read's lines. Claude Code numbers them (`    12→text`, or a tab after
/// the number); pi and Gemini give the text alone, from `offset` (1-based).
#[inline(never)]
fn read_view(path: String, offset: Option<u64>, r: &str) -> ToolView {
    let numbered = |l: &str| -> Option<(u64, String)> {
        let t = l.trim_start_matches(' ');
        let digits = t.bytes().take_while(u8::is_ascii_digit).count();
        let n = t[..digits].parse().ok()?;
        let rest = t[digits..].strip_prefix('→').or_else(|| t[digits..].strip_prefix('\t'))?;
        Some((n, rest.to_owned()))
    };
    let all: Vec<&str> = r.lines().collect();
    let first = all.first().and_then(|l| numbered(l));
    if let Some((start, _)) = first {
        let mut lines = Vec::new();
        let mut k = 0;
        while let Some((_, text)) = all.get(k).and_then(|l| numbered(l)) {
            lines.push(text);
            k += 1;
        }
        let after = all[k..].join("\n").trim().to_owned();
        return ToolView::Read { path, first: start, lines, after };
    }
    ToolView::Read {
        path,
        first: offset.filter(|o| *o > 0).unwrap_or(1),
        lines: all.iter().map(|l| (*l).to_owned()).collect(),
        after: String::new(),
    }
}

/// A search's result, grouped by file: `path:12:text` lines (grep's
/// content mode), Gemini's `File: path` then `L12: text`, or one path a line
/// (a file list). What is neither stays in `rest`.
#[inline(never)]
fn search_groups(r: &str) -> (Vec<SearchGroup>, String) {
    let mut groups: Vec<SearchGroup> = Vec::new();
    let mut rest = Vec::new();
    let push = |groups: &mut Vec<SearchGroup>, file: &str, line: Option<String>| {
        if groups.last().map(|g| g.file.as_str()) != Some(file) {
            groups.push(SearchGroup { file: file.to_owned(), lines: Vec::new() });
        }
        if let (Some(l), Some(g)) = (line, groups.last_mut()) {
            g.lines.push(l);
        }
    };
    let mut current: Option<String> = None;
    for l in r.lines() {
        if let Some(f) = l.strip_prefix("File: ") {
            current = Some(f.trim().to_owned());
            push(&mut groups, f.trim(), None);
            continue;
        }
        if let (Some(f), Some(m)) = (&current, l.strip_prefix('L')) {
            if m.split_once(':').is_some_and(|(n, _)| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()))
            {
                let f = f.clone();
                push(&mut groups, &f, Some(m.to_owned()));
                continue;
            }
        }
        // `path:12:text`: a file, a line number, the text.
        let mut it = l.splitn(3, ':');
        if let (Some(f), Some(n), Some(text)) = (it.next(), it.next(), it.next()) {
            if !f.is_empty() && !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) {
                push(&mut groups, f, Some(format!("{n}: {text}")));
                continue;
            }
        }
        let path_like = !l.is_empty() && !l.contains(' ') && (l.contains('/') || l.contains('.'));
        if path_like && current.is_none() {
            push(&mut groups, l, None);
        } else if !l.trim().is_empty() && l.trim() != "---" {
            rest.push(l);
        }
    }
    (groups, rest.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn shell_results_of_each_agent_unwrapped() {
        // Shapes from ../shared/peers (Codex 0.125, pi, Gemini CLI, Claude Code 2.0).
        let codex = "Chunk ID: 853167\nWall time: 0.0000 seconds\nProcess exited with code 0\nOriginal token count: 1356\nOutput:\nhello\n";
        assert_eq!(shell_output(codex), (Some(0), Some("hello\n".into())));
        assert_eq!(shell_output("a\n\nCommand exited with code 2"), (Some(2), Some("a".into())));
        assert_eq!(
            shell_output("Exit code 1\n(eval):1: no matches"),
            (Some(1), Some("(eval):1: no matches".into()))
        );
        assert_eq!(
            shell_output("Output: AgentSessions/\nREADME.md\nProcess Group PGID: 12345"),
            (None, Some("AgentSessions/\nREADME.md".into()))
        );
        let patch = r#"{"output":"Success. Updated the following files:\nM a.ts\n","metadata":{"exit_code":0,"duration_seconds":2.2}}"#;
        assert_eq!(
            shell_output(patch),
            (Some(0), Some("Success. Updated the following files:\nM a.ts\n".into()))
        );
        assert_eq!(shell_output("plain"), (None, Some("plain".into())));
    }

    #[test]
    fn views_by_tool() {
        let v = view_of("Bash", &json!({"command": "ls", "description": "List"}), Some("a\nb")).unwrap();
        assert_eq!(
            v,
            ToolView::Shell {
                command: "ls".into(),
                description: Some("List".into()),
                cwd: None,
                exit: None,
                output: Some("a\nb".into())
            }
        );
        let v =
            view_of("shell", &json!({"input": "{\"command\":[\"bash\",\"-lc\",\"ls -la\"]}"}), None).unwrap();
        assert!(matches!(v, ToolView::Shell { command, .. } if command == "ls -la"));
        let v = view_of(
            "Read",
            &json!({"file_path": "a.rs"}),
            Some("     7→fn a() {}\n     8→}\n\n<system-reminder>x</system-reminder>"),
        )
        .unwrap();
        assert_eq!(
            v,
            ToolView::Read {
                path: "a.rs".into(),
                first: 7,
                lines: vec!["fn a() {}".into(), "}".into()],
                after: "<system-reminder>x</system-reminder>".into()
            }
        );
        let v = view_of("read", &json!({"path": "a.ts", "offset": 40}), Some("x\ny")).unwrap();
        assert!(matches!(v, ToolView::Read { first: 40, ref lines, .. } if lines.len() == 2));
        let v = view_of(
            "TodoWrite",
            &json!({"todos": [{"content": "A", "status": "completed", "activeForm": "Doing A"}]}),
            None,
        )
        .unwrap();
        assert_eq!(
            v,
            ToolView::Todos {
                items: vec![TodoItem { text: "A".into(), status: "completed".into() }],
                note: None
            }
        );
        let v = view_of(
            "update_plan",
            &json!({"plan": [{"step": "B", "status": "pending"}], "explanation": "why"}),
            None,
        )
        .unwrap();
        assert!(matches!(v, ToolView::Todos { ref items, note: Some(_) } if items[0].text == "B"));
        let v = view_of("mcp__supabase_ops__execute_sql", &json!({}), None).unwrap();
        assert_eq!(v, ToolView::Mcp { server: "supabase_ops".into(), tool: "execute_sql".into() });
        assert_eq!(view_of("mcp__broken", &json!({}), None), None);
        assert_eq!(view_of("SomethingElse", &json!({"command": "x"}), None), None);
        // A call whose input lacks what the view needs keeps the JSON view.
        assert_eq!(view_of("Bash", &json!({"cmd_typo": "x"}), None), None);
    }

    #[test]
    fn search_results_grouped_by_file() {
        let (g, rest) =
            search_groups("src/a.ts:7:export function a\nsrc/a.ts:9:export function b\nsrc/b.ts:1:x");
        assert_eq!(
            g.iter().map(|g| (g.file.as_str(), g.lines.len())).collect::<Vec<_>>(),
            [("src/a.ts", 2), ("src/b.ts", 1)]
        );
        assert!(rest.is_empty());
        let (g, rest) = search_groups("Found 2 matches for pattern \"X\" in path \".\":\n---\nFile: src/u.ts\nL288: class X {\nL289: y\n---");
        assert_eq!(
            g,
            vec![SearchGroup {
                file: "src/u.ts".into(),
                lines: vec!["288: class X {".into(), "289: y".into()]
            }]
        );
        assert!(rest.starts_with("Found 2 matches"));
        let (g, _) = search_groups("Found 2 files\n/x/a.json\n/x/b.md");
        assert_eq!(g.len(), 2);
        let (g, rest) = search_groups("No files found");
        assert!(g.is_empty() && rest == "No files found");
    }
}
