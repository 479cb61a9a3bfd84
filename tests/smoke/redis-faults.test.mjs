// RedisSessionStore under faults, on real servers (issue 14): a writer killed
// with SIGKILL, Redis killed and restarted with its append-only file, Redis
// stopped while a writer writes. Each time: nothing acknowledged is lost,
// nothing is written twice, and memory equals what Redis has.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import * as redis from "./support/redis.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);
const agent = require(path.join(root, "pkg/node/agent.js"));
const core = require(path.join(root, "pkg/node/garuda_session.js"));
const writer = path.join(root, "tests/smoke/fixtures/redis-writer.cjs");
const skip = redis.available ? false : redis.SKIP;

function storeOn(server, prefix, options = {}) {
  const { RedisSessionStore } = require(path.join(root, "pkg/node/redis.js"));
  return new RedisSessionStore({ url: server.url, prefix, redisModule: redis.redisModule, ...options });
}

/** The user prompts of a session as Redis has them, in order. */
async function prompts(store, id) {
  return (await store.read(id)).filter((r) => r.type === "user").map((r) => r.message.content);
}

/** Starts the writer process; resolves once it printed `until` acks (or `open` when until is 0). */
function startWriter(server, prefix, id, leaseMs, first, until) {
  const child = spawn(process.execPath, [writer, server.url, prefix, id, String(leaseMs), redis.redisModule, String(first)], { stdio: ["ignore", "pipe", "inherit"] });
  const acks = [];
  let buffered = "";
  const ready = new Promise((resolve, reject) => {
    child.stdout.on("data", (d) => {
      buffered += d;
      let i;
      while ((i = buffered.indexOf("\n")) >= 0) {
        const line = buffered.slice(0, i);
        buffered = buffered.slice(i + 1);
        if (line.startsWith("ack ")) acks.push(Number(line.slice(4)));
        if (line.startsWith("error")) reject(new Error(line));
        if (acks.length >= until) resolve();
      }
    });
    child.once("exit", () => resolve());
  });
  return { child, acks, ready };
}

test("a writer killed with SIGKILL: its lease expires, another process resumes, nothing acknowledged is lost", { skip }, async () => {
  const server = await redis.startRedis();
  try {
    const prefix = "kill:";
    // A lease long enough that a loaded machine cannot let it run out
    // between the kill and the first look (1 s once did, in a full run).
    const LEASE = 4000;
    const first = startWriter(server, prefix, "s", LEASE, 0, 150);
    await first.ready;
    first.child.kill("SIGKILL");
    await new Promise((r) => first.child.once("exit", r));
    const acked = [...first.acks];
    const store = storeOn(server, prefix, { leaseMs: LEASE });
    assert.throws(() => store.open("s"), (e) => e.code === "ERR_SESSION_LOCKED", "the dead writer's lease still lives");
    await new Promise((r) => setTimeout(r, LEASE + 300));
    // Another process resumes and carries on (its records numbered apart:
    // the killed writer may have written one more than it could report).
    const second = startWriter(server, prefix, "s", 1000, 100000, 20);
    await second.ready;
    second.child.kill("SIGKILL");
    await new Promise((r) => second.child.once("exit", r));
    const got = await prompts(store, "s");
    for (const n of [...acked, ...second.acks]) assert.ok(got.includes(`record ${n}`), `acknowledged record ${n} is in Redis`);
    assert.equal(new Set(got).size, got.length, "no record twice");
    store.close();
  } finally {
    await server.stop();
  }
});

/** Writes `record <n>` through the session until `count` were acknowledged; returns what happened to each. */
async function writeThrough(s, from, count, during = () => {}) {
  const acked = [];
  const failed = [];
  for (let n = from; acked.length < count; n++) {
    await during(n);
    try {
      agent.addUserMessage(s, `record ${n}`);
      acked.push(n);
    } catch (e) {
      assert.equal(e.code, "ERR_STORE_UNAVAILABLE", e.message);
      assert.match(e.message, /Redis|answer/);
      failed.push(n);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return { acked, failed };
}

/** After a fault: every acknowledged record once, in order; memory equals Redis; a failed one is in both or neither. */
async function checkAfterFault(store, s, acked, failed) {
  const got = await prompts(store, s.id);
  assert.equal(new Set(got).size, got.length, "no record twice");
  const ackedText = acked.map((n) => `record ${n}`);
  assert.deepEqual(got.filter((p) => ackedText.includes(p)), ackedText, "every acknowledged record, in order");
  const replayed = core.rebuildState(await store.read(s.id));
  assert.deepEqual(replayed.messages, s.messages.map((m) => JSON.parse(JSON.stringify(m))), "memory equals Redis");
  for (const n of failed) {
    const inRedis = got.includes(`record ${n}`);
    const inMemory = s.messages.some((m) => m.content === `record ${n}`);
    assert.equal(inRedis, inMemory, `record ${n} failed: in both or in neither`);
  }
}

test("Redis killed and restarted with appendfsync always mid-session: every acknowledged record is there", { skip }, async () => {
  const server = await redis.startRedis({ aof: true });
  const store = storeOn(server, "aof:", { timeoutMs: 1000 });
  try {
    const s = agent.startSession(store, { id: "s", model: "m1" });
    const before = await writeThrough(s, 0, 100);
    await server.stop("SIGKILL");
    await server.start();
    const afterRestart = await writeThrough(s, 100, 100);
    await checkAfterFault(store, s, [...before.acked, ...afterRestart.acked], afterRestart.failed);
  } finally {
    store.close();
    await server.stop();
  }
});

test("Redis stopped during writes: clear errors, and after it returns no duplicate and no gap", { skip }, async () => {
  const server = await redis.startRedis({ aof: true });
  const store = storeOn(server, "stop:", { timeoutMs: 1000 });
  try {
    const s = agent.startSession(store, { id: "s", model: "m1" });
    let down = 0;
    const { acked, failed } = await writeThrough(s, 0, 300, async (n) => {
      if (n === 100) {
        // Stopped between two writes, and restarted a little later.
        await server.stop("SIGTERM");
        down = Date.now();
      }
      if (down && Date.now() - down > 600) {
        await server.start();
        down = 0;
      }
    });
    assert.ok(failed.length > 0, "writes while Redis was away failed, saying so");
    await checkAfterFault(store, s, acked, failed);
  } finally {
    store.close();
    await server.stop();
  }
});

test("new RedisSessionStore({ client }) opens its own connection with the client's options; bad options are ERR_INVALID_ARG_TYPE", { skip }, async () => {
  const server = await redis.startRedis();
  const client = require(redis.redisModule).createClient({ url: server.url });
  const { RedisSessionStore } = require(path.join(root, "pkg/node/redis.js"));
  const store = new RedisSessionStore({ client, prefix: "client:", redisModule: redis.redisModule });
  try {
    const j = store.open("s");
    j.write({ type: "start", sessionId: "s", model: "m1" });
    j.close();
    assert.deepEqual((await store.list()).map((r) => r.id), ["s"]);
    assert.throws(() => new RedisSessionStore({ url: 6379, redisModule: redis.redisModule }), (e) => e.code === "ERR_INVALID_ARG_TYPE");
  } finally {
    store.close();
    await server.stop();
  }
});
