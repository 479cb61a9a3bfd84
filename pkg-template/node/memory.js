// MemorySessionStore and MemoryJournal: the seed's SessionStore contract
// with no disk, for tests and for hosts that keep sessions elsewhere. The
// lines kept are exactly what a file would hold (redacted), so replaying
// them gives what FileSessionStore would give.
"use strict";

const session = require("./garuda_session.js");
const { fail } = require("./files.js");
const { JournalBase, checkId, checkToolUseId, cleanChildId } = require("./journal-base.js");

/** A session in memory: the lines written (redacted), and the state they replay to. */
class MemoryJournal extends JournalBase {
  /** @param {{ redactor?, maxLineBytes?, modelView?, strict? }} [options] */
  constructor(options = {}, lines = [], onWrite = () => {}) {
    super("the session", options);
    this.lines = lines;
    for (const line of lines) this.journal.feed(line + "\n");
    this.journal.finish();
    this.onWrite = onWrite;
    this.isClosed = false;
  }

  get closed() {
    return this.isClosed;
  }

  /** Redacts the record, applies it, keeps its line, and returns the line. */
  write(record) {
    const line = this.apply(record);
    this.lines.push(line);
    this.onWrite();
    return line;
  }

  /** The journal's text, as a file would hold it. */
  text() {
    return this.lines.map((l) => l + "\n").join("");
  }

  close() {
    if (this.isClosed) return;
    this.isClosed = true;
    this.journal.free();
    this.release?.();
  }
}

class MemorySessionStore {
  /** @param {{ redactor?, maxLineBytes? }} [options] */
  constructor(options = {}) {
    this.redactor = options.redactor ?? new session.Redactor({ env: typeof process === "object" ? process.env : {} });
    this.maxLineBytes = options.maxLineBytes;
    /** id -> { lines, updated: Date, children: Map<childId, lines>, writer } */
    this.sessions = new Map();
  }

  #entry(id, create) {
    let e = this.sessions.get(id);
    if (!e && create) {
      e = { lines: [], updated: new Date(), children: new Map(), writers: new Map() };
      this.sessions.set(id, e);
    }
    return e;
  }

  #journal(entry, key, lines, options) {
    if (entry.writers.has(key)) throw fail("ERR_SESSION_LOCKED", `the session ${key} is open for writing; one writer at a time`);
    const j = new MemoryJournal({ redactor: this.redactor, maxLineBytes: this.maxLineBytes, ...options }, lines, () => {
      entry.updated = new Date();
    });
    j.release = () => entry.writers.delete(key);
    entry.writers.set(key, j);
    return j;
  }

  open(id, options = {}) {
    checkId(id, "session id");
    const entry = this.#entry(id, true);
    return this.#journal(entry, "", entry.lines, options);
  }

  openChild(id, childId, options = {}) {
    checkId(id, "session id");
    const child = cleanChildId(String(childId));
    const entry = this.#entry(id, true);
    if (!entry.children.has(child)) entry.children.set(child, []);
    return this.#journal(entry, child, entry.children.get(child), options);
  }

  /** Whether the session exists (resumeSession asks before it opens one, which would create it). */
  async exists(id) {
    checkId(id, "session id");
    return this.#entry(id, false) !== undefined;
  }

  async read(id) {
    checkId(id, "session id");
    const entry = this.#entry(id, false);
    if (!entry) throw fail("ERR_NO_SESSION", `no session ${JSON.stringify(id)}`);
    return entry.lines.flatMap((line) => {
      try {
        const r = JSON.parse(line);
        return r && typeof r === "object" && !Array.isArray(r) ? [r] : [];
      } catch {
        return [];
      }
    });
  }

  #sorted() {
    return [...this.sessions.entries()].sort(([a, x], [b, y]) => y.updated - x.updated || (a < b ? 1 : -1));
  }

  async latest() {
    return this.#sorted()[0]?.[0];
  }

  /** /sessions rows (summariseSession of each), newest first: the same fast path FileSessionStore has. */
  summaries() {
    return this.#sorted().map(([id, e]) => session.summariseSession(id, e.updated, e.lines));
  }

  async list() {
    return this.#sorted().map(([id, e]) => ({ id, updated: e.updated }));
  }

  async setTitle(id, title) {
    if (typeof title !== "string") throw fail("ERR_INVALID_ARG_TYPE", "setTitle(id, title): title must be a string");
    checkId(id, "session id");
    const entry = this.#entry(id, false);
    if (!entry) throw fail("ERR_NO_SESSION", `no session ${JSON.stringify(id)}`);
    const updated = entry.updated;
    const record = { t: new Date().toISOString(), type: "title", title };
    const open = entry.writers.get("");
    if (open) {
      open.write(record); // through the session's own writer: its memory sees the title
    } else {
      const j = new MemoryJournal({ redactor: this.redactor }, entry.lines);
      try {
        j.write(record);
      } finally {
        j.close();
      }
    }
    entry.updated = updated; // a rename is not activity
  }

  async remove(id) {
    checkId(id, "session id");
    const entry = this.sessions.get(id);
    for (const j of entry?.writers.values() ?? []) {
      j.close();
      j.removed = true;
    }
    this.sessions.delete(id);
  }

  /** Keeps a tool call's whole output with the session, redacted (keepFullOutput); returns where. */
  keepOutput(id, toolUseId, output) {
    checkId(id, "session id");
    checkToolUseId(toolUseId, "keepOutput(id, toolUseId, output)");
    if (typeof output !== "string") throw fail("ERR_INVALID_ARG_TYPE", "keepOutput(id, toolUseId, output): output must be a string");
    const entry = this.#entry(id, true);
    entry.outputs ??= new Map();
    entry.outputs.set(toolUseId, this.redactor.redact(output));
    return `memory:${id}/outputs/${toolUseId}`;
  }

  async readOutput(id, toolUseId) {
    checkId(id, "session id");
    checkToolUseId(toolUseId, "readOutput(id, toolUseId)");
    const text = this.#entry(id, false)?.outputs?.get(toolUseId);
    if (text === undefined) throw fail("ERR_NO_OUTPUT", `no kept output for ${toolUseId} in session ${id}`);
    return text;
  }
}

module.exports = { MemorySessionStore, MemoryJournal };
