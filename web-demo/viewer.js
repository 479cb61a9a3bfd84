// The viewer's page: file loading, the virtual list, search, filters, the
// summary and the detail panel. Everything from a journal is put in the DOM
// as text (textContent), never as HTML. The page fetches only its own files.

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

const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
// The worker says "alive" once its module (and the wasm) is loaded; messages
// sent before that could reach it before it listens.
let workerAlive;
const alive = new Promise((resolve) => (workerAlive = resolve));
const send = (message) => alive.then(() => worker.postMessage(message));
const view = {
  sessions: new Map(), // name -> { file?, url?, children: [] }
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
  // Bumped when every row must be drawn again (new entries, query, redaction
  // marks, subagent links); rows whose key is unchanged keep their nodes.
  generation: 0,
  load: 0, // the newest open; replies to older ones are ignored
  incoming: [], // entries of the load in progress
};

// The worker's codes for an entry's status and its thinking on resume.
const STATUS = [null, "live", "compacted", "undone"];
const THINKING = [null, "kept", "not sent", "dropped"];

/** Pair tool calls with their results: the call shows how it ended, the result names its call. */
function pairTools(entries) {
  const calls = new Map();
  for (const e of entries) for (const t of e.tools) if (t.use) calls.set(t.id, t);
  for (const e of entries) {
    for (const t of e.tools) {
      if (t.use) continue;
      const call = calls.get(t.id);
      if (!call) continue;
      t.name = call.name;
      call.outcome = t.interrupted ? "interrupted" : t.error ? "error" : "ok";
      call.resultLine = e.line;
    }
  }
}
window.viewer = view; // for tests and the curious

const n = (x) => Number(x ?? 0).toLocaleString("en-US");

// ---- Loading ---------------------------------------------------------------

/**
 * Files with their relative paths, in any agent's layout: a session
 * `<dir>/<id>.jsonl` (or Gemini CLI's `session-*.json`), its child runs in a
 * folder of the same name at any depth (`<id>/<child>.jsonl`, Claude Code's
 * `<id>/subagents/agent-*.jsonl`); other folders are projects, shown as headings.
 */
