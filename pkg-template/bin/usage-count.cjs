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
// The marks are the ones `countRequestsOnce` makes (it calls `markAll`
// here); an append is folded in only while that
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

/** A row's place in the table of keys: its item's index and its row number, in one float64 (both below 2^26). */
const ROW = 2 ** 26;

/** The slot of `key` in an open-addressing table of float64 keys (0: empty; keys are non-zero integers below 2^53, their low bits index it). */
function slotOf(keys, key) {
  const mask = keys.length - 1;
  let h = (key % keys.length) & mask;
  while (keys[h] !== 0 && keys[h] !== key) h = (h + 1) & mask;
  return h;
}

/**
 * Marks every item's copies from scratch (`it.copies`: row offsets), with
 * `it.first`, `it.pos` and `it.maxT`; returns the cut (null: none, every
 * file is needed) and the table of keys (`keys`, and `owners`: the row that
 * counts each), which the index keeps.
 */
function countAll(items, now = Date.now()) {
  // Room for appends to come (a full table counts all again): three slots a row.
  const table = markAll(items, 3);
  return { cut: cutOf(items, now), ...table };
}

/**
 * The marking itself, the one `countRequestsOnce` (usage.cjs) uses too: the
 * files in the order of their first keyed request, each key counted by the
 * first row that has it, the later ones its copies; `slots` table slots a
 * row.
 */
function markAll(items, slots) {
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
  while (size < count * slots) size *= 2;
  const keys = new Float64Array(size);
  const owners = new Float64Array(size);
  firsts.forEach(([, i], pos) => {
    const it = items[i];
    it.pos = pos;
    const r = it.rows;
    for (let k = 0; k < r.length; k += STRIDE) {
      const key = r[k + KEY];
      if (!(key > 0)) continue;
      const h = slotOf(keys, key);
      if (keys[h] === key) it.copies.push(k);
      else {
        keys[h] = key;
        owners[h] = i * ROW + k / STRIDE;
      }
    }
  });
  return { keys, owners };
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
 * the row offsets added or replaced by the append (usage-index.cjs merge);
 * `table` the kept keys and the row that counts each. Every other item
 * carries its kept `copies`, `first`, `pos`, `maxT`; `changed` hears the
 * rows of other files that became copies, `slots` the table's slots
 * written. Returns false when the
 * order may have changed or the table is full (the caller counts all).
 */
function countAppended(items, appended, cut, table, changed = [], slots = []) {
  const { keys, owners } = table;
  let used = 0;
  for (const [i, { added, replaced }] of appended) {
    const it = items[i];
    const r = it.rows;
    if (firstOf(r) !== it.first) return false;
    for (const k of [...added, ...replaced]) if (cut !== null && r[k + T] < cut) return false;
    used += added.length;
  }
  if (used > 0) {
    let filled = 0;
    for (let h = 0; h < keys.length; h++) if (keys[h] !== 0) filled++;
    if ((filled + used) * 2 > keys.length) return false;
  }
  for (const [i, { added }] of appended) {
    const it = items[i];
    const r = it.rows;
    it.maxT = maxOf(r);
    for (const k of added) {
      const key = r[k + KEY];
      if (!(key > 0)) continue;
      const h = slotOf(keys, key);
      slots.push(h);
      if (keys[h] === 0) {
        keys[h] = key;
        owners[h] = i * ROW + k / STRIDE;
        continue;
      }
      // Held already: the file first in the order counts it (in one file, its first row), the other's is a copy.
      const j = Math.floor(owners[h] / ROW);
      const kk = (owners[h] - j * ROW) * STRIDE;
      if (items[i].pos < items[j].pos || (i === j && k < kk)) {
        items[j].copies.push(kk);
        changed.push([j, kk]);
        owners[h] = i * ROW + k / STRIDE;
      } else it.copies.push(k);
    }
  }
  return true;
}

/** Sets each kept copy's key to -1 (what `countRequestsOnce` does to them): the views pass them over. */
function applyCopies(items) {
  for (const it of items) if (it.rows && it.copies) for (const k of it.copies) it.rows[k + KEY] = -1;
}

module.exports = { countAll, markAll, countAppended, applyCopies, cutOf };
