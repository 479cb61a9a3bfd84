// @garuda/session/redis: the SessionStore contract on Redis, for agents that
// run on many machines (CI runners, containers). The agent changes one
// constructor: new RedisSessionStore({ url }) for new FileSessionStore(dir).
//
//   <prefix>{<id>}:log                  the session: a stream, one redacted record line per entry
//   <prefix>{<id>}:child:<childId>      a subagent run, a stream of its own
//   <prefix>{<id>}:children             the set of its child ids
//   <stream>:lease                      the writer's lease (SET NX PX, renewed while it lives)
//   <stream>:acks                       per writer token, the last record sequence number appended
//   <prefix>index                       sessions by last update (a sorted set, ms since the epoch;
//                                       kept to the second while a writer writes, exact after close)
//
// Rules kept here:
// - every key of one session has the session id as its hash tag, so no
//   command crosses slots on Redis Cluster;
// - one writer per session: a lease, taken with SET NX PX and renewed by the
//   connection's thread; a crashed writer's lease expires and the session can
//   be resumed elsewhere;
// - a write returns only after Redis accepted it (with `appendfsync always`,
//   after it is on the server's disk); a failed write throws, memory is put
//   back to what Redis has, and the next call first settles whether the lost
//   append landed: each record carries (writer token, sequence number), which
//   the append script checks, so a retry never duplicates a record and a
//   request lost in flight can never land later;
// - the `redis` npm package is an optional peer dependency: the rest of
//   @garuda/session installs and works without it.
"use strict";

// getBuiltinModule first: an ESM bundle of this CommonJS file (esbuild --format=esm) has no require (Node >= 20.16, Bun, Deno).
const path = process.getBuiltinModule?.("node:path") ?? require("node:path");
const crypto = process.getBuiltinModule?.("node:crypto") ?? require("node:crypto");
const { Worker, MessageChannel, receiveMessageOnPort } = process.getBuiltinModule?.("node:worker_threads") ?? require("node:worker_threads");
const session = require("./garuda_session.js");
// The id rules are the file store's: one place says what a session id is.
const { fail } = require("./files.js");
const { JournalBase, checkId, checkToolUseId, cleanChildId } = require("./journal-base.js");

const BATCH = 5000;

/** Where the `redis` package is: the host's own copy, found from the working directory or from here. */
function redisModule(given) {
  if (given) return given;
  for (const from of [process.cwd(), __dirname]) {
    try {
      return require.resolve("redis", { paths: [from] });
    } catch {}
  }
  throw fail("ERR_REDIS_MISSING", "RedisSessionStore needs the `redis` package (npm install redis): it is an optional peer dependency of @garuda/session");
}

/**
 * The thread that talks to Redis, and two ways to ask it: `call` waits for
 * the answer (Atomics.wait; for open, write and close, which the contract
 * makes synchronous), `ask` returns a Promise.
 */
class Connection {
  constructor(config, timeoutMs) {
    this.timeoutMs = timeoutMs;
    this.flag = new Int32Array(new SharedArrayBuffer(4));
    const sync = new MessageChannel();
    const async = new MessageChannel();
    this.worker = new Worker(path.join(__dirname, "redis-worker.js"), {
      workerData: { ...config, timeoutMs, flag: this.flag.buffer, syncPort: sync.port2, asyncPort: async.port2 },
      transferList: [sync.port2, async.port2],
    });
    this.worker.unref();
    this.worker.on("error", () => {});
    this.syncPort = sync.port1;
    this.syncPort.unref();
    this.asyncPort = async.port1;
    this.pending = new Map();
    this.asyncPort.on("message", ({ id, value, error }) => {
      const p = this.pending.get(id);
      if (!p) return;
      this.pending.delete(id);
      if (this.pending.size === 0) this.asyncPort.unref();
      error ? p.reject(storeError(error)) : p.resolve(value);
    });
    this.asyncPort.unref();
    this.next = 0;
    this.closed = false;
  }

