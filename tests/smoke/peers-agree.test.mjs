// The CLI's views of one session agree, on every real file of other agents
// (../shared/peers) and every fixture of tests/formats/: `replay`, `usage`
// and `export` (the transcript the viewer renders too) count the same
// prompts, tokens and cost. The Rust oracle (tests/peers_oracle.rs) checks
// the prompts against an independent walk of the raw lines.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "pkg/bin/garuda-session.cjs");
const { Journal } = createRequire(import.meta.url)(path.join(root, "pkg/node/garuda_session.js"));
const peers = path.join(process.env.GARUDA_SHARED ?? path.join(root, "../shared"), "peers");

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return walk(p);
    return /\.jsonl?$/.test(e.name) && !["manifest.json", "logs.json"].includes(e.name) && !e.name.endsWith(".meta.json") ? [p] : [];
  });
}

function cli(...args) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", maxBuffer: 1 << 28 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const files = () => {
  const out = walk(path.join(root, "tests/formats"));
  if (fs.existsSync(peers)) out.push(...walk(peers));
  else console.log(`SKIP peers-agree on real files: ${peers} is absent (../shared sits beside the repository in CI); fixtures only`);
  return out;
};

test("replay, usage and export agree on prompts, tokens and cost for each file", () => {
  for (const file of files()) {
    const name = path.relative(path.dirname(peers), file);
    const replay = JSON.parse(cli("replay", file, "--json").out);
    const usage = cli("usage", file, "--json");
    assert.equal(usage.code, 0, `${name}: ${usage.err}`);
    const totals = JSON.parse(usage.out).totals;
    for (const k of ["inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens"]) {
      assert.equal(totals[k], replay.usage[k], `${name}: ${k}`);
    }
    // Known or unknown alike; known, equal to the report's 6 decimals.
    const known = (c) => c !== null && c !== undefined;
    assert.equal(known(totals.costUsd), known(replay.costUsd), `${name}: cost ${totals.costUsd} vs ${replay.costUsd}`);
    if (known(replay.costUsd)) assert.ok(Math.abs(totals.costUsd - replay.costUsd) <= 1e-6 * Math.max(1, replay.costUsd), `${name}: cost ${totals.costUsd} vs ${replay.costUsd}`);
    const md = cli("export", file, "--format", "md", "--no-redact");
    assert.equal(md.code, 0, `${name}: ${md.err}`);
    // The transcript the viewer shows (the same core call): its prompts are
    // the replay's, and the export writes each of them.
    const journal = new Journal({ history: true });
    journal.feed(fs.readFileSync(file));
    journal.finish();
    const prompts = journal.transcript().filter((e) => e.type === "user");
    journal.free();
    assert.equal(prompts.length, replay.prompts, `${name}: the viewer's prompts are the replay's`);
    for (const e of prompts) assert.ok(md.out.includes(`## User (#${e.index}, `), `${name}: the export writes prompt #${e.index}`);
    // The header's cost is the file's own, or (a session with subagent
    // files beside it, whose runs the page draws) the sum with the file's
    // own in brackets.
    const header = md.out.split("\n").find((l) => l.startsWith("- cost: "));
    const own = header?.match(/^- cost: .+ with \d+ subagent runs? \((.+) its own\)$/)?.[1] ?? header?.slice("- cost: ".length);
    assert.equal(own, replay.cost, `${name}: the export's own cost is the replay's (${replay.cost})`);
  }
});

test("usage counts a request copied into a continued session once, and a subagent's requests in its session", () => {
  const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-usage-once-"));
  const project = path.join(dir, "projects/app");
  fs.mkdirSync(path.join(project, "a/subagents"), { recursive: true });
  const line = (session, n, t, extra = {}) =>
    JSON.stringify({
      parentUuid: n === 1 ? null : `${session}-${n - 1}`,
      isSidechain: false,
      sessionId: session,
      type: "assistant",
      uuid: `${session}-${n}`,
      timestamp: t,
      requestId: `req_${n}`,
      message: { id: `msg_${n}`, role: "assistant", model: "claude-sonnet-4-5-20250929", content: [{ type: "text", text: "ok" }], usage: { input_tokens: 100 * n, output_tokens: 10 * n } },
      ...extra,
    });
  const first = [line("a", 1, "2026-01-10T10:00:00Z"), line("a", 2, "2026-01-10T10:01:00Z")];
  fs.writeFileSync(path.join(project, "a.jsonl"), first.join("\n") + "\n");
  // The continued session starts with the lines of the one it continues.
  fs.writeFileSync(path.join(project, "b.jsonl"), [...first, line("b", 3, "2026-01-11T09:00:00Z")].join("\n") + "\n");
  fs.writeFileSync(path.join(project, "a/subagents/agent-x.jsonl"), line("a", 4, "2026-01-10T10:00:30Z", { isSidechain: true, agentId: "x" }) + "\n");
  const r = cli("usage", dir, "--json");
  assert.equal(r.code, 0, r.err);
  const report = JSON.parse(r.out);
  assert.equal(report.totals.inputTokens, 100 + 200 + 300 + 400, "each request once");
  assert.equal(report.totals.outputTokens, 10 + 20 + 30 + 40);
  const rows = Object.fromEntries(report.sessions.map((s) => [s.id, s]));
  assert.deepEqual(Object.keys(rows).sort(), ["a", "b"], "the subagent is no session of its own");
  assert.equal(rows.a.inputTokens, 100 + 200 + 400, "the subagent counts in its session");
  assert.equal(rows.b.inputTokens, 300, "the copies count in the session they came from");
  const sum = report.sessions.reduce((a, s) => a + s.costUsd, 0);
  assert.ok(Math.abs(sum - report.totals.costUsd) < 1e-6, "costs add up");
});

test("an inline sidechain run reads alone through new Journal({ run }), and a bad run is an Error", () => {
  const bytes = fs.readFileSync(path.join(root, "tests/formats/claude-code-chain.jsonl"));
  const main = new Journal({ history: true });
  main.feed(bytes);
  main.finish();
  const calls = main.transcript().flatMap((e) => (e.tools ?? []).filter((t) => t.child));
  main.free();
  assert.deepEqual(calls.map((t) => [t.id, t.child]), [["toolu_task", "sidechain-toolu_task"]]);
  const run = new Journal({ history: true, run: "toolu_task" });
  run.feed(bytes);
  run.finish();
  const s = run.state();
  run.free();
  assert.equal(s.prompts, 1);
  assert.equal(s.steps, 1);
  assert.throws(() => new Journal({ run: 7 }), /run must be a tool call's id/);
});
