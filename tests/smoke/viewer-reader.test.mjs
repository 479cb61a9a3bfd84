// The reader people prefer (issue 25), in a real browser (playwright-core
// driving Debian's Chromium against `garuda-session serve`): each tool
// drawn for reading, agent boilerplate folded as context, search that
// marks and steps, the page on a phone and in the dark. Screenshots of real
// peer sessions go to tests/artifacts/ (ignored), never into the repo.
import { test, before, after, afterEach } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, writeFileSync, copyFileSync, existsSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ciRequire = createRequire(path.join(root, ".ci/package.json"));
const artifacts = path.join(root, "tests/artifacts");
const shared = process.env.GARUDA_SHARED ?? path.join(root, "../shared");
const peers = path.join(shared, "peers");
const PEERS_SKIP = existsSync(peers) ? false : `SKIP peer screenshots: ${peers} is absent (../shared sits beside the repository in CI)`;

let browser;
const servers = [];
const pages = [];
const tokens = new Map();

async function serveDir(dir) {
  const child = spawn(process.execPath, [path.join(root, "pkg/bin/garuda-session.cjs"), "serve", dir], { stdio: ["ignore", "pipe", "inherit"] });
  servers.push(child);
  const line = await new Promise((resolve) => child.stdout.once("data", (d) => resolve(String(d))));
  const printed = new URL(/http:\/\/127\.0\.0\.1:\d+\/\S*#token=[\w-]+/.exec(line)[0]);
  tokens.set(printed.origin, new URLSearchParams(printed.hash.slice(1)).get("token"));
  return printed.origin;
}
/** The viewer's address with serve's token (and a deep link) in the fragment. */
const authed = (origin, hash = "") => `${origin}/#${hash ? `${hash}&` : ""}token=${tokens.get(origin)}`;

before(async () => {
  mkdirSync(artifacts, { recursive: true });
  const { chromium } = ciRequire("playwright-core");
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"] });
});
afterEach(async () => {
  for (const p of pages.splice(0)) await p.close();
});
after(async () => {
  await browser?.close();
  for (const s of servers) s.kill();
});

async function page({ width = 1280, height = 900, colorScheme = "light" } = {}) {
  const p = await browser.newPage({ viewport: { width, height }, colorScheme });
  pages.push(p);
  p.errors = [];
  p.on("pageerror", (e) => p.errors.push(String(e)));
  return p;
}

// ---- A session with each agent's tools, in Garuda's format ---------------------------

const T = "2026-11-29T09:00:00.000Z";
function toolSession() {
  const lines = [{ type: "start", sessionId: "tools", model: "claude-sonnet-4-5", t: T }];
  const calls = [
    ["Bash", { command: "npm test -- parser", description: "Run the parser tests" }, "Exit code 2\n" + Array.from({ length: 10 }, (_, i) => `out line ${i + 1}`).join("\n"), true],
    ["Read", { file_path: "src/parser.ts", offset: 7 }, "     7→export function parse(s: string) {\n     8→  return new Date(s);\n     9→}"],
    ["TodoWrite", { todos: [{ content: "Read the test", status: "completed", activeForm: "Reading" }, { content: "Fix the zone", status: "in_progress", activeForm: "Fixing" }, { content: "Run the suite", status: "pending", activeForm: "Running" }] }, "Todos have been modified successfully."],
    ["Task", { description: "find flaky tests", subagent_type: "Explore", prompt: "Look for **flaky** tests.\n\n- parser\n- dates" }, "## Findings\n\nOne test is **flaky**."],
    ["Grep", { pattern: "parse\\(", path: "src", output_mode: "content" }, "src/a.ts:3:parse(x)\nsrc/a.ts:9:parse(y)\nsrc/b.ts:1:parse(z)"],
    ["mcp__supabase__execute_sql", { query: "select 1" }, "[{\"?column?\":1}]"],
    ["apply_patch", { input: "*** Begin Patch\n*** Update File: src/x.ts\n@@\n-old\n+new\n*** End Patch" }, JSON.stringify({ output: "Success. Updated the following files:\nM src/x.ts\n", metadata: { exit_code: 0 } })],
    ["frobnicate", { level: 11 }, "done"],
  ];
  // /clear as the Claude Code reader writes it (asking the model nothing, it is not a prompt).
  lines.push({ type: "continue", t: T, maxTokens: 0, message: { role: "user", content: [{ type: "text", text: "<command-name>/clear</command-name>\n<command-message>clear</command-message>\n<command-args></command-args>" }] } });
  lines.push({ type: "user", t: T, message: { role: "user", content: "Fix the parser's time zone bug." } });
  calls.forEach(([name, input, result, error], i) => {
    const id = `toolu_${i}`;
    lines.push({ type: "assistant", step: i + 1, t: T, costUsd: 0.001, response: { content: [{ type: "tool_use", id, name, input }], usage: { inputTokens: 10, outputTokens: 5 } } });
    lines.push({ type: "tool_results", t: T, message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: result, ...(error ? { is_error: true } : {}) }] }, calls: [{ toolUseId: id, name, durationMs: 1 }] });
  });
  lines.push({ type: "assistant", step: 99, t: T, costUsd: 0.001, response: { content: [{ type: "text", text: "The zone was **wrong**; the needle is here." }], usage: { inputTokens: 10, outputTokens: 5 } } });
  return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
}

