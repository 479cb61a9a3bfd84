// The viewer's page: sessions index, reading mode (variable-height virtual
// scrolling), the compact list, charts, search, deep links and live follow.
// Entries come from the core's transcript (through worker.js); reading-mode
// HTML comes from render.js in the worker and passes an allowlist here
// (sanitize) before it is shown. Everything else from a journal is put in
// the DOM as text (textContent), never as HTML. The page fetches only its
// own files.

import { chart, sessionCharts, svgEl } from "./charts.js";
import { doctorPanel } from "./doctor-panel.js";

const ROW = 56;
const $ = (id) => document.getElementById(id);
const el = (tag, props = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
};

// `garuda-session serve`'s token: it comes in the URL's fragment (which no
// request carries), is kept in this tab's sessionStorage (one per origin,
// so per port) and goes out as a header on this origin's own requests only.
// The cookie it replaces went to every server on 127.0.0.1, whatever its port.
const serveToken = (() => {
  const h = new URLSearchParams(location.hash.slice(1));
  const given = h.get("token");
  if (given !== null) {
    // Out of the address bar (and the history), the rest of the link kept.
    h.delete("token");
    history.replaceState(null, "", `${location.pathname}${location.search}${String(h) ? `#${h}` : ""}`);
  }
  try {
    if (given !== null) sessionStorage.setItem("garuda-serve-token", given);
    return sessionStorage.getItem("garuda-serve-token");
  } catch {
    return given; // storage refused (a sandboxed page): this load only
  }
})();
const serveHeaders = serveToken ? { "x-garuda-token": serveToken } : {};

function startWorker() {
  const w = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  // The worker says "alive" once its module (and the wasm) is loaded;
  // messages sent before that could reach it before it listens.
  let ready;
  const alive = new Promise((resolve) => (ready = resolve));
  w.addEventListener("message", ({ data }) => data.type === "alive" && ready());
  // Before any other message (promise callbacks run in order), so the first fetch carries the token.
  if (serveToken) alive.then(() => w.postMessage({ type: "token", token: serveToken }));
  return { w, send: (message) => alive.then(() => w.postMessage(message)) };
}
// One worker for the session on screen, one for the sessions index (so a
// folder's summaries never wait behind a big session, nor it behind them).
// The index's starts with the first folder: a single file does not pay for it.
const main = startWorker();
let indexWorker = null;
const indexer = {
  send(message) {
    if (!indexWorker) {
      indexWorker = startWorker();
      indexWorker.w.addEventListener("message", onIndexMessage);
    }
    return indexWorker.send(message);
  },
};
const send = main.send;

const view = {
  mode: "reading",
  sessions: new Map(), // name -> { file?, url?, project, children: [] }
  rows: new Map(), // sessions index: name -> summary row
  active: null,
  entries: [],
  visible: [],
  hits: [],
  hitSet: new Set(),
  hit: -1,
  query: "",
  selected: -1,
  redaction: null,
  loadStarted: 0,
  generation: 0,
  load: 0, // the newest open; replies to older ones are ignored
  pendingEntry: null, // a deep link's entry, scrolled to once loaded
};
window.viewer = view; // for tests and the curious

const n = (x) => Number(x ?? 0).toLocaleString("en-US");
const money = (x) => (typeof x === "number" ? `$${x.toFixed(x < 1 ? 4 : 2)}` : "unknown");

// ---- Sanitising the renderer's HTML ------------------------------------------

const TAGS = new Set("ARTICLE HEADER DIV SPAN A TIME SMALL B STRONG EM I DEL S P BR HR UL OL LI BLOCKQUOTE PRE CODE TABLE THEAD TBODY TR TH TD DETAILS SUMMARY H1 H2 H3 H4 H5 H6 IMG SUP SUB".split(" "));
const SAFE_HREF = /^(https?:|mailto:|#)/i;
const SAFE_IMG = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]*$/;

/**
 * The renderer's HTML as nodes, through an allowlist: known tags only, no
 * attribute but class, id, open, title, alt, rel, target, data-child, a
 * safe href and a base64 raster image. render.js already escapes all
 * journal text; this is the second wall.
 */
function sanitize(html) {
  const t = document.createElement("template");
  t.innerHTML = html;
  const walk = (node) => {
    for (const child of [...node.children]) {
      if (!TAGS.has(child.tagName)) {
        child.replaceWith(document.createTextNode(child.textContent ?? ""));
        continue;
      }
      for (const a of [...child.attributes]) {
        const ok =
          ["class", "id", "open", "title", "alt", "data-child", "start"].includes(a.name) ||
          (a.name === "href" && child.tagName === "A" && SAFE_HREF.test(a.value.trim())) ||
          (a.name === "rel" && child.tagName === "A") ||
          (a.name === "target" && child.tagName === "A" && a.value === "_blank") ||
          (a.name === "src" && child.tagName === "IMG" && SAFE_IMG.test(a.value));
        if (!ok) child.removeAttribute(a.name);
      }
      if (child.tagName === "A") child.setAttribute("rel", "noopener noreferrer");
      if (child.tagName === "IMG" && !child.hasAttribute("src")) child.remove();
      else walk(child);
    }
  };
  walk(t.content);
  return t.content;
}

// ---- Loading -----------------------------------------------------------------

const isSession = (name) => name.endsWith(".jsonl") || (name.startsWith("session-") && name.endsWith(".json"));

/**
 * Files with their relative paths, in any agent's layout: a session
 * `<dir>/<id>.jsonl` (or Gemini CLI's `session-*.json`), its child runs in a
 * folder of the same name at any depth (`<id>/<child>.jsonl`, Claude Code's
 * `<id>/subagents/agent-*.jsonl`); other folders are projects.
 */
function addFiles(files) {
  const stem = (name) => name.replace(/\.jsonl?$/, "");
  const sessionPaths = new Set(files.map((f) => f.path.split("/").filter(Boolean)).filter((p) => isSession(p.at(-1))).map((p) => [...p.slice(0, -1), stem(p.at(-1))].join("/")));
  for (const { file, path } of files) {
    const parts = path.split("/").filter(Boolean);
    if (!isSession(parts.at(-1) ?? "")) continue;
    const name = stem(parts.at(-1));
    let owner = null;
    for (let k = parts.length - 1; k >= 1 && !owner; k--) {
      if (sessionPaths.has(parts.slice(0, k).join("/"))) owner = parts[k - 1];
    }
    if (owner) {
      const p = view.sessions.get(owner) ?? { children: [] };
      p.children.push({ name, file });
      view.sessions.set(owner, p);
    } else {
      const s = view.sessions.get(name) ?? { children: [] };
      s.file = file;
      s.project = parts.slice(0, -1).join("/");
      view.sessions.set(name, s);
    }
  }
  sessionsChanged();
}

/** A folder opens to its sessions index; a single session opens to its transcript. */
function sessionsChanged() {
  renderSessions();
  const top = [...view.sessions.entries()].filter(([, s]) => s.file || s.url);
  summarise();
  const wanted = initialLink;
  initialLink = {};
  if (wanted.session && [...view.sessions].some(([k, s]) => k === wanted.session || s.children.some((c) => c.name === wanted.session))) return openByName(wanted.session, wanted.entry);
  if (top.length === 1) openByName(top[0][0]);
  else if (top.length > 1) setMode("index");
}

const sourceOf = (s) => ({ ...(s.file ? { file: s.file } : { url: s.url }), ...(s.run ? { run: s.run } : {}) });

function openByName(name, entry = null) {
  for (const [k, s] of view.sessions) {
    if (k === name && (s.file || s.url)) return openSession(name, sourceOf(s), entry);
    const c = s.children.find((c) => c.name === name);
    if (c) return openSession(name, sourceOf(c), entry);
  }
}

function renderSessions() {
  const nav = $("sessions");
  nav.replaceChildren();
  let project = null;
  for (const [name, s] of view.sessions) {
    if ((s.project ?? "") !== (project ?? "") && s.project) nav.append(el("div", { class: "project", text: s.project }));
    project = s.project ?? null;
    if (s.file || s.url) nav.append(el("a", { text: name, class: name === view.active ? "active" : "", onclick: () => openSession(name, sourceOf(s)) }));
    for (const c of s.children) {
      nav.append(el("a", { text: `↳ ${c.name}`, class: `child ${c.name === view.active ? "active" : ""}`, onclick: () => openSession(c.name, sourceOf(c)) }));
    }
  }
}

function openSession(name, source, entry = null) {
  view.active = name;
  view.redaction = null;
  view.loadStarted = performance.now();
  view.pendingEntry = entry;
  view.entries = [];
  view.incoming = [];
  view.follow = false;
  reading.reset([]);
  renderSessions();
  if (view.mode === "index") setMode("reading");
  $("status").textContent = `Loading ${name}…`;
  $("progress").hidden = false;
  $("bar").style.width = "0";
  delete document.body.dataset.loaded;
  view.load++;
  send({ type: "open", source, load: view.load });
  writeLink();
}

/** A subagent's run for a tool call: a child named `…-<toolUseId>`, or the run the call names, or (`sidechain-<id>`) the run inside the open session's own file. */
function childFor(toolUseId, named) {
  for (const s of view.sessions.values()) {
    const c = s.children.find((c) => c.name.endsWith(`-${toolUseId}`) || (named && (c.name === named || c.name === `agent-${named}`)));
    if (c) return c;
  }
  const here = view.sessions.get(view.active);
  if (named?.startsWith("sidechain-") && here && (here.file || here.url)) return { ...here, name: `${view.active} ${named}`, children: [], run: named.slice("sidechain-".length) };
  return null;
}

async function entriesOf(item, prefix) {
  if (item.isFile) return [{ file: await new Promise((r, j) => item.file(r, j)), path: prefix + item.name }];
  if (!item.isDirectory) return [];
  const reader = item.createReader();
  const all = [];
  for (;;) {
    const batch = await new Promise((r, j) => reader.readEntries(r, j));
    if (batch.length === 0) break;
    for (const child of batch) all.push(...(await entriesOf(child, `${prefix}${item.name}/`)));
  }
  return all;
}

document.addEventListener("dragover", (e) => {
  e.preventDefault();
  document.body.classList.add("dragging");
});
document.addEventListener("dragleave", () => document.body.classList.remove("dragging"));
document.addEventListener("drop", async (e) => {
  e.preventDefault();
  document.body.classList.remove("dragging");
  const items = [...e.dataTransfer.items].map((i) => i.webkitGetAsEntry?.()).filter(Boolean);
  const files = [];
  for (const item of items) files.push(...(await entriesOf(item, "")));
  if (files.length === 0) for (const f of e.dataTransfer.files) files.push({ file: f, path: f.name });
  addFiles(files);
});
$("pick-files").addEventListener("change", (e) => addFiles([...e.target.files].map((f) => ({ file: f, path: f.name }))));
$("pick-folder").addEventListener("change", (e) => addFiles([...e.target.files].map((f) => ({ file: f, path: f.webkitRelativePath || f.name }))));

// ---- Modes and deep links -------------------------------------------------------

function setMode(mode) {
  view.mode = mode;
  for (const b of document.querySelectorAll("[data-mode]")) b.classList.toggle("on", b.dataset.mode === mode);
  $("index-view").hidden = mode !== "index";
  $("middle").hidden = mode === "index";
  $("reading").hidden = mode !== "reading";
  $("list").hidden = mode !== "list";
  $("filters").hidden = mode !== "list";
  $("detail").hidden = mode !== "list";
  if (mode === "reading") reading.update();
  if (mode === "list") applyFilters();
  if (mode === "index") renderIndex();
  writeLink();
}
for (const b of document.querySelectorAll("[data-mode]")) b.addEventListener("click", () => setMode(b.dataset.mode));

/** `#session=<name>&e=<entry>&mode=<mode>`: the session and the entry on screen. */
function deepLink() {
  const h = new URLSearchParams(location.hash.slice(1));
  const e = h.get("e");
  return { session: h.get("session"), entry: e !== null && /^\d+$/.test(e) ? Number(e) : null, mode: h.get("mode") };
}

let linkTimer = 0;
function writeLink(entry = null) {
  if (!view.active) return; // the link the page was opened with stays until a session is on screen
  clearTimeout(linkTimer);
  linkTimer = setTimeout(() => {
    const h = new URLSearchParams();
    if (view.active && view.mode !== "index") h.set("session", view.active);
    const e = entry ?? (view.mode === "reading" ? reading.topEntry() : view.selected >= 0 ? view.selected : null);
    if (e !== null && e !== undefined && view.mode !== "index") h.set("e", String(e));
    if (view.mode !== "reading") h.set("mode", view.mode);
    history.replaceState(null, "", `${location.pathname}${location.search}#${h}`);
  }, 150);
}

window.addEventListener("hashchange", () => {
  const { session, entry } = deepLink();
  if (session && session !== view.active) openByName(session, entry);
  else if (entry !== null) goTo(entry);
});

/** Shows an entry: in reading mode at the top of the screen, in the list selected. */
function goTo(index) {
  if (view.mode === "list") return scrollToEntry(index);
  if (view.mode !== "reading") setMode("reading");
  reading.scrollToEntry(index);
}

// ---- Worker messages -------------------------------------------------------------

const utf8 = new TextDecoder();
main.w.addEventListener("message", ({ data }) => {
  if (data.load !== undefined && data.load !== view.load && data.type !== "rendered") return;
  if (data.type === "first") {
    // The first screen, before the journal is read to the end.
    view.marks = data.marks;
    if (view.entries.length === 0) {
      view.entries = data.entries;
      reading.reset(readingItems());
      view.marks.firstShown = performance.timeOrigin + performance.now();
    }
  } else if (data.type === "progress") {
    $("bar").style.width = data.total ? `${(100 * data.done) / data.total}%` : "50%";
    $("status").textContent = `Loading… ${(data.done / 1e6).toFixed(1)} MB`;
  } else if (data.type === "entries") {
    if (data.from === 0) view.incoming = [];
    // Entries read so far come as UTF-8 bytes (decoded here, off the worker).
    const json = data.bytes ? utf8.decode(data.bytes) : data.json;
    for (const e of JSON.parse(json)) view.incoming.push(e);
  } else if (data.type === "ready" || data.type === "update") {
    $("progress").hidden = true;
    const keepTop = data.type === "update" ? reading.topEntry() : null;
    if (data.patch) settle(view.incoming, JSON.parse(data.patch));
    view.entries = view.incoming;
    view.incoming = [];
    view.stats = data.stats;
    view.follow = data.follow;
    $("follow-box").hidden = !data.follow && data.type !== "update";
    if (data.type === "ready") {
      view.marks = { ...view.marks, ...data.marks, received: performance.timeOrigin + performance.now() };
      view.loadMs = performance.now() - view.loadStarted;
    }
    view.generation++;
    view.selected = data.type === "ready" ? -1 : view.selected;
    $("status").textContent = `${view.active}: ${n(view.entries.length)} entries${data.follow ? " · following" : ""}`;
    renderSummary();
    const atEnd = data.type === "update" && reading.atEnd();
    reading.reset(readingItems(), data.type === "update");
    if (view.mode === "list") applyFilters();
    if (view.query) send({ type: "search", query: view.query });
    if (data.type === "ready") {
      if (view.pendingEntry !== null) goTo(view.pendingEntry);
      else if (view.mode === "list") applyFilters();
      view.pendingEntry = null;
      document.body.dataset.loaded = view.active;
      view.marks.rendered = performance.timeOrigin + performance.now();
    } else if (atEnd) reading.scrollToEnd();
    else if (keepTop !== null) reading.scrollToEntry(keepTop, false);
    document.body.dataset.entries = String(view.entries.length);
  } else if (data.type === "rendered") {
    reading.rendered(data.items, data.load);
  } else if (data.type === "child-rendered") {
    reading.nested.set(data.key, data);
    const p = reading.pos.get(data.key);
    const node = p === undefined ? null : reading.nodes.get(p);
    if (node) reading.fill(node, data.key);
  } else if (data.type === "hits") {
    if (data.query !== view.query) return;
    view.hitSet = new Set([...data.hits, ...entriesAtLines(data.lines ?? [])]);
    data.hits = [...view.hitSet].sort((a, b) => a - b);
    const shown = view.mode === "list" ? new Set(view.visible) : new Set(reading.items);
    view.hits = data.hits.filter((i) => shown.has(i));
    view.generation++;
    view.hit = view.hits.length ? 0 : -1;
    $("hits").textContent = view.query ? `${view.hits.length} hits` : "";
    if (view.hit >= 0) goToHit();
    renderRows();
    reading.refreshMarks();
  } else if (data.type === "detail") {
    renderDetail(data.detail);
  } else if (data.type === "redaction") {
    data.would = [...data.would, ...entriesAtLines(data.wouldLines ?? [])];
    view.redaction = { would: new Set(data.would), marked: new Set(data.marked) };
    view.generation++;
    $("status").textContent = `Redaction check: ${data.would.length} entries would change; ${data.marked.length} were already marked redacted.`;
    renderRows();
  } else if (data.type === "error") {
    $("progress").hidden = true;
    $("status").textContent = `Error: ${data.message}`;
  }
});
$("follow").addEventListener("change", (e) => {
  if (!e.target.checked) send({ type: "stop-follow" });
});

/**
 * Entries that came while the journal was read carry no fates, pairs or
 * thinking yet (or what a settle for the first screen said): the worker
 * sends what settling decided (TranscriptPatch), and a field the patch
 * lacks is removed, as the core omits it.
 */
const SETTLED = ["fate", "tools", "thinkingFate", "droppedWhy", "underCalls"];
function settle(entries, patch) {
  for (let i = 0; i < patch.length && i < entries.length; i++) {
    const e = entries[i];
    const p = patch[i];
    for (const k of SETTLED) {
      if (p[k] !== undefined) e[k] = p[k];
      else if (e[k] !== undefined) delete e[k];
    }
  }
}

/** The entries of some journal lines (entries come in line order: found by halves). */
function entriesAtLines(lines) {
  const out = [];
  const entries = view.entries;
  for (const line of lines) {
    let lo = 0;
    let hi = entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (entries[mid].line < line) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < entries.length && entries[i].line === line; i++) if (entries[i].kind === "message") out.push(i);
  }
  return out;
}

