// The session layer's cost per turn (issue 9): a 5,000-turn session (about
// 50 MB of journal) driven through @garuda/session/agent into a
// MemoryJournal. Prints the median cost of one add… call of a 1 KB record
// (redaction, apply, append, the figures and the new message fetched back)
// near turn 100 and near turn 5,000, their ratio, and peak memory against
// the journal's size.
//
// Each session runs in a process of its own (RUNS of them, 5 by default),
// so none pays for collecting another's garbage; a run's figures are the
// median of all its timed calls (3 a turn) and of the 300 calls of each
// window (3 a turn, 100 turns), and the figures reported are the medians
// of the runs' (a busy machine only ever adds time, to some runs).
//
//   node bench/session.mjs      (after .ci/build)

import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const TURNS = Number(process.env.TURNS ?? 5000);
const RUNS = Number(process.env.RUNS ?? 5);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

if (process.env.GARUDA_BENCH_CHILD) {
  console.log(JSON.stringify(oneSession()));
} else {
  const runs = [];
  for (let i = 0; i < RUNS; i++) {
    const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url)], { env: { ...process.env, GARUDA_BENCH_CHILD: "1" }, encoding: "utf8" });
    if (r.status !== 0) throw new Error(`a run failed: ${r.stderr}`);
    runs.push(JSON.parse(r.stdout));
  }
  const all = median(runs.map((r) => r.all));
  const early = median(runs.map((r) => r.early));
  const late = median(runs.map((r) => r.late));
  const { journalBytes, messages, cost, peak } = runs[0];
  const list = (k) => runs.map((r) => r[k].toFixed(2)).join(", ");
  console.log(`session of ${TURNS} turns: journal ${(journalBytes / 1e6).toFixed(1)} MB, ${messages} messages, cost ${cost.toFixed(2)} USD`);
  console.log(`one add… call of a ~1 KB record, median of all ${3 * TURNS} calls of a session: ${all.toFixed(2)} µs (median over ${RUNS} runs; runs: ${list("all")})`);
  console.log(`the same near the start and at the end, each run's median of 300 calls: turns 51-150 ${early.toFixed(2)} µs, turns ${TURNS - 99}-${TURNS} ${late.toFixed(2)} µs, ratio ${(late / early).toFixed(2)}x (runs: ${list("early")} | ${list("late")})`);
  console.log(`peak RSS ${(peak / 2 ** 20).toFixed(0)} MiB for a ${(journalBytes / 2 ** 20).toFixed(0)} MiB journal (${(peak / journalBytes).toFixed(2)}x; the session keeps the messages in JS and in the core, and the store keeps the lines)`);
}

function oneSession() {
  const require = createRequire(import.meta.url);
  const agent = require(path.join(here, "..", "pkg/node/agent.js"));
  const text = "I read the parser and will fix the off-by-one in the token budget check; then run the tests again. ";
  // Warm-up: a session of 1,500 turns first, so turn 100 of the measured
  // one measures neither V8's compiler nor a young generation still
  // growing to its size (after 300 turns, the first window cost 11-22 µs
  // and the last 9). Its garbage is left to V8: a forced collection shrank
  // the young generation again, and the first window paid for regrowing it.
  runSession(agent, text, new agent.MemorySessionStore(), 1500, () => {});
  const store = new agent.MemorySessionStore();
  const samples = new Map(); // window -> [µs per add… call]
  let peak = 0;
  const all = [];
  const s = runSession(agent, text, store, TURNS, (turn, times) => {
    const k = turn > 50 && turn <= 150 ? "early" : turn > TURNS - 100 ? "late" : null;
    if (k !== null) samples.set(k, [...(samples.get(k) ?? []), ...times]);
    all.push(...times);
    if (turn % 250 === 0) peak = Math.max(peak, process.memoryUsage().rss);
  });
  const journalBytes = store.sessions.get(s.id).lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
  return { all: median(all), early: median(samples.get("early")), late: median(samples.get("late")), journalBytes, messages: s.messages.length, cost: s.costUsd, peak };
}

function runSession(agent, text, store, turns, sample) {
  const s = agent.startSession(store, { model: "claude-sonnet-4-5", root: "/work" });
  for (let turn = 1; turn <= turns; turn++) {
    const times = [];
    // Each call's arguments are built before its clock starts: building a
    // caller's objects is not the add… call's cost.
    const timed = (f, ...args) => {
      const t0 = process.hrtime.bigint();
      f(s, ...args);
      times.push(Number(process.hrtime.bigint() - t0) / 1e3);
    };
    timed(agent.addUserMessage, text.repeat(10).slice(0, 900));
    const response = {
      content: [
        { type: "text", text: text.repeat(8).slice(0, 700) },
        { type: "tool_use", id: `toolu_${turn}`, name: "read_file", input: { path: "src/session/parser.ts" } },
      ],
      usage: { inputTokens: 1200 + turn, outputTokens: 300, cacheReadTokens: 40000, cacheWriteTokens: 0 },
    };
    timed(agent.addAssistantResponse, response, turn, 0.0123);
    const results = [{ type: "tool_result", tool_use_id: `toolu_${turn}`, content: text.repeat(9).slice(0, 850) }];
    timed(agent.addToolResults, results, { calls: [{ toolUseId: `toolu_${turn}`, name: "read_file", durationMs: 4 }] });
    // The rest of the turn's output (a file read), untimed: the journal grows as a real one does.
    agent.addToolResults(s, [{ type: "tool_result", tool_use_id: `toolu_${turn}`, content: text.repeat(70) }]);
    sample(turn, times);
  }
  return s;
}
