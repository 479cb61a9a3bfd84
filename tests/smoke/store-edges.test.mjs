// The file store's smaller edges, each once a defect: a lock whose write
// failed leaked its descriptor and left a 0-byte lock; an id over 255 bytes
// gave a raw ENAMETOOLONG; child-id cleaning mapped `../../x` and `------x`
// to one journal; a UTF-8 BOM dropped the start record; a file that grew
// while it was replayed was read on and on.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);
const { FileSessionStore, MemorySessionStore } = require(path.join(root, "pkg/node/store.js"));
const { cleanChildId } = require(path.join(root, "pkg/node/journal-base.js"));
const bin = path.join(root, "pkg/bin/garuda-session.cjs");

const fresh = () => path.join(fs.mkdtempSync(path.join(tmpdir(), "garuda-edges-")), "sessions");
const record = (text) => ({ t: "2026-12-01T00:00:00.000Z", type: "user", message: { role: "user", content: text } });
const line = (text) => JSON.stringify(record(text)) + "\n";
const openFds = () => fs.readdirSync("/proc/self/fd").length;

test("a lock whose write fails (a full disk): a coded error, no descriptor leaked, no lock or temporary file left", (t) => {
  if (!fs.existsSync("/proc/self/fd")) return t.skip("no /proc/self/fd to count descriptors");
  const dir = fresh();
  const store = new FileSessionStore(dir);
  store.open("warm").close(); // the folder and the module's own descriptors, before counting
  const before = openFds();
  const real = fs.writeSync;
  fs.writeSync = () => {
    const e = new Error("ENOSPC: no space left on device, write");
    e.code = "ENOSPC";
    throw e;
  };
  let error;
  try {
    store.open("full");
  } catch (e) {
    error = e;
  } finally {
    fs.writeSync = real;
  }
  assert.equal(error?.code, "ERR_STORE_UNWRITABLE", String(error));
  assert.equal(error.cause?.code, "ENOSPC");
  assert.equal(openFds(), before, "no descriptor leaked");
  assert.deepEqual(fs.readdirSync(dir).sort(), ["warm.jsonl"], "no 0-byte lock, no temporary file");
  const j = store.open("full");
  j.write(record("once there is room"));
  j.close();
  assert.equal(store.replay("full").prompts, 1);
});

test("an id too long for a file name is ERR_BAD_SESSION_ID, not a raw ENAMETOOLONG", async () => {
  const store = new FileSessionStore(fresh());
  for (const id of ["a".repeat(256), "a".repeat(201)]) {
    assert.throws(() => store.open(id), (e) => e.code === "ERR_BAD_SESSION_ID" && /bytes long/.test(e.message), id.length);
    assert.throws(() => store.replay(id), (e) => e.code === "ERR_BAD_SESSION_ID");
    await assert.rejects(() => store.read(id), (e) => e.code === "ERR_BAD_SESSION_ID");
  }
  const longest = "a".repeat(200);
  const j = store.open(longest);
  j.write(record("the longest id works, lock and all"));
  j.close();
  assert.equal(store.replay(longest).prompts, 1);
});

test("child ids are encoded, not dropped: different ids, different journals; plain ids keep their names", () => {
  const tricky = ["../../x", "------x", "..-..-x", "a.b", "a-b", "a_b", "a__b", "a__2Eb", "a b", "a/b", "a\\b", "é", "e\u0301", "x".repeat(300), "x".repeat(299) + "y"];
  const names = tricky.map(cleanChildId);
  assert.equal(new Set(names).size, tricky.length, `one name each: ${JSON.stringify(names)}`);
  for (const n of names) {
    assert.match(n, /^[A-Za-z0-9_-]+$/, n);
    assert.ok(n.length <= 200, n);
  }
  for (const plain of ["explore-toolu_01ABC", "agent-reviewer-call_9", "------x", "a_b"]) assert.equal(cleanChildId(plain), plain);
  assert.throws(() => cleanChildId("../.."), (e) => e.code === "ERR_BAD_SESSION_ID");

  // Through both stores: the two ids the old cleaning merged stay apart.
  const dir = fresh();
  for (const store of [new FileSessionStore(dir), new MemorySessionStore()]) {
    for (const id of ["../../x", "------x"]) {
      const c = store.openChild("parent", id);
      c.write(record(`run ${id}`));
      c.close();
    }
  }
  const files = fs.readdirSync(path.join(dir, "parent")).filter((f) => f.endsWith(".jsonl")).sort();
  assert.equal(files.length, 2, JSON.stringify(files));
  for (const f of files) assert.equal(fs.readFileSync(path.join(dir, "parent", f), "utf8").split("\n").filter(Boolean).length, 1, `${f}: one run's record`);
});

