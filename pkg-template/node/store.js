// @garuda/session/node: the file store of JOURNAL.md §7 for Node hosts.
//
//   .garuda/sessions/<id>.jsonl            a session
//   .garuda/sessions/<id>/<childId>.jsonl  its subagent runs
//   .garuda/sessions/<id>.lock             the writer's lock (pid inside)
//
// Rules kept here:
// - every id is validated before any path is built (`--resume ../x`);
// - the folder is 0700 and files 0600 (those the store creates);
// - each record is one append of one whole line, so a crash loses at most
//   the line in progress;
// - a torn tail (a crash mid-line) is repaired on open by ending that line:
//   its bytes stay in the file, replay reports them as a bad line, and the
//   next record starts on a fresh line. Nothing is cut away;
// - one writer per session: open() takes <id>.lock (lock.js: it appears
//   whole, through link(2)) and refuses while a live process holds it; a
//   lock whose process is gone is taken over, one taker at a time;
// - nothing is opened through a symlink, and modes are set only on what the
//   store creates (files.js);
// - a write that fails (a full disk, a folder gone read-only) is cut back to
//   the last whole line and memory is rebuilt from the file, so the journal
//   and memory still agree; a session file deleted while open is never
//   written to again; a record over the maximum line size is refused.
// Errors carry a stable `code` (ERR_BAD_SESSION_ID, ERR_NO_SESSION, ERR_SESSION_LOCKED,
// ERR_SESSION_REMOVED, ERR_JOURNAL_CLOSED, ERR_JOURNAL_WRITE,
// ERR_STORE_UNWRITABLE, ERR_STORE_SYMLINK, ERR_LINE_TOO_LONG, ERR_BAD_RECORD) and, for a
// failed system call, the system error as `cause`.
"use strict";

// getBuiltinModule first: an ESM bundle of this CommonJS file (esbuild --format=esm) has no require (Node >= 20.16, Bun, Deno).
const fs = process.getBuiltinModule?.("node:fs") ?? require("node:fs");
const path = process.getBuiltinModule?.("node:path") ?? require("node:path");
const session = require("./garuda_session.js");
const files = require("./files.js");
const { JournalBase, checkId, checkToolUseId, cleanChildId } = require("./journal-base.js");

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
const CHUNK = 4 << 20;

const { fail, unwritable } = files;

/**
 * Replays a file in chunks (no whole-file string), up to its size at open
 * (one that grows meanwhile is not read on forever), never through a link;
 * also says whether it ends mid-line. `fd`: a descriptor already open on it.
 */
function replayFile(file, journal, fd) {
  const own = fd === undefined ? files.openRead(file) : null;
  try {
    const at = own ?? { fd, size: fs.fstatSync(fd).size };
    const last = files.replayInto(at.fd, at.size, journal);
    return last !== -1 && last !== 0x0a;
  } finally {
    if (own) fs.closeSync(own.fd);
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
      this.fd = files.openJournal(file);
    } catch (e) {
      this.journal.free();
      throw e;
    }
    /**
     * True when the file ended mid-line (a crash): the line is ended by the
     * first record's append, not at open, so a strict resume refuses such
     * a file before anything is written (a new-user review found the file
     * changed by a refused resume). Until then memory is what a replay of
     * the file gives, its torn tail included.
     */
    this.repairedTornTail = false;
    /** The torn line is not ended in the file yet. */
    this.tornTail = false;
    /** The pid of the last writer when it ended without releasing the lock (set by the store). */
    this.staleLockPid = null;
    if (fs.fstatSync(this.fd).size > 0 && replayFile(file, this.journal, this.fd)) {
      this.tornTail = true;
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
    // After a crash the file ends mid-line: the record is applied to a
    // replay of the file with that line ended, and the newline goes out in
    // the record's own append (its bytes stay). A refused record changes
    // nothing, the file included.
    const ended = this.tornTail ? this.#endedReplay() : null;
    const previous = this.journal;
    let line;
    try {
      if (ended) this.journal = ended;
      line = this.apply(record);
    } catch (e) {
      if (ended) {
        ended.free();
        this.journal = previous;
      }
      throw e;
    }
    if (ended) previous.free();
    const bytes = Buffer.from((ended ? "\n" : "") + line + "\n");
    try {
      for (let at = 0; at < bytes.length; ) at += fs.writeSync(this.fd, bytes, at, bytes.length - at);
    } catch (e) {
      this.#rollBack(before.size);
      throw fail("ERR_JOURNAL_WRITE", `write: could not append to ${this.path}: ${e.code ?? e.message}; the file keeps whole lines only and this record is not in it`, e);
    }
    this.tornTail = false;
    return line;
  }

  /** A replay of the file with its torn last line ended, as the next append will end it. */
  #endedReplay() {
    const journal = new session.Journal(this.options);
    try {
      replayFile(this.path, journal, this.fd);
      journal.feed("\n");
      journal.finish();
    } catch (e) {
      journal.free();
      throw e;
    }
    return journal;
  }

  /** After a failed append: the file back to `size` bytes, memory back to the file. */
  #rollBack(size) {
    try {
      fs.ftruncateSync(this.fd, size);
    } catch {
      // A file we cannot even shorten keeps the partial line: memory reads
      // it as a torn tail, as a replay does, and the next append ends it.
    }
    this.journal.free();
    this.journal = new session.Journal(this.options);
    this.tornTail = replayFile(this.path, this.journal, this.fd);
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

