// @garuda/session/agent: the session layer Garuda calls every turn, with the
// seed's names (src/session: session.ts, fileTracker.ts). Every change goes
// through one function that writes one record, so the journal always
// matches memory. Memory keeps what the model saw (a secret included); the
// journal gets the redacted line. The records are applied by the core
// (a Journal in model view and strict mode); this file only builds them and
// keeps a copy of the messages, fetched from the core as they change.
"use strict";

// getBuiltinModule first: an ESM bundle of this CommonJS file (esbuild --format=esm) has no require (Node >= 20.16, Bun, Deno).
const crypto = process.getBuiltinModule?.("node:crypto") ?? require("node:crypto");
const session = require("./garuda_session.js");
const { fail } = require("./store.js");

const LIVE = { modelView: true, strict: true };

/** The record time: toISOString costs about a microsecond, so one string serves a millisecond. */
let lastMs = -1;
let lastIso = "";
function now() {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

/** Read tracking (fileTracker.ts): hashes only, so memory grows with the number of files, not their sizes. */
class FileTracker {
  #known = new Map();
  #reads = new Map();

  static #hash(content) {
    if (typeof content !== "string" && !(content instanceof Uint8Array)) {
      throw fail("ERR_INVALID_ARG_TYPE", "FileTracker: content must be a string or a Uint8Array");
    }
    return crypto.createHash("sha256").update(content).digest("base64");
  }

  /** read_file and write_file note the content the agent knows. */
  record(path, content) {
    this.#known.set(path, FileTracker.#hash(content));
  }

  /** edit_file: "unread", "changed" or "current"; only "current" may be edited. */
  status(path, content) {
    const known = this.#known.get(path);
    if (known === undefined) return "unread";
    return known === FileTracker.#hash(content) ? "current" : "changed";
  }

  /** Read deduplication: true when the same range of the same content was read before. */
  noteRead(path, content, offset = 0, limit) {
    const hash = FileTracker.#hash(content);
    const range = `${offset ?? 0}:${limit ?? ""}`;
    const seen = this.#reads.get(path);
    if (seen && seen.hash === hash) {
      if (seen.ranges.has(range)) return true;
      seen.ranges.add(range);
      return false;
    }
    this.#reads.set(path, { hash, ranges: new Set([range]) });
    return false;
  }

  /** Compaction, /undo, /redo and closeOpenToolCalls: the earlier output may be gone. */
  forgetReads() {
    this.#reads.clear();
  }
}

/** A live session: the conversation as the model sees it, and its journal. */
class Session {
  constructor(id, root, journal) {
    this.id = id;
    this.root = root;
    this.journal = journal;
    this.files = new FileTracker();
    /** The conversation as the model sees it (unredacted). */
    this.messages = [];
    this.#sync();
  }

  #figures;

