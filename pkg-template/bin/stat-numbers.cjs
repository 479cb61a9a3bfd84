// A path's size, mtime and inode, without the `fs.Stats` around them.
//
// Why: a warm `usage --by day` or `statusline` on a 1 GB history stats
// every folder and file of it (4,926 paths) and does little else. On Node
// 18 and 20, `fs.statSync` turns each result into a `Stats` with four
// `Date`s, and that, not the system call, was a third of those runs' own
// time (13 ms of 40 over a 60 ms Node start, against the 100 ms a status
// line has). `statSync` gets its numbers from the fs binding as a
// Float64Array; where this Node's `statSync` is exactly that call (its
// source says so, and the first answer is checked against `statSync`'s
// own), `numbers` makes the same call and reads the three numbers.
// Anywhere else (another Node, Bun, Deno, a permission model that refuses
// `process.binding`, `--pending-deprecation`, which would print a
// warning), it is `fs.statSync`.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

const STAT = { throwIfNoEntry: false };

/** `statSync`'s way: `{ size, mtimeMs, ino }`, or undefined when there is no such path. */
function viaStats(p) {
  const st = fs.statSync(p, STAT);
  return st && { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
}

/** The binding's stat, when this Node's statSync is that call and nothing would warn of it; else null. */
function bindingStat(env = process.env, execArgv = process.execArgv) {
  try {
    const pending = (s) => typeof s === "string" && s.includes("--pending-deprecation");
    if (env.NODE_PENDING_DEPRECATION === "1" || pending(env.NODE_OPTIONS) || execArgv.some(pending)) return null;
    // Node 20's statSync (and any other version's written the same): binding.stat(path, bigint, undefined, throwIfNoEntry), then Stats of its array.
    const source = Function.prototype.toString.call(fs.statSync);
    if (!/binding\.stat\(\s*pathModule\.toNamespacedPath\(path\),\s*options\.bigint,\s*undefined,\s*options\.throwIfNoEntry,?\s*\)/.test(source)) return null;
    if (typeof process.binding !== "function") return null;
    const binding = process.binding("fs");
    return typeof binding?.stat === "function" ? binding.stat.bind(binding) : null;
  } catch {
    return null;
  }
}

/**
 * `numbers(p)`: `{ size, mtimeMs, ino }` of a path (following links, as
 * statSync), undefined when there is none; throws what statSync throws
 * (EACCES, ENOTDIR, ...). `into(p, out, at)` writes the three numbers at
 * `out[at..at+3]` and returns whether the path exists (no object made).
 */
function make(stat) {
  let checked = stat === null;
  const into = (p, out, at) => {
    // Anything but a plain path string goes through statSync's checks (the binding asserts a string, and would abort the process).
    if (stat === null || typeof p !== "string" || p.includes("\0")) {
      const st = fs.statSync(p, STAT);
      if (!st) return false;
      out[at] = st.size;
      out[at + 1] = st.mtimeMs;
      out[at + 2] = st.ino;
      return true;
    }
    // A Float64Array shared between calls: its fields are dev, mode, nlink, uid, gid, rdev, blksize, ino, size, blocks, then seconds and nanoseconds of atime, mtime, ctime, birthtime.
    const v = stat(path.toNamespacedPath(p), false, undefined, false);
    if (v === undefined) return false;
    out[at] = v[8];
    out[at + 1] = v[12] * 1e3 + v[13] / 1e6;
    out[at + 2] = v[7];
    if (!checked) {
      // The first answer against statSync's own: a layout not as above, and every later call is statSync's.
      checked = true;
      const st = viaStats(p);
      if (!st || st.size !== out[at] || st.mtimeMs !== out[at + 1] || st.ino !== out[at + 2]) {
        stat = null;
        return into(p, out, at);
      }
    }
    return true;
  };
  const three = new Float64Array(3);
  const numbers = (p) => (into(p, three, 0) ? { size: three[0], mtimeMs: three[1], ino: three[2] } : undefined);
  return { numbers, into, fast: () => stat !== null };
}

module.exports = { ...make(bindingStat()), make, bindingStat, viaStats };
