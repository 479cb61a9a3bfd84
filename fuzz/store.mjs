// A deterministic fuzzer of the file store's lock and file handling (Node:
// the store is JavaScript, so not a cargo-fuzz target). A seeded random walk
// of opens, writes and closes, mixed with what other processes and
// attackers do between them: a dead writer's lock (each form), a live
// writer's lock, a symlink planted where a journal or lock goes, junk and
// torn tails appended, a BOM, a folder made read-only, a full disk in the
// middle of a write. After every step it checks what must always hold:
//   - every error is one of the store's coded errors, and the right one for
//     what was planted (ERR_SESSION_LOCKED, ERR_STORE_SYMLINK, ...);
//   - every acknowledged record is in its file, once, in order; a refused
//     one is not;
//   - an open journal's memory equals a replay of its file;
//   - nothing outside the folder is written or chmodded (a link's target);
//   - no lock helper file (.new, .stale, .takeover) is left, and with every
//     journal closed no lock of ours and no descriptor is left.
//
//   node fuzz/store.mjs [seed] [steps]      (after bash .ci/build)
// The same seed gives the same walk; a failure prints the seed and step.
import fs from "node:fs";
import path from "node:path";
import { tmpdir } from "node:os";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { isDeepStrictEqual } from "node:util";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const require = createRequire(import.meta.url);
const { FileSessionStore } = require(path.join(root, "pkg/node/store.js"));

const CODES = new Set(["ERR_SESSION_LOCKED", "ERR_STORE_SYMLINK", "ERR_STORE_UNWRITABLE", "ERR_JOURNAL_WRITE"]);
const IDS = ["a", "b", "c"];

function prng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const fdCount = () => (fs.existsSync("/proc/self/fd") ? fs.readdirSync("/proc/self/fd").length : 0);

