// `garuda-session redact <file>`: a redacted copy (or the file redacted in place), with counts per rule.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { takeSessionLock, releaseSessionLock } = require("../../node/store.js");
const { UsageError, parseArgs, openInput, readChunks, redactorFor, n } = require("../cli.cjs");
const { redactingLines } = require("../redact-bytes.cjs");

const HELP = `usage: garuda-session redact <file> (-o <out> | --in-place) [--rules rules.json]
  a redacted copy, with counts per rule; --in-place replaces the file atomically
  --rules: your own token formats, [{ "name", "pattern" }] in regex-lite syntax`;

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
    const stale = takeSessionLock(lock);
    if (stale !== null) process.stderr.write(`${lock}: taken over from ${stale ? `process ${stale}` : "an empty lock"}, which ended without releasing it\n`);
  } catch (e) {
    if (e.code !== "ERR_SESSION_LOCKED") throw e;
    const err = new Error(`ERR_SESSION_LOCKED: ${file} is open for writing (${lock}); redact it when its writer has closed it`);
    err.code = "ERR_SESSION_LOCKED";
    throw err;
  }
  return lock;
}

/** Redacts a file's bytes line by line (redact-bytes.cjs) and hands the output's bytes to `write`. */
function redactBytes(file, redactor, totals, write) {
  const lines = redactingLines(redactor, totals, write);
  readChunks(file, "redact", lines.push);
  lines.end();
}

module.exports = { help: HELP, run: redact };
