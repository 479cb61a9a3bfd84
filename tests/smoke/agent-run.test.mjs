// The scripted agent run of issue 9: a fake model drives 300 turns through
// the session layer (tool calls, signed thinking, subagent runs through
// startChildSession, a compaction, undo and redo, a model switch, secrets in tool
// output). The run is killed with SIGKILL at 30 random points, some between
// a tool_use and its result, and started again each time: it resumes,
// closes open tool calls and carries on. At the end the replayed state
// equals the live one, every history sent to the model passed
// checkMessages (the run exits 3 otherwise), no secret is on disk, and
// every complete line is intact. Issue 20: every history also goes to a
// fake API (support/fake-api.cjs) that signs each thinking block over the
// content before it and refuses a block whose prefix or text changed; the
// run pauses once at step 120 and resumes with another model, and switches
// models live at step 200.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { spawn, spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);
const core = require(path.join(root, "pkg/node/garuda_session.js"));
const { FileSessionStore } = require(path.join(root, "pkg/node/store.js"));
const loop = path.join(root, "tests/smoke/fixtures/agent-loop.cjs");

const TURNS = 300;
const KILLS = 30;
const SECRET = "agent-run-S3CRET-9f8e7d6c5b4a";

function run(dir, killAfterMs) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [loop, path.join(root, "pkg"), dir, String(TURNS)], {
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, AGENT_RUN_TOKEN: SECRET },
    });
    let out = "";
    let err = "";
    let timer;
    child.stdout.on("data", (d) => {
      out += d;
      if (killAfterMs !== undefined && timer === undefined && out.includes("ready\n")) timer = setTimeout(() => child.kill("SIGKILL"), killAfterMs);
    });
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, out, err });
    });
  });
}

test(`a scripted agent run of ${TURNS} turns survives ${KILLS} kills -9`, { timeout: 10 * 60_000 }, async () => {
  const dir = path.join(fs.mkdtempSync(path.join(tmpdir(), "garuda-agent-run-")), "sessions");
  let seed = 7;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  let killed = 0;
  let finishedEarly = false;
  let paused = 0;
  for (let i = 0; i < KILLS; i++) {
    const killAfter = Math.floor(random() * 60);
    const r = await run(dir, killAfter);
    if (r.signal === "SIGKILL") killed++;
    else if (r.code === 0 && r.out.includes("paused ")) paused++;
    else {
      // The folder stays for a look (rare crash points: replay it by hand).
      assert.equal(r.code, 0, `run ${i} failed: ${r.err} (the session is in ${dir}; its kill was due ${killAfter} ms after ready)`);
      finishedEarly = true;
      break;
    }
  }
  let last = await run(dir);
  if (last.code === 0 && last.out.includes("paused ")) {
    paused++;
    last = await run(dir);
  }
  assert.equal(last.code, 0, last.err);
  assert.equal(paused, 1, "the run paused once, at step 120, and resumed with another model");
  const live = JSON.parse(/done (.*)\n/.exec(last.out)[1]);
  const store = new FileSessionStore(dir);
  const state = store.replay("run");
  // The replayed state equals the live one.
  for (const k of ["usage", "costUsd", "costIncomplete", "contextTokens", "steps", "prompts", "model", "unreportedTokens", "childDebits"]) {
    assert.deepEqual(state[k], live.figures[k], k);
  }
  assert.equal(state.messages.length, live.messages);
  assert.equal(state.steps, TURNS);
  assert.ok(state.ended, "the end record");
  // No secret on disk, in the session or its subagent runs.
  const files = [path.join(dir, "run.jsonl"), ...fs.readdirSync(path.join(dir, "run"), { recursive: true }).map((f) => path.join(dir, "run", f)).filter((f) => fs.statSync(f).isFile())];
  for (const f of files) assert.ok(!fs.readFileSync(f, "utf8").includes(SECRET), `a secret in ${f}`);
  assert.ok(fs.readFileSync(path.join(dir, "run.jsonl"), "utf8").includes("[REDACTED]"), "the secrets were there to redact");
  // The subagent runs went through startChildSession: full sessions, ended.
  for (const f of files.slice(1).filter((f) => f.endsWith(".jsonl"))) {
    const text = fs.readFileSync(f, "utf8");
    // A kill can land between a child file's creation and its first whole
    // line: such a run holds nothing to check (its call was closed as interrupted).
    if (!text.includes("\n")) continue;
    const child = core.rebuildState(text);
    assert.equal(child.model, "claude-haiku", f);
    assert.ok(child.prompts >= 1, f);
  }
  // Every complete line is intact: only torn last lines (one per kill at most), ended on the next open, fail to parse.
  const bad = state.warnings.filter((w) => w.kind === "bad-json").length;
  assert.ok(bad <= killed, `${bad} bad lines after ${killed} kills`);
  assert.deepEqual(state.warnings.filter((w) => w.kind !== "bad-json"), []);
  // Some kills landed between a tool_use and its result: the next run's
  // closeOpenToolCalls answered them (synthetic tool_results records).
  const records = await store.read("run");
  // Every history went to the fake API (exit 3 otherwise); the session
  // resumed with another model (m1 to m1b at 121) and switched live (m2 at 200).
  assert.ok(live.requests > 0);
  assert.ok(records.some((r) => r.type === "resume" && r.model === "claude-m1b"), "a resume with another model");
  assert.ok(records.some((r) => r.type === "model" && r.model === "claude-m2"), "a live switch");
  // Large outputs were kept whole (redacted: the scan above) and truncated for the model,
  // and compactions pruned older outputs to placeholders (issue 26).
  const outputs = fs.readdirSync(path.join(dir, "run", "outputs"));
  assert.ok(outputs.length >= 10, `${outputs.length} kept outputs`);
  assert.ok(records.some((r) => r.type === "tool_results" && JSON.stringify(r.message).includes("lines (") && JSON.stringify(r.message).includes("left out")), "a truncated output");
  const pruning = records.filter((r) => r.type === "compaction" && JSON.stringify(r.messages).includes("[Output of "));
  assert.ok(pruning.length >= 3, `${pruning.length} pruning compactions`);
  const synthetic = records.filter((r) => r.type === "tool_results" && r.synthetic).length;
  assert.ok(synthetic >= 1, "no kill landed between a tool call and its result");
  // The resumed history is one the API accepts, with thinking on too.
  assert.deepEqual(core.checkMessages(core.resumeMessages(state, { model: "claude-m2", thinking: true }), { thinking: true }), []);
  console.log(`agent run: ${TURNS} turns, ${killed} kills${finishedEarly ? " (the run finished before the last kill)" : ""}, ${synthetic} of them between a tool call and its result, ${bad} torn lines ended, ${records.filter((r) => r.type === "resume").length} resumes, ${state.messages.length} messages, ${files.filter((f) => f.endsWith(".jsonl")).length - 1} subagent runs, ${outputs.length} kept outputs, ${pruning.length} pruning compactions, cost ${core.formatCost(state)}`);
});

