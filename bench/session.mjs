// The session layer's cost per turn (issue 9): a 5,000-turn session (about
// 50 MB of journal) driven through @garuda/session/agent into a
// MemoryJournal. Prints the median cost of one add… call of a 1 KB record
// (redaction, apply, append, the figures and the new message fetched back),
// at turn 100 and at turn 5,000, their ratio, and peak memory against the
// journal's size.
//
//   node bench/session.mjs      (after .ci/build)

import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const agent = require(path.join(here, "..", "pkg/node/agent.js"));

const TURNS = Number(process.env.TURNS ?? 5000);
const text = "I read the parser and will fix the off-by-one in the token budget check; then run the tests again. ";
// Warm-up: a short session first, so turn 100 of the measured one is not
// measuring V8's compiler.
runSession(new agent.MemorySessionStore(), 1500, () => {});
const store = new agent.MemorySessionStore();
const samples = new Map(); // turn -> [µs per add… call]
let peak = 0;
const s = runSession(store, TURNS, (turn, times) => {
  if ([100, 1000, TURNS].includes(turn) || (turn > 100 && turn <= 110) || turn > TURNS - 10) {
    const k = turn <= 110 ? 100 : turn > TURNS - 10 ? TURNS : turn;
    samples.set(k, [...(samples.get(k) ?? []), ...times]);
  }
  if (turn % 250 === 0) peak = Math.max(peak, process.memoryUsage().rss);
});
function runSession(store, turns, sample) {
  const s = agent.startSession(store, { model: "claude-sonnet-4-5", root: "/work" });
  for (let turn = 1; turn <= turns; turn++) {
    const times = [];
    const timed = (f) => {
      const t0 = process.hrtime.bigint();
      f();
      times.push(Number(process.hrtime.bigint() - t0) / 1e3);
    };
    timed(() => agent.addUserMessage(s, text.repeat(10).slice(0, 900)));
    timed(() =>
      agent.addAssistantResponse(
        s,
        { content: [{ type: "text", text: text.repeat(8).slice(0, 700) }, { type: "tool_use", id: `toolu_${turn}`, name: "read_file", input: { path: "src/session/parser.ts" } }], usage: { inputTokens: 1200 + turn, outputTokens: 300, cacheReadTokens: 40000, cacheWriteTokens: 0 } },
        turn,
        0.0123,
      ),
    );
    timed(() => agent.addToolResults(s, [{ type: "tool_result", tool_use_id: `toolu_${turn}`, content: text.repeat(9).slice(0, 850) }], { calls: [{ toolUseId: `toolu_${turn}`, name: "read_file", durationMs: 4 }] }));
    // The rest of the turn's output (a file read), untimed: the journal grows as a real one does.
    agent.addToolResults(s, [{ type: "tool_result", tool_use_id: `toolu_${turn}`, content: text.repeat(70) }]);
    sample(turn, times);
  }
  return s;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const journalBytes = store.sessions.get(s.id).lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
const early = median(samples.get(100));
const late = median(samples.get(TURNS));
console.log(`session of ${TURNS} turns: journal ${(journalBytes / 1e6).toFixed(1)} MB, ${s.messages.length} messages, cost ${s.costUsd.toFixed(2)} USD`);
console.log(`one add… call of a ~1 KB record (median over 11 turns x 3 calls): turn 100 ${early.toFixed(2)} µs, turn ${TURNS} ${late.toFixed(2)} µs, ratio ${(late / early).toFixed(2)}x`);
console.log(`peak RSS ${(peak / 2 ** 20).toFixed(0)} MiB for a ${(journalBytes / 2 ** 20).toFixed(0)} MiB journal (${(peak / journalBytes).toFixed(2)}x; the session keeps the messages in JS and in the core, and the store keeps the lines)`);
