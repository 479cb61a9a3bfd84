// The file store under faults: a full disk (a real small tmpfs where this
// process may mount one, and an injected ENOSPC everywhere), a read-only
// folder, permission denied, the session file deleted while open, and a line
// over the maximum line size. Each case: a clear error with a stable code,
// the journal keeps only whole lines, nothing written before is lost, and
// memory still equals a replay of the file.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { spawnSync, execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);
const storeModule = path.join(root, "pkg/node/store.js");
const { FileSessionStore } = require(storeModule);
const session = require(path.join(root, "pkg/node/garuda_session.js"));

const fresh = () => path.join(fs.mkdtempSync(path.join(tmpdir(), "garuda-faults-")), "sessions");
const record = (text) => ({ t: "2026-11-30T10:00:00.000Z", type: "user", message: { role: "user", content: text } });

/** Every line of the file is a whole record, and the journal's memory is the file's replay. */
function assertWholeAndInAgreement(file, journal) {
  const text = fs.readFileSync(file, "utf8");
  assert.ok(text === "" || text.endsWith("\n"), "the file ends with a whole line");
  for (const line of text.split("\n").slice(0, -1)) assert.doesNotThrow(() => JSON.parse(line), line.slice(0, 80));
  const replayed = session.rebuildState(text);
  assert.deepEqual(replayed.warnings, []);
  if (journal) assert.deepEqual(journal.state(), replayed, "memory equals the file's replay");
  return replayed;
}

const mounts = [];
after(() => {
  for (const m of mounts) spawnSync("umount", [m]);
});

/** A tmpfs of `size` mounted for this test, or the reason it cannot be. */
function smallTmpfs(size) {
  const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-tmpfs-"));
  const r = spawnSync("mount", ["-t", "tmpfs", "-o", `size=${size},mode=0755`, "tmpfs", dir], { encoding: "utf8" });
  if (r.status !== 0) return { skip: `cannot mount a tmpfs here (${(r.stderr || r.error?.message || "").trim()}); the injected ENOSPC case still runs` };
  mounts.push(dir);
  return { dir };
}

test("a full disk (a real 256 KiB tmpfs): a clear error, whole lines only, nothing earlier lost, and writing goes on once there is room", (t) => {
  const fsys = smallTmpfs("256k");
  if (fsys.skip) return t.skip(fsys.skip);
  const dir = path.join(fsys.dir, "sessions");
  const filler = path.join(fsys.dir, "filler");
  fs.writeFileSync(filler, "x".repeat(64 << 10)); // room to give back later
  const store = new FileSessionStore(dir);
  const j = store.open("full");
  let written = 0;
  let error;
  for (let i = 0; i < 10_000 && !error; i++) {
    try {
      j.write(record(`record ${i} ` + "x".repeat(3000)));
      written++;
    } catch (e) {
      error = e;
    }
  }
  assert.ok(error, "the disk filled up");
  assert.equal(error.code, "ERR_JOURNAL_WRITE");
  assert.equal(error.cause?.code, "ENOSPC");
  assert.match(error.message, /ENOSPC.*whole lines only/);
  const file = path.join(dir, "full.jsonl");
  assert.ok(written > 10);
  assert.equal(assertWholeAndInAgreement(file, j).prompts, written, "every acknowledged record, and only those");
  fs.rmSync(filler);
  j.write(record("after the disk had room again"));
  assert.equal(assertWholeAndInAgreement(file, j).prompts, written + 1);
  j.close();
});

test("a full disk (ENOSPC injected half-way through a write): the partial line is cut back and memory follows the file", () => {
  const dir = fresh();
  const store = new FileSessionStore(dir);
  const j = store.open("inject");
  j.write(record("one"));
  j.write(record("two"));
  const real = fs.writeSync;
  let calls = 0;
  fs.writeSync = function (fd, buf, off, len, ...rest) {
    if (++calls === 1) return real.call(this, fd, buf, off, Math.ceil(len / 2), ...rest); // half the line lands
    const e = new Error("ENOSPC: no space left on device, write");
    e.code = "ENOSPC";
    throw e;
  };
  let error;
  try {
    j.write(record("three, which does not fit"));
  } catch (e) {
    error = e;
  } finally {
    fs.writeSync = real;
  }
  assert.equal(error?.code, "ERR_JOURNAL_WRITE");
  assert.equal(error.cause.code, "ENOSPC");
  const file = path.join(dir, "inject.jsonl");
  assert.equal(assertWholeAndInAgreement(file, j).prompts, 2, "the half line is gone; one and two stay");
  j.write(record("four"));
  assert.equal(assertWholeAndInAgreement(file, j).prompts, 3);
  j.close();
});

