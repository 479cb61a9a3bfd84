// A SessionStore written only from the declarations (pkg/node/agent.d.ts:
// SessionStore, LiveJournal; store.d.ts: JournalOpenOptions,
// JournalViewMethods), on the public core Journal and nothing of the
// package's own stores. The contract suite and the view tests run the
// session layer on it: a method the layer uses but the types do not
// declare shows up here as a failure.

const coded = (code, message) => Object.assign(new Error(message), { code });

class DtsJournal {
  #j;
  #closed = false;
  #lines;
  #onWrite;
  #release;
  /** Set by the store's remove(): later calls say ERR_SESSION_REMOVED. */
  removed = false;

  constructor(core, redactor, lines, options, onWrite, release) {
    // JournalOpenOptions, honoured as declared.
    this.#j = new core.Journal({ redactor, modelView: options?.modelView === true, strict: options?.strict === true });
    for (const line of lines) this.#j.feed(line + "\n");
    this.#j.finish();
    this.#lines = lines;
    this.#onWrite = onWrite;
    this.#release = release;
  }

  #use() {
    if (this.removed) throw coded("ERR_SESSION_REMOVED", "the session was removed");
    if (this.#closed) throw coded("ERR_JOURNAL_CLOSED", "the journal is closed");
    return this.#j;
  }

  write(record) {
    const line = this.#use().write(typeof record === "string" ? record : JSON.stringify(record));
    this.#lines.push(line);
    this.#onWrite();
    return line;
  }
  figures() {
    return this.#use().figures();
  }
  state() {
    return this.#use().state();
  }
  messagesFrom(from) {
    return this.#use().messagesFrom(from);
  }
  get messageCount() {
    return this.#use().messageCount;
  }
  get warningCount() {
    return this.#use().warningCount;
  }
  viewFrom(from) {
    return this.#use().viewFrom(from);
  }
  get viewCount() {
    return this.#use().viewCount;
  }
  get viewGeneration() {
    return this.#use().viewGeneration;
  }
  viewReport() {
    return this.#use().viewReport();
  }
  get openToolCalls() {
    return this.#use().openToolCalls;
  }
  closeOpenToolCalls(now) {
    return this.#use().closeOpenToolCalls(now);
  }
  snapshotTop(which) {
    return this.#use().snapshotTop(which);
  }
  get closed() {
    return this.#closed;
  }
  close() {
    if (this.#closed) return;
    this.#closed = true;
    this.#j.free();
    this.#release();
  }
}

export class DtsStore {
  #core;
  #redactor;
  /** id -> { lines, updated, children: Map<child id, lines>, writers: Map<key, DtsJournal> } */
  #sessions = new Map();

  constructor(core, { redactor } = {}) {
    this.#core = core;
    this.#redactor = redactor;
  }

  #entry(id, create) {
    if (typeof id !== "string" || !this.#core.validateSessionId(id)) throw coded("ERR_BAD_SESSION_ID", `not a session id: ${JSON.stringify(id)}`);
    let e = this.#sessions.get(id);
    if (!e && create) this.#sessions.set(id, (e = { lines: [], updated: new Date(), children: new Map(), writers: new Map() }));
    return e;
  }

  #journal(e, key, lines, options) {
    if (e.writers.has(key)) throw coded("ERR_SESSION_LOCKED", "one writer at a time");
    const j = new DtsJournal(this.#core, this.#redactor, lines, options, () => (e.updated = new Date()), () => e.writers.delete(key));
    e.writers.set(key, j);
    return j;
  }

  open(sessionId, options) {
    const e = this.#entry(sessionId, true);
    return this.#journal(e, "", e.lines, options);
  }

  openChild(sessionId, childId, options) {
    const e = this.#entry(sessionId, true);
    const child = String(childId).replace(/[^A-Za-z0-9_-]/g, "-");
    if (!e.children.has(child)) e.children.set(child, []);
    return this.#journal(e, `child:${child}`, e.children.get(child), options);
  }

  async read(sessionId) {
    const e = this.#entry(sessionId, false);
    if (!e) throw coded("ERR_NO_SESSION", `no session ${sessionId}`);
    return e.lines.map((l) => JSON.parse(l));
  }

  #sorted() {
    return [...this.#sessions].filter(([, e]) => e.lines.length > 0).sort(([a, x], [b, y]) => y.updated - x.updated || (a < b ? 1 : -1));
  }

  async latest() {
    return this.#sorted()[0]?.[0];
  }

  async list() {
    return this.#sorted().map(([id, e]) => ({ id, updated: e.updated }));
  }

  async setTitle(id, title) {
    const e = this.#entry(id, false);
    if (!e) throw coded("ERR_NO_SESSION", `no session ${id}`);
    const updated = e.updated;
    const record = { t: new Date().toISOString(), type: "title", title };
    const open = e.writers.get("");
    if (open) open.write(record);
    else {
      const j = this.open(id, {});
      try {
        j.write(record);
      } finally {
        j.close();
      }
    }
    e.updated = updated;
  }

  async remove(id) {
    const e = this.#entry(id, false);
    for (const j of e?.writers.values() ?? []) {
      j.close();
      j.removed = true;
    }
    this.#sessions.delete(id);
  }

  summaries() {
    return this.#sorted().map(([id, e]) => this.#core.summariseSession(id, e.updated, e.lines));
  }
}
