// The context tools through the session layer (issue 26), on every store:
// keepFullOutput / readFullOutput (kept redacted, 0600, removed with the
// session), truncateToolOutput with the kept output's place in its note,
// pruneOldToolOutputs of the session's history at a compaction point, and
// the strict resume that fails closed; and `check --strict` in the CLI.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import * as redis from "./support/redis.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);
const agent = require(path.join(root, "pkg/node/agent.js"));
const core = require(path.join(root, "pkg/node/garuda_session.js"));

const SECRET = "pl4nted-S3CRET-context-0099";
const redactor = new core.Redactor({ env: { MY_API_TOKEN: SECRET } });
const tmp = () => fs.mkdtempSync(path.join(tmpdir(), "garuda-context-"));
const stores = {
  FileSessionStore: () => new agent.FileSessionStore(path.join(tmp(), "sessions"), { redactor }),
  MemorySessionStore: () => new agent.MemorySessionStore({ redactor }),
};
if (redis.available) {
  const { RedisSessionStore } = require(path.join(root, "pkg/node/redis.js"));
  const server = await redis.startRedis();
  const made = [];
  let n = 0;
  stores.RedisSessionStore = () => {
    const s = new RedisSessionStore({ url: server.url, redactor, redisModule: redis.redisModule, prefix: `context${++n}:`, timeoutMs: 5000 });
    made.push(s);
    return s;
  };
  after(async () => {
    for (const s of made) s.close();
    await server.stop();
  });
} else {
  test("context tools on RedisSessionStore", (t) => t.skip(redis.SKIP));
}

const big = Array.from({ length: 5000 }, (_, i) => `row ${i} token=${i === 42 ? SECRET : "x"}`).join("\n");

/** A session of `turns` prompts, each with one Bash call whose output is `output`. */
function runTurns(s, turns, output) {
  for (let t = 0; t < turns; t++) {
    agent.addUserMessage(s, `prompt ${t}`);
    const id = `toolu_${String(t).padStart(3, "0")}`;
    agent.addAssistantResponse(s, { content: [{ type: "tool_use", id, name: "Bash", input: { command: "cat big.log" } }], usage: { inputTokens: 10, outputTokens: 5 } }, t * 2 + 1);
    agent.addToolResults(s, [{ type: "tool_result", tool_use_id: id, content: output(id) }], { calls: [{ toolUseId: id, name: "Bash", durationMs: 3 }] });
    agent.addAssistantResponse(s, { content: [{ type: "text", text: "done" }], usage: { inputTokens: 10, outputTokens: 5 } }, t * 2 + 2);
  }
}

for (const [name, make] of Object.entries(stores)) {
  test(`${name}: a large output is kept whole (redacted), truncated for the model, and pruned later`, async () => {
    const store = make();
    const s = agent.startSession(store, { model: "claude-sonnet-4-5" });
    const kept = {};
    runTurns(s, 4, (id) => {
      const where = agent.keepFullOutput(s, id, big);
      kept[id] = where;
      const t = agent.truncateToolOutput(big, { fullOutputAt: where });
      assert.equal(t.truncated, true);
      assert.equal(t.omittedLines, 4300);
      assert.ok(t.text.includes(where), "the note says where the full output is");
      return t.text;
    });
    // Kept whole, and redacted at rest.
    const back = await agent.readFullOutput(store, s.id, "toolu_000");
    assert.equal(back.split("\n").length, 5000);
    assert.ok(!back.includes(SECRET), "the kept output is redacted");
    assert.ok(back.includes("[REDACTED]"));
    if (name === "FileSessionStore") {
      const file = kept.toolu_000;
      assert.equal(file, path.join(store.dir, s.id, "outputs", "toolu_000.txt"));
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      assert.ok(!fs.readFileSync(file).includes(SECRET));
      assert.deepEqual(fs.readdirSync(path.dirname(file)).sort(), ["toolu_000.txt", "toolu_001.txt", "toolu_002.txt", "toolu_003.txt"], "no temporary files left");
    }
    // The model's view carries the truncated text (the journal too, redacted).
    assert.ok(JSON.stringify(s.messages).includes("4,300 lines"));

    // Pruning at a compaction point: a new array; the session's own messages stay.
    const before = JSON.stringify(s.messages);
    const { messages, report } = agent.pruneOldToolOutputsWithReport(s.messages, { kept });
    assert.equal(JSON.stringify(s.messages), before);
    assert.equal(report.prunedResults, 2);
    assert.ok(report.savedTokens > 1000, `saved ${report.savedTokens} tokens`);
    assert.deepEqual(core.checkMessages(messages, { thinking: true }), []);
    assert.ok(JSON.stringify(messages[2]).includes(kept.toolu_000));
    agent.addCompaction(s, { stage: 1, beforeTokens: 40000, afterTokens: 20000, messages });
    assert.deepEqual(core.checkMessages(s.messages), []);
    s.journal.close();

    // remove deletes the kept outputs with the session.
    await store.remove(s.id);
    await assert.rejects(agent.readFullOutput(store, s.id, "toolu_000"), { code: "ERR_NO_OUTPUT" });
    if (name === "FileSessionStore") assert.ok(!fs.existsSync(kept.toolu_000));
    assert.throws(() => store.keepOutput(s.id, "../x", "y"), { code: "ERR_INVALID_ARG" });
  });

  test(`${name}: resumeSession { strict: true } fails closed on a malformed line; the default stays tolerant`, async () => {
    const store = make();
    const s = agent.startSession(store, { model: "m" });
    agent.addUserMessage(s, "hello");
    // A record of a type this version does not know (a newer writer's).
    s.journal.write(JSON.stringify({ t: "2026-12-01T00:00:00.000Z", type: "user", message: { role: "user", content: "fine" } }));
    s.journal.close();
    // A newer writer's record of a type this version does not know, written
    // through a journal that is not strict (the session layer's is).
    const id = s.id;
    const other = store.open(id, {});
    other.write({ t: "2026-12-01T00:00:01.000Z", type: "mode", mode: "full-access" });
    other.close();
    await assert.rejects(agent.resumeSession(store, id, { strict: true }), (e) => e.code === "ERR_JOURNAL_CORRUPT" && e.line === 4 && e.kind === "unknown-type");
    // Nothing was written, and the lock was given back: a tolerant resume works.
    const r = await agent.resumeSession(store, id);
    const text = JSON.stringify(r.messages);
    assert.ok(text.includes("hello") && text.includes("fine"), text);
    r.journal.close();
  });
}

