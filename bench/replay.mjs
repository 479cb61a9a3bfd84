// Replay benchmark: the wasm package against the plain-JS replay, in one run,
// on 1, 10 and 100 MB journals from the deterministic generator. End to end:
// text in, state out with the messages as JS objects.
//
//   node bench/replay.mjs            (after .ci/build; generates bench/data/)
//   BENCH_PKG=/tmp/old/pkg node bench/replay.mjs   (another build: before/after)
//   node bench/replay.mjs --rss MODE FILE   (internal: one replay, prints peak RSS)

import { createRequire } from "node:module";
import { spawnSync } from "node:child_process";
import { openSync, readSync, closeSync, readFileSync, statSync } from "node:fs";
import { fileURLToPath } from "node:url";
import path from "node:path";
import { plainRebuildState } from "./plain-replay.mjs";
import { journalFile, alternating, spread } from "./data.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, "..");
const require = createRequire(import.meta.url);
// BENCH_PKG=/path/to/pkg measures another build (before/after in one sitting).
const pkgDir = process.env.BENCH_PKG ? path.resolve(process.env.BENCH_PKG) : path.join(root, "pkg");
const session = require(pkgDir);

/** Replays a file read in 4 MB chunks through Journal.feed: no whole-file string. */
function streamReplay(file) {
  const journal = new session.Journal();
  const fd = openSync(file, "r");
  const buf = Buffer.alloc(4 << 20);
  const decoder = new TextDecoder();
  let n;
  while ((n = readSync(fd, buf, 0, buf.length, null)) > 0) {
    journal.feed(decoder.decode(buf.subarray(0, n), { stream: true }));
  }
  closeSync(fd);
  journal.finish();
  const state = journal.state();
  journal.free();
  return state;
}

// Each mode takes the journal as the host has it: a string (text in) or the
// file's bytes (a Buffer, as fs.readFile gives without an encoding).
const modes = {
  "wasm-string": (input) => session.rebuildState(input.text),
  "wasm-bytes": (input) => session.rebuildState(input.bytes),
  "plain-string": (input) => plainRebuildState(input.text),
  "plain-bytes": (input) => plainRebuildState(input.bytes.toString("utf8")),
};

const load = (file) => {
  const bytes = readFileSync(file);
  return { bytes, text: bytes.toString("utf8") };
};

if (process.argv[2] === "--rss") {
  const [, , , mode, file] = process.argv;
  const state = mode === "wasm-stream" ? streamReplay(file) : modes[mode]({ bytes: readFileSync(file), get text() { return this.bytes.toString("utf8"); } });
  if (state.messages.length < 0) throw new Error("unreachable");
  console.log(JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS }));
  process.exit(0);
}


function check(a, b, file) {
  const same =
    a.messages.length === b.messages.length &&
    JSON.stringify(a.messages) === JSON.stringify(b.messages) &&
    JSON.stringify(a.usage) === JSON.stringify(b.usage) &&
    a.prompts === b.prompts &&
    a.costIncomplete === b.costIncomplete &&
    Math.abs((a.costUsd ?? -1) - (b.costUsd ?? -1)) < 1e-6;
  if (!same) throw new Error(`wasm and plain-JS states differ for ${file}`);
}

const sizes = (process.env.BENCH_SIZES ?? "1,10,100").split(",").map(Number);
console.log("replay: journal in, state out with messages as JS objects; wasm and plain JS alternating, median [min-max] ms of 5 runs (21 at 1 MB, 7 at 10 MB); MB = 10^6 bytes");
console.log("size   | input  | wasm ms (MB/s)          | plain-JS ms (MB/s)      | speed-up wasm/plain (of the medians; and of the slowest wasm run against the fastest plain one)");
for (const mb of sizes) {
  const file = journalFile(mb);
  const input = load(file);
  const bytes = input.bytes.length;
  const runs = mb >= 100 ? 5 : mb >= 10 ? 7 : 21;
  const rate = (ms) => (bytes / 1e6 / (ms / 1000)).toFixed(0);
  for (const kind of ["string", "bytes"]) {
    const wasm = modes[`wasm-${kind}`];
    const plain = modes[`plain-${kind}`];
    const t = alternating({ wasm: () => wasm(input), plain: () => plain(input) }, runs);
    check(t.wasm.result, t.plain.result, file);
    const [w, p] = [t.wasm, t.plain];
    console.log(
      `${String(mb).padStart(3)} MB | ${kind.padEnd(6)} | ${spread(w).padStart(14)} (${rate(w.ms).padStart(4)}) | ${spread(p).padStart(14)} (${rate(p.ms).padStart(4)}) | ${(p.ms / w.ms).toFixed(2)}x (slowest wasm against fastest plain: ${(p.min / w.max).toFixed(2)}x)`,
    );
  }
}

