// The subagent runs an export nests under their calls (web-demo/export-runs.js
// draws them): a run inside the session's own file (a Claude Code sidechain,
// `sidechain-<toolUseId>`, kept by the session's read, `runJournal`) or a subagent's
// own file (Claude Code's subagents/agent-<id>.jsonl, a Garuda child run),
// found where list and serve find them (folders.cjs). Each is read by the
// core, as the viewer reads it: nothing here looks inside a record.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { isSessionFile } = require("./folders.cjs");

const INLINE = "sidechain-";

/** A call's child as one of the session's child files: by its id, or the id the call names (`agent-<id>`, `…-<toolUseId>`). */
const childFile = (kids, child) => kids.find((k) => k.id === child || k.id === `agent-${child}` || k.id.endsWith(`-${child}`));

/**
 * `runOf(child)` for export-runs.js: the journal of a call's run (the caller
 * frees it), or null. `open(run)` gives the run inside the session's own
 * source (the session's journal, read with `keepRuns`: `runJournal(run)`,
 * nothing read again); `openFile(file)` reads a child file; `kids`: the
 * session's child files ({ id, file }).
 */
function runOpener({ open, openFile, kids = [] }) {
  return (child) => {
    let journal = null;
    if (String(child).startsWith(INLINE)) journal = open(String(child).slice(INLINE.length));
    else {
      const k = childFile(kids, child);
      if (k?.file) journal = openFile(k.file);
    }
    if (!journal) return null;
    if (journal.format === null || journal.transcriptLength === 0) {
      journal.free();
      return null;
    }
    return journal;
  };
}

/**
 * The child files of one session file, as folders.cjs's walk gives them
 * (without walking its siblings): every session file under the folder
 * named after it (`<id>/subagents/agent-*.jsonl`, `<id>/<child>.jsonl`),
 * and `agent-*.jsonl` beside it when it is the folder's only other session.
 */
function childFilesOf(file) {
  const dir = path.dirname(file);
  const stem = path.basename(file).replace(/\.jsonl?$/, "");
  const kids = [];
  const walk = (d) => {
    let entries;
    try {
      entries = fs.readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.isFile() && isSessionFile(e.name)) kids.push({ id: e.name.replace(/\.jsonl?$/, ""), file: path.join(d, e.name) });
      else if (e.isDirectory()) walk(path.join(d, e.name));
    }
  };
  walk(path.join(dir, stem));
  if (!stem.startsWith("agent-")) {
    let beside = [];
    try {
      beside = fs.readdirSync(dir).filter(isSessionFile);
    } catch {}
    const main = beside.filter((f) => !f.startsWith("agent-"));
    if (main.length === 1) for (const f of beside.filter((f) => f.startsWith("agent-"))) kids.push({ id: f.replace(/\.jsonl?$/, ""), file: path.join(dir, f) });
  }
  return kids;
}

module.exports = { runOpener, childFilesOf };
