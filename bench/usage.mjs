// `garuda-session usage` against ccusage's native binary (issue 12), side by
// side in one run, on a folder of Claude Code sessions of at least 500 MB:
// the real sessions of ../shared/peers/claude-code copied with fresh
// session, message, request and line ids (so nothing deduplicates across
// copies). Prints seconds, MB/s and peak RSS for both, and checks that both
// count the same tokens; then each view (--by day, week, month, session,
// block, model) against --by day and against ccusage's same view, all read
// whole (--no-index); then the incremental index: cold (no index), warm
// (`usage --by day` and `statusline`), and one file appended to (the bytes
// re-read, counted, must be the bytes appended).
//
//   node bench/usage.mjs          (after .ci/build; MB=500 by default, RUNS=5)
//   MB=1000 node bench/usage.mjs  (the 1 GB history of the statusline's bar; built once per size)
//   VIEWS=0 ...                   (skips the side-by-side and the views read whole: only the index part)

import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { buildClaudeSessions } from "./claude-data.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const peers = path.join(process.env.GARUDA_SHARED ?? path.join(root, "../shared"), "peers/claude-code");
const ccusage = path.join(root, ".ci/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage");
const MB = Number(process.env.MB ?? 500);
if (!fs.existsSync(peers) || !fs.existsSync(ccusage)) {
  console.log(`SKIP bench/usage.mjs: needs ${peers} and ${ccusage} (bash .ci/setup)`);
  process.exit(0);
}