async function openTools(opts) {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-reader-"));
  writeFileSync(path.join(dir, "tools.jsonl"), toolSession());
  const origin = await serveDir(dir);
  const p = await page(opts);
  await p.goto(authed(origin));
  await p.waitForSelector("body[data-loaded='tools']");
  await p.waitForSelector("#reading .vitem:not(.placeholder) details.tool");
  return p;
}
const tool = (p, name) => p.locator(`#reading details.tool:has(.tool-name:text-is('${name}'))`);

test("each tool drawn for reading: $ cmd with its exit and first lines, a numbered highlighted read, a checklist, Markdown prompt and report, matches by file, MCP names, a patch as a diff; an unknown tool as JSON", async () => {
  const p = await openTools({ height: 4000 });
  // Shell: the description in the summary, the command once, exit status, 6 lines then "4 more lines".
  const bash = tool(p, "Bash");
  assert.equal(await bash.evaluate((d) => d.open), true, "a command is open");
  assert.match(await bash.locator(":scope > summary").textContent(), /Run the parser tests\s*exit 2/);
  assert.equal(await bash.locator(".shell-cmd").textContent(), "$npm test -- parser");
  assert.equal((await bash.textContent()).split("npm test -- parser").length, 2, "the command appears once");
  assert.equal(await bash.locator("pre.output").first().textContent(), Array.from({ length: 6 }, (_, i) => `out line ${i + 1}`).join("\n"));
  assert.equal(await bash.locator("details.more > summary").textContent(), "4 more lines");
  assert.doesNotMatch(await bash.textContent(), /Exit code 2|"command"/, "no wrapper, no JSON");
  // Read: numbered from the offset, highlighted by extension, without the arrows.
  const read = tool(p, "Read");
  await read.locator(":scope > summary").click();
  assert.equal(await read.locator("pre.gutter").textContent(), "7\n8\n9");
  assert.ok((await read.locator("code.language-typescript .hljs-keyword").count()) > 0, "highlighted as TypeScript");
  assert.doesNotMatch(await read.textContent(), /→/);
  // TodoWrite: a checklist.
  const todo = tool(p, "TodoWrite");
  assert.deepEqual(await todo.locator("ul.todos li").evaluateAll((li) => li.map((x) => `${x.className}:${x.textContent.trim()}`)), ["done:☑ Read the test", "doing:◐ Fix the zone", "todo:☐ Run the suite"]);
  assert.match(await todo.locator(":scope > summary").textContent(), /1 of 3 done/);
  // Task: prompt and report as Markdown.
  const task = tool(p, "Task");
  assert.equal(await task.locator(".md strong").first().textContent(), "flaky");
  assert.equal(await task.locator(".md li").count(), 2);
  assert.equal(await task.locator(".md h4").textContent(), "Findings"); // ## two levels under the entry
  assert.doesNotMatch(await task.textContent(), /##|\*\*/);
  // Grep: matches grouped by file.
  const grep = tool(p, "Grep");
  await grep.locator(":scope > summary").click();
  assert.deepEqual(await grep.locator(".match-file").evaluateAll((f) => f.map((x) => x.textContent)), ["src/a.ts 2", "src/b.ts 1"]);
  // MCP: server and tool.
  const mcp = tool(p, "mcp__supabase__execute_sql");
  assert.match(await mcp.locator(":scope > summary").textContent(), /supabase › execute_sql/);
  await mcp.locator(":scope > summary").click();
  assert.match(await mcp.textContent(), /MCP server supabase, tool execute_sql/);
  // apply_patch: the patch as a diff, the result unwrapped, the summary naming the file.
  const patch = tool(p, "apply_patch");
  assert.match(await patch.locator(":scope > summary").textContent(), /src\/x\.ts\s*exit 0/);
  assert.doesNotMatch(await patch.locator(":scope > summary").textContent(), /Begin Patch/);
  assert.equal(await patch.locator(".diff-body .add").count(), 1);
  assert.match(await patch.locator("pre.output").textContent(), /^Success\. Updated the following files:\nM src\/x\.ts$/);
  assert.doesNotMatch(await patch.textContent(), /\\n|"output"/);
  // An unknown tool: its input as JSON, as before.
  const other = tool(p, "frobnicate");
  await other.locator(":scope > summary").click();
  assert.match(await other.locator("code.language-json").textContent(), /"level": 11/);
  // A slash command is context, not a prompt; times say their zone.
  const context = p.locator("#reading .entry.context-entry");
  assert.match(await context.locator("header").textContent(), /^Context/);
  assert.equal(await context.locator(".context code").textContent(), "/clear");
  assert.match(await p.locator("#reading .entry time").first().textContent(), /^2026-11-29 09:00:00 UTC$/);
  await p.screenshot({ path: path.join(artifacts, "reader-tools.png"), fullPage: false });
  assert.deepEqual(p.errors, []);
});

test("search marks each match and opens its fold, says 3 of N, steps on Enter and Shift+Enter; / focuses it; ? shows the keys", async () => {
  const p = await openTools();
  await p.keyboard.press("/");
  assert.equal(await p.evaluate(() => document.activeElement.id), "search");
  await p.keyboard.type("parse");
  await p.keyboard.press("Enter"); // searched at once, without waiting for the pause
  await p.waitForFunction(() => /^1 of \d+$/.test(document.getElementById("hits").textContent));
  const total = Number((await p.textContent("#hits")).split(" of ")[1]);
  assert.ok(total >= 4, `hits: ${total}`);
  await p.waitForSelector("#reading mark.search-mark.current");
  // The match inside the (folded) Read call: its fold opened to show the mark.
  await p.keyboard.press("Enter");
  await p.keyboard.press("Enter");
  await p.waitForFunction(() => document.getElementById("hits").textContent.startsWith("3 of "));
  await p.keyboard.press("Shift+Enter");
  await p.waitForFunction(() => document.getElementById("hits").textContent.startsWith("2 of "));
  const marks = await p.$$eval("#reading mark.search-mark", (ms) => ms.map((m) => ({ text: m.textContent, hidden: !!m.closest("details:not([open])") })));
  assert.ok(marks.length > 0 && marks.every((m) => m.text.toLowerCase() === "parse"), JSON.stringify(marks));
  assert.ok(marks.every((m) => !m.hidden), "no mark inside a closed fold");
  // The current mark is on screen.
  const inView = await p.$eval("#reading mark.current", (m) => {
    const r = m.getBoundingClientRect();
    const box = document.getElementById("reading").getBoundingClientRect();
    return r.top >= box.top && r.bottom <= box.bottom;
  });
  assert.ok(inView, "the current match is scrolled into view");
  // A query cleared: no marks left.
  await p.fill("#search", "");
  await p.keyboard.press("Enter");
  await p.waitForFunction(() => document.querySelectorAll("#reading mark.search-mark").length === 0);
  // Keyboard help.
  await p.click("#reading");
  await p.keyboard.press("?");
  await p.waitForSelector("#help");
  assert.match(await p.textContent("#help"), /search the transcript.*next \/ previous hit/s);
  await p.keyboard.press("Escape");
  assert.equal(await p.$("#help"), null);
  assert.deepEqual(p.errors, []);
});

test("the index's search goes on inside the session it opens", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-reader-index-"));
  writeFileSync(path.join(dir, "tools.jsonl"), toolSession());
  copyFileSync(path.join(root, "web-demo/samples/viewer-sample.jsonl"), path.join(dir, "viewer-sample.jsonl"));
  const origin = await serveDir(dir);
  const p = await page();
  await p.goto(authed(origin));
  await p.waitForSelector("#index-table tbody tr[data-session='tools']");
  await p.fill("#index-search", "needle");
  await p.waitForFunction(() => /1 sessions contain/.test(document.getElementById("index-status").textContent));
  await p.click("#index-table tbody tr[data-session='tools']");
  await p.waitForSelector("body[data-loaded='tools']");
  assert.equal(await p.inputValue("#search"), "needle");
  await p.waitForFunction(() => document.getElementById("hits").textContent === "1 of 1");
  await p.waitForSelector("#reading mark.search-mark.current:text-is('needle')");
});

