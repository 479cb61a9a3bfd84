// `garuda-session replay <file>`: the summary of one session (messages, usage, cost, warnings).
"use strict";

const { parseArgs, REDIS, READ, maskPassword, stateOf, n, session } = require("../cli.cjs");

/** Warnings that describe a session read whole, not a line skipped. */
const DESCRIBES = new Set(["other-branch", "usage-unknown"]);

const HELP = `usage: garuda-session replay <file> [--json] [--format f] [--prices p.json] [--redis URL [--prefix p]]
  summary: messages, usage, cost, warnings (exit 1 when a line was skipped or read damaged, or the tail is torn)
Reads Garuda journals and Claude Code, Codex, pi and Gemini CLI sessions, detecting the
format; --format garuda|claude-code|codex|pi|gemini forces it.
--prices prices.json adds or replaces model prices ({"models": {"<model>": {"input", "output", ...}}}).
--redis URL [--prefix p]: a session on Redis (RedisSessionStore), its id where the file goes.`;

function summary(file, state) {
  return {
    file,
    format: state.format,
    sessionId: state.sessionId ?? null,
    model: state.model ?? null,
    title: state.title ?? null,
    firstPrompt: state.firstPrompt ?? null,
    messages: state.messages.length,
    prompts: state.prompts,
    steps: state.steps,
    usage: state.usage,
    unreportedTokens: state.unreportedTokens,
    pendingChildTokens: Object.values(state.childDebits).reduce((a, b) => a + b, 0),
    contextTokens: state.contextTokens,
    cost: session.formatCost(state),
    costUsd: state.costUsd,
    costIncomplete: state.costIncomplete,
    budgetNote: session.budgetNote(state),
    ended: state.ended ?? null,
    warnings: state.warnings,
    warningCounts: state.warningCounts,
    tornTail: state.tornTail,
  };
}

async function replay(args) {
  const o = parseArgs(args, { "--json": "json!", ...REDIS, ...READ });
  const file = o.redis === undefined ? o._[0] : `${maskPassword(o.redis)} ${o._[0]}`;
  const s = summary(file, await stateOf(o));
  if (o.json) {
    process.stdout.write(JSON.stringify(s, null, 2) + "\n");
  } else {
    const out = [`${s.file}`];
    out.push(`  session   ${s.sessionId ?? "-"}  model ${s.model ?? "-"}${s.title ? `  title "${s.title}"` : ""}${s.format !== "garuda" ? `  (${s.format})` : ""}`);
    if (s.firstPrompt) out.push(`  prompt    ${s.firstPrompt.trim().split("\n")[0].slice(0, 70)}`);
    out.push(`  messages  ${n(s.messages)} (${n(s.prompts)} prompts, ${n(s.steps)} steps)`);
    out.push(
      `  usage     ${n(s.usage.inputTokens)} input, ${n(s.usage.outputTokens)} output, ` +
        `${n(s.usage.cacheReadTokens)} cache read, ${n(s.usage.cacheWriteTokens)} cache write (reported)`,
    );
    out.push(`  context   ${n(s.contextTokens)} token${s.contextTokens === 1 ? "" : "s"}`);
    out.push(`  cost      ${s.cost}`);
    if (s.budgetNote) out.push(`  ${s.budgetNote}`);
    if (s.ended) out.push(`  ended     ${JSON.stringify(s.ended.stopReason)} after ${s.ended.steps} steps`);
    for (const w of s.warnings) out.push(`  warning   line ${w.line}: ${w.kind}: ${w.message}`);
    // Past the first 100 of a kind, warnings are only counted (memory by kind, not by line).
    for (const [kind, count] of Object.entries(s.warningCounts ?? {})) {
      const listed = s.warnings.filter((w) => w.kind === kind).length;
      if (count > listed) out.push(`  warning   ${n(count - listed)} more ${kind} (${n(count)} in all; the first ${listed} are listed)`);
    }
    if (s.tornTail) out.push("  torn tail: the last line was cut off mid-write and was ignored");
    process.stdout.write(out.join("\n") + "\n");
  }
  // Exit 1 when a line was skipped or read damaged (not-utf8: bytes read as
  // U+FFFD) or the tail is torn, as the help says:
  // not for what only describes a session (another agent's other branches,
  // a rewind in Claude Code; usage it never recorded), which every line of
  // it was read for.
  const skipped = s.warnings.filter((w) => !DESCRIBES.has(w.kind));
  return skipped.length > 0 || s.tornTail ? 1 : 0;
}

module.exports = { help: HELP, run: replay };
