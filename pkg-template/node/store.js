// @garuda/session/node: the file store of JOURNAL.md §7 for Node hosts.
//
//   .garuda/sessions/<id>.jsonl            a session
//   .garuda/sessions/<id>/<childId>.jsonl  its subagent runs
//   .garuda/sessions/<id>.lock             the writer's lock (pid inside)
//
// Rules kept here:
// - every id is validated before any path is built (`--resume ../x`);
// - the folder is 0700 and files 0600;
// - each record is one append of one whole line, so a crash loses at most
//   the line in progress;
// - a torn tail (a crash mid-line) is repaired on open by ending that line:
//   its bytes stay in the file, replay reports them as a bad line, and the
//   next record starts on a fresh line. Nothing is cut away;
// - one writer per session: open() takes <id>.lock with O_EXCL and refuses
//   while a live process holds it; a lock whose process is gone is taken over;
// - a write that fails (a full disk, a folder gone read-only) is cut back to
//   the last whole line and memory is rebuilt from the file, so the journal
//   and memory still agree; a session file deleted while open is never
//   written to again; a record over the maximum line size is refused.
// Errors carry a stable `code` (ERR_BAD_SESSION_ID, ERR_NO_SESSION, ERR_SESSION_LOCKED,
// ERR_SESSION_REMOVED, ERR_JOURNAL_CLOSED, ERR_JOURNAL_WRITE,
// ERR_STORE_UNWRITABLE, ERR_LINE_TOO_LONG, ERR_BAD_RECORD) and, for a
// failed system call, the system error as `cause`.
"use strict";

// getBuiltinModule first: an ESM bundle of this CommonJS file (esbuild --format=esm) has no require (Node >= 20.16, Bun, Deno).
const fs = process.getBuiltinModule?.("node:fs") ?? require("node:fs");
const path = process.getBuiltinModule?.("node:path") ?? require("node:path");
const session = require("./garuda_session.js");

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
const CHUNK = 4 << 20;

/** An Error with a stable `code`, as Node's own errors have. */
function fail(code, message, cause) {
  const e = new Error(message, cause ? { cause } : undefined);
  e.code = code;
  return e;
}

function checkId(id, what) {
  if (typeof id !== "string" || !session.validateSessionId(id)) {
    throw fail("ERR_BAD_SESSION_ID", `${what} ${JSON.stringify(id)} is not a session id: use letters, digits, "-" and "_" only`);
  }
}

/** A system error met while opening for writing, said plainly. */
function unwritable(what, e) {
  if (["EACCES", "EPERM", "EROFS", "ENOSPC", "EDQUOT"].includes(e?.code)) {
    return fail("ERR_STORE_UNWRITABLE", `cannot write ${what}: ${e.code} (${e.message})`, e);
  }
  return e;
}

/** Replays a file in chunks (no whole-file string); also says whether it ends mid-line. */
function replayFile(file, journal) {
  const fd = fs.openSync(file, "r");
  const buf = Buffer.alloc(CHUNK);
  let n;
  let last = -1;
  try {
    while ((n = fs.readSync(fd, buf, 0, buf.length, null)) > 0) {
      journal.feed(buf.subarray(0, n));
      last = buf[n - 1];
    }
  } finally {
    fs.closeSync(fd);
  }
  return last !== -1 && last !== 0x0a;
}

function pidAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === "EPERM";
  }
}

/**
 * What the journals of both stores share: the core Journal, the figures and
 * messages read from it, and the checks before anything touches it (a
 * removed session or a closed journal is said so, with its code).
 */
class JournalBase {
  constructor(label, options) {
    this.label = label;
    this.options = options;
    this.journal = new session.Journal(options);
    this.removed = false;
  }

  /** Whether the journal is closed (the subclass knows how). */
  get closed() {
    return false;
  }

  usable(what = "") {
    if (this.removed) throw fail("ERR_SESSION_REMOVED", `${what}${this.label} was removed; nothing more is written to it`);
    if (this.closed) throw fail("ERR_JOURNAL_CLOSED", `${what}${this.label} is closed`);
  }

