#!/usr/bin/env node
// garuda-session: inspect Garuda journals from a terminal.
// Exit codes: 0 ok; 1 problems found; 2 bad usage or unreadable input.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const util = require("node:util");
const http = require("node:http");
const session = require("../node/garuda_session.js");
const { FileSessionStore, lockHeld, takeSessionLock, releaseSessionLock } = require("../node/store.js");
// Built from web-demo/export.js (the viewer's renderer, bundled): .ci/build.
const { transcriptMarkdown, transcriptHtml, folderIndexHtml } = require("./transcript.cjs");
const { imageWriter } = require("./export-files.cjs");
const usageReport = require("./usage.cjs");
const { walkSessions } = require("./folders.cjs");

const USAGE = `usage: garuda-session <command> ...
  replay <file> [--json]                      summary: messages, usage, cost, warnings
  usage [paths...] [--by session|day|month|model] [--since YYYY-MM-DD] [--until YYYY-MM-DD] [--json]
                                              tokens and cost of every session under the paths
                                              (default: the folders of Claude Code, Codex, pi, Gemini CLI and Garuda)
  import <file> -o <out.jsonl>                another agent's session as a Garuda journal (redacted)
  redact <file> [-o out | --in-place] [--rules rules.json]   a redacted copy, with counts per rule
  resume <file> [--model m] [--thinking on|off]   resume messages (stdout), repair report (stderr)
  check <file> [--model m] [--thinking on|off] [--strict]
                                                  exit 1 when the API would refuse the history
                                                  (--strict: or when a line is malformed or unknown)
  list <dir>                                  the /sessions table of a sessions folder
  export <file> --format md|html [-o out] [--rules rules.json] [--live] [--no-redact]
                                              the whole transcript, readable and redacted
  export <folder> --format md|html -o <out folder>
                                              every session of a folder, a file each
                                              (--live: only what the model sees now)
  serve <dir> [--port n] [--no-redact]        browse a sessions folder on http://127.0.0.1 (journals served redacted)
  doctor <file|folder> [--fix -o out | --in-place] [--redact] [--json]
                                              why a session will not resume (exit 1), each problem with its line;
                                              --fix writes a repaired copy in the agent's own format
Every command reads Garuda journals and Claude Code, Codex, pi and Gemini CLI sessions,
detecting the format; --format garuda|claude-code|codex|pi|gemini forces it (export: --from).
--prices prices.json adds or replaces model prices ({"models": {"<model>": {"input", "output", ...}}}).
Sessions on Redis (RedisSessionStore): give --redis URL [--prefix p] to replay, list, usage,
export and serve, with a session id where a file goes (list and serve take no folder).`;

class UsageError extends Error {}

const CHUNK = 4 << 20;
const PROGRESS_OVER = 10e6;

/** A progress bar on stderr, for big inputs on a terminal only. */
function progress(label, total) {
  if (!process.stderr.isTTY || total < PROGRESS_OVER) return { tick() {}, done() {} };
  let shown = -1;
  return {
    tick(done) {
      const pct = Math.floor((done / total) * 100);
      if (pct === shown) return;
      shown = pct;
      const bar = "#".repeat(Math.floor(pct / 4)).padEnd(25, ".");
      process.stderr.write(`\r${label} [${bar}] ${pct}% of ${(total / 1e6).toFixed(0)} MB`);
    },
    done() {
      process.stderr.write("\r\x1b[K");
    },
  };
}

