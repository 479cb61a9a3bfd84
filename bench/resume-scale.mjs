// resumeMessages and checkMessages against replay as tool calls grow
// (issue 20): journals of 20k, 50k and 100k tool calls (one call and its
// result a turn; some ids reused, as a long session's may be). Prints, per
// size, replay (rebuildState of the text), resumeMessages of that state,
// checkMessages of its result, and resume through the core's model view
// (a live journal reads the text and writes the resume record), with each
// one's ratio to replay and its time per tool call: linear work keeps the
// time per call flat as the journal grows. The target: resumeMessages of
// the 100k journal within 2x of its replay. Before issue 20: 20k calls
// 1.3 s, 50k 13 s, 100k 51 s (replay under 1 s).
//
//   node bench/resume-scale.mjs      (after .ci/build; SIZES=20000,50000,100000)

import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const core = require(path.join(here, "..", "pkg/node/garuda_session.js"));
const SIZES = (process.env.SIZES ?? "20000,50000,100000").split(",").map(Number);
const REPEAT = Number(process.env.REPEAT ?? 3);

function journal(calls) {
  const lines = [JSON.stringify({ t: "2026-12-01T00:00:00.000Z", type: "start", sessionId: "s", model: "claude-sonnet-4-5" })];
  lines.push(JSON.stringify({ type: "user", message: { role: "user", content: "fix the build" } }));
  for (let i = 0; i < calls; i++) {
    const id = `toolu_${i % 1000 === 999 ? i - 1 : i}`; // one id in a thousand reused
    lines.push(JSON.stringify({ type: "assistant", step: i + 1, response: { content: [{ type: "thinking", thinking: `step ${i}`, signature: "c2ln" }, { type: "tool_use", id, name: "bash", input: { command: `echo ${i}` } }], usage: { inputTokens: 1000, outputTokens: 50 } }, costUsd: 0.001 }));
    lines.push(JSON.stringify({ type: "tool_results", message: { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: `ok ${i}` }] }, calls: [{ toolUseId: id, name: "bash", durationMs: 1 }] }));
  }
  return lines.join("\n") + "\n";
}

/** The best of REPEAT runs, in ms (a busy machine only ever adds time). */
function time(f) {
  let best = Infinity;
  let out;
  for (let i = 0; i < REPEAT; i++) {
    const t0 = process.hrtime.bigint();
    out = f();
    best = Math.min(best, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return [best, out];
}

for (const calls of SIZES) {
  const text = journal(calls);
  const [replay, state] = time(() => core.rebuildState(text));
  const [resume, messages] = time(() => core.resumeMessages(state, { model: "claude-sonnet-4-5", thinking: true }));
  const [check, problems] = time(() => core.checkMessages(messages, { thinking: true }));
  if (problems.length) throw new Error(`resumeMessages gave a history checkMessages refuses: ${JSON.stringify(problems.slice(0, 3))}`);
  const [view] = time(() => {
    const j = new core.Journal({ modelView: true, strict: true });
    j.feed(text);
    j.finish();
    j.write({ type: "resume", model: "claude-sonnet-4-5" });
    const n = j.viewCount;
    j.free();
    return n;
  });
  // The transcript settled (the viewer's, export's), after a model switch
  // that leaves every earlier thinking block out of a resume: each thinking
  // entry says why (once a filter of every dropped block per entry).
  let settle = Infinity;
  for (let i = 0; i < REPEAT; i++) {
    const j = new core.Journal({ history: true, lean: true });
    j.feed(text + JSON.stringify({ type: "model", model: "claude-opus-4-1" }) + "\n");
    j.finish();
    const t0 = process.hrtime.bigint();
    j.transcriptPatchJson(0, j.transcriptLength);
    settle = Math.min(settle, Number(process.hrtime.bigint() - t0) / 1e6);
    j.free();
  }
  const perCall = (ms) => `${((ms * 1e3) / calls).toFixed(2)} µs/call`;
  console.log(`${calls} tool calls (${(text.length / 1e6).toFixed(1)} MB): replay ${replay.toFixed(0)} ms (${perCall(replay)})`);
  console.log(`  resumeMessages ${resume.toFixed(0)} ms, ${(resume / replay).toFixed(2)}x replay (${perCall(resume)}); checkMessages ${check.toFixed(0)} ms (${perCall(check)}); replay + resume through the model view ${view.toFixed(0)} ms, ${(view / replay).toFixed(2)}x replay`);
  console.log(`  the transcript settled after a model switch (every thinking block left out) ${settle.toFixed(0)} ms (${perCall(settle)})`);
}
console.log("target: resumeMessages of 100k calls within 2x of replay, µs/call flat across sizes (before issue 20: 1.3 s, 13 s, 51 s)");
