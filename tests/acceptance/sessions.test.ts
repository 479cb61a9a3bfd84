// The behaviours Garuda's own tests checked (seed 000: test/sessions.test.ts
// and test/sessionCommands.test.ts), ported to @garuda/session and
// type-checked with tsc --strict: what Garuda keeps when it deletes its
// src/session and imports this package. Compiled and run by
// tests/smoke/acceptance.test.mjs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import {
  FileSessionStore,
  MemorySessionStore,
  type Session,
  type SessionStore,
  startSession,
  resumeSession,
  addUserMessage,
  addAssistantResponse,
  addToolResults,
  closeOpenToolCalls,
  addCompaction,
  addSnapshot,
  undo,
  redo,
  switchModel,
  setTitle,
} from "@garuda/session/agent";
import { Redactor, rebuildState, resumeMessages, checkMessages, summariseSession, formatCost, type ContentBlock } from "@garuda/session";

const SECRET = "sk-ant-api03-" + "Q".repeat(40) + "x".repeat(53) + "AA";
const fresh = (): FileSessionStore => new FileSessionStore(path.join(mkdtempSync(path.join(tmpdir(), "acceptance-")), "sessions"), { redactor: new Redactor({ env: {} }) });
const thinking = (text: string, signature: string): ContentBlock => ({ type: "thinking", thinking: text, signature });
const toolUse = (id: string): ContentBlock => ({ type: "tool_use", id, name: "bash", input: { command: "ls" } });

function turn(s: Session, step: number, blocks: ContentBlock[]): void {
  addAssistantResponse(s, { content: blocks, usage: { inputTokens: 100 * step, outputTokens: 10 } }, step, 0.001);
}

// sessions.test.ts: journal
test("journal: every change is one record, and the journal matches memory", async () => {
  const store = fresh();
  const s = startSession(store, { model: "claude-a", root: "/repo" });
  addUserMessage(s, "list the files");
  turn(s, 1, [toolUse("t1")]);
  addToolResults(s, [{ type: "tool_result", tool_use_id: "t1", content: "a.ts b.ts" }], { calls: [{ toolUseId: "t1", name: "bash", durationMs: 3 }] });
  const records = await store.read(s.id);
  assert.deepEqual(records.map((r) => r.type), ["start", "user", "assistant", "tool_results"]);
  const replayed = rebuildState(records);
  assert.equal(replayed.messages.length, s.messages.length);
  assert.deepEqual(replayed.usage, s.usage);
});

// sessions.test.ts: redaction
test("redaction: the model sees a secret, the disk does not, and code like tokenBudget stays", async () => {
  const store = fresh();
  const s = startSession(store, { model: "claude-a", limits: { tokenBudget: 20000000 } });
  addUserMessage(s, "read the config");
  turn(s, 1, [toolUse("t1")]);
  addToolResults(s, [{ type: "tool_result", tool_use_id: "t1", content: `ANTHROPIC_API_KEY=${SECRET}\ntokenBudget: 20000000` }]);
  assert.ok(JSON.stringify(s.messages).includes(SECRET));
  const disk = readFileSync(path.join(store.dir, `${s.id}.jsonl`), "utf8");
  assert.ok(!disk.includes(SECRET));
  assert.ok(disk.includes("tokenBudget: 20000000") && disk.includes('"tokenBudget":20000000'));
});

// sessions.test.ts: resume
test("resume: the latest session, a resume record, the same file; thinking of an earlier model is left out", async () => {
  const store = fresh();
  const s = startSession(store, { model: "claude-a" });
  addUserMessage(s, "plan");
  turn(s, 1, [thinking("a plan", "sig-a"), { type: "text", text: "planned" }]);
  s.journal.close();
  const resumed = await resumeSession(store, undefined, { model: "claude-b" });
  assert.equal(resumed.id, s.id);
  addUserMessage(resumed, "go on");
  const history = resumeMessages(rebuildState(await store.read(s.id)), { model: "claude-b" });
  assert.ok(!JSON.stringify(history).includes("sig-a"), "claude-a's thinking is not sent to claude-b");
  assert.deepEqual(checkMessages(history), []);
  resumed.journal.close();
});

