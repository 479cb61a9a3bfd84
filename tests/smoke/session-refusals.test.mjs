// What the session layer refuses leaves the store as it was. Found by a
// new-user review (stop 48): resuming an id no session has started a blank
// session; a start record the journal refused left an empty session file
// that `latest()` then named; a strict resume of a file with a torn last
// line wrote its newline before refusing, and called it bad JSON; calling
// startSession without a store threw a TypeError with no code.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);
const agent = require(path.join(root, "pkg/node/agent.js"));

const fresh = () => fs.mkdtempSync(path.join(tmpdir(), "garuda-refusals-"));
/** Every file under `dir` with its bytes: what "the store as it was" means on disk. */
const snapshot = (dir) =>
  Object.fromEntries(fs.readdirSync(dir, { recursive: true }).sort().map((f) => [f, fs.statSync(path.join(dir, f)).isFile() ? fs.readFileSync(path.join(dir, f), "utf8") : "<dir>"]));

/** The stores a user can make without a server: [name, make()], the file store with its folder. */
const stores = () => {
  const dir = fresh();
  return [
    ["FileSessionStore", new agent.FileSessionStore(dir), dir],
    ["MemorySessionStore", new agent.MemorySessionStore(), null],
  ];
};

test("resuming an id no session has is ERR_NO_SESSION, and creates nothing", async () => {
  for (const [name, store, dir] of stores()) {
    const s = agent.startSession(store, { model: "claude-sonnet-4-5" });
    s.journal.close();
    const before = dir && snapshot(dir);
    const ids = (await store.list()).map((r) => r.id);
    await assert.rejects(agent.resumeSession(store, "20990101-000000-zzzz"), { code: "ERR_NO_SESSION" }, name);
    assert.deepEqual((await store.list()).map((r) => r.id), ids, `${name}: no session was added`);
    if (dir) assert.deepEqual(snapshot(dir), before, `${name}: the folder is as it was`);
    assert.equal(await store.exists("20990101-000000-zzzz"), false);
    assert.equal(await store.exists(s.id), true);
  }
});

test("a start record the journal refuses is ERR_BAD_RECORD, and leaves no session behind", async () => {
  for (const [name, store, dir] of stores()) {
    const kept = agent.startSession(store, { model: "claude-sonnet-4-5" });
    kept.journal.close();
    const latest = await store.latest();
    const before = dir && snapshot(dir);
    assert.throws(() => agent.startSession(store, { model: 5 }), { code: "ERR_BAD_RECORD" }, name);
    assert.equal(await store.latest(), latest, `${name}: the latest session is still the real one`);
    assert.equal((await store.list()).length, 1, `${name}: no empty session`);
    if (dir) assert.deepEqual(snapshot(dir), before, `${name}: the folder is as it was`);
    // And resuming the latest resumes the real one.
    const again = await agent.resumeSession(store);
    assert.equal(again.id, kept.id);
    again.journal.close();
  }
});

test("bad arguments to startSession, resumeSession and switchModel are errors with a code", async () => {
  const s = agent.startSession(new agent.MemorySessionStore(), { model: "claude-sonnet-4-5" });
  for (const model of ["", "  ", 5, undefined]) assert.throws(() => agent.switchModel(s, model), { code: "ERR_INVALID_ARG" }, String(model));
  assert.equal(s.journal.figures().model, "claude-sonnet-4-5", "no model record was written");
  assert.throws(() => agent.startSession(), { code: "ERR_INVALID_ARG_TYPE" });
  assert.throws(() => agent.startSession({}), { code: "ERR_INVALID_ARG_TYPE" });
  assert.throws(() => agent.startSession(new agent.MemorySessionStore(), 5), { code: "ERR_INVALID_ARG_TYPE" });
  await assert.rejects(agent.resumeSession(undefined, "x"), { code: "ERR_INVALID_ARG_TYPE" });
  // A store made with a bad folder says so when made, not at its first open with Node's path error.
  for (const dir of [5, "", null]) assert.throws(() => new agent.FileSessionStore(dir), { code: "ERR_INVALID_ARG_TYPE" }, String(dir));
});

