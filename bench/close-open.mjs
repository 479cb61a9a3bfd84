// closeOpenToolCalls with nothing open, as Runtime.runTurn calls it before
// every prompt (issue 20): a 2,000-turn session on FileSessionStore, each
// turn a prompt, a response with one tool call and its result. Prints the
// median call near turn 100 (turns 51-150) and at the end (the last 100
// turns), in µs, and their ratio. The target: ≤ 20 µs at turn 2,000 and
// within 1.2x of turn 100. Before issue 20 (the whole history serialised
// into wasm on every call): 1.5 ms at turn 100, 12-21 ms at 1,000, 94 ms
// at 2,000.
//
//   node bench/close-open.mjs      (after .ci/build; TURNS=2000 by default)

import { createRequire } from "node:module";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const agent = require(path.join(here, "..", "pkg/node/agent.js"));
const TURNS = Number(process.env.TURNS ?? 2000);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "garuda-close-open-"));
const store = new agent.FileSessionStore(path.join(dir, "sessions"));
const s = agent.startSession(store, { model: "claude-sonnet-4-5", root: "/work" });
const text = "I read the parser and will fix the off-by-one in the token budget check; then run the tests again. ";
const early = [];
const late = [];
for (let turn = 1; turn <= TURNS; turn++) {
  const t0 = process.hrtime.bigint();
  const closed = agent.closeOpenToolCalls(s);
  const us = Number(process.hrtime.bigint() - t0) / 1e3;
  if (closed !== null) throw new Error(`turn ${turn}: something was open`);
  if (turn > 50 && turn <= 150) early.push(us);
  if (turn > TURNS - 100) late.push(us);
  agent.addUserMessage(s, `turn ${turn}: ${text}`);
  const id = `toolu_${turn}`;
  agent.addAssistantResponse(s, { content: [{ type: "thinking", thinking: text, signature: "c2ln" }, { type: "text", text }, { type: "tool_use", id, name: "bash", input: { command: "npm test" } }], usage: { inputTokens: 1000 + turn, outputTokens: 100 } }, turn, 0.001);
  agent.addToolResults(s, [{ type: "tool_result", tool_use_id: id, content: text.repeat(4) }], { calls: [{ toolUseId: id, name: "bash", durationMs: 5 }] });
}
const count = s.messages.length;
s.journal.close();
fs.rmSync(dir, { recursive: true, force: true });
const a = median(early);
const b = median(late);
console.log(`closeOpenToolCalls with nothing open, ${TURNS}-turn session on FileSessionStore (${count} messages):`);
console.log(`  median near turn 100 (51-150): ${a.toFixed(2)} µs; at the end (${TURNS - 99}-${TURNS}): ${b.toFixed(2)} µs; ratio ${(b / a).toFixed(2)}x`);
console.log(`  target: ≤ 20 µs at the end, within 1.2x of turn 100 (before issue 20: 1,500 µs at 100, 94,000 µs at 2,000)`);
