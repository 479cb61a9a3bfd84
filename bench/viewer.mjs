// The viewer in headless Chromium (issue 13), on the 100 MB and 1 GB
// journals: time to the first screen and to the whole transcript indexed,
// the tab's peak memory against the file's size, frame times while
// scrolling the reading mode, and `export --format html` of the 100 MB
// journal (time and size).
//
//   node bench/viewer.mjs            (after .ci/build; SIZES=100,1000 by default)
//   SIZES=1000 node bench/viewer.mjs (issue 29's goal: 1 GB indexed <= 5 s, tab <= 1.5x the file)
//   RUNS=5 (the default): each size opened that many times, a fresh tab each;
//   every run is printed, then the median [min-max] of each goal's figure.
//   BENCH_PKG=/path/to/pkg serves another build (before/after in one sitting).

import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { journalFile } from "./data.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const ciRequire = createRequire(path.join(root, ".ci/package.json"));
const sizes = (process.env.SIZES ?? "100,1000").split(",").map(Number);
const cli = path.join(process.env.BENCH_PKG ? path.resolve(process.env.BENCH_PKG) : path.join(root, "pkg"), "bin/garuda-session.cjs");
const runs = Number(process.env.RUNS ?? 5);

/**
 * RSS in bytes of this browser's renderer processes (the tab, its workers
 * included): descendants of this script's process (the Chromium it
 * launched), so other browsers on a shared machine are not counted.
 * Which processes those are is looked up again each second, not at each
 * sample: walking every process in /proc 20 times a second took this
 * script's own CPU, on the 2 cores the tab being measured needs.
 */
