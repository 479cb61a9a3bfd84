// A journal's bytes through the Redactor a line at a time, for `redact`
// and `serve`: a byte the Redactor does not redact comes out as it went in.
// Lines split at `\n` bytes (never inside a UTF-8 sequence); valid UTF-8
// goes through redactJournal, and a line that is not valid UTF-8 keeps its
// invalid bytes and has each valid run between them redacted as text (the
// core refuses bytes that are not UTF-8: one such byte in a served session
// closed the connection with nothing sent, found by a review in stop 49).
"use strict";

/**
 * `push(chunk)` each piece of the input in order, then `end()`; `write`
 * gets the output's bytes, `totals` ({ lines, changed, notRecords, rules })
 * what redactJournal counted.
 */
function redactingLines(redactor, totals, write) {
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
  return {
    push(chunk) {
      // A copy: the caller's read buffer is filled again after this returns.
      const data = pending.length ? Buffer.concat([pending, chunk]) : Buffer.from(chunk);
      const cut = data.lastIndexOf(0x0a) + 1;
      if (cut > 0) lines(data.subarray(0, cut));
      pending = data.subarray(cut);
    },
    end() {
      if (pending.length) lines(pending);
      pending = Buffer.alloc(0);
    },
  };
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

module.exports = { redactingLines };
