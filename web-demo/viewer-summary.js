// The open session's summary: cost, counts, resume, warnings, subagents, charts.
import { sessionCharts } from "./charts.js";
import { $, el, view, n } from "./viewer-core.js";
import { goTo } from "./viewer-nav.js";
import { resumeWords } from "./viewer-words.js";
import { doctorPanel } from "./doctor-panel.js";

// ---- Summary and charts ------------------------------------------------------------

export function renderSummary() {
  const stats = view.stats;
  const box = $("summary");
  box.replaceChildren();
  const u = stats.usage;
  const title = stats.title ?? stats.firstPrompt;
  box.append(
    el("div", {}, el("span", { class: "cost", id: "cost", text: stats.cost }), ` · ${n(view.entries.length)} entries · ${n(stats.prompts)} prompts · ${n(stats.steps)} responses · ${n(stats.messages)} messages in context · model ${stats.model ?? "-"}${stats.format && stats.format !== "garuda" ? ` · ${stats.format}` : ""}${title ? ` · “${title.slice(0, 120)}”` : ""}`),
    el("div", { text: `usage: ${n(u.inputTokens)} input · ${n(u.outputTokens)} output · ${n(u.cacheReadTokens)} cache read · ${n(u.cacheWriteTokens)} cache write · context ${n(stats.contextTokens)}` }),
  );
  if (stats.budgetNote) box.append(el("div", { id: "budget", text: stats.budgetNote }));
  box.append(doctorPanel(view.sessions.get(view.active), view.active) ?? "");
  const r = stats.report;
  const resume = resumeWords(r);
  box.append(el("div", { id: "resume", text: resume.text, title: resume.title }));
  // Warnings and subagent runs: what the core says of every entry
  // (transcriptNotes), so a big session's entries are not all parsed for
  // it (viewer-entries.js); each warning shown is read by its index.
  const notes = stats.notes;
  if (notes.warningCount || stats.tornTail) {
    const w = el("div", { id: "warnings" }, "warnings: ");
    for (const index of notes.warnings) {
      const warning = view.entries[index];
      if (warning) w.append(el("a", { text: `line ${warning.line} (${warning.type})`, title: warning.preview, onclick: () => goTo(index) }), " ");
    }
    if (notes.warningCount > notes.warnings.length) w.append(el("span", { text: `and ${n(notes.warningCount - notes.warnings.length)} more` }), " ");
    if (stats.tornTail) w.append(el("span", { text: "the last line is torn (incomplete)" }));
    box.append(w);
  }
  if (notes.subagentRuns) {
    // Filled when opened: a long session has thousands of subagent runs.
    const t = el("table", { class: "sub" });
    const fold = el("details", {}, el("summary", { text: `subagents (${n(notes.subagentRuns)})` }), t);
    fold.addEventListener("toggle", () => {
      if (!fold.open || t.rows.length) return;
      for (const s of view.entries.flatMap((e) => e.subagents ?? [])) t.append(el("tr", {}, el("td", { text: s.child ?? "-" }), el("td", { text: `${n(s.tokens)} tokens` }), el("td", { text: typeof s.costUsd === "number" ? `$${s.costUsd.toFixed(4)}` : "cost unknown" })));
    });
    box.append(fold);
  }
  const charts = el("details", { id: "charts" }, el("summary", { text: "charts: context, cost, tokens per turn" }));
  charts.addEventListener("toggle", () => {
    if (charts.open && charts.children.length === 1) charts.append(...sessionCharts(view.entries));
  });
  box.append(charts);
}