  call(op, ...args) {
    if (this.closed) throw fail("ERR_STORE_CLOSED", "the RedisSessionStore is closed");
    const id = ++this.next;
    this.syncPort.postMessage({ id, op, args });
    const deadline = Date.now() + this.timeoutMs;
    for (;;) {
      Atomics.store(this.flag, 0, 0);
      let m;
      while ((m = receiveMessageOnPort(this.syncPort))) {
        if (m.message.id !== id) continue; // the late answer of a call that timed out
        if (m.message.error) throw storeError(m.message.error);
        return m.message.value;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw fail("ERR_STORE_UNAVAILABLE", `Redis did not answer ${op} within ${this.timeoutMs} ms`);
      Atomics.wait(this.flag, 0, 0, left);
    }
  }

  ask(op, ...args) {
    if (this.closed) return Promise.reject(fail("ERR_STORE_CLOSED", "the RedisSessionStore is closed"));
    const id = ++this.next;
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.pending.delete(id) && this.pending.size === 0) this.asyncPort.unref();
        reject(fail("ERR_STORE_UNAVAILABLE", `Redis did not answer ${op} within ${this.timeoutMs} ms`));
      }, this.timeoutMs);
      this.pending.set(id, {
        resolve: (v) => (clearTimeout(timer), resolve(v)),
        reject: (e) => (clearTimeout(timer), reject(e)),
      });
      this.asyncPort.ref();
      this.asyncPort.postMessage({ id, op, args });
    });
  }

  close() {
    if (this.closed) return;
    try {
      this.call("quit");
    } catch {}
    this.closed = true;
    this.worker.terminate();
  }
}

/** What the Redis side said, as a store error with a stable code. */
function storeError({ message }) {
  if (message.includes("GARUDA_LOCKED")) return fail("ERR_SESSION_LOCKED", `write: ${message.replace(/^.*GARUDA_LOCKED /, "")}`);
  if (message.includes("GARUDA_REMOVED")) return fail("ERR_SESSION_REMOVED", `write: ${message.replace(/^.*GARUDA_REMOVED /, "")}; nothing more is written to it`);
  return fail("ERR_STORE_UNAVAILABLE", `Redis: ${message}`);
}

/** A session (or a child run) open for writing on Redis: this writer holds its lease. */
class RedisJournal extends JournalBase {
  constructor(store, keys, label, index, options) {
    super(label, options);
    this.store = store;
    this.keys = keys; // [stream, lease, acks]
    this.index = index; // { key, id } for a session, null for a child run
    this.token = crypto.randomUUID();
    this.seq = 0;
    this.lastId = "";
    /** The acknowledged text, in pieces ending with a newline, to put memory back after a failed write. */
    this.acked = [];
    /** An append whose answer never came: { seq, line }. */
    this.unsettled = null;
    /** When the last write the index does not show yet was made (the index is kept to the second). */
    this.unindexed = null;
    this.isClosed = false;
    const conn = store.conn;
    const got = conn.call("acquire", keys[1], this.token, store.leaseMs);
    if (!got.ok) {
      this.journal.free();
      throw fail("ERR_SESSION_LOCKED", `the session is open for writing elsewhere (${keys[0]}; its lease ends within ${got.ttl} ms unless its writer renews it); one writer at a time`);
    }
    try {
      conn.call("hold", keys[1], this.token, store.leaseMs);
      for (;;) {
        const { count, last, text } = conn.call("range", keys[0], this.lastId, BATCH);
        this.journal.feed(text);
        this.acked.push(text);
        this.lastId = last;
        if (count < BATCH) break;
      }
      this.journal.finish();
    } catch (e) {
      this.journal.free();
      try {
        conn.call("release", keys[1], this.token);
      } catch {}
      throw e;
    }
  }

  get closed() {
    return this.isClosed;
  }