// ---- Summary and charts ------------------------------------------------------------

function renderSummary() {
  const stats = view.stats;
  const box = $("summary");
  box.replaceChildren();
  const u = stats.usage;
  const title = stats.title ?? stats.firstPrompt;
  box.append(
    el("div", {}, el("span", { class: "cost", id: "cost", text: stats.cost }), ` · ${n(stats.messages)} messages · ${n(stats.prompts)} prompts · ${n(stats.steps)} steps · model ${stats.model ?? "-"}${stats.format && stats.format !== "garuda" ? ` · ${stats.format}` : ""}${title ? ` · “${title.slice(0, 120)}”` : ""}`),
    el("div", { text: `usage: ${n(u.inputTokens)} input · ${n(u.outputTokens)} output · ${n(u.cacheReadTokens)} cache read · ${n(u.cacheWriteTokens)} cache write · context ${n(stats.contextTokens)}` }),
  );
  if (stats.budgetNote) box.append(el("div", { id: "budget", text: stats.budgetNote }));
  box.append(doctorPanel(view.sessions.get(view.active), view.active) ?? "");
  const r = stats.report;
  const dropped = Object.entries(r.thinkingDropped).filter(([, c]) => c > 0).map(([k, c]) => `${k} ${c}`);
  box.append(el("div", { text: `on resume: ${dropped.length ? `thinking dropped (${dropped.join(", ")})` : "all thinking kept"}${r.toolCallsAnswered.length ? ` · ${r.toolCallsAnswered.length} open tool calls answered` : ""}` }));
  const warnings = view.entries.filter((e) => e.kind === "warning");
  if (warnings.length || stats.tornTail) {
    const w = el("div", { id: "warnings" }, "warnings: ");
    for (const warning of warnings.slice(0, 50)) {
      w.append(el("a", { text: `line ${warning.line} (${warning.type})`, title: warning.preview, onclick: () => goTo(warning.index) }), " ");
    }
    if (stats.tornTail) w.append(el("span", { text: "the last line is torn (incomplete)" }));
    box.append(w);
  }
  const subagents = view.entries.flatMap((e) => (e.subagents ?? []).map((s) => ({ ...s, index: e.index })));
  if (subagents.length) {
    // Filled when opened: a long session has thousands of subagent runs.
    const t = el("table", { class: "sub" });
    const fold = el("details", {}, el("summary", { text: `subagents (${n(subagents.length)})` }), t);
    fold.addEventListener("toggle", () => {
      if (!fold.open || t.rows.length) return;
      for (const s of subagents) t.append(el("tr", {}, el("td", { text: s.child ?? "-" }), el("td", { text: `${n(s.tokens)} tokens` }), el("td", { text: typeof s.costUsd === "number" ? `$${s.costUsd.toFixed(4)}` : "cost unknown" })));
    });
    box.append(fold);
  }
  const charts = el("details", { id: "charts" }, el("summary", { text: "charts: context, cost, tokens per turn" }));
  charts.addEventListener("toggle", () => {
    if (charts.open && charts.children.length === 1) charts.append(...sessionCharts(view.entries));
  });
  box.append(charts);
}