/** Runs a command under /usr/bin/time: seconds (wall, to the millisecond: time's own are hundredths), peak RSS (MB), stdout. */
function timed(cmd, args, env = {}, input = undefined) {
  const start = performance.now();
  const r = spawnSync("/usr/bin/time", ["-f", "%e %M", cmd, ...args], { encoding: "utf8", input, env: { ...process.env, ...env, TZ: "UTC" }, maxBuffer: 1 << 30 });
  const secs = (performance.now() - start) / 1000;
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr.slice(-2000)}`);
  const kb = Number(r.stderr.trim().split("\n").at(-1).split(" ")[1]);
  return { secs, rss: kb / 1024, out: r.stdout, err: r.stderr };
}

if (!fs.existsSync("/usr/bin/time")) {
  console.log("SKIP bench/usage.mjs: /usr/bin/time is absent (apt-get install time)");
  process.exit(0);
}
const dir = path.join(root, "bench/data/claude-usage");
buildClaudeSessions(peers, dir, MB);
const size = Number(fs.readFileSync(path.join(dir, `.built-${MB}`), "utf8")) / 1e6;
const runs = Number(process.env.RUNS ?? 5);
const median = (xs) => xs.sort((a, b) => a.secs - b.secs)[Math.floor(xs.length / 2)];
// BENCH_PKG=/path/to/pkg measures another build (before/after in one sitting).
const bin = path.join(process.env.BENCH_PKG ? path.resolve(process.env.BENCH_PKG) : path.join(root, "pkg"), "bin/garuda-session.cjs");
const projects = path.join(dir, "projects");
const views = {};
if (process.env.VIEWS !== "0") {
  const theirs = [];
  const ours = [];
  for (let i = 0; i < runs; i++) {
    theirs.push(timed(ccusage, ["claude", "session", "--json", "--offline"], { CLAUDE_CONFIG_DIR: dir }));
    ours.push(timed(process.execPath, [bin, "usage", path.join(dir, "projects"), "--json", "--no-index"]));
  }
  const t = median(theirs);
  const o = median(ours);
  const tt = JSON.parse(t.out).totals;
  const ot = JSON.parse(o.out).totals;
  const same = tt.inputTokens === ot.inputTokens && tt.outputTokens === ot.outputTokens && tt.cacheReadTokens === ot.cacheReadTokens && tt.cacheCreationTokens === ot.cacheWriteTokens;
  // (median() sorted both lists: their ends are the fastest and slowest runs.)
  const range = (xs) => `[${xs[0].secs.toFixed(3)}-${xs[xs.length - 1].secs.toFixed(3)}]`;
  const mean = (xs) => xs.reduce((a, x) => a + x.secs, 0) / xs.length;
  console.log(`usage over ${size.toFixed(0)} MB of Claude Code sessions (${runs} runs each, alternating: median [min-max] s):`);
  console.log(`  ccusage ${JSON.parse(t.out).sessions.length} sessions: ${t.secs.toFixed(3)} s ${range(theirs)} (${(size / t.secs).toFixed(0)} MB/s), peak RSS ${t.rss.toFixed(0)} MB`);
  console.log(`  ours    ${JSON.parse(o.out).sessions.length} sessions: ${o.secs.toFixed(3)} s ${range(ours)} (${(size / o.secs).toFixed(0)} MB/s), peak RSS ${o.rss.toFixed(0)} MB`);
  console.log(`  ratio   ${(t.secs / o.secs).toFixed(2)}x by medians, ${(mean(theirs) / mean(ours)).toFixed(2)}x by means, ${(theirs[0].secs / ours[ours.length - 1].secs).toFixed(2)}x ccusage's fastest against our slowest (above 1: ours is faster); token totals ${same ? "equal" : `DIFFER: ccusage ${JSON.stringify(tt)} ours ${JSON.stringify(ot)}`}`);

  // Each view, read whole: within 10% of --by day is the issue's bar.
  const VIEWS = [["day", "daily"], ["week", "weekly"], ["month", "monthly"], ["session", "session"], ["block", "blocks"], ["model", null]];
  // Interleaved (each run goes through every view), so a change in the
  // machine's load falls on all views alike: each round runs our views,
  // then ccusage's, in an order turned by one each round. (With each of
  // ours right after ccusage's view before it, --by day alone came after
  // one of ours, the others after a ccusage run, and day was 10 to 30%
  // faster than views that read and add up the same.)
  const mine = Object.fromEntries(VIEWS.map(([by]) => [by, []]));
  const their = Object.fromEntries(VIEWS.map(([by]) => [by, []]));
  for (let i = 0; i < runs; i++) {
    const order = [...VIEWS.slice(i % VIEWS.length), ...VIEWS.slice(0, i % VIEWS.length)];
    for (const [by] of order) mine[by].push(timed(process.execPath, [bin, "usage", projects, "--by", by, "--json", "--no-index", "--timezone", "UTC"]));
    for (const [by, theirsView] of order) if (theirsView) their[by].push(timed(ccusage, ["claude", theirsView, "--json", "--offline", "--timezone", "UTC"], { CLAUDE_CONFIG_DIR: dir }));
  }
  for (const [by, theirsView] of VIEWS) views[by] = { ours: median(mine[by]), theirs: theirsView ? median(their[by]) : null };
  console.log("views, read whole (median seconds; vs --by day; vs ccusage's view):");
  for (const [by] of VIEWS) {
    const v = views[by];
    const rel = v.ours.secs / views.day.ours.secs;
    console.log(`  --by ${by.padEnd(7)} ${v.ours.secs.toFixed(2)} s  ${(rel * 100).toFixed(0)}% of --by day${rel > 1.1 ? " (OVER 110%)" : ""}${v.theirs ? `; ccusage ${v.theirs.secs.toFixed(2)} s, ratio ${(v.theirs.secs / v.ours.secs).toFixed(2)}x` : ""}`);
  }
}