  /** Redacts and applies a record in the core; returns the line to keep. */
  apply(record) {
    this.usable("write: ");
    // A record object becomes its JSON here: the core's own call out to
    // JSON.stringify cost almost a microsecond more per record.
    let text = record;
    if (typeof record === "object" && record !== null && !Array.isArray(record)) {
      try {
        text = JSON.stringify(record);
      } catch (e) {
        throw fail("ERR_BAD_RECORD", `write: the record could not be turned into JSON (${e.message})`);
      }
    }
    try {
      return this.journal.write(text);
    } catch (e) {
      throw fail(/maximum line size/.test(e.message) ? "ERR_LINE_TOO_LONG" : "ERR_BAD_RECORD", `write: ${e.message}`);
    }
  }

  state() {
    return this.journal.state();
  }

  /** Usage, cost, context size, message count, model...: O(1) of the conversation. */
  figures() {
    return this.journal.figures();
  }

  /** The messages from index `from` on, with their origins. */
  messagesFrom(from) {
    return this.journal.messagesFrom(from);
  }

  /** The number of messages and of warnings: plain numbers, for a copy kept in step. */
  get messageCount() {
    this.usable();
    return this.journal.messageCount;
  }

  get warningCount() {
    this.usable();
    return this.journal.warningCount;
  }
}

/** A session file open for writing. */
class FileJournal extends JournalBase {
  constructor(file, lockFile, options) {
    super(file, options);
    this.path = file;
    this.lockPath = lockFile;
    this.fd = null;
    try {
      this.fd = fs.openSync(file, "a+", FILE_MODE);
      fs.fchmodSync(this.fd, FILE_MODE);
    } catch (e) {
      this.journal.free();
      throw unwritable(file, e);
    }
    /** True when the file ended mid-line and open() ended that line. */
    this.repairedTornTail = false;
    if (fs.fstatSync(this.fd).size > 0 && replayFile(file, this.journal)) {
      fs.appendFileSync(this.fd, "\n");
      this.journal.feed("\n");
      this.repairedTornTail = true;
    }
    this.journal.finish();
  }

  /**
   * Redacts the record, applies it, appends its line, and returns the line.
   * When the append fails, the file is cut back to its last whole line and
   * memory is rebuilt from it, so both still agree, and the error says so.
   */
  write(record) {
    this.usable("write: ");
    const before = fs.fstatSync(this.fd);
    if (before.nlink === 0) {
      throw fail("ERR_SESSION_REMOVED", `write: ${this.path} was deleted while open; nothing more is written to it`);
    }
    const line = this.apply(record);
    const bytes = Buffer.from(line + "\n");
    try {
      for (let at = 0; at < bytes.length; ) at += fs.writeSync(this.fd, bytes, at, bytes.length - at);
    } catch (e) {
      this.#rollBack(before.size);
      throw fail("ERR_JOURNAL_WRITE", `write: could not append to ${this.path}: ${e.code ?? e.message}; the file keeps whole lines only and this record is not in it`, e);
    }
    return line;
  }

  /** After a failed append: the file back to `size` bytes, memory back to the file. */
  #rollBack(size) {
    try {
      fs.ftruncateSync(this.fd, size);
    } catch {
      // A file we cannot even shorten keeps the partial line; replay
      // reports it and the next open ends it. Memory still follows the file.
    }
    this.journal.free();
    this.journal = new session.Journal(this.options);
    if (replayFile(this.path, this.journal)) this.journal.feed("\n");
    this.journal.finish();
  }

  get closed() {
    return this.fd === null;
  }

  close() {
    if (this.fd === null) return;
    fs.closeSync(this.fd);
    this.fd = null;
    this.journal.free();
    openHere.delete(this.path);
    if (this.lockPath) releaseLock(this.lockPath);
  }
}

const heldLocks = new Set();
process.on("exit", () => {
  for (const lock of heldLocks) {
    try {
      fs.unlinkSync(lock);
    } catch {}
  }
});

/** The journals this process has open, by file: a rename or a removal of one goes through it. */
const openHere = new Map();

/**
 * When a process started (clock ticks since boot, Linux), or null where that
 * cannot be read. A lock records it beside the pid, so a pid reused by
 * another process (containers restart at low pids) is told from its writer.
 */
