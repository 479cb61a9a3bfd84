// The compact list: one row per entry with its badges, filters, and the
// whole entry beside it when a row is selected.
import { $, el, view, send, n, sanitize } from "./viewer-core.js";
import { writeLink } from "./viewer-nav.js";
import { childFor, openSession, sourceOf } from "./viewer-sessions.js";
import { dropWhy } from "./viewer-words.js";

const ROW = 56;
// ---- The compact list ----------------------------------------------------------------

const LABEL = { tool_results: "tool results", continue: "continue note" };

export function applyFilters() {
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
  // A prompt that is a slash command (`/init`) is the person's turn, not context (render.js says the same).
  const label = e.context && !(e.type === "user" && e.context.startsWith("/")) ? `context: ${e.context}` : e.kind === "message" ? LABEL[e.type] ?? e.role : e.kind === "warning" ? `warning: ${e.type}` : e.type;
  const classes = ["row", e.kind === "message" ? "message" : "landmark", e.fate ?? "", e.index === view.selected ? "selected" : ""];
  const head = el("div", { class: "head", text: `line ${e.line} · ${label}` });
  if (e.usage) {
    const u = e.usage;
    head.append(` · ${n(u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens)} tokens${typeof e.costUsd === "number" ? ` · $${e.costUsd.toFixed(4)}` : ""}`);
  }
  if (e.fate === "undone") head.append(el("span", { class: "badge", text: "undone" }));
  if (e.fate === "compacted") head.append(el("span", { class: "badge", text: "compacted away" }));
  if (e.thinkingFate) {
    const text = e.thinkingFate === "dropped" ? "thinking left out if resumed" : e.thinkingFate === "kept" ? "thinking" : "thinking not in the conversation";
    const title = e.thinkingFate === "dropped" ? `Resuming leaves this thinking out: ${dropWhy(e.droppedWhy)}` : e.thinkingFate === "kept" ? "Resuming sends this thinking back as written" : "Compacted away or undone: resuming does not send it";
    head.append(el("span", { class: `badge thinking ${e.thinkingFate === "dropped" ? "dropped" : e.thinkingFate === "kept" ? "kept" : ""}`, text, title }));
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

export function renderRows() {
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

export function scrollToEntry(index) {
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

export function renderDetail(d) {
  const box = $("detail");
  box.replaceChildren();
  if (!d) return;
  const e = view.entries[d.index];
  box.append(el("h3", { text: `line ${d.line} · ${e?.type ?? ""}` }), el("div", { class: "reading" }, sanitize(d.html)));
  for (const details of box.querySelectorAll("details")) details.open = true;
}
