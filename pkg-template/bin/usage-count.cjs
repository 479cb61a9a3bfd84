// Each request once across files (usage.cjs `countRequestsOnce`), kept in
// the index from one run to the next: which rows of each file are copies
// of a request counted in another (by row), each file's place in the order
// that decides it (its first keyed request's time, then its place in the
// walk), and a "cut": a time from which the 5-hour blocks and today's rows
// need no earlier row. (Why: after an append, a statusline on a 1 GB
// history spent most of its time marking 65,000 rows' copies again and
// adding up every row for today's and the block's cost; with the marks kept
// it reads the appended rows, looks their keys up, and adds up only the
// files written to since the cut.)
//
// The marks are the ones `countRequestsOnce` makes, made the same way (the
// same order, the same table); an append is folded in only while that
// order cannot have changed (no file added, removed or read whole, no
// appended file whose first request moved, no appended row before the
// cut); anything else counts every file again.
"use strict";

const { STRIDE } = require("./usage.cjs");

const [T, KEY] = [0, 8];
const HOUR = 3600000;
/** The cut is at least this long before the count (today's rows, in any zone, start later than it). */
const BEFORE = 2 * 24 * HOUR;
/** ccusage's block length: a gap longer than this between two requests starts the chain of blocks again. */
const BLOCK = 5 * HOUR;

/** A file's first keyed request's time, as the order compares it: a string ("" when no row has a key). */
function firstOf(r) {
  let first = Infinity;
  let keyed = false;
  for (let k = 0; k < r.length; k += STRIDE) {
    if (r[k + KEY] > 0) {
      keyed = true;
      if (r[k + T] < first) first = r[k + T];
    }
  }
  return keyed ? String(first) : "";
}

/** The latest time of a file's rows (null: none has a time). */
function maxOf(r) {
  let max = -Infinity;
  for (let k = 0; k < r.length; k += STRIDE) if (r[k + T] > max) max = r[k + T];
  return max === -Infinity ? null : max;
}

/**
 * Marks every item's copies from scratch (`it.copies`: row offsets), as
 * `countRequestsOnce` would, with `it.first`, `it.pos` and `it.maxT`;
 * returns the cut (null: none, every file is needed).
 */
function countAll(items, now = Date.now()) {
  const firsts = [];
  items.forEach((it, i) => {
    it.copies = [];
    it.pos = -1;
    it.first = it.rows ? firstOf(it.rows) : "";
    it.maxT = it.rows ? maxOf(it.rows) : null;
    if (it.first !== "") firsts.push([Number(it.first), i]);
  });
  firsts.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let count = 0;
  for (const [, i] of firsts) count += items[i].rows.length / STRIDE;
  let size = 16;
  while (size < count * 2) size *= 2;
  const table = new Float64Array(size);
  const mask = size - 1;
  firsts.forEach(([, i], pos) => {
    const it = items[i];
    it.pos = pos;
    const r = it.rows;
    for (let k = 0; k < r.length; k += STRIDE) {
      const key = r[k + KEY];
      if (!(key > 0)) continue;
      let h = (key % size) & mask;
      while (table[h] !== 0 && table[h] !== key) h = (h + 1) & mask;
      if (table[h] === key) it.copies.push(k);
      else table[h] = key;
    }
  });
  return cutOf(items, now);
}

/**
 * The latest time at least `BEFORE` before now at which the chain of
 * blocks starts again (the counted request before it is more than a
 * block's length earlier): blocks from there on, and today's rows, depend
 * on no earlier row.
 */
function cutOf(items, now) {
  let n = 0;
  for (const it of items) if (it.rows) n += it.rows.length / STRIDE;
  const times = new Float64Array(n);
  let c = 0;
  for (const it of items) {
    const r = it.rows;
    if (!r) continue;
    const copy = new Set(it.copies);
    for (let k = 0; k < r.length; k += STRIDE) if (!copy.has(k) && !(r[k + KEY] < 0) && !Number.isNaN(r[k + T])) times[c++] = r[k + T];
  }
  const sorted = times.subarray(0, c).sort();
  let cut = null;
  for (let j = 0; j < sorted.length && sorted[j] <= now - BEFORE; j++) if (j === 0 || sorted[j] - sorted[j - 1] > BLOCK) cut = sorted[j];
  return cut;
}

/**
 * Folds appended rows into the kept marks: `appended` is, per item index,
 * the row offsets added or replaced by the append (usage-index.cjs merge).
 * Every other item carries its kept `copies`, `first`, `pos`, `maxT`.
 * Returns false when the order may have changed (the caller counts all).
 */
function countAppended(items, appended, cut) {
  const fresh = new Map();
  for (const [i, { added, replaced }] of appended) {
    const it = items[i];
    const r = it.rows;
    if (firstOf(r) !== it.first) return false;
    for (const k of [...added, ...replaced]) if (cut !== null && r[k + T] < cut) return false;
    it.maxT = maxOf(r);
    for (const k of added) if (r[k + KEY] > 0) fresh.set(r[k + KEY], [i, k]);
  }
  if (fresh.size === 0) return true;
  // Who else holds an appended request: the one first in the order counts it, the others are copies.
  const holders = new Map();
  items.forEach((it, i) => {
    const r = it.rows;
    if (!r || it.pos < 0) return;
    for (let k = 0; k < r.length; k += STRIDE) {
      const key = r[k + KEY];
      const f = key > 0 ? fresh.get(key) : undefined;
      if (f === undefined || (f[0] === i && f[1] === k)) continue;
      if (!holders.has(key)) holders.set(key, []);
      holders.get(key).push([i, k]);
    }
  });
  for (const [key, [i, k]] of fresh) {
    const hs = holders.get(key);
    if (!hs) continue;
    const all = [[i, k], ...hs].sort((a, b) => items[a[0]].pos - items[b[0]].pos || a[1] - b[1]);
    for (const [j, kk] of all.slice(1)) if (!items[j].copies.includes(kk)) items[j].copies.push(kk);
    const [j0, k0] = all[0];
    items[j0].copies = items[j0].copies.filter((x) => x !== k0);
  }
  return true;
}

/** Sets each kept copy's key to -1 (what `countRequestsOnce` does to them): the views pass them over. */
function applyCopies(items) {
  for (const it of items) if (it.rows && it.copies) for (const k of it.copies) it.rows[k + KEY] = -1;
}

module.exports = { countAll, countAppended, applyCopies, cutOf };
