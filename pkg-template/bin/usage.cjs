// `garuda-session usage`: tokens and cost of every session under some paths,
// in any format the core reads, grouped by session, day, month or model.
// The figures are the core's (state.usageByDay): this file only walks
// folders, filters by date and adds up.
"use strict";

const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const { walkSessions } = require("./folders.cjs");

/** Where each agent keeps its sessions (those that exist are read when no path is given). */
function defaultFolders() {
  const home = os.homedir();
  return [
    path.join(home, ".claude", "projects"),
    path.join(home, ".codex", "sessions"),
    path.join(home, ".pi", "agent", "sessions"),
    path.join(home, ".gemini", "tmp"),
    path.join(".garuda", "sessions"),
  ].filter((d) => fs.existsSync(d));
}

/** Session files under a path (folders.cjs walks any agent's layout): every session and child run; a child run names its session's file (`parent`), whose row counts it. */
function sessionFiles(p) {
  let st;
  try {
    st = fs.statSync(p);
  } catch {
    return [];
  }
  if (st.isFile()) return [{ file: p, size: st.size, named: true }];
  return walkSessions(p).flatMap((s) => [{ file: s.file, size: s.size, named: false }, ...s.children.map((c) => ({ file: c.file, size: c.size, named: false, parent: s.file }))]);
}

const ZERO = () => ({ inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0, costUsd: 0, costIncomplete: false, known: false, unknown: false });

/** Adds one ledger entry (or a row) into an accumulator. */
function add(acc, usage, costUsd, incomplete = false) {
  acc.inputTokens += usage.inputTokens;
  acc.outputTokens += usage.outputTokens;
  acc.cacheReadTokens += usage.cacheReadTokens;
  acc.cacheWriteTokens += usage.cacheWriteTokens;
  const tokens = usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
  if (costUsd === null) acc.unknown = true;
  else {
    acc.costUsd += costUsd;
    // A part with no tokens says nothing about prices.
    if (tokens > 0) acc.known = true;
  }
  if (incomplete) acc.costIncomplete = true;
}

/** The figures of an accumulator: a cost is the sum of the known parts, null when no part is known; incomplete when a part is unknown. */
function figures(acc) {
  const tokens = acc.inputTokens + acc.outputTokens + acc.cacheReadTokens + acc.cacheWriteTokens;
  const none = !acc.known && (acc.unknown || tokens > 0);
  return {
    inputTokens: acc.inputTokens,
    outputTokens: acc.outputTokens,
    cacheReadTokens: acc.cacheReadTokens,
    cacheWriteTokens: acc.cacheWriteTokens,
    costUsd: none ? null : Math.round(acc.costUsd * 1e6) / 1e6,
    costIncomplete: acc.unknown || acc.costIncomplete,
  };
}

/**
 * A Claude Code request copied into several files (a continued session
 * starts with the lines of the one it continues) counts once, as ccusage
 * counts it: by `message.id` and `requestId`, in the file whose first
 * request is the oldest (the original, not the copy). The copies' figures
 * are taken out of their files' ledgers. `requests` is the core's list
 * (`Journal.requests`): one line per request.
 */
function countRequestsOnce(states) {
  const firsts = states
    .map((s, i) => {
      const lines = s.state.requests ? s.state.requests.split("\n").filter(Boolean) : [];
      let first = "";
      for (const l of lines) {
        const t = l.split("\t", 2)[1];
        if (t && (first === "" || t < first)) first = t;
      }
      return { i, lines, first };
    })
    .filter((x) => x.lines.length > 0)
    .sort((a, b) => (a.first < b.first ? -1 : a.first > b.first ? 1 : a.i - b.i));
  const seen = new Set();
  const out = states.slice();
  for (const { i, lines } of firsts) {
    let ledger = null;
    for (const line of lines) {
      const [key, t, model, input, output, cacheRead, cacheWrite, cost] = line.split("\t");
      if (!seen.has(key)) {
        seen.add(key);
        continue;
      }
      // A copy: its day and model entry gives back what it added.
      if (ledger === null) {
        ledger = out[i].state.usageByDay.map((e) => ({ ...e, usage: { ...e.usage } }));
        out[i] = { ...out[i], state: { ...out[i].state, usageByDay: ledger } };
      }
      const day = t && /^\d{4}-\d{2}-\d{2}/.test(t) ? t.slice(0, 10) : "";
      const e = ledger.find((x) => x.day === day && (x.model ?? "") === model);
      if (!e) continue;
      e.usage.inputTokens -= Number(input);
      e.usage.outputTokens -= Number(output);
      e.usage.cacheReadTokens -= Number(cacheRead);
      e.usage.cacheWriteTokens -= Number(cacheWrite);
      if (e.costUsd !== null && cost !== "") e.costUsd -= Number(cost);
      e.requests -= 1;
    }
  }
  return out;
}

