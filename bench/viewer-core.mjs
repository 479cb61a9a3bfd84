// The viewer's core alone, in a headless Chromium worker: the calls the
// viewer's worker makes (worker.js with worker-send.js's Sender) on a
// journal already in the worker's memory, with no server streaming it, no
// reader thread and no page drawing it. bench/viewer.mjs times the whole
// viewer; this times the part that is the core's, so the two together say
// how much of "fully indexed" is the core and how much is the rest of the
// machine (on 2 cores, the server, the browser's network service and the
// reader run beside the worker and slow it).
//
//   node bench/viewer-core.mjs               (after .ci/build; SIZES=1000 RUNS=5 by default)
//   BENCH_PKG=/tmp/old-pkg,pkg node bench/viewer-core.mjs   (builds alternating, one sitting)
//   BUSY=1: a busy loop in another process the whole time (one core taken,
//   as the server and the browser take one while the viewer reads).

import { spawn } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { journalFile } from "./data.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const ciRequire = createRequire(path.join(root, ".ci/package.json"));
const sizes = (process.env.SIZES ?? "1000").split(",").map(Number);
const runs = Number(process.env.RUNS ?? 5);
const pkgs = (process.env.BENCH_PKG ?? "pkg").split(",").map((p) => path.resolve(root, p));

// The worker: reads the journal into memory first (not timed), then feeds
// it in the reader's chunks (256 KB, then 4 MB) as worker.js's `take` does.
const WORKER = `
import { Journal } from "../web/index.js";
import { Sender } from "../viewer/worker-send.js";
self.onmessage = async ({ data }) => {
  try {
    const buf = new Uint8Array(await (await fetch(data.url)).arrayBuffer());
    const journal = new Journal({ history: true, lean: true, keepRuns: true });
    const sender = new Sender(() => {}, 1, journal);
    const spent = { feed: 0, entries: 0, draft: 0 };
    const t00 = performance.now();
    for (let at = 0, size = 256 << 10; at < buf.length; at += size, size = 4 << 20) {
      const t0 = performance.now();
      journal.feed(buf.subarray(at, Math.min(buf.length, at + size)));
      const t1 = performance.now();
      const length = journal.transcriptLength;
      const t2 = performance.now();
      sender.draft(length);
      spent.feed += t1 - t0;
      spent.entries += t2 - t1;
      spent.draft += performance.now() - t2;
    }
    const t3 = performance.now();
    journal.finish();
    sender.patch(journal.transcriptLength);
    const t4 = performance.now();
    const count = journal.transcriptLength;
    journal.free();
    self.postMessage({ ...spent, settle: t4 - t3, total: t4 - t00, count });
  } catch (e) {
    self.postMessage({ error: String(e && e.stack || e) });
  }
};
self.postMessage("ready");
`;
const PAGE = `<!doctype html><script type="module">
const w = new Worker("worker.js", { type: "module" });
w.onmessage = ({ data }) => { if (data === "ready") w.postMessage({ url: new URLSearchParams(location.search).get("data") }); else window.result = data; };
</script>`;

// /p<k>/bench/ is the page and its worker; /p<k>/web/ and /p<k>/viewer/ are
// that package's files; /data/<mb> is a journal.
const server = http.createServer((req, res) => {
  const url = new URL(req.url, "http://127.0.0.1");
  const send = (type, body) => (res.writeHead(200, { "content-type": type }), res.end(body));
  const data = /^\/data\/(\d+)$/.exec(url.pathname);
  if (data) {
    res.writeHead(200, { "content-type": "application/octet-stream", "content-length": fs.statSync(journalFile(Number(data[1]))).size });
    return fs.createReadStream(journalFile(Number(data[1])), { highWaterMark: 1 << 20 }).pipe(res);
  }
  const m = /^\/p(\d+)\/(bench|web|viewer)\/([\w.-]*)$/.exec(url.pathname);
  const pkg = m && pkgs[Number(m[1])];
  if (!pkg) return res.writeHead(404), res.end();
  if (m[2] === "bench") return m[3] === "worker.js" ? send("text/javascript", WORKER) : send("text/html", PAGE);
  const file = path.join(pkg, m[2], m[3]);
  if (!fs.existsSync(file)) return res.writeHead(404), res.end();
  send(file.endsWith(".wasm") ? "application/wasm" : "text/javascript", fs.readFileSync(file));
});
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
const origin = `http://127.0.0.1:${server.address().port}`;

const { chromium } = ciRequire("playwright-core");
let browser = null;
let busy = null;
const rows = [];
try {
  browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu"] });
  // Started once the browser is up, and ended however the run ends.
  if (process.env.BUSY) busy = spawn(process.execPath, ["-e", "for (;;) {}"], { stdio: "ignore" });
  for (let run = 0; run < runs; run++) {
    for (const mb of sizes) {
      for (let k = 0; k < pkgs.length; k++) {
        const page = await browser.newPage();
        await page.goto(`${origin}/p${k}/bench/?data=/data/${mb}`);
        const r = await (await page.waitForFunction(() => window.result, null, { timeout: 600000 })).jsonValue();
        await page.close();
        if (r.error) throw new Error(`${pkgs[k]}: ${r.error}`);
        rows.push({ k, mb, ...r });
        console.log(`run ${run + 1}, ${mb} MB, ${path.relative(root, pkgs[k]) || pkgs[k]}: feed ${r.feed.toFixed(0)} ms, entries ${r.entries.toFixed(0)} ms, drafts ${r.draft.toFixed(0)} ms, settle ${r.settle.toFixed(0)} ms, total ${r.total.toFixed(0)} ms (${r.count} entries)`);
      }
    }
  }
} finally {
  busy?.kill();
  await browser?.close();
  server.close();
}

const mid = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const mb of sizes) {
  for (let k = 0; k < pkgs.length; k++) {
    const of = rows.filter((r) => r.mb === mb && r.k === k);
    const show = (f) => `${mid(of.map((r) => r[f])).toFixed(0)} [${Math.min(...of.map((r) => r[f])).toFixed(0)}-${Math.max(...of.map((r) => r[f])).toFixed(0)}]`;
    console.log(
      `viewer core, ${mb} MB, ${path.relative(root, pkgs[k]) || pkgs[k]}${busy ? ", one core busy" : ""} (median [min-max] of ${of.length}, ms): ` +
        `feed ${show("feed")}, entries ${show("entries")}, drafts ${show("draft")}, settle ${show("settle")}, total ${show("total")}`,
    );
  }
}
