// The thread that owns the Redis connection of a RedisSessionStore (redis.js).
// The SessionStore contract is synchronous where the agent writes (open,
// write, close): the main thread posts a request here and sleeps on a shared
// flag (Atomics.wait) until this thread has Redis's reply, so a write returns
// only after Redis accepted it. Lease renewal runs here too, on this thread's
// own timers, so a busy main thread does not lose its lease.
"use strict";

const { workerData } = require("node:worker_threads");

const redis = require(workerData.module);
const flag = new Int32Array(workerData.flag);

// Appends one record line to a session's stream, if this writer holds the
// lease (taking it back if it lapsed and nobody wrote since), and only once
// per (writer token, sequence number): a retry of an append that did land is
// answered 0 and appends nothing. KEYS: stream, lease, acks.
// ARGV: token, seq, line, leaseMs, last entry id this writer knows, mode
// ("lease" for the writer, "free" for a one-off title from another process).
const APPEND = `
if ARGV[6] == 'lease' then
  local holder = redis.call('GET', KEYS[2])
  if holder ~= ARGV[1] then
    if holder then return redis.error_reply('GARUDA_LOCKED another writer holds the session') end
    local top = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
    local topId = top[1] and top[1][1] or ''
    if ARGV[5] ~= '' and topId == '' then return redis.error_reply('GARUDA_REMOVED the session was removed') end
    if topId ~= ARGV[5] then return redis.error_reply('GARUDA_LOCKED another writer wrote to the session since this writer read it') end
    redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[4])
  end
end
local last = tonumber(redis.call('HGET', KEYS[3], ARGV[1]) or '0')
if tonumber(ARGV[2]) <= last then return 0 end
local id = redis.call('XADD', KEYS[1], '*', 'r', ARGV[3])
redis.call('HSET', KEYS[3], ARGV[1], ARGV[2])
return id
`;

// After an append whose reply never came: did it land? If not, the sequence
// number is spent here, so the lost request can never land later.
// KEYS: acks. ARGV: token, seq. Returns 1 when it had landed, 0 when not.
const SETTLE = `
local last = tonumber(redis.call('HGET', KEYS[1], ARGV[1]) or '0')
if last >= tonumber(ARGV[2]) then return 1 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 0
`;

const RENEW = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('PEXPIRE', KEYS[1], ARGV[2]) else return 0 end`;
const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) else return 0 end`;

function makeClient() {
  // Commands fail at once while the connection is down instead of waiting in
  // a queue: a queued append could land after the writer gave up on it.
  const socket = { connectTimeout: workerData.timeoutMs, reconnectStrategy: (n) => Math.min(20 * 2 ** n, 500) };
  if (workerData.cluster) {
    return redis.createCluster({
      rootNodes: workerData.cluster.map((url) => ({ url })),
      defaults: { socket, disableOfflineQueue: true },
    });
  }
  return redis.createClient({ url: workerData.url, socket, disableOfflineQueue: true });
}

const client = makeClient();
client.on("error", () => {}); // each command reports its own failure
const ready = client.connect();
ready.catch(() => {});

/**
 * A script by its SHA1 (EVALSHA), sent whole only when the server does not
 * have it (NOSCRIPT: first use, or after a restart or failover).
 */
const sha1 = (text) => require("node:crypto").createHash("sha1").update(text).digest("hex");
const SHAS = new Map([APPEND, SETTLE, RENEW, RELEASE].map((t) => [t, sha1(t)]));
async function script(text, keys, args) {
  const tail = [String(keys.length), ...keys, ...args.map(String)];
  try {
    return await cmd(keys[0], ["EVALSHA", SHAS.get(text), ...tail]);
  } catch (e) {
    if (!String(e?.message).startsWith("NOSCRIPT")) throw e;
    return cmd(keys[0], ["EVAL", text, ...tail]);
  }
}

/** One command, routed by its key on a cluster. */
function cmd(key, args, readonly = false) {
  return workerData.cluster ? client.sendCommand(key, readonly, args) : client.sendCommand(args);
}

const held = new Map(); // lease key -> interval
const lastIndexed = new Map(); // index key + session id -> when this connection last set its time

