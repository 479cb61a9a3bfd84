// bin/stat-numbers.cjs, the stat of the warm usage paths: whichever way it
// takes (the fs binding's array where this Node's statSync is that call,
// else statSync), its size, mtime and inode are fs.statSync's, for files,
// folders, links and paths that are not there, and it throws where
// statSync throws. A binding whose numbers are laid out otherwise is
// caught by the first answer's check; --pending-deprecation (which would
// print a warning for process.binding) gets statSync.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const modulePath = path.join(root, "pkg/bin/stat-numbers.cjs");
const require = createRequire(import.meta.url);
const statNumbers = require(modulePath);

function tree() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "garuda-stat-"));
  fs.writeFileSync(path.join(dir, "a.jsonl"), "x".repeat(12345));
  fs.mkdirSync(path.join(dir, "sub"));
  fs.writeFileSync(path.join(dir, "sub", "é b.jsonl"), "");
  fs.symlinkSync(path.join(dir, "a.jsonl"), path.join(dir, "link.jsonl"));
  fs.symlinkSync(path.join(dir, "gone"), path.join(dir, "dangling.jsonl"));
  return dir;
}

const expected = (p) => {
  const st = fs.statSync(p, { throwIfNoEntry: false });
  return st && { size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
};

test("stat numbers: statSync's size, mtime and inode, whichever way they are read", () => {
  const dir = tree();
  const paths = ["a.jsonl", "sub", path.join("sub", "é b.jsonl"), "link.jsonl", "dangling.jsonl", "missing", path.join("missing", "deeper"), ""].map((p) => path.join(dir, p));
  for (const [name, s] of [["this process's", statNumbers], ["statSync's", statNumbers.make(null)], ["the binding's", statNumbers.make(statNumbers.bindingStat())]]) {
    for (const p of paths) assert.deepEqual(s.numbers(p), expected(p), `${name} ${p}`);
    const out = new Float64Array(6);
    assert.equal(s.into(path.join(dir, "a.jsonl"), out, 3), true);
    assert.deepEqual([...out.slice(3)], Object.values(expected(path.join(dir, "a.jsonl"))));
    assert.equal(s.into(path.join(dir, "missing"), out, 0), false);
    // Where statSync throws (a file taken as a folder), so does it.
    assert.throws(() => fs.statSync(path.join(dir, "a.jsonl", "x"), { throwIfNoEntry: false }), { code: "ENOTDIR" });
    assert.throws(() => s.numbers(path.join(dir, "a.jsonl", "x")), { code: "ENOTDIR" }, name);
    // What is not a path string gets statSync's errors (the binding would abort the process on it).
    assert.throws(() => s.numbers(undefined), { code: "ERR_INVALID_ARG_TYPE" }, name);
    assert.throws(() => s.numbers(`${dir}\0x`), { code: "ERR_INVALID_ARG_VALUE" }, name);
    assert.deepEqual(s.numbers(""), undefined, name);
  }
  // On Node 20 the binding's way is the one taken (what the warm paths' speed rests on; checked there); elsewhere it may fall back.
  if (process.versions.node.startsWith("20.")) assert.equal(statNumbers.fast(), true, `Node ${process.versions.node}`);
  fs.rmSync(dir, { recursive: true, force: true });
});

test("stat numbers: a binding whose array is laid out otherwise is caught by the first answer, and statSync answers", () => {
  const dir = tree();
  const wrong = new Float64Array(36).fill(7);
  const s = statNumbers.make(() => wrong);
  assert.equal(s.fast(), true);
  assert.deepEqual(s.numbers(path.join(dir, "a.jsonl")), expected(path.join(dir, "a.jsonl")));
  assert.equal(s.fast(), false);
  assert.deepEqual(s.numbers(path.join(dir, "sub")), expected(path.join(dir, "sub")));
  fs.rmSync(dir, { recursive: true, force: true });
});

test("stat numbers: no deprecation warning, with --pending-deprecation or NODE_OPTIONS asking for one", () => {
  const dir = tree();
  const script = `const s = require(${JSON.stringify(modulePath)}); const n = s.numbers(${JSON.stringify(path.join(dir, "a.jsonl"))}); process.stdout.write(JSON.stringify([s.fast(), n.size]));`;
  for (const [args, env] of [[["--pending-deprecation"], {}], [[], { NODE_OPTIONS: "--pending-deprecation" }], [[], { NODE_PENDING_DEPRECATION: "1" }], [["--throw-deprecation", "--pending-deprecation"], {}]]) {
    const r = spawnSync(process.execPath, [...args, "-e", script], { encoding: "utf8", env: { ...process.env, ...env } });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stderr, "", `${args} ${JSON.stringify(env)}`);
    assert.deepEqual(JSON.parse(r.stdout), [false, 12345]);
  }
  fs.rmSync(dir, { recursive: true, force: true });
});
