// Linear at scale: the session shapes on which a loop of the core was once
// quadratic (a scaling audit of every public API at N and 4N found them),
// each timed at N and 4N. Linear work takes about 4x; the figure is
// flagged above 6x. Kept as a benchmark, not a test: it times.
//
//   node bench/scale.mjs      (after .ci/build; N=2000 by default, REPEAT=3)
//
// Before the fixes, at the sizes named in each commit: a compaction keeping
// the whole conversation x23, a reused tool id x14, results without calls
// x19-55, Claude Code Task runs x12, a Gemini session in the doctor x16;
// each inline run read alone (what `export` draws) x10, the whole file read
// again for each (1,000 runs in 1.8 MB: 11.3 s; now 0.55 s for the export);
// the Claude doctor's chain breaks x18, the tree built again after each.
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const core = createRequire(import.meta.url)(path.join(root, "pkg/node/garuda_session.js"));
const N = Number(process.env.N ?? 2000);
const REPEAT = Number(process.env.REPEAT ?? 3);

const T = (i) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
const J = JSON.stringify;
const usage = { inputTokens: 1000, outputTokens: 50, cacheReadTokens: 100, cacheWriteTokens: 10 };
const start = () => J({ t: T(0), type: "start", sessionId: "s1", root: "/p", version: "1", model: "claude-sonnet-4-5", limits: { contextWindow: 200000 } });
const user = (i, text) => J({ t: T(i), type: "user", message: { role: "user", content: [{ type: "text", text }] } });
const asst = (i, content) => J({ t: T(i), type: "assistant", step: i, response: { id: `msg_${i}`, content, usage }, costUsd: 0.001 });
const results = (i, pairs) => J({ t: T(i), type: "tool_results", message: { role: "user", content: pairs.map(([id, c]) => ({ type: "tool_result", tool_use_id: id, content: c })) }, calls: pairs.map(([id]) => ({ toolUseId: id, name: "bash", durationMs: 1 })) });
const call = (id, i) => ({ type: "tool_use", id, name: "bash", input: { command: `echo ${i}` } });
const text = (lines) => lines.join("\n") + "\n";

/** Each shape: n turns of it as journal text. */
const shapes = {
  // n turns, then one stage-1 compaction that keeps every message, results trimmed.
  "compaction keeping the conversation"(n) {
    const L = [start()];
    const kept = [];
    for (let i = 0; i < n; i++) {
      const id = `toolu_${i}`;
      const u = { role: "user", content: [{ type: "text", text: `q ${i}` }] };
      const a = { role: "assistant", content: [call(id, i)] };
      L.push(J({ type: "user", message: u }), J({ type: "assistant", step: i, response: { content: a.content, usage } }), results(i, [[id, `long output ${i} `.repeat(5)]]));
      kept.push(u, a, { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "[trimmed]" }] });
    }
    L.push(J({ type: "compaction", stage: 1, beforeTokens: 9000, afterTokens: 5000, messages: kept }), user(n, "go on"));
    return text(L);
  },
  // One tool id in every turn.
  "a tool id reused every turn"(n) {
    const L = [start()];
    for (let i = 0; i < n; i++) {
      if (i % 10 === 0) L.push(user(i, `p ${i}`));
      L.push(asst(i, [call("toolu_same", i)]), results(i, [["toolu_same", `o ${i}`]]));
    }
    return text(L);
  },
  // Results whose calls are not in the file.
  "results without calls"(n) {
    const L = [start()];
    for (let i = 0; i < n; i++) L.push(user(i, `q ${i}`), results(i, [[`lost_${i}`, "x"]]), asst(i, [{ type: "text", text: `a ${i}` }]));
    return text(L);
  },
  // Claude Code 1.x: a Task call each turn, its run inline (a sidechain).
  "Claude Code Task runs"(n) {
    const sid = "11111111-2222-3333-4444-555555555555";
    const cc = (o) => J({ parentUuid: null, isSidechain: false, userType: "external", cwd: "/p", sessionId: sid, version: "1.0.108", ...o });
    const a = (uuid, parent, mid, content, t, extra = {}) => cc({ parentUuid: parent, message: { id: mid, type: "message", role: "assistant", model: "claude-sonnet-4-20250514", content, usage: { input_tokens: 4, output_tokens: 30 } }, requestId: `req_${mid}`, type: "assistant", uuid, timestamp: T(t), ...extra });
    const u = (uuid, parent, content, t, extra = {}) => cc({ parentUuid: parent, type: "user", message: { role: "user", content }, uuid, timestamp: T(t), ...extra });
    const L = [];
    let p = null;
    let k = 0;
    const id = () => `u-${k++}`;
    for (let i = 0; i < n; i++) {
      let x = id();
      L.push(u(x, p, `prompt ${i}`, i));
      p = x;
      x = id();
      L.push(a(x, p, `msg_${i}`, [{ type: "tool_use", id: `toolu_task${i}`, name: "Task", input: { prompt: `look at ${i}` } }], i));
      p = x;
      const s = [id(), id()];
      L.push(u(s[0], null, `look at ${i}`, i, { isSidechain: true }), a(s[1], s[0], `msg_s${i}`, [{ type: "text", text: `report ${i}` }], i, { isSidechain: true }));
      x = id();
      L.push(u(x, p, [{ tool_use_id: `toolu_task${i}`, type: "tool_result", content: [{ type: "text", text: `report ${i}` }] }], i));
      p = x;
    }
    return text(L);
  },
  // Claude Code: every tenth prompt's parent names a line not in the file.
  "Claude Code chain breaks"(n) {
    const cc = (o) => J({ isSidechain: false, userType: "external", cwd: "/p", sessionId: "s", version: "1.0.108", ...o });
    const L = [];
    let p = null;
    for (let i = 0; i < n; i++) {
      L.push(cc({ parentUuid: i % 10 === 5 ? `missing-${i}` : p, type: "user", message: { role: "user", content: `q ${i}` }, uuid: `q${i}`, timestamp: T(i) }));
      L.push(cc({ parentUuid: `q${i}`, type: "assistant", message: { id: `msg_${i}`, type: "message", role: "assistant", model: "claude-sonnet-4-20250514", content: [{ type: "text", text: `a ${i}` }], usage: { input_tokens: 4, output_tokens: 30 } }, requestId: `req_${i}`, uuid: `a${i}`, timestamp: T(i) }));
      p = `a${i}`;
    }
    return text(L);
  },
  // Gemini CLI's JSONL session: messages with ids, a $set between.
  "Gemini CLI messages"(n) {
    const L = [J({ sessionId: "g1", projectHash: "ab".repeat(32), startTime: T(0), lastUpdated: T(0), kind: "main" })];
    for (let i = 0; i < n; i++) {
      L.push(J({ id: `u-${i}`, timestamp: T(i), type: "user", content: [{ text: `q ${i}` }] }), J({ $set: { lastUpdated: T(i) } }));
      L.push(J({ id: `b-${i}`, timestamp: T(i), type: "gemini", content: `done ${i}`, thoughts: [], tokens: { input: 1000, output: 50, cached: 0, thoughts: 0, tool: 0, total: 1050 }, model: "gemini-2.5-pro" }));
    }
    return text(L);
  },
};

