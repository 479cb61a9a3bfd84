// `garuda-session export`: a session's transcript as Markdown or as one
// self-contained HTML file that reads like the viewer's reading mode (the
// same renderer and style sheet), with no script and a CSP that lets the
// page fetch nothing. Bundled into the package as bin/transcript.cjs.
//
// The renderer (markdown-it, highlight.js) ships once, as the viewer's
// viewer/render.js bundle (ESM), not a second time inside this CommonJS
// bundle: loadRenderer() imports it before the first transcript (Node 18
// cannot require ESM, and import() is async).
import css from "./reading.css";
import { runNester } from "./export-runs.js";

let renderer = null;
export async function loadRenderer() {
  renderer ??= await import("../viewer/render.js");
}
const render = () => {
  if (!renderer) throw new Error("transcript.cjs: await loadRenderer() first");
  return renderer;
};
const escapeHtml = (s) => render().escapeHtml(s);
const entryHtml = (d, o) => render().entryHtml(d, o);

/** The entries to write: all of them, or with `live` only what the model sees now. */
function* entries(journal, live) {
  const total = journal.transcriptLength;
  for (let from = 0; from < total; from += 2000) {
    for (const e of journal.transcript(from, from + 2000)) {
      if (live && (e.kind !== "message" || e.fate !== "live")) continue;
      if (e.underCalls) continue; // shown under their calls
      yield journal.transcriptEntry(e.index);
    }
  }
}

/** A page's title: the session's title or first prompt, its first line, cut near 80 characters (render.js). */
export const shortTitle = (text) => render().shortTitle(text);

/**
 * `info`: { title, sessionId, model, cost, budgetNote }; `redact`: applied to
 * every journal string; `image(mediaType, base64)`: writes an image beside
 * the Markdown and gives its relative path (without it, images are named only);
 * `runOf(child)`: the journal of a call's subagent run, written under the
 * call (export-runs.js). The document is render.js's transcriptDocument:
 * the viewer's "Copy transcript" writes the same text (without the runs).
 */
export function transcriptMarkdown(journal, info, redact, { live = false, image, runOf } = {}) {
  const r = (s) => redact(String(s ?? ""));
  const childRun = runNester(render(), runOf, (j) => entries(j, live)).markdown({ redact: r, hidePaired: true, image });
  return render().transcriptDocument(info, entries(journal, live), redact, { image, childRun });
}

// The style sheet's dark rules (`:root.dark …`, which the viewer's script
// switches) as a prefers-color-scheme block: an exported page has no script.
const DARK = /^:root\.dark .*$/gm;
const pageCss = `${css.replace(DARK, "")}
@media (prefers-color-scheme: dark) {
:root { color-scheme: dark; } body { background: #010409 !important; } h1 { color: #e6edf3; } p.meta { color: #8b949e !important; }
${(css.match(DARK) ?? []).map((l) => l.replaceAll(":root.dark ", ":root ")).join("\n")}
}`;

/**
 * `childHref(child)`: the relative link of a subagent run's own page (a
 * folder export writes them), or null for a run with no page; `runOf(child)`: the journal of a call's
 * subagent run, drawn folded under the call (export-runs.js).
 */
export function transcriptHtml(journal, info, redact, { live = false, childHref, runOf } = {}) {
  const r = (s) => redact(String(s ?? ""));
  const title = escapeHtml(shortTitle(r(info.title ?? info.sessionId)));
  const parts = [];
  // A single file's export has no run pages: its runs are named, not linked.
  const opts = { redact: r, hidePaired: true, anchor: (i) => `#e-${i}`, childHref: childHref ?? (() => null) };
  opts.childRun = runNester(render(), runOf, (j) => entries(j, live)).html(opts);
  for (const d of entries(journal, live)) parts.push(entryHtml(d, opts));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>
body{margin:0;background:#f6f8fa}main.reading{max-width:920px;margin:0 auto;padding:1.5em 1em 4em}h1{font:600 22px system-ui,sans-serif;margin:.2em 0}p.meta{color:#57606a;font:13px system-ui,sans-serif}
${pageCss}
</style></head><body>
<main class="reading">
<h1>${title}</h1>
<p class="meta">session ${escapeHtml(r(info.sessionId ?? "-"))} · model ${escapeHtml(r(info.model ?? "-"))} · cost ${escapeHtml(info.cost)}${info.budgetNote ? ` · ${escapeHtml(info.budgetNote)}` : ""}</p>
${parts.join("\n")}
</main>
</body></html>
`;
}

/**
 * A folder export's index.html: its sessions as a static table (title,
 * agent, model, date, cost), each linking its page and its subagent runs'.
 * `rows`: { href, title, format, model, date, cost, children: [{ id, href }] },
 * every string already redacted by the caller.
 */
export function folderIndexHtml(rows, folder) {
  const cell = (s) => `<td>${escapeHtml(s ?? "")}</td>`;
  const body = rows
    .map((s) => {
      const kids = s.children.map((c) => `<br>↳ <a href="${escapeHtml(encodeURI(c.href))}">${escapeHtml(c.id)}</a>`).join("");
      return `<tr><td><a href="${escapeHtml(encodeURI(s.href))}">${escapeHtml(shortTitle(s.title))}</a>${kids}</td>${cell(s.format)}${cell(s.model)}${cell(s.date)}<td class="num">${escapeHtml(s.cost ?? "")}</td></tr>`;
    })
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Sessions of ${escapeHtml(folder)}</title>
<style>
body{margin:0;font:14px/1.45 system-ui,sans-serif;color:#1f2328;background:#f6f8fa}main{max-width:1100px;margin:0 auto;padding:1.5em 1em}h1{font-size:20px}
table{border-collapse:collapse;width:100%;background:#fff}td,th{text-align:left;padding:4px 8px;border-bottom:1px solid #eaeef2;vertical-align:top}th{background:#f6f8fa}td.num{text-align:right;white-space:nowrap}a{color:#0969da}
@media (prefers-color-scheme: dark){:root{color-scheme:dark}body{background:#010409;color:#e6edf3}table{background:#0d1117}th{background:#161b22}td,th{border-color:#30363d}a{color:#58a6ff}}
</style></head><body><main>
<h1>Sessions of ${escapeHtml(folder)}</h1>
<table><thead><tr><th>Session</th><th>Agent</th><th>Model</th><th>Date</th><th>Cost</th></tr></thead><tbody>
${body}
</tbody></table>
</main></body></html>
`;
}
