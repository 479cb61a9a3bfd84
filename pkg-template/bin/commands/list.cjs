// `garuda-session list <dir>`: the /sessions table of a sessions folder (any agent's layout).
"use strict";

const fs = require("node:fs");
const { UsageError, parseArgs, REDIS, withRedis, session } = require("../cli.cjs");
const { walkSessions } = require("../folders.cjs");

const HELP = `usage: garuda-session list <dir> [--json] [--redis URL [--prefix p]]
  the /sessions table of a sessions folder, newest first (with --redis: the store's sessions, no folder)`;

async function list(args) {
  const o = parseArgs(args, { "--json": "json!", ...REDIS });
  const dir = o._[0];
  let rows;
  if (o.redis !== undefined) {
    rows = await withRedis(o, (store) => store.summaries());
  } else {
    if (dir === undefined) throw new UsageError("give a sessions folder");
    if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new UsageError(`${dir} is not a folder`);
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
 * paths under the folder.
 */
function folderRows(dir) {
  const enc = (rel) => rel.split("/").map(encodeURIComponent).join("/");
  const rows = [];
  for (const s of walkSessions(dir)) {
    const row = session.summariseSession(s.id, fs.statSync(s.file).mtime, fs.readFileSync(s.file));
    if (row.format === null) continue;
    // Runs inside the file (Claude Code sidechains) are child runs too, read from the same file (`run`: the Task call's id).
    const inline = (row.runs ?? []).map((id) => ({ id: `sidechain-${id}`, file: enc(s.rel), run: id }));
    rows.push({ ...row, project: s.project, file: enc(s.rel), children: [...s.children.map((c) => ({ id: c.id, file: enc(c.rel) })), ...inline] });
  }
  return rows.sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : a.id < b.id ? 1 : -1));
}


module.exports = { help: HELP, run: list, folderRows };
