// The transcript viewer in a real browser: playwright-core driving Debian's
// Chromium, headless, against `garuda-session serve`. Screenshots go to
// tests/artifacts/.
import { test, before, after, afterEach } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, mkdirSync, copyFileSync, writeFileSync, symlinkSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ciRequire = createRequire(path.join(root, ".ci/package.json"));
const artifacts = path.join(root, "tests/artifacts");
const samples = path.join(root, "web-demo/samples");

let browser;
const servers = [];
const pages = [];

async function serveDir(dir) {
  const child = spawn(process.execPath, [path.join(root, "pkg/bin/garuda-session.cjs"), "serve", dir], { stdio: ["ignore", "pipe", "inherit"] });
  servers.push(child);
  const line = await new Promise((resolve) => child.stdout.once("data", (d) => resolve(String(d))));
  const printed = new URL(/http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]+/.exec(line)[0]);
  tokens.set(printed.origin, printed.searchParams.get("token"));
  return printed.origin;
}

/** `serve` answers only the holder of the token it printed: a page's first load carries it. */
const tokens = new Map();
function authed(url) {
  const u = new URL(url);
  u.searchParams.set("token", tokens.get(u.origin));
  return u.href;
}

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  const { chromium } = ciRequire("playwright-core");
  browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});

// Each test's pages are closed after it: a page left open keeps its worker
// and the journal it read, which the 100 MB test should not have to share
// the machine with.
afterEach(async () => {
  for (const p of pages.splice(0)) await p.close();
});

after(async () => {
  await browser?.close();
  for (const s of servers) s.kill();
});

/** A page that records every request, dialog and error. */
async function page(origin) {
  const p = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  pages.push(p);
  p.requests = [];
  p.dialogs = [];
  p.errors = [];
  p.on("request", (r) => p.requests.push(r.url()));
  p.on("dialog", (d) => (p.dialogs.push(d.message()), d.dismiss()));
  p.on("pageerror", (e) => p.errors.push(String(e)));
  p.onlyOwnFiles = () => assert.ok(p.requests.every((u) => u.startsWith(origin) || u.startsWith("blob:") || u.startsWith("data:")), `requests: ${p.requests}`);
  return p;
}

test("a sample session: messages, cost, a dropped thinking block with its reason, search, a subagent link", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-viewer-"));
  copyFileSync(path.join(samples, "viewer-sample.jsonl"), path.join(dir, "viewer-sample.jsonl"));
  mkdirSync(path.join(dir, "viewer-sample"));
  copyFileSync(path.join(samples, "viewer-sample/explore-toolu_explore1.jsonl"), path.join(dir, "viewer-sample/explore-toolu_explore1.jsonl"));
  const origin = await serveDir(dir);
  const p = await page(origin);
  await p.goto(authed(origin + "/"));
  await p.waitForSelector("body[data-loaded='viewer-sample']");
  assert.equal(await p.textContent("#cost"), "$0.1503");
  assert.match(await p.textContent("#summary"), /5 messages · 4 prompts/);
  assert.match(await p.textContent("#summary"), /thinking dropped \(model-switch 1\)/);
  assert.match(await p.textContent("#warnings"), /line 9 \(bad-json\)/);
  // The reading mode opens first; the compact list is the second mode.
  assert.ok((await p.$$("#reading .vitem")).length > 0);
  await p.click("#mode-list");
  await p.waitForSelector(".row");
  const dropped = await p.$$eval(".badge.thinking.dropped", (b) => b.map((x) => x.textContent));
  assert.ok(dropped.includes("thinking dropped: model-switch"), dropped.join());
  assert.ok((await p.$$(".row.compacted")).length > 0, "turns compacted away are struck through");
  // The first prompt with its note and its attachment, told apart.
  const badgesNow = await p.$$eval(".badge", (b) => b.map((x) => x.textContent));
  assert.ok(badgesNow.includes("1 note") && badgesNow.includes("1 attachment"), badgesNow.join());
  await p.click(".row:has(.badge:text-is('1 note'))");
  await p.waitForSelector("#detail h3");
  await p.waitForSelector("#detail .entry");
  const detail = await p.textContent("#detail");
  assert.match(detail, /Find the flaky test in the parser suite\.\s*Note\s*The user is on the release branch/);
  assert.doesNotMatch(detail, /garuda_note/);
  assert.match(detail, /Attachment\s*6 lines\s*@src\/parser\.test\.ts/);
  await p.click("details:has(table.sub) summary");
  await p.waitForSelector("table.sub tr"); // filled on the toggle event, a task after the click
  assert.match(await p.textContent("table.sub"), /explore-toolu_explore1.*tokens.*\$\d/s, "subagent costs are listed");
  const badges = await p.$$eval(".badge", (b) => b.map((x) => x.textContent));
  assert.ok(badges.includes("explore → ok") && badges.includes("result of explore"), "calls are paired with results");
  await p.fill("#search", "time zone");
  await p.waitForFunction(() => /\d+ hits/.test(document.getElementById("hits").textContent));
  assert.match(await p.textContent("#hits"), /^[1-9]\d* hits$/);
  assert.ok((await p.$$("mark")).length > 0, "hits are highlighted");
  await p.screenshot({ path: path.join(artifacts, "viewer-sample.png") });
  await p.fill("#search", "");
  await p.waitForFunction(() => document.getElementById("hits").textContent === "");
  await p.click(".badge.sub");
  await p.waitForSelector("body[data-loaded='explore-toolu_explore1']");
  assert.match(await p.textContent("#summary"), /model claude-haiku-4-5/);
  await p.screenshot({ path: path.join(artifacts, "viewer-subagent.png") });
  assert.deepEqual(p.errors, []);
  p.onlyOwnFiles();
});