// The index and the kept answers: cold (no cache), warm (nothing changed:
// answered from the kept answers, only stat calls), warm through the index
// alone (a view whose answer is not kept: --by block), and one file
// appended to (the bytes re-read, counted, must be the bytes appended),
// for `usage --by day` and for `statusline` (what Claude Code runs every
// few seconds: the bar is under 100 ms warm on a 1 GB history, MB=1000).
const cache = path.join(root, "bench/data/usage-cache");
const withCache = { GARUDA_CACHE_DIR: cache, GARUDA_USAGE_STATS: "1", CLAUDE_CONFIG_DIR: dir };
const files = [];
const walk = (d) => {
  for (const e of fs.readdirSync(d, { withFileTypes: true })) {
    if (e.isDirectory()) walk(path.join(d, e.name));
    else if (e.name.endsWith(".jsonl")) files.push(path.join(d, e.name));
  }
};
walk(projects);
const transcript = files[0];
const hook = JSON.stringify({ session_id: path.basename(transcript, ".jsonl"), transcript_path: transcript, model: { id: "claude-sonnet-4-5-20250929", display_name: "Sonnet 4.5" } });
const day = () => timed(process.execPath, [bin, "usage", projects, "--by", "day", "--json"], withCache);
// --no-cache: past the line kept for --refresh-interval (1 s, as ccusage's), through the kept answers; `kept` runs within it.
const status = () => timed(process.execPath, [bin, "statusline", "--no-cache"], withCache, hook);
const statusKept = () => timed(process.execPath, [bin, "statusline"], withCache, hook);
const stats = (r) => JSON.parse(/read (\{.*\})/.exec(r.err ?? "")?.[1] ?? "null");
const many = (f) => median(Array.from({ length: runs }, f));
fs.rmSync(cache, { recursive: true, force: true });
const coldDay = day();
const warmDay = many(day);
const indexDay = many(() => timed(process.execPath, [bin, "usage", projects, "--by", "block", "--json"], withCache));
fs.rmSync(cache, { recursive: true, force: true });
const coldStatus = status();
const warmStatus = many(status);
statusKept();
const keptStatus = many(statusKept);
const nodeAlone = many(() => timed(process.execPath, ["-e", "0"]));
const line = () => JSON.stringify({ type: "assistant", sessionId: "bench", uuid: `bench-${Date.now()}-${Math.random()}`, timestamp: new Date().toISOString(), requestId: `req_bench_${Date.now()}_${Math.random()}`, message: { id: `msg_bench_${Date.now()}_${Math.random()}`, role: "assistant", model: "claude-sonnet-4-5-20250929", content: [], usage: { input_tokens: 1, output_tokens: 1 } } }) + "\n";
const before = fs.statSync(transcript).size;
const added = line();
fs.appendFileSync(transcript, added);
const appended = day();
// statusline after an append to its transcript (what it meets in a live session): median over runs, each after its own append.
const appendedStatus = many(() => {
  fs.appendFileSync(transcript, line());
  return status();
});
// The benchmark's data stays as it was built.
fs.truncateSync(transcript, before);
const s = (r) => `${r.secs.toFixed(3)} s`;
console.log(`the index and the kept answers (${size.toFixed(0)} MB, ${files.length} files; node -e 0 takes ${s(nodeAlone)}):`);
console.log(`  usage --by day  cold ${s(coldDay)}${views.day ? ` (read whole: ${views.day.ours.secs.toFixed(2)} s)` : ""}; warm ${s(warmDay)} ${JSON.stringify(stats(warmDay))}`);
console.log(`  statusline      cold ${s(coldStatus)}; warm ${s(warmStatus)} ${JSON.stringify(stats(warmStatus))}${warmStatus.secs < 0.1 && warmDay.secs < 0.1 ? "" : " (the bar: both warm under 0.100 s)"}`);
console.log(`  statusline      within --refresh-interval (the line kept, as ccusage's statusline keeps it): ${s(keptStatus)} ${JSON.stringify(stats(keptStatus))}`);
console.log(`  usage --by block, warm through the index (no kept answer): ${s(indexDay)}`);
console.log(`  appended ${Buffer.byteLength(added)} bytes to one file: usage --by day ${s(appended)}, ${JSON.stringify(stats(appended))}; statusline after an append ${s(appendedStatus)}`);