function openInput(file) {
  if (file === undefined) throw new UsageError("give a journal file");
  try {
    const fd = fs.openSync(file, "r");
    return { fd, size: fs.fstatSync(fd).size };
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${e.code === "ENOENT" ? "no such file" : e.message}`);
  }
}

/**
 * Calls `each(buffer)` for successive chunks of a file, up to its size when
 * it was opened: a file that grows while it is read (a writer appending) is
 * read to there, not on and on (replay read 8 GB of one that way).
 */
function readChunks(file, label, each) {
  const { fd, size } = openInput(file);
  const bar = progress(label, size);
  const buf = Buffer.alloc(CHUNK);
  let n;
  let done = 0;
  try {
    while (done < size && (n = fs.readSync(fd, buf, 0, Math.min(buf.length, size - done), done)) > 0) {
      each(buf.subarray(0, n));
      done += n;
      bar.tick(done);
    }
  } finally {
    fs.closeSync(fd);
    bar.done();
  }
}

const FORMATS = ["garuda", "claude-code", "codex", "pi", "gemini"];

/** `{ format, prices }` for the core, from --format (or --from) and --prices. */
function readOptions(o, formatOption = "format") {
  const options = {};
  const format = o[formatOption];
  if (format !== undefined) {
    if (!FORMATS.includes(format)) throw new UsageError(`--${formatOption} takes ${FORMATS.join(", ")}`);
    options.format = format;
  }
  if (o.prices !== undefined) {
    try {
      options.prices = JSON.parse(fs.readFileSync(o.prices, "utf8"));
    } catch (e) {
      throw new UsageError(`--prices ${o.prices}: ${e.code === "ENOENT" ? "no such file" : e.message}`);
    }
  }
  return options;
}

/** A journal file read in chunks (any size, never one big string) into a Journal. */
function journalOf(file, options = {}) {
  let journal;
  try {
    journal = new session.Journal(options);
  } catch (e) {
    throw new UsageError(e.message.replace(/^new Journal\(options\): options\./, "--"));
  }
  readChunks(file, "replay", (chunk) => journal.feed(chunk));
  journal.finish();
  return journal;
}

/** The replayed state of a journal file. */
function replayFile(file, options = {}) {
  const journal = journalOf(file, options);
  const state = journal.state();
  journal.free();
  return state;
}

/** A state read from a file that held no known format: a refusal, not figures. */
function known(state, file) {
  if (state.format === null) {
    throw new UsageError(`${file}: no known session format (tried ${FORMATS.join(", ")})`);
  }
  return state;
}

/** A URL with its password (if any) shown as ***, for banners and messages. */
function maskPassword(url) {
  try {
    const u = new URL(url);
    if (!u.password) return url;
    u.password = "***";
    return u.href;
  } catch {
    return String(url).replace(/(\/\/[^/:@]*:)[^/@]*@/, "$1***@");
  }
}

/** The Redis store of --redis URL [--prefix p] (the `redis` package is the host's: an optional peer dependency). */
function redisStore(o) {
  const { RedisSessionStore } = require("../node/redis.js");
  try {
    return new RedisSessionStore({ url: o.redis, prefix: o.prefix, timeoutMs: 10000 });
  } catch (e) {
    throw new UsageError(e.message);
  }
}

/** Runs `f(store)` on the --redis store and closes it after; a missing session is a usage error. */
async function withRedis(o, f) {
  const store = redisStore(o);
  try {
    return await f(store);
  } catch (e) {
    if (e.code === "ERR_NO_SESSION" || e.code === "ERR_BAD_SESSION_ID") throw new UsageError(e.message);
    throw e;
  } finally {
    store.close();
  }
}

const REDIS = { "--redis": "redis", "--prefix": "prefix" };
const READ = { "--format": "format", "--prices": "prices" };

/** The replayed state of a journal file, or (--redis) of a session id. */
async function stateOf(o, formatOption = "format") {
  if (o.redis === undefined) return known(replayFile(o._[0], readOptions(o, formatOption)), o._[0]);
  if (o._[0] === undefined) throw new UsageError("give a session id");
  return withRedis(o, (store) => store.replay(o._[0]));
}

/**
 * A command's arguments, read by node:util's parseArgs from a table of its
 * options: `{ "--json": "json!", "-o": "out" }` (a `!` marks a flag; the
 * rest take a value). Mistakes are usage errors, said in one line.
 */
function parseArgs(args, spec) {
  const options = {};
  const names = {};
  for (const [flag, name] of Object.entries(spec)) {
    const long = flag.startsWith("--") ? flag.slice(2) : name.replace(/!$/, "");
    options[long] = { type: name.endsWith("!") ? "boolean" : "string", ...(flag.startsWith("--") ? {} : { short: flag.slice(1) }) };
    names[long] = name.replace(/!$/, "");
  }
  let parsed;
  try {
    parsed = util.parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    // Node's wording, cut to what was wrong ("Unknown option '--x'. To
    // specify a positional argument...").
    throw new UsageError(e.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? e.message.split(". ")[0] : e.message.split("\n")[0]);
  }
  const out = { _: parsed.positionals };
  for (const [long, value] of Object.entries(parsed.values)) out[names[long]] = value;
  return out;
}

const n = (x) => Number(x).toLocaleString("en-US");

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
    out.push(`  context   ${n(s.contextTokens)} tokens`);
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
  return s.warnings.length > 0 || s.tornTail ? 1 : 0;
}

/**
 * A Redactor over this process's environment and, with --rules, the user's
 * own token formats: a JSON file `[{ "name", "pattern" }]` (or `{ "rules":
 * [...] }`), patterns in regex-lite syntax.
 */
function redactorFor(o) {
  let rules = [];
  if (o.rules !== undefined) {
    let parsed;
    try {
      parsed = JSON.parse(fs.readFileSync(o.rules, "utf8"));
    } catch (e) {
      throw new UsageError(`--rules ${o.rules}: ${e.code === "ENOENT" ? "no such file" : e.message}`);
    }
    rules = Array.isArray(parsed) ? parsed : parsed?.rules;
    if (!Array.isArray(rules)) throw new UsageError(`--rules ${o.rules}: give an array of { "name", "pattern" }`);
  }
  try {
    return new session.Redactor({ env: process.env, rules });
  } catch (e) {
    throw new UsageError(`--rules ${o.rules}: ${e.message.replace(/^new Redactor\(options\): /, "")}`);
  }
}

function redact(args) {
  const o = parseArgs(args, { "-o": "out", "--in-place": "inPlace!", "--rules": "rules" });
  const file = o._[0];
  openInput(file);
  if (o.inPlace && o.out) throw new UsageError("give -o or --in-place, not both");
  const target = o.inPlace ? `${file}.redacting-${process.pid}` : o.out;
  if (target === undefined) throw new UsageError("give -o <out> (or --in-place to replace the file)");
  if (!o.inPlace && path.resolve(target) === path.resolve(file)) throw new UsageError("-o is the input file: use --in-place");
  const redactor = redactorFor(o);
  // In place, the session's writer must not be appending meanwhile.
  const lock = o.inPlace ? takeRedactLock(file) : null;
  const totals = { lines: 0, changed: 0, notRecords: 0, rules: {} };
  let out;
  try {
    out = fs.openSync(target, "w", 0o600);
    redactBytes(file, redactor, totals, (bytes) => {
      for (let at = 0; at < bytes.length; ) at += fs.writeSync(out, bytes, at, bytes.length - at);
    });
    if (o.inPlace) fs.fsyncSync(out);
    fs.closeSync(out);
    out = undefined;
    // Atomic: readers see the old file or the new one, never half of one.
    if (o.inPlace) fs.renameSync(target, file);
  } catch (e) {
    if (out !== undefined) fs.closeSync(out);
    if (o.inPlace) fs.rmSync(target, { force: true });
    throw e;
  } finally {
    if (lock) releaseSessionLock(lock);
  }
  const rules = Object.entries(totals.rules).map(([r, c]) => `${r} ${c}`).join(", ") || "none";
  process.stderr.write(
    `${o.inPlace ? file : target}: ${n(totals.changed)} of ${n(totals.lines)} lines changed; removed: ${rules}` +
      (totals.notRecords ? `; ${totals.notRecords} lines were not records (redacted as text)` : "") +
      "\n",
  );
  return 0;
}

/**
 * `<id>.lock` beside `<id>.jsonl`, taken as the file store takes it (its
 * own `takeSessionLock`: written whole, then linked into place; a live
 * writer's lock refuses with ERR_SESSION_LOCKED, a dead one's is taken
 * over). Returns the lock's path.
 */
function takeRedactLock(file) {
  const lock = file.replace(/\.jsonl$/, "") + ".lock";
  try {
    takeSessionLock(lock);
  } catch (e) {
    if (e.code !== "ERR_SESSION_LOCKED") throw e;
    const err = new Error(`ERR_SESSION_LOCKED: ${file} is open for writing (${lock}); redact it when its writer has closed it`);
    err.code = "ERR_SESSION_LOCKED";
    throw err;
  }
  return lock;
}

/**
 * Redacts a file's bytes line by line and hands the output's bytes to
 * `write`: a byte the Redactor does not redact comes out as it went in.
 * Lines split at `\n` bytes (never inside a UTF-8 sequence); valid UTF-8
 * goes through redactJournal, and a line that is not valid UTF-8 keeps its
 * invalid bytes and has each valid run between them redacted as text.
 */
function redactBytes(file, redactor, totals, write) {
  const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const add = (r) => {
    totals.lines += r.lines;
    totals.changed += r.changed;
    totals.notRecords += r.notRecords;
    for (const [rule, count] of Object.entries(r.rules)) totals.rules[rule] = (totals.rules[rule] ?? 0) + count;
  };
  const lines = (bytes) => {
    let text;
    try {
      text = strict.decode(bytes);
    } catch {
      text = null;
    }
    if (text !== null) {
      const r = redactor.redactJournal(text);
      add(r);
      write(r.changed ? Buffer.from(r.text, "utf8") : bytes);
      return;
    }
    // Some line is not UTF-8: line by line, so the others go whole.
    let at = 0;
    while (at < bytes.length) {
      const nl = bytes.indexOf(0x0a, at);
      const end = nl < 0 ? bytes.length : nl + 1;
      const line = bytes.subarray(at, end);
      let ok = true;
      try {
        strict.decode(line);
      } catch {
        ok = false;
      }
      if (ok) lines(line);
      else write(redactInvalidLine(line, redactor, totals));
      at = end;
    }
  };
  let pending = Buffer.alloc(0);
  readChunks(file, "redact", (chunk) => {
    const data = pending.length ? Buffer.concat([pending, chunk]) : Buffer.from(chunk);
    const cut = data.lastIndexOf(0x0a) + 1;
    if (cut > 0) lines(data.subarray(0, cut));
    pending = data.subarray(cut);
  });
  if (pending.length) lines(pending);
}

/** The length of the valid UTF-8 sequence at `i`, or 0 when the byte there starts none. */
function utf8Length(b, i) {
  const c = b[i];
  if (c < 0x80) return 1;
  const cont = (k, lo = 0x80, hi = 0xbf) => i + k < b.length && b[i + k] >= lo && b[i + k] <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c >= 0xe0 && c <= 0xef) {
    const lo = c === 0xe0 ? 0xa0 : 0x80;
    const hi = c === 0xed ? 0x9f : 0xbf;
    return cont(1, lo, hi) && cont(2) ? 3 : 0;
  }
  if (c >= 0xf0 && c <= 0xf4) {
    const lo = c === 0xf0 ? 0x90 : 0x80;
    const hi = c === 0xf4 ? 0x8f : 0xbf;
    return cont(1, lo, hi) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

/** A line with invalid UTF-8: not a record (JSON is UTF-8); each valid run is redacted as text, the invalid bytes stay. */
function redactInvalidLine(line, redactor, totals) {
  const parts = [];
  let changed = false;
  let run = 0;
  const flush = (end) => {
    if (end <= run) return;
    const piece = line.subarray(run, end);
    const r = redactor.redactJournal(piece.toString("utf8"));
    for (const [rule, count] of Object.entries(r.rules)) totals.rules[rule] = (totals.rules[rule] ?? 0) + count;
    if (r.changed) changed = true;
    parts.push(r.changed ? Buffer.from(r.text, "utf8") : piece);
  };
  let i = 0;
  while (i < line.length) {
    const len = utf8Length(line, i);
    if (len > 0) {
      i += len;
      continue;
    }
    flush(i);
    parts.push(line.subarray(i, i + 1));
    i += 1;
    run = i;
  }
  flush(line.length);
  totals.lines += 1;
  totals.notRecords += 1;
  if (changed) totals.changed += 1;
  return Buffer.concat(parts);
}

function resumeOptions(o, state) {
  const options = { model: o.model ?? state.model };
  if (o.thinking !== undefined) {
    if (o.thinking !== "on" && o.thinking !== "off") throw new UsageError("--thinking takes on or off");
    options.thinking = o.thinking === "on";
  } else if (state.thinking === "off") {
    options.thinking = false;
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
  const thinking = options.thinking === true;
  const raw = session.checkMessages(state.messages, { thinking });
  const { messages, report } = session.repairForResume(state, options);
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

/** A journal given as text, read with its whole history, for its transcript. */
function journalOfText(text) {
  const journal = new session.Journal({ history: true });
  journal.feed(text);
  journal.finish();
  return journal;
}

/** The transcript of a journal (read with `history: true`), then frees it. */
function exportTranscript(journal, format, o = {}) {
  try {
    // Redacted unless --no-redact: an export is a file that leaves the machine.
    const redactor = o.noRedact ? null : redactorFor(o);
    const redact = redactor ? (text) => redactor.redact(text) : (text) => text;
    const f = journal.figures();
    const info = { title: f.title ?? f.firstPrompt, sessionId: f.sessionId, model: f.model, cost: session.formatCost(f), budgetNote: session.budgetNote(f) };
    return (format === "md" ? transcriptMarkdown : transcriptHtml)(journal, info, redact, { live: o.live === true, childHref: o.childHref, image: o.image });
  } finally {
    journal.free();
  }
}

async function exportCommand(args) {
  const o = parseArgs(args, { "--format": "format", "-o": "out", "--rules": "rules", "--from": "from", "--prices": "prices", "--live": "live!", "--no-redact": "noRedact!", ...REDIS });
  if (o.format !== "md" && o.format !== "html") throw new UsageError("--format takes md or html");
  // The whole transcript (compacted and undone turns marked), or with --live what the model sees now.
  let journal;
  if (o.redis !== undefined) {
    if (o._[0] === undefined) throw new UsageError("give a session id");
    journal = journalOfText(await withRedis(o, (store) => store.text(o._[0])));
  } else {
    if (o._[0] === undefined) throw new UsageError("give a session file");
    if (fs.existsSync(o._[0]) && fs.statSync(o._[0]).isDirectory()) return exportFolder(o);
    journal = journalOf(o._[0], { ...readOptions(o, "from"), history: true });
    if (journal.format === null) {
      journal.free();
      known({ format: null }, o._[0]);
    }
  }
  // Markdown written to a file keeps its images as files beside it.
  const text = exportTranscript(journal, o.format, o.out && o.format === "md" ? { ...o, image: imageWriter(o.out) } : o);
  if (o.out) fs.writeFileSync(o.out, text, { mode: 0o600 });
  else process.stdout.write(text);
  return 0;
}

/**
 * `export <folder> --format html -o <out folder>`: every session of the
 * folder (any agent's layout, child runs included) to a file of its own,
 * at the same relative path. Files in no known format are skipped.
 */
function exportFolder(o) {
  if (!o.out) throw new UsageError("exporting a folder needs -o <output folder>");
  const top = walkSessions(o._[0]);
  const sessions = top.flatMap((s) => [s, ...s.children]);
  const outRel = (s) => s.rel.replace(/\.jsonl?$/, `.${o.format}`);
  // A call's subagent run links the run's page: by the run's id, or the id the call names (`agent-<id>`, `…-<toolUseId>`).
  const childrenOf = new Map(top.map((s) => [s, s.children]));
  const redactor = o.noRedact ? null : redactorFor(o);
  const rows = [];
  let written = 0;
  let skipped = 0;
  for (const s of sessions) {
    const journal = journalOf(s.file, { ...readOptions(o, "from"), history: true });
    if (journal.format === null) {
      journal.free();
      skipped++;
      continue;
    }
    const target = path.join(o.out, outRel(s));
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    const kids = childrenOf.get(s) ?? [];
    const childHref = (child) => {
      const c = kids.find((k) => k.id === child || k.id === `agent-${child}` || k.id.endsWith(`-${child}`));
      return c ? path.relative(path.dirname(outRel(s)), outRel(c)).split(path.sep).join("/") : null;
    };
    if (childrenOf.has(s)) {
      const f = journal.figures();
      const r = (t) => (t == null ? t : redactor ? redactor.redact(String(t)) : String(t));
      rows.push({ href: outRel(s), title: r(f.title ?? f.firstPrompt ?? s.id), format: f.format, model: r(f.model), date: f.usageByDay.map((d) => d.day).filter(Boolean).sort().at(-1) ?? "", cost: session.formatCost(f), children: kids.map((c) => ({ id: c.id, href: outRel(c) })) });
    }
    const image = o.format === "md" ? imageWriter(target) : undefined;
    fs.writeFileSync(target, exportTranscript(journal, o.format, { ...o, childHref, image }), { mode: 0o600 });
    written++;
  }
  // The sessions index as a static page beside them.
  fs.writeFileSync(path.join(o.out, "index.html"), folderIndexHtml(rows, path.basename(path.resolve(o._[0]))), { mode: 0o600 });
  process.stdout.write(`${written} sessions written to ${o.out}${skipped ? ` (${skipped} files in no known format skipped)` : ""}\n`);
  return 0;
}

const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm", ".json": "application/json", ".jsonl": "text/plain; charset=utf-8" };

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
    rows.push({ ...row, project: s.project, file: enc(s.rel), children: s.children.map((c) => ({ id: c.id, file: enc(c.rel) })) });
  }
  return rows.sort((a, b) => (a.updated < b.updated ? 1 : a.updated > b.updated ? -1 : a.id < b.id ? 1 : -1));
}

/** The sessions of a folder as the viewer's index: ids, files, children. */
function sessionIndex(dir) {
  return { sessions: folderRows(dir) };
}

/** A path under the served folder from URL segments, or null: plain names only (no "..", no separators). */
function underDir(dir, encoded) {
  let parts;
  try {
    parts = encoded.split("/").map(decodeURIComponent);
  } catch {
    return null;
  }
  if (parts.length === 0 || !parts.every((p) => /^[A-Za-z0-9._-]+$/.test(p) && p !== "." && p !== "..")) return null;
  // Nothing is served through a link (`passwd.jsonl -> /etc/passwd`): every
  // step under the folder is checked with lstat (and the file opened with
  // O_NOFOLLOW). A step that is not there is left to the caller's 404.
  for (let i = 1; i <= parts.length; i++) {
    let st;
    try {
      st = fs.lstatSync(path.join(dir, ...parts.slice(0, i)));
    } catch {
      break;
    }
    if (st.isSymbolicLink()) return null;
  }
  return path.join(dir, ...parts);
}

/** The sessions on Redis as the viewer's index, as sessionIndex gives a folder's. */
async function redisIndex(store) {
  const sessions = [];
  for (const row of await store.summaries()) {
    const children = (await store.children(row.id)).map((c) => ({ id: c, file: `${encodeURIComponent(row.id)}/${encodeURIComponent(c)}.jsonl` }));
    sessions.push({ ...row, file: `${encodeURIComponent(row.id)}.jsonl`, children });
  }
  return { sessions };
}

/** A session (or child run) from Redis: written through the Redactor already, passed through it again unless --no-redact (it is idempotent). */
async function sendRedisJournal(res, store, ids, noRedact) {
  const text = await store.text(ids[0], ids[1]);
  let body = text;
  if (!noRedact) {
    const redactor = new session.Redactor({ env: process.env });
    body = redactor.redactJournal(text).text;
    redactor.free();
  }
  res.writeHead(200, { ...SECURITY_HEADERS, "content-type": TYPES[".jsonl"] });
  res.end(body);
}

/**
 * A journal streamed through the Redactor, 4 MB at a time, whole lines per
 * call: a journal of any size, never one big string. Journals written by
 * Garuda were redacted already (redaction is idempotent, so this changes
 * nothing there); a hand-edited one, an old one or another agent's is not.
 */
function sendRedacted(res, file, type, start = 0, end = Infinity, headers = {}) {
  const redactor = new session.Redactor({ env: process.env });
  res.writeHead(200, { ...SECURITY_HEADERS, "content-type": type, ...headers });
  let rest = Buffer.alloc(0);
  readRange(file, start, end, (chunk) => {
    const bytes = rest.length ? Buffer.concat([rest, chunk]) : chunk;
    const cut = bytes.lastIndexOf(10) + 1;
    if (cut > 0) res.write(redactor.redactJournal(bytes.subarray(0, cut)).text);
    rest = Buffer.from(bytes.subarray(cut));
  });
  if (rest.length) res.write(redactor.redactJournal(rest).text);
  redactor.free();
  res.end();
}

/** Bytes `start..end` of a file, in chunks. */
function readRange(file, start, end, each) {
  const fd = fs.openSync(file, "r");
  const buf = Buffer.alloc(CHUNK);
  try {
    for (let at = start, n; at < end && (n = fs.readSync(fd, buf, 0, Math.min(buf.length, end - at), at)) > 0; at += n) each(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Whether a session file's writer still runs: for Garuda's journals, its
 * lock beside it is held by a live process (the store holds it while the
 * session is open); another agent's file, which has no lock, counts as
 * written while it changed in the last 10 seconds.
 */
function writerOf(file, garuda) {
  const lock = file.replace(/\.jsonl?$/, ".lock");
  if (garuda || fs.existsSync(lock)) return lockHeld(lock) ? "live" : "gone";
  try {
    return Date.now() - fs.statSync(file).mtimeMs < 10000 ? "live" : "gone";
  } catch {
    return "gone";
  }
}

const GARUDA_TYPES = new Set(["start", "resume", "model", "user", "assistant", "tool_results", "compaction", "snapshot", "undo", "redo", "title", "thinking", "continue", "unreported", "child_debit", "side_usage", "end"]);

/**
 * Whether a file's first record is one of Garuda's (spec §2): such a journal
 * passed the Redactor when it was written, and is served as it is. Anything
 * else (another agent's transcript, a file of unknown origin) is served
 * redacted.
 */
function writtenByGaruda(file) {
  const fd = fs.openSync(file, "r");
  try {
    const buf = Buffer.alloc(64 << 10);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    const first = buf.subarray(0, n).toString("utf8").split("\n").find((l) => l.trim() !== "");
    return first !== undefined && GARUDA_TYPES.has(JSON.parse(first)?.type);
  } catch {
    return false;
  } finally {
    fs.closeSync(fd);
  }
}

const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "cross-origin-resource-policy": "same-origin",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

/**
 * The viewer for a sessions folder on 127.0.0.1: its own files, the folder's
 * journals, nothing else, and the journals only for whoever holds the token
 * it printed. The token is in the printed URL's fragment, which no request
 * carries; the viewer keeps it in sessionStorage (per origin, so per port)
 * and sends it as the x-garuda-token header. No cookie: browsers scope
 * cookies by host, not port, so any other server on 127.0.0.1 received it.
 * Another web page cannot read it: a DNS-rebinding name fails the Host
 * check, a cross-site request cannot send the header without a preflight
 * (OPTIONS is refused), no CORS header lets a response out, and only GET
 * and HEAD are answered. The viewer's own files hold no data and are
 * answered without the token (the page must load to read its fragment).
 */
function serve(args) {
  const o = parseArgs(args, { "--port": "port", "--no-redact": "noRedact!", ...REDIS });
  const dir = o._[0];
  const redis = o.redis === undefined ? null : redisStore(o);
  if (!redis && (dir === undefined || !fs.existsSync(dir) || !fs.statSync(dir).isDirectory())) throw new UsageError("give a sessions folder");
  const pkg = path.join(__dirname, "..");
  const token = require("node:crypto").randomBytes(24).toString("base64url");
  const tokenBytes = Buffer.from(token);
  const holdsToken = (value) => {
    const b = Buffer.from(String(value ?? ""));
    return b.length === tokenBytes.length && require("node:crypto").timingSafeEqual(b, tokenBytes);
  };
  let hosts = new Set();
  const server = http.createServer(async (req, res) => {
    const send = (status, type, body, extra = {}) => {
      res.writeHead(status, { ...SECURITY_HEADERS, "content-type": type, ...extra });
      res.end(body);
    };
    if (req.method !== "GET" && req.method !== "HEAD") return send(405, "text/plain", "only GET and HEAD\n", { allow: "GET, HEAD" });
    if (!hosts.has(String(req.headers.host ?? "").toLowerCase())) return send(403, "text/plain", "this server answers only its own origin\n");
    const url = new URL(req.url, "http://127.0.0.1");
    const viewerFile = url.pathname === "/" || /^\/(viewer|web)\//.test(url.pathname);
    if (!viewerFile && !holdsToken(req.headers["x-garuda-token"])) {
      return send(401, "text/plain", "open the URL that serve printed: its #token=… is sent as the x-garuda-token header\n");
    }
    const file = (p) => send(200, TYPES[path.extname(p)] ?? "application/octet-stream", fs.readFileSync(p));
    // A journal from byte `?from=` on (what a viewer following it has not
    // read yet), streamed, saying where the file ended and whether its
    // writer still runs.
    const journalFile = (p) => {
      const fd = fs.openSync(p, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
      let size0;
      try {
        size0 = fs.fstatSync(fd).size;
      } catch (e) {
        fs.closeSync(fd);
        throw e;
      }
      // `?to=`: up to that byte (a viewer reading one line again).
      const size = url.searchParams.has("to") ? Math.min(size0, Math.max(0, Number(url.searchParams.get("to")) || 0)) : size0;
      const start = Math.min(size, Math.max(0, Number(url.searchParams.get("from")) || 0));
      const garuda = writtenByGaruda(p);
      const headers = { "x-garuda-end": String(size0), "x-garuda-writer": writerOf(p, garuda) };
      if (!o.noRedact && !garuda) {
        fs.closeSync(fd);
        return sendRedacted(res, p, TYPES[".jsonl"], start, size, headers);
      }
      res.writeHead(200, { ...SECURITY_HEADERS, "content-type": TYPES[".jsonl"], "content-length": String(size - start), ...headers });
      if (req.method === "HEAD" || size === start) {
        fs.closeSync(fd);
        return res.end();
      }
      // 1 MB reads: the default 64 KB made streaming a 100 MB journal cost
      // the server about a quarter of a second of CPU, taken from the
      // browser reading it on the same machine.
      fs.createReadStream(null, { fd, start, end: size - 1, highWaterMark: 1 << 20 }).pipe(res);
    };
    try {
      if (url.pathname === "/") return send(302, "text/plain", "", { location: "/viewer/?dir=/files/index.json" });
      const asset = /^\/(viewer|web)\/([\w.-]*)$/.exec(url.pathname);
      if (asset) {
        const p = path.join(pkg, asset[1], asset[2] || "index.html");
        return fs.existsSync(p) ? file(p) : send(404, "text/plain", "not found");
      }
      if (url.pathname === "/files/index.json") return send(200, TYPES[".json"], JSON.stringify(redis ? await redisIndex(redis) : sessionIndex(dir)));
      const journal = /^\/files\/(.+\.jsonl?)$/.exec(url.pathname);
      if (journal) {
        if (redis) {
          const ids = journal[1].replace(/\.jsonl$/, "").split("/").map(decodeURIComponent);
          if (ids.length > 2 || !ids.every((id) => session.validateSessionId(id))) return send(400, "text/plain", "not a session id");
          return sendRedisJournal(res, redis, ids, o.noRedact);
        }
        const p = underDir(dir, journal[1]);
        if (!p) return send(400, "text/plain", "not a session file");
        return fs.existsSync(p) && fs.statSync(p).isFile() ? journalFile(p) : send(404, "text/plain", "no such session");
      }
      const m = /^\/session\/(.+)$/.exec(url.pathname);
      if (m) {
        if (redis) {
          const id = decodeURIComponent(m[1]);
          if (!session.validateSessionId(id)) return send(400, "text/plain", "not a session id");
          return send(200, "text/html; charset=utf-8", exportTranscript(journalOfText(await redis.text(id)), "html", { noRedact: o.noRedact }));
        }
        // A session id at the top of the folder, or a session file's path under it.
        const rel = /\.jsonl?$/.test(m[1]) ? m[1] : `${m[1]}.jsonl`;
        const p = underDir(dir, rel);
        if (!p) return send(400, "text/plain", "not a session id");
        if (!fs.existsSync(p)) return send(404, "text/plain", "no such session");
        return send(200, "text/html; charset=utf-8", exportTranscript(journalOf(p, { history: true }), "html", { noRedact: o.noRedact }));
      }
      send(404, "text/plain", "not found");
    } catch (e) {
      if (res.headersSent) return res.destroy();
      if (e.code === "ERR_NO_SESSION") return send(404, "text/plain", "no such session");
      send(500, "text/plain", String(e.message));
    }
  });
  server.listen(o.port ? Number(o.port) : 0, "127.0.0.1", () => {
    const port = server.address().port;
    hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
    const where = redis ? `${maskPassword(o.redis)} (Redis)` : dir;
    process.stdout.write(`viewer for ${where} on http://127.0.0.1:${port}/viewer/?dir=/files/index.json#token=${token} (Ctrl-C to stop)\n`);
  });
  return null;
}