function addFiles(files) {
  const isSession = (name) => name.endsWith(".jsonl") || (name.startsWith("session-") && name.endsWith(".json"));
  const stem = (name) => name.replace(/\.jsonl?$/, "");
  const sessionPaths = new Set(files.map((f) => f.path.split("/").filter(Boolean)).filter((p) => isSession(p.at(-1))).map((p) => [...p.slice(0, -1), stem(p.at(-1))].join("/")));
  for (const { file, path } of files) {
    const parts = path.split("/").filter(Boolean);
    if (!isSession(parts.at(-1) ?? "")) continue;
    const name = stem(parts.at(-1));
    // The nearest folder above that is named like a session beside it owns this file.
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
  renderSessions();
  const first = [...view.sessions.entries()].find(([, s]) => s.file);
  if (first) openSession(first[0], { file: first[1].file });
}

function renderSessions() {
  view.generation++;
  const nav = $("sessions");
  nav.replaceChildren();
  let project = null;
  for (const [name, s] of view.sessions) {
    if ((s.project ?? "") !== (project ?? "") && s.project) nav.append(el("div", { class: "project", text: s.project }));
    project = s.project ?? null;
    if (s.file || s.url) nav.append(el("a", { text: name, class: name === view.active ? "active" : "", onclick: () => openSession(name, s.file ? { file: s.file } : { url: s.url }) }));
    for (const c of s.children) {
      nav.append(el("a", { text: `↳ ${c.name}`, class: `child ${c.name === view.active ? "active" : ""}`, onclick: () => openSession(c.name, c.file ? { file: c.file } : { url: c.url }) }));
    }
  }
}

function openSession(name, source) {
  view.active = name;
  view.redaction = null;
  view.loadStarted = performance.now();
  renderSessions();
  $("status").textContent = `Loading ${name}…`;
  $("progress").hidden = false;
  $("bar").style.width = "0";
  view.load++;
  view.incoming = [];
  send({ type: "open", source, load: view.load });
}

/** A subagent's transcript for a tool call: a child named `…-<toolUseId>`, or the run the call's record names. */
function childFor(toolUseId) {
  const named = view.links?.get(toolUseId);
  for (const s of view.sessions.values()) {
    const c = s.children.find((c) => c.name.endsWith(`-${toolUseId}`) || (named !== undefined && c.name === named));
    if (c) return c;
  }
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

// ---- Worker messages -------------------------------------------------------

worker.onmessage = ({ data }) => {
  if (data.type === "alive") {
    workerAlive();
  } else if (data.type === "progress") {
    if (data.load !== view.load) return;
    // Another agent's session: the entries start again from the records the core read it into.
    if (data.replace) view.incoming = [];
    for (const e of data.entries) view.incoming.push(e);
    $("bar").style.width = data.total ? `${(100 * data.done) / data.total}%` : "50%";
    $("status").textContent = `Loading… ${(data.done / 1e6).toFixed(1)} MB`;
  } else if (data.type === "ready") {
    if (data.load !== view.load) return;
    $("progress").hidden = true;
    view.links = new Map(data.links ?? []);
    const entries = view.incoming;
    for (const e of data.entries) entries.push(e);
    for (let i = 0; i < entries.length; i++) {
      if (data.status[i]) entries[i].status = STATUS[data.status[i]];
      const thinking = THINKING[data.thinking[i]];
      if (thinking) entries[i].thinkingState = thinking === "dropped" ? `dropped: ${data.droppedWhy[i]}` : thinking;
    }
    pairTools(entries);
    view.entries = entries;
    view.incoming = [];
    view.generation++;
    view.stats = data.stats;
    view.marks = data.marks;
    view.marks.received = performance.timeOrigin + performance.now();
    view.selected = -1;
    view.loadMs = performance.now() - view.loadStarted;
    $("status").textContent = `${view.active}: ${n(entries.length)} records`;
    renderSummary(data);
    applyFilters();
    if (view.query) send({ type: "search", query: view.query });
    document.body.dataset.loaded = view.active;
    view.marks.rendered = performance.timeOrigin + performance.now();
  } else if (data.type === "hits") {
    if (data.query !== view.query) return;
    const shown = new Set(view.visible);
    view.hits = data.hits.filter((i) => shown.has(i));
    view.hitSet = new Set(data.hits);
    view.generation++;
    view.hit = view.hits.length ? 0 : -1;
    $("hits").textContent = view.query ? `${view.hits.length} hits` : "";
    if (view.hit >= 0) scrollToEntry(view.hits[0]);
    renderRows();
  } else if (data.type === "detail") {
    renderDetail(data.detail);
  } else if (data.type === "redaction") {
    view.redaction = { would: new Set(data.would), marked: new Set(data.marked) };
    view.generation++;
    $("status").textContent = `Redaction check: ${data.would.length} records would change; ${data.marked.length} were already marked redacted.`;
    renderRows();
  } else if (data.type === "error") {
    if (data.load !== undefined && data.load !== view.load) return;
    $("progress").hidden = true;
    $("status").textContent = `Error: ${data.message}`;
  }
};

// ---- Summary and chart -----------------------------------------------------

function renderSummary({ stats, chart, compactions, subagents }) {
  const box = $("summary");
  box.replaceChildren();
  const u = stats.usage;
  box.append(
    el("div", {}, el("span", { class: "cost", id: "cost", text: stats.cost }), ` · ${n(stats.messages)} messages · ${n(stats.prompts)} prompts · ${n(stats.steps)} steps · model ${stats.model ?? "-"}${stats.title ? ` · “${stats.title}”` : ""}`),
    el("div", { text: `usage: ${n(u.inputTokens)} input · ${n(u.outputTokens)} output · ${n(u.cacheReadTokens)} cache read · ${n(u.cacheWriteTokens)} cache write · context ${n(stats.contextTokens)}` }),
  );
  if (stats.budgetNote) box.append(el("div", { id: "budget", text: stats.budgetNote }));
  const r = stats.report;
  const dropped = Object.entries(r.thinkingDropped).filter(([, c]) => c > 0).map(([k, c]) => `${k} ${c}`);
  box.append(el("div", { text: `on resume: ${dropped.length ? `thinking dropped (${dropped.join(", ")})` : "all thinking kept"}${r.toolCallsAnswered.length ? ` · ${r.toolCallsAnswered.length} open tool calls answered` : ""}` }));
  if (stats.warnings.length || stats.tornTail) {
    const w = el("div", { id: "warnings" }, "warnings: ");
    for (const warning of stats.warnings.slice(0, 50)) {
      w.append(el("a", { text: `line ${warning.line} (${warning.kind})`, title: warning.message, onclick: () => scrollToLine(warning.line) }), " ");
    }
    if (stats.tornTail) w.append(el("a", { text: `torn tail at line ${stats.tornLine}`, onclick: () => scrollToLine(stats.tornLine) }));
    box.append(w);
  }
  if (subagents.length) {
    // Filled when opened: a long session has thousands of subagent runs, and
    // building their rows up front cost 100 ms of a 100 MB journal's load.
    const t = el("table", { class: "sub" });
    const fold = el("details", {}, el("summary", { text: `subagents (${n(subagents.length)})` }), t);
    fold.addEventListener("toggle", () => {
      if (!fold.open || t.rows.length) return;
      for (const s of subagents) t.append(el("tr", {}, el("td", { text: s.child ?? "-" }), el("td", { text: `${n(s.tokens)} tokens` }), el("td", { text: typeof s.costUsd === "number" ? `$${s.costUsd.toFixed(4)}` : "cost unknown" })));
    });
    box.append(fold);
  }
  box.append(contextChart(chart, compactions));
}

function contextChart(points, compactions) {
  const NS = "http://www.w3.org/2000/svg";
  const svg = document.createElementNS(NS, "svg");
  svg.setAttribute("class", "chart");
  svg.setAttribute("width", "600");
  svg.setAttribute("height", "60");
  svg.setAttribute("aria-label", "context size over the session");
  if (points.length < 2) return svg;
  const maxLine = points.at(-1)[0] || 1;
  let maxTokens = 1; // not Math.max(...points): that throws past ~100k arguments
  for (const p of points) if (p[1] > maxTokens) maxTokens = p[1];
  const step = Math.max(1, Math.floor(points.length / 600));
  const coords = points.filter((_, i) => i % step === 0).map(([line, t]) => `${((600 * line) / maxLine).toFixed(1)},${(58 - (56 * t) / maxTokens).toFixed(1)}`);
  const poly = document.createElementNS(NS, "polyline");
  poly.setAttribute("points", coords.join(" "));
  svg.append(poly);
  for (const line of compactions) {
    const x = ((600 * line) / maxLine).toFixed(1);
    const mark = document.createElementNS(NS, "line");
    mark.setAttribute("class", "compaction");
    for (const [k, v] of [["x1", x], ["x2", x], ["y1", "0"], ["y2", "60"]]) mark.setAttribute(k, v);
    svg.append(mark);
  }
  return svg;
}

// ---- The list --------------------------------------------------------------

function applyFilters() {
  const on = Object.fromEntries([...document.querySelectorAll("[data-filter]")].map((c) => [c.dataset.filter, c.checked]));
  view.visible = [];
  for (const e of view.entries) {
    if (e.kind === "landmark") {
      if (on.landmark) view.visible.push(e.index);
      continue;
    }
    const group = e.type === "tool_results" ? "tool_result" : e.role;
    if (!on[group]) continue;
    if (on.thinking && !e.thinking) continue;
    if (on.tool_use && !e.blocks.includes("tool_use")) continue;
    view.visible.push(e.index);
  }
  $("spacer").style.height = `${view.visible.length * ROW}px`;
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
  const classes = ["row", e.kind, e.status ?? "", e.index === view.selected ? "selected" : ""];
  const head = el("div", { class: "head", text: `line ${e.line} · ${e.label}` });
  if (e.tokens) head.append(` · ${n(e.tokens)} tokens${e.cost !== null && e.cost !== undefined ? ` · $${e.cost.toFixed(4)}` : ""}`);
  if (e.status === "undone") head.append(el("span", { class: "badge", text: "undone" }));
  if (e.status === "compacted") head.append(el("span", { class: "badge", text: "compacted away" }));
  if (e.thinkingState) {
    const tone = e.thinkingState.startsWith("dropped") ? "dropped" : e.thinkingState === "kept" ? "kept" : "";
    head.append(el("span", { class: `badge thinking ${tone}`, text: `thinking ${e.thinkingState}` }));
  }
  for (const t of e.tools) {
    if (t.use) {
      const outcome = t.outcome ?? "no result";
      const tone = outcome === "ok" ? "" : outcome === "no result" ? "interrupted" : outcome;
      head.append(el("span", { class: `badge ${tone}`, text: `${t.name} → ${outcome}`, title: t.resultLine ? `result at line ${t.resultLine}` : "no result recorded" }));
      const child = childFor(t.id);
      if (child) head.append(el("span", { class: "badge sub", text: "subagent transcript", onclick: (ev) => (ev.stopPropagation(), openSession(child.name, child.file ? { file: child.file } : { url: child.url })) }));
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
  const first = Math.max(0, Math.floor(list.scrollTop / ROW) - 5);
  const last = Math.min(view.visible.length, Math.ceil((list.scrollTop + list.clientHeight) / ROW) + 5);
  const spacer = $("spacer");
  // Keyed, not rebuilt: a row that is still wanted keeps its node, so a click
  // whose mousedown and mouseup straddle a scroll or a search reply still
  // lands (a replaced node would swallow it).
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
window.addEventListener("resize", renderRows);

function scrollToEntry(index) {
  const pos = view.visible.indexOf(index);
  if (pos < 0) return;
  $("list").scrollTop = Math.max(0, pos * ROW - 2 * ROW);
  select(index);
}

function scrollToLine(line) {
  let best = view.entries.find((e) => e.line >= line) ?? view.entries.at(-1);
  if (best) scrollToEntry(best.index);
}

function select(index) {
  view.selected = index;
  renderRows();
  send({ type: "detail", index });
}

function renderDetail(d) {
  const box = $("detail");
  box.replaceChildren();
  if (!d) return;
  const e = view.entries[d.index];
  box.append(el("h3", { text: `line ${d.line} · ${e.label}` }));
  for (const p of d.parts) {
    const label = p.type === "tool_use" ? `tool call ${p.name} (${p.id})` : p.type === "tool_result" ? `tool result (${p.id})${p.error ? " — error" : ""}` : p.type;
    const body = el("pre", {}, highlighted(p.text));
    if (p.type === "thinking" || p.type === "redacted_thinking" || (p.type === "tool_result" && p.text.length > 1500)) {
      box.append(el("details", {}, el("summary", { text: p.type.includes("thinking") ? `${label} — ${e.thinkingState ?? ""}` : label }), body));
    } else {
      box.append(el("div", { class: "muted", text: label }), body);
    }
  }
  box.append(el("details", {}, el("summary", { text: "record fields" }), el("pre", { text: d.record })));
}

// ---- Search and redaction check -------------------------------------------

let searchTimer = 0;
$("search").addEventListener("input", (e) => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => {
    view.query = e.target.value;
    send({ type: "search", query: view.query });
  }, 150);
});
const step = (d) => {
  if (!view.hits.length) return;
  view.hit = (view.hit + d + view.hits.length) % view.hits.length;
  scrollToEntry(view.hits[view.hit]);
};
$("next-hit").addEventListener("click", () => step(1));
$("prev-hit").addEventListener("click", () => step(-1));
$("redaction").addEventListener("click", () => send({ type: "redaction" }));

// ---- A served file: ?file=<url>, ?dir=<url of an index.json> ---------------

const params = new URLSearchParams(location.search);
const sameOrigin = (u) => new URL(u, location.href).origin === location.origin;
if (params.get("file") && sameOrigin(params.get("file"))) {
  const url = new URL(params.get("file"), location.href).href;
  const name = url.split("/").pop().replace(/\.jsonl$/, "");
  view.sessions.set(name, { url, children: [] });
  openSession(name, { url });
} else if (params.get("dir") && sameOrigin(params.get("dir"))) {
  const index = new URL(params.get("dir"), location.href);
  fetch(index)
    .then((r) => r.json())
    .then((list) => {
      for (const s of list.sessions) view.sessions.set(s.id, { url: new URL(s.file, index).href, project: s.project ?? "", children: s.children.map((c) => ({ name: c.id, url: new URL(c.file, index).href })) });
      renderSessions();
      const first = list.sessions[0];
      if (first) openSession(first.id, { url: new URL(first.file, index).href });
    });
}