// From the file to the state, what a host does (issue 29): each input path
// and the plain-JS anchor, alternating within each run (so drift in the
// machine hits all alike), 5 runs: median and range.
const files = require(path.join(pkgDir, "node/files.js"));
const CHUNK = 4 << 20;
function viaFeed(file) {
  // fs reads into a JS Buffer; feed() copies each chunk into wasm memory.
  const journal = new session.Journal();
  const fd = openSync(file, "r");
  const buf = Buffer.allocUnsafe(CHUNK);
  let n;
  while ((n = readSync(fd, buf, 0, buf.length, null)) > 0) journal.feed(buf.subarray(0, n));
  closeSync(fd);
  journal.finish();
  const state = journal.state();
  journal.free();
  return state;
}
function viaInputBuffer(file) {
  // fs reads straight into wasm memory the journal owns: no copy in JS.
  const journal = new session.Journal();
  const fd = openSync(file, "r");
  files.replayInto(fd, statSync(file).size, journal);
  closeSync(fd);
  journal.finish();
  const state = journal.state();
  journal.free();
  return state;
}
// A package from before issue 29 has no inputBuffer: the same script then
// measures the other modes (run it against both builds for before/after).
const zeroCopy = typeof files.replayInto === "function" && "inputBuffer" in session.Journal.prototype;
const fileModes = {
  ...(zeroCopy ? { "wasm inputBuffer (zero-copy)": viaInputBuffer } : {}),
  "wasm feed(Buffer chunks)": viaFeed,
  "wasm rebuildState(readFileSync)": (file) => session.rebuildState(readFileSync(file)),
  "plain-JS (readFileSync, utf8, parse)": (file) => plainRebuildState(readFileSync(file, "utf8")),
};
console.log(`\nfile to state (4 MB reads; modes alternate within each run; 5 runs: median [min-max] ms)${zeroCopy ? "" : "; this package has no inputBuffer"}`);
for (const mb of sizes) {
  const file = journalFile(mb);
  const bytes = statSync(file).size;
  const times = Object.fromEntries(Object.keys(fileModes).map((k) => [k, []]));
  const results = {};
  for (const [name, f] of Object.entries(fileModes)) results[name] = f(file); // warm
  for (let run = 0; run < 5; run++) {
    for (const [name, f] of Object.entries(fileModes)) {
      const t0 = process.hrtime.bigint();
      f(file);
      times[name].push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  const plainName = "plain-JS (readFileSync, utf8, parse)";
  for (const name of Object.keys(fileModes)) check(results[name], results[plainName], file);
  const med = (t) => [...t].sort((a, b) => a - b)[2];
  const plainMs = med(times[plainName]);
  for (const [name, t] of Object.entries(times)) {
    const m = med(t);
    console.log(
      `${String(mb).padStart(3)} MB | ${name.padEnd(38)} | ${m.toFixed(0).padStart(5)} [${Math.min(...t).toFixed(0)}-${Math.max(...t).toFixed(0)}] ms (${(bytes / 1e6 / (m / 1000)).toFixed(0).padStart(4)} MB/s) | ${(plainMs / m).toFixed(2)}x plain-JS`,
    );
  }
}

const big = journalFile(sizes[sizes.length - 1]);
const bigBytes = statSync(big).size;
console.log(`\npeak RSS of one replay in a fresh node process (${(bigBytes / 1e6).toFixed(0)} MB journal):`);
for (const mode of ["wasm-bytes", "wasm-string", "wasm-stream", "plain-string"]) {
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), "--rss", mode, big], { encoding: "utf8" });
  if (r.status !== 0) {
    console.log(`  ${mode}: failed: ${r.stderr.trim().split("\n").pop()}`);
    continue;
  }
  const kb = JSON.parse(r.stdout.trim().split("\n").pop()).maxRssKb;
  console.log(`  ${mode.padEnd(12)} ${(kb / 1024).toFixed(0)} MiB = ${((kb * 1024) / bigBytes).toFixed(2)}x the journal`);
}