test("resume after a crash between a tool call and its result: closeOpenToolCalls keeps the API's rules", async () => {
  const store = fresh();
  const s = startSession(store, { model: "claude-a" });
  addUserMessage(s, "run two things");
  turn(s, 1, [toolUse("t1"), toolUse("t2")]);
  addToolResults(s, [{ type: "tool_result", tool_use_id: "t1", content: "done" }]);
  s.journal.close(); // the crash: t2 never answered
  const again = await resumeSession(store, s.id, { model: "claude-a" });
  assert.notEqual(closeOpenToolCalls(again), null);
  addUserMessage(again, "carry on");
  assert.deepEqual(checkMessages(again.messages), []);
  again.journal.close();
});

// sessions.test.ts: replay
test("replay: compaction, snapshot, undo and redo replay to what memory holds", async () => {
  const store: SessionStore = new MemorySessionStore();
  const s = startSession(store, { model: "claude-a" });
  addUserMessage(s, "one");
  turn(s, 1, [{ type: "text", text: "1" }]);
  addSnapshot(s, { tree: "t", prompt: "two", durationMs: 1 });
  addUserMessage(s, "two");
  turn(s, 2, [{ type: "text", text: "2" }]);
  undo(s, "after");
  redo(s);
  addCompaction(s, { stage: 1, beforeTokens: 5000, afterTokens: 300, messages: [{ role: "user", content: "summary so far" }] });
  const state = rebuildState(await store.read(s.id));
  assert.deepEqual(state.messages, s.messages);
  assert.equal(state.contextTokens, 300);
});

// sessionCommands.test.ts: /sessions, /models, /export, /compact, rename, delete
test("/sessions lists newest first; rename keeps the time; delete removes the session and its children", async () => {
  const store = fresh();
  const a = startSession(store, { id: "20261130-100000-aaaa", model: "claude-a" });
  addUserMessage(a, "first session prompt");
  a.journal.close();
  await new Promise((r) => setTimeout(r, 20));
  const b = startSession(store, { id: "20261130-100001-bbbb", model: "claude-a" });
  addUserMessage(b, "second session prompt");
  const child = store.openChild(b.id, "explore-toolu_1");
  child.write({ type: "user", message: { role: "user", content: "child work" } });
  child.close();
  const rows = await store.list();
  assert.deepEqual(rows.map((r) => r.id), [b.id, a.id]);
  const row = summariseSession(a.id, rows[1].updated, await store.read(a.id));
  assert.equal(row.prompt, "first session prompt");
  await store.setTitle(a.id, "Renamed");
  assert.equal((await store.list())[1].updated.getTime(), rows[1].updated.getTime());
  setTitle(b, "Renamed while open");
  await store.remove(b.id);
  assert.deepEqual((await store.list()).map((r) => r.id), [a.id]);
});

test("/models switches the model, /compact compacts, and the cost stays honest", async () => {
  const store = fresh();
  const s = startSession(store, { model: "claude-a" });
  addUserMessage(s, "hi");
  turn(s, 1, [thinking("t", "sig"), { type: "text", text: "hello" }]);
  switchModel(s, "claude-b");
  assert.equal(s.model, "claude-b");
  addAssistantResponse(s, { content: [{ type: "text", text: "no price" }], usage: { inputTokens: 5 } }, 2);
  assert.equal(s.costUsd, null, "an unknown price is an unknown cost, never $0");
  assert.equal(formatCost(s.figures() as never), "unknown");
  addCompaction(s, { stage: 2, beforeTokens: 900, afterTokens: 120, messages: [{ role: "user", content: "summary" }], summary: { content: [{ type: "text", text: "summary" }], usage: { inputTokens: 900, outputTokens: 120 } }, costUsd: 0.01 });
  assert.equal(s.contextTokens, 120);
  s.journal.close();
});
