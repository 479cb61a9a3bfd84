// The transcript viewer in a real browser: playwright-core driving Debian's
// Chromium, headless, against `garuda-session serve`. Screenshots go to
// tests/artifacts/.
import { test, before, after, afterEach } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, copyFileSync, writeFileSync, linkSync, readFileSync } from "node:fs";
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

/** A big bench file in a served folder without copying it: serve never follows a symlink, so a hard link (a copy across file systems). */
function hardLink(from, to) {
  try {
    linkSync(from, to);
  } catch {
    copyFileSync(from, to);
  }
}

async function serveDir(dir) {
  const child = spawn(process.execPath, [path.join(root, "pkg/bin/garuda-session.cjs"), "serve", dir], { stdio: ["ignore", "pipe", "inherit"] });
  servers.push(child);
  const line = await new Promise((resolve) => child.stdout.once("data", (d) => resolve(String(d))));
  const printed = new URL(/http:\/\/127\.0\.0\.1:\d+\/\S*#token=[\w-]+/.exec(line)[0]);
  tokens.set(printed.origin, new URLSearchParams(printed.hash.slice(1)).get("token"));
  return printed.origin;
}

/** `serve` answers only the holder of the token it printed: a page's first load carries it, in the fragment. */
const tokens = new Map();
function authed(url) {
  const u = new URL(url);
  u.hash = `token=${tokens.get(u.origin)}`;
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
  assert.match(await p.textContent("#summary"), /\d+ entries · 4 prompts · \d+ responses · 5 messages in context/);
  // Resume's effect in plain words; the reason code only as words in the tooltip.
  assert.match(await p.textContent("#resume"), /if resumed: 1 thinking block left out/);
  assert.match(await p.getAttribute("#resume", "title"), /1 × the model changed after it/);
  assert.match(await p.textContent("#warnings"), /line 9 \(bad-json\)/);
  // The reading mode opens first; the compact list is the second mode.
  assert.ok((await p.$$("#reading .vitem")).length > 0);
  // The subagent's run, nested under the call that started it.
  await p.click("#reading details.tool:has(.tool-name:text-is('explore')) > summary");
  await p.click("#reading a.child-show");
  await p.waitForSelector("#reading .nested .entry");
  assert.match(await p.textContent("#reading .nested"), /Subagent run explore-toolu_explore1: \d+ entries.*claude-haiku-4-5/s);
  await p.locator("#reading details.tool:has(.nested)").screenshot({ path: path.join(artifacts, "viewer-nested.png") });
  await p.click("#mode-list");
  await p.waitForSelector(".row");
  const dropped = await p.$$eval(".badge.thinking.dropped", (b) => b.map((x) => x.textContent));
  assert.ok(dropped.includes("thinking left out if resumed"), dropped.join());
  assert.match(await p.getAttribute(".badge.thinking.dropped", "title"), /the model changed after it/);
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
  await p.waitForFunction(() => /\d+ of \d+/.test(document.getElementById("hits").textContent));
  assert.match(await p.textContent("#hits"), /^1 of [1-9]\d*$/);
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
  await p.waitForFunction(() => /of|no match/.test(document.getElementById("hits").textContent));
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
  hardLink(big, path.join(dir, "big.jsonl"));
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

// 10 MB: one patch slice; 100 MB: 59,555 entries, settled in three
// slices of 20,000 (worker.js's postPatch).
for (const mb of [10, 100]) {
  test(`entries shown while a ${mb} MB journal is read, settled when it is read, are the core's whole transcript`, async () => {
    // Read in 4 MB chunks, the page takes the entries unsettled and applies
    // what settling decided at the end (fates, pairs, thinking): the result
    // must be what the core gives for the whole journal at once.
    const { journalFile } = await import(path.join(root, "bench/data.mjs"));
    const file = journalFile(mb);
    const dir = mkdtempSync(path.join(tmpdir(), "garuda-settle-"));
    hardLink(file, path.join(dir, "j.jsonl"));
    const origin = await serveDir(dir);
    const p = await page(origin);
    await p.goto(authed(`${origin}/viewer/?file=/files/j.jsonl`));
    await p.waitForSelector("body[data-loaded='j']", { timeout: 120000 });
    const shown = await p.evaluate(() => JSON.stringify(window.viewer.entries));
    const { Journal } = createRequire(import.meta.url)(path.join(root, "pkg/node/garuda_session.js"));
    const journal = new Journal({ history: true });
    journal.feed(readFileSync(file));
    journal.finish();
    const whole = journal.transcript();
    journal.free();
    const entries = JSON.parse(shown);
    assert.ok(whole.length > 1000 && entries.length === whole.length, `${entries.length} entries shown, ${whole.length} in the core`);
    assert.ok(whole.some((e) => e.fate === "compacted") && whole.some((e) => e.underCalls) && whole.some((e) => e.thinkingFate), "the journal has fates, pairs and thinking to settle");
    for (let i = 0; i < whole.length; i++) assert.deepEqual(entries[i], whole[i], `entry ${i}`);
    assert.deepEqual(p.errors, []);
  });
}

test("a session whose settling moves entries (a reader's warning put in its place at the end) is shown as the core orders it", async () => {
  // A torn Codex rollout: its bad line's warning comes while the file is
  // read, its records when the reader ends, so settling reorders the
  // entries the page was sent; it must take them again, whole.
  const bytes = readFileSync(path.join(root, "tests/doctor/codex/torn-utf8.jsonl"));
  const { Journal } = createRequire(import.meta.url)(path.join(root, "pkg/node/garuda_session.js"));
  const chunked = new Journal({ history: true, lean: true });
  chunked.feed(bytes);
  void chunked.transcriptLength;
  chunked.finish();
  assert.equal(chunked.transcriptPatchJson(0, chunked.transcriptLength), undefined, "the fixture's settling moves entries");
  chunked.free();
  const journal = new Journal({ history: true });
  journal.feed(bytes);
  journal.finish();
  const whole = journal.transcript();
  journal.free();
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-reorder-"));
  const origin = await serveDir(dir);
  const p = await page(origin);
  await p.goto(authed(origin + "/viewer/"));
  await p.setInputFiles("#pick-files", { name: "torn.jsonl", mimeType: "text/plain", buffer: bytes });
  await p.waitForSelector("body[data-loaded]");
  const entries = JSON.parse(await p.evaluate(() => JSON.stringify(window.viewer.entries)));
  assert.deepEqual(entries, whole);
  assert.deepEqual(p.errors, []);
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

// ---- The reading mode, the sessions index, charts, deep links, live follow ----

test("reading mode: Markdown, highlighted code, folded thinking, calls folded with their results, a diff, an image", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-reading-"));
  copyFileSync(path.join(samples, "reading-sample.jsonl"), path.join(dir, "reading-sample.jsonl"));
  const origin = await serveDir(dir);
  const p = await page(origin);
  await p.goto(authed(origin + "/"));
  await p.waitForSelector("body[data-loaded='reading-sample']");
  await p.waitForSelector("#reading .vitem:not(.placeholder) .entry.assistant");
  // Markdown as HTML: a heading, emphasis, a list, a table, a safe link.
  // A message's headings sit two levels under the entry's (## is drawn as an H4).
  await p.waitForSelector("#reading h4:text('What is wrong')");
  assert.ok(await p.$("#reading .md strong"));
  assert.ok(await p.$("#reading .md ol li"));
  assert.ok(await p.$("#reading .md table"));
  const link = await p.$eval("#reading a[href^='https://example.com']", (a) => ({ rel: a.rel, target: a.target }));
  assert.deepEqual(link, { rel: "noopener noreferrer", target: "_blank" });
  // Code blocks highlighted by language.
  assert.ok((await p.$$("#reading pre code.language-ts .hljs-keyword, #reading pre code .hljs-keyword")).length > 0, "highlighted code");
  // Thinking folded, with what resume does with it.
  const thinking = await p.$eval("#reading details.thinking", (d) => ({ open: d.open, summary: d.querySelector("summary").textContent, title: d.querySelector("summary [title]")?.title }));
  assert.equal(thinking.open, false);
  // Kept thinking says nothing in the summary (no internal words); the tooltip says what resume does.
  assert.equal(thinking.summary.trim(), "Thinking");
  assert.match(thinking.title, /Resuming this session sends this thinking back/);
  // A call folded with its result; the result entry is not shown again.
  const read = await p.$eval("#reading details.tool:has(.tool-name:text-is('read_file'))", (d) => ({ open: d.open, text: d.textContent }));
  assert.equal(read.open, false);
  assert.match(read.text, /src\/parser\.test\.ts.*ok.*parses dates/s);
  assert.equal(await p.$$eval("#reading .entry.tool_results", (x) => x.length), 0, "paired results live under their calls");
  // The edit as a diff, open.
  const diff = await p.$eval("#reading details.tool.edit", (d) => ({ open: d.open, add: d.querySelectorAll(".diff-body .add").length, del: d.querySelectorAll(".diff-body .del").length, head: d.querySelector(".diff-head").textContent }));
  assert.ok(diff.open && diff.add === 2 && diff.del === 1, JSON.stringify(diff));
  assert.match(diff.head, /src\/parser\.ts \+2 −1/);
  await p.locator("#reading details.tool.edit").scrollIntoViewIfNeeded();
  await p.locator("#reading details.tool.edit").screenshot({ path: path.join(artifacts, "viewer-diff.png") });
  // The screenshot's image, inline from its base64 source.
  await p.evaluate(() => document.querySelectorAll("#reading details.tool").forEach((d) => (d.open = true)));
  await p.waitForSelector("#reading img.inline-image[src^='data:image/png;base64,']");
  assert.ok(await p.$eval("#reading img.inline-image", (i) => i.complete && i.naturalWidth > 0), "the image decoded");
  await p.evaluate(() => (document.getElementById("reading").scrollTop = 0));
  await p.waitForTimeout(200);
  await p.screenshot({ path: path.join(artifacts, "viewer-reading.png") });
  // Charts with axes, units and labels.
  await p.click("#charts summary");
  await p.waitForSelector("#charts svg.chart");
  const charts = await p.$$eval("#charts svg.chart", (svgs) => svgs.map((s) => s.textContent));
  assert.equal(charts.length, 3);
  for (const [i, words] of [[0, ["Context size per turn", "tokens", "turn (model response)", "context window 200k", "100k"]], [1, ["Cumulative cost", "USD", "turn (model response)", "$0.0"]], [2, ["Tokens per turn by kind", "tokens", "input", "cache read", "cache write", "output"]]]) {
    for (const w of words) assert.ok(charts[i].includes(w), `chart ${i} says ${w}: ${charts[i]}`);
  }
  await p.locator("#charts").screenshot({ path: path.join(artifacts, "viewer-charts.png") });
  assert.deepEqual(p.errors, []);
  p.onlyOwnFiles();
});

/** A journal of `turns` turns whose entries differ in height (one line to 60). */
function longJournal(turns) {
  const lines = [{ type: "start", sessionId: "long", model: "claude-sonnet-4-5" }];
  for (let i = 0; i < turns; i++) {
    lines.push({ type: "user", message: { role: "user", content: `Question ${i}: ${"why ".repeat(i % 7)}` } });
    const body = Array.from({ length: 1 + ((i * 37) % 60) }, (_, k) => `- point ${k} of answer ${i}`).join("\n");
    lines.push({ type: "assistant", step: i + 1, costUsd: 0.001, response: { content: [{ type: "text", text: `Answer ${i}\n\n${body}` }], usage: { inputTokens: 100 + i, outputTokens: 20 } } });
  }
  return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
}

test("reading mode scrolls entries of any height virtually (frame times: bench/viewer.mjs), and a deep link lands on its entry after a reload", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-long-"));
  writeFileSync(path.join(dir, "long.jsonl"), longJournal(1500));
  const origin = await serveDir(dir);
  const p = await page(origin);
  await p.goto(authed(origin + "/"));
  await p.waitForSelector("body[data-loaded='long']");
  assert.equal(await p.evaluate(() => window.viewer.entries.length), 3001);
  // To the end: the last answer is drawn, and only a screenful of entries exists.
  await p.evaluate(() => (document.getElementById("reading").scrollTop = 1e12));
  await p.waitForSelector("#reading .vitem:not(.placeholder) :text('Answer 1499')");
  assert.ok((await p.$$("#reading .vitem")).length < 80);
  // Entries never overlap once drawn: each starts below the one before it.
  const overlaps = await p.$$eval("#reading .vitem", (nodes) => {
    const boxes = nodes.map((n) => [Number(n.dataset.index), n.getBoundingClientRect()]).sort((a, b) => a[0] - b[0]);
    return boxes.slice(1).filter(([, b], i) => b.top < boxes[i][1].bottom - 1).length;
  });
  assert.equal(overlaps, 0);
  // A deep link: the session and an entry in the middle; a reload lands there.
  await p.goto(`${origin}/viewer/?dir=/files/index.json#session=long&e=1601`);
  await p.waitForSelector("#reading .vitem[data-index='1601']:not(.placeholder)");
  await p.reload();
  await p.waitForSelector("body[data-loaded='long']");
  await p.waitForSelector("#reading .vitem[data-index='1601']:not(.placeholder)");
  const top = await p.$eval("#reading .vitem[data-index='1601']", (n) => n.getBoundingClientRect().top - document.getElementById("reading").getBoundingClientRect().top);
  assert.ok(Math.abs(top) < 40, `the linked entry is at the top (${top} px)`);
  assert.match(await p.textContent("#reading .vitem[data-index='1601']"), /Question 800/);
  // Scrolling writes the entry on screen into the address.
  await p.evaluate(() => (document.getElementById("reading").scrollTop += 3000));
  await p.waitForFunction(() => !location.hash.includes("e=1601") && /e=\d+/.test(location.hash));
  // Its entries were taken a piece at a time (viewer-entries.js); the list reads them all.
  assert.equal(await p.evaluate(() => window.viewer.lazy?.complete), false, "pieces not yet read");
  await p.click("#mode-list");
  await p.waitForSelector(".row");
  assert.ok((await p.evaluate(() => window.viewer.visible.length)) >= 3000);
  assert.equal(await p.evaluate(() => window.viewer.lazy.complete), true);
  assert.match(await p.evaluate(() => window.viewer.entries[3000].preview), /Answer 1499/);
  assert.deepEqual(p.errors, []);
  p.onlyOwnFiles();
});

test("a folder opens to a sessions index: sortable, filterable, searchable inside every session, with a daily cost chart", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-index-"));
  for (const f of ["viewer-sample.jsonl", "demo-session.jsonl", "reading-sample.jsonl"]) copyFileSync(path.join(samples, f), path.join(dir, f));
  copyFileSync(path.join(root, "tests/formats/codex.jsonl"), path.join(dir, "codex-1.jsonl"));
  const origin = await serveDir(dir);
  const p = await page(origin);
  await p.goto(authed(origin + "/"));
  await p.waitForFunction(() => document.querySelectorAll("#index-table tbody tr").length === 4 && !document.querySelector("#index-table").textContent.includes("reading…"));
  const rows = () => p.$$eval("#index-table tbody tr", (r) => r.map((x) => x.dataset.session));
  const cells = await p.$eval("#index-table tr[data-session='viewer-sample']", (r) => [...r.cells].map((c) => c.textContent));
  assert.deepEqual(cells, ["Find the flaky test", "Find the flaky test in the parser suite.", "garuda", "claude-opus-4-1", "2026-11-29", "4", "16,490", "$0.1503"]);
  assert.equal(await p.$eval("#index-table tr[data-session='codex-1'] td:nth-child(3)", (c) => c.textContent), "codex");
  // Sorted by cost, both ways.
  await p.click("#index-table th[data-sort='costUsd']");
  const byCost = await rows();
  assert.equal(byCost[0], "demo-session");
  await p.click("#index-table th[data-sort='costUsd']");
  assert.deepEqual(await rows(), [...byCost].reverse());
  // Filtered by text and by agent.
  await p.fill("#index-filter", "flaky");
  await p.waitForFunction(() => document.querySelectorAll("#index-table tbody tr").length === 1);
  assert.deepEqual(await rows(), ["viewer-sample"]);
  await p.fill("#index-filter", "");
  // Every row back first: else the wait below could pass on the text
  // filter's one row before the agent filter is drawn (seen once under load).
  await p.waitForFunction(() => document.querySelectorAll("#index-table tbody tr").length === 4);
  await p.selectOption("#index-agent", "codex");
  await p.waitForFunction(() => document.querySelectorAll("#index-table tbody tr").length === 1);
  assert.deepEqual(await rows(), ["codex-1"]);
  await p.selectOption("#index-agent", "");
  // Searched inside every session: only the reading sample mentions Europe/London.
  await p.fill("#index-search", "europe/london");
  await p.waitForFunction(() => /1 sessions contain/.test(document.getElementById("index-status").textContent));
  assert.deepEqual(await rows(), ["reading-sample"]);
  await p.fill("#index-search", "");
  await p.waitForFunction(() => document.querySelectorAll("#index-table tbody tr").length === 4);
  // The daily cost chart, with its axes.
  assert.match(await p.textContent("#daily-chart"), /Cost per day.*02-01.*11-29.*day \(2026-02-01 to 2026-11-29, days with usage\).*USD/s);
  await p.screenshot({ path: path.join(artifacts, "viewer-index.png") });
  // A row opens its session.
  await p.click("#index-table tr[data-session='viewer-sample']");
  await p.waitForSelector("body[data-loaded='viewer-sample']");
  assert.deepEqual(p.errors, []);
  p.onlyOwnFiles();
});

test("live follow: new lines appear within a second, a torn last line is waited for until it is complete or the writer is gone", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-follow-"));
  const file = path.join(dir, "live.jsonl");
  const lock = path.join(dir, "live.lock");
  const line = (r) => JSON.stringify(r) + "\n";
  writeFileSync(file, line({ type: "start", sessionId: "live", model: "claude-sonnet-4-5" }) + line({ type: "user", message: { role: "user", content: "first prompt" } }));
  // The writer's lock, held by a live process (this one): serve says the writer runs.
  writeFileSync(lock, JSON.stringify({ pid: process.pid }));
  const origin = await serveDir(dir);
  const p = await page(origin);
  await p.goto(authed(origin + "/"));
  await p.waitForSelector("body[data-loaded='live']");
  assert.match(await p.textContent("#status"), /following/);
  const entries = () => p.evaluate(() => window.viewer.entries.length);
  assert.equal(await entries(), 2);
  // A new line appears within a second (and a bit for the poll in flight).
  const { appendFileSync } = await import("node:fs");
  const t0 = Date.now();
  appendFileSync(file, line({ type: "assistant", step: 1, costUsd: 0.01, response: { content: [{ type: "text", text: "the answer, live" }], usage: { inputTokens: 10, outputTokens: 5 } } }));
  await p.waitForFunction(() => window.viewer.entries.length === 3, null, { timeout: 5000 });
  const latency = Date.now() - t0;
  await p.waitForSelector("#reading :text('the answer, live')");
  // Half a line: waited for, not reported.
  const torn = line({ type: "user", message: { role: "user", content: "second prompt, written in two halves" } });
  appendFileSync(file, torn.slice(0, 30));
  await p.waitForTimeout(2500);
  assert.equal(await entries(), 3);
  assert.equal(await p.evaluate(() => window.viewer.entries.filter((e) => e.kind === "warning").length), 0, "no warning for a line still being written");
  assert.doesNotMatch(await p.textContent("#summary"), /torn/);
  appendFileSync(file, torn.slice(30));
  await p.waitForSelector("#reading :text('second prompt, written in two halves')", { timeout: 5000 });
  // The writer goes with half a line written: now it is reported.
  appendFileSync(file, '{"type":"user","mess');
  const { unlinkSync } = await import("node:fs");
  unlinkSync(lock);
  await p.waitForFunction(() => /torn/.test(document.getElementById("summary").textContent), null, { timeout: 5000 });
  assert.doesNotMatch(await p.textContent("#status"), /following/);
  console.log(`live follow: a new line was on screen ${latency} ms after it was written`);
  assert.deepEqual(p.errors, []);
  p.onlyOwnFiles();
});