  /** The whole copy of the messages, fetched again from the core. */
  #sync() {
    const { messages } = this.journal.messagesFrom(0);
    this.messages.length = 0;
    for (const m of messages) this.messages.push(m);
  }

  /**
   * Writes one record (its line redacted, memory unredacted). `appended` is
   * the message the record appends, when it appends one: the copy takes it
   * as it is when the core appended exactly one message and warned of
   * nothing (a message too deep to carry is replaced there by a note);
   * anything else fetches the messages again.
   */
  write(record, appended) {
    const count = this.journal.messageCount;
    const warnings = this.journal.warningCount;
    record.t = now();
    const line = this.journal.write(record);
    this.#figures = undefined;
    const inStep = this.messages.length === count && this.journal.warningCount === warnings;
    if (appended !== undefined && inStep && this.journal.messageCount === count + 1) this.messages.push(appended);
    else if (!inStep || this.journal.messageCount !== count) this.#sync();
    return line;
  }

  /** The figures, fetched once per change (O(1) of the conversation). */
  get #fig() {
    this.#figures ??= this.journal.figures();
    return this.#figures;
  }

  get usage() {
    return this.#fig.usage;
  }
  get costUsd() {
    return this.#fig.costUsd;
  }
  get costIncomplete() {
    return this.#fig.costIncomplete;
  }
  get contextTokens() {
    return this.#fig.contextTokens;
  }
  get unreportedTokens() {
    return this.#fig.unreportedTokens;
  }
  get model() {
    return this.#fig.model;
  }
  get steps() {
    return this.#fig.steps;
  }
  /** Reported child tokens not yet included in a tool report. */
  get childDebits() {
    return new Map(Object.entries(this.#fig.childDebits));
  }
  /** The figures in one object, read afresh (a rename through the store shows here). */
  figures() {
    this.#figures = this.journal.figures();
    return this.#figures;
  }
}

function sessionArg(s, what) {
  if (!(s instanceof Session)) throw fail("ERR_INVALID_ARG_TYPE", `${what}: session must be a Session from startSession or resumeSession`);
  return s;
}

function metadata(options, type) {
  const o = options ?? {};
  const record = { type };
  for (const k of ["sessionId", "root", "version", "model", "executor", "isolation", "limits"]) if (o[k] !== undefined) record[k] = o[k];
  return record;
}

/** startSession(store, options): a new session, its `start` record written. */
function startSession(store, options = {}) {
  const id = options.id ?? session.newSessionId();
  const journal = store.open(id, LIVE);
  try {
    const s = new Session(id, options.root, journal);
    s.write({ ...metadata(options, "start"), sessionId: id });
    return s;
  } catch (e) {
    journal.close?.();
    throw e;
  }
}

/**
 * resumeSession(store, id?, options): the latest session (or the one named)
 * replayed, a `resume` record written, the same file continued. Read
 * tracking starts empty: the agent must read a file again before it edits
 * it. Messages written before are as the disk has them (redacted).
 */
async function resumeSession(store, id, options = {}) {
  if (id !== undefined && typeof id === "object") [id, options] = [undefined, id];
  const target = id ?? (await store.latest());
  if (target === undefined) throw fail("ERR_NO_SESSION", "resumeSession: there is no session to resume");
  const journal = store.open(target, LIVE);
  try {
    const before = journal.figures();
    const s = new Session(target, options.root, journal);
    s.write({ ...metadata({ model: before.model, ...options }, "resume"), sessionId: target });
    return s;
  } catch (e) {
    journal.close?.();
    throw e;
  }
}

/** The user message: the prompt, one <garuda_note> text block per note, one plain text block per attachment. */
function addUserMessage(s, text, notes = [], attachments = []) {
  sessionArg(s, "addUserMessage(session, text, notes, attachments)");
  if (typeof text !== "string") throw fail("ERR_INVALID_ARG_TYPE", "addUserMessage: text must be a string");
  const content =
    notes.length === 0 && attachments.length === 0
      ? text
      : [
          { type: "text", text },
          ...notes.map((n) => ({ type: "text", text: `<garuda_note>${n}</garuda_note>` })),
          ...attachments.map((a) => ({ type: "text", text: a })),
        ];
  const message = { role: "user", content };
  return s.write({ type: "user", message }, message);
}

/** The model's response: content, usage (camelCase), its cost (undefined when the price is unknown). */
function addAssistantResponse(s, response, step, cost) {
  sessionArg(s, "addAssistantResponse(session, response, step, cost)");
  const record = { type: "assistant", step, response };
  if (cost !== undefined) record.costUsd = cost;
  return s.write(record, { role: "assistant", content: response?.content });
}

/** One user message with the tool results; `meta.calls` per call (toolUseId, name, durationMs, report...). */
function addToolResults(s, results, meta = {}) {
  sessionArg(s, "addToolResults(session, results, meta)");
  const message = { role: "user", content: results };
  return s.write({ type: "tool_results", message, calls: meta.calls ?? [] }, message);
}

/**
 * An error result for each tool_use with no result (after Ctrl-C or a
 * crash); also forgets the read deduplication. Returns the line, or null
 * when nothing was open.
 */
function closeOpenToolCalls(s) {
  sessionArg(s, "closeOpenToolCalls(session)");
  s.files.forgetReads();
  const record = session.closeOpenToolCalls({ messages: s.messages });
  return record ? s.write(record) : null;
}

function addCompaction(s, compaction) {
  sessionArg(s, "addCompaction(session, compaction)");
  s.files.forgetReads();
  return s.write({ type: "compaction", ...compaction });
}

function addSnapshot(s, snapshot) {
  sessionArg(s, "addSnapshot(session, snapshot)");
  return s.write({ type: "snapshot", messages: s.messages.length, ...snapshot });
}

function undo(s, after) {
  sessionArg(s, "undo(session, after)");
  s.files.forgetReads();
  return s.write(after === undefined ? { type: "undo" } : { type: "undo", after });
}

function redo(s) {
  sessionArg(s, "redo(session)");
  s.files.forgetReads();
  return s.write({ type: "redo" });
}

const one = (type, build) => (s, ...args) => {
  sessionArg(s, `${type}(session, ...)`);
  return s.write({ type, ...build(...args) });
};

/** /models: the model switched; resume and replay treat it as a model switch (thinking before it is dropped). */
const switchModel = one("model", (model, options = {}) => ({ ...options, model }));
const setTitle = one("title", (title) => ({ title }));
const setThinking = one("thinking", (choice) => ({ choice }));
function addContinue(s, message, maxTokens) {
  sessionArg(s, "addContinue(session, message, maxTokens)");
  return s.write({ type: "continue", message, maxTokens }, message);
}
const addUnreported = one("unreported", (tokens) => ({ tokens }));
const addChildDebit = one("child_debit", (childSessionId, tokens) => ({ childSessionId, tokens }));
const addSideUsage = one("side_usage", (purpose, usage, costUsd) => (costUsd === undefined ? { purpose, usage } : { purpose, usage, costUsd }));
const endSession = one("end", (stopReason, steps) => ({ stopReason, steps }));

const { FileSessionStore, MemorySessionStore, MemoryJournal } = require("./store.js");

module.exports = {
  FileSessionStore,
  MemorySessionStore,
  MemoryJournal,
  Session,
  FileTracker,
  startSession,
  resumeSession,
  addUserMessage,
  addAssistantResponse,
  addToolResults,
  closeOpenToolCalls,
  addCompaction,
  addSnapshot,
  undo,
  redo,
  switchModel,
  setTitle,
  setThinking,
  addContinue,
  addUnreported,
  addChildDebit,
  addSideUsage,
  endSession,
};
