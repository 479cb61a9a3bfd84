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
const { fail } = require("./files.js");

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
    this.#root = root;
    this.journal = journal;
    this.files = new FileTracker();
    this.#view = typeof journal.viewFrom === "function";
  }

  #figures;
  #root;
  /** The messages as the model gets them: the core's view (viewFrom), held as objects for the SDK call. */
  #messages = [];
  #generation = -1;
  /** Fetched once, at first need: resumeSession writes its record first, and the view is made once, after it. */
  #synced = false;
  /** Whether the journal offers the core's view (a store built before it does not: its messages go as written). */
  #view;

  /**
   * The conversation as the model gets it (unredacted): the core's view,
   * with the seed's thinking rules applied after a resume or a model
   * switch. Not a copy the layer keeps by its own rules: it follows the
   * core after every record.
   */
  get messages() {
    if (!this.#synced) this.#sync();
    else usable(this);
    return this.#messages;
  }

  /** All of the core's view again (after a resume, a model switch, a compaction, an undo or redo). */
  #sync() {
    usable(this);
    this.#synced = true;
    const m = this.#messages;
    m.length = 0;
    if (this.#view) {
      this.#generation = this.journal.viewGeneration;
      for (const x of this.journal.viewFrom(0)) m.push(x);
    } else {
      for (const x of this.journal.messagesFrom(0).messages) m.push(x);
    }
  }

  #count() {
    return this.#view ? this.journal.viewCount : this.journal.messageCount;
  }

  /**
   * Writes one record (its line redacted, memory unredacted). `appended` is
   * the message the record appends, when it appends one: the copy takes it
   * as it is when the core's view grew by exactly that one message and the
   * core warned of nothing (a message too deep to carry is replaced there
   * by a note); a view that changed otherwise is fetched again.
   */
  write(record, appended) {
    usable(this);
    record.t = now();
    if (!this.#synced) {
      const line = this.journal.write(record);
      this.#figures = undefined;
      this.#sync();
      return line;
    }
    const count = this.#count();
    const warnings = this.journal.warningCount;
    const line = this.journal.write(record);
    this.#figures = undefined;
    const m = this.#messages;
    if (this.#view && this.journal.viewGeneration !== this.#generation) {
      this.#sync();
      return line;
    }
    const inStep = m.length === count && this.journal.warningCount === warnings;
    const after = this.#count();
    if (appended !== undefined && inStep && after === count + 1) m.push(appended);
    else if (!inStep || after !== count) this.#sync();
    return line;
  }

  /** The figures, fetched once per change (O(1) of the conversation). */
  get #fig() {
    usable(this);
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
  /** The session's metadata, as its latest start, resume or model record left it (a resume carries it on). */
  get root() {
    return this.#fig.root ?? this.#root;
  }
  get version() {
    return this.#fig.version;
  }
  get executor() {
    return this.#fig.executor;
  }
  get isolation() {
    return this.#fig.isolation;
  }
  get limits() {
    return this.#fig.limits;
  }
  /** What the core's repair changed in the history before the latest resume or model switch (empty for a new session). */
  get resumeReport() {
    usable(this);
    return this.#view ? this.journal.viewReport() : undefined;
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
    usable(this);
    this.#figures = this.journal.figures();
    return this.#figures;
  }
}

