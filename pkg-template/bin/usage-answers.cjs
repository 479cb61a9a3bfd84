// Answers kept beside the usage index: what `usage --by day` (and the
// other views whose report does not depend on the time it is asked) and
// `statusline` computed, with a snapshot of what they were computed from
// (the mtime and inode of every folder walked, the size, mtime and inode
// of every session file). A run whose folders and files all stat the same
// answers from here: no index is parsed, no row added up, no wasm
// instantiated, only stat calls. (Why: Claude Code runs the status line
// every few seconds; with a 1 GB history, adding up its 65,000 requests in
// a fresh process, whose code the JIT has not warmed, cost more than the
// 100 ms it has, and reading the index's rows as much again.) Any
// difference, and the caller reads through the index (usage-index.cjs)
// and stores its answers with the new snapshot.
//
// One small JSON file per set of paths and read options (the 16 written
// last are kept), in the index's folder, 0600, written whole and renamed
// into place. It holds file paths,
// token counts and costs, nothing of the conversations.
"use strict";

const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const statNumbers = require("./stat-numbers.cjs");

const VERSION = 2;
/** An answer larger than this (a session view of thousands of rows) is not kept: reading it back would cost what it saves. */
const MAX_ANSWER = 256 << 10;

/** The user's cache folder: GARUDA_CACHE_DIR, else XDG_CACHE_HOME (or the platform's) /garuda-session. */
function cacheDir(env = process.env) {
  if (env.GARUDA_CACHE_DIR) return env.GARUDA_CACHE_DIR;
  const base = env.XDG_CACHE_HOME || (process.platform === "darwin" ? path.join(os.homedir(), "Library", "Caches") : process.platform === "win32" ? env.LOCALAPPDATA || path.join(os.homedir(), "AppData", "Local") : path.join(os.homedir(), ".cache"));
  return path.join(base, "garuda-session");
}

/**
 * A path's stat (undefined: none), asked of the disk once per run: the
 * kept answers' check and the index's both stat every folder (and, after
 * an append, every file) of a history (the second time was a sixth of a
 * run after an append on a 1 GB one). A run is a short process that
 * writes none of these paths. Only the three numbers asked of it are
 * kept, not the `Stats` with its four `Date`s.
 */
const stats = new Map();
function statOnce(p) {
  let st = stats.get(p);
  if (st === undefined && !stats.has(p)) stats.set(p, (st = statNumbers.numbers(p)));
  return st;
}

const keyOf = (paths, options) => JSON.stringify({ paths: paths.map((p) => path.resolve(p)), options: options ?? {} });

/** 64 bits of FNV-1a over a string, as hex (node:crypto would cost the fast paths its load). */
function hash(s) {
  let h1 = 0x811c9dc5;
  let h2 = 0xcbf29ce4;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193) >>> 0;
    h2 = Math.imul(h2 ^ c, 0x0100019d) >>> 0;
  }
  return h1.toString(16).padStart(8, "0") + h2.toString(16).padStart(8, "0");
}

/** The file's name: the key's hash (the file also holds the key itself, which is what is compared). */
function fileOf(dir, key) {
  return path.join(dir, `usage-answers-v${VERSION}-${hash(key)}.json`);
}

/** The longest folder all the paths are in (what the snapshot's paths are written under, so it parses in half the time). */
function baseOf(paths) {
  if (paths.length === 0) return "";
  let base = paths[0];
  for (const p of paths) while (base !== "" && !(p === base || p.startsWith(base + path.sep))) base = base.lastIndexOf(path.sep) > 0 ? base.slice(0, base.lastIndexOf(path.sep)) : "";
  return base;
}

/**
 * A snapshot as written: its paths under its base, joined by NUL (which
 * no path holds) into one string, and their numbers in one array, so that
 * it parses into three objects, not 5,000 arrays that outlive the young
 * heap (copying them out of it was a fifth of a warm run).
 */
function pack(snapshot) {
  const base = baseOf([...snapshot.dirs.map((d) => d[0]), ...snapshot.files.map((f) => f[0])]);
  const rel = (p) => (base === "" ? p : p === base ? "" : p.slice(base.length + 1));
  const dirs = { paths: snapshot.dirs.map((d) => rel(d[0])).join("\0"), numbers: [] };
  for (const d of snapshot.dirs) dirs.numbers.push(d[1], d[2]);
  const files = { paths: snapshot.files.map((f) => rel(f[0])).join("\0"), numbers: [] };
  for (const f of snapshot.files) files.numbers.push(f[1], f[2], f[3]);
  return { base, dirs, files };
}

