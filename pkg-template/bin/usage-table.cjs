// The usage report as a terminal table: ccusage's columns (models, input,
// output, cache create, cache read, total tokens, cost), a total row,
// --breakdown rows per model (and per subagent in sessions), compact (key,
// input, output, cost) when asked or when the full table is wider than the
// terminal; colours only on a terminal, never with NO_COLOR (or --no-color),
// always with FORCE_COLOR (or --color).
"use strict";

const fs = require("node:fs");

/**
 * Whether standard output is a terminal, asked without creating
 * `process.stdout` and, unless it is a character device (a terminal or
 * /dev/null), without loading `node:tty` (which loads `node:net`: 4 ms).
 */
function stdoutIsTTY() {
  try {
    if (!fs.fstatSync(1).isCharacterDevice()) return false;
  } catch {
    return false;
  }
  return require("node:tty").isatty(1);
}

/** 1,234,567 as toLocaleString("en-US") writes it, without Intl for whole numbers (its first use costs 10 to 40 ms). */
const n = (x) => (Number.isSafeInteger(Number(x)) ? String(Number(x)).replace(/\B(?=(\d{3})+(?!\d))/g, ",") : Number(x).toLocaleString("en-US"));
const money = (cost, incomplete) => (cost === null ? "unknown" : `${incomplete ? "≥ " : ""}$${cost.toFixed(2)}`);

/** Whether to colour: the flag, else FORCE_COLOR / NO_COLOR, else a terminal. */
function useColour(flag, isTTY = stdoutIsTTY, env = process.env) {
  if (flag !== undefined) return flag;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== "0") return true;
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  return isTTY();
}

const paint = (on) => ({
  head: (s) => (on ? `\x1b[36m${s}\x1b[39m` : s),
  total: (s) => (on ? `\x1b[33m${s}\x1b[39m` : s),
  dim: (s) => (on ? `\x1b[2m${s}\x1b[22m` : s),
  warn: (s) => (on ? `\x1b[31m${s}\x1b[39m` : s),
});