/** A session whose journal was closed answers nothing: ERR_JOURNAL_CLOSED, not a crash in wasm. */
function usable(s) {
  const j = s.journal;
  if (j.removed) throw fail("ERR_SESSION_REMOVED", "the session was removed; nothing more is written to it");
  if (j.closed === true || j.isClosed === true) throw fail("ERR_JOURNAL_CLOSED", "the session's journal is closed");
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

/** The store a session was opened from (startChildSession opens its subagent runs there; keepFullOutput writes beside it). */
const storeOf = new WeakMap();

function storeArg(store, what) {
  if (typeof store?.open !== "function") throw fail("ERR_INVALID_ARG_TYPE", `${what}: store must be a SessionStore (FileSessionStore, MemorySessionStore, RedisSessionStore or one of the same shape)`);
  return store;
}

/**
 * The start record checked as the store's journal will check it (strict),
 * before the store opens the session: a refused record left an empty
 * session behind, which `latest()` then named (a new-user review, stop 48).
 * A resume record needs no such check: its session exists already.
 */
function checkFirst(record) {
  const probe = new session.Journal(LIVE);
  try {
    probe.write(JSON.stringify({ ...record, t: now() }));
  } catch (e) {
    throw fail("ERR_BAD_RECORD", `write: ${e.message}`);
  } finally {
    probe.free();
  }
}

/** Whether the store has the session, asked without opening it (opening creates it). */
async function storeHas(store, id) {
  if (typeof store.exists === "function") return store.exists(id);
  return (await store.list()).some((row) => row.id === id);
}

/** startSession(store, options): a new session, its `start` record written. */
function startSession(store, options = {}) {
  storeArg(store, "startSession(store, options)");
  if (options === null || typeof options !== "object") throw fail("ERR_INVALID_ARG_TYPE", "startSession(store, options): options must be an object");
  const id = options.id ?? session.newSessionId();
  const record = { ...metadata(options, "start"), sessionId: id };
  checkFirst(record);
  const journal = store.open(id, LIVE);
  try {
    // A journal already there is a session to resume, not to start again:
    // started over, its conversation went to the model as this one's (an
    // agent that reuses an id, say a CI job's, would send a stale history).
    const there = journal.figures();
    if (there.sessionId != null || there.messageCount > 0 || journal.warningCount > 0) {
      throw fail("ERR_SESSION_EXISTS", `startSession: the session ${JSON.stringify(id)} has a journal already; resumeSession(store, id) continues it`);
    }
    const s = new Session(id, options.root, journal);
    storeOf.set(s, store);
    s.write(record);
    return s;
  } catch (e) {
    journal.close?.();
    throw e;
  }
}

/**
 * startChildSession(parent, childId, options): a full Session for a
 * subagent run (explore-<call id>, agent-<name>-<call id>), kept with its
 * parent through the store's openChild, its `start` record written. The
 * same functions drive it; its report goes back in the parent's
 * tool_results. A run of a run is refused: the store keeps one level.
 */
function startChildSession(parent, childId, options = {}) {
  sessionArg(parent, "startChildSession(parent, childId, options)");
  options = optionsArg(options, "startChildSession(parent, childId, options): options");
  usable(parent);
  if (typeof childId !== "string" || childId === "") throw fail("ERR_INVALID_ARG_TYPE", "startChildSession: childId must be a non-empty string");
  const store = storeOf.get(parent);
  if (store === undefined) throw fail("ERR_INVALID_ARG", "startChildSession: the parent must be a session from startSession or resumeSession (a subagent run has no runs of its own)");
  const journal = store.openChild(parent.id, childId, LIVE);
  try {
    const s = new Session(childId, options.root ?? parent.root, journal);
    s.parentId = parent.id;
    s.write({ ...metadata(options, "start"), sessionId: childId });
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
  storeArg(store, "resumeSession(store, id, options)");
  if (id !== undefined && typeof id === "object") [id, options] = [undefined, id];
  const target = id ?? (await store.latest());
  if (target === undefined) throw fail("ERR_NO_SESSION", "resumeSession: there is no session to resume");
  // Opening creates a session: an id no session has (a typo) would start a
  // blank one holding only its resume record.
  if (id !== undefined && !(await storeHas(store, target))) throw fail("ERR_NO_SESSION", `resumeSession: there is no session ${JSON.stringify(target)} to resume`);
  const journal = store.open(target, LIVE);
  try {
    // The strict load (seed 001, LoadSessionModeStrict): fail closed, before
    // anything is written, on the first malformed or unknown line.
    const bad = options.strict ? journal.corruption : null;
    if (bad) {
      const e = fail("ERR_JOURNAL_CORRUPT", `resumeSession: session ${target} has a line a strict load refuses: line ${bad.line} is ${bad.kind}: ${bad.message}`);
      Object.assign(e, { line: bad.line, kind: bad.kind });
      throw e;
    }
    if (options.strict && bad === undefined) {
      throw fail("ERR_INVALID_ARG", "resumeSession(store, id, { strict: true }): the store's journal does not tell `corruption`, so a strict load cannot be checked");
    }
    // The resume record carries the session's metadata on (root, version,
    // model, executor, isolation, limits), as the seed's records share it;
    // what the options give wins.
    const carried = journal.figures();
    for (const [k, v] of Object.entries(options)) if (v !== undefined) carried[k] = v;
    const s = new Session(target, options.root, journal);
    storeOf.set(s, store);
    s.write({ ...metadata(carried, "resume"), sessionId: target });
    return s;
  } catch (e) {
    journal.close?.();
    throw e;
  }
}

/** An optional list of strings: null or undefined is none (a string alone threw `notes.map is not a function`). */
function stringsArg(list, what) {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list) || !list.every((x) => typeof x === "string")) throw fail("ERR_INVALID_ARG_TYPE", `${what} must be an array of strings`);
  return list;
}

/** An optional options object: null or undefined is none (null threw reading its fields). */
function optionsArg(options, what) {
  if (options === undefined || options === null) return {};
  if (typeof options !== "object") throw fail("ERR_INVALID_ARG_TYPE", `${what} must be an object`);
  return options;
}

/** The user message: the prompt, one <garuda_note> text block per note, one plain text block per attachment. */
function addUserMessage(s, text, notes = [], attachments = []) {
  sessionArg(s, "addUserMessage(session, text, notes, attachments)");
  if (typeof text !== "string") throw fail("ERR_INVALID_ARG_TYPE", "addUserMessage: text must be a string");
  notes = stringsArg(notes, "addUserMessage(session, text, notes, attachments): notes");
  attachments = stringsArg(attachments, "addUserMessage(session, text, notes, attachments): attachments");
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
  if (!Array.isArray(results)) throw fail("ERR_INVALID_ARG_TYPE", "addToolResults(session, results, meta): results must be an array of tool_result blocks");
  meta = optionsArg(meta, "addToolResults(session, results, meta): meta");
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
  usable(s);
  s.files.forgetReads();
  // The core tracks the open calls as records arrive: no history crosses
  // into wasm (it did, whole, before every prompt).
  const j = s.journal;
  const record = typeof j.closeOpenToolCalls === "function" ? j.closeOpenToolCalls(now()) : session.closeOpenToolCalls({ messages: s.messages });
  return record ? s.write(record) : null;
}

