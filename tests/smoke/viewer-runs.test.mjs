// The viewer on a subagent run inside a Claude Code file (an inline
// sidechain): clicking the run in the sidebar shows the run, not its
// parent. It showed the parent when the file had changed in the last ten
// seconds: serve then calls its writer live, and the worker read the
// followed file again whole without the run (COMPARE25.md defect 1).
// Both states, on the chain fixture and on the peers' real files; what
// the run must show (its Task call's prompt first) comes from the raw lines.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parsed, toolBlocks } from "./support/claude-lines.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ciRequire = createRequire(path.join(root, ".ci/package.json"));
const peers = path.join(process.env.GARUDA_SHARED ?? path.join(root, "../shared"), "peers");
let browser;
const servers = [];

before(async () => {
  const { chromium } = ciRequire("playwright-core");
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
});
after(async () => {
  await browser?.close();
  for (const s of servers) s.kill();
});

/** serve on `dir`; the address it printed, with its token. */
async function serve(dir) {
  const child = spawn(process.execPath, [path.join(root, "pkg/bin/garuda-session.cjs"), "serve", dir], { stdio: ["ignore", "pipe", "inherit"] });
  servers.push(child);
  const line = await new Promise((resolve) => child.stdout.once("data", (d) => resolve(String(d))));
  return /http:\/\/127\.0\.0\.1:\d+\/\S*#token=[\w-]+/.exec(line)[0];
}

function files() {
  const out = [path.join(root, "tests/formats/claude-code-chain.jsonl")];
  if (!fs.existsSync(peers)) console.log(`SKIP the viewer on real inline runs: ${peers} is absent (../shared sits beside the repository in CI); the fixture only`);
  else {
    const dir = path.join(peers, "claude-code/claude-code-viewer");
    if (fs.existsSync(dir)) out.push(...fs.readdirSync(dir).filter((f) => f.endsWith(".jsonl")).map((f) => path.join(dir, f)).filter((f) => fs.readFileSync(f, "utf8").includes('"isSidechain":true')));
  }
  return out;
}

/**
 * A copy of `file` (its time set to `when`) served and opened in a new
 * page: the page, its errors, and a count of the reads of the file itself
 * (the reader's fetch, from the worker's worker): a settled file is read
 * once, and its runs come from that read (the worker's keepRuns and
 * runJournal); a live one is read again, to follow it.
 */
async function openCopy(file, when) {
  const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-viewer-runs-"));
  const id = path.basename(file, ".jsonl");
  const copy = path.join(dir, `${id}.jsonl`);
  fs.copyFileSync(file, copy);
  fs.utimesSync(copy, when, when);
  const p = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors = [];
  p.on("pageerror", (e) => errors.push(String(e)));
  const reads = { count: 0 };
  p.on("request", (r) => new URL(r.url()).pathname.endsWith(`/${id}.jsonl`) && reads.count++);
  await p.goto(await serve(dir));
  await p.waitForSelector(`body[data-loaded='${id}']`);
  return { id, copy, p, errors, reads };
}

