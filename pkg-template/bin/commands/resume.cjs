// `garuda-session resume <file>`: the messages a resumed session hands the model, and what was repaired.
"use strict";

const { UsageError, parseArgs, READ, replayFile, readOptions, known, session } = require("../cli.cjs");

const HELP = `usage: garuda-session resume <file> [--model m] [--thinking on|off] [--format f] [--prices p.json]
  resume messages (stdout), repair report (stderr); exit 1 when something could not be repaired
Reads Garuda journals and Claude Code, Codex, pi and Gemini CLI sessions, detecting the
format; --format garuda|claude-code|codex|pi|gemini forces it.
--prices prices.json adds or replaces model prices ({"models": {"<model>": {"input", "output", ...}}}).`;

function resumeOptions(o, state) {
  const options = { model: o.model ?? state.model };
  // Without the flag, the core reads the session's own thinking record.
  if (o.thinking !== undefined) {
    if (o.thinking !== "on" && o.thinking !== "off") throw new UsageError("--thinking takes on or off");
    options.thinking = o.thinking === "on";
  }
  return options;
}

function resume(args) {
  const o = parseArgs(args, { "--model": "model", "--thinking": "thinking", ...READ });
  const state = known(replayFile(o._[0], readOptions(o)), o._[0]);
  const { messages, report } = session.repairForResume(state, resumeOptions(o, state));
  process.stdout.write(JSON.stringify(messages, null, 2) + "\n");
  process.stderr.write(JSON.stringify(report, null, 2) + "\n");
  return report.remaining.length > 0 ? 1 : 0;
}

module.exports = { help: HELP, run: resume, resumeOptions };
