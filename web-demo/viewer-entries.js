// The entries of the session on screen, as the page takes them from the
// worker (worker-send.js): drafts (JSON bytes, 256 entries a piece) while
// the journal is read, then what settling decided (the patch, in columns),
// then "ready"; while it is followed, each "update" brings the drafts of the
// entries it gained and the patch's slices that changed.
//
// A big session's drafts are not parsed as they arrive. For a 1 GB journal
// they are 220 MB of JSON, and parsing them took the page 1.2 s of CPU while
// the worker read the file: on a 2-core machine that time was taken from the
// worker. Instead each piece is parsed, and settled by the patch, when one of
// its entries is first read (the entries are a Proxy over a holey array, so
// every reader of `view.entries` works unchanged): reading mode parses the
// pieces on screen, the list or the charts all of them when opened, and what
// the summary says of every entry comes from the core (transcriptNotes).
// Bytes not parsed take less memory than the entries parsed from them.

const utf8 = new TextDecoder();
const LINE_KEY = Array.from(',"line":', (c) => c.charCodeAt(0));
/** Where `needle` (byte values) starts in `bytes`, or -1. */
const indexOf = (bytes, needle) => {
  for (let i = 0; i + needle.length <= bytes.length; i++) {
    let k = 0;
    while (k < needle.length && bytes[i + k] === needle[k]) k++;
    if (k === needle.length) return i;
  }
  return -1;
};
/** A session of at most this many pieces is parsed whole at once (a few milliseconds). */
const EAGER_PIECES = 8;

export class Incoming {
  /** `eager`: up to how many pieces are parsed whole at once (a test sets 0); `load`: the open the entries are of. */
  constructor({ eager = EAGER_PIECES, load } = {}) {
    this.eager = eager;
    this.load = load;
    // Each { from, to, bytes } (a draft) or { from, to, list } (entries sent
    // as JSON text, parsed as they came), in order; `done` once in the array.
    this.pieces = [];
    // The patch's slices, in order (each replaced by a followed session's
    // update that changed it), and those that came since the last update.
    this.patches = [];
    this.changed = [];
    // The `sidechain-` runs the patch names (it lists every tool's child),
    // once ready; null when there is no patch (the entries came whole).
    this.sidechains = null;
    this.finished = false;
  }

  /**
   * The Incoming a message of the worker's (worker-send.js) goes to:
   * `incoming`, or a new one when the message is of another open or starts
   * the entries again (entries from 0: a new session, or one sent whole).
   */
  static for(incoming, data, options = {}) {
    const fresh = !incoming || incoming.load !== data.load || (data.type === "entries" && data.from === 0);
    return fresh ? new Incoming({ ...options, load: data.load }) : incoming;
  }

  /**
   * One of the worker's messages about the entries ("entries", "patch",
   * "ready", "update") taken as the page takes it: the Incoming it went to
   * (`for`), ready once "ready" or "update" came.
   */
  static take(incoming, data, options = {}) {
    const to = Incoming.for(incoming, data, options);
    if (data.type === "entries") to.add(data);
    else if (data.type === "patch") to.patch(JSON.parse(data.patch));
    else return to.ready();
    return to;
  }

  /** An "entries" message: a draft's bytes, or JSON text (parsed now: it comes after the read, whole). */
  add(data) {
    if (data.bytes) this.pieces.push({ from: data.from, to: data.to, bytes: data.bytes });
    else {
      const list = JSON.parse(data.json);
      this.pieces.push({ from: data.from, to: data.from + list.length, list });
    }
  }

  /** A "patch" message's columns (TranscriptPatch): a slice, new or in place of the one with its `from`. */
  patch(p) {
    const at = this.patches.findLastIndex((q) => q.from <= p.from);
    if (at >= 0 && this.patches[at].from === p.from) this.patches[at] = p;
    else this.patches.splice(at + 1, 0, p);
    this.changed.push(p);
  }

  /** A "ready" or "update" message: the entries as they are now (`finish` the first time, then `update`). */
  ready() {
    return this.finished ? this.update() : this.finish();
  }

  /**
   * The entries, once "ready" came (`entries`): a plain array for a small
   * session (every piece parsed now), else a Proxy that parses a piece when
   * one of its entries is read (the first piece now); `estimates`.
   */
  finish() {
    const total = (this.total = this.pieces.at(-1)?.to ?? 0);
    this.target = new Array(total);
    this.lazy = this.pieces.length > this.eager && this.pieces.every((p) => p.bytes && p.to > p.from);
    if (!this.lazy) for (const p of this.pieces) this.parse(p);
    else this.parse(this.pieces[0]);
    this.entries = this.lazy ? this.proxy() : this.target;
    this.estimates = this.guesses();
    this.sidechains = sidechainsOf(this.patches);
    this.changed = [];
    this.finished = true;
    return this;
  }

