// A subagent's run nested under the call that started it, in an export:
// its entries (every message, tool call and result of the run), drawn by
// the same renderer as the session's own, folded under the Task call in
// HTML (`<details>`) and a sub-section under it in Markdown. The run is
// the core's: `runOf(child)` gives the run's own journal (a sidechain read
// with `run`, or a subagent's file), as the viewer reads it; nothing here
// reads a record.

// Runs started inside runs are nested too, down to this depth (Claude Code
// does not let a subagent start one; a loop of links must not recurse).
const MAX_DEPTH = 4;

const n = (x) => Number(x ?? 0).toLocaleString("en-US");
const toolCalls = (d) => (d.parts ?? []).filter((p) => p.type === "toolUse").length;
const plural = (k, one, many) => `${n(k)} ${k === 1 ? one : many}`;

/**
 * The `childRun` hooks of render.js for one export. `runOf(child)`: the
 * journal of a call's run (read with `history: true`) or null; it is freed
 * here. `entries(journal)`: the entries to write, as the session's.
 * Each run is drawn once (the first call naming it).
 */
export function runNester(render, runOf, entries) {
  const seen = new Set();
  /**
   * The run's entries to draw, with `total` its entries in the core (results
   * drawn under their calls too: what the viewer counts), or null when there
   * is no run (or it was drawn already).
   */
  const take = (child, depth) => {
    if (!runOf || depth > MAX_DEPTH || seen.has(child)) return null;
    const journal = runOf(child);
    if (!journal) return null;
    seen.add(child);
    try {
      const rows = [...entries(journal)];
      rows.total = journal.transcriptLength;
      return rows;
    } finally {
      journal.free();
    }
  };
  const slug = (child) => String(child).replace(/[^A-Za-z0-9_-]/g, "_");

  /** HTML: the run folded under its call. */
  const html = (opts, depth = 1) => (child) => {
    const rows = take(child, depth);
    if (!rows?.length) return "";
    const calls = rows.reduce((k, d) => k + toolCalls(d), 0);
    const inner = { ...opts, idPrefix: `${slug(child)}-e-`, anchor: (i) => `#${slug(child)}-e-${i}`, childRun: html(opts, depth + 1) };
    const body = rows.map((d) => render.entryHtml(d, inner)).join("\n");
    return `<details class="subrun"><summary>The subagent's run <small>${plural(rows.total, "entry", "entries")} · ${plural(calls, "tool call", "tool calls")}</small></summary><div class="subrun-body">${body}</div></details>`;
  };

  /** Markdown: the run as a sub-section under its call (its entries a heading level down). */
  const markdown = (opts, depth = 1) => (child) => {
    const rows = take(child, depth);
    if (!rows?.length) return [];
    const calls = rows.reduce((k, d) => k + toolCalls(d), 0);
    const level = Math.min(6, 2 + depth);
    const inner = { ...opts, level: Math.min(6, level + 1), childRun: markdown(opts, depth + 1) };
    const name = String(opts.redact(child)).replace(/`/g, "");
    return [
      `${"#".repeat(level)} The subagent's run \`${name}\` (${plural(rows.total, "entry", "entries")}, ${plural(calls, "tool call", "tool calls")})`,
      "",
      ...rows.map((d) => render.entryMarkdown(d, inner)),
      `*End of the subagent's run \`${name}\`.*`,
      "",
    ];
  };
  return { html, markdown };
}