test("a phone (390 px): a viewport tag, the transcript the screen's width, sessions on demand; dark mode follows the system and the toggle", async () => {
  const p = await openTools({ width: 390, height: 800 });
  assert.equal(await p.getAttribute("meta[name=viewport]", "content"), "width=device-width, initial-scale=1");
  const width = await p.$eval("#reading .vitem", (v) => v.getBoundingClientRect().width);
  assert.ok(width >= 370, `an entry is ${width} px wide at 390`);
  assert.equal(await p.evaluate(() => document.documentElement.scrollWidth), 390, "nothing wider than the screen");
  assert.equal(await p.isVisible("nav#sessions"), false);
  await p.click("#toggle-sessions");
  assert.equal(await p.isVisible("nav#sessions"), true);
  await p.click("nav#sessions a");
  assert.equal(await p.isVisible("nav#sessions"), false, "choosing a session hides the list");
  await p.screenshot({ path: path.join(artifacts, "reader-390-light.png") });
  const bg = () => p.$eval("#reading", (r) => getComputedStyle(r).backgroundColor);
  assert.equal(await bg(), "rgb(246, 248, 250)");
  await p.emulateMedia({ colorScheme: "dark" });
  await p.waitForFunction(() => document.documentElement.classList.contains("dark"));
  assert.equal(await bg(), "rgb(1, 4, 9)", "dark as the system says");
  // The toggle: auto → dark → light, kept across a reload.
  await p.click("#theme");
  await p.click("#theme");
  assert.equal(await p.evaluate(() => document.documentElement.classList.contains("dark")), false, "light chosen over the system's dark");
  await p.reload();
  await p.waitForSelector("body[data-loaded='tools']");
  assert.equal(await p.evaluate(() => document.documentElement.classList.contains("dark")), false, "the choice is kept");
  assert.deepEqual(p.errors, []);
});

