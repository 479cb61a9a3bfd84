// Runs inside a Claude Code main file (`isSidechain` lines, as Claude Code
// 1.x wrote a Task's subagent) are child runs wherever a separate subagent
// file is one: `list --json` names them, serve's index.json lists them as
// children read from the same file (`run`), and a folder export writes each
// as a child page that the Task call links. On tests/formats/
// claude-code-chain.jsonl (a Task whose run is inline) and on the peers'
// real files, against an independent walk of the raw lines: a run is a
// sidechain line whose parent is no sidechain line, and it is a Task call's
// when its first prompt is the call's `prompt`.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "pkg/bin/garuda-session.cjs");
const peers = path.join(process.env.GARUDA_SHARED ?? path.join(root, "../shared"), "peers");
const cli = (...args) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", maxBuffer: 1 << 26 });
const servers = [];
after(() => servers.forEach((s) => s.kill()));

/** The Task calls whose run is inside the file, by an independent walk of the raw lines. */
function oracleRuns(text) {
  const lines = text.split("\n").filter(Boolean).flatMap((l) => {
    try {
      return [JSON.parse(l)];
    } catch {
      return [];
    }
  });
  const withUuid = lines.filter((l) => typeof l.uuid === "string");
  if (withUuid.length && withUuid.every((l) => l.isSidechain === true)) return []; // a subagent's own file
  const side = new Set(lines.filter((l) => l.isSidechain === true).map((l) => l.uuid));
  const tasks = new Map();
  for (const l of lines) {
    if (l.type !== "assistant" || l.isSidechain === true || !Array.isArray(l.message?.content)) continue;
    for (const b of l.message.content) if (b?.type === "tool_use" && ["Task", "Agent"].includes(b.name) && typeof b.input?.prompt === "string") tasks.set(b.input.prompt.trim(), b.id);
  }
  const ids = new Set();
  for (const l of lines) {
    if (l.isSidechain !== true || side.has(l.parentUuid)) continue;
    const prompt = typeof l.message?.content === "string" ? l.message.content.trim() : null;
    if (prompt !== null && tasks.has(prompt)) ids.add(tasks.get(prompt));
  }
  return [...ids].sort();
}

function files() {
  const out = [path.join(root, "tests/formats/claude-code-chain.jsonl")];
  if (!fs.existsSync(peers)) console.log(`SKIP inline runs of real files: ${peers} is absent (../shared sits beside the repository in CI); the fixture only`);
  else {
    const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : e.name.endsWith(".jsonl") ? [path.join(d, e.name)] : []));
    out.push(...walk(path.join(peers, "claude-code")).filter((f) => fs.readFileSync(f, "utf8").includes('"isSidechain":true')));
  }
  return out;
}

test("list, serve's index and a folder export name each inline run as the raw lines do, and export writes it as a linked child page", async () => {
  let runs = 0;
  for (const file of files()) {
    const want = oracleRuns(fs.readFileSync(file, "utf8"));
    const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-inline-"));
    const id = path.basename(file, ".jsonl");
    fs.copyFileSync(file, path.join(dir, `${id}.jsonl`));
    const [row] = JSON.parse(cli("list", dir, "--json").stdout);
    assert.deepEqual([...(row.runs ?? [])].sort(), want, `${id}: list --json names the runs`);
    // serve's index: each run a child, read from the session's own file.
    const child = spawn(process.execPath, [bin, "serve", dir], { stdio: ["ignore", "pipe", "inherit"] });
    servers.push(child);
    const printed = new URL(/http:\/\/127\.0\.0\.1:\d+\/\S*#token=[\w-]+/.exec(await new Promise((r) => child.stdout.once("data", (d) => r(String(d)))))[0]);
    const token = new URLSearchParams(printed.hash.slice(1)).get("token");
    const index = await (await fetch(`${printed.origin}/files/index.json`, { headers: { "x-garuda-token": token } })).json();
    const kids = index.sessions[0].children.filter((c) => c.run);
    assert.deepEqual(kids.map((c) => c.run).sort(), want, `${id}: serve lists the runs`);
    for (const c of kids) assert.deepEqual([c.id, c.file], [`sidechain-${c.run}`, `${encodeURIComponent(id)}.jsonl`]);
    child.kill();
    // A folder export: a page per run beside the session's, linked from its Task call and from index.html.
    const out = path.join(dir, "out");
    const r = cli("export", dir, "--format", "html", "-o", out);
    assert.equal(r.status, 0, r.stderr);
    const page = fs.readFileSync(path.join(out, `${id}.html`), "utf8");
    const index_ = fs.readFileSync(path.join(out, "index.html"), "utf8");
    for (const run of want) {
      const rel = `${id}/sidechain-${run}.html`;
      const runPage = fs.readFileSync(path.join(out, rel), "utf8");
      assert.match(runPage, /<article class="entry user/, `${id}: the run's page holds its conversation`);
      assert.ok(page.includes(`class="child-link" href="${rel}" data-child="sidechain-${run}"`), `${id}: the Task call ${run} links its run's page`);
      assert.ok(index_.includes(`href="${encodeURI(rel)}"`), `${id}: index.html lists the run`);
      runs++;
    }
  }
  assert.ok(runs >= 1, "at least the fixture's run");
  console.log(`inline runs: ${runs} runs named, served and exported as child pages`);
});