  /**
   * A followed session's update: the entries it gained (drafts, parsed now
   * unless the session is taken lazily) and the patch's slices that changed,
   * set again on the entries already parsed (a new result pairs with an
   * earlier call). `entries` stays the same array (or Proxy), longer.
   */
  update() {
    const total = (this.total = Math.max(this.total, this.pieces.at(-1)?.to ?? 0));
    this.target.length = total;
    for (const p of this.pieces) if (!this.lazy && !p.done) this.parse(p);
    const pieces = this.pieces;
    for (const patch of this.changed) {
      // The pieces the slice covers, found by halves (a 1 GB session has 2,300).
      const end = patch.from + patch.fate.length;
      for (let k = firstWhere(pieces.length, (k) => pieces[k].to > patch.from); k < pieces.length && pieces[k].from < end; k++) {
        const p = pieces[k];
        if (p.done) settle(this.target.slice(p.from, p.to), p.from, p.to, patch);
      }
    }
    this.changed = [];
    this.sidechains = sidechainsOf(this.patches);
    this.estimates = this.guesses();
    return this;
  }

  /** Whether every piece is in the array. */
  get complete() {
    return this.pieces.every((p) => p.done);
  }

  /**
   * Each entry's first guess at its height in reading mode (`estimate`)
   * where its piece is parsed, else the mean of those: an entry on screen
   * is measured, so an unparsed entry's guess only places the scroll bar.
   */
  guesses() {
    const out = new Float32Array(this.total);
    let sum = 0;
    let known = 0;
    for (const p of this.pieces) {
      if (!p.done) continue;
      for (let i = p.from; i < p.to && i < this.total; i++) {
        const e = this.target[i];
        out[i] = estimate(e ?? {});
        sum += out[i];
        known++;
      }
    }
    const mean = known ? sum / known : estimate({});
    for (const p of this.pieces) if (!p.done) out.fill(mean, p.from, Math.min(p.to, this.total));
    return out;
  }

  /** The entries reading mode shows (not those it shows under their calls), from the patch where a piece is not parsed. */
  readingItems() {
    const out = [];
    const under = new Uint8Array(this.total);
    for (const p of this.patches) {
      const u = p.underCalls;
      for (let i = 0; i < u.length && p.from + i < this.total; i++) if (u.charCodeAt(i) === 49) under[p.from + i] = 1;
    }
    for (const p of this.pieces) {
      for (let i = p.from; i < p.to && i < this.total; i++) {
        if (p.done ? !this.target[i]?.underCalls : !under[i]) out.push(i);
      }
    }
    return out;
  }

  /** The piece that holds entry `i`, or undefined. */
  pieceOf(i) {
    const p = this.pieces[firstWhere(this.pieces.length, (k) => this.pieces[k].to > i)];
    return p && p.from <= i ? p : undefined;
  }

  /**
   * Entries `[lo, hi)` among which those of journal line `line` are (entries
   * come in line order), found by the first line of each piece: read from
   * a piece's bytes without parsing it (a draft starts `[{"index":N,"line":L`,
   * as the core writes an entry), so a search's hits on a big session are
   * placed without parsing every piece on the way.
   */
  rangeOfLine(line) {
    const pieces = this.pieces;
    // The first piece whose first line is `line` or later.
    const lo = firstWhere(pieces.length, (k) => this.firstLine(pieces[k]) >= line);
    // Its entries may begin in the piece before it; they end before the first piece starting past `line`.
    let end = lo;
    while (end < pieces.length && this.firstLine(pieces[end]) <= line) end++;
    return { lo: lo > 0 ? pieces[lo - 1].from : 0, hi: end < pieces.length ? pieces[end].from : this.total };
  }

  /** The journal line of a piece's first entry. */
  firstLine(p) {
    if (!p.done) {
      const head = p.bytes.subarray(0, 48);
      const at = indexOf(head, LINE_KEY);
      let n = 0;
      let i = at + LINE_KEY.length;
      for (; at >= 0 && i < head.length && head[i] >= 48 && head[i] <= 57; i++) n = n * 10 + head[i] - 48;
      if (at >= 0 && i > at + LINE_KEY.length && i < head.length) return n;
      this.parse(p); // not as the core writes it: read it whole
    }
    return this.target[p.from]?.line ?? 0;
  }

