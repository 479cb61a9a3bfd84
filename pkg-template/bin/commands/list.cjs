// `garuda-session list <dir>`: the /sessions table of a sessions folder (any agent's layout).
"use strict";

const fs = require("node:fs");
const { UsageError, parseArgs, REDIS, withRedis, session } = require("../cli.cjs");
const { walkSessions } = require("../folders.cjs");

const HELP = `usage: garuda-session list <dir> [--json] [--redis URL [--prefix p]]
  the /sessions table of a sessions folder, newest first (with --redis: the store's sessions, no folder);
  updated: the session's last activity (its last record's time; the file's mtime when no record has one)`;

async function list(args) {
  const o = parseArgs(args, { "--json": "json!", ...REDIS });
  const dir = o._[0];
  let rows;
  if (o.redis !== undefined) {
    rows = await withRedis(o, (store) => store.summaries());
  } else {
    if (dir === undefined) throw new UsageError("give a sessions folder");
    if (!fs.existsSync(dir)) throw new UsageError(`${dir}: no such folder`);
    if (!fs.statSync(dir).isDirectory()) throw new UsageError(`${dir} is not a folder`);
    // Other agents' sessions were never redacted: the table (and --json,
    // which may go to a file) shows their prompts and titles redacted.
    rows = folderRows(dir).map(({ file, children, ...row }) => row);
  }
  if (o.json) {
    process.stdout.write(JSON.stringify(rows, null, 2) + "\n");
    return 0;
  }
  const table = [["id", "updated", "prompts", "model", "cost", "title / first prompt"]];
  for (const r of rows) {
    const id = r.project ? `${r.project}/${r.id}` : r.id;
    const what = r.format && r.format !== "garuda" ? `[${r.format}] ` : "";
    table.push([id, r.updated.slice(0, 16).replace("T", " "), String(r.prompts), r.model ?? "-", r.cost, what + (r.title ?? r.prompt)]);
  }
  const widths = table[0].map((_, c) => Math.max(...table.map((row) => row[c].length)));
  for (const row of table) process.stdout.write(row.map((cell, c) => (c === row.length - 1 ? cell : cell.padEnd(widths[c]))).join("  ") + "\n");
  return 0;
}


/**
 * The sessions of a folder in any agent's layout (folders.cjs), newest
 * first, each summarised by the core (which detects its format); files in
 * no known format are left out. `file` and children's `file` are relative
 * paths under the folder. Unless `redact` is false (serve --no-redact),
 * each row's prompt and title pass through a Redactor over this process's
 * environment (summariseSession's `redactor`): other agents' sessions were
 * never redacted, and an index shows their rows.
 */
function folderRows(dir, { redact = true } = {}) {
  const redactor = redact ? new session.Redactor({ env: process.env }) : null;
  try {
    return rowsOf(dir, redactor);
  } finally {
    redactor?.free();
  }
}

function rowsOf(dir, redactor) {
  const enc = (rel) => rel.split("/").map(encodeURIComponent).join("/");
  const rows = [];
  for (const s of walkSessions(dir)) {
    const bytes = fs.readFileSync(s.file);
    // Updated: the session's last activity (its last record's time), not the
    // file's mtime (a copy, a backup restored, a sync tool touches that);
    // the mtime only for a session whose records carry no time.
    const last = lastActivity(bytes, s.file);
    const row = session.summariseSession(s.id, last ?? fs.statSync(s.file).mtime, bytes, redactor ? { redactor } : undefined);
    if (row.format === null) continue;
    withRunsCost(row, s.children);
    // Runs inside the file (Claude Code sidechains) are child runs too, read from the same file (`run`: the Task call's id).
    const inline = (row.runs ?? []).map((id) => ({ id: `sidechain-${id}`, file: enc(s.rel), run: id }));
    rows.push({ ...row, lastActivity: last, project: s.project, file: enc(s.rel), children: [...s.children.map((c) => ({ id: c.id, file: enc(c.rel) })), ...inline] });
  }
  return rows.sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : a.id < b.id ? 1 : -1));
}


/**
 * A Claude Code session's cost with its subagents' files, as `usage --by
 * session` counts it: a subagent writes its own file, and the session's
 * file holds none of its requests (a Garuda journal counts each child's
 * report in the parent, so its children are not added again). A run whose
 * cost is unknown, or that cannot be read, makes the sum a lower bound (the
 * core's `addCosts` keeps the rule). `ownCostUsd`: the file's own;
 * `runsCounted`: the runs whose figures were added.
 */
function withRunsCost(row, children) {
  if (row.format !== "claude-code" || children.length === 0) return;
  const parts = [];
  for (const c of children) {
    let k;
    try {
      k = session.summariseSession(c.id, new Date(0), fs.readFileSync(c.file));
    } catch {
      parts.push(null); // unread: its cost is unknown
      continue;
    }
    if (k.format !== null) parts.push(k);
  }
  if (parts.length === 0) return;
  const figures = session.addCosts([row, ...parts]);
  const runsCounted = parts.filter((k) => k !== null).length;
  Object.assign(row, { ownCostUsd: row.costUsd, ...figures, cost: session.formatCost(figures), runsCounted });
}

/**
 * The time of a session's last record that has one (ISO, UTC), or null:
 * its lines read from the end until one parses with a time (`t` in a
 * Garuda journal, `timestamp` in Claude Code's, Codex's and pi's); a
 * Gemini CLI session file (one JSON document) says `lastUpdated`. (Not
 * the transcript's last message: a session's last records are often
 * token counts or system lines a minute later.)
 */
const LOOK_BACK = 1000;

function lastActivity(bytes, file = "") {
  const iso = (t) => (typeof t === "string" && Number.isFinite(Date.parse(t)) ? new Date(Date.parse(t)).toISOString() : null);
  if (file.endsWith(".json")) {
    try {
      const v = JSON.parse(bytes.toString("utf8"));
      return iso(v?.lastUpdated) ?? iso(v?.messages?.at?.(-1)?.timestamp);
    } catch {
      // not one JSON document: its lines below
    }
  }
  // At most LOOK_BACK lines, and only those that open an object: a folder
  // of junk (serve's bounded-memory test: 2 M lines) is not parsed line by
  // line from its end; past that, the mtime.
  let end = bytes.length;
  let looked = 0;
  while (end > 0 && looked < LOOK_BACK) {
    const start = bytes.lastIndexOf(10, end - 1) + 1;
    let first = start;
    while (first < end && (bytes[first] === 32 || bytes[first] === 9 || bytes[first] === 13)) first++;
    if (first < end && bytes[first] === 123) {
      looked++;
      let v;
      try {
        v = JSON.parse(bytes.toString("utf8", start, end));
      } catch {
        v = null;
      }
      const t = v && typeof v === "object" ? iso(v.t) ?? iso(v.timestamp) : null;
      if (t !== null) return t;
    }
    end = start - 1;
  }
  return null;
}

module.exports = { help: HELP, run: list, folderRows, lastActivity, withRunsCost };
