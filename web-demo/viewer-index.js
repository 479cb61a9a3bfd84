// The sessions index: a folder's sessions as a sortable table (read by a
// worker of its own), cost per day, and search inside every session.
import { chart, svgEl } from "./charts.js";
import { $, el, view, n, money, startWorker } from "./viewer-core.js";
import { openByName, sourceOf } from "./viewer-sessions.js";

// The index's worker starts with the first folder: a single file does not pay for it.
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
export function summarise() {
  if ([...view.sessions.values()].filter((s) => s.file || s.url).length < 2) return;
  for (const [name, s] of view.sessions) {
    if (!(s.file || s.url) || view.rows.has(name)) continue;
    view.rows.set(name, { name, pending: true, project: s.project });
    // Its child runs' own files (not runs inside its file: those are read with it).
    indexer.send({ type: "summary", name, source: sourceOf(s), runs: s.children.filter((c) => c.run === undefined).map(sourceOf) });
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

/** A session opened from the index: a search inside every session goes on inside this one. */
function openFromIndex(name) {
  const q = $("index-search").value;
  if (q) {
    $("search").value = q;
    view.query = q;
  }
  openByName(name);
}

let indexFrame = 0;
function scheduleIndex() {
  cancelAnimationFrame(indexFrame);
  indexFrame = requestAnimationFrame(renderIndex);
}

export function renderIndex() {
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
        { "data-session": r.name, onclick: () => openFromIndex(r.name) },
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