// Two real sessions (Claude Code, Codex) at 1280 and 390 px, light and dark.
for (const [name, file] of [
  ["session-196820da", "claude-code/codemie-code/session-196820da.jsonl"],
  ["rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799", "codex/codemie-code/rollout-2026-05-11T11-26-55-019e1625-789d-76c0-80ab-3724b5ddb799.jsonl"],
]) {
  test(`a real session (${file.split("/")[0]}) reads as context, tools and prose, at 1280 and 390 px, light and dark`, { skip: PEERS_SKIP }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "garuda-reader-peer-"));
    copyFileSync(path.join(peers, file), path.join(dir, path.basename(file)));
    const origin = await serveDir(dir);
    for (const colorScheme of ["light", "dark"]) {
      for (const width of [1280, 390]) {
        const p = await page({ width, height: 900, colorScheme });
        await p.goto(authed(origin, `session=${name}`));
        await p.waitForSelector(`body[data-loaded='${name}']`);
        await p.waitForSelector("#reading .vitem:not(.placeholder) .entry");
        // The first screen: the agent's boilerplate as context, not as the conversation.
        assert.ok((await p.$$("#reading .entry.context-entry")).length > 0, "context entries");
        assert.equal(await p.$$eval("#reading .md h1", (h) => h.length), 0, "no AGENTS.md headings on the first screen");
        // Scrolled to the tools: shell commands drawn as commands.
        await p.evaluate(() => {
          const e = window.viewer.entries.find((x) => (x.tools ?? []).some((t) => t.use && ["Bash", "exec_command"].includes(t.name)));
          window.viewer.reading.scrollToEntry(e.index);
        });
        await p.waitForSelector("#reading details.tool.view-shell .shell-cmd");
        await p.$eval("#reading details.tool.view-shell", (d) => d.scrollIntoView());
        await p.waitForTimeout(300);
        await p.screenshot({ path: path.join(artifacts, `reader-${file.split("/")[0]}-${width}-${colorScheme}.png`) });
        assert.equal(await p.evaluate(() => document.documentElement.scrollWidth), width, "nothing wider than the screen");
        assert.deepEqual(p.errors, []);
        await p.close();
        pages.splice(pages.indexOf(p), 1);
      }
    }
  });
}

