// Hostile input benchmark: journals of junk lines (each a warning), replayed
// through the file store in a process of its own, with its time and peak
// RSS; and `serve`'s index of a folder holding such a file, timed per
// request, with the server's peak RSS. Warnings are kept by kind (the first
// 100 of each, the rest counted), so memory should stay flat as lines grow.
//
//   node bench/junk.mjs [millions of lines...]   (after .ci/build; default 2 6 20)
//   node bench/junk.mjs --one FILE               (internal: one replay, prints JSON)

import fs from "node:fs";
import path from "node:path";
import { tmpdir } from "node:os";
import { spawn, spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, "..");
const require = createRequire(import.meta.url);
const me = fileURLToPath(import.meta.url);

const peakRss = (pid = "self") => Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
const mb = (b) => `${(b / 2 ** 20).toFixed(0)} MB`;

if (process.argv[2] === "--one") {
  const file = process.argv[3];
  const { FileSessionStore } = require(path.join(root, "pkg/node/store.js"));
  const t = performance.now();
  const state = new FileSessionStore(path.dirname(file)).replay(path.basename(file, ".jsonl"));
  console.log(JSON.stringify({ ms: performance.now() - t, rss: peakRss(), counts: state.warningCounts, title: state.title }));
  process.exit(0);
}

/** A folder with `<millions> M` junk lines in junk.jsonl (a start record first, a title last). */
function junkFolder(millions) {
  const dir = fs.mkdtempSync(path.join(tmpdir(), `garuda-bench-junk-${millions}-`));
  const fd = fs.openSync(path.join(dir, "junk.jsonl"), "w");
  fs.writeSync(fd, JSON.stringify({ type: "start", sessionId: "junk", model: "m" }) + "\n");
  const block = Buffer.from("junk\n".repeat(100_000));
  for (let i = 0; i < millions * 10; i++) fs.writeSync(fd, block);
  fs.writeSync(fd, JSON.stringify({ type: "title", title: "after the junk" }) + "\n");
  fs.closeSync(fd);
  return dir;
}

async function serveIndex(dir) {
  const child = spawn(process.execPath, [path.join(root, "pkg/bin/garuda-session.cjs"), "serve", dir], { stdio: ["ignore", "pipe", "inherit"] });
  const banner = await new Promise((resolve) => child.stdout.once("data", (d) => resolve(String(d))));
  const m = /http:\/\/127\.0\.0\.1:\d+\/\S*#token=([\w-]+)/.exec(banner);
  const origin = new URL(m[0]).origin;
  const times = [];
  for (let i = 0; i < 3; i++) {
    const t = performance.now();
    await (await fetch(`${origin}/files/index.json`, { headers: { "x-garuda-token": m[1] } })).text();
    times.push(performance.now() - t);
  }
  const rss = peakRss(child.pid);
  child.kill();
  return { times, rss };
}

const sizes = process.argv.slice(2).map(Number).filter((n) => n > 0);
for (const millions of sizes.length ? sizes : [2, 6, 20]) {
  const dir = junkFolder(millions);
  const one = JSON.parse(spawnSync(process.execPath, [me, "--one", path.join(dir, "junk.jsonl")], { encoding: "utf8" }).stdout);
  const size = fs.statSync(path.join(dir, "junk.jsonl")).size;
  console.log(`replay, ${millions} M junk lines (${mb(size)}): ${one.ms.toFixed(0)} ms, ${(one.ms * 1e6 / (millions * 1e6)).toFixed(0)} ns/line, peak RSS ${mb(one.rss)}; warnings ${JSON.stringify(one.counts)}; the record after the junk ${one.title ? "read" : "LOST"}`);
  const served = await serveIndex(dir);
  console.log(`serve /files/index.json over it: ${served.times.map((t) => t.toFixed(0)).join(", ")} ms per request, server peak RSS ${mb(served.rss)}`);
  fs.rmSync(dir, { recursive: true, force: true });
}