test("a hostile journal renders as text: nothing executes, nothing is fetched", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-hostile-"));
  const evil = [
    "<script>window.__pwned = 1; alert('script')</script>",
    "<img src=x onerror=\"window.__pwned = 2; alert('img')\">",
    "<a href=\"javascript:alert('link')\">click me</a>",
    "<style>body { background: url(http://10.0.0.1/x) }</style><link rel=stylesheet href=http://evil.example/x.css>",
    "</pre><iframe src=\"http://evil.example\"></iframe>",
  ].join(" ");
  const lines = [
    { type: "start", sessionId: "hostile", model: "<b>model</b>" },
    { type: "title", title: evil },
    { type: "user", message: { role: "user", content: evil } },
    { type: "assistant", step: 1, response: { content: [{ type: "text", text: evil }, { type: "tool_use", id: "<x>", name: "<img src=x onerror=alert(3)>", input: { path: evil } }], usage: {} }, costUsd: 0 },
    { type: "tool_results", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "<x>", content: evil }] }, calls: [] },
    // Known types with fields of the wrong shape: shown, never fatal.
    { type: "tool_results", message: { role: "user", content: [null, 5, evil, { type: "tool_result", tool_use_id: 7, content: { evil } }] }, calls: 7 },
    { type: "assistant", step: 2, response: { content: [null, { type: "tool_use", id: {}, name: [evil], input: evil }], usage: "lots" }, costUsd: "free" },
    { type: "tool_results", message: { role: "user", content: [] }, calls: [null, { report: { costUsd: evil, usage: 5, childSessionId: evil } }] },
    { type: "compaction", afterTokens: evil, beforeTokens: {} },
    { type: "user", message: "not an object" },
  ];
  writeFileSync(path.join(dir, "hostile.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  const origin = await serveDir(dir);
  const p = await page(origin);
  await p.goto(authed(origin + "/"));
  await p.waitForSelector("body[data-loaded='hostile']");
  const linesShown = await p.evaluate(() => new Set(window.viewer.entries.map((e) => e.line)).size);
  assert.equal(linesShown, lines.length, "every line is an entry (a record, or a warning saying why it was not read)");
  await p.click("#mode-list");
  await p.waitForSelector(".row");
  const indices = await p.$$eval(".row", (rows) => rows.map((r) => r.dataset.index));
  for (const i of indices) {
    await p.click(`.row[data-index="${i}"]`);
    await p.waitForFunction((i) => document.querySelector("#detail h3") && window.viewer.selected === Number(i), i);
  }
  await p.fill("#search", "script");
  await p.waitForFunction(() => /hits/.test(document.getElementById("hits").textContent));
  await p.waitForTimeout(300);
  assert.equal(await p.evaluate(() => window.__pwned), undefined);
  assert.deepEqual(p.dialogs, []);
  assert.equal(await p.$$eval("#list img, #detail img, #list iframe, #detail iframe, #list a[href], #list script, #detail script", (x) => x.length), 0);
  assert.deepEqual(await p.$$eval("#detail a[href]", (a) => a.map((x) => x.getAttribute("href")).filter((h) => !/^(https?:|mailto:|#)/.test(h))), []);
  assert.match(await p.textContent("#detail"), /<script>|<img|<a href/);
  assert.deepEqual(p.errors, []);
  assert.doesNotMatch(await p.textContent("#status"), /^Error/);
  // File names are hostile too, through the file picker.
  const p2 = await page(origin);
  await p2.goto(authed(origin + "/viewer/"));
  await p2.setInputFiles("#pick-files", { name: "<img src=x onerror=alert(4)>.jsonl", mimeType: "text/plain", buffer: Buffer.from(lines.map((l) => JSON.stringify(l)).join("\n")) });
  await p2.waitForSelector("body[data-loaded]");
  assert.deepEqual(p2.dialogs, []);
  assert.equal(await p2.$$eval("nav img", (x) => x.length), 0);
  await p.screenshot({ path: path.join(artifacts, "viewer-hostile.png") });
  p.onlyOwnFiles();
  p2.onlyOwnFiles();
});

test("dropping files on the page opens them", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-drop-"));
  const origin = await serveDir(dir);
  const p = await page(origin);
  await p.goto(authed(origin + "/viewer/"));
  const text = (await import("node:fs")).readFileSync(path.join(samples, "viewer-sample.jsonl"), "utf8");
  await p.evaluate((text) => {
    const data = new DataTransfer();
    data.items.add(new File([text], "viewer-sample.jsonl", { type: "text/plain" }));
    document.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
  }, text);
  await p.waitForSelector("body[data-loaded='viewer-sample']");
  assert.equal(await p.textContent("#cost"), "$0.1503");
  p.onlyOwnFiles();
});

test("opening a sessions folder nests each child run under its session and links it from its tool call", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-folder-"));
  const folder = path.join(dir, "sessions");
  mkdirSync(path.join(folder, "viewer-sample"), { recursive: true });
  copyFileSync(path.join(samples, "viewer-sample.jsonl"), path.join(folder, "viewer-sample.jsonl"));
  copyFileSync(path.join(samples, "viewer-sample/explore-toolu_explore1.jsonl"), path.join(folder, "viewer-sample/explore-toolu_explore1.jsonl"));
  const origin = await serveDir(mkdtempSync(path.join(tmpdir(), "garuda-empty-")));
  const p = await page(origin);
  await p.goto(authed(`${origin}/viewer/`));
  await p.setInputFiles("#pick-folder", folder);
  await p.waitForSelector("body[data-loaded]");
  const links = await p.$$eval("#sessions a", (a) => a.map((x) => x.textContent));
  assert.deepEqual(links, ["viewer-sample", "↳ explore-toolu_explore1"]);
  await p.waitForSelector("body[data-loaded='viewer-sample']");
  await p.click("#mode-list");
  await p.click(".badge.sub");
  await p.waitForSelector("body[data-loaded='explore-toolu_explore1']");
  assert.match(await p.textContent("#summary"), /model claude-haiku-4-5/);
  assert.deepEqual(p.errors, []);
  p.onlyOwnFiles();
});

test("a journal that cannot be loaded says why, and a newer open wins over an older one", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-missing-"));
  copyFileSync(path.join(samples, "viewer-sample.jsonl"), path.join(dir, "viewer-sample.jsonl"));
  const origin = await serveDir(dir);
  const p = await page(origin);
  await p.goto(authed(`${origin}/viewer/?file=/files/nothere.jsonl`));
  await p.waitForFunction(() => document.getElementById("status").textContent.startsWith("Error:"));
  assert.match(await p.textContent("#status"), /could not load .*nothere\.jsonl: HTTP 404/);
  // A large journal opened, then a small one before the first is done: the
  // small one is what stays on screen.
  const { journalFile } = await import(path.join(root, "bench/data.mjs"));
  copyFileSync(journalFile(10), path.join(dir, "big.jsonl"));
  await p.goto(authed(`${origin}/`));
  // Two sessions: the folder opens to its index.
  await p.waitForSelector("#index-table tbody tr");
  await p.evaluate(() => {
    const link = (name) => [...document.querySelectorAll("#sessions a")].find((a) => a.textContent === name);
    link("big").click();
    link("viewer-sample").click();
  });
  await p.waitForSelector("body[data-loaded='viewer-sample']");
  await p.waitForTimeout(1500); // the big one would have finished by now
  assert.equal(await p.textContent("#cost"), "$0.1503");
  assert.equal(await p.evaluate(() => window.viewer.entries.length), 22, "the sample's 22 entries, not the big journal's");
  assert.deepEqual(p.errors, []);
});

test("a 100 MB journal: time to first render, and the page answers while it loads", async () => {
  const { journalFile } = await import(path.join(root, "bench/data.mjs"));
  const big = journalFile(100);
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-big-"));
  symlinkSync(big, path.join(dir, "big.jsonl"));
  const origin = await serveDir(dir);
  const p = await page(origin);
  const start = Date.now();
  await p.goto(authed(`${origin}/viewer/?file=/files/big.jsonl`));
  // While the worker reads and replays, the page keeps answering input.
  const latencies = [];
  const answered = [];
  for (let i = 0; i < 10 && !(await p.$("body[data-loaded]")); i++) {
    const t0 = Date.now();
    await p.click("#mode-list");
    answered.push(await p.$eval("#mode-list", (b) => b.classList.contains("on")));
    await p.click("#mode-reading");
    answered.push(await p.$eval("#mode-reading", (b) => b.classList.contains("on")));
    latencies.push(Date.now() - t0);
  }
  await p.waitForSelector("body[data-loaded='big']", { timeout: 60000 });
  const firstRender = Date.now() - start;
  await p.click("#mode-reading");
  await p.waitForSelector("#reading .vitem");
  const records = await p.evaluate(() => window.viewer.entries.length);
  const loadMs = await p.evaluate(() => window.viewer.loadMs);
  const marks = await p.evaluate(() => window.viewer.marks);
  const phase = (from, to) => Math.round(marks[to] - marks[from]);
  // Scrolling to the end renders only what is on screen, and the last entry is there.
  await p.evaluate(() => (document.getElementById("reading").scrollTop = 1e12));
  await p.waitForFunction(() => document.querySelector(`#reading .vitem[data-index="${window.viewer.reading.items.at(-1)}"]`));
  assert.ok((await p.$$eval("#reading .vitem", (r) => r.length)) < 80, "only the entries on screen exist");
  await p.screenshot({ path: path.join(artifacts, "viewer-100mb.png") });
  console.log(
    `viewer: 100 MB journal, ${records} records: first render ${firstRender} ms after navigation (${Math.round(loadMs)} ms load in the page: ` +
      `first bytes ${phase("start", "chunk")}, first screen ${phase("start", "first")} (drawn ${phase("start", "firstShown")}), read and replay ${phase("start", "read")}, transcript ${phase("read", "indexed")}, hand-over ${phase("indexed", "received")}, render ${phase("received", "rendered")}); ` +
      `click latency while loading: ${latencies.length ? `max ${Math.max(...latencies)} ms over ${latencies.length} pairs` : "load finished before the first click"}`,
  );
  // Answered, not timed: each click changed the page while it was loading.
  assert.ok(answered.every(Boolean), `the page answered every click while loading: ${answered}`);
  p.onlyOwnFiles();
});

test("a Claude Code projects folder: projects as headings, subagents nested, a session read by the core's reader", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-claude-projects-"));
  const formats = path.join(root, "tests/formats");
  mkdirSync(path.join(dir, "-work-app/cc-1/subagents"), { recursive: true });
  copyFileSync(path.join(formats, "claude-code.jsonl"), path.join(dir, "-work-app/cc-1.jsonl"));
  writeFileSync(
    path.join(dir, "-work-app/cc-1/subagents/agent-a1.jsonl"),
    JSON.stringify({ parentUuid: null, isSidechain: true, sessionId: "cc-1", agentId: "a1", type: "user", uuid: "s1", timestamp: "2026-01-05T10:00:04.000Z", message: { role: "user", content: "Search the repo" } }) + "\n",
  );
  // The Task call's result names its subagent: the call links to the child run.
  const lines = readFileSync(path.join(dir, "-work-app/cc-1.jsonl"), "utf8").split("\n");
  lines[5] = lines[5].replace('"toolUseResult":{"type":"text"}', '"toolUseResult":{"agentId":"a1","totalTokens":9}');
  writeFileSync(path.join(dir, "-work-app/cc-1.jsonl"), lines.join("\n"));
  mkdirSync(path.join(dir, "-work-other"));
  copyFileSync(path.join(formats, "pi.jsonl"), path.join(dir, "-work-other/pi-1.jsonl"));
  const origin = await serveDir(dir);
  const p = await page(origin);
  await p.goto(authed(origin + "/"));
  await p.waitForSelector("#index-table tbody tr");
  const nav = await p.$$eval("#sessions > *", (n) => n.map((x) => `${x.className}:${x.textContent}`));
  assert.ok(nav.includes("project:-work-app") && nav.includes("project:-work-other"), nav.join(" | "));
  assert.ok(nav.some((x) => x.startsWith("child") && x.includes("agent-a1")), nav.join(" | "));
  await p.click("#sessions a:text-is('cc-1')");
  await p.waitForSelector("body[data-loaded='cc-1']");
  assert.match(await p.textContent("#summary"), /2 prompts/);
  assert.doesNotMatch(await p.textContent("#reading"), /abandoned/, "the rewound branch is not in the conversation");
  await p.screenshot({ path: path.join(artifacts, "viewer-claude-code.png") });
  await p.click("#mode-list");
  await p.click(".badge.sub");
  await p.waitForSelector("body[data-loaded='agent-a1']");
  assert.deepEqual(p.errors, []);
  p.onlyOwnFiles();
});