// The entries' heights are guesses until drawn (from a preview of 160
// characters): here the last answers are far taller than guessed, so the
// guessed transcript ends less than a screen below the linked entry. A jump
// to the guessed offset is clamped to that end and leaves an earlier entry
// at the top (issue 25: "#…&e=17 lands on 22"); the landing measures first.
test("a deep link near the end of entries of very different heights lands on its entry, and the address keeps it", async () => {
  const lines = [{ type: "start", sessionId: "tall", model: "claude-sonnet-4-5", t: T }];
  const turns = 120;
  for (let i = 0; i < turns; i++) {
    lines.push({ type: "user", t: T, message: { role: "user", content: `Question ${i}` } });
    const rows = i >= turns - 3 ? 80 : (i % 9) * 8;
    const body = Array.from({ length: rows }, (_, k) => `- point ${k} of answer ${i}`).join("\n");
    lines.push({ type: "assistant", step: i + 1, t: T, costUsd: 0.001, response: { content: [{ type: "text", text: `Answer ${i}\n\n${body}` }], usage: { inputTokens: 10, outputTokens: 5 } } });
  }
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-reader-tall-"));
  writeFileSync(path.join(dir, "tall.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
  const origin = await serveDir(dir);
  const p = await page({ width: 1280, height: 800 });
  const target = 2 + 2 * (turns - 2); // the last answer but one: one question and one answer after it
  await p.goto(authed(origin, `session=tall&e=${target}`));
  await p.waitForSelector("body[data-loaded='tall']");
  // As guessed, what follows the entry is shorter than the screen: a jump to its guess could not put it at the top.
  const guessed = await p.evaluate((t) => {
    const r = window.viewer.reading;
    const e = window.viewer.entries;
    const after = r.items.slice(r.items.indexOf(t)).reduce((s, i) => s + 48 + (Math.ceil((e[i].preview?.length ?? 0) / 90) + 1) * 22, 0);
    return { after, screen: document.getElementById("reading").clientHeight };
  }, target);
  assert.ok(guessed.after < guessed.screen, `the guess after the entry (${guessed.after} px) is under a screen (${guessed.screen} px)`);
  await p.waitForTimeout(2000); // heights measured, the landing over
  const drawn = await p.$$eval("#reading .vitem:not(.placeholder)", (v) => v.map((x) => Number(x.dataset.index)));
  assert.ok(drawn.includes(target), `the linked entry ${target} is drawn (on screen: ${drawn.join(", ")})`);
  const top = await p.$eval(`#reading .vitem[data-index='${target}']`, (n) => n.getBoundingClientRect().top - document.getElementById("reading").getBoundingClientRect().top);
  assert.ok(Math.abs(top) < 12, `the linked entry is at the top (${top} px)`);
  assert.match(await p.textContent(`#reading .vitem[data-index='${target}']`), new RegExp(`Answer ${turns - 2}`));
  assert.match(await p.evaluate(() => location.hash), new RegExp(`e=${target}(&|$)`), "the address still names the entry");
  // The reader scrolls: the address follows.
  await p.mouse.move(600, 500);
  await p.mouse.wheel(0, -2500);
  await p.waitForFunction((t) => /e=\d+/.test(location.hash) && !location.hash.includes(`e=${t}`), target);
  assert.deepEqual(p.errors, []);
});

// ---- Find and copy over the whole transcript (the list is virtual) -----------------

/** A Garuda journal of `turns` turns of varied height, one word only in the last answer but one. */
function manyTurns(turns, id) {
  const lines = [{ type: "start", sessionId: id, model: "claude-sonnet-4-5", t: T }];
  for (let i = 0; i < turns; i++) {
    lines.push({ type: "user", t: T, message: { role: "user", content: `Question ${i}` } });
    const body = Array.from({ length: 1 + ((i * 37) % 40) }, (_, k) => `- point ${k} of answer ${i}`).join("\n");
    const word = i === turns - 2 ? " The **zebrafish** is here." : "";
    lines.push({ type: "assistant", step: i + 1, t: T, costUsd: 0.001, response: { content: [{ type: "text", text: `Answer ${i}.${word}\n\n${body}` }, ...(i % 10 === 3 ? [{ type: "tool_use", id: `t${i}`, name: "Bash", input: { command: `echo ${i}` } }] : [])], usage: { inputTokens: 10, outputTokens: 5 } } });
    if (i % 10 === 3) lines.push({ type: "tool_results", t: T, message: { role: "user", content: [{ type: "tool_result", tool_use_id: `t${i}`, content: String(i) }] }, calls: [{ toolUseId: `t${i}`, name: "Bash", durationMs: 1 }] });
  }
  return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
}

test("Ctrl+F and Cmd+F open the viewer's search, which finds an entry the virtual list has not drawn", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-reader-find-"));
  // Big enough that the page takes its entries unparsed (viewer-entries.js):
  // the hit's line is placed among pieces not read yet.
  writeFileSync(path.join(dir, "many.jsonl"), manyTurns(1200, "many"));
  const origin = await serveDir(dir);
  const p = await page();
  await p.goto(authed(origin));
  await p.waitForSelector("body[data-loaded='many']");
  await p.waitForSelector("#reading .vitem:not(.placeholder)");
  assert.ok(await p.evaluate(() => window.viewer.lazy !== null && !window.viewer.lazy.complete), "the entries are taken a piece at a time");
  assert.equal(await p.$$eval("#reading .vitem", (v) => v.some((x) => x.textContent.includes("zebrafish"))), false, "the word's entry is not drawn");
  // The page's own key handler comes first: a listener added after it sees the browser's find refused.
  await p.evaluate(() => document.addEventListener("keydown", (e) => (window.__findRefused = e.defaultPrevented)));
  await p.click("#reading");
  await p.keyboard.press("Control+f");
  assert.equal(await p.evaluate(() => document.activeElement.id), "search");
  assert.equal(await p.evaluate(() => window.__findRefused), true, "the browser's find bar is not opened");
  await p.keyboard.type("zebrafish");
  await p.keyboard.press("Enter");
  await p.waitForFunction(() => document.getElementById("hits").textContent === "1 of 1");
  await p.waitForSelector("#reading mark.search-mark.current:text-is('zebrafish')");
  // Cmd+F from the reading pane too (macOS), in the search box already or not.
  await p.click("#reading");
  await p.evaluate(() => (window.__findRefused = null));
  await p.keyboard.press("Meta+f");
  assert.equal(await p.evaluate(() => document.activeElement.id), "search");
  assert.equal(await p.evaluate(() => window.__findRefused), true);
  assert.deepEqual(p.errors, []);
});

test("Copy transcript copies the whole transcript as the Markdown export writes it, not only the drawn entries", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-reader-copy-"));
  const file = path.join(dir, "many.jsonl");
  // A token in a prompt: the copy leaves the page, so it is redacted, as export's default is.
  const token = `ghp_${"a1B2c3D4e5".repeat(3)}abcdef`;
  writeFileSync(file, manyTurns(300, "copy") + JSON.stringify({ type: "user", t: "2026-11-29T11:00:00.000Z", message: { role: "user", content: `my token is ${token}` } }) + "\n");
  const origin = await serveDir(dir);
  const p = await browser.newPage({ viewport: { width: 1280, height: 900 }, permissions: ["clipboard-read", "clipboard-write"] });
  pages.push(p);
  p.errors = [];
  p.on("pageerror", (e) => p.errors.push(String(e)));
  await p.goto(authed(origin));
  await p.waitForSelector("body[data-loaded='many']");
  await p.click("#copy-transcript");
  await p.waitForSelector("body[data-copied]");
  const copied = await p.evaluate(() => navigator.clipboard.readText());
  // The CLI's redactor also takes its environment's secret values; with none, both know the same.
  const exported = spawnSync(process.execPath, [path.join(root, "pkg/bin/garuda-session.cjs"), "export", file, "--format", "md"], { encoding: "utf8", maxBuffer: 1 << 26, env: { PATH: process.env.PATH } });
  assert.equal(exported.status, 0, exported.stderr);
  assert.ok(copied.includes("Answer 0.") && copied.includes("Answer 299.") && copied.includes("$ echo 293"), "every entry, the first and the last, tools included");
  assert.equal(copied, exported.stdout, "the same text export writes");
  assert.ok(!copied.includes(token) && copied.includes("my token is [REDACTED"), "the token is redacted in the copy");
  assert.match(await p.textContent("#status"), /Copied the transcript: [\d,]+ entries.*secrets redacted/);
  assert.deepEqual(p.errors, []);
});