const visible = (s) => String(s).replace(/\x1b\[[0-9;]*m/g, "").length;

/** Rows of cells laid out in columns (numbers to the right). */
function layout(rows, numericFrom, style) {
  const widths = rows[0].cells.map((_, c) => Math.max(...rows.map((r) => visible(r.cells[c] ?? ""))));
  return rows
    .map((r) => {
      const line = r.cells.map((cell, c) => {
        const pad = " ".repeat(Math.max(0, widths[c] - visible(cell ?? "")));
        return c >= numericFrom ? pad + (cell ?? "") : (cell ?? "") + pad;
      });
      return (style[r.style] ?? ((s) => s))(line.join("  ").trimEnd());
    })
    .join("\n");
}

const LABEL = { day: "date", week: "week (from Sunday)", month: "month", session: "session", model: "model", block: "block (5 h)" };
const WEEKDAY = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

/** The table for one list of report rows. */
function tableOf(list, totals, by, o) {
  const compact = o.compact;
  // --no-cost (ccusage's): no cost column, no cost in the notes.
  const costs = o.noCost ? [] : ["cost"];
  // A block's times in the report's zone, as ccusage shows them in the
  // system's (the JSON keeps ISO times in UTC); the header names the zone.
  const zoneName = o.zone?.name ?? (process.env.TZ || "local time");
  const local = (iso) => {
    const ms = Date.parse(iso);
    return new Date(ms + (o.zone?.offsetOf(ms) ?? 0)).toISOString().slice(0, 16).replace("T", " ");
  };
  const label = by === "week" ? `week (from ${WEEKDAY[o.weekStart ?? 0]})` : by === "block" ? `block (${o.sessionLength ?? 5} h, ${zoneName})` : LABEL[by];
  const head = compact ? [label, "input", "output", ...costs] : [label, ...(by === "model" ? [] : ["models"]), "input", "output", "cache create", "cache read", "total tokens", ...costs];
  const numericFrom = compact ? 1 : by === "model" ? 1 : 2;
  const rows = [{ cells: head, style: "head" }];
  const line = (key, x, models, style) => {
    const f = { input: x.inputTokens ?? x.tokenCounts?.inputTokens, output: x.outputTokens ?? x.tokenCounts?.outputTokens, create: x.cacheCreationTokens ?? x.tokenCounts?.cacheCreationInputTokens, read: x.cacheReadTokens ?? x.tokenCounts?.cacheReadInputTokens };
    const cost = o.noCost ? [] : [money(x.totalCost ?? x.costUSD ?? x.cost ?? null, x.costIncomplete)];
    const total = f.input + f.output + f.create + f.read;
    rows.push({ cells: compact ? [key, n(f.input), n(f.output), ...cost] : [key, ...(by === "model" ? [] : [models]), n(f.input), n(f.output), n(f.create), n(f.read), n(total), ...cost], style });
  };
  for (const x of list) {
    if (by === "block") {
      if (x.isGap) {
        rows.push({ cells: [`(gap until ${local(x.endTime)})`], style: "dim" });
        continue;
      }
      const left = x.isActive ? ` ACTIVE, ${Math.round((Date.parse(x.endTime) - (o.now ?? Date.now())) / 60000)} min left` : "";
      line(`${local(x.startTime)}${left}`, x, x.models.join(", "), x.isActive ? "total" : undefined);
      const dollars = (c, unit = "") => (o.noCost ? "" : `, ${c === null ? "unknown" : `$${c.toFixed(2)}`}${unit}`);
      if (x.burnRate) rows.push({ cells: [`  burn rate ${n(Math.round(x.burnRate.tokensPerMinute))} tokens/min${dollars(x.burnRate.costPerHour, "/h")}; projected ${n(x.projection.totalTokens)} tokens${dollars(x.projection.totalCost)}`], style: "dim" });
      if (x.tokenLimitStatus) rows.push({ cells: [`  token limit ${n(x.tokenLimitStatus.limit)}: ${x.tokenLimitStatus.percentUsed.toFixed(1)}% projected (${x.tokenLimitStatus.status})`], style: x.tokenLimitStatus.status === "ok" ? "dim" : "warn" });
    } else if (by === "session") {
      line(`${x.projectPath ? `${x.projectPath}/` : ""}${x.sessionId}${x.lastActivity ? `  ${x.lastActivity.slice(0, 10)}` : ""}`, x, x.modelsUsed.join(", "));
      // (Named as subagents: the model rows below use └, and an id such as
      // agent-x read as one more model.)
      if (o.breakdown) for (const s of x.subagents) line(`  ↳ subagent ${s.id}`, s, s.modelsUsed.join(", "), "dim");
    } else {
      line(x[{ day: "date", week: "week", month: "month", model: "model" }[by]], x, x.modelsUsed.join(", "));
    }
    if (o.breakdown && by !== "model") for (const m of x.modelBreakdowns ?? []) line(`  └ ${m.modelName}`, { ...m, totalCost: m.cost }, "", "dim");
  }
  line(by === "session" ? `total (${list.length} sessions)` : "total", totals, "", "total");
  // Single-cell rows (gaps, burn rates) are notes: they do not widen the table.
  const cellRows = rows.filter((r) => r.cells.length > 1);
  const text = layout(cellRows.length === rows.length ? rows : rows.map((r) => (r.cells.length > 1 ? r : { ...r, cells: [r.cells[0], ...Array(head.length - 1).fill("")] })), numericFrom, paint(o.colour));
  return text.split("\n").map((l) => l.trimEnd()).join("\n");
}

/** The report `r` (usage.cjs) as text. */
function table(r, by, o = {}) {
  const colour = o.colour ?? false;
  const width = o.width ?? (stdoutIsTTY() ? process.stdout.columns : Infinity);
  const render = (compact) => {
    const opts = { ...o, colour, compact };
    if (r.projects) {
      return Object.entries(r.projects).map(([p, list]) => `${paint(colour).head(`project ${p}`)}\n${tableOf(list, sumOf(list), by, opts)}`).join("\n\n") + `\n\n${tableOf([], r.totals, by, opts)}`;
    }
    return tableOf(r[{ day: "daily", week: "weekly", month: "monthly", session: "sessions", block: "blocks", model: "models" }[by]], r.totals, by, opts);
  };
  let text = render(o.compact === true);
  // Wider than the terminal: the compact table (ccusage does the same).
  if (!o.compact && Math.max(...text.split("\n").map(visible)) > width) text = render(true);
  return text + "\n";
}

/** Totals of some rows (a project's, under --instances). */
function sumOf(list) {
  const t = { inputTokens: 0, outputTokens: 0, cacheCreationTokens: 0, cacheReadTokens: 0, totalCost: 0, costIncomplete: false };
  let known = false;
  for (const x of list) {
    for (const k of ["inputTokens", "outputTokens", "cacheCreationTokens", "cacheReadTokens"]) t[k] += x[k];
    if (x.totalCost !== null) {
      t.totalCost += x.totalCost;
      known = true;
    }
    t.costIncomplete ||= x.costIncomplete || x.totalCost === null;
  }
  if (!known && list.length) t.totalCost = null;
  return t;
}

module.exports = { table, useColour, money };
