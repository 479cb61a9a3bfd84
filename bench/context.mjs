// The context tools (issue 26): truncateToolOutput of a 10 MB output, and
// pruneOldToolOutputs of a 5,000-turn history, with the JS side's own share
// (the string copy in, JSON.stringify of the messages) printed beside them.
// Targets: truncate ≤ 10 ms, prune ≤ 20 ms (medians).
//
//   node bench/context.mjs [--quick]      (after .ci/build)

import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import path from "node:path";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const session = createRequire(import.meta.url)(path.join(root, "pkg"));
const quick = process.argv.includes("--quick");
const runs = quick ? 3 : 21;

function median(fn) {
  const times = [];
  let out;
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    out = fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { ms: times[times.length >> 1], min: times[0], max: times[times.length - 1], out };
}
const f = (r) => `${r.ms.toFixed(2)} ms (${r.min.toFixed(2)}–${r.max.toFixed(2)})`;

// A 10 MB tool output: 125,000 lines of 80 bytes (a build log, a big grep).
const mb = quick ? 1 : 10;
const line = "src/module/file.rs:1234: warning: unused variable `x` in this function body....\n";
const output = line.repeat(Math.ceil((mb << 20) / line.length));
session.truncateToolOutput("warm up");
const t = median(() => session.truncateToolOutput(output, { fullOutputAt: "/tmp/out.txt" }));
const copy = median(() => new TextEncoder().encode(output).length);
console.log(`truncateToolOutput, ${(output.length / 1048576).toFixed(1)} MB, ${t.out.omittedLines.toLocaleString("en-US")} lines left out: ${f(t)}`);
console.log(`  for scale, TextEncoder.encode of the same string in JS: ${f(copy)}`);

// A 5,000-turn history: prompt, tool call, a 2 KB result, an answer.
const turns = quick ? 200 : 5000;
const messages = [];
for (let i = 0; i < turns; i++) {
  const id = `toolu_${String(i).padStart(6, "0")}`;
  messages.push({ role: "user", content: `prompt ${i}` });
  messages.push({ role: "assistant", content: [{ type: "tool_use", id, name: "Read", input: { path: `src/f${i}.rs` } }] });
  messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "fn main() {}\n".repeat(160) }] });
  messages.push({ role: "assistant", content: [{ type: "text", text: `done ${i}` }] });
}
const p = median(() => session.pruneOldToolOutputsWithReport(messages));
const stringify = median(() => JSON.stringify(messages).length);
const bytes = JSON.stringify(messages).length;
console.log(
  `pruneOldToolOutputs, ${turns.toLocaleString("en-US")} turns (${(bytes / 1048576).toFixed(1)} MB of JSON), ` +
    `${p.out.report.prunedResults.toLocaleString("en-US")} results pruned, ~${p.out.report.savedTokens.toLocaleString("en-US")} tokens saved: ${f(p)}`,
);
console.log(`  of which JSON.stringify of the messages in JS: ${f(stringify)}`);
