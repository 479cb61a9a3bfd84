// What the journals of the three stores share (the file store, memory.js,
// redis.js): the core Journal behind the store's checks, and the rules for
// the ids that become file and key names. The package's own plumbing, not
// an entry: @garuda/session/node exports only what store.d.ts declares.
"use strict";

const session = require("./garuda_session.js");
const { fail } = require("./files.js");

/**
 * The longest id, in bytes: a file name is at most 255 bytes, and the lock's
 * helpers add up to about 40 to `<id>` (`.lock.takeover.<pid>-<hex>.stale`).
 */
const MAX_ID_BYTES = 200;

function checkId(id, what) {
  if (typeof id !== "string" || !session.validateSessionId(id)) {
    throw fail("ERR_BAD_SESSION_ID", `${what} ${JSON.stringify(id)} is not a session id: use letters, digits, "-" and "_" only`);
  }
  if (id.length > MAX_ID_BYTES) {
    throw fail("ERR_BAD_SESSION_ID", `${what} ${JSON.stringify(id.slice(0, 40))}... is ${id.length} bytes long: at most ${MAX_ID_BYTES}`);
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
    this.usable();
    return this.journal.state();
  }

  /** Usage, cost, context size, message count, model...: O(1) of the conversation. */
  figures() {
    this.usable();
    return this.journal.figures();
  }

  /** The messages from index `from` on, with their origins. */
  messagesFrom(from) {
    this.usable();
    return this.journal.messagesFrom(from);
  }

  // The conversation as the model gets it, owned by the core (the session
  // layer's `messages`), and what it needs without a walk of the history.
  viewFrom(from) {
    this.usable();
    return this.journal.viewFrom(from);
  }

  get viewCount() {
    this.usable();
    return this.journal.viewCount;
  }

  get viewGeneration() {
    this.usable();
    return this.journal.viewGeneration;
  }

  viewReport() {
    this.usable();
    return this.journal.viewReport();
  }

  get openToolCalls() {
    this.usable();
    return this.journal.openToolCalls;
  }

  closeOpenToolCalls(now) {
    this.usable();
    return this.journal.closeOpenToolCalls(now);
  }

  snapshotTop(which) {
    this.usable();
    return this.journal.snapshotTop(which);
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

  /** The first line read that a strict load refuses, or null (resumeSession's `strict`). */
  get corruption() {
    this.usable();
    return this.journal.corruption;
  }
}

/** A tool call id as a file or key name: what the API and the agents use ([A-Za-z0-9_-]), nothing else. */
function checkToolUseId(toolUseId, what) {
  if (typeof toolUseId !== "string" || !/^[A-Za-z0-9_-]{1,200}$/.test(toolUseId)) {
    throw fail("ERR_INVALID_ARG", `${what}: toolUseId ${JSON.stringify(toolUseId)} must be 1 to 200 letters, digits, "-" or "_"`);
  }
}

/**
 * A child id as a file name of [A-Za-z0-9_-] (the seed's alphabet), and no
 * two ids one name: cleaning by replacing each other character with "-"
 * made `../../x` and `------x` one journal. An id of those characters with
 * no "__" in it is its own name (`explore-toolu_01…`, what the viewer
 * matches a tool call by). Any other is encoded: every byte other than a
 * letter, digit or "-" (so "_" too) becomes "__" and two hex digits; its
 * name holds "__", which no plain name does, and decodes back to it. A name
 * that would pass MAX_ID_BYTES keeps its start and ends in "__h" and a
 * SHA-256 of the id ("__h" appears in no other name).
 */
function cleanChildId(childId) {
  if (typeof childId !== "string") throw fail("ERR_BAD_SESSION_ID", `child id ${JSON.stringify(childId)} must be a string`);
  if (!/[\p{L}\p{N}]/u.test(childId)) throw fail("ERR_BAD_SESSION_ID", `child id ${JSON.stringify(childId)} has no letter or digit`);
  let name = childId;
  if (!/^[A-Za-z0-9_-]+$/.test(childId) || childId.includes("__")) {
    name = "";
    for (const byte of Buffer.from(childId, "utf8")) {
      const c = String.fromCharCode(byte);
      name += /[A-Za-z0-9-]/.test(c) ? c : `__${byte.toString(16).toUpperCase().padStart(2, "0")}`;
    }
  }
  if (name.length > MAX_ID_BYTES) {
    const hash = (process.getBuiltinModule?.("node:crypto") ?? require("node:crypto")).createHash("sha256").update(childId, "utf8").digest("hex").slice(0, 32);
    name = `${name.slice(0, MAX_ID_BYTES - 35)}__h${hash}`;
  }
  return name;
}

module.exports = { JournalBase, checkId, checkToolUseId, cleanChildId, MAX_ID_BYTES };