// ---- Reading mode: variable-height virtual scrolling ----------------------------

/** Sums of heights by position (a Fenwick tree): offsets and lookups in O(log n). */
class Heights {
  constructor(heights) {
    this.n = heights.length;
    this.h = Float64Array.from(heights);
    this.t = new Float64Array(this.n + 1);
    for (let i = 0; i < this.n; i++) {
      this.t[i + 1] += this.h[i];
      const j = i + 1 + ((i + 1) & -(i + 1));
      if (j <= this.n) this.t[j] += this.t[i + 1];
    }
  }
  set(i, v) {
    const d = v - this.h[i];
    if (d === 0) return 0;
    this.h[i] = v;
    for (let j = i + 1; j <= this.n; j += j & -j) this.t[j] += d;
    return d;
  }
  /** The top of item i. */
  offset(i) {
    let s = 0;
    for (let j = i; j > 0; j -= j & -j) s += this.t[j];
    return s;
  }
  total() {
    return this.offset(this.n);
  }
  /** The item at vertical position y. */
  at(y) {
    let pos = 0;
    let rest = y;
    for (let step = 1 << Math.floor(Math.log2(this.n || 1)); step > 0; step >>= 1) {
      if (pos + step <= this.n && this.t[pos + step] <= rest) {
        pos += step;
        rest -= this.t[pos];
      }
    }
    return Math.min(pos, this.n - 1);
  }
}