  /** Memory as Redis has it: the acknowledged lines replayed. */
  #rebuild() {
    this.journal.free();
    this.journal = new session.Journal(this.options);
    for (const text of this.acked) this.journal.feed(text);
    this.journal.finish();
  }

  /** Settles an append whose answer never came: if it landed, memory takes it too. */
  #settle() {
    if (!this.unsettled) return;
    const { seq, line } = this.unsettled;
    const landed = this.store.conn.call("settle", this.keys[2], this.token, seq);
    this.unsettled = null;
    if (landed) {
      this.acked.push(line + "\n");
      this.journal.feed(line + "\n");
      this.journal.finish();
    }
  }

  /**
   * Redacts the record, applies it, appends its line to the stream, and
   * returns the line once Redis accepted it. Throws ERR_STORE_UNAVAILABLE
   * when Redis did not answer (memory is back to what Redis has; the next
   * call settles whether the append landed), ERR_SESSION_LOCKED when another
   * writer took the session, ERR_SESSION_REMOVED when it was removed.
   */
  write(record) {
    this.usable("write: ");
    try {
      this.#settle();
    } catch (e) {
      throw fail("ERR_STORE_UNAVAILABLE", `write: ${e.message}; the record is not written`, e);
    }
    const line = this.apply(record);
    const seq = this.seq + 1;
    let id;
    try {
      const index = this.index && { ...this.index, force: this.seq === 0 };
      const done = this.store.conn.call("append", this.keys, this.token, seq, line, this.store.leaseMs, this.lastId, "lease", index);
      id = done.id;
      this.unindexed = this.index !== null && !done.indexed ? Date.now() : null;
    } catch (e) {
      this.#rebuild();
      if (e.code === "ERR_STORE_UNAVAILABLE") {
        this.seq = seq;
        this.unsettled = { seq, line };
        throw fail("ERR_STORE_UNAVAILABLE", `write: ${e.message}; the record is not in memory, and whether it reached Redis is settled before the next write`, e);
      }
      if (e.code === "ERR_SESSION_REMOVED") this.removed = true;
      throw e;
    }
    this.seq = seq;
    if (id) this.lastId = id;
    this.acked.push(line + "\n");
    return line;
  }

  /** Releases the lease (after settling a lost append, when Redis answers). */
  close() {
    if (this.isClosed) return;
    this.isClosed = true;
    this.store.openHere.delete(this.keys[0]);
    try {
      this.#settle();
      if (this.unindexed) this.store.conn.call("zadd", this.index.key, this.unindexed, this.index.id);
      this.store.conn.call("release", this.keys[1], this.token);
    } catch {
      // Redis is away: the lease expires on its own.
    }
    this.journal.free();
  }
}

class RedisSessionStore {
  /**
   * @param {{ url?: string, cluster?: string[], prefix?: string, leaseMs?: number, timeoutMs?: number,
   *   redactor?, maxLineBytes?: number, redisModule?: string }} options
   */
  constructor(options = {}) {
    if (options === null || typeof options !== "object") throw fail("ERR_INVALID_ARG_TYPE", "new RedisSessionStore(options): options must be an object");
    const { url, cluster, client } = options;
    let config;
    if (client) {
      // A client the host made: its connection options open this store's own
      // connection (the contract's synchronous writes need a thread of their own).
      const o = client.options ?? client._options ?? {};
      config = o.rootNodes ? { cluster: o.rootNodes.map((n) => n.url ?? `redis://${n.socket?.host ?? "127.0.0.1"}:${n.socket?.port ?? 6379}`) } : { url: o.url ?? `redis://${o.socket?.host ?? "127.0.0.1"}:${o.socket?.port ?? 6379}` };
    } else if (Array.isArray(cluster) && cluster.length > 0) {
      config = { cluster: cluster.map(String) };
    } else if (typeof url === "string" || url === undefined) {
      config = { url: url ?? "redis://127.0.0.1:6379" };
    } else {
      throw fail("ERR_INVALID_ARG_TYPE", "new RedisSessionStore(options): options.url must be a redis:// URL");
    }
    this.prefix = options.prefix ?? "garuda:";
    this.leaseMs = options.leaseMs ?? 30000;
    this.redactor = options.redactor ?? new session.Redactor({ env: process.env });
    this.maxLineBytes = options.maxLineBytes;
    this.conn = new Connection({ ...config, module: redisModule(options.redisModule) }, options.timeoutMs ?? 10000);
    /** The journals this process has open, by stream key: a rename or a removal goes through them. */
    this.openHere = new Map();
    stores.add(this);
  }

