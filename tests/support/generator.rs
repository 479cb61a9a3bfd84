//! A deterministic generator of realistic Garuda journals, for the benchmark
//! (`bench/gen_journal.rs`) and the property tests. Same seed, same bytes.
//!
//! A session: a start record, then turns. A turn is a snapshot, a prompt,
//! and a tool loop of assistant steps (thinking with a signature, text,
//! tool calls) answered by tool results (source files, logs, command output,
//! now and then an `.env` dump with secrets in it), with subagent calls that
//! debit and report. Between turns: compactions, undo and redo, model
//! switches, titles, thinking choices, side usage, unreported reservations.

#![allow(dead_code)]

use serde_json::{json, Value};

pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn next(&mut self) -> u64 {
        // xorshift64*
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

const WORDS: &[&str] = &[
    "session",
    "journal",
    "record",
    "replay",
    "state",
    "message",
    "usage",
    "tokens",
    "cost",
    "resume",
    "const",
    "let",
    "return",
    "await",
    "async",
    "function",
    "import",
    "export",
    "from",
    "type",
    "interface",
    "string",
    "number",
    "boolean",
    "null",
    "undefined",
    "if",
    "else",
    "for",
    "while",
    "options",
    "config",
    "result",
    "error",
    "value",
    "index",
    "length",
    "path",
    "file",
    "read",
    "write",
    "append",
    "parse",
    "render",
    "update",
    "delete",
    "create",
    "build",
    "test",
    "expect",
    "the",
    "a",
    "of",
    "to",
    "and",
    "in",
    "is",
    "that",
    "it",
    "with",
    "as",
    "on",
    "be",
    "this",
    "tokenBudget",
    "maxTokens",
    "contextWindow",
    "apiKey",
    "options.apiKey",
    "getToken()",
    "z.string()",
];

const MODELS: &[&str] = &["claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5"];

fn words(rng: &mut Rng, n: usize) -> String {
    let mut out = String::new();
    for i in 0..n {
        if i > 0 {
            out.push(' ');
        }
        out.push_str(rng.pick(WORDS));
    }
    out
}

fn code_file(rng: &mut Rng, lines: usize) -> String {
    let mut out = String::new();
    for i in 0..lines {
        let indent = "  ".repeat(rng.below(4) as usize);
        match rng.below(6) {
            0 => out.push_str(&format!("{indent}// {}\n", words(rng, 6))),
            1 => out.push_str(&format!(
                "{indent}const {} = {}({});\n",
                rng.pick(WORDS),
                rng.pick(WORDS),
                rng.below(1000)
            )),
            2 => out.push_str(&format!(
                "{indent}if ({} > {}) {{ return {}; }}\n",
                rng.pick(WORDS),
                i,
                rng.pick(WORDS)
            )),
            3 => out.push_str(&format!("{indent}tokenBudget: {},\n", rng.below(50_000_000))),
            4 => out.push_str(&format!("{indent}export function {}(options) {{\n", rng.pick(WORDS))),
            _ => out.push_str(&format!("{indent}{}\n", words(rng, 8))),
        }
    }
    out
}

fn log_output(rng: &mut Rng, lines: usize) -> String {
    let mut out = String::new();
    for i in 0..lines {
        out.push_str(&format!(
            "2026-11-29T10:{:02}:{:02}.{:03}Z INFO {} {} (took {} ms)\n",
            i % 60,
            rng.below(60),
            rng.below(1000),
            rng.pick(&["request", "build", "test", "compile", "fetch"]),
            words(rng, 5),
            rng.below(900)
        ));
    }
    out
}

const BASE64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

fn base64(rng: &mut Rng, len: usize) -> String {
    (0..len).map(|_| BASE64[rng.below(64) as usize] as char).collect()
}

/// Secrets that the Redactor must remove (fake keys of the documented formats).
fn env_dump(rng: &mut Rng) -> String {
    format!(
        "PATH=/usr/bin:/bin\nHOME=/home/dev\nANTHROPIC_API_KEY=sk-ant-api03-{}AA\nGITHUB_TOKEN=ghp_{}\nDATABASE_URL=postgres://app:{}@db.internal:5432/app\nNODE_ENV=production\n",
        base64(rng, 93).replace(['+', '/'], "x"),
        base64(rng, 36).replace(['+', '/'], "Q"),
        base64(rng, 16).replace(['+', '/'], "z"),
    )
}

fn usage(rng: &mut Rng, context: u64) -> Value {
    json!({
        "inputTokens": 50 + rng.below(2000),
        "outputTokens": 20 + rng.below(1500),
        "cacheReadTokens": context,
        "cacheWriteTokens": rng.below(3000),
    })
}

pub struct Generator {
    rng: Rng,
    t: u64,
    step: u64,
    messages: usize,
    call: u64,
    model: usize,
    context: u64,
    pub lines: Vec<String>,
    /// The live state of what was emitted, to know the message count after
    /// undo and redo.
    replay: garuda_session::Journal,
}

impl Generator {
    pub fn new(seed: u64) -> Generator {
        Generator {
            rng: Rng::new(seed),
            t: 0,
            step: 0,
            messages: 0,
            call: 0,
            model: 0,
            context: 0,
            lines: Vec::new(),
            replay: garuda_session::Journal::default(),
        }
    }

    fn time(&mut self) -> String {
        self.t += 1 + self.rng.below(5000);
        let s = self.t / 1000;
        format!(
            "2026-11-29T{:02}:{:02}:{:02}.{:03}Z",
            10 + (s / 3600) % 14,
            (s / 60) % 60,
            s % 60,
            self.t % 1000
        )
    }

    fn emit(&mut self, mut record: Value) {
        let t = self.time();
        if let Some(obj) = record.as_object_mut() {
            let mut with_t = serde_json::Map::new();
            with_t.insert("t".into(), Value::String(t));
            for (k, v) in std::mem::take(obj) {
                with_t.insert(k, v);
            }
            *obj = with_t;
        }
        let line = record.to_string();
        self.replay.read_line(&line);
        self.lines.push(line);
    }

    pub fn start(&mut self, session_id: &str) {
        let model = MODELS[self.model];
        self.emit(json!({
            "type": "start", "sessionId": session_id, "root": "/home/dev/project", "version": "0.17.2",
            "model": model, "executor": "local", "isolation": "none",
            "limits": {"maxSteps": 200, "tokenBudget": 20_000_000, "contextWindow": 200_000}
        }));
    }

    /// One user turn with its tool loop.
    pub fn turn(&mut self) {
        let prompt = words(&mut self.rng, 12);
        let tree = format!("{:040x}", self.rng.next());
        let duration = self.rng.below(300);
        self.emit(json!({"type": "snapshot", "tree": tree, "messages": self.messages, "prompt": prompt.chars().take(50).collect::<String>(), "durationMs": duration}));
        let mut content = vec![json!({"type": "text", "text": prompt})];
        if self.rng.chance(30) {
            content.push(json!({"type": "text", "text": format!("<garuda_note>{}</garuda_note>", words(&mut self.rng, 10))}));
        }
        self.emit(json!({"type": "user", "message": {"role": "user", "content": content}}));
        self.messages += 1;
        let steps = 1 + self.rng.below(6);
        for i in 0..steps {
            let last = i + 1 == steps;
            self.assistant_step(last);
            if !last {
                self.tool_results();
            }
        }
    }

    fn assistant_step(&mut self, last: bool) {
        self.step += 1;
        let mut content = Vec::new();
        if self.rng.chance(70) {
            content.push(json!({"type": "thinking", "thinking": words(&mut self.rng, 40), "signature": base64(&mut self.rng, 300)}));
        }
        if self.rng.chance(60) || last {
            content.push(json!({"type": "text", "text": words(&mut self.rng, 30)}));
        }
        if !last {
            for _ in 0..1 + self.rng.below(2) {
                self.call += 1;
                let id = format!("toolu_{:016x}", self.call);
                let (name, input) = match self.rng.below(4) {
                    0 => (
                        "read_file",
                        json!({"path": format!("src/{}.ts", self.rng.pick(WORDS).replace(['.', '(', ')'], ""))}),
                    ),
                    1 => ("bash", json!({"command": "npm test -- --reporter dot"})),
                    2 => ("explore", json!({"task": words(&mut self.rng, 8)})),
                    _ => (
                        "edit_file",
                        json!({"path": "src/app.ts", "old": words(&mut self.rng, 5), "new": words(&mut self.rng, 6)}),
                    ),
                };
                content.push(json!({"type": "tool_use", "id": id, "name": name, "input": input}));
            }
        }
        self.context += 500 + self.rng.below(4000);
        let usage = usage(&mut self.rng, self.context);
        if self.rng.chance(3) {
            // A request whose usage never came back: its reservation is unreported.
            let tokens = 8000 + self.rng.below(8000);
            self.emit(json!({"type": "unreported", "tokens": tokens}));
            self.emit(json!({"type": "assistant", "step": self.step, "response": {"id": "msg", "content": content, "usage": usage, "usageReported": false}}));
        } else {
            let cost = (self.rng.below(40_000) as f64) / 1_000_000.0;
            self.emit(json!({"type": "assistant", "step": self.step, "response": {"id": "msg", "model": MODELS[self.model], "stop_reason": if last {"end_turn"} else {"tool_use"}, "content": content, "usage": usage}, "costUsd": cost}));
        }
        self.messages += 1;
    }

    fn tool_results(&mut self) {
        // Answer the tool_use blocks of the last assistant line.
        let Some(last) = self.lines.last() else { return };
        let Ok(record) = serde_json::from_str::<Value>(last) else { return };
        let uses: Vec<(String, String)> = record["response"]["content"]
            .as_array()
            .map(|blocks| {
                blocks
                    .iter()
                    .filter(|b| b["type"] == "tool_use")
                    .map(|b| {
                        (
                            b["id"].as_str().unwrap_or("").to_owned(),
                            b["name"].as_str().unwrap_or("").to_owned(),
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        let mut blocks = Vec::new();
        let mut calls = Vec::new();
        for (id, name) in uses {
            let (text, report) = match name.as_str() {
                "read_file" => {
                    let n = 20 + self.rng.below(250) as usize;
                    (code_file(&mut self.rng, n), None)
                }
                "bash" if self.rng.chance(5) => (env_dump(&mut self.rng), None),
                "bash" => {
                    let n = 10 + self.rng.below(120) as usize;
                    (log_output(&mut self.rng, n), None)
                }
                "explore" => {
                    let child = format!("explore-{id}");
                    let tokens = 5000 + self.rng.below(20_000);
                    self.emit(json!({"type": "child_debit", "childSessionId": child, "tokens": tokens}));
                    let u = json!({"inputTokens": tokens / 2, "outputTokens": tokens / 4, "cacheReadTokens": tokens - tokens / 2 - tokens / 4, "cacheWriteTokens": 0});
                    let report = json!({"childSessionId": child, "usage": u, "costUsd": (tokens as f64) / 1e6, "steps": 3 + self.rng.below(10)});
                    (words(&mut self.rng, 80), Some(report))
                }
                _ => ("ok: 1 edit applied".to_owned(), None),
            };
            let mut block = json!({"type": "tool_result", "tool_use_id": id, "content": text});
            if self.rng.chance(5) {
                block["is_error"] = json!(true);
            }
            blocks.push(block);
            let mut call = json!({"toolUseId": id, "name": name, "durationMs": self.rng.below(4000)});
            if let Some(report) = report {
                call["report"] = report;
            }
            calls.push(call);
        }
        self.emit(
            json!({"type": "tool_results", "message": {"role": "user", "content": blocks}, "calls": calls}),
        );
        self.messages += 1;
    }

    /// Something between turns, chosen at random.
    pub fn interlude(&mut self, percent: u64) {
        if !self.rng.chance(percent) {
            return;
        }
        match self.rng.below(9) {
            0 | 1 => {
                let before = self.context;
                self.context = before / 5;
                let summary_text = format!("Summary of the session so far: {}", words(&mut self.rng, 60));
                let msgs = json!([{"role": "user", "content": [{"type": "text", "text": summary_text}]}]);
                let u = usage(&mut self.rng, 0);
                self.emit(json!({"type": "compaction", "stage": 2, "beforeTokens": before, "afterTokens": self.context, "messages": msgs, "summary": {"content": [{"type": "text", "text": "summary"}], "usage": u}, "costUsd": 0.002}));
                self.messages = 1;
            }
            2 if !self.replay.state().undo.is_empty() => {
                let after = format!("{:040x}", self.rng.next());
                self.emit(json!({"type": "undo", "after": after}));
                self.messages = 0; // unknown; the next snapshot records the real count
                self.resync();
            }
            3 if !self.replay.state().redo.is_empty() => {
                self.emit(json!({"type": "redo"}));
                self.resync();
            }
            4 => {
                self.model = (self.model + 1) % MODELS.len();
                let model = MODELS[self.model];
                self.emit(json!({"type": "model", "model": model}));
            }
            5 => {
                let title = words(&mut self.rng, 4);
                self.emit(json!({"type": "title", "title": title}));
            }
            6 => {
                let choice = self.rng.pick(&["on", "off", "adaptive"]);
                self.emit(json!({"type": "thinking", "choice": choice}));
            }
            2 | 3 | 7 => {
                let u = usage(&mut self.rng, 0);
                self.emit(json!({"type": "side_usage", "purpose": "review", "usage": u, "costUsd": 0.003}));
            }
            _ => {
                self.emit(json!({"type": "continue", "message": {"role": "user", "content": "Your response was cut off; continue where you stopped."}, "maxTokens": 8192}));
                self.messages += 1;
            }
        }
    }

    /// After undo or redo the generator asks the real state for the count.
    fn resync(&mut self) {
        self.messages = self.replay.state().messages.len();
    }

    pub fn end(&mut self) {
        self.emit(json!({"type": "end", "stopReason": "user_exit", "steps": self.step}));
    }

    pub fn text(&self) -> String {
        let mut out = String::with_capacity(self.lines.iter().map(|l| l.len() + 1).sum());
        for line in &self.lines {
            out.push_str(line);
            out.push('\n');
        }
        out
    }
}

/// A journal of about `bytes` bytes.
pub fn journal(seed: u64, bytes: usize) -> String {
    let mut g = Generator::new(seed);
    g.start(&format!("20261129-100000-{:04x}", seed % 0xffff));
    let mut size = 0usize;
    while size < bytes {
        let before = g.lines.len();
        g.turn();
        g.interlude(35);
        size += g.lines[before..].iter().map(|l| l.len() + 1).sum::<usize>();
    }
    g.end();
    g.text()
}
