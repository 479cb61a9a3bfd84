// The doctor on a large generated Claude Code session: time and peak RSS of
// diagnose and repair, next to the reader's replay of the same bytes.
//
//   node bench/doctor.mjs [--mb 1000]          (default 200 MB; built once in bench/data/)
//   node bench/doctor.mjs --rss MODE FILE      (internal: one run, prints its peak RSS)
//
// The session is one chain, as Claude Code writes it (one block per
// assistant line, each line the child of the line before), with a signed
// thinking block, a tool call and a large result per turn; one thinking text
// is emptied mid-file and the last call has no result, so repair has work
// across the whole file. Needs pkg/ (bash .ci/build). The issue asks for a
// 1 GB session in at most 300 MB RSS: "stream" is the CLI's diagnosis (the
// file fed in 8 MB chunks to a Diagnoser, a summary kept per line, never its
// text); "diagnose" and "repair" take the bytes whole (a repair writes them
// back), so expect about 3x the file size there. "cli" and "cli --fix" run
// the real command (`garuda-session doctor FILE --json`, with `--fix -o`)
// under /usr/bin/time -f %M: the figure is the "cli" one.
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const here = path.dirname(fileURLToPath(import.meta.url));
const session = createRequire(import.meta.url)(path.join(here, "../pkg/node/garuda_session.js"));

if (process.argv[2] === "--rss") {
  const [mode, file] = process.argv.slice(3);
  const t = performance.now();
  let detail;
  if (mode === "stream") {
    // What `garuda-session doctor FILE` does: the file read in 8 MB chunks.
    const d = new session.Diagnoser();
    const fd = fs.openSync(file, "r");
    const buf = Buffer.allocUnsafe(8 << 20);
    for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0; ) d.feed(buf.subarray(0, n));
    detail = d.finish().problems.length + " problems";
    console.log(JSON.stringify({ ms: performance.now() - t, maxRssKb: process.resourceUsage().maxRSS, detail }));
    process.exit(0);
  }
  const bytes = fs.readFileSync(file);
  if (mode === "diagnose") detail = session.diagnose(bytes).problems.length + " problems";
  else if (mode === "repair") detail = session.repair(bytes).report.changes.length + " changes";
  else detail = session.rebuildState(bytes).messages.length + " messages";
  console.log(JSON.stringify({ ms: performance.now() - t, maxRssKb: process.resourceUsage().maxRSS, detail }));
  process.exit(0);
}

const arg = (name, dflt) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const MB = Number(arg("--mb", "200"));
const dir = path.join(here, "data");
const file = path.join(dir, `doctor-${MB}mb.jsonl`);