/** Runs one walk; throws with the seed and step on the first broken rule. */
export function run(seed, steps = 300) {
  const rand = prng(seed);
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const base = fs.mkdtempSync(path.join(tmpdir(), `garuda-fuzz-store-${seed}-`));
  const dir = path.join(base, "sessions");
  const victim = path.join(base, "victim");
  fs.writeFileSync(victim, "not the store's\n");
  fs.chmodSync(victim, 0o644);
  const store = new FileSessionStore(dir);
  const open = new Map(); // id -> journal
  const acked = new Map(IDS.map((id) => [id, []])); // id -> sequence numbers acknowledged
  const deadPid = spawnSync(process.execPath, ["-e", "0"]).pid;
  let seq = 0;
  let step = 0;
  let baseline = null;
  const check = (ok, what) => {
    if (!ok) throw new Error(`fuzz/store.mjs seed ${seed} step ${step}: ${what}`);
  };
  const file = (id) => path.join(dir, `${id}.jsonl`);
  const lock = (id) => path.join(dir, `${id}.lock`);
  const expectError = (f, code, what) => {
    try {
      const j = f();
      j?.close?.();
    } catch (e) {
      check(e.code === code, `${what}: expected ${code}, got ${e.code}: ${e.message}`);
      return;
    }
    check(false, `${what}: expected ${code}, it succeeded`);
  };
  const closed = (id) => !open.has(id);

  const actions = [
    // The store's own use.
    [6, () => {
      const id = pick(IDS);
      if (open.has(id)) return expectError(() => store.open(id), "ERR_SESSION_LOCKED", "a second open in this process");
      try {
        open.set(id, store.open(id));
      } catch (e) {
        check(CODES.has(e.code), `open: an uncoded error ${e.code}: ${e.message}`);
        check(false, `open of a plain session failed: ${e.code} ${e.message}`);
      }
    }],
    [10, () => {
      const [id, j] = pick([...open]) ?? [];
      if (!j) return;
      const n = ++seq;
      j.write({ t: "2026-12-01T00:00:00.000Z", type: "user", fz: n, message: { role: "user", content: `record ${n}` } });
      acked.get(id).push(n);
    }],
    [4, () => {
      const [id, j] = pick([...open]) ?? [];
      if (!j) return;
      j.close();
      open.delete(id);
      check(!fs.existsSync(lock(id)), `close left ${id}.lock`);
    }],
    // Other processes and attackers, between the store's calls.
    [2, () => {
      const id = pick(IDS.filter(closed));
      if (!id) return;
      const form = pick([JSON.stringify({ pid: deadPid, start: "1" }), String(deadPid), ""]);
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      fs.writeFileSync(lock(id), form);
      if (form === "") fs.utimesSync(lock(id), new Date(0), new Date(0)); // an old version's empty lock, long ago
      if (rand() < 0.3) fs.writeFileSync(`${lock(id)}.takeover`, JSON.stringify({ pid: deadPid, start: "1" }));
      const j = store.open(id); // a dead writer's lock is taken over
      open.set(id, j);
      check(!fs.existsSync(`${lock(id)}.takeover`), "a dead remover's guard was left");
    }],
    [2, () => {
      const id = pick(IDS.filter(closed));
      if (!id) return;
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      fs.writeFileSync(lock(id), JSON.stringify({ pid: process.ppid, start: null })); // a live writer
      expectError(() => store.open(id), "ERR_SESSION_LOCKED", "a live writer's lock");
      fs.rmSync(lock(id));
    }],
    [2, () => {
      const id = pick(IDS.filter(closed));
      if (!id) return;
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      const where = pick([file(id), lock(id)]);
      const aside = `${where}.aside`;
      const had = fs.existsSync(where);
      if (had) fs.renameSync(where, aside);
      fs.symlinkSync(victim, where);
      expectError(() => store.open(id), "ERR_STORE_SYMLINK", `a symlink at ${path.basename(where)}`);
      if (where === file(id)) expectError(() => store.replay(id), "ERR_STORE_SYMLINK", "replay through a symlink");
      fs.rmSync(where);
      if (had) fs.renameSync(aside, where);
    }],
    [2, () => {
      const id = pick(IDS.filter(closed));
      if (!id) return;
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      const empty = !fs.existsSync(file(id)) || fs.statSync(file(id)).size === 0;
      // Junk, a torn tail, or (at the start) a BOM, as another writer or an editor leaves them.
      fs.appendFileSync(file(id), pick([empty ? "\uFEFF" : "junk\n", "junk\n", "{\"type\":\"user\",\"mess", "\n\n", "{\"type\":\"hologram\"}\n"]));
    }],
    [1, () => {
      if (open.size > 0 || !fs.existsSync(dir)) return;
      fs.chmodSync(dir, 0o500);
      expectError(() => store.open(pick(IDS)), "ERR_STORE_UNWRITABLE", "a read-only folder");
      check((fs.statSync(dir).mode & 0o777) === 0o500, "the read-only folder was chmodded");
      fs.chmodSync(dir, 0o700);
    }],
    [2, () => {
      // A full disk at the next write: of the lock (open) or of a record.
      const [id, j] = pick([...open]) ?? [];
      const real = fs.writeSync;
      let calls = 0;
      fs.writeSync = function (fd, buf, off, len, ...rest) {
        if (++calls === 1 && typeof len === "number" && len > 1 && rand() < 0.5) return real.call(this, fd, buf, off, Math.ceil(len / 2), ...rest);
        throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC" });
      };
      try {
        if (j) j.write({ t: "2026-12-01T00:00:00.000Z", type: "user", fz: ++seq, message: { role: "user", content: "refused" } });
        else {
          const other = pick(IDS);
          open.set(other, store.open(other));
        }
        check(false, "a write on a full disk succeeded");
      } catch (e) {
        check(CODES.has(e.code), `a full disk: an uncoded error ${e.code}: ${e.message}`);
      } finally {
        fs.writeSync = real;
      }
    }],
  ];
  const total = actions.reduce((a, [w]) => a + w, 0);

  try {
    for (step = 0; step < steps; step++) {
      let r = rand() * total;
      const [, act] = actions.find(([w]) => (r -= w) < 0) ?? actions[0];
      act();
      if (baseline === null && open.size === 0) baseline = fdCount();
      // The rules.
      check(fs.readFileSync(victim, "utf8") === "not the store's\n" && (fs.statSync(victim).mode & 0o777) === 0o644, "a link's target was written or chmodded");
      if (!fs.existsSync(dir)) continue;
      const names = fs.readdirSync(dir);
      check(!names.some((n) => /\.(new|stale|takeover)$/.test(n)), `lock helper files left: ${names}`);
      for (const id of IDS) {
        const text = fs.existsSync(file(id)) ? fs.readFileSync(file(id), "utf8") : "";
        const ours = text.split("\n").flatMap((l) => {
          try {
            const n = JSON.parse(l.replace(/^\uFEFF/, "")).fz;
            return n === undefined ? [] : [n];
          } catch {
            return [];
          }
        });
        check(isDeepStrictEqual(ours, acked.get(id)), `${id}: the file holds records ${ours}, acknowledged ${acked.get(id)}`);
        const j = open.get(id);
        if (j) check(isDeepStrictEqual(j.state(), store.replay(id)), `${id}: memory differs from a replay of the file`);
        else check(!fs.existsSync(lock(id)), `${id}.lock is left with the journal closed`);
      }
      if (open.size === 0 && baseline !== null) check(fdCount() === baseline, `descriptors: ${fdCount()}, ${baseline} with every journal closed`);
    }
  } finally {
    for (const j of open.values()) j.close();
    if (fs.existsSync(dir)) fs.chmodSync(dir, 0o700);
    fs.rmSync(base, { recursive: true, force: true });
  }
  return { seed, steps, records: seq };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const seed = Number(process.argv[2] ?? Date.now() % 1e9);
  const steps = Number(process.argv[3] ?? 2000);
  console.log(JSON.stringify(run(seed, steps)));
}
