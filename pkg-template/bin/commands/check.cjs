// `garuda-session check <file>`: whether the API would accept the resumed history.
"use strict";

const { parseArgs, READ, journalOf, readOptions, known, session } = require("../cli.cjs");
const { resumeOptions } = require("./resume.cjs");

const HELP = `usage: garuda-session check <file> [--model m] [--thinking on|off] [--strict] [--format f] [--prices p.json]
  exit 1 when the API would refuse the resumed history
  --strict: or when a line is malformed or unknown
Reads Garuda journals and Claude Code, Codex, pi and Gemini CLI sessions, detecting the
format; --format garuda|claude-code|codex|pi|gemini forces it.
--prices prices.json adds or replaces model prices ({"models": {"<model>": {"input", "output", ...}}}).`;

function check(args) {
  const o = parseArgs(args, { "--model": "model", "--thinking": "thinking", "--strict": "strict!", ...READ });
  const journal = journalOf(o._[0], readOptions(o));
  const state = known(journal.state(), o._[0]);
  const corruption = journal.corruption;
  journal.free();
  if (o.strict && corruption) {
    // The strict load (seed 001): a line replay would skip fails the check.
    process.stdout.write(`${o._[0]}: line ${corruption.line} is ${corruption.kind}: ${corruption.message}; a strict load refuses this journal\n`);
    return 1;
  }
  const options = resumeOptions(o, state);
  const { messages, report } = session.repairForResume(state, options);
  // The thinking the repair went by: the flag's, else the session's own.
  const thinking = report.thinking === true;
  const raw = session.checkMessages(state.messages, { thinking });
  const resumed = session.checkMessages(messages, { thinking });
  const lines = [];
  if (raw.length) {
    lines.push(`the journal's history as written breaks ${raw.length} rule(s); resume repairs them:`);
    for (const p of raw.slice(0, 20)) lines.push(`  message ${p.index}: ${p.kind}: ${p.message}`);
  }
  const dropped = Object.entries(report.thinkingDropped).filter(([, c]) => c > 0);
  if (dropped.length) lines.push(`resume drops thinking blocks: ${dropped.map(([r, c]) => `${r} ${c}`).join(", ")}`);
  if (resumed.length) {
    lines.push(`the resumed history would be refused (HTTP 400):`);
    for (const p of resumed) lines.push(`  message ${p.index}: ${p.kind}: ${p.message}`);
  } else {
    lines.push(`the resumed history (${messages.length} messages) is accepted`);
  }
  process.stdout.write(lines.join("\n") + "\n");
  return resumed.length > 0 ? 1 : 0;
}

module.exports = { help: HELP, run: check };
