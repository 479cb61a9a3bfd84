// The viewer's page: sessions index, reading mode (variable-height virtual
// scrolling), the compact list, charts, search, deep links and live follow.
// Entries come from the core's transcript (through worker.js); reading-mode
// HTML comes from render.js in the worker and passes an allowlist here
// (sanitize) before it is shown. Everything else from a journal is put in
// the DOM as text (textContent), never as HTML. The page fetches only its
// own files.
//
// This file is the entry (index.html loads it): the worker's messages and
// the page's start. Each mode is a module of its own: viewer-sessions.js
// (loading), viewer-index.js (the sessions index), viewer-reading.js,
// viewer-list.js, viewer-nav.js (modes, deep links, search),
// viewer-summary.js; viewer-core.js holds what they share.

import { $, view, main, send, n, serveHeaders } from "./viewer-core.js";
import { renderSessions, openSession, sessionsChanged, noteInlineRuns, servedName, addRun } from "./viewer-sessions.js";
import { setMode, deepLink, goTo, goToHit, showHitCount } from "./viewer-nav.js";
import { readingItems, reading } from "./viewer-reading.js";
import { applyFilters, renderRows, renderDetail } from "./viewer-list.js";
import { renderSummary } from "./viewer-summary.js";
import { Incoming } from "./viewer-entries.js";
import "./viewer-page.js";
import "./viewer-copy.js";

// ---- Worker messages -------------------------------------------------------------

main.w.addEventListener("message", ({ data }) => {
  if (data.load !== undefined && data.load !== view.load && data.type !== "rendered") return;
  if (data.type === "first") {
    // The first screen, before the journal is read to the end.
    view.marks = data.marks;
    if (view.entries.length === 0) {
      view.entries = data.entries;
      view.estimates = null;
      reading.reset(readingItems());
      view.marks.firstShown = performance.timeOrigin + performance.now();
    }
  } else if (data.type === "progress") {
    // Five times a second at most: drawn for each 4 MB read, the bar and
    // the status were a frame's style, layout and paint 250 times for a
    // 1 GB journal, on the core the worker reading it needs.
    const now = performance.now();
    if (now - view.progressShown < 200) return;
    view.progressShown = now;
    $("bar").style.width = data.total ? `${(100 * data.done) / data.total}%` : "50%";
    $("status").textContent = `Loading… ${(data.done / 1e6).toFixed(1)} MB`;
  } else if (data.type === "entries") {
    // Entries read so far (UTF-8 JSON bytes, decoded here, off the worker,
    // when first needed: viewer-entries.js), or all of them again.
    view.incoming = Incoming.take(view.incoming, data);
  } else if (data.type === "patch") {
    // What settling decided, a slice at a time (worker-send.js).
    view.incoming = Incoming.take(view.incoming, data);
  } else if (data.type === "ready" || data.type === "update") {
    $("progress").hidden = true;
    const keepTop = data.type === "update" ? reading.topEntry() : null;
    // Kept: a followed session's updates add to it.
    const got = (view.incoming = Incoming.take(view.incoming, data));
    view.entries = got.entries;
    view.estimates = got.estimates;
    view.sidechains = got.sidechains;
    // A big session's entries: each piece parsed when first read (viewer-entries.js).
    view.lazy = got.entries === got.target ? null : got;
    view.stats = data.stats;
    view.follow = data.follow;
    $("follow-box").hidden = !data.follow && data.type !== "update";
    if (data.type === "ready") {
      view.marks = { ...view.marks, ...data.marks, received: performance.timeOrigin + performance.now() };
      view.spent = data.spent;
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
      noteInlineRuns();
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
    showHitCount();
    renderRows();
    reading.refreshMarks();
    if (view.hit >= 0) goToHit();
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

/** The entries of some journal lines (entries come in line order: found by halves). */
function entriesAtLines(lines) {
  const out = [];
  const entries = view.entries;
  for (const line of lines) {
    // Among a big session's entries, only the pieces that can hold the line are read.
    let { lo, hi } = view.lazy ? view.lazy.rangeOfLine(line) : { lo: 0, hi: entries.length };
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (entries[mid].line < line) lo = mid + 1;
      else hi = mid;
    }
    for (let i = lo; i < entries.length && entries[i].line === line; i++) if (entries[i].kind === "message") out.push(i);
  }
  return out;
}

// ---- A served file: ?file=<url>, ?dir=<url of an index.json> ---------------------------

const params = new URLSearchParams(location.search);
// The link the page was opened with: its session and entry are opened once known.
view.initialLink = deepLink();
const sameOrigin = (u) => new URL(u, location.href).origin === location.origin;
setMode(view.initialLink.mode === "list" ? "list" : "reading");
if (params.get("file") && sameOrigin(params.get("file"))) {
  const url = new URL(params.get("file"), location.href).href;
  const name = url.split("/").pop().replace(/\.jsonl?$/, "");
  view.sessions.set(name, { url, children: [] });
  renderSessions();
  openSession(name, { url }, view.initialLink.entry);
} else if (params.get("dir") && sameOrigin(params.get("dir"))) {
  const listing = new URL(params.get("dir"), location.href);
  fetch(listing, { headers: serveHeaders })
    .then((r) => {
      // A deep link opened in a new tab has no token (each tab keeps its own): said, not a blank page.
      if (r.status === 401) throw new Error("this tab has no token: open the URL that serve printed (…#token=…), then the link again in that tab");
      if (!r.ok) throw new Error(`the sessions index: HTTP ${r.status}`);
      return r.json();
    })
    .then((list) => {
      for (const s of list.sessions) {
        const name = servedName(s.id, s.project);
        view.sessions.set(name, { url: new URL(s.file, listing).href, project: s.project ?? "", children: [] });
        for (const c of s.children) addRun(name, { name: c.id, url: new URL(c.file, listing).href, ...(c.run ? { run: c.run } : {}) });
      }
      sessionsChanged();
    })
    .catch((e) => {
      $("status").textContent = `Could not load the sessions: ${e.message}`;
    });
}