let renderers = { at: -Infinity, pids: [] };
function rendererPids() {
  if (performance.now() - renderers.at < 1000) return renderers.pids;
  const parent = new Map();
  const pids = fs.readdirSync("/proc").filter((p) => /^\d+$/.test(p));
  for (const pid of pids) {
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid …", comm may hold spaces.
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      parent.set(Number(pid), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {}
  }
  const ours = (pid) => {
    for (let p = pid, n = 0; p > 1 && n < 64; p = parent.get(p) ?? 0, n++) if (p === process.pid) return true;
    return false;
  };
  const found = [];
  for (const pid of pids) {
    try {
      if (ours(Number(pid)) && fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("--type=renderer")) found.push(pid);
    } catch {}
  }
  renderers = { at: performance.now(), pids: found };
  return found;
}
function rendererRss() {
  let total = 0;
  for (const pid of rendererPids()) {
    try {
      const rss = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"));
      if (rss) total += Number(rss[1]) * 1024;
    } catch {}
  }
  return total;
}

// serve never follows a symlink: each journal is hard-linked into the
// served folder (copied when bench/data is on another file system).
const dir = fs.mkdtempSync(path.join(os.tmpdir(), "garuda-bench-viewer-"));
for (const mb of sizes) {
  try {
    fs.linkSync(journalFile(mb), path.join(dir, `j${mb}.jsonl`));
  } catch {
    fs.copyFileSync(journalFile(mb), path.join(dir, `j${mb}.jsonl`));
  }
}
const server = spawn(process.execPath, [cli, "serve", dir], { stdio: ["ignore", "pipe", "inherit"] });
const printed = await new Promise((resolve) => server.stdout.once("data", (d) => resolve(String(d))));
// serve prints its token in the URL's fragment (sent as a header by the page, never in a request's URL).
const url = new URL(/http:\/\/127\.0\.0\.1:\d+\/\S*#token=[\w-]+/.exec(printed)[0]);
const token = new URLSearchParams(url.hash.slice(1)).get("token");
const { chromium } = ciRequire("playwright-core");
const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu", "--js-flags=--max-old-space-size=8192"] });

const rows = [];
for (let run = 0; run < runs; run++) for (const mb of sizes) {
  const file = journalFile(mb);
  const bytes = fs.statSync(file).size;
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  let crashed = false;
  page.on("crash", () => (crashed = true));
  // The viewer with the token in its fragment keeps it for this tab
  // (sessionStorage) and opens nothing (the folder's index would read
  // every session in the background).
  await page.goto(`${url.origin}/viewer/#token=${token}`);
  renderers.at = -Infinity; // a new tab: its renderer found again
  const base = rendererRss();
  let peak = base;
  const sampler = setInterval(() => (peak = Math.max(peak, rendererRss())), 50);
  const t0 = Date.now();
  await page.goto(`${url.origin}/viewer/?file=/files/j${mb}.jsonl`);
  await page.waitForSelector("#reading .vitem", { timeout: 600000 });
  const firstScreen = Date.now() - t0;
  await page.waitForSelector("body[data-loaded]", { timeout: 600000 }).catch(() => {});
  const indexed = Date.now() - t0;
  clearInterval(sampler);
  peak = Math.max(peak, rendererRss());
  const info = crashed ? {} : await page.evaluate(() => ({ entries: window.viewer.entries.length, marks: window.viewer.marks, spent: window.viewer.spent, pageHeap: performance.memory?.usedJSHeapSize ?? null }));
  let frames = null;
  if (!crashed) {
    frames = await page.evaluate(async () => {
      const box = document.getElementById("reading");
      const times = [];
      let last = performance.now();
      for (let i = 0; i < 300; i++) {
        box.scrollTop += 600;
        await new Promise((r) => requestAnimationFrame(r));
        const now = performance.now();
        times.push(now - last);
        last = now;
      }
      times.sort((a, b) => a - b);
      return { p50: times[150], p95: times[285] };
    });
  }
  const after = rendererRss();
  rows.push({ mb, bytes, crashed, firstScreen, indexed, entries: info.entries, peak: Math.max(peak, after), base, frames, marks: info.marks, spent: info.spent, pageHeap: info.pageHeap, after });
  await page.close();
}
await browser.close();
server.kill();

const f = (ms) => `${(ms / 1000).toFixed(2)} s`;
for (const r of rows) {
  const phase = (a, b) => (r.marks?.[a] && r.marks?.[b] ? Math.round(r.marks[b] - r.marks[a]) : "-");
  console.log(
    `viewer, ${r.mb} MB journal (${r.entries ?? "?"} entries)${r.crashed ? ": THE TAB CRASHED" : ""}: first screen ${f(r.firstScreen)}, fully indexed ${f(r.indexed)} ` +
      `(in the page: first screen ${phase("start", "firstShown")} ms, read and replay ${phase("start", "read")} ms` +
        (r.spent ? ` [the worker's core: feed ${Math.round(r.spent.feed)} ms, entries ${Math.round(r.spent.entries)} ms, drafts ${Math.round(r.spent.draft)} ms]` : "") +
        `, settling ${phase("read", "indexed")} ms, hand-over ${phase("indexed", "received")} ms, drawn ${phase("received", "rendered")} ms); ` +
      `tab memory peak ${(r.peak / 2 ** 20).toFixed(0)} MiB (${(r.peak / r.bytes).toFixed(2)}x the file; ${(r.base / 2 ** 20).toFixed(0)} MiB before opening it, ${(r.after / 2 ** 20).toFixed(0)} MiB once loaded, of which the page's JS heap ${r.pageHeap ? (r.pageHeap / 2 ** 20).toFixed(0) : "?"} MiB); ` +
      `scrolling 600 px a frame: p50 ${r.frames?.p50.toFixed(1)} ms, p95 ${r.frames?.p95.toFixed(1)} ms`,
  );
}

// Each goal's figure over the runs.
const mid = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const mb of sizes) {
  const of = rows.filter((r) => r.mb === mb && !r.crashed);
  if (of.length === 0) continue;
  const sum = (xs, show) => `${show(mid(xs))} [${show(Math.min(...xs))}-${show(Math.max(...xs))}]`;
  console.log(
    `viewer, ${mb} MB journal, ${of.length} of ${runs} runs (median [min-max]): first screen ${sum(of.map((r) => r.firstScreen), f)}, ` +
      `fully indexed ${sum(of.map((r) => r.indexed), f)}, tab peak ${sum(of.map((r) => r.peak / r.bytes), (x) => `${x.toFixed(2)}x`)} the file`,
  );
}

// Export of the 100 MB journal to one HTML file.
if (sizes.includes(100)) {
  const out = path.join(dir, "j100.html");
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [cli, "export", journalFile(100), "--format", "html", "-o", out], { encoding: "utf8" });
  const ms = Date.now() - t0;
  if (r.status !== 0) console.log(`export failed: ${r.stderr}`);
  else console.log(`export --format html of the 100 MB journal: ${f(ms)}, ${(fs.statSync(out).size / 1e6).toFixed(1)} MB of HTML`);
}
fs.rmSync(dir, { recursive: true, force: true });