// ---- Runs inside a Claude Code main file (inline sidechains) ---------------------------

test("a run inside a Claude Code file is a child run in the sidebar (served and picked) and nests under its Task call", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-reader-inline-"));
  copyFileSync(path.join(root, "tests/formats/claude-code-chain.jsonl"), path.join(dir, "chain.jsonl"));
  const origin = await serveDir(dir);
  const p = await page();
  await p.goto(authed(origin));
  await p.waitForSelector("body[data-loaded='chain']");
  const nav = () => p.$$eval("#sessions a", (a) => a.map((x) => x.textContent));
  assert.deepEqual(await nav(), ["chain", "↳ sidechain-toolu_task"]);
  // Under its call in the reading mode.
  await p.evaluate(() => {
    const e = window.viewer.entries.find((x) => (x.tools ?? []).some((t) => t.child === "sidechain-toolu_task"));
    window.viewer.reading.scrollToEntry(e.index);
  });
  const task = p.locator("#reading details.tool:has(a.child-show)");
  await task.evaluate((d) => (d.open = true));
  await task.locator("a.child-show").click();
  await p.waitForSelector("#reading .nested .entry");
  assert.match(await p.textContent("#reading .nested .nested-head"), /Subagent run sidechain-toolu_task: \d+ entries/);
  // Opened from the sidebar: the run alone, read from the same file.
  await p.click("#sessions a:text-is('↳ sidechain-toolu_task')");
  await p.waitForSelector("body[data-loaded='sidechain-toolu_task']");
  assert.match(await p.textContent("#summary"), /1 prompts?/);
  // A file picked from the disk (no index): the sidebar learns the run from the core's entries.
  const q = await page();
  await q.goto(authed(origin, "").replace(/\/#/, "/viewer/#"));
  await q.setInputFiles("#pick-files", path.join(dir, "chain.jsonl"));
  await q.waitForSelector("body[data-loaded='chain']");
  await q.waitForFunction(() => [...document.querySelectorAll("#sessions a")].some((a) => a.textContent === "↳ sidechain-toolu_task"));
  await q.click("#sessions a:text-is('↳ sidechain-toolu_task')");
  await q.waitForSelector("body[data-loaded='sidechain-toolu_task']");
  assert.deepEqual([...p.errors, ...q.errors], []);
});

test("sessions with one file name in two folders are two sessions, each with its own deep link; a folder name with a space opens", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-reader-names-"));
  const session = (prompt, t) => [{ type: "start", t, sessionId: "small", model: "claude-sonnet-4-5" }, { type: "user", t, message: { role: "user", content: prompt } }].map((r) => JSON.stringify(r) + "\n").join("");
  for (const [folder, prompt, t] of [["codex", "prompt of the newer one", "2026-11-29T10:00:00.000Z"], ["pi", "prompt of the older one", "2026-11-29T09:00:00.000Z"], ["My Project", "prompt under a space", "2026-11-29T08:00:00.000Z"]]) {
    mkdirSync(path.join(dir, folder), { recursive: true });
    writeFileSync(path.join(dir, folder, folder === "My Project" ? "spaced.jsonl" : "small.jsonl"), session(prompt, t));
  }
  const origin = await serveDir(dir);
  const p = await page();
  await p.goto(authed(origin));
  await p.waitForSelector("#index-table tbody tr[data-session='spaced']");
  const names = await p.$$eval("#index-table tbody tr[data-session]", (rows) => rows.map((r) => r.dataset.session));
  assert.deepEqual(names.sort(), ["pi/small", "small", "spaced"]);
  for (const [name, prompt] of [["small", "prompt of the newer one"], ["pi/small", "prompt of the older one"], ["spaced", "prompt under a space"]]) {
    const q = await page();
    const refused = [];
    q.on("response", (r) => r.status() >= 400 && refused.push(`${r.status()} ${r.url()}`));
    await q.goto(authed(origin, `session=${encodeURIComponent(name)}`));
    await q.waitForSelector(`body[data-loaded='${name}']`);
    await q.waitForSelector(`#reading :text("${prompt}")`);
    assert.deepEqual(q.errors, []);
    assert.deepEqual(refused, [], "no request of the page refused");
  }
});

