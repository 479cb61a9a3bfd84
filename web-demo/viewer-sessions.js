// Loading sessions: files and folders (picked or dropped) sorted into
// sessions and their child runs, the sessions sidebar, opening one.
import { $, el, view, send } from "./viewer-core.js";
import { reading } from "./viewer-reading.js";
import { setMode, writeLink } from "./viewer-nav.js";
import { summarise } from "./viewer-index.js";

// ---- Loading -----------------------------------------------------------------

export const isSession = (name) => name.endsWith(".jsonl") || (name.startsWith("session-") && name.endsWith(".json"));

/**
 * Files with their relative paths, in any agent's layout: a session
 * `<dir>/<id>.jsonl` (or Gemini CLI's `session-*.json`), its child runs in a
 * folder of the same name at any depth (`<id>/<child>.jsonl`, Claude Code's
 * `<id>/subagents/agent-*.jsonl`); other folders are projects.
 */
export function addFiles(files) {
  const stem = (name) => name.replace(/\.jsonl?$/, "");
  const sessionPaths = new Set(files.map((f) => f.path.split("/").filter(Boolean)).filter((p) => isSession(p.at(-1))).map((p) => [...p.slice(0, -1), stem(p.at(-1))].join("/")));
  // Each session's name in the sidebar and in deep links: its file's name,
  // or its path where two folders hold the same name (pi's and Codex's
  // `small.jsonl` beside Claude Code's showed one session for three).
  const names = new Map();
  const named = new Map();
  for (const p of sessionPaths) named.set(p.split("/").at(-1), (named.get(p.split("/").at(-1)) ?? 0) + 1);
  const nameOf = (p) => {
    if (!names.has(p)) {
      const name = p.split("/").at(-1);
      names.set(p, named.get(name) > 1 || view.sessions.get(name)?.file || view.sessions.get(name)?.url ? p : name);
    }
    return names.get(p);
  };
  for (const { file, path } of files) {
    const parts = path.split("/").filter(Boolean);
    if (!isSession(parts.at(-1) ?? "")) continue;
    const name = stem(parts.at(-1));
    let owner = null;
    for (let k = parts.length - 1; k >= 1 && !owner; k--) {
      if (sessionPaths.has(parts.slice(0, k).join("/"))) owner = nameOf(parts.slice(0, k).join("/"));
    }
    if (owner) {
      const p = view.sessions.get(owner) ?? { children: [] };
      view.sessions.set(owner, p);
      addRun(owner, { name, file });
    } else {
      const key = nameOf([...parts.slice(0, -1), name].join("/"));
      const s = view.sessions.get(key) ?? { children: [] };
      s.file = file;
      s.project = parts.slice(0, -1).join("/");
      view.sessions.set(key, s);
    }
  }
  sessionsChanged();
}

// The names child runs are opened by (the sidebar, deep links).
const runNames = new Set();

/**
 * Adds a child run to a session. It is named by its file (`agent-<id>`),
 * or `<session>/<file>` where another session's run has that name already:
 * a resumed or copied session carries its runs' files, and a deep link
 * opened the first session's. `id` keeps the file's name, which tool calls
 * name their run by.
 */
export function addRun(owner, run) {
  const name = runNames.has(run.name) || view.sessions.has(run.name) ? `${owner}/${run.name}` : run.name;
  runNames.add(name);
  view.sessions.get(owner).children.push({ ...run, name, id: run.name });
}

/** A served session's name: its id, or its project and id when another session has that id (ids come from file names). */
export function servedName(id, project) {
  if (!view.sessions.has(id)) return id;
  const qualified = project ? `${project}/${id}` : id;
  let name = qualified;
  for (let n = 2; view.sessions.has(name); n++) name = `${qualified} (${n})`;
  return name;
}

/** A folder opens to its sessions index; a single session opens to its transcript. */
export function sessionsChanged() {
  renderSessions();
  const top = [...view.sessions.entries()].filter(([, s]) => s.file || s.url);
  summarise();
  const wanted = view.initialLink;
  view.initialLink = {};
  if (wanted.session && [...view.sessions].some(([k, s]) => k === wanted.session || s.children.some((c) => c.name === wanted.session))) return openByName(wanted.session, wanted.entry);
  if (top.length === 1) openByName(top[0][0]);
  else if (top.length > 1) setMode("index");
}

export const sourceOf = (s) => ({ ...(s.file ? { file: s.file } : { url: s.url }), ...(s.run ? { run: s.run } : {}) });

export function openByName(name, entry = null) {
  for (const [k, s] of view.sessions) {
    if (k === name && (s.file || s.url)) return openSession(name, sourceOf(s), entry);
    const c = s.children.find((c) => c.name === name);
    if (c) return openSession(name, sourceOf(c), entry);
  }
}

export function renderSessions() {
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

export function openSession(name, source, entry = null) {
  view.active = name;
  view.redaction = null;
  view.loadStarted = performance.now();
  view.pendingEntry = entry;
  view.entries = [];
  view.estimates = null;
  view.sidechains = null;
  view.incoming = null;
  view.lazy = null;
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

/**
 * Runs inside the open session's file (Claude Code sidechains: a call's
 * child `sidechain-<id>`, as the core pairs them) listed as its child runs
 * in the sidebar, as a subagent's own file is. serve's index names them
 * already; a file opened from the disk learns them here.
 */
export function noteInlineRuns() {
  const here = view.sessions.get(view.active);
  if (!here || !(here.file || here.url)) return;
  let added = false;
  const note = (child) => {
    if (!child?.startsWith("sidechain-") || here.children.some((c) => c.id === child)) return;
    addRun(view.active, { ...(here.file ? { file: here.file } : { url: here.url }), name: child, run: child.slice("sidechain-".length) });
    added = true;
  };
  // Named by the patch as it settled every tool (a walk of every entry's
  // tools was 42 ms of a 1 GB journal's hand-over), else walked.
  if (view.sidechains) for (const child of view.sidechains) note(child);
  else for (const e of view.entries) for (const t of e.tools ?? []) note(t.child);
  if (added) renderSessions();
}

/** A subagent's run for a tool call: a child named `…-<toolUseId>`, or the run the call names, or (`sidechain-<id>`) the run inside the open session's own file. */
export function childFor(toolUseId, named) {
  const here = view.sessions.get(view.active);
  // The open session's own runs first: another session may hold a run of the same name.
  for (const s of [here, ...view.sessions.values()]) {
    const c = s?.children.find(({ id = "" }) => (toolUseId && id.endsWith(`-${toolUseId}`)) || (named && (id === named || id === `agent-${named}`)));
    if (c) return c;
  }
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