const GAP = 0; // .vitem's padding spaces the entries
/** A first guess at an entry's height, until it is measured. */
function estimate(e) {
  if (e.kind !== "message") return 40;
  const lines = Math.ceil((e.preview?.length ?? 0) / 90) + 1;
  return 48 + lines * 22 + (e.tools?.filter((t) => t.use).length ?? 0) * 36 + (e.thinking ? 36 : 0) + (e.attachments ?? 0) * 36;
}

/** Entries reading mode shows: tool results it already shows under their calls are left out. */
function readingItems() {
  return view.entries.filter((e) => !e.underCalls).map((e) => e.index);
}

const reading = {
  items: [],
  heights: new Heights([]),
  pos: new Map(), // entry index -> position in items
  nodes: new Map(), // position -> node on screen
  html: new Map(), // entry index -> rendered HTML (a bounded cache)
  nested: new Map(), // entry index -> a subagent's run shown under its call
  asked: new Set(),
  frame: 0,

  reset(items, keep = false) {
    this.items = items;
    this.pos = new Map(items.map((index, p) => [index, p]));
    const old = keep ? this.heights : null;
    const oldItems = keep && this.prevItems ? this.prevItems : [];
    const measured = new Map(oldItems.map((index, p) => [index, old.h[p]]));
    this.heights = new Heights(items.map((i) => measured.get(i) ?? estimate(view.entries[i] ?? {}) + GAP));
    this.prevItems = items;
    if (!keep) {
      this.html.clear();
      this.asked.clear();
      this.nested.clear();
      $("reading").scrollTop = 0;
    }
    for (const node of this.nodes.values()) node.remove();
    this.nodes.clear();
    this.update();
  },

  topEntry() {
    if (!this.items.length) return null;
    return this.items[this.heights.at($("reading").scrollTop + 1)];
  },

  atEnd() {
    const box = $("reading");
    return box.scrollTop + box.clientHeight >= box.scrollHeight - 40;
  },

  scrollToEnd() {
    this.pinned = true;
    $("reading").scrollTop = 1e12;
    this.update();
  },

  scrollToEntry(index, select = true) {
    let p = this.pos.get(index);
    if (p === undefined) {
      // An entry reading mode folds into its call: show the call.
      const e = view.entries[index];
      const call = e?.tools?.find((t) => t.pair !== undefined)?.pair;
      p = this.pos.get(call);
      if (p === undefined) p = this.items.findIndex((i) => i >= index);
      if (p < 0) return;
    }
    const box = $("reading");
    this.pinned = false;
    box.scrollTop = this.heights.offset(p);
    this.update();
    if (select) {
      for (const node of box.querySelectorAll(".vitem.target")) node.classList.remove("target");
      this.nodes.get(p)?.classList.add("target");
    }
    writeLink(index);
  },

  /** Draws the items on screen (and a few around), keeping the top one still as heights become known. */
  update() {
    const box = $("reading");
    const spacer = $("reading-spacer");
    if (box.hidden) return;
    spacer.style.height = `${this.heights.total()}px`;
    if (!this.items.length) {
      for (const node of this.nodes.values()) node.remove();
      this.nodes.clear();
      return;
    }
    const top = box.scrollTop;
    const first = Math.max(0, this.heights.at(Math.max(0, top - 600)));
    let last = first;
    while (last < this.items.length - 1 && this.heights.offset(last + 1) < top + box.clientHeight + 600) last++;
    for (const [p, node] of this.nodes) {
      if (p < first || p > last) {
        node.remove();
        this.nodes.delete(p);
      }
    }
    const ask = [];
    for (let p = first; p <= last; p++) {
      const index = this.items[p];
      let node = this.nodes.get(p);
      if (!node || node.dataset.index !== String(index)) {
        node?.remove();
        node = el("div", { class: "vitem", "data-index": String(index) });
        this.fill(node, index);
        spacer.append(node);
        resized.observe(node);
        this.nodes.set(p, node);
      }
      if (!this.html.has(index) && !this.asked.has(index)) ask.push(index);
    }
    if (ask.length) {
      for (const i of ask) this.asked.add(i);
      send({ type: "render", indices: ask, load: view.load });
    }
    this.measure();
  },

  fill(node, index) {
    const html = this.html.get(index);
    const e = view.entries[index];
    if (html !== undefined) {
      node.replaceChildren(sanitize(html));
      node.classList.remove("placeholder");
      const run = this.nested.get(index);
      if (run) {
        const box = el("div", { class: "nested" }, el("div", { class: "nested-head", text: `Subagent run ${run.name}: ${n(run.total)} entries${run.html.length < run.total ? ` (the first ${run.html.length} shown)` : ""}` }));
        for (const h of run.html) box.append(sanitize(h));
        (node.querySelector(".subagent") ?? node.querySelector(".body") ?? node).after(box);
        box.closest("details")?.setAttribute("open", ""); // drawn again, the call's fold stays open on its run
      }
    } else {
      node.classList.add("placeholder");
      node.replaceChildren(el("div", { class: "entry" }, el("header", { text: e ? `${e.type} · line ${e.line}` : "" }), el("div", { class: "body", text: e?.preview ?? "" })));
    }
    if (view.hitSet.has(index)) node.classList.add("hit");
    else node.classList.remove("hit");
  },

  /** Heights as drawn; items below move, the one at the top stays where it is. */
  measure() {
    const box = $("reading");
    const top = box.scrollTop;
    const anchorP = this.heights.at(top);
    const anchorDelta = top - this.heights.offset(anchorP);
    let shift = 0;
    for (const [p, node] of this.nodes) {
      const h = node.offsetHeight + GAP;
      const d = this.heights.set(p, h);
      if (d !== 0 && p < anchorP) shift += d;
    }
    for (const [p, node] of this.nodes) node.style.transform = `translateY(${this.heights.offset(p)}px)`;
    $("reading-spacer").style.height = `${this.heights.total()}px`;
    // Scrolled to the end, it stays at the end as heights become known
    // (the last entries may be taller than guessed); else the top entry stays put.
    if (this.pinned) {
      const end = Math.max(0, this.heights.total() - box.clientHeight);
      if (Math.abs(box.scrollTop - end) > 1) {
        box.scrollTop = end;
        requestAnimationFrame(() => this.update());
      }
    } else if (shift !== 0) box.scrollTop = this.heights.offset(anchorP) + anchorDelta;
  },

  rendered(items, load) {
    if (load !== view.load) return;
    for (const { index, html } of items) {
      this.html.set(index, html);
      if (this.html.size > 3000) this.html.delete(this.html.keys().next().value);
    }
    for (const [p, node] of this.nodes) {
      const index = this.items[p];
      if (node.classList.contains("placeholder") && this.html.has(index)) this.fill(node, index);
    }
    this.measure();
    if (view.marks && !view.marks.firstRendered) view.marks.firstRendered = performance.timeOrigin + performance.now();
  },

  refreshMarks() {
    for (const [p, node] of this.nodes) node.classList.toggle("hit", view.hitSet.has(this.items[p]));
  },
};