function build() {
  if (fs.existsSync(file)) return;
  fs.mkdirSync(dir, { recursive: true });
  const out = fs.openSync(`${file}.tmp`, "w");
  const sid = "7d0c3f5e-1b2a-4c6d-8e9f-0a1b2c3d4e5f";
  const model = "claude-sonnet-4-5-20250929";
  const result = "x".repeat(6000);
  let parent = null;
  let n = 0;
  let written = 0;
  // Lines go out in 4 MB writes (a write per line took minutes for 1 GB).
  let pending = [];
  let pendingLen = 0;
  const flush = () => {
    if (pending.length) fs.writeSync(out, pending.join(""));
    pending = [];
    pendingLen = 0;
  };
  const target = MB * 1e6;
  const line = (type, message, extra = {}) => {
    const uuid = `u-${++n}`;
    const l = JSON.stringify({ parentUuid: parent, isSidechain: false, userType: "external", cwd: "/w", sessionId: sid, version: "2.0.30", type, message, ...extra, uuid, timestamp: "2026-11-20T10:00:00.000Z" });
    parent = uuid;
    pending.push(l + "\n");
    pendingLen += l.length + 1;
    written += Buffer.byteLength(l) + 1;
    if (pendingLen > 4 << 20) flush();
  };
  for (let turn = 0; written < target; turn++) {
    const mid = `msg_${turn}`;
    const last = written > target - 20000;
    line("user", { role: "user", content: `prompt ${turn}` });
    const text = turn === 100 ? "" : `thinking of turn ${turn}`;
    line("assistant", { id: mid, role: "assistant", model, content: [{ type: "thinking", thinking: text, signature: `sig-${turn}` }] });
    line("assistant", { id: mid, role: "assistant", model, content: [{ type: "tool_use", id: `toolu_${turn}`, name: "Read", input: { file_path: `/w/${turn}` } }] });
    if (last) break;
    line("user", { role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${turn}`, content: result }] });
    line("assistant", { id: `${mid}b`, role: "assistant", model, content: [{ type: "text", text: `answer ${turn}` }] });
  }
  flush();
  fs.closeSync(out);
  fs.renameSync(`${file}.tmp`, file);
}

build();
const size = fs.statSync(file).size;
console.log(`doctor on ${(size / 1e6).toFixed(0)} MB (${file})`);
const runs = {};
for (const mode of ["replay", "stream", "diagnose", "repair"]) {
  const r = spawnSync(process.execPath, ["--max-old-space-size=8192", fileURLToPath(import.meta.url), "--rss", mode, file], { encoding: "utf8" });
  if (r.status !== 0) {
    console.log(`${mode}: failed: ${r.stderr.split("\n")[0]}`);
    continue;
  }
  const m = JSON.parse(r.stdout.trim().split("\n").pop());
  runs[mode] = m;
  console.log(`${mode.padEnd(9)} ${(m.ms / 1000).toFixed(2)} s  ${(size / 1e6 / (m.ms / 1000)).toFixed(0)} MB/s  peak RSS ${(m.maxRssKb / 1024).toFixed(0)} MB  (${m.detail})`);
}
// The real CLI path, its peak RSS as /usr/bin/time reports it (the issue's
// figure): `doctor FILE --json` (the streamed diagnosis) and `--fix`.
const cli = path.join(here, "../pkg/bin/garuda-session.cjs");
if (fs.existsSync("/usr/bin/time")) {
  for (const [name, extra] of [["cli", []], ["cli --fix", ["--fix", "-o", `${file}.fixed`]]]) {
    const t = performance.now();
    const r = spawnSync("/usr/bin/time", ["-f", "%M", process.execPath, cli, "doctor", file, "--json", ...extra], { encoding: "utf8", maxBuffer: 1 << 30 });
    const ms = performance.now() - t;
    const kb = Number(r.stderr.trim().split("\n").pop());
    fs.rmSync(`${file}.fixed`, { force: true });
    if (r.status !== 0 && r.status !== 1) {
      console.log(`${name}: failed (${r.status}): ${r.stderr.split("\n")[0]}`);
      continue;
    }
    runs[name] = { ms, maxRssKb: kb };
    console.log(`${name.padEnd(9)} ${(ms / 1000).toFixed(2)} s  ${(size / 1e6 / (ms / 1000)).toFixed(0)} MB/s  peak RSS ${(kb / 1024).toFixed(0)} MB  (exit ${r.status})`);
  }
} else {
  console.log("cli: /usr/bin/time is not installed: the CLI's peak RSS is not measured");
}
if (runs.replay && runs.diagnose) {
  console.log(`diagnose / replay time: ${(runs.diagnose.ms / runs.replay.ms).toFixed(2)}x; repair / replay: ${runs.repair ? (runs.repair.ms / runs.replay.ms).toFixed(2) + "x" : "n/a"}`);
}
for (const mode of ["stream", "cli"]) {
  if (!runs[mode]) continue;
  const mb = runs[mode].maxRssKb / 1024;
  console.log(`${mode} (the CLI's diagnosis): peak RSS ${mb.toFixed(0)} MB for ${(size / 1e6).toFixed(0)} MB: ${mb <= 300 ? "within" : "OVER"} the issue's 300 MB`);
}