function addCompaction(s, compaction) {
  sessionArg(s, "addCompaction(session, compaction)");
  s.files.forgetReads();
  return s.write({ type: "compaction", ...compaction });
}

function addSnapshot(s, snapshot) {
  sessionArg(s, "addSnapshot(session, snapshot)");
  // The conversation's count (spec §3: the message count before the turn),
  // not the model view's: after a resume the repair may join messages, and
  // the view's shorter count made an undo take back more than the turn.
  return s.write({ type: "snapshot", messages: s.journal.messageCount, ...snapshot });
}

/** The top of the undo or redo stack, read from the core (or from the whole state, for a journal without snapshotTop). */
function snapshotTop(s, which) {
  const j = s.journal;
  if (typeof j.snapshotTop === "function") return j.snapshotTop(which);
  const st = j.state();
  const top = which === "undo" ? st.undo?.at(-1) : st.redo?.at(-1);
  return top ? { ...(which === "redo" ? top.snapshot : top), after: top.after } : null;
}

/**
 * /undo: takes the last turn back. Returns what Garuda restores: the
 * snapshot's file tree and prompt (and the line written). Nothing to undo
 * is ERR_NOTHING_TO_UNDO, and nothing is written.
 */
function undo(s, after) {
  sessionArg(s, "undo(session, after)");
  usable(s);
  const top = snapshotTop(s, "undo");
  if (top === null) throw fail("ERR_NOTHING_TO_UNDO", "undo: there is no snapshot to go back to");
  s.files.forgetReads();
  const line = s.write(after === undefined ? { type: "undo" } : { type: "undo", after });
  return { line, tree: top.tree, prompt: top.prompt };
}

/** /redo: puts the last undone turn back. Returns the line and the tree after that turn (the undo's `after`); ERR_NOTHING_TO_REDO when nothing was undone. */
function redo(s) {
  sessionArg(s, "redo(session)");
  usable(s);
  const top = snapshotTop(s, "redo");
  if (top === null) throw fail("ERR_NOTHING_TO_REDO", "redo: nothing was undone");
  s.files.forgetReads();
  const line = s.write({ type: "redo" });
  return { line, after: top.after, tree: top.tree, prompt: top.prompt };
}

const one = (type, build) => (s, ...args) => {
  sessionArg(s, `${type}(session, ...)`);
  return s.write({ type, ...build(...args) });
};

/** /models: the model switched; resume and replay treat it as a model switch (thinking before it is dropped). */
const switchModel = one("model", (model, options = {}) => {
  // An empty name switches to no model: every later cost would be unknown.
  // (typeof, not JSON.stringify, for what it got: a BigInt made the message itself throw.)
  if (typeof model !== "string" || model.trim() === "") throw fail("ERR_INVALID_ARG", `switchModel(session, model): model must be a model's name, got ${typeof model === "string" ? JSON.stringify(model) : typeof model}`);
  return { ...options, model };
});
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

/**
 * keepFullOutput(session, toolUseId, output): the whole output of a tool
 * call kept beside its session by the store (redacted, like everything the
 * package writes); returns where, for truncateToolOutput's `fullOutputAt`
 * and pruneOldToolOutputs' `kept`. The file store writes
 * <dir>/<id>/outputs/<toolUseId>.txt (0600); Redis a field of
 * <prefix>{<id>}:outputs; the memory store keeps it in memory.
 */
function keepFullOutput(s, toolUseId, output) {
  sessionArg(s, "keepFullOutput(session, toolUseId, output)");
  const store = storeOf.get(s);
  if (typeof store?.keepOutput !== "function") {
    throw fail("ERR_INVALID_ARG", "keepFullOutput: the session's store has no keepOutput(id, toolUseId, output)");
  }
  return store.keepOutput(s.id, toolUseId, output);
}

/** readFullOutput(store, sessionId, toolUseId): an output keepFullOutput kept (redacted); ERR_NO_OUTPUT when none. */
async function readFullOutput(store, sessionId, toolUseId) {
  if (typeof store?.readOutput !== "function") throw fail("ERR_INVALID_ARG", "readFullOutput: the store has no readOutput(id, toolUseId)");
  return store.readOutput(sessionId, toolUseId);
}

const { FileSessionStore, MemorySessionStore, MemoryJournal } = require("./store.js");

module.exports = {
  FileSessionStore,
  MemorySessionStore,
  MemoryJournal,
  Session,
  FileTracker,
  startSession,
  startChildSession,
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
  keepFullOutput,
  readFullOutput,
  truncateToolOutput: session.truncateToolOutput,
  pruneOldToolOutputs: session.pruneOldToolOutputs,
  pruneOldToolOutputsWithReport: session.pruneOldToolOutputsWithReport,
};
