// `garuda-session export`: a session's transcript as Markdown or as one
// self-contained HTML file that reads like the viewer's reading mode (the
// same renderer and style sheet), with no script and a CSP that lets the
// page fetch nothing. Bundled into the package as bin/transcript.cjs.
import { entryHtml, entryMarkdown, escapeHtml } from "./render.js";
import css from "./reading.css";

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

/** `info`: { title, sessionId, model, cost, budgetNote }; `redact`: applied to every journal string. */
export function transcriptMarkdown(journal, info, redact, { live = false } = {}) {
  const r = (s) => redact(String(s ?? ""));
  const out = [`# ${r(info.title ?? info.sessionId ?? "Session").replace(/[*_`[\]<>]/g, "\\$&")}`, ""];
  out.push(`- session: ${r(info.sessionId ?? "-")}`, `- model: ${r(info.model ?? "-")}`, `- cost: ${info.cost}`);
  if (info.budgetNote) out.push(`- ${info.budgetNote}`);
  out.push("");
  for (const d of entries(journal, live)) out.push(entryMarkdown(d, { redact: r, hidePaired: true }));
  return out.join("\n");
}

// The style sheet's dark rules (`:root.dark …`, which the viewer's script
// switches) as a prefers-color-scheme block: an exported page has no script.
const DARK = /^:root\.dark .*$/gm;
const pageCss = `${css.replace(DARK, "")}
@media (prefers-color-scheme: dark) {
:root { color-scheme: dark; } body { background: #010409 !important; } h1 { color: #e6edf3; } p.meta { color: #8b949e !important; }
${(css.match(DARK) ?? []).map((l) => l.replaceAll(":root.dark ", ":root ")).join("\n")}
}`;

export function transcriptHtml(journal, info, redact, { live = false } = {}) {
  const r = (s) => redact(String(s ?? ""));
  const title = escapeHtml(r(info.title ?? info.sessionId ?? "Session"));
  const parts = [];
  for (const d of entries(journal, live)) parts.push(entryHtml(d, { redact: r, hidePaired: true, anchor: (i) => `#e-${i}` }));
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