// The kills above land at wall-clock times, so a crash point that breaks
// resume shows up only now and then (one in twelve runs failed at step 41:
// a kill between step 38's or 39's call and its result, then the snapshot,
// undo and redo of step 40). Here the crash points are cut exactly: one
// uninterrupted run, then its journal cut at every record boundary (and
// inside the record) around the run's hard places, each cut resumed in a
// copy of the session folder and carried on a few steps, through the same
// checks and fake API.
test("a crash at every record boundary around pruning, undo and redo, and the pause resumes to a history the API accepts", { timeout: 10 * 60_000 }, () => {
  const runTo = (dir, turns) => spawnSync(process.execPath, [loop, path.join(root, "pkg"), dir, String(turns)], { env: { ...process.env, AGENT_RUN_TOKEN: SECRET }, encoding: "utf8" });
  const base = path.join(fs.mkdtempSync(path.join(tmpdir(), "garuda-agent-cuts-")), "sessions");
  // To 120 (the run pauses there) and on to 123 with another model.
  assert.equal(runTo(base, 123).status, 0);
  assert.equal(runTo(base, 123).status, 0);
  const lines = fs.readFileSync(path.join(base, "run.jsonl"), "utf8").split("\n");
  // [from, to, torn]: the steps whose record boundaries are cut, and
  // whether a cut inside each record (a torn last line) is tried too.
  const around = [
    [25, 25, false],
    [38, 40, true],
    [120, 121, false],
  ];
  let offset = 0;
  let step = 0;
  let cuts = 0;
  for (const line of lines.slice(0, -1)) {
    const prompt = /"do step (\d+)"/.exec(line);
    if (prompt) step = Number(prompt[1]);
    const end = offset + Buffer.byteLength(line) + 1;
    const mid = offset + Math.floor((end - offset) / 2);
    offset = end;
    const range = around.find(([from, to]) => step >= from && step <= to);
    if (!range) continue;
    for (const at of range[2] ? [end, mid] : [end]) {
      const dir = path.join(fs.mkdtempSync(path.join(tmpdir(), "garuda-agent-cut-")), "sessions");
      fs.cpSync(base, dir, { recursive: true });
      fs.truncateSync(path.join(dir, "run.jsonl"), at);
      let r = runTo(dir, range[1] + 2);
      if (r.status === 0 && r.stdout.includes("paused ")) r = runTo(dir, range[1] + 2);
      assert.equal(r.status, 0, `a crash at byte ${at} (step ${step}, ${line.slice(0, 40)}…): ${r.stderr} (in ${dir})`);
      fs.rmSync(path.dirname(dir), { recursive: true });
      cuts++;
    }
  }
  assert.ok(cuts >= 30, `${cuts} cuts`);
  console.log(`agent run cuts: ${cuts} crash points resumed and carried on`);
});