/** The journals this process has open, by file: a rename or a removal of one goes through it. */
const openHere = new Map();

// The lock (lock.js): one writer per session, taken in one step, a stale one
// taken over atomically. Exported here too, for hosts and the CLI's
// `redact --in-place`.
const { takeSessionLock, releaseSessionLock, lockHeld } = require("./lock.js");
const takeLock = takeSessionLock;
const releaseLock = releaseSessionLock;

class FileSessionStore {
  /**
   * @param {string} [dir] the sessions folder (default .garuda/sessions)
   * @param {{ redactor?: import("../index").Redactor, maxLineBytes?: number }} [options]
   */
  constructor(dir = path.join(".garuda", "sessions"), options = {}) {
    if (typeof dir !== "string" || dir === "") throw fail("ERR_INVALID_ARG_TYPE", `new FileSessionStore(dir, options): dir must be a folder's path, got ${dir === "" ? "an empty string" : typeof dir}`);
    if (options === null || typeof options !== "object") throw fail("ERR_INVALID_ARG_TYPE", "new FileSessionStore(dir, options): options must be an object");
    this.dir = dir;
    this.redactor = options.redactor ?? new session.Redactor({ env: process.env });
    this.maxLineBytes = options.maxLineBytes;
  }

  #ensureDir(dir) {
    files.ensureFolder(dir);
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
    const stale = takeLock(lock);
    try {
      const journal = new FileJournal(file, lock, { redactor: this.redactor, maxLineBytes: this.maxLineBytes, ...options });
      journal.staleLockPid = stale;
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

  /** Whether the session's file exists (resumeSession asks before it opens one, which would create it). */
  async exists(id) {
    return fs.existsSync(this.#file(id));
  }

  readSync(id) {
    let text;
    try {
      // A byte-order mark at the start is not part of the first record.
      text = files.readWhole(this.#file(id)).toString("utf8").replace(/^\uFEFF/, "");
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
    return this.#sessions().map((s) => session.summariseSession(s.id, s.updated, files.readWhole(s.file)));
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

  /**
   * Keeps a tool call's whole output beside its session (keepFullOutput):
   * <dir>/<id>/outputs/<toolUseId>.txt, 0600, redacted as every line the
   * store writes, written whole (a temporary file renamed into place).
   * Returns the file's path, for the note the model reads. `remove` deletes
   * it with the session's folder.
   */
  keepOutput(id, toolUseId, output) {
    checkId(id, "session id");
    checkToolUseId(toolUseId, "keepOutput(id, toolUseId, output)");
    if (typeof output !== "string") throw fail("ERR_INVALID_ARG_TYPE", "keepOutput(id, toolUseId, output): output must be a string");
    const dir = path.join(this.dir, id, "outputs");
    this.#ensureDir(this.dir);
    this.#ensureDir(path.join(this.dir, id));
    this.#ensureDir(dir);
    const file = path.join(dir, `${toolUseId}.txt`);
    const tmp = path.join(dir, `.${toolUseId}.${process.pid}.${Date.now()}.tmp`);
    try {
      const fd = fs.openSync(tmp, fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_WRONLY | (fs.constants.O_NOFOLLOW ?? 0), FILE_MODE);
      try {
        fs.writeFileSync(fd, this.redactor.redact(output));
        fs.fsyncSync(fd);
      } finally {
        fs.closeSync(fd);
      }
      fs.renameSync(tmp, file);
    } catch (e) {
      fs.rmSync(tmp, { force: true });
      throw unwritable(file, e);
    }
    return file;
  }

  /** A kept output (as keepOutput wrote it: redacted); ERR_NO_OUTPUT when none was kept. */
  async readOutput(id, toolUseId) {
    checkId(id, "session id");
    checkToolUseId(toolUseId, "readOutput(id, toolUseId)");
    const file = path.join(this.dir, id, "outputs", `${toolUseId}.txt`);
    try {
      return files.readWhole(file).toString("utf8"); // never through a link
    } catch (e) {
      if (e.code === "ENOENT") throw fail("ERR_NO_OUTPUT", `no kept output for ${toolUseId} in session ${id} (${file})`, e);
      throw e;
    }
  }
}

// What the types declare (store.d.ts), and nothing of the package's own
// plumbing: the journals' shared base and the id checks are journal-base.js.
const { MemorySessionStore, MemoryJournal } = require("./memory.js");
module.exports = { FileSessionStore, FileJournal, MemorySessionStore, MemoryJournal, takeSessionLock, releaseSessionLock };