test("a read-only folder: open says so with a code; reading still works", async (t) => {
  const dir = fresh();
  const store = new FileSessionStore(dir);
  const j = store.open("ro");
  j.write(record("written before the folder went read-only"));
  j.close();
  // A read-only bind mount of the folder, where this process may mount one.
  const r = spawnSync("mount", ["--bind", "-o", "ro", dir, dir], { encoding: "utf8" });
  if (r.status !== 0) return t.skip(`cannot make a read-only mount here (${(r.stderr || "").trim()})`);
  mounts.push(dir);
  const s = spawnSync("mount", ["-o", "remount,bind,ro", dir], { encoding: "utf8" });
  assert.equal(s.status, 0, s.stderr);
  assert.throws(() => new FileSessionStore(dir).open("ro"), (e) => e.code === "ERR_STORE_UNWRITABLE" && e.cause.code === "EROFS" && /cannot write/.test(e.message));
  assert.throws(() => new FileSessionStore(dir).open("new"), (e) => e.code === "ERR_STORE_UNWRITABLE");
  assert.equal(new FileSessionStore(dir).replay("ro").prompts, 1, "what was written is still there");
  assert.equal((await new FileSessionStore(dir).list()).length, 1);
  spawnSync("umount", [dir]);
  mounts.pop();
});

test("permission denied (a folder this user may not write): a clear error with a code", (t) => {
  const dir = fresh();
  fs.mkdirSync(dir, { recursive: true });
  fs.chmodSync(dir, 0o500);
  const script = `
    const { FileSessionStore } = require(${JSON.stringify(storeModule)});
    try { new FileSessionStore(${JSON.stringify(dir)}).open("p"); console.log("opened"); }
    catch (e) { console.log(JSON.stringify({ code: e.code, cause: e.cause?.code, message: e.message })); }`;
  // Root may write anywhere: run the attempt as an unprivileged user when we are root.
  const asNobody = process.getuid?.() === 0;
  if (asNobody) {
    fs.chmodSync(path.dirname(dir), 0o755);
    const probe = spawnSync("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, "-e", `require(${JSON.stringify(storeModule)})`], { encoding: "utf8" });
    if (probe.status !== 0) return t.skip(`an unprivileged user cannot load the package from ${root} (${probe.stderr.split("\n")[0]})`);
  }
  const argv = asNobody ? ["setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", process.execPath, "-e", script]] : [process.execPath, ["-e", script]];
  const out = execFileSync(argv[0], argv[1], { encoding: "utf8" });
  const result = JSON.parse(out);
  assert.equal(result.code, "ERR_STORE_UNWRITABLE", out);
  assert.ok(["EACCES", "EPERM"].includes(result.cause), out);
  assert.equal(fs.readdirSync(dir).length, 0, "nothing was created");
});

test("the session file deleted while open: the next write says so and nothing is written anywhere", () => {
  const dir = fresh();
  const store = new FileSessionStore(dir);
  const j = store.open("gone");
  j.write(record("one"));
  fs.rmSync(path.join(dir, "gone.jsonl"));
  assert.throws(() => j.write(record("two")), (e) => e.code === "ERR_SESSION_REMOVED" && /deleted while open/.test(e.message));
  assert.equal(fs.existsSync(path.join(dir, "gone.jsonl")), false, "not recreated");
  j.close();
});

test("a record over the maximum line size is refused at write; a longer line on disk is a warning at replay", () => {
  const dir = fresh();
  const store = new FileSessionStore(dir, { maxLineBytes: 4096 });
  const j = store.open("big");
  j.write(record("small"));
  const before = j.state();
  assert.throws(() => j.write(record("x".repeat(10_000))), (e) => e.code === "ERR_LINE_TOO_LONG" && /maximum line size of 4096 bytes/.test(e.message));
  assert.deepEqual(j.state(), before, "memory unchanged");
  const file = path.join(dir, "big.jsonl");
  assertWholeAndInAgreement(file, j);
  j.close();
  // A line written by someone else, over the maximum: skipped with a warning, the lines around it read.
  fs.appendFileSync(file, JSON.stringify(record("y".repeat(10_000))) + "\n" + JSON.stringify(record("after")) + "\n");
  const state = store.replay("big");
  assert.equal(state.prompts, 2);
  assert.deepEqual(state.warnings.map((w) => [w.line, w.kind]), [[2, "line-too-long"]]);
  // The default maximum is 64 MiB, and the Journal option is checked.
  assert.throws(() => new session.Journal({ maxLineBytes: -1 }), /maxLineBytes/);
  assert.throws(() => new session.Journal({ maxLineBytes: "big" }), /maxLineBytes/);
});

test("errors carry stable codes: a bad id, a locked session", () => {
  const dir = fresh();
  const store = new FileSessionStore(dir);
  assert.throws(() => store.open("../x"), (e) => e.code === "ERR_BAD_SESSION_ID");
  const j = store.open("locked");
  assert.throws(() => store.open("locked"), (e) => e.code === "ERR_SESSION_LOCKED");
  j.close();
  assert.throws(() => j.write(record("late")), (e) => e.code === "ERR_JOURNAL_CLOSED");
});
