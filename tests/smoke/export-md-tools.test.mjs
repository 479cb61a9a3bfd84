// The Markdown export draws each tool call by its gist, as the HTML does:
// a shell command as `$ cmd` with its description and first output lines,
// a read's path and lines, an edit as a ```diff block, todos as a
// checklist, a search's pattern and path, a subagent's prompt and report
// as Markdown, an MCP call's server and tool; a tool it does not know keeps
// its JSON. On a fixture with one call of each, and on every Claude Code
// file in ../shared/peers against the calls' own inputs (an independent
// walk of the raw lines).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parsed, toolBlocks, conversation } from "./support/claude-lines.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "pkg/bin/garuda-session.cjs");
const peers = path.join(process.env.GARUDA_SHARED ?? path.join(root, "../shared"), "peers");
const md = (file) => {
  const r = spawnSync(process.execPath, [bin, "export", file, "--format", "md", "--no-redact"], { encoding: "utf8", maxBuffer: 1 << 28 });
  assert.equal(r.status, 0, `${file}: ${r.stderr}`);
  return r.stdout;
};
// Markdown's backslash escapes undone, to find a call's own words in it.
const plain = (s) => s.replace(/\\([*_`[\]<>\\])/g, "$1");

const OUTPUT = Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join("\n");
// [tool name, input, result text, what its Markdown holds, what it must not hold]
const CASES = [
  ["Bash", { command: "ls -la src", description: "List the sources" }, OUTPUT, [/^\*\*Tool call\*\* `Bash` — List the sources · ok/m, /^```bash\n\$ ls -la src\n```$/m, /^```\nline 1\n(line \d\n){4}line 6\n```$/m, /<summary>4 more lines<\/summary>\n\n```\nline 7\nline 8\nline 9\nline 10\n```/], [/"command"/]],
  // A terminal's colours and a progress line rewritten with \r: shown as the terminal left them.
  ["Bash", { command: "npm test", description: "Run the tests" }, "\x1b[32mPASS\x1b[0m src/a.test.ts\nbuilding 10%\rbuilding 100%\n\x1b]0;title\x07done", [/^```\nPASS src\/a\.test\.ts\nbuilding 100%\ndone\n```$/m], [/\x1b/, /building 10%/]],
  ["Read", { file_path: "src/parse.ts" }, "     1→export function parse() {\n     2→  return 1;\n     3→}", [/^\*\*Tool call\*\* `Read` — `src\/parse.ts`/m, /^lines 1–3$/m, /^```typescript\nexport function parse\(\) \{\n  return 1;\n\}\n```$/m], [/"file_path"/, /1→/]],
  ["Edit", { file_path: "src/parse.ts", old_string: "return 1;", new_string: "return 2;" }, "The file src/parse.ts has been updated.", [/^```diff\n-return 1;\n\+return 2;\n```$/m, /^`src\/parse.ts` \+1 −1$/m], [/"old_string"/]],
  // A file written whole reads as the file, in its language, not as "+" lines.
  ["Write", { file_path: "src/new.py", content: "def f():\n    return 1\n" }, "File created successfully at: src/new.py", [/^`src\/new\.py` written, 2 lines$/m, /^```python\ndef f\(\):\n    return 1\n```$/m], [/^```diff/m, /^\+def/m]],
  ["TodoWrite", { todos: [{ content: "Write the parser", status: "completed", activeForm: "Writing" }, { content: "Test it", status: "in_progress", activeForm: "Testing" }, { content: "Ship *it*", status: "pending", activeForm: "Shipping" }] }, "Todos have been modified successfully.", [/^- \[x\] Write the parser$/m, /^- \[ \] Test it \*\(in progress\)\*$/m, /^- \[ \] Ship \\\*it\\\*$/m, /1 of 3 done/], [/"todos"/]],
  ["Glob", { pattern: "**/*.ts", path: "src" }, "src/a.ts\nsrc/b.ts", [/^\*\*Tool call\*\* `Glob` — `\*\*\/\*\.ts` in `src`/m, /^- `src\/a\.ts`\n- `src\/b\.ts`$/m], [/"pattern"/]],
  ["Grep", { pattern: "fn main", path: "src", output_mode: "content", "-n": true }, "src/main.rs:1:fn main() {", [/^\*\*Tool call\*\* `Grep` — `fn main` in `src`/m], [/"pattern"/]],
  ["Task", { description: "Look around", subagent_type: "general-purpose", prompt: "# Survey\nList the **files**." }, "## Found\n- a.ts", [/^\*\*Tool call\*\* `Task` — general-purpose: Look around/m, /^\*\*Prompt\*\*\n\n### Survey\nList the \*\*files\*\*\.$/m, /^\*\*Report\*\*\n\n#### Found\n- a\.ts$/m], [/"prompt"/]],
  ["mcp__github__get_issue", { owner: "o", repo: "r", number: 7 }, "issue 7: broken", [/^MCP server \*\*github\*\*, tool \*\*get\\_issue\*\*$/m], []],
  ["FrobnicateWidget", { knob: 11 }, "frobbed", [/^```json\n\{\n?\s*"knob": ?11\s*\n?\}\n```$/m, /^\*\*Result\*\*\n\n```\nfrobbed\n```$/m], []],
];

function fixture() {
  const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-md-tools-"));
  const lines = [];
  let parent = null;
  const add = (l) => {
    const uuid = `u${lines.length + 1}`;
    lines.push({ parentUuid: parent, isSidechain: false, cwd: "/work/app", sessionId: "md-1", version: "2.0.76", uuid, timestamp: `2026-01-05T10:00:${String(lines.length).padStart(2, "0")}.000Z`, ...l });
    parent = uuid;
  };
  add({ type: "user", message: { role: "user", content: "Use every tool once." } });
  CASES.forEach(([name, input, result], i) => {
    add({ type: "assistant", requestId: `req_${i}`, message: { id: `msg_${i}`, type: "message", role: "assistant", model: "claude-sonnet-4-5-20250929", content: [{ type: "tool_use", id: `toolu_${i}`, name, input }], stop_reason: "tool_use", usage: { input_tokens: 1, output_tokens: 1 } } });
    add({ type: "user", message: { role: "user", content: [{ tool_use_id: `toolu_${i}`, type: "tool_result", content: result }] } });
  });
  const file = path.join(dir, "md-1.jsonl");
  fs.writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  return file;
}

test("each tool call is drawn by its gist in Markdown; a tool it does not know keeps its JSON", () => {
  const file = fixture();
  const text = md(file);
  const calls = text.split(/^(?=\*\*Tool call\*\* )/m).slice(1);
  // The HTML draws the same output without the terminal's control sequences.
  const html = spawnSync(process.execPath, [bin, "export", file, "--format", "html", "--no-redact"], { encoding: "utf8" }).stdout;
  assert.match(html, /PASS src\/a\.test\.ts\nbuilding 100%\ndone/);
  assert.ok(!html.includes("\x1b"), "no escape character in the HTML");
  // The HTML draws a file written whole as the file: numbered lines, highlighted.
  assert.match(html, /<div class="diff written"><div class="diff-head">src\/new\.py <span class="add">written, 2 lines<\/span><\/div><div class="numbered"><pre class="gutter">1\n2<\/pre><pre class="code"><code class="hljs language-python">/);
  assert.equal(calls.length, CASES.length, "one heading line per call");
  CASES.forEach(([name, , , want, never], i) => {
    const call = calls[i];
    assert.ok(call.startsWith(`**Tool call** \`${name}\``), `${name}: the call in order`);
    for (const re of want) assert.match(call, re, `${name}: ${re}`);
    for (const re of never) assert.doesNotMatch(call, re, `${name}: not ${re}`);
    if (name !== "FrobnicateWidget" && name !== "mcp__github__get_issue") assert.doesNotMatch(call, /^`{3,}json\n/m, `${name}: no JSON of its input`);
  });
});

/** What a call's Markdown must hold, from its own input (null: nothing asked of this tool). */
function expected(b) {
  const i = b.input ?? {};
  switch (b.name) {
    case "Bash":
      return typeof i.command === "string" ? [`$ ${i.command.split("\n")[0]}`] : null;
    case "Read":
      return typeof i.file_path === "string" ? [`\`${i.file_path}\``] : null;
    case "Glob":
    case "Grep":
      return typeof i.pattern === "string" ? [`\`${i.pattern}\``] : null;
    case "TodoWrite":
      return Array.isArray(i.todos) ? i.todos.map((t) => `- [${t.status === "completed" ? "x" : " "}] ${t.content}`) : null;
    case "Task":
      return typeof i.prompt === "string" ? [i.prompt.trim().split("\n")[0].replace(/^#+\s*/, "")] : null;
    default:
      return b.name?.startsWith("mcp__") ? [`MCP server **${b.name.split("__")[1]}**`] : null;
  }
}

test("on every Claude Code peer file, each call's Markdown holds its command, path, pattern, checklist or prompt, and edits are diffs", () => {
  if (!fs.existsSync(peers)) return void console.log(`SKIP Markdown tool views on real files: ${peers} is absent (../shared sits beside the repository in CI)`);
  const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : e.name.endsWith(".jsonl") ? [path.join(d, e.name)] : []));
  let checked = 0;
  for (const file of walk(path.join(peers, "claude-code"))) {
    const blocks = [...toolBlocks(conversation(parsed(file))).values()];
    if (!blocks.length) continue;
    const text = md(file);
    const words = plain(text);
    assert.ok(!text.includes("\x1b"), `${path.basename(file)}: no terminal escape drawn`);
    for (const b of blocks) {
      for (const want of expected(b) ?? []) {
        assert.ok(words.includes(want) || text.includes(want), `${path.basename(file)}: ${b.name} ${b.id} shows ${JSON.stringify(want.slice(0, 80))}`);
        checked++;
      }
    }
    const edits = blocks.filter((b) => ["Edit", "MultiEdit"].includes(b.name)).length;
    assert.ok((text.match(/^`{3,}diff$/gm) ?? []).length >= edits, `${path.basename(file)}: ${edits} edits, each a diff`);
    // A Write: its path and "written" (or "not written" when its result is
    // an error, read from the raw lines), then its first line as written.
    const failed = new Set(parsed(file).flatMap((l) => (Array.isArray(l.message?.content) ? l.message.content : []).filter((c) => c?.type === "tool_result" && c.is_error === true).map((c) => c.tool_use_id)));
    for (const b of blocks.filter((b) => b.name === "Write" && typeof b.input?.content === "string" && typeof b.input?.file_path === "string")) {
      const verb = failed.has(b.id) ? "not written" : "written";
      assert.ok(text.includes(`\`${b.input.file_path}\` ${verb}, `), `${path.basename(file)}: Write ${b.id} says ${verb}`);
      const first = b.input.content.split("\n")[0];
      assert.ok(text.includes(`\n${first}\n`), `${path.basename(file)}: Write ${b.id} shows its first line`);
      checked++;
    }
    // A known tool's input is never its JSON.
    for (const call of text.split(/^(?=\*\*Tool call\*\* )/m).slice(1)) {
      const name = /^\*\*Tool call\*\* `([^`]*)`/.exec(call)[1];
      const firstFence = /^`{3,}(\w*)$/m.exec(call.split(/^#{2,6} /m)[0])?.[1];
      if (["Bash", "Glob", "Grep", "TodoWrite", "Task", "Edit", "MultiEdit", "Write"].includes(name)) assert.notEqual(firstFence, "json", `${path.basename(file)}: ${name} drawn as JSON`);
    }
  }
  assert.ok(checked > 100, `checked ${checked} gists`);
  console.log(`Markdown tool views: ${checked} gists found in the peers' exports`);
});