view.reading = reading;

// An entry whose height changes on screen (a fold opened, an image loaded)
// moves the ones below it.
const resized = new ResizeObserver(() => {
  cancelAnimationFrame(reading.measureFrame);
  reading.measureFrame = requestAnimationFrame(() => reading.measure());
});

$("reading").addEventListener("scroll", () => {
  const box = $("reading");
  reading.pinned = box.scrollTop > 0 && box.scrollTop + box.clientHeight >= box.scrollHeight - 2;
  cancelAnimationFrame(reading.frame);
  reading.frame = requestAnimationFrame(() => {
    reading.update();
    writeLink();
  });
});
window.addEventListener("resize", () => (view.mode === "reading" ? reading.update() : renderRows()));
// Links inside entries: to another entry, or to a subagent's run.
$("reading").addEventListener("click", (ev) => onEntryClick(ev));
$("detail").addEventListener("click", (ev) => onEntryClick(ev));
function onEntryClick(ev) {
  const a = ev.target.closest("a");
  if (!a) return;
  if (a.classList.contains("child-show")) {
    ev.preventDefault();
    const child = childFor("", a.dataset.child);
    const key = Number(a.closest(".vitem")?.dataset.index);
    if (!child || !Number.isFinite(key)) return void ($("status").textContent = `the run ${a.dataset.child} is not among the open files`);
    a.textContent = "reading…";
    send({ type: "child", source: sourceOf(child), key, name: child.name });
  } else if (a.classList.contains("child-link")) {
    ev.preventDefault();
    const child = childFor("", a.dataset.child);
    if (child) openSession(child.name, sourceOf(child));
    else $("status").textContent = `the run ${a.dataset.child} is not among the open files`;
  } else if (a.classList.contains("anchor")) {
    ev.preventDefault();
    const index = Number(/e=(\d+)/.exec(a.getAttribute("href"))?.[1]);
    if (Number.isFinite(index)) reading.scrollToEntry(index);
  }
}
document.addEventListener("keydown", (ev) => {
  if (view.mode !== "reading" || ev.target.tagName === "INPUT") return;
  const box = $("reading");
  if (ev.key === "j" || ev.key === "k") {
    const p = reading.heights.at(box.scrollTop + 1) + (ev.key === "j" ? 1 : -1);
    if (p >= 0 && p < reading.items.length) reading.scrollToEntry(reading.items[p], false);
  }
});