  /** A piece's entries parsed, settled and put in the array. */
  parse(p) {
    if (p.done) return;
    const list = p.list ?? JSON.parse(utf8.decode(p.bytes));
    p.bytes = p.list = null;
    p.done = true;
    const to = Math.min(p.from + list.length, this.total ?? Infinity);
    for (const patch of this.patches) settle(list, p.from, to, patch);
    for (let i = p.from; i < to; i++) this.target[i] = list[i - p.from];
  }

  proxy() {
    const target = this.target;
    const index = (k) => {
      if (typeof k !== "string") return -1;
      const c = k.charCodeAt(0);
      if (!(c >= 48 && c <= 57)) return -1;
      const i = Number(k);
      return Number.isInteger(i) && i < this.total && String(i) === k ? i : -1;
    };
    return new Proxy(target, {
      get: (t, k, receiver) => {
        // An entry already parsed, `length`, a method: as the array has it.
        const v = Reflect.get(t, k, receiver);
        if (v !== undefined) return v;
        const p = this.pieceOf(index(k));
        if (p) this.parse(p);
        return t[k];
      },
      // Array methods (map, filter, flatMap) skip what they are told is a hole.
      has: (t, k) => index(k) >= 0 || Reflect.has(t, k),
    });
  }
}

/** A first guess at an entry's height, until it is measured (made here, when the entries come). */
export function estimate(e) {
  if (e.kind !== "message") return 40;
  const lines = Math.ceil((e.preview?.length ?? 0) / 90) + 1;
  // Calls counted in a loop: a filtered copy of every entry's tools was a
  // third of a 1 GB journal's reset.
  let calls = 0;
  const tools = e.tools;
  if (tools) for (let i = 0; i < tools.length; i++) if (tools[i].use) calls++;
  return 48 + lines * 22 + calls * 36 + (e.thinking ? 36 : 0) + (e.attachments ?? 0) * 36;
}

/**
 * What settling decided of entries `from..to` (the patch, in columns:
 * Transcript::patch_json) set on them (`list[0]` is entry `from`): each
 * field as the patch gives it, or removed where it says absent, as the core
 * omits it. The patch's rows come in entry order.
 */
function settle(list, from, to, patch) {
  const { fate, thinkingFate, underCalls, droppedWhy, tools, codes } = patch;
  const a = Math.max(from, patch.from);
  const b = Math.min(to, patch.from + fate.length);
  if (a >= b) return;
  const set = (o, k, v) => {
    if (v !== undefined) o[k] = v;
    else if (o[k] !== undefined) delete o[k];
  };
  for (let i = a; i < b; i++) {
    const e = list[i - from];
    const c = i - patch.from;
    set(e, "fate", codes.fate[fate[c]]);
    set(e, "thinkingFate", codes.thinkingFate[thinkingFate[c]]);
    set(e, "underCalls", underCalls[c] === "1" ? true : undefined);
    set(e, "droppedWhy", undefined);
  }
  for (let r = firstRow(droppedWhy, 2, a); r + 1 < droppedWhy.length && droppedWhy[r] < b; r += 2) {
    const e = list[droppedWhy[r] - from];
    if (e) e.droppedWhy = droppedWhy[r + 1];
  }
  // Six values a tool: entry, k, pair, name, flags, child.
  for (let r = firstRow(tools, 6, a); r + 5 < tools.length && tools[r] < b; r += 6) {
    const t = list[tools[r] - from]?.tools?.[tools[r + 1]];
    if (!t) continue;
    const flags = tools[r + 4];
    set(t, "pair", tools[r + 2] ?? undefined);
    set(t, "name", tools[r + 3] ?? undefined);
    set(t, "error", flags & 1 ? true : undefined);
    set(t, "interrupted", flags & 2 ? true : undefined);
    set(t, "child", tools[r + 5] ?? undefined);
  }
}

/** The `sidechain-` runs the patch's slices name as tools' children, or null without a patch. */
function sidechainsOf(patches) {
  if (!patches.length) return null;
  const out = new Set();
  for (const { tools } of patches) for (let r = 5; r < tools.length; r += 6) if (tools[r]?.startsWith("sidechain-")) out.add(tools[r]);
  return out;
}

/** The first row (of `width` values, its entry first) whose entry is `at` or later. */
function firstRow(rows, width, at) {
  return width * firstWhere(Math.floor(rows.length / width), (k) => rows[k * width] >= at);
}

/** The first of `0..n` for which `is` holds (`n` if none), found by halves: `is` must hold from some point on. */
function firstWhere(n, is) {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (is(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}
