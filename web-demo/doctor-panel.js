// "Why this will not resume": the doctor's panel for the session on screen
// (issue 28). Closed by default; opening it reads the session's file, runs
// the core's `diagnose` (and `repair` when there is something to repair)
// and offers the repaired file, in the agent's own format, for download.
// The core is loaded here on first use only, so a viewer that never opens
// the panel never pays for it. Everything from the file is put in the page
// as text (textContent), never as markup.

const el = (tag, props = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "text") node.textContent = v;
    else if (k === "class") node.className = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
};

let core;
const loadCore = () => (core ??= import("../web/index.js"));

async function bytesOf(session) {
  if (session.file) return new Uint8Array(await session.file.arrayBuffer());
  let token = null;
  try {
    token = sessionStorage.getItem("garuda-serve-token");
  } catch {}
  const same = new URL(session.url, location.href).origin === location.origin;
  const r = await fetch(session.url, token && same ? { headers: { "x-garuda-token": token } } : {});
  if (!r.ok) throw new Error(`${r.status} ${r.statusText}`);
  return new Uint8Array(await r.arrayBuffer());
}

const where = (p) => (p.line ? `line ${p.line}` : "the file");

function problemList(problems) {
  const ul = el("ul", { class: "doctor-problems" });
  for (const p of problems) {
    ul.append(el("li", { class: p.severity, text: `${where(p)}: ${p.kind}${p.severity === "warning" ? " (warning)" : ""}: ${p.message}` }));
  }
  return ul;
}

/** The panel for `session` ({ file } or { url }, from the viewer), or null for a run inside a file. */
export function doctorPanel(session, name = "session") {
  if (!session || session.run || !(session.file || session.url)) return null;
  const body = el("div", { class: "doctor-body", text: "Reading the file…" });
  const panel = el("details", { id: "doctor" }, el("summary", { text: "why this will not resume (doctor)" }), body);
  let started = false;
  panel.addEventListener("toggle", async () => {
    if (!panel.open || started) return;
    started = true;
    try {
      const [bytes, { diagnose, repair }] = await Promise.all([bytesOf(session), loadCore()]);
      const d = diagnose(bytes);
      body.replaceChildren(el("div", { text: `${d.format ?? "unknown format"}: ${d.resumes ? "resumes as it is" : "will not resume"}${d.problems.length ? ` (${d.problems.length} problems)` : ""}` }));
      if (d.problems.length) body.append(problemList(d.problems));
      if (d.resumes) return;
      const r = repair(bytes);
      if (!r.report.changes.length) {
        body.append(el("div", { text: "No edit of the file can mend this." }));
        return;
      }
      const fixes = el("ul", { class: "doctor-changes" });
      for (const c of r.report.changes) fixes.append(el("li", { text: `line ${c.line}: ${c.kind}: ${c.message}` }));
      const url = URL.createObjectURL(new Blob([r.bytes], { type: "application/x-ndjson" }));
      const base = name.split("/").at(-1).replace(/\.jsonl?$/, "");
      body.append(
        el("div", { text: `The repair: ${r.report.after.resumes ? "the repaired copy resumes" : "the repaired copy still will not resume"}` }),
        fixes,
        el("a", { href: url, download: `${base}.repaired.jsonl`, class: "button", text: "Download the repaired file" }),
      );
      if (!r.report.after.resumes) body.append(problemList(r.report.after.problems.filter((p) => p.severity === "error")));
    } catch (e) {
      body.replaceChildren(el("div", { text: `The doctor could not read this session: ${e.message}` }));
    }
  });
  return panel;
}