// ---- The compact list ----------------------------------------------------------------

const LABEL = { tool_results: "tool results", continue: "continue note" };

function applyFilters() {
  const on = Object.fromEntries([...document.querySelectorAll("[data-filter]")].map((c) => [c.dataset.filter, c.checked]));
  view.visible = [];
  for (const e of view.entries) {
    if (e.kind !== "message") {
      if (on.landmark) view.visible.push(e.index);
      continue;
    }
    const group = e.type === "tool_results" ? "tool_result" : e.role;
    if (!on[group]) continue;
    if (on.thinking && !e.thinking) continue;
    if (on.tool_use && !(e.blocks ?? []).includes("tool_use")) continue;
    view.visible.push(e.index);
  }
  $("spacer").style.height = `${view.visible.length * ROW}px`;
  view.generation++;
  renderRows();
}
document.querySelectorAll("[data-filter]").forEach((c) => c.addEventListener("change", applyFilters));

function highlighted(text) {
  const span = el("span");
  const q = view.query.toLowerCase();
  if (!q) {
    span.textContent = text;
    return span;
  }
  const lower = text.toLowerCase();
  let at = 0;
  for (let i = lower.indexOf(q); i !== -1; i = lower.indexOf(q, at)) {
    span.append(text.slice(at, i), el("mark", { text: text.slice(i, i + q.length) }));
    at = i + q.length;
  }
  span.append(text.slice(at));
  return span;
}

function row(e, top) {
  const label = e.kind === "message" ? LABEL[e.type] ?? e.role : e.kind === "warning" ? `warning: ${e.type}` : e.type;
  const classes = ["row", e.kind === "message" ? "message" : "landmark", e.fate ?? "", e.index === view.selected ? "selected" : ""];
  const head = el("div", { class: "head", text: `line ${e.line} · ${label}` });
  if (e.usage) {
    const u = e.usage;
    head.append(` · ${n(u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens)} tokens${typeof e.costUsd === "number" ? ` · $${e.costUsd.toFixed(4)}` : ""}`);
  }
  if (e.fate === "undone") head.append(el("span", { class: "badge", text: "undone" }));
  if (e.fate === "compacted") head.append(el("span", { class: "badge", text: "compacted away" }));
  if (e.thinkingFate) {
    const text = e.thinkingFate === "dropped" ? `thinking dropped: ${e.droppedWhy}` : e.thinkingFate === "kept" ? "thinking kept" : "thinking not sent";
    head.append(el("span", { class: `badge thinking ${e.thinkingFate === "dropped" ? "dropped" : e.thinkingFate === "kept" ? "kept" : ""}`, text }));
  }
  for (const t of e.tools ?? []) {
    if (t.use) {
      const outcome = t.pair === undefined ? "no result" : t.interrupted ? "interrupted" : t.error ? "error" : "ok";
      const tone = outcome === "ok" ? "" : outcome === "no result" ? "interrupted" : outcome;
      head.append(el("span", { class: `badge ${tone}`, text: `${t.name} → ${outcome}`, title: t.pair !== undefined ? `result in entry ${t.pair}` : "no result recorded" }));
      const child = childFor(t.id, t.child);
      if (child) head.append(el("span", { class: "badge sub", text: "subagent transcript", onclick: (ev) => (ev.stopPropagation(), openSession(child.name, sourceOf(child))) }));
    } else {
      if (t.name) head.append(el("span", { class: "badge", text: `result of ${t.name}` }));
      if (t.interrupted) head.append(el("span", { class: "badge interrupted", text: "interrupted" }));
      else if (t.error) head.append(el("span", { class: "badge error", text: "error" }));
    }
  }
  if (e.notes) head.append(el("span", { class: "badge", text: `${e.notes} ${e.notes === 1 ? "note" : "notes"}` }));
  if (e.attachments) head.append(el("span", { class: "badge", text: `${e.attachments} ${e.attachments === 1 ? "attachment" : "attachments"}` }));
  if (e.synthetic) head.append(el("span", { class: "badge", text: "synthetic" }));
  if (view.redaction?.marked.has(e.index) || e.redacted) head.append(el("span", { class: "badge redact", text: "redacted" }));
  if (view.redaction?.would.has(e.index)) head.append(el("span", { class: "badge redact", text: "would redact" }));
  const node = el("div", { class: classes.join(" "), "data-index": String(e.index), onclick: () => select(e.index) }, head, el("div", { class: "preview" }, highlighted(e.preview || "")));
  node.style.top = `${top}px`;
  return node;
}

