// `garuda-session import <file> -o <out.jsonl>`: another agent's session as a Garuda journal.
"use strict";

const fs = require("node:fs");
const { UsageError, parseArgs, READ, openInput, readOptions, redactorFor, n, session } = require("../cli.cjs");

const HELP = `usage: garuda-session import <file> -o <out.jsonl> [--rules rules.json] [--format f] [--prices p.json]
  another agent's session as a Garuda journal (redacted) that Garuda can resume
Reads Garuda journals and Claude Code, Codex, pi and Gemini CLI sessions, detecting the
format; --format garuda|claude-code|codex|pi|gemini forces it.
--prices prices.json adds or replaces model prices ({"models": {"<model>": {"input", "output", ...}}}).`;

/** `import <file> -o <out.jsonl>`: another agent's session as a Garuda journal, redacted, that Garuda can resume. */
function importCommand(args) {
  const o = parseArgs(args, { "-o": "out", "--rules": "rules", ...READ });
  const file = o._[0];
  openInput(file);
  if (o.out === undefined) throw new UsageError("give -o <out.jsonl>");
  let text;
  try {
    text = session.importSession(fs.readFileSync(file), { ...readOptions(o), redactor: redactorFor(o) });
  } catch (e) {
    if (e.code === "ERR_UNKNOWN_FORMAT" || e.code === "ERR_INVALID_ARG") throw new UsageError(`${file}: ${e.message.replace(/^importSession\(journal, options\): /, "")}`);
    throw e;
  }
  fs.writeFileSync(o.out, text, { mode: 0o600 });
  const state = session.rebuildState(text);
  process.stderr.write(`${o.out}: ${n(text.split("\n").length - 1)} records, ${n(state.messages.length)} messages, ${n(state.prompts)} prompts, cost ${session.formatCost(state)}\n`);
  return 0;
}

module.exports = { help: HELP, run: importCommand };
