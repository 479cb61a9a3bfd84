// `export` carries the subagents' work: each Task call's run (an inline
// sidechain of a Claude Code 1.x file, or a subagents/agent-<id>.jsonl file
// beside the session) is written under its call, folded in HTML and as a
// sub-section in Markdown, with the same per-tool renderers.
//
// The oracle is an independent walk of the raw lines: every tool_use block
// of the conversation as Claude Code loads it (the parentUuid chain from the
// last line, and each Task call's sidechain run), plus those of each subagent
// file a tool result names (`toolUseResult.agentId`). The export must draw as
// many tool calls, over every real Claude Code file in ../shared/peers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parsed, toolBlocks, toolUses, conversation } from "./support/claude-lines.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "pkg/bin/garuda-session.cjs");
const peers = path.join(process.env.GARUDA_SHARED ?? path.join(root, "../shared"), "peers");
const cli = (...args) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", maxBuffer: 1 << 28 });

/** The oracle: tool calls of the conversation and of each subagent file its results name (in <stem>/subagents/ or beside it). */
function oracle(file) {
  const lines = parsed(file);
  let calls = toolUses(conversation(lines)).size;
  const agents = new Set(lines.map((l) => l.toolUseResult?.agentId).filter((a) => typeof a === "string"));
  const dir = path.dirname(file);
  const stem = path.basename(file, ".jsonl");
  for (const a of agents) {
    const child = [path.join(dir, stem, "subagents", `agent-${a}.jsonl`), path.join(dir, `agent-${a}.jsonl`)].find((f) => fs.existsSync(f));
    if (child) calls += toolUses(conversation(parsed(child))).size;
  }
  return calls;
}

/** Tool calls drawn: each is a `<details class="tool…">` in HTML, a `**Tool call**` line in Markdown. */
const drawnHtml = (html) => (html.match(/<details class="tool[ "]/g) ?? []).length;
const drawnMd = (md) => (md.match(/^\*\*Tool call\*\* /gm) ?? []).length;

function peerFiles() {
  if (!fs.existsSync(peers)) {
    console.log(`SKIP export of real subagent runs: ${peers} is absent (../shared sits beside the repository in CI); the fixtures only`);
    return [];
  }
  const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : e.name.endsWith(".jsonl") ? [path.join(d, e.name)] : []));
  return walk(path.join(peers, "claude-code"));
}

/** A session whose Task call's subagent is a file of its own (subagents/agent-a1.jsonl) with two tool calls. */
function subagentFixture() {
  const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-export-runs-"));
  fs.mkdirSync(path.join(dir, "cc-1/subagents"), { recursive: true });
  const lines = fs.readFileSync(path.join(root, "tests/formats/claude-code.jsonl"), "utf8").split("\n");
  lines[5] = lines[5].replace('"toolUseResult":{"type":"text"}', '"toolUseResult":{"agentId":"a1","totalTokens":9}');
  assert.ok(lines[5].includes('"agentId":"a1"'), "the fixture's Task result names its subagent");
  fs.writeFileSync(path.join(dir, "cc-1.jsonl"), lines.join("\n"));
  const side = { isSidechain: true, sessionId: "cc-1", agentId: "a1" };
  const sub = [
    { ...side, parentUuid: null, type: "user", uuid: "s1", timestamp: "2026-01-05T10:00:04.000Z", message: { role: "user", content: "Search the repo" } },
    { ...side, parentUuid: "s1", type: "assistant", uuid: "s2", timestamp: "2026-01-05T10:00:05.000Z", message: { id: "m1", role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "tool_use", id: "toolu_sub1", name: "Bash", input: { command: "ls -la src", description: "List the sources" } }, { type: "tool_use", id: "toolu_sub2", name: "Grep", input: { pattern: "fn main", path: "src" } }], usage: { input_tokens: 5, output_tokens: 7 } } },
    { ...side, parentUuid: "s2", type: "user", uuid: "s3", timestamp: "2026-01-05T10:00:06.000Z", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_sub1", content: "total 8\nmain.rs" }, { type: "tool_result", tool_use_id: "toolu_sub2", content: "src/main.rs" }] } },
  ];
  fs.writeFileSync(path.join(dir, "cc-1/subagents/agent-a1.jsonl"), sub.map((l) => JSON.stringify(l)).join("\n") + "\n");
  return path.join(dir, "cc-1.jsonl");
}