function startTime(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether the lock's writer still runs: its pid is alive and (where known) started when the lock says. */
function holderAlive(holder) {
  if (!pidAlive(holder.pid)) return false;
  if (holder.start == null) return true;
  const now = startTime(holder.pid);
  return now == null || now === holder.start;
}

function readLock(lockFile) {
  const text = fs.readFileSync(lockFile, "utf8");
  try {
    const parsed = JSON.parse(text);
    if (parsed && typeof parsed === "object") return { pid: Number(parsed.pid), start: parsed.start ?? null };
  } catch {}
  return { pid: Number.parseInt(text, 10), start: null }; // a lock from an older version: a bare pid
}

function takeLock(lockFile) {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = fs.openSync(lockFile, "wx", FILE_MODE);
      fs.writeSync(fd, JSON.stringify({ pid: process.pid, start: startTime(process.pid) }));
      fs.closeSync(fd);
      heldLocks.add(lockFile);
      return;
    } catch (e) {
      if (e.code !== "EEXIST") throw unwritable(lockFile, e);
      const holder = readLock(lockFile);
      if (holder.pid === process.pid && heldLocks.has(lockFile)) {
        throw fail("ERR_SESSION_LOCKED", `the session is already open for writing in this process (${lockFile}); write through that journal`);
      }
      if (holderAlive(holder)) {
        throw fail("ERR_SESSION_LOCKED", `the session is open for writing in process ${holder.pid} (${lockFile}); one writer at a time`);
      }
      fs.rmSync(lockFile, { force: true }); // stale: its process is gone (or its pid was reused)
    }
  }
  throw fail("ERR_SESSION_LOCKED", `could not take ${lockFile}`);
}

function releaseLock(lockFile) {
  heldLocks.delete(lockFile);
  fs.rmSync(lockFile, { force: true });
}

/** A child id as the seed cleans it: every character other than letters, digits, "-" and "_" becomes "-". */
function cleanChildId(childId) {
  if (typeof childId !== "string") throw fail("ERR_BAD_SESSION_ID", `child id ${JSON.stringify(childId)} must be a string`);
  const clean = childId.replace(/[^A-Za-z0-9_-]/g, "-").slice(0, 200);
  if (!/[A-Za-z0-9]/.test(clean)) throw fail("ERR_BAD_SESSION_ID", `child id ${JSON.stringify(childId)} has no letter or digit`);
  return clean;
}

class FileSessionStore {
  /**
   * @param {string} [dir] the sessions folder (default .garuda/sessions)
   * @param {{ redactor?: import("../index").Redactor, maxLineBytes?: number }} [options]
   */
  constructor(dir = path.join(".garuda", "sessions"), options = {}) {
    this.dir = dir;
    this.redactor = options.redactor ?? new session.Redactor({ env: process.env });
    this.maxLineBytes = options.maxLineBytes;
  }

