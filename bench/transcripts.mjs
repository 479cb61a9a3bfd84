// `garuda-session export` against claude-code-log (issue 13), side by side
// in one run: a project folder of Claude Code sessions (the real sessions of
// ../shared/peers/claude-code, copied with fresh ids up to MB megabytes)
// rendered to HTML by each: claude-code-log writes its combined transcript
// of the project (every session, paged); ours writes one file per session.
// Both render every message of every session. Prints seconds, MB/s, peak
// RSS and the HTML written.
//
//   node bench/transcripts.mjs       (after .ci/build; MB=50 by default)

import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { buildClaudeSessions } from "./claude-data.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const peers = path.join(process.env.GARUDA_SHARED ?? path.join(root, "../shared"), "peers/claude-code");
const MB = Number(process.env.MB ?? 50);
const theirsBin = spawnSync("sh", ["-c", "command -v claude-code-log"], { encoding: "utf8" }).stdout.trim();
if (!fs.existsSync(peers) || !theirsBin || !fs.existsSync("/usr/bin/time")) {
  console.log(`SKIP bench/transcripts.mjs: needs ${peers}, claude-code-log (pip install claude-code-log) and /usr/bin/time`);
  process.exit(0);
}

function timed(cmd, args) {
  const r = spawnSync("/usr/bin/time", ["-f", "%e %M", cmd, ...args], { encoding: "utf8", env: { ...process.env, TZ: "UTC" }, maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr.slice(-2000)}`);
  const [secs, kb] = r.stderr.trim().split("\n").at(-1).split(" ").map(Number);
  return { secs, rss: kb / 1024 };
}

function htmlIn(dir) {
  let files = 0;
  let bytes = 0;
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".html")) (files += 1), (bytes += fs.statSync(p).size);
    }
  };
  walk(dir);
  return { files, bytes };
}

const dir = path.join(root, "bench/data/claude-transcripts");
buildClaudeSessions(peers, dir, MB, true);
const project = path.join(dir, "project");
const size = Number(fs.readFileSync(path.join(dir, `.built-${MB}`), "utf8")) / 1e6;
const sessions = fs.readdirSync(project).filter((f) => f.endsWith(".jsonl")).length;
const out = (who) => {
  const d = path.join(dir, `out-${who}`);
  fs.rmSync(d, { recursive: true, force: true });
  fs.mkdirSync(d);
  return d;
};

// It writes into the project folder; its cache would make a second run cheaper: off.
for (const f of fs.readdirSync(project).filter((f) => f.endsWith(".html"))) fs.rmSync(path.join(project, f));
const theirs = timed(theirsBin, [project, "--no-cache"]);
const theirsOut = out("claude-code-log");
for (const f of fs.readdirSync(project).filter((f) => f.endsWith(".html"))) fs.renameSync(path.join(project, f), path.join(theirsOut, f));
const oursOut = out("garuda");
const ours = timed(process.execPath, [path.join(root, "pkg/bin/garuda-session.cjs"), "export", project, "--format", "html", "-o", oursOut]);
const th = htmlIn(theirsOut);
const oh = htmlIn(oursOut);
console.log(`transcripts: ${sessions} Claude Code sessions, ${size.toFixed(0)} MB, rendered to HTML:`);
console.log(`  claude-code-log ${theirs.secs.toFixed(2)} s (${(size / theirs.secs).toFixed(1)} MB/s), peak RSS ${theirs.rss.toFixed(0)} MB, ${th.files} files, ${(th.bytes / 1e6).toFixed(1)} MB of HTML`);
console.log(`  ours            ${ours.secs.toFixed(2)} s (${(size / ours.secs).toFixed(1)} MB/s), peak RSS ${ours.rss.toFixed(0)} MB, ${oh.files} files, ${(oh.bytes / 1e6).toFixed(1)} MB of HTML`);
console.log(`  ratio           ${(theirs.secs / ours.secs).toFixed(2)}x (above 1: ours is faster)`);