test("a UTF-8 byte-order mark at the start: the start record is read, by replay, read and a writer", async () => {
  const dir = fresh();
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const start = JSON.stringify({ t: "2026-12-01T00:00:00.000Z", type: "start", sessionId: "bom", model: "m" });
  fs.writeFileSync(path.join(dir, "bom.jsonl"), "\uFEFF" + start + "\n" + line("hello"));
  const store = new FileSessionStore(dir);
  const state = store.replay("bom");
  assert.equal(state.sessionId, "bom");
  assert.equal(state.model, "m");
  assert.deepEqual(state.warnings, []);
  assert.deepEqual((await store.read("bom")).map((r) => r.type), ["start", "user"]);
  const j = store.open("bom");
  assert.equal(j.state().sessionId, "bom");
  j.write(record("more"));
  j.close();
  assert.equal(store.replay("bom").prompts, 2);
  const cli = spawnSync(process.execPath, [bin, "replay", path.join(dir, "bom.jsonl"), "--json"], { encoding: "utf8" });
  assert.equal(cli.status, 0, cli.stdout + cli.stderr);
  assert.equal(JSON.parse(cli.stdout).sessionId, "bom");
});

/** A hook that appends a record to `file` at each read of it (a writer that is always ahead), at most `times`. */
const GROWER = (file, times) => `
  const fs = require("node:fs");
  const real = fs.readSync;
  let n = 0;
  fs.readSync = function (fd, ...rest) {
    try {
      if (n < ${times} && fs.fstatSync(fd).ino === fs.statSync(${JSON.stringify(file)}).ino) {
        n++;
        fs.appendFileSync(${JSON.stringify(file)}, ${JSON.stringify(line("x".repeat(1 << 20)))});
      }
    } catch {}
    return real.call(this, fd, ...rest);
  };`;

test("a file that grows while it is replayed is read to its size at open, by the store and by the CLI", () => {
  const dir = fresh();
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = path.join(dir, "grows.jsonl");
  fs.writeFileSync(file, line("one") + line("two") + line("y".repeat(5 << 20)));
  const hook = path.join(path.dirname(dir), "grow.cjs");
  fs.writeFileSync(hook, GROWER(file, 40));

  // The store, in a process of its own with the hook loaded first.
  const viaStore = spawnSync(process.execPath, ["--require", hook, "-e", `console.log(new (require(${JSON.stringify(path.join(root, "pkg/node/store.js"))}).FileSessionStore)(${JSON.stringify(dir)}).replay("grows").prompts)`], { encoding: "utf8" });
  assert.equal(viaStore.status, 0, viaStore.stderr);
  assert.equal(Number(viaStore.stdout), 3, "the three records there at open, none of those appended while reading");
  assert.ok(fs.statSync(file).size > 7 << 20, "the file did grow while it was read");

  fs.writeFileSync(file, line("one") + line("two") + line("y".repeat(5 << 20)));
  const viaCli = spawnSync(process.execPath, ["--require", hook, bin, "replay", file, "--json"], { encoding: "utf8" });
  assert.equal(viaCli.status, 0, viaCli.stderr);
  assert.equal(JSON.parse(viaCli.stdout).prompts, 3);
});