test("live follow of a big session: an update adds the new entries to those taken lazily, it does not send them all again", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-follow-big-"));
  const { journalFile } = await import(path.join(root, "bench/data.mjs"));
  // A copy: the test appends to it.
  copyFileSync(journalFile(10), path.join(dir, "big.jsonl"));
  writeFileSync(path.join(dir, "big.lock"), JSON.stringify({ pid: process.pid }));
  const origin = await serveDir(dir);
  const p = await page(origin);
  await p.goto(authed(origin + "/"));
  await p.waitForSelector("body[data-loaded='big']");
  assert.match(await p.textContent("#status"), /following/);
  const seen = () => p.evaluate(() => ({ n: window.viewer.entries.length, pieces: window.viewer.incoming.pieces.length, parsed: window.viewer.incoming.pieces.filter((x) => x.done).length, lazy: window.viewer.lazy !== null }));
  const start = await seen();
  assert.ok(start.lazy && start.pieces > 8 && start.parsed < start.pieces / 2, `taken lazily: ${JSON.stringify(start)}`);
  // (Nothing returned: Playwright would read every entry to send it back.)
  await p.evaluate(() => void (window.__taken = window.viewer.incoming));
  const { appendFileSync } = await import("node:fs");
  appendFileSync(path.join(dir, "big.jsonl"), JSON.stringify({ type: "user", message: { role: "user", content: "a prompt written while the viewer follows" } }) + "\n");
  await p.waitForFunction((n) => window.viewer.entries.length === n + 1, start.n, { timeout: 5000 });
  const now = await seen();
  assert.equal(now.pieces, start.pieces + 1, "one new piece, the old ones kept");
  assert.ok(await p.evaluate(() => window.viewer.incoming === window.__taken), "the same entries, added to");
  assert.ok(now.lazy && now.parsed < now.pieces / 2, `still lazy: ${JSON.stringify(now)}`);
  assert.equal(await p.evaluate((n) => window.viewer.entries[n].preview, start.n), "a prompt written while the viewer follows");
  assert.deepEqual(p.errors, []);
  p.onlyOwnFiles();
});

