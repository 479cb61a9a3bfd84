// The Redis store against the file store (issue 14), on loopback:
// - append latency (p50, p99) and throughput of 1 KB records written through
//   a journal, with Redis's append-only file off and with appendfsync always;
// - replay of a 100 MB session read from Redis against the same journal read
//   from disk.
// Starts its own redis-server (Debian's) on a free port and stops it.
//
//   node bench/redis.mjs      (after .ci/build)

import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { journalFile } from "./data.mjs";
import * as redis from "../tests/smoke/support/redis.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const { FileSessionStore } = require(path.join(here, "../pkg/node/store.js"));
const { RedisSessionStore } = require(path.join(here, "../pkg/node/redis.js"));
const RECORDS = Number(process.env.RECORDS ?? 5000);

if (!redis.available) {
  console.log(`SKIP bench/redis.mjs: ${redis.SKIP}`);
  process.exit(0);
}

const text = "I read the parser and will fix the off-by-one in the budget check; then run the tests again, sooner. ".repeat(10).slice(0, 960);
const record = (i) => ({ t: "2026-11-30T10:00:00.000Z", type: "user", message: { role: "user", content: `${i} ${text}` } });
const pct = (xs, p) => xs[Math.min(xs.length - 1, Math.floor(xs.length * p))];

function appends(store, label) {
  const j = store.open(`bench-${Date.now()}`);
  for (let i = 0; i < 200; i++) j.write(record(i)); // warm-up
  const times = [];
  let bytes = 0;
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < RECORDS; i++) {
    const a = process.hrtime.bigint();
    bytes += j.write(record(i)).length + 1;
    times.push(Number(process.hrtime.bigint() - a) / 1e3);
  }
  const seconds = Number(process.hrtime.bigint() - t0) / 1e9;
  j.close();
  times.sort((a, b) => a - b);
  console.log(
    `${label.padEnd(34)} p50 ${pct(times, 0.5).toFixed(0).padStart(5)} µs  p99 ${pct(times, 0.99).toFixed(0).padStart(5)} µs  ` +
      `${(RECORDS / seconds).toFixed(0).padStart(6)} records/s  ${(bytes / seconds / 1e6).toFixed(1)} MB/s`,
  );
}

const server = await redis.startRedis();
const aofServer = await redis.startRedis({ aof: true });
const stores = [];
const onRedis = (s, prefix) => {
  const store = new RedisSessionStore({ url: s.url, prefix, redisModule: redis.redisModule, timeoutMs: 60000 });
  stores.push(store);
  return store;
};
try {
  console.log(`append ${RECORDS} records of ~1 KB through a journal (redaction, apply, store):`);
  const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-bench-"));
  appends(new FileSessionStore(dir), "FileSessionStore (local disk)");
  appends(onRedis(server, "bench:"), "RedisSessionStore (no AOF)");
  appends(onRedis(aofServer, "bench:"), "RedisSessionStore (appendfsync always)");

  // The 100 MB journal, loaded into a stream with redis-cli's pipe mode, and
  // replayed through each store.
  const file = journalFile(100);
  const lines = fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "");
  const proto = lines.map((l) => {
    const args = ["XADD", "replay:{big}:log", "*", "r", l];
    return `*${args.length}\r\n` + args.map((a) => `$${Buffer.byteLength(a)}\r\n${a}\r\n`).join("");
  });
  const protoFile = path.join(dir, "load.resp");
  fs.writeFileSync(protoFile, proto.join("") + `*4\r\n$4\r\nZADD\r\n$12\r\nreplay:index\r\n$1\r\n1\r\n$3\r\nbig\r\n`);
  const load = require("node:child_process").spawnSync("sh", ["-c", `redis-cli -p ${server.port} --pipe < ${protoFile}`], { encoding: "utf8" });
  if (load.status !== 0) throw new Error(load.stderr);
  fs.copyFileSync(file, path.join(dir, "big.jsonl"));
  const fileStore = new FileSessionStore(dir);
  const redisStore = onRedis(server, "replay:");
  const median = async (f) => {
    const ts = [];
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now();
      await f();
      ts.push(performance.now() - t0);
    }
    return ts.sort((a, b) => a - b)[1];
  };
  const fromDisk = await median(() => fileStore.replay("big"));
  const fromRedis = await median(() => redisStore.replay("big"));
  const a = fileStore.replay("big");
  const b = await redisStore.replay("big");
  if (a.messages.length !== b.messages.length || a.costUsd !== b.costUsd) throw new Error("the two replays differ");
  const mb = fs.statSync(file).size / 1e6;
  console.log(`replay of a ${mb.toFixed(0)} MB session (${lines.length} records), median of 3:`);
  console.log(`  from disk (FileSessionStore.replay)   ${fromDisk.toFixed(0)} ms  (${(mb / (fromDisk / 1e3)).toFixed(0)} MB/s)`);
  console.log(`  from Redis (RedisSessionStore.replay) ${fromRedis.toFixed(0)} ms  (${(mb / (fromRedis / 1e3)).toFixed(0)} MB/s)  ratio ${(fromRedis / fromDisk).toFixed(2)}x`);
} finally {
  for (const s of stores) s.close();
  await server.stop();
  await aofServer.stop();
}
