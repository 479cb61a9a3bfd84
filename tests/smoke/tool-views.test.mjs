// The core's tool views (src/transcript/tools.rs) and context blocks
// (boilerplate.rs) on every real session in ../shared/peers, against an
// oracle apart from the core: the raw lines of each file walked here, each
// agent's tool calls read from its own record shapes (Claude Code's and
// pi's `tool_use`/`toolCall` blocks, Codex's `function_call` and
// `custom_tool_call` payloads, Gemini's `toolCalls`), and what a view must
// say derived from those inputs alone. Every call of a known tool must have
// its view, with the command, path, pattern or list the agent wrote.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);
const core = require(path.join(root, "pkg/node/garuda_session.js"));
const shared = process.env.GARUDA_SHARED ?? path.join(root, "../shared");
const peers = path.join(shared, "peers");
const SKIP = fs.existsSync(peers) ? false : `SKIP tool views: ${peers} is absent (../shared sits beside the repository in CI)`;
const files = SKIP ? [] : fs.readdirSync(peers, { recursive: true }).map(String).filter((f) => (f.endsWith(".jsonl") || f.endsWith(".json")) && !/(meta|manifest)\.json$/.test(f)).sort();

/** Every tool call in a file's raw text, as the agent wrote it: { id, name, input }. */
function rawCalls(text) {
  const out = [];
  const visit = (v) => {
    if (!v || typeof v !== "object") return;
    if (Array.isArray(v)) return v.forEach(visit);
    // Claude Code: { type: "tool_use", id, name, input }; pi: { type: "toolCall", id, name, arguments }.
    if ((v.type === "tool_use" || v.type === "toolCall") && typeof v.name === "string") out.push({ id: v.id, name: v.name, input: v.input ?? v.arguments });
    // Codex: { type: "function_call", call_id, name, arguments: "<json>" } or custom_tool_call { input: "<patch>" }.
    else if ((v.type === "function_call" || v.type === "custom_tool_call") && typeof v.name === "string") {
      let input = v.input !== undefined ? { input: v.input } : v.arguments;
      if (typeof input === "string") {
        try {
          input = JSON.parse(input);
        } catch {}
      }
      out.push({ id: v.call_id, name: v.name, input });
    }
    // Gemini CLI: { toolCalls: [{ id, name, args }] }.
    else if (typeof v.name === "string" && v.args && typeof v.args === "object" && typeof v.id === "string") out.push({ id: v.id, name: v.name, input: v.args });
    for (const x of Object.values(v)) visit(x);
  };
  const whole = text.trimStart().startsWith("{") && !text.includes("\n{") ? [text] : text.split("\n");
  for (const line of whole) {
    try {
      visit(JSON.parse(line));
    } catch {}
  }
  return out;
}

const first = (o, keys) => keys.map((k) => o?.[k]).find((x) => typeof x === "string" && x !== "");

/** What the view of a call must hold, from its raw input alone (null: no view expected). */
function expected(name, input) {
  if (name.startsWith("mcp__") && name.slice(5).includes("__")) {
    const [server, ...tool] = name.slice(5).split("__");
    return { kind: "mcp", server, tool: tool.join("__") };
  }
  if (["Bash", "bash", "run_shell_command", "exec_command"].includes(name)) {
    const c = input?.command ?? input?.cmd;
    return typeof c === "string" ? { kind: "shell", command: c } : null;
  }
  if (["Read", "read", "read_file"].includes(name)) {
    const p = first(input, ["file_path", "path", "absolute_path"]);
    return p ? { kind: "read", path: p } : null;
  }
  if (["TodoWrite", "write_todos", "update_plan"].includes(name)) {
    const list = input?.todos ?? input?.plan;
    return Array.isArray(list) ? { kind: "todos", count: list.filter((t) => first(t, ["content", "description", "step", "text"])).length } : null;
  }
  if (["Task", "delegate_to_agent"].includes(name)) return { kind: "task", prompt: first(input, ["prompt", "objective"]) ?? "" };
  if (["Grep", "Glob", "search_file_content", "glob"].includes(name)) {
    const p = first(input, ["pattern", "query"]);
    return p ? { kind: "search", pattern: p } : null;
  }
  // A sanitised file keeps `[REDACTED_INPUT …]` for the patch: no diff to expect then.
  if (name === "apply_patch") return { kind: "patch", diff: String(input?.input ?? "").trimStart().startsWith("*** Begin Patch") };
  return null;
}