test("hostile Markdown: no script runs, nothing is fetched, no javascript: or data: link, no SVG, in the viewer and in the exported HTML", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-hostile-md-"));
  const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" onload="window.__pwned=9"><script>window.__pwned=10</script></svg>').toString("base64");
  const md = [
    "[click](javascript:window.__pwned=1) [data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==) [vb](vbscript:msgbox)",
    `![svg](data:image/svg+xml;base64,${svg}) ![remote](http://evil.example/pixel.png) ![rel](/files/x.png)`,
    "<script>window.__pwned = 2</script><img src=x onerror='window.__pwned=3'><svg onload='window.__pwned=4'></svg>",
    "<a href='javascript:window.__pwned=5'>raw link</a> <iframe src='http://evil.example'></iframe>",
    "```html\n<script>window.__pwned = 6</script><img src=x onerror=alert(6)>\n```",
    "[ref][r]\n\n[r]: javascript:window.__pwned=7",
    "<https://ok.example/path> and <javascript:alert(8)>",
  ].join("\n\n");
  const lines = [
    { type: "start", sessionId: "hostile-md", model: "claude-sonnet-4-5" },
    { type: "user", message: { role: "user", content: md } },
    { type: "assistant", step: 1, costUsd: 0, response: { content: [{ type: "text", text: md }, { type: "tool_use", id: "t1", name: "edit_file", input: { path: "<img src=x onerror=alert(9)>.html", old: "<script>window.__pwned=11</script>", new: "<svg onload=window.__pwned=12></svg>\n<img src=x onerror=alert(12)>" } }], usage: {} } },
    { type: "tool_results", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: [{ type: "text", text: md }, { type: "image", source: { type: "base64", media_type: "image/svg+xml", data: svg } }, { type: "image", source: { type: "url", url: "http://evil.example/x.png" } }] }] }, calls: [] },
  ];
  writeFileSync(path.join(dir, "hostile-md.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  const origin = await serveDir(dir);
  const p = await page(origin);
  await p.goto(authed(origin + "/"));
  await p.waitForSelector("body[data-loaded='hostile-md']");
  await p.waitForSelector("#reading .vitem:not(.placeholder) .entry.assistant");
  await p.evaluate(() => document.querySelectorAll("#reading details").forEach((d) => (d.open = true)));
  await p.waitForTimeout(500);
  const check = () =>
    p.evaluate(() => {
      const root = document.getElementById("reading");
      return {
        pwned: window.__pwned,
        hrefs: [...root.querySelectorAll("a[href]")].map((a) => a.getAttribute("href")),
        imgs: [...root.querySelectorAll("img")].map((i) => i.getAttribute("src").slice(0, 22)),
        bad: root.querySelectorAll(["script", "iframe", "svg", "object", "embed", "style", "link", "[onerror]", "[onload]", "[style]"].map((s) => `.vitem ${s}`).join(",")).length,
      };
    });
  const seen = await check();
  assert.equal(seen.pwned, undefined);
  assert.deepEqual(seen.hrefs.filter((h) => !/^(https?:|mailto:|#)/.test(h)), [], seen.hrefs.join(" "));
  assert.deepEqual(seen.imgs, [], "no image: markdown images are text, the SVG and URL image blocks are not shown");
  assert.equal(seen.bad, 0);
  assert.match(await p.textContent("#reading"), /<script>window.__pwned = 2<\/script>/, "raw HTML shows as text");
  // The list mode's detail panel renders the same way.
  await p.click("#mode-list");
  await p.click(".row[data-index='2']");
  await p.waitForSelector("#detail .entry");
  assert.equal(await p.$$eval("#detail script, #detail iframe, #detail svg, #detail img, #detail [onerror]", (x) => x.length), 0);
  await p.waitForTimeout(300);
  assert.equal(await p.evaluate(() => window.__pwned), undefined);
  assert.deepEqual(p.dialogs, []);
  assert.deepEqual(p.errors, []);
  p.onlyOwnFiles();
  // The exported HTML, opened as a file: no script, a CSP, nothing fetched.
  const out = path.join(dir, "hostile.html");
  const r = spawnSync(process.execPath, [path.join(root, "pkg/bin/garuda-session.cjs"), "export", path.join(dir, "hostile-md.jsonl"), "--format", "html", "-o", out], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const html = readFileSync(out, "utf8");
  assert.doesNotMatch(html, /<(script|iframe|svg|object|embed)|href="(javascript|data|vbscript):|<img[^>]+src="(?!data:image\/(png|jpeg|gif|webp);)|<[^>]+\son(error|load)=/i);
  assert.match(html, /Content-Security-Policy" content="default-src 'none'/);
  const q = await page("file://");
  await q.goto(`file://${out}`);
  assert.equal(await q.evaluate(() => window.__pwned), undefined);
  assert.ok(q.requests.every((u) => u.startsWith("file://")), q.requests.join(" "));
  assert.deepEqual(q.dialogs, []);
});

test("export --format html reads like the reading mode with no script: the same renderer and style sheet", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-export-html-"));
  const out = path.join(dir, "reading.html");
  const r = spawnSync(process.execPath, [path.join(root, "pkg/bin/garuda-session.cjs"), "export", path.join(samples, "reading-sample.jsonl"), "--format", "html", "-o", out], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const p = await browser.newPage({ viewport: { width: 1100, height: 900 }, javaScriptEnabled: false });
  pages.push(p);
  await p.goto(`file://${out}`);
  assert.ok(await p.$("main.reading article.entry.assistant h4"), "Markdown rendered (its ## two levels under the entry)");
  assert.ok(await p.$("main.reading .diff .add"), "the edit as a diff");
  assert.ok(await p.$("main.reading img.inline-image[src^='data:image/png']"), "the image inline");
  assert.ok(await p.$("main.reading .hljs-keyword"), "code highlighted");
  assert.equal(await p.$$eval("script", (s) => s.length), 0);
  await p.screenshot({ path: path.join(artifacts, "export-html.png"), fullPage: false });
});

test("serve's token reaches no other server on 127.0.0.1: not as a cookie, not in a URL, not in a header", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-token-"));
  copyFileSync(path.join(samples, "viewer-sample.jsonl"), path.join(dir, "viewer-sample.jsonl"));
  const origin = await serveDir(dir);
  const token = tokens.get(origin);
  // Another local web server, on another port: it records all it is sent.
  const http = await import("node:http");
  const seen = [];
  const other = http.createServer((req, res) => {
    seen.push(JSON.stringify({ url: req.url, headers: req.headers }));
    res.writeHead(200, { "content-type": "text/html" });
    res.end(`<p>another server</p><img src="/pixel.png"><script>fetch("/api", { credentials: "include" }); fetch("${origin}/files/index.json", { credentials: "include" }).catch(() => {});</script>`);
  });
  await new Promise((resolve) => other.listen(0, "127.0.0.1", resolve));
  const otherOrigin = `http://127.0.0.1:${other.address().port}`;
  try {
    const p = await page(origin);
    await p.goto(authed(origin + "/"));
    await p.waitForSelector("body[data-loaded='viewer-sample']");
    assert.doesNotMatch(p.url(), new RegExp(token), "the token leaves the address bar");
    await p.reload();
    await p.waitForSelector("body[data-loaded='viewer-sample']");
    // The user goes on to another local server: in the same tab, then in another.
    await p.goto(otherOrigin + "/");
    await p.waitForLoadState("networkidle");
    const q = await page(otherOrigin);
    await q.goto(otherOrigin + "/second");
    await q.waitForLoadState("networkidle");
    assert.ok(seen.length >= 4, `the other server was visited: ${seen.length} requests`);
    for (const s of seen) assert.ok(!s.includes(token), `the other server received the token: ${s}`);
    assert.deepEqual(await p.context().cookies(), [], "no cookie at all");
  } finally {
    other.close();
  }
});

test("the doctor's panel says why a session will not resume, as text, and offers the repaired file in the agent's own format", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-doctor-view-"));
  const origin = await serveDir(dir);
  const p = await page(origin);
  await p.goto(authed(origin + "/viewer/"));
  const codex = (name) => readFileSync(path.join(root, "tests/doctor/codex", name));
  // A torn Codex rollout whose open call has a hostile id: said, never markup.
  const torn = Buffer.from(codex("torn-utf8.jsonl").toString("latin1").replaceAll("call_t", "<img src=x onerror=alert(5)>"), "latin1");
  await p.setInputFiles("#pick-files", { name: "torn.jsonl", mimeType: "text/plain", buffer: torn });
  await p.waitForSelector("body[data-loaded]");
  await p.click("#doctor summary");
  await p.waitForSelector("#doctor a[download]");
  const text = await p.textContent("#doctor");
  assert.match(text, /codex: will not resume/);
  assert.match(text, /line 5: bad-line: the line is not UTF-8/);
  assert.match(text, /<img src=x onerror=alert\(5\)>/);
  assert.equal(await p.$$eval("#doctor img", (x) => x.length), 0);
  const [download] = await Promise.all([p.waitForEvent("download"), p.click("#doctor a[download]")]);
  assert.equal(download.suggestedFilename(), "torn.repaired.jsonl");
  const got = readFileSync(await download.path());
  const want = Buffer.from(codex("torn-utf8.fixed.jsonl").toString("latin1").replaceAll("call_t", "<img src=x onerror=alert(5)>"), "latin1");
  assert.deepEqual(got, want);
  assert.deepEqual(p.dialogs, []);
  assert.deepEqual(p.errors, []);
  p.onlyOwnFiles();
});
