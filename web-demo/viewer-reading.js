// Reading mode: the entries as the renderer draws them, in a
// variable-height virtual scroller (measured heights in a Fenwick tree).
import { $, el, view, send, n, sanitize } from "./viewer-core.js";
import { writeLink } from "./viewer-nav.js";
import { childFor, openSession, sourceOf } from "./viewer-sessions.js";
import { renderRows } from "./viewer-list.js";
import { markMatches, unmark } from "./viewer-marks.js";
import { estimate } from "./viewer-entries.js";

// ---- Reading mode: variable-height virtual scrolling ----------------------------

/** Sums of heights by position (a Fenwick tree): offsets and lookups in O(log n). */
class Heights {
  /** `heights`: a Float64Array, kept (not copied). */
  constructor(heights) {
    this.n = heights.length;
    this.h = heights;
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
/** Entries reading mode shows: tool results it already shows under their calls are left out. */
export function readingItems() {
  // Not parsed yet, the entries are told apart by the patch's columns.
  if (view.lazy) return view.lazy.readingItems();
  const out = [];
  for (const e of view.entries) if (!e.underCalls) out.push(e.index);
  return out;
}

/**
 * Each entry's position in the items (entry index -> position), as a typed
 * array: a Map of a 1 GB journal's 600,000 items took the page a quarter
 * of a second to build after the journal was read, and 30 MB.
 */
class Positions {
  constructor(items) {
    let n = 0;
    for (const index of items) n = Math.max(n, index + 1);
    this.at = new Int32Array(n).fill(-1);
    items.forEach((index, p) => (this.at[index] = p));
  }
  /** The position of entry `index`, or undefined when it is not an item. */
  get(index) {
    const p = this.at[index];
    return p === undefined || p < 0 ? undefined : p;
  }
}

export const reading = {
  items: [],
  heights: new Heights(new Float64Array(0)),
  pos: new Positions([]), // entry index -> position in items
  nodes: new Map(), // position -> node on screen
  html: new Map(), // entry index -> rendered HTML (a bounded cache)
  nested: new Map(), // entry index -> a subagent's run shown under its call
  asked: new Set(),
  frame: 0,

  reset(items, keep = false) {
    this.items = items;
    this.pos = new Positions(items);
    const old = keep ? this.heights : null;
    const oldItems = keep && this.prevItems ? this.prevItems : [];
    const measured = new Map(oldItems.map((index, p) => [index, old.h[p]]));
    // Straight into the typed array the tree keeps (600,000 items for 1 GB).
    const heights = new Float64Array(items.length);
    // Guessed when the entries came (600,000 guesses here were a third of a
    // 1 GB journal's reset, after its read), or here.
    const guessed = view.estimates?.length === view.entries.length ? view.estimates : null;
    for (let p = 0; p < items.length; p++) {
      heights[p] = measured.get(items[p]) ?? (guessed ? guessed[items[p]] : estimate(view.entries[items[p]] ?? {})) + GAP;
    }
    this.heights = new Heights(heights);
    this.prevItems = items;
    if (!keep) {
      this.html.clear();
      this.asked.clear();
      this.nested.clear();
      this.landing = null;
      this.hold = null;
      this.setTop(0);
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
    this.landing = null;
    this.hold = null;
    this.setTop(1e12);
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
    // Landing: until the entry is drawn and measured, each measure puts it
    // at the top again (the heights above it are guesses until then), and
    // the address keeps naming it.
    this.landing = { p, settled: 0, until: performance.now() + 4000 };
    this.hold = index;
    this.setTop(this.heights.offset(p));
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
    if (view.query && view.hitSet.has(index)) markMatches(node, view.query);
    if (html !== undefined && view.pendingMark === index) this.focusHit(index);
  },

  /** The search's current entry: its first match marked current and scrolled to the middle (the entry's top when no match shows). */
  focusHit(index) {
    const node = this.nodes.get(this.pos.get(index));
    for (const m of document.querySelectorAll("#reading mark.current")) m.classList.remove("current");
    if (!node || node.classList.contains("placeholder")) return void (view.pendingMark = index);
    view.pendingMark = null;
    const mark = node.querySelector("mark.search-mark") ?? (view.query ? markMatches(node, view.query)[0] : null);
    if (!mark) return;
    mark.classList.add("current");
    // After the folds it opened have been measured: the entries above may have moved.
    requestAnimationFrame(() => {
      this.measure();
      mark.scrollIntoView({ block: "center" });
    });
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
    if (this.pinned && !this.landing) {
      const end = Math.max(0, this.heights.total() - box.clientHeight);
      if (Math.abs(box.scrollTop - end) > 1) {
        this.setTop(end);
        requestAnimationFrame(() => this.update());
      }
    } else if (this.landing) {
      const { p } = this.landing;
      const want = Math.min(this.heights.offset(p), Math.max(0, this.heights.total() - box.clientHeight));
      if (Math.abs(box.scrollTop - want) > 1) this.setTop(want);
      const node = this.nodes.get(p);
      const drawn = (n) => n && !n.classList.contains("placeholder");
      // At the top, or short of it only because the transcript really ends
      // there (every entry after it drawn: their heights are no guesses).
      const placed = Math.abs(box.scrollTop - this.heights.offset(p)) <= 1 || (this.nodes.has(this.items.length - 1) && [...this.nodes].every(([q, n]) => q < p || drawn(n)));
      // Drawn and placed, its height held over two measures: landed.
      if ((drawn(node) && placed && ++this.landing.settled > 2) || performance.now() > this.landing.until) this.landing = null;
      else requestAnimationFrame(() => this.update());
    } else if (shift !== 0) this.setTop(this.heights.offset(anchorP) + anchorDelta);
  },

  /** A scroll the viewer makes (told apart from the reader's in the scroll handler). */
  setTop(y) {
    const box = $("reading");
    box.scrollTop = y;
    this.expectTop = box.scrollTop;
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
    for (const [p, node] of this.nodes) {
      const hit = view.hitSet.has(this.items[p]);
      node.classList.toggle("hit", hit);
      if (hit && view.query) markMatches(node, view.query);
      else unmark(node);
    }
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
  // A scroll the viewer did not make is the reader's: the landing ends and
  // the address follows the entry on screen again.
  if (Math.abs(box.scrollTop - (reading.expectTop ?? -1)) > 1) {
    reading.landing = null;
    reading.hold = null;
  }
  // At the end, the view stays there as heights become known; but not while
  // landing: a jump near the end meets the end of the guessed heights first
  // (entries drawn taller than guessed move it), and would stay there.
  reading.pinned = !reading.landing && box.scrollTop > 0 && box.scrollTop + box.clientHeight >= box.scrollHeight - 2;
  cancelAnimationFrame(reading.frame);
  reading.frame = requestAnimationFrame(() => {
    reading.update();
    writeLink(reading.hold ?? null);
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