function renderRows() {
  const list = $("list");
  if (list.hidden) return;
  const first = Math.max(0, Math.floor(list.scrollTop / ROW) - 5);
  const last = Math.min(view.visible.length, Math.ceil((list.scrollTop + list.clientHeight) / ROW) + 5);
  const spacer = $("spacer");
  // Keyed, not rebuilt: a row that is still wanted keeps its node, so a
  // click that straddles a scroll or a search reply still lands.
  const wanted = new Map();
  for (let i = first; i < last; i++) {
    const index = view.visible[i];
    wanted.set(`${view.generation}:${i}:${index}:${index === view.selected ? 1 : 0}`, i);
  }
  for (const node of [...spacer.children]) {
    if (wanted.has(node.dataset.key)) wanted.delete(node.dataset.key);
    else node.remove();
  }
  for (const [key, i] of wanted) {
    const node = row(view.entries[view.visible[i]], i * ROW);
    node.dataset.key = key;
    spacer.append(node);
  }
}
$("list").addEventListener("scroll", () => requestAnimationFrame(renderRows));

function scrollToEntry(index) {
  const pos = view.visible.indexOf(index);
  if (pos < 0) return;
  $("list").scrollTop = Math.max(0, pos * ROW - 2 * ROW);
  select(index);
}

function select(index) {
  view.selected = index;
  renderRows();
  send({ type: "detail", index });
  writeLink(index);
}

function renderDetail(d) {
  const box = $("detail");
  box.replaceChildren();
  if (!d) return;
  const e = view.entries[d.index];
  box.append(el("h3", { text: `line ${d.line} · ${e?.type ?? ""}` }), el("div", { class: "reading" }, sanitize(d.html)));
  for (const details of box.querySelectorAll("details")) details.open = true;
}

// ---- Search and redaction check ---------------------------------------------------------

let searchTimer = 0;
$("search").addEventListener("input", (e) => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => {
    view.query = e.target.value;
    send({ type: "search", query: view.query });
  }, 150);
});
function goToHit() {
  const index = view.hits[view.hit];
  if (view.mode === "list") scrollToEntry(index);
  else reading.scrollToEntry(index);
}
const step = (d) => {
  if (!view.hits.length) return;
  view.hit = (view.hit + d + view.hits.length) % view.hits.length;
  goToHit();
};
$("next-hit").addEventListener("click", () => step(1));
$("prev-hit").addEventListener("click", () => step(-1));
$("redaction").addEventListener("click", () => {
  if (view.mode !== "list") setMode("list");
  send({ type: "redaction" });
});

// ---- The sessions index ----------------------------------------------------------------

const COLUMNS = [
  ["title", "Title"],
  ["prompt", "First prompt"],
  ["format", "Agent"],
  ["model", "Model"],
  ["date", "Date"],
  ["prompts", "Turns"],
  ["tokens", "Tokens"],
  ["costUsd", "Cost"],
];
const index = { sort: "date", desc: true, hits: null, token: 0 };

/** Each session of the folder, read by the index's worker (one at a time). */
function summarise() {
  if ([...view.sessions.values()].filter((s) => s.file || s.url).length < 2) return;
  for (const [name, s] of view.sessions) {
    if (!(s.file || s.url) || view.rows.has(name)) continue;
    view.rows.set(name, { name, pending: true, project: s.project });
    indexer.send({ type: "summary", name, source: sourceOf(s) });
  }
  renderIndex();
}

function onIndexMessage({ data }) {
  if (data.type === "summary") {
    const s = view.sessions.get(data.name);
    view.rows.set(data.name, { name: data.name, project: s?.project, ...data.row });
    scheduleIndex();
  } else if (data.type === "session-hits") {
    if (data.query !== $("index-search").value) return;
    index.hits.set(data.name, data.hits);
    scheduleIndex();
  } else if (data.type === "session-hits-done") {
    if (data.query !== $("index-search").value) return;
    $("index-status").textContent = `${[...index.hits.values()].filter((h) => h > 0).length} sessions contain “${data.query}”`;
  }
}

let indexFrame = 0;
function scheduleIndex() {
  cancelAnimationFrame(indexFrame);
  indexFrame = requestAnimationFrame(renderIndex);
}

