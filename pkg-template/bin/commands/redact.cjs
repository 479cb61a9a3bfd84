// `garuda-session redact <file>`: a redacted copy (or the file redacted in place), with counts per rule.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { takeSessionLock, releaseSessionLock } = require("../../node/store.js");
const { UsageError, parseArgs, openInput, readChunks, redactorFor, n } = require("../cli.cjs");

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

module.exports = { help: HELP, run: redact };