const ops = {
  async acquire(lease, token, leaseMs) {
    const ok = await cmd(lease, ["SET", lease, token, "NX", "PX", String(leaseMs)]);
    if (ok === "OK") return { ok: true };
    const ttl = await cmd(lease, ["PTTL", lease], true);
    return { ok: false, ttl: Number(ttl) };
  },
  hold(lease, token, leaseMs) {
    clearInterval(held.get(lease));
    const timer = setInterval(() => {
      script(RENEW, [lease], [token, leaseMs]).catch(() => {});
    }, Math.max(50, Math.floor(leaseMs / 3)));
    held.set(lease, timer);
  },
  async release(lease, token) {
    clearInterval(held.get(lease));
    held.delete(lease);
    return script(RELEASE, [lease], [token]);
  },
  async range(stream, after, count) {
    const start = after === "" ? "-" : `(${after}`;
    const entries = await cmd(stream, ["XRANGE", stream, start, "+", "COUNT", String(count)], true);
    // One string per batch, as a file's text: one copy to the main thread and
    // one feed into the core, not one per line.
    let text = "";
    for (const [, fields] of entries) text += String(fields[1] ?? "") + "\n";
    return { count: entries.length, last: entries.length ? String(entries[entries.length - 1][0]) : after, text };
  },
  async append(keys, token, seq, line, leaseMs, lastId, mode, index) {
    const [stream, lease, acks] = keys;
    const id = await script(APPEND, [stream, lease, acks], [token, seq, line, leaseMs, lastId, mode]);
    // The index says when a session was last written to, to the second: one
    // round trip more per record would double a write's latency. The first
    // write of each second updates it, and close() writes the last time.
    let indexed = false;
    const now = Date.now();
    if (index && (index.force || now - (lastIndexed.get(index.key + index.id) ?? 0) >= 1000)) {
      await cmd(index.key, ["ZADD", index.key, String(now), index.id]);
      lastIndexed.set(index.key + index.id, now);
      indexed = true;
    }
    return { id: id === 0 ? null : String(id), indexed };
  },
  async settle(acks, token, seq) {
    return Number(await script(SETTLE, [acks], [token, seq]));
  },
  async exists(key) {
    return Number(await cmd(key, ["EXISTS", key], true)) > 0;
  },
  async sadd(key, member) {
    return cmd(key, ["SADD", key, member]);
  },
  async hset(key, field, value) {
    return cmd(key, ["HSET", key, field, value]);
  },
  async hget(key, field) {
    return cmd(key, ["HGET", key, field], true);
  },
  async members(key) {
    return cmd(key, ["SMEMBERS", key], true);
  },
  async del(keys) {
    return keys.length === 0 ? 0 : cmd(keys[0], ["DEL", ...keys]);
  },
  async zadd(key, score, member) {
    return cmd(key, ["ZADD", key, String(score), member]);
  },
  async zrem(key, member) {
    return cmd(key, ["ZREM", key, member]);
  },
  async index(key) {
    const flat = await cmd(key, ["ZRANGE", key, "+inf", "-inf", "BYSCORE", "REV", "WITHSCORES"], true);
    // node-redis answers WITHSCORES as [member, score] pairs (RESP3 shape) or flat (RESP2).
    if (flat.length > 0 && Array.isArray(flat[0])) return flat.map(([id, score]) => ({ id: String(id), updated: Number(score) }));
    const rows = [];
    for (let i = 0; i + 1 < flat.length; i += 2) rows.push({ id: String(flat[i]), updated: Number(flat[i + 1]) });
    return rows;
  },
  async score(key, member) {
    const s = await cmd(key, ["ZSCORE", key, member], true);
    return s == null ? null : Number(s);
  },
  async quit() {
    for (const t of held.values()) clearInterval(t);
    held.clear();
    await client.close?.().catch?.(() => {});
  },
};

function reply(port, message) {
  port.postMessage(message);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

function serve(port) {
  port.on("message", async ({ id, op, args }) => {
    try {
      await ready;
      reply(port, { id, value: await ops[op](...args) });
    } catch (e) {
      reply(port, { id, error: { message: String(e?.message ?? e), name: e?.name ?? "Error" } });
    }
  });
}

serve(workerData.syncPort);
serve(workerData.asyncPort);