/** The first line of a prompt, as the reading mode shows its text (Markdown drawn, so words only). */
const firstWords = (prompt) => prompt.trim().split("\n")[0].replace(/[#*_`]/g, "").trim().slice(0, 40);

for (const state of ["settled", "live"]) {
  test(`a run inside the file, opened from the sidebar, shows the run (its file ${state})`, async () => {
    let opened = 0;
    for (const file of files()) {
      // serve calls a Claude Code file's writer live when it changed in the last 10 s.
      const { id, copy, p, errors, reads } = await openCopy(file, state === "live" ? new Date() : new Date(Date.now() - 3600_000));
      const lines = parsed(copy);
      const calls = toolBlocks(lines.filter((l) => l.isSidechain !== true));
      const parentPrompt = lines.find((l) => l.type === "user" && l.isSidechain !== true && typeof l.message?.content === "string")?.message.content;
      const runs = await p.$$eval("#sessions a.child", (a) => a.map((x) => x.textContent.replace(/^↳ /, "")));
      assert.ok(runs.length > 0, `${id}: the sidebar lists the runs`);
      for (const run of runs) {
        const prompt = calls.get(run.replace(/^sidechain-/, ""))?.input?.prompt;
        assert.equal(typeof prompt, "string", `${id}: ${run} is a Task call's run`);
        if (state === "live") fs.utimesSync(copy, new Date(), new Date());
        await p.click(`#sessions a.child:text-is('↳ ${run}')`);
        await p.waitForSelector(`body[data-loaded='${run}']`);
        await p.waitForSelector("#reading .entry.user");
        const first = await p.textContent("#reading .entry.user");
        assert.ok(first.includes(firstWords(prompt)), `${id} ${run} (${state}): the run's first prompt is the Task's, not ${JSON.stringify(first.slice(0, 120))}`);
        if (parentPrompt && !prompt.includes(parentPrompt.trim())) assert.ok(!(await p.textContent("#reading")).includes(parentPrompt.trim().slice(0, 60)), `${id} ${run} (${state}): the parent's first prompt is not shown`);
        assert.match(await p.textContent("#status"), new RegExp(`^${run}: `), `${id} ${run}: the status names the run`);
        if (state === "settled") assert.equal(reads.count, 1, `${id} ${run}: the file is not read again for its run`);
        opened++;
      }
      assert.deepEqual(errors, []);
      await p.close();
    }
    console.log(`viewer runs (${state}): ${opened} runs opened from the sidebar`);
  });
}

// A file opened by its address (not from serve's index, which names its
// runs itself) learns them as it loads: a Claude Code file by walking its
// entries' tools, a Garuda journal (one imported from such a file, say)
// from the patch settling sent, which names every tool's child. Both give
// the runs the raw lines' Task calls started, in the same order.
test("a file opened by its address lists its inline runs, patched or walked", async () => {
  const fixture = path.join(root, "tests/formats/claude-code-chain.jsonl");
  const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-viewer-runs-"));
  fs.copyFileSync(fixture, path.join(dir, "claude.jsonl"));
  const cli = path.join(root, "pkg/bin/garuda-session.cjs");
  const imported = spawnSync(process.execPath, [cli, "import", fixture, "-o", path.join(dir, "garuda.jsonl")], { encoding: "utf8" });
  assert.equal(imported.status, 0, imported.stderr);
  const calls = toolBlocks(parsed(fixture).filter((l) => l.isSidechain !== true));
  const address = new URL(await serve(dir));
  const token = new URLSearchParams(address.hash.slice(1)).get("token");
  const listed = [];
  for (const [name, patched] of [["claude.jsonl", false], ["garuda.jsonl", true]]) {
    const p = await browser.newPage();
    // The token kept for this tab, and nothing opened (the index is not read).
    await p.goto(`${address.origin}/viewer/#token=${token}`);
    await p.goto(`${address.origin}/viewer/?file=/files/${name}`);
    await p.waitForSelector("body[data-loaded]");
    const runs = await p.$$eval("#sessions a.child", (a) => a.map((x) => x.textContent.replace(/^↳ /, "")));
    assert.ok(runs.length > 0, `${name}: runs listed`);
    for (const run of runs) assert.equal(typeof calls.get(run.replace(/^sidechain-/, ""))?.input?.prompt, "string", `${name}: ${run} is a Task call's run`);
    assert.equal(await p.evaluate(() => window.viewer.sidechains !== null), patched, `${name}: named by the patch: ${patched}`);
    listed.push(runs);
    await p.close();
  }
  assert.deepEqual(listed[1], listed[0], "the imported journal lists the runs its source lists");
});

// "show it here" under a Task call draws its inline run from the file's own
// read: the worker kept the runs (keepRuns) and reads no byte again, as it
// read the whole file once per run before. What the run must show comes
// from the raw lines: its Task call's prompt.
test("an inline run drawn under its call comes from the file's one read", async () => {
  let shown = 0;
  for (const file of files()) {
    const { id, copy, p, errors, reads } = await openCopy(file, new Date(Date.now() - 3600_000));
    const calls = toolBlocks(parsed(copy).filter((l) => l.isSidechain !== true));
    await p.click("[data-mode='reading']");
    const link = p.locator("#reading a.child-show").first();
    if ((await link.count()) === 0) {
      await p.close();
      continue;
    }
    const run = (await link.getAttribute("data-child")).replace(/^sidechain-/, "");
    const prompt = calls.get(run)?.input?.prompt;
    assert.equal(typeof prompt, "string", `${id}: ${run} is a Task call's run`);
    await link.click();
    await p.waitForSelector("#reading .nested .entry");
    assert.ok((await p.textContent("#reading .nested")).includes(firstWords(prompt)), `${id} ${run}: the nested run starts with its Task's prompt`);
    assert.equal(reads.count, 1, `${id} ${run}: the file is read once, not again for its run`);
    assert.deepEqual(errors, []);
    shown++;
    await p.close();
  }
  assert.ok(shown > 0, "some inline run was drawn under its call");
  console.log(`viewer runs drawn under their calls: ${shown}`);
});
