// The README's screenshots of the viewer, taken in headless Chromium
// (playwright-core, Debian's chromium) from a session this script writes
// itself: no peer's or user's transcript is ever in the repository.
// Light and dark, at 1280 px (desktop) and 390 px (a phone):
//   web-demo/screenshots/reader-{1280,390}-{light,dark}.png
// Run after .ci/build:  node web-demo/screenshots/take.mjs [out folder]
// Or shoot given journals (a peer's, a user's) instead of ours:
//   node web-demo/screenshots/take.mjs --out tests/artifacts/screenshots a.jsonl ...
// gives <stem>-{1280,390}-{light,dark}[-tools].png per file: from its first
// prompt, and from its first tool call. Point --out at tests/artifacts/ (git-
// ignored): a peer's content must never be committed.
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync, mkdirSync, copyFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

/** `[out]` (our session) or `--out dir file...` (given journals); the latter needs both. */
export function parseArgs(argv) {
  const i = argv.indexOf("--out");
  if (i < 0) return { out: path.resolve(argv[0] ?? path.join(root, "web-demo/screenshots")), files: [] };
  const files = argv.filter((_, j) => j !== i && j !== i + 1);
  if (!argv[i + 1] || files.length === 0) throw new Error("usage: take.mjs --out <dir> <file.jsonl> ...");
  return { out: path.resolve(argv[i + 1]), files: files.map((f) => path.resolve(f)) };
}

/** A short session of our own that shows what a reader sees most: prose, a command, a read, an edit, a checklist, a subagent. */
export function screenshotSession() {
  let t = Date.parse("2026-11-28T09:14:00.000Z");
  const at = () => new Date((t += 7000)).toISOString();
  const lines = [{ type: "start", sessionId: "fix-time-zone", model: "claude-sonnet-4-5", t: at() }];
  lines.push({ type: "title", title: "Fix the parser's time zone bug", t: at() });
  lines.push({ type: "user", t: at(), message: { role: "user", content: "The parser test fails on machines east of UTC. Find out why and fix it." } });
  let step = 0;
  const call = (text, name, input, result, thinking) => {
    const id = `toolu_${String(++step).padStart(2, "0")}`;
    const content = [];
    if (thinking) content.push({ type: "thinking", thinking, signature: `sig-${step}` });
    if (text) content.push({ type: "text", text });
    content.push({ type: "tool_use", id, name, input });
    lines.push({ type: "assistant", step, t: at(), costUsd: 0.0042 * step, response: { content, usage: { inputTokens: 1200 + 900 * step, outputTokens: 80 + 30 * step, cacheReadTokens: 800 * step } } });
    lines.push({ type: "tool_results", t: at(), message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: result }] }, calls: [{ toolUseId: id, name, durationMs: 40 * step }] });
  };
  call("I'll run the failing test first.", "Bash", { command: "npm test -- parser", description: "Run the parser tests" },
    ["FAIL src/parser.test.ts", "  ✕ parses a date without a zone (4 ms)", "", "  Expected: 2026-03-29T01:30:00.000Z", "  Received: 2026-03-29T00:30:00.000Z", "", "Tests: 1 failed, 11 passed, 12 total"].join("\n"),
    "The expected time is an hour off: a local time read as UTC, or the other way round. Read the parser.");
  call(null, "Read", { file_path: "src/parser.ts" }, ["     1→export function parseDate(s: string): Date {", "     2→  // No zone in the text: the machine's zone is used.", "     3→  return new Date(s);", "     4→}"].join("\n"));
  call("`new Date(s)` reads a date without a zone in the machine's zone. The file format says times are UTC, so the fix is to say so:", "Edit",
    { file_path: "src/parser.ts", old_string: "  // No zone in the text: the machine's zone is used.\n  return new Date(s);", new_string: "  // The format's times are UTC (spec §2): say so when the text does not.\n  return new Date(/[zZ]|[+-]\\d\\d:\\d\\d$/.test(s) ? s : `${s}Z`);" },
    "The file src/parser.ts has been updated.");
  call(null, "TodoWrite", { todos: [{ content: "Find why the test fails east of UTC", status: "completed", activeForm: "Finding" }, { content: "Read dates without a zone as UTC", status: "completed", activeForm: "Fixing" }, { content: "Run the whole suite in another zone", status: "in_progress", activeForm: "Running" }] }, "Todos have been modified successfully.");
  call(null, "Task", { description: "check other date parsing", subagent_type: "Explore", prompt: "Find other places that build a **Date** from text without a zone.\n\n- src/\n- scripts/" }, "## Findings\n\nOne more: `scripts/report.ts` line 12 reads `new Date(row.day)`. It only formats days, so **no change is needed**.");
  call(null, "Bash", { command: "TZ=Asia/Tokyo npm test", description: "Run the suite in Tokyo's zone" }, "Tests: 12 passed, 12 total");
  lines.push({ type: "assistant", step: ++step, t: at(), costUsd: 0.031, response: { content: [{ type: "text", text: "Fixed. The parser read a date without a zone in the machine's zone; the format's times are UTC.\n\n| | before | after |\n|---|---|---|\n| `TZ=UTC` | pass | pass |\n| `TZ=Asia/Tokyo` | **fail** | pass |\n\n```ts\nparseDate(\"2026-03-29T01:30:00\") // 2026-03-29T01:30:00.000Z everywhere\n```" }], usage: { inputTokens: 7400, outputTokens: 210, cacheReadTokens: 5600 } } });
  return lines.map((l) => JSON.stringify(l)).join("\n") + "\n";
}