  #base(id) {
    checkId(id, "session id");
    return `${this.prefix}{${id}}`;
  }

  #keys(stream) {
    return [stream, `${stream}:lease`, `${stream}:acks`];
  }

  #open(stream, label, index, options) {
    if (this.openHere.has(stream)) {
      throw fail("ERR_SESSION_LOCKED", `the session is already open for writing in this process (${stream}); write through that journal`);
    }
    const journal = new RedisJournal(this, this.#keys(stream), label, index, { redactor: this.redactor, maxLineBytes: this.maxLineBytes, ...options });
    this.openHere.set(stream, journal);
    return journal;
  }

  /** Opens (or creates) a session for writing: `{ modelView, strict }` are the Journal's. */
  open(id, options = {}) {
    const stream = `${this.#base(id)}:log`;
    return this.#open(stream, `session ${id}`, { key: `${this.prefix}index`, id }, options);
  }

  /** Opens a subagent run kept with its parent (the child id cleaned to [A-Za-z0-9_-]). */
  openChild(id, childId, options = {}) {
    const base = this.#base(id);
    const child = cleanChildId(childId);
    this.conn.call("sadd", `${base}:children`, child);
    return this.#open(`${base}:child:${child}`, `child run ${child} of ${id}`, null, options);
  }

  /** A stream's text in pieces (each whole lines ending with a newline), as read in batches. */
  async #pieces(stream, each = (text) => text) {
    const pieces = [];
    // The next batch is asked for before this one is used: Redis and the
    // connection's thread read while this thread replays.
    let next = this.conn.ask("range", stream, "", BATCH);
    for (;;) {
      const { count, last, text } = await next;
      if (count === BATCH) next = this.conn.ask("range", stream, last, BATCH);
      pieces.push(each(text));
      if (count < BATCH) return pieces;
    }
  }

  async #lines(stream) {
    return (await this.#pieces(stream)).join("").split("\n").slice(0, -1);
  }

  /** Whether the session's log exists (resumeSession asks before it opens one, which would create it). */
  async exists(id) {
    return Boolean(await this.conn.ask("exists", `${this.#base(id)}:log`));
  }

  async #existing(id) {
    const stream = `${this.#base(id)}:log`;
    if (!(await this.conn.ask("exists", stream))) throw fail("ERR_NO_SESSION", `no session ${JSON.stringify(id)} in Redis (${stream})`);
    return stream;
  }

  /** The session's records, in order (lines that parse): they go straight into rebuildState and summariseSession. */
  async read(id) {
    const records = [];
    for (const line of await this.#lines(await this.#existing(id))) {
      try {
        const r = JSON.parse(line);
        if (r && typeof r === "object" && !Array.isArray(r)) records.push(r);
      } catch {}
    }
    return records;
  }

  /** The journal text of a session (or of one of its child runs), as a file would hold it: for replay, export and the viewer. */
  async text(id, childId) {
    // A child is named as children() lists it, or by the id openChild was given.
    const child = childId === undefined ? undefined : (await this.children(id)).includes(childId) ? childId : cleanChildId(childId);
    const stream = child === undefined ? await this.#existing(id) : `${this.#base(id)}:child:${child}`;
    return (await this.#pieces(stream)).join("");
  }

  /** The ids of a session's child runs (openChild), sorted. */
  async children(id) {
    return (await this.conn.ask("members", `${this.#base(id)}:children`)).map(String).sort();
  }

  /** The replayed state of a session. */
  async replay(id) {
    const journal = new session.Journal({ maxLineBytes: this.maxLineBytes });
    try {
      await this.#pieces(await this.#existing(id), (text) => journal.feed(text));
      journal.finish();
      return journal.state();
    } finally {
      journal.free();
    }
  }

  /** The most recently updated session (child runs are not listed). */
  async latest() {
    return (await this.list())[0]?.id;
  }

  /** `{ id, updated: Date }` for every session, newest first (/sessions). */
  async list() {
    const rows = await this.conn.ask("index", `${this.prefix}index`);
    return rows.map(({ id, updated }) => ({ id, updated: new Date(updated) }));
  }

  /** /sessions rows (summariseSession of each), newest first. */
  async summaries() {
    const rows = [];
    for (const { id, updated } of await this.list()) {
      rows.push(session.summariseSession(id, updated, await this.text(id)));
    }
    return rows;
  }

  /**
   * Appends a title record and keeps the update time (a rename is not
   * activity). A session open in this process is written through its own
   * journal, so its memory sees the title too.
   */
  async setTitle(id, title) {
    if (typeof title !== "string") throw fail("ERR_INVALID_ARG_TYPE", "setTitle(id, title): title must be a string");
    const stream = await this.#existing(id);
    const indexKey = `${this.prefix}index`;
    const updated = await this.conn.ask("score", indexKey, id);
    const record = { t: new Date().toISOString(), type: "title", title };
    const here = this.openHere.get(stream);
    if (here) {
      here.write(record);
    } else {
      const { line } = this.redactor.redactLine(JSON.stringify(record));
      await this.conn.ask("append", this.#keys(stream), crypto.randomUUID(), 1, line, this.leaseMs, "", "free", null);
    }
    if (updated !== null) await this.conn.ask("zadd", indexKey, updated, id);
  }

  /**
   * Deletes the session, its child runs and its index entry. A journal of it
   * open in this process is closed first and refuses later writes
   * (ERR_SESSION_REMOVED); a writer elsewhere finds it removed on its next write.
   */
  async remove(id) {
    const base = this.#base(id);
    for (const [stream, journal] of this.openHere) {
      if (stream === `${base}:log` || stream.startsWith(`${base}:child:`)) {
        journal.close();
        journal.removed = true;
      }
    }
    const children = await this.conn.ask("members", `${base}:children`);
    const keys = [`${base}:children`, `${base}:outputs`, ...this.#keys(`${base}:log`)];
    for (const c of children) keys.push(...this.#keys(`${base}:child:${c}`));
    await this.conn.ask("del", keys);
    await this.conn.ask("zrem", `${this.prefix}index`, id);
  }

  /**
   * Keeps a tool call's whole output with the session (keepFullOutput): a
   * field of the hash <prefix>{<id>}:outputs (the session's hash tag, so a
   * cluster keeps it on the session's node), redacted as every line the
   * store writes. Returns where; `remove` deletes it with the session.
   */
  keepOutput(id, toolUseId, output) {
    const key = `${this.#base(id)}:outputs`;
    checkToolUseId(toolUseId, "keepOutput(id, toolUseId, output)");
    if (typeof output !== "string") throw fail("ERR_INVALID_ARG_TYPE", "keepOutput(id, toolUseId, output): output must be a string");
    this.conn.call("hset", key, toolUseId, this.redactor.redact(output));
    return `redis:${key}#${toolUseId}`;
  }

  /** A kept output (redacted); ERR_NO_OUTPUT when none was kept. */
  async readOutput(id, toolUseId) {
    const key = `${this.#base(id)}:outputs`;
    checkToolUseId(toolUseId, "readOutput(id, toolUseId)");
    const text = await this.conn.ask("hget", key, toolUseId);
    if (text == null) throw fail("ERR_NO_OUTPUT", `no kept output for ${toolUseId} in session ${id} (${key})`);
    return String(text);
  }

  /** Closes the journals open here and the connection. */
  close() {
    for (const journal of [...this.openHere.values()]) journal.close();
    this.conn.close();
    stores.delete(this);
  }
}

// A writer that exits normally gives its leases back; one that crashes
// leaves them to expire (leaseMs).
const stores = new Set();
process.on("exit", () => {
  for (const store of stores) {
    for (const journal of store.openHere.values()) {
      try {
        journal.close();
      } catch {}
    }
  }
});

module.exports = { RedisSessionStore, RedisJournal };
