// `garuda-session usage` against ccusage's native binary (issue 12), side by
// side in one run, on a folder of Claude Code sessions of at least 500 MB:
// the real sessions of ../shared/peers/claude-code copied with fresh
// session, message, request and line ids (so nothing deduplicates across
// copies). Prints seconds, MB/s and peak RSS for both, and checks that both
// count the same tokens.
//
//   node bench/usage.mjs          (after .ci/build; MB=500 by default)

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

/** Runs a command under /usr/bin/time: seconds, peak RSS (MB), stdout. */
function timed(cmd, args, env = {}) {
  const r = spawnSync("/usr/bin/time", ["-f", "%e %M", cmd, ...args], { encoding: "utf8", env: { ...process.env, ...env, TZ: "UTC" }, maxBuffer: 1 << 30 });
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr.slice(-2000)}`);
  const [secs, kb] = r.stderr.trim().split("\n").at(-1).split(" ").map(Number);
  return { secs, rss: kb / 1024, out: r.stdout };
}

if (!fs.existsSync("/usr/bin/time")) {
  console.log("SKIP bench/usage.mjs: /usr/bin/time is absent (apt-get install time)");
  process.exit(0);
}
const dir = path.join(root, "bench/data/claude-usage");
buildClaudeSessions(peers, dir, MB);
const size = Number(fs.readFileSync(path.join(dir, `.built-${MB}`), "utf8")) / 1e6;
const runs = Number(process.env.RUNS ?? 3);
const median = (xs) => xs.sort((a, b) => a.secs - b.secs)[Math.floor(xs.length / 2)];
const theirs = [];
const ours = [];
for (let i = 0; i < runs; i++) {
  theirs.push(timed(ccusage, ["claude", "session", "--json", "--offline"], { CLAUDE_CONFIG_DIR: dir }));
  ours.push(timed(process.execPath, [path.join(root, "pkg/bin/garuda-session.cjs"), "usage", path.join(dir, "projects"), "--json"]));
}
const t = median(theirs);
const o = median(ours);
const tt = JSON.parse(t.out).totals;
const ot = JSON.parse(o.out).totals;
const same = tt.inputTokens === ot.inputTokens && tt.outputTokens === ot.outputTokens && tt.cacheReadTokens === ot.cacheReadTokens && tt.cacheCreationTokens === ot.cacheWriteTokens;
console.log(`usage over ${size.toFixed(0)} MB of Claude Code sessions (median of ${runs} runs each, interleaved):`);
console.log(`  ccusage ${JSON.parse(t.out).sessions.length} sessions: ${t.secs.toFixed(2)} s (${(size / t.secs).toFixed(0)} MB/s), peak RSS ${t.rss.toFixed(0)} MB`);
console.log(`  ours    ${JSON.parse(o.out).sessions.length} sessions: ${o.secs.toFixed(2)} s (${(size / o.secs).toFixed(0)} MB/s), peak RSS ${o.rss.toFixed(0)} MB`);
console.log(`  ratio   ${(t.secs / o.secs).toFixed(2)}x (above 1: ours is faster); token totals ${same ? "equal" : `DIFFER: ccusage ${JSON.stringify(tt)} ours ${JSON.stringify(ot)}`}`);