/** Each of a packed list's paths, with its place, until `f` returns true; returns whether it did. */
function somePath(base, paths, count, f) {
  let at = 0;
  for (let i = 0; i < count; i++) {
    const end = paths.indexOf("\0", at);
    const p = end === -1 ? paths.slice(at) : paths.slice(at, end);
    at = end + 1;
    if (f(base === "" ? p : p === "" ? base : base + path.sep + p, i)) return true;
  }
  return false;
}

/**
 * Whether every folder and file of a (packed) snapshot stats as it did.
 * What it stats goes to statOnce's map only when something differs (the
 * index will stat them again then), and from a typed array: a run that
 * answers from here keeps no object per path.
 */
function unchanged(snapshot) {
  const { base, dirs, files } = snapshot;
  // Folders: mtime and inode (-1: there was none); then files: size, mtime and inode.
  for (const [list, width] of [[dirs, 2], [files, 3]]) {
    const n = list.numbers;
    const count = n.length / width;
    const got = new Float64Array(count * 3);
    const absent = new Uint8Array(count);
    let last = -1;
    const differs = somePath(base, list.paths, count, (p, i) => {
      last = i;
      const j = width * i;
      if (!statNumbers.into(p, got, 3 * i)) {
        absent[i] = 1;
        return width === 3 || n[j] !== -1;
      }
      const size = got[3 * i];
      const mtimeMs = got[3 * i + 1];
      const ino = got[3 * i + 2];
      return width === 2 ? mtimeMs !== n[j] || ino !== n[j + 1] : size !== n[j] || mtimeMs !== n[j + 1] || ino !== n[j + 2];
    });
    if (differs) {
      somePath(base, list.paths, last + 1, (p, i) => {
        if (!stats.has(p)) stats.set(p, absent[i] ? undefined : { size: got[3 * i], mtimeMs: got[3 * i + 1], ino: got[3 * i + 2] });
        return false;
      });
      return false;
    }
  }
  return true;
}

/** Answers files kept: one per set of paths asked about, the most recently written. */
const KEEP = 16;

/** Removes all but the `KEEP` newest answers files (each report of another folder writes one), and those of an earlier version. */
function prune(dir) {
  const files = [];
  for (const f of fs.readdirSync(dir)) {
    if (!/^usage-answers-v\d+-[0-9a-f]+\.json$/.test(f)) continue;
    if (!f.startsWith(`usage-answers-v${VERSION}-`)) fs.rmSync(path.join(dir, f), { force: true });
    else files.push([path.join(dir, f), fs.statSync(path.join(dir, f), { throwIfNoEntry: false })?.mtimeMs ?? 0]);
  }
  if (files.length <= KEEP) return;
  files.sort((a, b) => b[1] - a[1]);
  for (const [f] of files.slice(KEEP)) fs.rmSync(f, { force: true });
}

/**
 * The answers kept for these paths and options, when nothing they were
 * computed from has changed since: `{ get(question), put(question, answer),
 * save(snapshot) }`. `get` gives undefined when it was not asked (or
 * something changed); `save` keeps the answers `put` (and, when the
 * snapshot is the same, those kept before).
 */
function answers(dir, paths, options) {
  const key = keyOf(paths, options);
  const file = fileOf(dir, key);
  let kept = null;
  try {
    const v = JSON.parse(fs.readFileSync(file, "utf8"));
    if (v.version === VERSION && v.key === key && unchanged(v.snapshot)) kept = v;
  } catch {
    kept = null;
  }
  const fresh = {};
  return {
    get: (question) => (kept && Object.hasOwn(kept.answers, question) ? kept.answers[question] : undefined),
    put(question, answer) {
      fresh[question] = answer;
    },
    /** Writes the answers with the snapshot they were computed from (none: nothing is kept). */
    save(raw) {
      if (!raw || Object.keys(fresh).length === 0) return;
      const snapshot = pack(raw);
      const same = kept && JSON.stringify(kept.snapshot) === JSON.stringify(snapshot);
      const all = { ...(same ? kept.answers : {}) };
      for (const [q, a] of Object.entries(fresh)) if (JSON.stringify(a).length <= MAX_ANSWER) all[q] = a;
      if (Object.keys(all).length === 0) return;
      try {
        fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
        const tmp = `${file}.${process.pid}.tmp`;
        fs.writeFileSync(tmp, JSON.stringify({ version: VERSION, key, snapshot, answers: all }), { mode: 0o600 });
        fs.renameSync(tmp, file);
        prune(dir);
      } catch {
        // Only a cache: the next run computes its answers again.
      }
    },
  };
}

module.exports = { answers, cacheDir, statOnce, hash };