/**
 * `usage [paths…]`: every session under the paths (files or folders, any
 * format; default: each agent's own folder), or on Redis with --redis.
 */
async function usageCommand(args) {
  const o = parseArgs(args, { "--by": "by", "--since": "since", "--until": "until", "--json": "json!", ...READ, ...REDIS });
  const by = o.by ?? "session";
  if (!["session", "day", "month", "model"].includes(by)) throw new UsageError("--by takes session, day, month or model");
  for (const k of ["since", "until"]) {
    if (o[k] !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(o[k])) throw new UsageError(`--${k} takes a date as YYYY-MM-DD`);
  }
  const options = readOptions(o);
  const states = [];
  if (o.redis !== undefined) {
    await withRedis(o, async (store) => {
      for (const { id } of await store.list()) states.push({ id, file: `${maskPassword(o.redis)} ${id}`, state: session.rebuildState(await store.text(id), options) });
    });
  } else {
    const roots = o._.length > 0 ? o._ : usageReport.defaultFolders();
    if (roots.length === 0) throw new UsageError("no path given, and none of the agents' folders exists (~/.claude/projects, ~/.codex/sessions, ~/.pi/agent/sessions, ~/.gemini/tmp, .garuda/sessions)");
    const files = roots.flatMap((r) => {
      if (!fs.existsSync(r)) throw new UsageError(`${r}: no such file or folder`);
      return usageReport.sessionFiles(r);
    });
    const total = files.reduce((a, f) => a + f.size, 0);
    const bar = progress("usage", total);
    const read = await replayAll(files, options, (done) => bar.tick(done));
    bar.done();
    files.forEach((f, i) => {
      const state = read[i];
      if (state.error) throw new Error(`${f.file}: ${state.error}`);
      if (f.named) known(state, f.file);
      if (state.format === null) return; // a folder's other files
      states.push({ id: path.basename(f.file).replace(/\.jsonl?$/, ""), file: f.file, state, parent: f.parent });
    });
  }
  const r = usageReport.report(states, { by, since: o.since, until: o.until });
  process.stdout.write(o.json ? JSON.stringify(r, null, 2) + "\n" : usageReport.table(r, by));
  return 0;
}