async function main() {
  const { out, files } = parseArgs(process.argv.slice(2));
  const ciRequire = createRequire(path.join(root, ".ci/package.json"));
  const { chromium } = ciRequire("playwright-core");
  mkdirSync(out, { recursive: true });
  const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--font-render-hinting=none"] });
  try {
    if (files.length === 0) {
      const dir = mkdtempSync(path.join(tmpdir(), "garuda-screenshots-"));
      writeFileSync(path.join(dir, "fix-time-zone.jsonl"), screenshotSession());
      await shoot(browser, dir, "fix-time-zone", out, "reader", false);
    }
    for (const file of files) {
      // One file per served folder (a copy in the temp dir: serve does not follow links), so the viewer opens it and nothing else.
      const stem = path.basename(file).replace(/\.jsonl$/, "");
      const dir = mkdtempSync(path.join(tmpdir(), "garuda-screenshots-"));
      copyFileSync(file, path.join(dir, `${stem}.jsonl`));
      await shoot(browser, dir, stem, out, stem, true);
    }
  } finally {
    await browser.close();
  }
}

/** Serve `dir`, open session `id`, and write `<prefix>-<width>-<scheme>.png` (and `-tools` from its first tool call when asked). */
async function shoot(browser, dir, id, out, prefix, tools) {
  const server = spawn(process.execPath, [path.join(root, "pkg/bin/garuda-session.cjs"), "serve", dir], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const printed = String(await new Promise((resolve) => server.stdout.once("data", resolve)));
    const url = /http:\/\/127\.0\.0\.1:\d+\/\S*#token=[\w-]+/.exec(printed)[0];
    for (const [width, height] of [[1280, 760], [390, 760]]) {
      for (const colorScheme of ["light", "dark"]) {
        const page = await browser.newPage({ viewport: { width, height }, colorScheme });
        await page.goto(url);
        await page.waitForSelector(`body[data-loaded='${id}']`);
        if (!tools) await page.waitForSelector("#reading .vitem:not(.placeholder) details.tool.view-shell");
        // From the prompt on: the question, then the tools as drawn.
        await page.evaluate(() => {
          const e = window.viewer.entries.find((x) => x.type === "user");
          if (e) window.viewer.reading.scrollToEntry(e.index, false);
        });
        await page.waitForTimeout(600);
        const file = path.join(out, `${prefix}-${width}-${colorScheme}.png`);
        await page.screenshot({ path: file });
        console.log(`wrote ${path.relative(process.cwd(), file)}`);
        if (tools) {
          const found = await page.evaluate(() => {
            const e = window.viewer.entries.find((x) => x.type === "assistant" && JSON.stringify(x).includes('"tool_use"'));
            if (!e) return false;
            window.viewer.reading.scrollToEntry(e.index, false);
            return true;
          });
          if (found) {
            await page.waitForTimeout(600);
            const more = path.join(out, `${prefix}-${width}-${colorScheme}-tools.png`);
            await page.screenshot({ path: more });
            console.log(`wrote ${path.relative(process.cwd(), more)}`);
          }
        }
        await page.close();
      }
    }
  } finally {
    server.kill();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