/**
 * The report: `{ sessions, totals }` and, with `by` day|month|model, the
 * matching grouping. `states` are `{ id, format, file, state, parent? }`;
 * a child run (`parent`: its session's file) counts in its session's row
 * when that session is in the report, else in a row of its own.
 */
function report(states, { by = "session", since, until } = {}) {
  const inRange = (day) => (!since || (day !== "" && day >= since)) && (!until || (day !== "" && day <= until));
  const sessions = [];
  const totals = ZERO();
  const groups = new Map();
  states = countRequestsOnce(states);
  const files = new Set(states.map((s) => s.file));
  const children = new Map();
  for (const s of states) {
    if (s.parent && files.has(s.parent)) {
      if (!children.has(s.parent)) children.set(s.parent, []);
      children.get(s.parent).push(s.state);
    }
  }
  for (const { id, file, state, parent } of states) {
    if (parent && files.has(parent)) continue; // counted in its session's row
    const acc = ZERO();
    const models = new Set();
    let any = false;
    const runs = [state, ...(children.get(file) ?? [])];
    for (const r of runs) {
      for (const e of r.usageByDay) {
        if (!inRange(e.day)) continue;
        any = true;
        add(acc, e.usage, e.costUsd);
        if (e.model) models.add(e.model);
        if (by !== "session") {
          const key = by === "day" ? e.day || "unknown" : by === "month" ? (e.day ? e.day.slice(0, 7) : "unknown") : e.model || "unknown";
          if (!groups.has(key)) groups.set(key, ZERO());
          add(groups.get(key), e.usage, e.costUsd, r.costIncomplete);
        }
      }
    }
    if (!any && (since || until)) continue;
    // Usage a reader could not know (a rollout without token counts) makes the cost unknown.
    if (runs.some((r) => r.costUsd === null) && !acc.unknown) acc.unknown = true;
    if (runs.some((r) => r.costIncomplete)) acc.costIncomplete = true;
    const row = { id, format: state.format, file, models: [...models].sort(), ...figures(acc) };
    sessions.push(row);
    add(totals, row, row.costUsd, row.costIncomplete);
  }
  const out = { sessions, totals: figures(totals) };
  if (by !== "session") {
    const name = { day: "days", month: "months", model: "models" }[by];
    out[name] = [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, acc]) => ({ [by]: key, ...figures(acc) }));
  }
  return out;
}

const n = (x) => Number(x).toLocaleString("en-US");
const money = (row) => (row.costUsd === null ? "unknown" : `${row.costIncomplete ? "≥ " : ""}$${row.costUsd.toFixed(2)}`);

/** The report as a table. */
function table(r, by) {
  const head = [by === "session" ? "session" : by, ...(by === "session" ? ["format", "models"] : []), "input", "output", "cache read", "cache write", "cost"];
  const rows = [head];
  const list = by === "session" ? r.sessions : r[{ day: "days", month: "months", model: "models" }[by]];
  for (const x of list) {
    const key = by === "session" ? [x.id, x.format, x.models.join(",") || "-"] : [x[by]];
    rows.push([...key, n(x.inputTokens), n(x.outputTokens), n(x.cacheReadTokens), n(x.cacheWriteTokens), money(x)]);
  }
  const t = r.totals;
  rows.push(["total", ...(by === "session" ? [`${r.sessions.length} sessions`, ""] : []), n(t.inputTokens), n(t.outputTokens), n(t.cacheReadTokens), n(t.cacheWriteTokens), money(t)]);
  const widths = head.map((_, c) => Math.max(...rows.map((row) => String(row[c]).length)));
  const numeric = (c) => c >= head.length - 5;
  return rows.map((row) => row.map((cell, c) => (numeric(c) ? String(cell).padStart(widths[c]) : String(cell).padEnd(widths[c]))).join("  ").trimEnd()).join("\n") + "\n";
}

/**
 * What a usage report needs of one file (usage-only replay: no messages
 * kept), read in chunks into `buf` (one buffer for all files: a fresh 4 MB
 * one per file was a third of the report's time). Both threads use this.
 */
function usageOf(session, file, options, buf) {
  const journal = new session.Journal({ ...options, usageOnly: true });
  const fd = fs.openSync(file, "r");
  let n;
  try {
    while ((n = fs.readSync(fd, buf, 0, buf.length, null)) > 0) journal.feed(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  journal.finish();
  const { format, usageByDay, costUsd, costIncomplete } = journal.state();
  const requests = format === "claude-code" ? journal.requests : "";
  journal.free();
  return { format, usageByDay, costUsd, costIncomplete, requests };
}

module.exports = { defaultFolders, sessionFiles, report, table, usageOf };