test("child runs of one name under two sessions: each opens its own, by deep link, sidebar and Task call", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-reader-runs-"));
  const t = "2026-11-29T10:00:00.000Z";
  const lines = (records) => records.map((r) => JSON.stringify(r) + "\n").join("");
  for (const s of ["alpha", "beta"]) {
    const id = `toolu_${s}`;
    writeFileSync(path.join(dir, `${s}.jsonl`), lines([
      { type: "start", t, sessionId: s, model: "claude-sonnet-4-5" },
      { type: "user", t, message: { role: "user", content: `prompt of ${s}` } },
      { type: "assistant", step: 1, t, response: { content: [{ type: "tool_use", id, name: "Task", input: { description: "look", prompt: "look" } }], usage: { inputTokens: 1, outputTokens: 1 } } },
      { type: "tool_results", t, message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "done" }] }, calls: [{ toolUseId: id, name: "Task", durationMs: 1, report: { childSessionId: "agent-same", usage: { inputTokens: 1, outputTokens: 1 } } }] },
    ]));
    mkdirSync(path.join(dir, s));
    writeFileSync(path.join(dir, s, "agent-same.jsonl"), lines([
      { type: "start", t, sessionId: "agent-same", model: "claude-sonnet-4-5" },
      { type: "user", t, message: { role: "user", content: `the run under ${s}` } },
    ]));
  }
  const origin = await serveDir(dir);
  // The first listed keeps the run's own name; the other's is qualified by its session.
  const first = await page();
  await first.goto(authed(origin));
  await first.waitForSelector("#sessions a:text-matches('/agent-same$')");
  const runs = await first.$$eval("#sessions a.child", (a) => a.map((x) => x.textContent.replace("↳ ", "")));
  assert.equal(runs.length, 2);
  const qualified = runs.find((r) => r.includes("/"));
  assert.ok(runs.includes("agent-same") && /^(alpha|beta)\/agent-same$/.test(qualified), runs.join());
  const owner = qualified.split("/")[0];
  const other = owner === "alpha" ? "beta" : "alpha";
  for (const [name, prompt] of [["agent-same", `the run under ${other}`], [qualified, `the run under ${owner}`]]) {
    const q = await page();
    await q.goto(authed(origin, `session=${encodeURIComponent(name)}`));
    await q.waitForSelector(`body[data-loaded='${name}']`);
    await q.waitForSelector(`#reading :text("${prompt}")`);
    assert.equal(await q.$$eval("#sessions a.active", (a) => a.length), 1, "one run marked open in the sidebar");
    assert.deepEqual(q.errors, []);
  }
  // From the Task call of the session whose run is qualified: its own run, not the other's.
  const p = await page();
  await p.goto(authed(origin, `session=${owner}`));
  await p.waitForSelector(`body[data-loaded='${owner}']`);
  const task = p.locator("#reading details.tool:has(a.child-show)");
  await task.evaluate((d) => (d.open = true));
  await task.locator("a.child-show").click();
  await p.waitForSelector("#reading .nested .entry");
  assert.match(await p.textContent("#reading .nested"), new RegExp(`the run under ${owner}`));
  assert.deepEqual([...p.errors, ...first.errors], []);
});