function renderIndex() {
  if ($("index-view").hidden) return;
  const rows = [...view.rows.values()];
  const agents = [...new Set(rows.map((r) => r.format).filter(Boolean))].sort();
  const select = $("index-agent");
  if (select.options.length !== agents.length + 1) {
    const chosen = select.value;
    select.replaceChildren(el("option", { value: "", text: "every agent" }), ...agents.map((a) => el("option", { value: a, text: a })));
    select.value = chosen;
  }
  const filter = $("index-filter").value.toLowerCase();
  const agent = select.value;
  const shown = rows.filter((r) => {
    if (agent && r.format !== agent) return false;
    if (filter && ![r.name, r.title, r.prompt, r.model, r.project].some((v) => String(v ?? "").toLowerCase().includes(filter))) return false;
    if (index.hits && !(index.hits.get(r.name) > 0)) return false;
    return true;
  });
  const key = index.sort;
  shown.sort((a, b) => {
    const x = a[key] ?? (typeof b[key] === "number" ? -1 : "");
    const y = b[key] ?? (typeof a[key] === "number" ? -1 : "");
    const c = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
    return index.desc ? -c : c;
  });
  const head = $("index-table").tHead;
  head.replaceChildren(
    el(
      "tr",
      {},
      ...COLUMNS.map(([k, label]) => el("th", { class: k === key ? (index.desc ? "sorted desc" : "sorted asc") : "", "data-sort": k, text: label + (k === key ? (index.desc ? " ▼" : " ▲") : ""), onclick: () => ((index.desc = index.sort === k ? !index.desc : k === "date" || typeof rows[0]?.[k] === "number"), (index.sort = k), renderIndex()) })),
      ...(index.hits ? [el("th", { text: "Hits" })] : []),
    ),
  );
  const body = $("index-table").tBodies[0];
  body.replaceChildren(
    ...shown.map((r) =>
      el(
        "tr",
        { "data-session": r.name, onclick: () => openByName(r.name) },
        el("td", { class: "title", text: r.pending ? `${r.name} (reading…)` : r.error ? `${r.name}: ${r.error}` : r.title ?? r.name }),
        el("td", { class: "prompt", text: (r.prompt ?? "").slice(0, 140) }),
        el("td", { text: r.format ?? "" }),
        el("td", { text: r.model ?? "" }),
        el("td", { text: r.date ?? "" }),
        el("td", { class: "num", text: r.prompts === undefined ? "" : n(r.prompts) }),
        el("td", { class: "num", text: r.tokens === undefined ? "" : n(r.tokens) }),
        el("td", { class: "num", text: r.cost ?? "" }),
        ...(index.hits ? [el("td", { class: "num", text: n(index.hits.get(r.name) ?? 0) })] : []),
      ),
    ),
  );
  const done = rows.filter((r) => !r.pending).length;
  if (!index.hits) $("index-status").textContent = `${n(shown.length)} of ${n(rows.length)} sessions${done < rows.length ? ` · reading ${done}/${rows.length}` : ""}`;
  renderDaily(rows);
}

/** Cost by day, over every session of the folder. */
function renderDaily(rows) {
  const byDay = new Map();
  let unknown = false;
  for (const r of rows) {
    for (const d of r.usageByDay ?? []) {
      if (!d.day) continue;
      if (typeof d.costUsd !== "number") unknown = true;
      byDay.set(d.day, (byDay.get(d.day) ?? 0) + (d.costUsd ?? 0));
    }
  }
  const box = $("daily");
  box.replaceChildren();
  if (byDay.size === 0) return;
  const days = [...byDay.keys()].sort();
  const points = days.map((d, i) => [i + 1, 0, byDay.get(d)]);
  const svg = chart({ title: `Cost per day${unknown ? " (some prices unknown: known part only)" : ""}`, unit: "USD", xLabel: `day (${days[0]} to ${days.at(-1)}, days with usage)`, xMax: days.length, yMax: Math.max(...points.map((p) => p[2])), series: [{ points, cls: "k-cost", bars: true }], format: (v) => `$${v < 10 ? v.toFixed(2) : Math.round(v)}`, xFormat: (v) => days[v - 1]?.slice(5) ?? "" });
  svg.id = "daily-chart";
  for (const [i, d] of days.entries()) svg.append(svgEl("title", {}, `${d}: ${money(byDay.get(d))}`));
  box.append(svg);
}

$("index-filter").addEventListener("input", scheduleIndex);
$("index-agent").addEventListener("change", scheduleIndex);
let indexSearchTimer = 0;
$("index-search").addEventListener("input", (e) => {
  clearTimeout(indexSearchTimer);
  indexSearchTimer = setTimeout(() => {
    const q = e.target.value;
    index.hits = q ? new Map() : null;
    scheduleIndex();
    if (!q) return;
    $("index-status").textContent = `searching every session for “${q}”…`;
    const sources = [...view.sessions.entries()].filter(([, s]) => s.file || s.url).map(([name, s]) => ({ name, source: sourceOf(s) }));
    indexer.send({ type: "search-sessions", sources, query: q, token: ++index.token });
  }, 250);
});

// ---- A served file: ?file=<url>, ?dir=<url of an index.json> ---------------------------

const params = new URLSearchParams(location.search);
// The link the page was opened with: its session and entry are opened once known.
let initialLink = deepLink();
const sameOrigin = (u) => new URL(u, location.href).origin === location.origin;
setMode(initialLink.mode === "list" ? "list" : "reading");
if (params.get("file") && sameOrigin(params.get("file"))) {
  const url = new URL(params.get("file"), location.href).href;
  const name = url.split("/").pop().replace(/\.jsonl?$/, "");
  view.sessions.set(name, { url, children: [] });
  renderSessions();
  openSession(name, { url }, initialLink.entry);
} else if (params.get("dir") && sameOrigin(params.get("dir"))) {
  const listing = new URL(params.get("dir"), location.href);
  fetch(listing, { headers: serveHeaders })
    .then((r) => r.json())
    .then((list) => {
      for (const s of list.sessions) view.sessions.set(s.id, { url: new URL(s.file, listing).href, project: s.project ?? "", children: s.children.map((c) => ({ name: c.id, url: new URL(c.file, listing).href })) });
      sessionsChanged();
    });
}
