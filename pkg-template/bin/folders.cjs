// Sessions in a folder of any agent's layout, for list, serve and usage:
//   Garuda        <dir>/<id>.jsonl, its child runs in <dir>/<id>/<child>.jsonl
//   Claude Code   <projects>/<project>/<session>.jsonl, subagents in
//                 <session>/subagents/agent-<id>.jsonl (or agent-<id>.jsonl beside it)
//   Codex         <sessions>/YYYY/MM/DD/rollout-*.jsonl
//   pi            <sessions>/--<cwd>--/<ts>_<uuid>.jsonl
//   Gemini CLI    <tmp>/<project hash>/chats/session-*.json(l)
// A folder named like a session file beside it holds that session's child
// runs; any other folder is walked as a project. What a file holds is the
// core's to say (format detection), not this walk's.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const statNumbers = require("./stat-numbers.cjs");

const isSessionFile = (name) => name.endsWith(".jsonl") || (name.startsWith("session-") && name.endsWith(".json"));
const stem = (name) => name.replace(/\.jsonl?$/, "");

/** Every session file under `dir` (a child run's too), with what it belongs to. */
function walkSessions(root, { links = false, dirs = null } = {}) {
  const sessions = [];
  const walk = (dir, project, parent) => {
    let entries;
    // `dirs` (the usage index) hears of each folder read, stat'ed before
    // its listing: a change after that changes its mtime.
    if (dirs) {
      const st = statNumbers.numbers(dir);
      dirs.push([dir, st ? st.mtimeMs : -1, st ? st.ino : -1]);
    }
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    // With `links` (usage): a link named like a session file is one too,
    // even when it leads nowhere readable (the reader then says so).
    const files = entries.filter((e) => (e.isFile() || (links && e.isSymbolicLink())) && isSessionFile(e.name));
    const here = new Map();
    for (const e of files) {
      const file = path.join(dir, e.name);
      let size = 0;
      try {
        size = statNumbers.numbers(file)?.size ?? 0;
      } catch {
        // unreadable: size 0, and its read gives the warning
      }
      // `rel` (list, serve, export) when asked: usage walks 2,758 files of
      // a 1 GB history and asks none (path.relative was a tenth of its walk).
      const row = {
        id: stem(e.name),
        file,
        get rel() {
          return path.relative(root, file).split(path.sep).join("/");
        },
        project,
        size,
        link: e.isSymbolicLink(),
        children: [],
      };
      if (parent) parent.children.push(row);
      else {
        sessions.push(row);
        here.set(stem(e.name), row);
      }
    }
    for (const e of entries.filter((e) => e.isDirectory())) {
      const owner = parent ?? here.get(e.name);
      walk(path.join(dir, e.name), owner ? project : [project, e.name].filter(Boolean).join("/"), owner);
    }
    // A subagent beside its session (Claude Code's older layout): agent-*.jsonl is a child run.
    if (!parent) {
      const main = [...here.values()].filter((s) => !s.id.startsWith("agent-"));
      const agents = new Set([...here.values()].filter((s) => s.id.startsWith("agent-")));
      if (main.length === 1 && agents.size > 0) {
        // Out of the list in one pass (a search of it for each was quadratic in them).
        let w = 0;
        for (const s of sessions) if (!agents.has(s)) sessions[w++] = s;
        sessions.length = w;
        for (const s of agents) main[0].children.push(s);
      }
    }
  };
  walk(root, "", null);
  return sessions;
}

module.exports = { walkSessions, isSessionFile };