/** What each shape is timed with. */
const apis = {
  replay: (t) => core.rebuildState(t),
  "transcript settled": (t) => {
    const j = new core.Journal({ history: true, lean: true });
    j.feed(t);
    j.finish();
    j.transcriptPatchJson(0, j.transcriptLength);
    j.free();
  },
  resumeMessages: (t) => core.resumeMessages(core.rebuildState(t), { thinking: true }),
  diagnose: (t) => core.diagnose(Buffer.from(t)),
  repair: (t) => core.repair(Buffer.from(t)),
  // What `export` does with a Claude Code 1.x file: every Task call's run, each read alone.
  "each inline run": (t) => {
    const j = new core.Journal({ history: true, keepRuns: true });
    j.feed(t);
    j.finish();
    for (const [, id] of t.matchAll(/"id":"(toolu_task\d+)"/g)) j.runJournal(id)?.free();
    j.free();
  },
};
const plan = {
  "compaction keeping the conversation": ["replay"],
  "a tool id reused every turn": ["resumeMessages"],
  "results without calls": ["transcript settled"],
  "Claude Code Task runs": ["replay", "each inline run"],
  "Claude Code chain breaks": ["diagnose", "repair"],
  "Gemini CLI messages": ["diagnose"],
};

const best = (f, t) => {
  let ms = Infinity;
  for (let i = 0; i < REPEAT; i++) {
    const t0 = process.hrtime.bigint();
    f(t);
    ms = Math.min(ms, Number(process.hrtime.bigint() - t0) / 1e6);
  }
  return ms;
};

console.log(`linear at scale: each shape at N=${N} and 4N turns, best of ${REPEAT} (about 4x is linear; flagged above 6x)`);
for (const [shape, names] of Object.entries(plan)) {
  const small = shapes[shape](N);
  const big = shapes[shape](4 * N);
  for (const name of names) {
    const a = best(apis[name], small);
    const b = best(apis[name], big);
    const x = b / a;
    console.log(`  ${shape}, ${name}: ${a.toFixed(1)} -> ${b.toFixed(1)} ms (${(small.length / 1e6).toFixed(1)} -> ${(big.length / 1e6).toFixed(1)} MB), x${x.toFixed(1)}${x > 6 ? "  <- more than linear" : ""}`);
  }
}
