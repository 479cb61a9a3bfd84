// @garuda/session/agent, the session layer Garuda imports (issue 9), and the
// SessionStore contract: one suite, run against every store.
import { test, describe, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { DtsStore } from "./support/dts-store.mjs";
import * as redis from "./support/redis.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);
const agent = require(path.join(root, "pkg/node/agent.js"));
const core = require(path.join(root, "pkg/node/garuda_session.js"));
const { FileSessionStore, MemorySessionStore, Redactor } = { ...agent, Redactor: core.Redactor };

const SECRET = "pl4nted-S3CRET-value-0042";
const redactor = new Redactor({ env: { MY_API_TOKEN: SECRET } });
const stores = {
  FileSessionStore: () => new FileSessionStore(path.join(fs.mkdtempSync(path.join(tmpdir(), "garuda-contract-")), "sessions"), { redactor }),
  MemorySessionStore: () => new MemorySessionStore({ redactor }),
  // Written from the .d.ts only (issue 20): the layer needs nothing undeclared.
  "a store written from the declarations only": () => new DtsStore(core, { redactor }),
};

// The same suite on Redis (issue 14): one server, and a 3-master cluster.
// Each store gets a prefix of its own, so each test sees an empty store.
if (redis.available) {
  const { RedisSessionStore } = require(path.join(root, "pkg/node/redis.js"));
  const server = await redis.startRedis();
  const cluster = await redis.startCluster();
  const made = [];
  let n = 0;
  const make = (where) => () => {
    const store = new RedisSessionStore({ ...where, redactor, redisModule: redis.redisModule, prefix: `contract${++n}:`, timeoutMs: 5000 });
    made.push(store);
    return store;
  };
  stores.RedisSessionStore = make({ url: server.url });
  stores["RedisSessionStore on a 3-master cluster"] = make({ cluster: cluster.urls });
  after(async () => {
    for (const s of made) s.close();
    await server.stop();
    await cluster.stop();
  });
} else {
  test("SessionStore contract: RedisSessionStore", (t) => t.skip(redis.SKIP));
}
const record = (text) => ({ t: "2026-11-30T10:00:00.000Z", type: "user", message: { role: "user", content: text } });
const response = (content, usage = { inputTokens: 100, outputTokens: 20 }) => ({ content, usage });

for (const [name, make] of Object.entries(stores)) {
  describe(`SessionStore contract: ${name}`, () => {
    test("open writes, read gives the records back, and they go straight into rebuildState and summariseSession", async () => {
      const store = make();
      const j = store.open("s1");
      j.write({ type: "start", sessionId: "s1", model: "m1" });
      j.write(record("hello"));
      j.close();
      const records = await store.read("s1");
      assert.deepEqual(records.map((r) => r.type), ["start", "user"]);
      assert.equal(core.rebuildState(records).prompts, 1);
      assert.equal(core.summariseSession("s1", new Date(), records).prompt, "hello");
    });

    test("latest and list: newest first, { id, updated: Date }; setTitle keeps the update time; remove deletes", async () => {
      const store = make();
      for (const id of ["a", "b"]) {
        const j = store.open(id);
        j.write(record(id));
        j.close();
        await new Promise((r) => setTimeout(r, 15));
      }
      assert.equal(await store.latest(), "b");
      const rows = await store.list();
      assert.deepEqual(rows.map((r) => r.id), ["b", "a"]);
      assert.ok(rows.every((r) => r.updated instanceof Date));
      const before = rows[1].updated.getTime();
      await store.setTitle("a", "Renamed");
      const after = (await store.list()).find((r) => r.id === "a");
      assert.equal(after.updated.getTime(), before, "a rename is not activity");
      assert.equal((await store.read("a")).at(-1).title, "Renamed");
      await store.remove("a");
      assert.deepEqual((await store.list()).map((r) => r.id), ["b"]);
      await assert.rejects(() => store.read("a"), (e) => e.code === "ERR_NO_SESSION");
    });

    test("ids: a bad id is ERR_BAD_SESSION_ID; a child id is cleaned, not refused", async () => {
      const store = make();
      assert.throws(() => store.open("../x"), (e) => e.code === "ERR_BAD_SESSION_ID");
      const child = store.openChild("parent", "agent-code.reviewer-toolu_01");
      child.write(record("child"));
      child.close();
      assert.deepEqual((await store.list()).map((r) => r.id).filter((id) => id !== "parent"), [], "latest and list ignore children");
    });

    test("one writer: a second open is ERR_SESSION_LOCKED; rename and remove of the open session work", async () => {
      const store = make();
      const s = agent.startSession(store, { id: "live", model: "m1" });
      assert.throws(() => store.open("live"), (e) => e.code === "ERR_SESSION_LOCKED");
      await store.setTitle("live", "Renamed while open");
      assert.equal(s.figures().title, "Renamed while open", "the open session sees its own rename");
      agent.addUserMessage(s, "after the rename");
      await store.remove("live");
      assert.throws(() => agent.addUserMessage(s, "after the removal"), (e) => e.code === "ERR_SESSION_REMOVED");
      assert.deepEqual(await store.list(), []);
    });

    test("a session: the model's messages keep the secret, the store never gets it; live equals replay", async () => {
      const store = make();
      const s = agent.startSession(store, { model: "claude-m1", root: "/work" });
      agent.addUserMessage(s, "fix it", ["a note"], ["@src/a.ts"]);
      agent.addAssistantResponse(s, response([{ type: "tool_use", id: "t1", name: "bash", input: { command: "env" } }]), 1, 0.002);
      agent.addToolResults(s, [{ type: "tool_result", tool_use_id: "t1", content: `MY_API_TOKEN=${SECRET}` }], { calls: [{ toolUseId: "t1", name: "bash", durationMs: 3 }] });
      agent.addAssistantResponse(s, response([{ type: "text", text: "done" }], { inputTokens: 300, outputTokens: 10 }), 2, 0.003);
      assert.ok(JSON.stringify(s.messages).includes(SECRET), "the model may see the secret");
      const records = await store.read(s.id);
      assert.ok(!JSON.stringify(records).includes(SECRET), "the disk may not");
      const replayed = core.rebuildState(records);
      assert.deepEqual(replayed.usage, s.usage);
      assert.equal(replayed.costUsd, s.costUsd);
      assert.equal(replayed.contextTokens, s.contextTokens);
      assert.equal(replayed.messages.length, s.messages.length);
      assert.deepEqual(JSON.parse(JSON.stringify(replayed.messages)), s.messages.map((m) => JSON.parse(redactor.redactLine(JSON.stringify({ type: "user", message: m })).line).message));
      assert.equal(s.contextTokens, 310);
      assert.equal(s.messages[0].content[1].text, "<garuda_note>a note</garuda_note>");
    });
  });
}

describe("the session layer", () => {
  test("closeOpenToolCalls after partial results: checkMessages finds nothing, reads are forgotten", () => {
    const s = agent.startSession(new MemorySessionStore(), { model: "m1" });
    agent.addUserMessage(s, "go");
    agent.addAssistantResponse(s, response([{ type: "tool_use", id: "a", name: "read", input: {} }, { type: "tool_use", id: "b", name: "read", input: {} }]), 1, 0);
    agent.addToolResults(s, [{ type: "tool_result", tool_use_id: "a", content: "ok" }]);
    s.files.noteRead("x.ts", "content");
    assert.equal(s.files.noteRead("x.ts", "content"), true);
    assert.ok(agent.closeOpenToolCalls(s), "b was open");
    assert.equal(agent.closeOpenToolCalls(s), null, "nothing is open now");
    assert.deepEqual(core.checkMessages(s.messages), []);
    assert.equal(s.files.noteRead("x.ts", "content"), false, "read deduplication forgotten");
  });

  test("a record with a wrong field is refused before the journal, naming the field; memory unchanged", async () => {
    const store = new MemorySessionStore();
    const s = agent.startSession(store, { model: "m1" });
    agent.addUserMessage(s, "go");
    const before = [JSON.stringify(s.messages), JSON.stringify(s.figures()), (await store.read(s.id)).length];
    assert.throws(() => agent.addAssistantResponse(s, response([]), "three", 0), (e) => e.code === "ERR_BAD_RECORD" && /`step`/.test(e.message));
    assert.throws(() => agent.addUnreported(s, "many"), (e) => e.code === "ERR_BAD_RECORD" && /`tokens`/.test(e.message));
    assert.throws(() => agent.redo(s), (e) => e.code === "ERR_NOTHING_TO_REDO");
    assert.throws(() => agent.undo(s), (e) => e.code === "ERR_NOTHING_TO_UNDO");
    assert.deepEqual([JSON.stringify(s.messages), JSON.stringify(s.figures()), (await store.read(s.id)).length], before);
  });

  test("compaction, snapshot, undo and redo keep the copy of the messages equal to the journal's", async () => {
    const store = new MemorySessionStore();
    const s = agent.startSession(store, { model: "m1" });
    agent.addUserMessage(s, "one");
    agent.addAssistantResponse(s, response([{ type: "text", text: "1" }]), 1, 0);
    agent.addSnapshot(s, { tree: "t0", prompt: "two", durationMs: 1 });
    agent.addUserMessage(s, "two");
    agent.addAssistantResponse(s, response([{ type: "text", text: "2" }]), 2, 0);
    assert.equal(s.messages.length, 4);
    agent.undo(s, "t1");
    assert.deepEqual(s.messages.map((m) => m.role), ["user", "assistant"]);
    agent.redo(s);
    assert.equal(s.messages.length, 4);
    agent.addCompaction(s, { stage: 1, beforeTokens: 900, afterTokens: 100, messages: [{ role: "user", content: "summary" }] });
    assert.deepEqual(s.messages, [{ role: "user", content: "summary" }]);
    assert.equal(s.contextTokens, 100);
    assert.deepEqual(core.rebuildState(await store.read(s.id)).messages, s.messages);
  });

  test("resumeSession: the latest session, a resume record, the same file; read tracking starts empty", async () => {
    const store = stores.FileSessionStore();
    const first = agent.startSession(store, { model: "m1" });
    agent.addUserMessage(first, "hello");
    first.files.record("a.ts", "x");
    first.journal.close();
    const s = await agent.resumeSession(store, { model: "m2" });
    assert.equal(s.id, first.id);
    assert.equal(s.model, "m2");
    assert.equal(s.files.status("a.ts", "x"), "unread");
    assert.deepEqual((await store.read(s.id)).map((r) => r.type), ["start", "user", "resume"]);
    assert.equal(s.messages.length, 1);
    s.journal.close();
    await assert.rejects(() => agent.resumeSession(new MemorySessionStore()), (e) => e.code === "ERR_NO_SESSION");
  });

  test("FileTracker: unread, changed, current; the same range of the same content is a repeat read", () => {
    const f = new agent.FileTracker();
    assert.equal(f.status("a", "1"), "unread");
    f.record("a", "1");
    assert.equal(f.status("a", "1"), "current");
    assert.equal(f.status("a", "2"), "changed");
    assert.equal(f.noteRead("a", "1", 0, 10), false);
    assert.equal(f.noteRead("a", "1", 0, 10), true);
    assert.equal(f.noteRead("a", "1", 10, 10), false);
    assert.equal(f.noteRead("a", "2", 0, 10), false, "new content");
    f.forgetReads();
    assert.equal(f.noteRead("a", "2", 0, 10), false);
  });
});

test("a lock whose pid was reused by another process is taken over", (t) => {
  if (!fs.existsSync(`/proc/${process.pid}/stat`)) return t.skip("no /proc here: start times cannot be read");
  const dir = path.join(fs.mkdtempSync(path.join(tmpdir(), "garuda-reuse-")), "sessions");
  fs.mkdirSync(dir, { recursive: true });
  // Our own parent shell's pid is alive, but it did not start when this lock says.
  fs.writeFileSync(path.join(dir, "s.lock"), JSON.stringify({ pid: process.ppid, start: "1" }));
  const store = new FileSessionStore(dir);
  const j = store.open("s");
  j.close();
  // A live holder with its real start time is respected.
  const holder = spawnSync("sh", ["-c", "cat /proc/$$/stat; sleep 0"], { encoding: "utf8" });
  assert.equal(holder.status, 0);
  fs.writeFileSync(path.join(dir, "s.lock"), JSON.stringify({ pid: process.pid, start: fs.readFileSync(`/proc/${process.pid}/stat`, "utf8").split(") ")[1].split(" ")[19] }));
  assert.throws(() => store.open("s"), (e) => e.code === "ERR_SESSION_LOCKED");
});
