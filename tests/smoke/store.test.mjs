// @garuda/session/node, the file store, for real: files, modes, locks, and a
// writer killed with SIGKILL in the middle of its records.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, statSync, readFileSync, existsSync, appendFileSync, utimesSync, mkdirSync, writeFileSync } from "node:fs";
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);
const { FileSessionStore } = require(path.join(root, "pkg/node/store.js"));

const fresh = () => path.join(mkdtempSync(path.join(tmpdir(), "garuda-store-")), "sessions");
const record = (text) => ({ t: new Date().toISOString(), type: "user", message: { role: "user", content: text } });

test("ids are validated before anything touches the disk", async () => {
  const dir = fresh();
  const store = new FileSessionStore(dir);
  for (const bad of ["../x", "a/b", "", "x y", "..", "a\u0000b"]) {
    assert.throws(() => store.open(bad), /is not a session id/);
    await assert.rejects(() => store.remove(bad), /is not a session id/);
  }
  assert.throws(() => store.openChild("../up", "ok"), /session id/);
  assert.throws(() => store.openChild("ok", "../.."), /child id/);
  assert.equal(existsSync(dir), false, "nothing was created");
});

test("the folder is 0700, files are 0600, and secrets are redacted on the way", () => {
  const dir = fresh();
  const store = new FileSessionStore(dir, {});
  const j = store.open("s1");
  j.write({ type: "start", sessionId: "s1", model: "m" });
  j.write(record("use 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 now"));
  j.close();
  assert.equal(statSync(dir).mode & 0o777, 0o700);
  assert.equal(statSync(path.join(dir, "s1.jsonl")).mode & 0o777, 0o600);
  const text = readFileSync(path.join(dir, "s1.jsonl"), "utf8");
  assert.ok(!text.includes("ghp_"), text);
  assert.ok(text.endsWith("\n"));
  assert.equal(store.replay("s1").prompts, 1);
});

test("latest ignores child folders, list is newest first, setTitle keeps the file time, remove takes the folder", async () => {
  const dir = fresh();
  const store = new FileSessionStore(dir);
  for (const [id, when] of [["old", 1_000_000], ["new", 2_000_000]]) {
    const j = store.open(id);
    j.write(record(`prompt of ${id}`));
    j.close();
    utimesSync(path.join(dir, `${id}.jsonl`), when, when);
  }
  const child = store.openChild("old", "explore-toolu_1");
  child.write(record("child work"));
  child.close();
  utimesSync(path.join(dir, "old.jsonl"), 1_000_000, 1_000_000);
  assert.equal(await store.latest(), "new");
  const rows = await store.list();
  assert.deepEqual(rows.map((r) => r.id), ["new", "old"]);
  assert.ok(rows[0].updated instanceof Date);
  assert.equal(store.summaries()[1].prompt, "prompt of old");
  const before = statSync(path.join(dir, "old.jsonl")).mtimeMs;
  await store.setTitle("old", "Renamed");
  assert.equal(statSync(path.join(dir, "old.jsonl")).mtimeMs, before);
  assert.equal(store.summaries()[1].title, "Renamed");
  assert.equal((await store.read("old")).at(-1).type, "title");
  await store.remove("old");
  assert.equal(existsSync(path.join(dir, "old.jsonl")), false);
  assert.equal(existsSync(path.join(dir, "old")), false);
  assert.deepEqual((await store.list()).map((r) => r.id), ["new"]);
});

// A child process that opens the session and appends 200 KB records forever.
const writerScript = (dir) => `
  const { FileSessionStore } = require(${JSON.stringify(path.join(root, "pkg/node/store.js"))});
  const j = new FileSessionStore(${JSON.stringify(dir)}).open("crash");
  process.stdout.write("open\\n");
  const big = "x".repeat(200000);
  for (let i = 0; ; i++) j.write({ type: "user", message: { role: "user", content: i + " " + big } });
`;

