// Where each agent keeps its sessions, read as ccusage reads them (its
// documentation, `ccusage --help` of the version pinned in .ci/), each root
// overridable by the agent's own variable:
//   Claude Code  CLAUDE_CONFIG_DIR (one folder or a comma list), else both
//                ~/.config/claude and ~/.claude (Claude Code moved its data
//                to the first; either may hold sessions): <dir>/projects
//   Codex        CODEX_HOME, else ~/.codex: <dir>/sessions
//   pi           PI_AGENT_DIR, else ~/.pi/agent: <dir>/sessions
//   Gemini CLI   GEMINI_DATA_DIR (the tmp folder itself), else ~/.gemini/tmp
//   Garuda       GARUDA_HOME, else the file store's .garuda: <dir>/sessions
"use strict";

const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");

const list = (v) => String(v).split(",").map((s) => s.trim()).filter(Boolean);

/** Every root that exists, each once (two names of one folder are one root). */
function dataRoots(env = process.env, home = os.homedir()) {
  const claude = env.CLAUDE_CONFIG_DIR ? list(env.CLAUDE_CONFIG_DIR) : [path.join(home, ".config", "claude"), path.join(home, ".claude")];
  const roots = [
    ...claude.map((d) => path.join(d, "projects")),
    path.join(env.CODEX_HOME || path.join(home, ".codex"), "sessions"),
    path.join(env.PI_AGENT_DIR || path.join(home, ".pi", "agent"), "sessions"),
    env.GEMINI_DATA_DIR || path.join(home, ".gemini", "tmp"),
    path.join(env.GARUDA_HOME || ".garuda", "sessions"),
  ];
  return existing(roots);
}

/** The folders that exist, each once (two names of one folder are one). */
function existing(roots) {
  const seen = new Set();
  return roots.filter((d) => {
    let real;
    try {
      if (!fs.statSync(d).isDirectory()) return false;
      real = fs.realpathSync(d);
    } catch {
      return false;
    }
    if (seen.has(real)) return false;
    seen.add(real);
    return true;
  });
}

/** Claude Code's roots alone (the status line's): those that exist, each once. */
function claudeRoots(env = process.env, home = os.homedir()) {
  const claude = env.CLAUDE_CONFIG_DIR ? list(env.CLAUDE_CONFIG_DIR) : [path.join(home, ".config", "claude"), path.join(home, ".claude")];
  return existing(claude.map((d) => path.join(d, "projects")));
}

/** What `dataRoots` looks at, for the message when none exists. */
const ROOTS_HELP = "CLAUDE_CONFIG_DIR or ~/.config/claude and ~/.claude (projects/), CODEX_HOME or ~/.codex (sessions/), PI_AGENT_DIR or ~/.pi/agent (sessions/), GEMINI_DATA_DIR or ~/.gemini/tmp, GARUDA_HOME or .garuda (sessions/)";

module.exports = { dataRoots, claudeRoots, ROOTS_HELP };
