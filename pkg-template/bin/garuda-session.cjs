#!/usr/bin/env node
// garuda-session: inspect Garuda journals from a terminal.
//   garuda-session replay <file> [--json]
// Exit codes: 0 ok, 1 problems found (warnings, a torn tail), 2 bad usage or
// unreadable input.
"use strict";

const fs = require("node:fs");
const session = require("../node/garuda_session.js");

const USAGE = "usage: garuda-session replay <file.jsonl> [--json]";

function fail(message) {
  process.stderr.write(`garuda-session: ${message}\n${USAGE}\n`);
  process.exit(2);
}

/** Replays a file in 4 MB chunks: a journal of any size, no whole-file string. */
function replayFile(file) {
  let fd;
  try {
    fd = fs.openSync(file, "r");
  } catch (e) {
    fail(`cannot read ${file}: ${e.code === "ENOENT" ? "no such file" : e.message}`);
  }
  const journal = new session.Journal();
  const buf = Buffer.alloc(4 << 20);
  let n;
  while ((n = fs.readSync(fd, buf, 0, buf.length, null)) > 0) journal.feed(buf.subarray(0, n));
  fs.closeSync(fd);
  journal.finish();
  const state = journal.state();
  journal.free();
  return state;
}

const n = (x) => x.toLocaleString("en-US");

function summary(file, state) {
  const u = state.usage;
  return {
    file,
    sessionId: state.sessionId ?? null,
    model: state.model ?? null,
    title: state.title ?? null,
    firstPrompt: state.firstPrompt ?? null,
    messages: state.messages.length,
    prompts: state.prompts,
    steps: state.steps,
    usage: u,
    unreportedTokens: state.unreportedTokens,
    pendingChildTokens: Object.values(state.childDebits).reduce((a, b) => a + b, 0),
    contextTokens: state.contextTokens,
    cost: session.formatCost(state),
    costUsd: state.costUsd,
    costIncomplete: state.costIncomplete,
    budgetNote: session.budgetNote(state),
    ended: state.ended ?? null,
    warnings: state.warnings,
    tornTail: state.tornTail,
  };
}

function printText(s) {
  const out = [];
  out.push(`${s.file}`);
  out.push(`  session   ${s.sessionId ?? "-"}  model ${s.model ?? "-"}${s.title ? `  title "${s.title}"` : ""}`);
  if (s.firstPrompt) out.push(`  prompt    ${s.firstPrompt.split("\n")[0].slice(0, 70)}`);
  out.push(`  messages  ${n(s.messages)} (${n(s.prompts)} prompts, ${n(s.steps)} steps)`);
  out.push(
    `  usage     ${n(s.usage.inputTokens)} input, ${n(s.usage.outputTokens)} output, ` +
      `${n(s.usage.cacheReadTokens)} cache read, ${n(s.usage.cacheWriteTokens)} cache write (reported)`,
  );
  out.push(`  context   ${n(s.contextTokens)} tokens`);
  out.push(`  cost      ${s.cost}`);
  if (s.budgetNote) out.push(`  ${s.budgetNote}`);
  if (s.ended) out.push(`  ended     ${JSON.stringify(s.ended.stopReason)} after ${s.ended.steps} steps`);
  for (const w of s.warnings) out.push(`  warning   line ${w.line}: ${w.kind}: ${w.message}`);
  if (s.tornTail) out.push("  torn tail: the last line was cut off mid-write and was ignored");
  process.stdout.write(out.join("\n") + "\n");
}

function main(argv) {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h") {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  if (command !== "replay") fail(`unknown command "${command}"`);
  const json = rest.includes("--json");
  const files = rest.filter((a) => a !== "--json");
  if (files.length !== 1) fail("replay takes exactly one file");
  const s = summary(files[0], replayFile(files[0]));
  if (json) process.stdout.write(JSON.stringify(s, null, 2) + "\n");
  else printText(s);
  return s.warnings.length > 0 || s.tornTail ? 1 : 0;
}

process.exitCode = main(process.argv.slice(2));