test("a strict resume of a file with a torn last line refuses it as a torn tail, before anything is written", async () => {
  const dir = fresh();
  const store = new agent.FileSessionStore(dir);
  const s = agent.startSession(store, { model: "claude-sonnet-4-5" });
  agent.addUserMessage(s, "hello");
  s.journal.close();
  const file = path.join(dir, `${s.id}.jsonl`);
  fs.appendFileSync(file, '{"type":"user","mess');
  const bytes = fs.readFileSync(file);
  await assert.rejects(agent.resumeSession(store, s.id, { strict: true }), (e) => {
    assert.equal(e.code, "ERR_JOURNAL_CORRUPT");
    assert.equal(e.kind, "torn-tail", "the kind a strict load of the file gives");
    assert.equal(e.line, 3);
    return true;
  });
  assert.deepEqual(fs.readFileSync(file), bytes, "the file is byte for byte as it was");
  // A resume that is not strict continues it: the torn line is ended first, its bytes kept.
  const again = await agent.resumeSession(store, s.id);
  agent.addUserMessage(again, "after");
  again.journal.close();
  const text = fs.readFileSync(file, "utf8");
  assert.ok(text.includes('{"type":"user","mess\n'), "the torn bytes stay, ended");
  const state = store.replay(s.id);
  assert.equal(state.tornTail, false);
  assert.deepEqual(state.warnings.map((w) => [w.line, w.kind]), [[3, "bad-json"]]);
  assert.equal(state.prompts, 2);
});

// Found by a new user's review (stop 61): these threw TypeErrors with no
// code (`notes.map is not a function`, reading a field of null, the
// glue's `undefined.length`, JSON.stringify of a BigInt inside the error
// message itself), and Diagnoser.feed(123) was taken as no bytes.
test("odd arguments are an Error with a code, and null stands for an optional argument left out", () => {
  const core = require(path.join(root, "pkg/node/garuda_session.js"));
  const store = new agent.MemorySessionStore();
  const s = agent.startSession(store, { model: "claude-sonnet-4-5" });
  const coded = (fn, what) => assert.throws(fn, (e) => e instanceof Error && typeof e.code === "string" && e.code.startsWith("ERR_"), what);
  coded(() => agent.addUserMessage(s, "hi", "a note"), "notes as a string");
  coded(() => agent.addUserMessage(s, "hi", [], [1]), "an attachment that is no string");
  coded(() => agent.addToolResults(s, "results"), "results that are no array");
  coded(() => agent.switchModel(s, 10n), "a BigInt model");
  coded(() => agent.startChildSession(s, "c1", 5), "options that are no object");
  const before = s.messages.length;
  agent.addUserMessage(s, "hi", null, null);
  agent.addUserMessage(s, "again", undefined, ["file"]);
  assert.equal(s.messages.length, before + 2, "null notes and attachments are none");
  const child = agent.startChildSession(s, "explore-c1", null);
  assert.equal(child.id, "explore-c1");
  const d = new core.Diagnoser();
  for (const bad of [undefined, null, 123, "text"]) coded(() => d.feed(bad), `Diagnoser.feed(${String(bad)})`);
  d.feed(new Uint8Array(Buffer.from('{"type":"user"}\n')));
  assert.equal(typeof d.finish(), "object");
  const j = new core.Journal();
  j.feed('{"type":"user","message":{"role":"user","content":"x"},"t":"2026-01-01T00:00:00Z"}\n');
  coded(() => j.viewFrom(10n), "viewFrom(BigInt)");
  coded(() => j.messagesFrom(Symbol("x")), "messagesFrom(Symbol)");
  assert.equal(j.messagesFrom(0).messages.length, 1);
  assert.equal(j.viewFrom(0).length, 1);
});

// A new-user review (stop 62): startSession with the id of a session that
// has a journal appended a second `start` and handed the model the old
// conversation as the new session's.
test("starting an id that has a journal is ERR_SESSION_EXISTS, and writes nothing", async () => {
  for (const [name, store, dir] of stores()) {
    const s = agent.startSession(store, { id: "job-42", model: "claude-sonnet-4-5" });
    agent.addUserMessage(s, "the first run's prompt");
    s.journal.close();
    const before = dir && snapshot(dir);
    assert.throws(() => agent.startSession(store, { id: "job-42", model: "claude-opus-4-5" }), { code: "ERR_SESSION_EXISTS" }, name);
    if (dir) assert.deepEqual(snapshot(dir), before, `${name}: the store is as it was`);
    const again = await agent.resumeSession(store, "job-42");
    assert.equal(again.messages.length, 1, `${name}: the session resumes, and was not locked by the refusal`);
    again.journal.close();
  }
});