test("the sessions index counts a Claude Code session's subagent files in its cost and tokens, as list does", async () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-reader-index-runs-"));
  const line = (session, n, role, t) => JSON.stringify({ parentUuid: null, sessionId: session, type: role, uuid: `${session}-${n}`, timestamp: t, ...(role === "assistant" ? { requestId: `req_${session}_${n}` } : {}), message: role === "user" ? { role, content: `prompt of ${session}` } : { id: `msg_${session}_${n}`, role, model: "claude-sonnet-4-5-20250929", content: [{ type: "text", text: "ok" }], usage: { input_tokens: 1000, output_tokens: 1000 } } }) + "\n";
  for (const s of ["one", "two"]) writeFileSync(path.join(dir, `${s}.jsonl`), line(s, 1, "user", "2026-01-05T09:00:00.000Z") + line(s, 2, "assistant", "2026-01-05T09:01:00.000Z"));
  mkdirSync(path.join(dir, "two", "subagents"), { recursive: true });
  writeFileSync(path.join(dir, "two", "subagents", "agent-a1.jsonl"), line("two", 3, "assistant", "2026-01-05T09:02:00.000Z"));
  const listed = JSON.parse(spawnSync(process.execPath, [path.join(root, "pkg/bin/garuda-session.cjs"), "list", dir, "--json"], { encoding: "utf8" }).stdout);
  const origin = await serveDir(dir);
  const p = await page();
  await p.goto(authed(origin));
  await p.waitForFunction(() => ["one", "two"].every((n) => window.viewer.rows.get(n) && !window.viewer.rows.get(n).pending));
  const rows = await p.evaluate(() => Object.fromEntries([...window.viewer.rows].map(([k, r]) => [k, { cost: r.cost, costUsd: r.costUsd, tokens: r.tokens }])));
  assert.equal(rows.two.tokens, 2 * rows.one.tokens, "the run's tokens counted");
  assert.ok(Math.abs(rows.two.costUsd - 2 * rows.one.costUsd) < 1e-9);
  for (const l of listed) assert.equal(rows[l.id].cost, l.cost, `${l.id}: the index and list agree`);
  assert.deepEqual(p.errors, []);
});