function startWriter(dir) {
  const child = spawn(process.execPath, ["-e", writerScript(dir)], { stdio: ["ignore", "pipe", "inherit"] });
  const opened = new Promise((resolve) => child.stdout.once("data", resolve));
  return { child, opened };
}

test("a writer killed with SIGKILL loses at most the line in progress; the next write starts a fresh line", async () => {
  const dir = fresh();
  const { child, opened } = startWriter(dir);
  await opened;
  await new Promise((r) => setTimeout(r, 400));
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await exited;
  const store = new FileSessionStore(dir);
  const state = store.replay("crash");
  assert.ok(state.prompts > 0, "some records were written");
  assert.deepEqual(state.warnings, [], "every complete line replays");
  const text = readFileSync(path.join(dir, "crash.jsonl"), "utf8");
  const complete = text.split("\n").length - 1;
  assert.equal(state.prompts, complete, "every complete line is a record");
  assert.equal(state.tornTail, !text.endsWith("\n"));
  // The writer's lock is stale now: a new writer takes it over, and says whose.
  const j = store.open("crash");
  assert.equal(j.staleLockPid, child.pid, "the open names the writer that died holding the lock");
  j.write(record("after the crash"));
  j.close();
  const after = store.replay("crash");
  assert.equal(after.tornTail, false);
  assert.equal(after.prompts, state.prompts + 1, "the new record is whole");
  assert.ok(after.warnings.length <= 1, "at most the torn line, now ended, is reported");
});

test("a torn tail is ended, not cut: its bytes stay and the next record is whole", () => {
  const dir = fresh();
  const store = new FileSessionStore(dir);
  const j = store.open("torn");
  j.write(record("one"));
  j.close();
  appendFileSync(path.join(dir, "torn.jsonl"), '{"type":"user","mess');
  assert.equal(store.replay("torn").tornTail, true);
  const again = store.open("torn");
  assert.equal(again.repairedTornTail, true);
  again.write(record("two"));
  again.close();
  const state = store.replay("torn");
  assert.equal(state.prompts, 2);
  assert.deepEqual(state.warnings.map((w) => [w.line, w.kind]), [[2, "bad-json"]]);
  assert.ok(readFileSync(path.join(dir, "torn.jsonl"), "utf8").includes('{"type":"user","mess\n'));
});

test("two processes cannot write one session: the second is refused while the first lives", async () => {
  const dir = fresh();
  const { child, opened } = startWriter(dir);
  await opened;
  const store = new FileSessionStore(dir);
  assert.throws(() => store.open("crash"), /open for writing in process \d+/);
  const exited = new Promise((r) => child.once("exit", r));
  child.kill("SIGKILL");
  await exited;
  const j = store.open("crash");
  j.close();
  assert.equal(existsSync(path.join(dir, "crash.lock")), false, "close releases the lock");
});

test("a lock file left by a dead process is taken over", () => {
  const dir = fresh();
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, "s.lock"), "999999999");
  const store = new FileSessionStore(dir);
  const j = store.open("s");
  assert.equal(j.staleLockPid, 999999999);
  j.close();
  const free = store.open("s");
  assert.equal(free.staleLockPid, null, "a lock released by close is no takeover");
  free.close();
});

test("an empty lock under two seconds old is refused in words, not as process NaN; older, it is taken over", () => {
  const dir = fresh();
  mkdirSync(dir, { recursive: true });
  const lock = path.join(dir, "e.lock");
  writeFileSync(lock, "");
  const store = new FileSessionStore(dir);
  assert.throws(
    () => store.open("e"),
    (e) => e.code === "ERR_SESSION_LOCKED" && /lock .* is empty/.test(e.message) && !/NaN/.test(e.message),
  );
  const old = new Date(Date.now() - 10_000);
  utimesSync(lock, old, old);
  const j = store.open("e");
  assert.equal(j.staleLockPid, 0, "an empty stale lock has no pid");
  j.close();
});