test("check --strict exits 1 naming the line; without it the same file checks clean", () => {
  const dir = tmp();
  const file = path.join(dir, "s.jsonl");
  fs.writeFileSync(
    file,
    [
      JSON.stringify({ t: "2026-12-01T00:00:00.000Z", type: "start", sessionId: "s", model: "m" }),
      JSON.stringify({ t: "2026-12-01T00:00:01.000Z", type: "user", message: { role: "user", content: "hi" } }),
      "{broken",
      "",
    ].join("\n"),
  );
  const cli = path.join(root, "pkg/bin/garuda-session.cjs");
  const loose = spawnSync(process.execPath, [cli, "check", file], { encoding: "utf8" });
  assert.equal(loose.status, 0, loose.stderr);
  const strict = spawnSync(process.execPath, [cli, "check", file, "--strict"], { encoding: "utf8" });
  assert.equal(strict.status, 1);
  assert.match(strict.stdout, /line 3 is bad-json/);
});

// pruneOldToolOutputs reads the caller's objects in JS and the core plans
// from their shapes (src/wasm/js/prune.js): shapes that could lead such a
// walk astray, each checked against what the core's rules say of it.
test("pruneOldToolOutputs on odd shapes: astral ids, tricky type names, throwing getters, holes", () => {
  const turn = (id, extra = {}) => [
    { role: "user", content: `go ${id}` },
    { role: "assistant", content: [{ type: "tool_use", id, name: "Réad 📄", input: {} }] },
    { role: "user", content: [{ type: "tool_result", tool_use_id: id, content: "x".repeat(5000), ...extra }] },
  ];
  const hostile = { role: "user" };
  Object.defineProperty(hostile, "content", { enumerable: true, get() { throw new Error("no reading me"); } });
  const messages = [
    ...turn("toolu_😀_1"),
    { role: "assistant", content: [{ type: "constructor" }, { type: "__proto__" }, null, 7, "text"] },
    hostile,
    ...turn("toolu_2", { content: [{ type: "image", source: { type: "base64", data: "A".repeat(4000) } }] }),
    [1, 2],
    ...turn("toolu_3"),
    ...turn("toolu_4"),
    ...turn("toolu_5"),
  ];
  const frozen = JSON.stringify(messages.filter((m) => m !== hostile));
  const { messages: out, report } = core.pruneOldToolOutputsWithReport(messages, { protectTurns: 2 });
  assert.equal(JSON.stringify(messages.filter((m) => m !== hostile)), frozen, "the input is unchanged");
  assert.equal(out.length, messages.length);
  // The astral id and tool name reach the placeholder whole (the walk hands
  // strings over by their JS lengths).
  assert.match(out[2].content[0].content, /^\[Output of Réad 📄 \(call toolu_😀_1\) pruned/);
  assert.equal(out[2].content[0].tool_use_id, "toolu_😀_1");
  // Odd blocks and non-messages are left as they were, the very objects.
  assert.equal(out[3], messages[3]);
  assert.equal(out[4], hostile);
  assert.equal(out[8], messages[8]);
  // The image result is pruned too; the protected last turns are the caller's own.
  assert.match(out[7].content[0].content, /^\[Output of Réad 📄 \(call toolu_2\)/);
  assert.equal(out.at(-1), messages.at(-1));
  assert.ok(report.prunedResults >= 3, JSON.stringify(report));
});