/**
 * The usage figures of every file: on two threads when there is enough to
 * read (each with its own wasm instance), else here. Files are dealt by
 * size, largest first, to the thread with less to do.
 */
async function replayAll(files, options, tick) {
  const total = files.reduce((a, f) => a + f.size, 0);
  const threads = Math.min(2, require("node:os").availableParallelism?.() ?? 2);
  if (threads < 2 || total < 32e6 || files.length < 2) {
    let done = 0;
    const buf = Buffer.allocUnsafe(CHUNK);
    return files.map((f) => {
      const read = usageReport.usageOf(session, f.file, options, buf);
      tick((done += f.size));
      return read;
    });
  }
  const { Worker } = require("node:worker_threads");
  const shares = Array.from({ length: threads }, () => ({ size: 0, items: [] }));
  const order = files.map((f, i) => [f, i]).sort((a, b) => b[0].size - a[0].size);
  for (const [f, i] of order) {
    const share = shares.reduce((a, b) => (b.size < a.size ? b : a));
    share.size += f.size;
    share.items.push([f, i]);
  }
  const results = new Array(files.length);
  let done = 0;
  await Promise.all(
    shares.map(
      (share) =>
        new Promise((resolve, reject) => {
          const worker = new Worker(path.join(__dirname, "usage-worker.cjs"), { workerData: { files: share.items.map(([f]) => ({ file: f.file, size: f.size })), options } });
          worker.on("message", (m) => {
            if (m.progress !== undefined) tick((done += m.progress));
            if (m.done) {
              m.done.forEach((r, k) => (results[share.items[k][1]] = r));
              resolve();
            }
          });
          worker.on("error", reject);
        }),
    ),
  );
  return results;
}

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

const COMMANDS = { replay, redact, resume, check, list, export: exportCommand, serve, usage: usageCommand, import: importCommand, doctor: (a) => require("./commands/doctor.cjs")(a, { session, parseArgs, UsageError, redactorFor }) };

async function main(argv) {
  const [command, ...rest] = argv;
  if (command === undefined || command === "--help" || command === "-h" || command === "help") {
    process.stdout.write(USAGE + "\n");
    return 0;
  }
  if (command === "--version" || command === "-V") {
    process.stdout.write(`garuda-session ${require("../package.json").version}\n`);
    return 0;
  }
  const run = COMMANDS[command];
  try {
    if (!run) throw new UsageError(`unknown command "${command}"`);
    return await run(rest);
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`garuda-session ${command}: ${e.message}\n${USAGE}\n`);
      return 2;
    }
    process.stderr.write(`garuda-session ${command}: ${e.message}\n`);
    return 2;
  }
}

// `garuda-session export x --format md | head` closes the pipe early: not an error.
process.stdout.on("error", (e) => {
  if (e.code === "EPIPE") process.exit(0);
  throw e;
});

main(process.argv.slice(2)).then((code) => {
  if (code !== null) process.exitCode = code;
});