test("every call of a known tool in ../shared/peers has the view its raw input says", { skip: SKIP }, () => {
  let checked = 0;
  const kinds = new Set();
  for (const f of files) {
    const text = fs.readFileSync(path.join(peers, f), "utf8");
    const byId = new Map(rawCalls(text).map((c) => [c.id, c]));
    const j = new core.Journal({ history: true });
    try {
      j.feed(text);
      j.finish();
      for (let i = 0; i < j.transcriptLength; i++) {
        for (const p of j.transcriptEntry(i).parts ?? []) {
          if (p.type !== "toolUse") continue;
          const raw = byId.get(p.id);
          if (!raw || raw.name !== p.name) continue; // a call the oracle did not find as written (a sanitised name)
          const want = expected(raw.name, raw.input);
          const where = `${f} entry ${i} ${p.name} ${p.id}`;
          if (!want) {
            if (!["write_stdin", "shell", "WebFetch", "WebSearch", "MultiEdit"].includes(p.name)) assert.equal(p.view, undefined, `${where}: no view for a tool the oracle does not know`);
            continue;
          }
          assert.ok(p.view, `${where}: a view`);
          assert.equal(p.view.kind, want.kind, where);
          kinds.add(want.kind);
          checked++;
          if (want.kind === "shell") assert.equal(p.view.command, want.command, where);
          if (want.kind === "read") assert.equal(p.view.path, want.path, where);
          if (want.kind === "todos") assert.equal(p.view.items.length, want.count, where);
          if (want.kind === "task") assert.equal(p.view.prompt, want.prompt, where);
          if (want.kind === "search") assert.equal(p.view.pattern, want.pattern, where);
          if (want.kind === "mcp") assert.deepEqual([p.view.server, p.view.tool], [want.server, want.tool], where);
          if (want.kind === "patch") assert.equal(p.diff.length > 0, want.diff, `${where}: the patch as a diff`);
          // The output a view shows is the result's own text, out of its wrapping: never more than the result.
          if (p.view.output !== undefined && p.result) {
            let whole = p.result.text;
            try {
              whole = JSON.parse(whole).output ?? whole; // Codex's JSON envelope, unwrapped by the oracle too
            } catch {}
            assert.ok(whole.includes(p.view.output.trimEnd()), `${where}: output within the result`);
          }
          // A read's lines, numbered, are the result's lines.
          if (want.kind === "read" && p.result && !p.result.error) {
            for (const l of p.view.lines.slice(0, 50)) assert.ok(p.result.text.includes(l), `${where}: a read's line is in the result`);
          }
        }
      }
    } finally {
      j.free();
    }
  }
  assert.ok(checked > 500, `views checked: ${checked}`);
  for (const k of ["shell", "read", "todos", "task", "search", "mcp", "patch"]) assert.ok(kinds.has(k), `a ${k} view among the peers (${[...kinds]})`);
});

/** Whether a text block is the agent's, by the oracle's own reading of the raw record. */
const AGENT_TEXT = [/^\s*<command-(name|message)>/, /^Caveat: The messages below were generated by the user/, /^<local-command-std(out|err)>/, /^<system-reminder>/, /^# AGENTS\.md instructions/, /^<environment_context>/];

test("slash commands, caveats and AGENTS.md in ../shared/peers read as context, never as a person's prompt", { skip: SKIP }, () => {
  let contexts = 0;
  let commands = 0;
  for (const f of files) {
    const j = new core.Journal({ history: true });
    try {
      j.feed(fs.readFileSync(path.join(peers, f), "utf8"));
      j.finish();
      for (let i = 0; i < j.transcriptLength; i++) {
        const d = j.transcriptEntry(i);
        for (const p of d.parts ?? []) {
          const text = p.type === "context" ? null : p.text;
          if ((p.type === "prompt" || p.type === "text") && d.role === "user") {
            assert.ok(!AGENT_TEXT.some((re) => re.test(text)), `${f} entry ${i}: agent text shown as a prompt: ${text.slice(0, 80)}`);
          }
          if (p.type === "context") {
            contexts++;
            if (p.label.startsWith("/")) {
              commands++;
              assert.match(p.label, /^\/[\w:-]+$/, `${f} entry ${i}`);
            }
          }
        }
        if (d.context) assert.ok((d.parts ?? []).every((p) => p.type === "context"), `${f} entry ${i}: a context entry holds only context`);
      }
    } finally {
      j.free();
    }
  }
  assert.ok(contexts >= 10 && commands >= 3, `context blocks ${contexts}, slash commands ${commands}`);
});

test("the index's first prompt in ../shared/peers is what a person asked: a session that opens with a slash command shows the command, none shows a caveat", { skip: SKIP }, () => {
  const prompt = (f) => {
    const j = new core.Journal({});
    try {
      j.feed(fs.readFileSync(path.join(peers, f), "utf8"));
      j.finish();
      return j.figures().firstPrompt ?? null;
    } finally {
      j.free();
    }
  };
  // Both start with Claude Code's caveat, /clear or /orchestrator lines (the oracle: their raw first lines, read by eye and pinned here).
  assert.match(prompt("claude-code/codemie-code/session-196820da.jsonl"), /^ultrathink there is logic/);
  assert.equal(prompt("claude-code/claude-code-viewer/5c0375b4-57a5-4f26-b12d-d022ee4e51b7.jsonl"), "/orchestrator @CLAUDE.md を最新の状態にアップデートしてください");
  for (const f of files) {
    const p = prompt(f);
    if (p !== null) assert.ok(!AGENT_TEXT.some((re) => re.test(p)), `${f}: the index's prompt is the agent's: ${p.slice(0, 80)}`);
  }
});