test("export draws every tool call of the session and of its subagents' runs, as the raw lines count them", () => {
  const fixture = subagentFixture();
  const files = [path.join(root, "tests/formats/claude-code-chain.jsonl"), fixture, ...peerFiles()];
  const out = fs.mkdtempSync(path.join(tmpdir(), "garuda-export-runs-out-"));
  let nested = 0;
  for (const file of files) {
    const want = oracle(file);
    const html = cli("export", file, "--format", "html", "-o", path.join(out, "t.html"));
    assert.equal(html.status, 0, `${file}: ${html.stderr}`);
    const page = fs.readFileSync(path.join(out, "t.html"), "utf8");
    assert.equal(drawnHtml(page), want, `${file}: tool calls in the HTML export`);
    const md = cli("export", file, "--format", "md");
    assert.equal(md.status, 0, `${file}: ${md.stderr}`);
    assert.equal(drawnMd(md.stdout), want, `${file}: tool calls in the Markdown export`);
    // Each run folded under its call (HTML) and a sub-section (Markdown), the same number of each.
    const runs = (page.match(/<details class="subrun">/g) ?? []).length;
    assert.equal((md.stdout.match(/^#{3,6} The subagent's run `/gm) ?? []).length, runs, `${file}: the runs in both formats`);
    assert.ok(!/<details class="subrun" open/.test(page), `${file}: runs are folded`);
    // Entries of a nested run have ids of their own: no id is on the page twice.
    const ids = [...page.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]);
    assert.equal(new Set(ids).size, ids.length, `${file}: every id once`);
    nested += runs;
  }
  // The fixture with a subagent file: its two calls are under the Task, drawn by their tools' views.
  const page = cli("export", fixture, "--format", "html").stdout;
  const run = page.slice(page.indexOf('<details class="subrun">'));
  assert.match(run, /<details class="tool view-shell"[^>]*><summary><span class="tool-name">Bash<\/span> <span class="tool-gist">List the sources/);
  assert.match(run, /<details class="tool view-search"/);
  // A Task's run reads in its order: the prompt, what the subagent did, its report.
  const chain = path.join(root, "tests/formats/claude-code-chain.jsonl");
  const html = cli("export", chain, "--format", "html").stdout;
  const at = (text, s) => text.indexOf(s);
  assert.ok(at(html, '<div class="io-label">prompt</div>') < at(html, '<details class="subrun">') && at(html, '<details class="subrun">') < at(html, '<div class="io-label">report</div>'), "HTML: prompt, run, report");
  const mdText = cli("export", chain, "--format", "md").stdout;
  assert.ok(at(mdText, "**Prompt**") < at(mdText, "The subagent's run") && at(mdText, "The subagent's run") < at(mdText, "**Report**") && at(mdText, "**Prompt**") >= 0, "Markdown: prompt, run, report");
  assert.ok(nested >= 2, `the fixtures' runs at least (${nested})`);
  console.log(`export runs: ${files.length} files, ${nested} subagent runs nested`);
});

test("a folder export nests the runs in the session's page and keeps their own pages", () => {
  const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-export-runs-dir-"));
  fs.copyFileSync(path.join(root, "tests/formats/claude-code-chain.jsonl"), path.join(dir, "chain.jsonl"));
  const out = path.join(dir, "out");
  for (const format of ["html", "md"]) {
    const r = cli("export", dir, "--format", format, "-o", out);
    assert.equal(r.status, 0, r.stderr);
    const page = fs.readFileSync(path.join(out, `chain.${format}`), "utf8");
    const want = oracle(path.join(dir, "chain.jsonl"));
    assert.equal(format === "html" ? drawnHtml(page) : drawnMd(page), want, `${format}: every call, the run's included`);
    assert.ok(fs.readdirSync(path.join(out, "chain")).some((f) => f.startsWith("sidechain-") && f.endsWith(`.${format}`)), `${format}: the run's own page is still written`);
  }
});

test("a Garuda session's child run (<id>/<child>.jsonl) is nested under the call that started it, as written in the child's file", () => {
  const sample = path.join(root, "web-demo/samples/viewer-sample.jsonl");
  const childFile = path.join(root, "web-demo/samples/viewer-sample/explore-toolu_explore1.jsonl");
  // The oracle: the child's own records (spec §2), its first prompt and its answers' text.
  const records = fs.readFileSync(childFile, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
  const prompt = records.find((r) => r.type === "user").message.content;
  const answers = records.filter((r) => r.type === "assistant").flatMap((r) => r.response.content.filter((b) => b.type === "text").map((b) => b.text));
  for (const format of ["html", "md"]) {
    const text = cli("export", sample, "--format", format, "--no-redact").stdout;
    const start = format === "html" ? text.indexOf('<details class="subrun">') : text.search(/^#{3,6} The subagent's run `explore-toolu_explore1`/m);
    assert.ok(start > 0, `${format}: the child run is nested`);
    // Up to the run's end: its last entry closing the fold (HTML), its closing line (Markdown).
    const end = format === "html" ? text.indexOf("</article></div></details>", start) : text.indexOf("*End of the subagent's run", start);
    assert.ok(end > start, `${format}: the run ends`);
    const run = text.slice(start, end);
    assert.ok(run.includes(prompt), `${format}: the run starts with its prompt`);
    // Drawn as Markdown (markdown-it keeps a quote as it is), so the text itself.
    for (const a of answers) assert.ok(run.includes(a), `${format}: the run holds ${JSON.stringify(a.slice(0, 40))}`);
  }
});

test("runJournal gives each inline run as a read of the whole file with `run` gives it, without reading the file again", async () => {
  const { createRequire } = await import("node:module");
  const core = createRequire(import.meta.url)(path.join(root, "pkg/node/garuda_session.js"));
  const read = (text, options) => {
    const j = new core.Journal({ history: true, ...options });
    j.feed(text);
    j.finish();
    return j;
  };
  const files = [path.join(root, "tests/formats/claude-code-chain.jsonl"), ...peerFiles()];
  let runs = 0;
  for (const file of files) {
    const text = fs.readFileSync(file, "utf8");
    const main = read(text, { keepRuns: true });
    // The runs the core pairs with their calls: the oracle's walk finds each Task's run by its first prompt.
    const calls = toolBlocks(conversation(parsed(file)));
    const ids = [...calls].filter(([, b]) => b.name === "Task" || b.name === "Agent").map(([id]) => id);
    for (const id of ids) {
      const alone = read(text, { run: id });
      const kept = main.runJournal(id);
      // No run (a call whose subagent is a file of its own): `run` reads the session's facts alone.
      if (alone.state().prompts === 0) {
        assert.equal(kept, undefined, `${file}: ${id} has no run`);
      } else {
        assert.deepEqual(kept.transcript(), alone.transcript(), `${file}: ${id}`);
        assert.deepEqual(kept.figures(), alone.figures(), `${file}: ${id}`);
        runs++;
      }
      kept?.free();
      alone.free();
    }
    assert.equal(main.runJournal("toolu_none"), undefined);
    assert.throws(() => main.runJournal(5), (e) => e.code === "ERR_INVALID_ARG");
    main.free();
  }
  assert.ok(runs >= 1, `${runs} runs`);
  console.log(`runJournal: ${runs} inline runs over ${files.length} files, each as \`run\` reads it`);
});

// A new user's review (stop 62): the header said the session file's own
// cost while the page draws its subagents' runs, whose requests are in
// their own files: $0.8125 where list and usage --by session say $1.32.
test("an export's header cost counts the subagents' files, as list does", { skip: fs.existsSync(peers) ? false : `needs ${peers}` }, () => {
  const dir = path.join(peers, "claude-code/codemie-code/incremental-subagents");
  const file = path.join(dir, "turn-2.jsonl");
  const listed = cli("list", dir, "--json");
  assert.equal(listed.status, 0, listed.stderr);
  const row = JSON.parse(listed.stdout).find((r) => r.id === "turn-2");
  assert.ok(row.runsCounted > 0, "the session has a subagent file");
  const md = cli("export", file, "--format", "md");
  assert.equal(md.status, 0, md.stderr);
  const header = md.stdout.split("\n").find((l) => l.startsWith("- cost: "));
  assert.equal(header, `- cost: ${row.cost} with ${row.runsCounted} subagent run${row.runsCounted === 1 ? "" : "s"} (${"$" + row.ownCostUsd.toFixed(4)} its own)`);
});