  #ensureDir(dir) {
    try {
      fs.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
      fs.chmodSync(dir, DIR_MODE);
    } catch (e) {
      throw unwritable(dir, e);
    }
  }

  #file(id) {
    checkId(id, "session id");
    return path.join(this.dir, `${id}.jsonl`);
  }

  /**
   * Opens (or creates) a session for writing: `{ modelView, strict }` are
   * the Journal's (the session layer sets both).
   */
  open(id, options = {}) {
    const file = this.#file(id);
    this.#ensureDir(this.dir);
    return this.#openFile(file, path.join(this.dir, `${id}.lock`), options);
  }

  /** Opens a subagent run kept with its parent: <dir>/<id>/<childId>.jsonl (the child id cleaned to [A-Za-z0-9_-]). */
  openChild(id, childId, options = {}) {
    checkId(id, "session id");
    const child = cleanChildId(childId);
    const dir = path.join(this.dir, id);
    this.#ensureDir(this.dir);
    this.#ensureDir(dir);
    return this.#openFile(path.join(dir, `${child}.jsonl`), path.join(dir, `${child}.lock`), options);
  }

  #openFile(file, lock, options) {
    takeLock(lock);
    try {
      const journal = new FileJournal(file, lock, { redactor: this.redactor, maxLineBytes: this.maxLineBytes, ...options });
      openHere.set(file, journal);
      return journal;
    } catch (e) {
      releaseLock(lock);
      throw e;
    }
  }

  /** The session's records, in order (lines that parse): they go straight into rebuildState and summariseSession. */
  async read(id) {
    return this.readSync(id);
  }

  readSync(id) {
    let text;
    try {
      text = fs.readFileSync(this.#file(id), "utf8");
    } catch (e) {
      if (e.code === "ENOENT") throw fail("ERR_NO_SESSION", `no session ${JSON.stringify(id)} in ${this.dir}`, e);
      throw e;
    }
    const records = [];
    for (const line of text.split("\n")) {
      if (line.trim() === "") continue;
      try {
        const r = JSON.parse(line);
        if (r && typeof r === "object" && !Array.isArray(r)) records.push(r);
      } catch {}
    }
    return records;
  }

  /** The replayed state of a session. */
  replay(id) {
    const journal = new session.Journal({ maxLineBytes: this.maxLineBytes });
    try {
      replayFile(this.#file(id), journal);
      journal.finish();
      return journal.state();
    } finally {
      journal.free();
    }
  }

  #sessions() {
    let names;
    try {
      names = fs.readdirSync(this.dir, { withFileTypes: true });
    } catch (e) {
      if (e.code === "ENOENT") return [];
      throw e;
    }
    return names
      .filter((d) => d.isFile() && d.name.endsWith(".jsonl") && session.validateSessionId(d.name.slice(0, -6)))
      .map((d) => {
        const file = path.join(this.dir, d.name);
        return { id: d.name.slice(0, -6), file, updated: fs.statSync(file).mtime };
      })
      .sort((a, b) => b.updated - a.updated || (a.id < b.id ? 1 : -1));
  }

  /** The most recently updated session (child folders are ignored). */
  async latest() {
    return this.#sessions()[0]?.id;
  }

  /** `{ id, updated: Date }` for every session, newest first (/sessions). */
  async list() {
    return this.#sessions().map(({ id, updated }) => ({ id, updated }));
  }

  /** /sessions rows (summariseSession of each), newest first: what the CLI prints. */
  summaries() {
    return this.#sessions().map((s) => session.summariseSession(s.id, s.updated, fs.readFileSync(s.file)));
  }

  /**
   * Appends a title record and keeps the file's time (a rename is not
   * activity). A session open in this process is written through its own
   * journal, so its memory sees the title too.
   */
  async setTitle(id, title) {
    if (typeof title !== "string") throw fail("ERR_INVALID_ARG_TYPE", "setTitle(id, title): title must be a string");
    const file = this.#file(id);
    if (!fs.existsSync(file)) throw fail("ERR_NO_SESSION", `no session ${JSON.stringify(id)} in ${this.dir}`);
    const { atime, mtime } = fs.statSync(file);
    const record = { t: new Date().toISOString(), type: "title", title };
    const here = openHere.get(file);
    if (here) {
      here.write(record);
    } else {
      const journal = this.open(id);
      try {
        journal.write(record);
      } finally {
        journal.close();
      }
    }
    fs.utimesSync(file, atime, mtime);
  }

  /**
   * Deletes the session file, its subagent folder and its lock. A journal
   * of it open in this process is closed first, and refuses later writes
   * (ERR_SESSION_REMOVED): nothing is ever written to a removed file.
   */
  async remove(id) {
    const file = this.#file(id);
    const childDir = path.join(this.dir, id);
    for (const [f, journal] of openHere) {
      if (f === file || f.startsWith(childDir + path.sep)) {
        journal.close();
        journal.removed = true;
      }
    }
    fs.rmSync(file, { force: true });
    fs.rmSync(childDir, { recursive: true, force: true });
    fs.rmSync(path.join(this.dir, `${id}.lock`), { force: true });
  }
}

/** Whether a lock file is held by a writer that still runs (for `serve`'s live follow). */
function lockHeld(lockFile) {
  try {
    return holderAlive(readLock(lockFile));
  } catch {
    return false;
  }
}

module.exports = { FileSessionStore, FileJournal, JournalBase, fail, checkId, cleanChildId, lockHeld };
// After the exports above: memory.js takes `fail` from this file.
const { MemorySessionStore, MemoryJournal } = require("./memory.js");
module.exports.MemorySessionStore = MemorySessionStore;
module.exports.MemoryJournal = MemoryJournal;
