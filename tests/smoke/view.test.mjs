// session.messages is the core's view of the conversation (issue 20): the
// seed's thinking rules, live and after resume, checked through the layer
// against a fake API that signs thinking blocks over what came before them
// (support/fake-api.cjs, an oracle written apart from the core's rules).
// Also: open tool calls, resume metadata, closed sessions, undo and redo,
// subagent sessions, lone surrogates.
import { test, describe } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { DtsStore } from "./support/dts-store.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);
const agent = require(path.join(root, "pkg/node/agent.js"));
const core = require(path.join(root, "pkg/node/garuda_session.js"));
const { FakeApi } = require("./support/fake-api.cjs");
const { FileSessionStore, MemorySessionStore } = agent;

const SECRET = "pl4nted-S3CRET-value-0042";
const redactor = new core.Redactor({ env: { MY_API_TOKEN: SECRET } });
const stores = {
  FileSessionStore: () => new FileSessionStore(path.join(fs.mkdtempSync(path.join(tmpdir(), "garuda-view-")), "sessions"), { redactor }),
  MemorySessionStore: () => new MemorySessionStore({ redactor }),
  // Written from the .d.ts only (issue 20): the layer needs nothing undeclared.
  "a store written from the declarations only": () => new DtsStore(core, { redactor }),
};

/** Indices of the messages that hold a thinking block. */
const thinkingAt = (messages) => messages.flatMap((m, i) => (Array.isArray(m.content) && m.content.some((b) => b.type === "thinking") ? [i] : []));

/** One turn through the fake API: the history must be accepted, the answer's thinking is signed over it. */
function turn(api, s, step, { tool, thinkingText } = {}) {
  const model = s.model;
  const why = api.request(model, s.messages);
  assert.equal(why, null, `step ${step}: ${why}`);
  assert.deepEqual(core.checkMessages(s.messages, { thinking: true }), [], `step ${step}`);
  const text = thinkingText ?? `plan ${step}`;
  const content = [{ type: "thinking", thinking: text, signature: api.sign(model, s.messages, text) }, { type: "text", text: `step ${step}` }];
  if (tool) content.push({ type: "tool_use", id: tool, name: "bash", input: { command: "env" } });
  agent.addAssistantResponse(s, { content, usage: { inputTokens: 10, outputTokens: 5 } }, step, 0);
}

/** The session: a tool result redacted on disk (message 2), thinking at [1, 3, 5]. */
function sessionWithARedactedResult(store, api) {
  const s = agent.startSession(store, { model: "claude-m1", root: "/work", version: "1.2.3", limits: { maxSteps: 50, tokenBudget: 20000000 } });
  agent.addUserMessage(s, "go");
  turn(api, s, 1, { tool: "t1" });
  agent.addToolResults(s, [{ type: "tool_result", tool_use_id: "t1", content: `MY_API_TOKEN=${SECRET}` }], { calls: [{ toolUseId: "t1", name: "bash", durationMs: 1 }] });
  turn(api, s, 2);
  agent.addUserMessage(s, "more");
  turn(api, s, 3);
  assert.deepEqual(thinkingAt(s.messages), [1, 3, 5], "live, every block is kept");
  s.journal.close();
  return s.id;
}

for (const [name, make] of Object.entries(stores)) {
  describe(`the model view on ${name}`, () => {
    test("resume with the same model: thinking goes from the first message redacted on disk on (dropThinkingAfterRedaction)", async () => {
      const store = make();
      const api = new FakeApi();
      const id = sessionWithARedactedResult(store, api);
      const s = await agent.resumeSession(store, id, { model: "claude-m1" });
      assert.deepEqual(thinkingAt(s.messages), [1]);
      const state = core.rebuildState(await store.read(id));
      assert.deepEqual(s.messages, core.resumeMessages(state, { model: "claude-m1" }).map((m) => JSON.parse(JSON.stringify(m))), "the layer gives what resumeMessages gives");
      assert.equal(s.resumeReport.thinkingDropped["redacted-record"], 2);
      assert.match(api.refusal("claude-m1", state.messages) ?? "", /bound to a different conversation/, "the oracle refuses the history as on disk (what the layer sent before)");
      agent.addUserMessage(s, "again");
      turn(api, s, 4);
      agent.addUserMessage(s, "and again");
      turn(api, s, 5);
      assert.deepEqual(api.refused, []);
      assert.deepEqual(thinkingAt(s.messages), [1, 7, 9], "thinking written after the resume goes as it came");
      s.journal.close();
    });

    test("a tool_use id used again in a later turn goes renamed, live and after resume (the API refuses ids used twice)", async () => {
      const store = make();
      const api = new FakeApi();
      const s = agent.startSession(store, { model: "claude-m1" });
      const results = (id, content) => agent.addToolResults(s, [{ type: "tool_result", tool_use_id: id, content }], { calls: [{ toolUseId: id, name: "bash", durationMs: 1 }] });
      agent.addUserMessage(s, "go");
      turn(api, s, 1, { tool: "t1" });
      results("t1", "one");
      turn(api, s, 2);
      agent.addUserMessage(s, "again");
      turn(api, s, 3, { tool: "t1" });
      results("t1", "two");
      turn(api, s, 4);
      assert.deepEqual(api.refused, []);
      const asWritten = core.rebuildState(await store.read(s.id)).messages;
      assert.match(api.refusal("claude-m1", asWritten) ?? "", /`tool_use` ids must be unique/, "the oracle refuses the history as written");
      assert.deepEqual(core.checkMessages(asWritten, {}).map((p) => p.kind), ["tool-use-duplicate"], "checkMessages names it");
      const calls = s.messages.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((b) => b.type === "tool_use").map((b) => b.id) : []));
      assert.equal(new Set(calls).size, 2, `two distinct ids: ${calls}`);
      const live = JSON.parse(JSON.stringify(s.messages));
      s.journal.close();
      const again = await agent.resumeSession(store, s.id, { model: "claude-m1" });
      assert.deepEqual(JSON.parse(JSON.stringify(again.messages)), live, "live equals replay");
      assert.equal(api.refusal("claude-m1", again.messages), null);
      again.journal.close();
    });

    test("resume with another model: all thinking before it goes", async () => {
      const store = make();
      const api = new FakeApi();
      const id = sessionWithARedactedResult(store, api);
      const s = await agent.resumeSession(store, id, { model: "claude-m2" });
      assert.deepEqual(thinkingAt(s.messages), []);
      assert.match(api.refusal("claude-m2", core.rebuildState(await store.read(id)).messages.slice(0, 2)) ?? "", /made by claude-m1/, "the oracle refuses another model's thinking");
      agent.addUserMessage(s, "again");
      turn(api, s, 4);
      assert.deepEqual(api.refused, []);
      assert.deepEqual(thinkingAt(s.messages), [7]);
      s.journal.close();
    });

    test("a live switchModel drops the thinking before it; what follows keeps its own", () => {
      const store = make();
      const api = new FakeApi();
      const s = agent.startSession(store, { model: "claude-m1" });
      agent.addUserMessage(s, "go");
      turn(api, s, 1);
      const held = s.messages;
      agent.switchModel(s, "claude-m2");
      assert.equal(s.messages, held, "the same array, brought up to date");
      assert.deepEqual(thinkingAt(s.messages), []);
      agent.addUserMessage(s, "next");
      turn(api, s, 2, { tool: "t2" });
      agent.addToolResults(s, [{ type: "tool_result", tool_use_id: "t2", content: "ok" }]);
      turn(api, s, 3);
      assert.deepEqual(api.refused, []);
      assert.deepEqual(thinkingAt(s.messages), [3, 5]);
      s.journal.close();
    });

    test("a thinking block whose own text was redacted is left out (repairThinking); checkMessages flags it as written", async () => {
      const store = make();
      const api = new FakeApi();
      const s = agent.startSession(store, { model: "claude-m1" });
      agent.addUserMessage(s, "go");
      turn(api, s, 1);
      agent.addUserMessage(s, "what is the token?");
      turn(api, s, 2, { thinkingText: `the token is ${SECRET}` });
      s.journal.close();
      const state = core.rebuildState(await store.read(s.id));
      assert.ok(core.checkMessages(state.messages).some((p) => p.kind === "thinking-redacted"), "the disk's block would be refused");
      const r = await agent.resumeSession(store, s.id, { model: "claude-m1" });
      assert.deepEqual(thinkingAt(r.messages), [1]);
      assert.equal(api.request("claude-m1", r.messages), null);
      assert.deepEqual(core.checkMessages(r.messages), []);
      r.journal.close();
    });

    test("calls left open by a crash are answered once, by closeOpenToolCalls, and the fake API takes the history", async () => {
      const store = make();
      const api = new FakeApi();
      const s = agent.startSession(store, { model: "claude-m1" });
      agent.addUserMessage(s, "go");
      turn(api, s, 1, { tool: "t1" });
      assert.equal(s.journal.openToolCalls, 1, "tracked as the record arrived");
      s.journal.close(); // the crash: no result for t1
      const r = await agent.resumeSession(store, s.id, { model: "claude-m1" });
      assert.equal(r.messages.length, 2, "the view leaves t1 open for closeOpenToolCalls");
      assert.ok(agent.closeOpenToolCalls(r));
      assert.equal(agent.closeOpenToolCalls(r), null);
      assert.equal(r.messages[2].content[0].tool_use_id, "t1");
      turn(api, r, 2);
      assert.deepEqual(api.refused, []);
      const records = await store.read(s.id);
      assert.equal(records.filter((x) => x.synthetic).length, 1);
      r.journal.close();
    });

    test("resume records carry the session's metadata on, and the Session has it", async () => {
      const store = make();
      const api = new FakeApi();
      const id = sessionWithARedactedResult(store, api);
      const s = await agent.resumeSession(store, id, { model: "claude-m2" });
      assert.equal(s.root, "/work");
      assert.equal(s.version, "1.2.3");
      assert.deepEqual(s.limits, { maxSteps: 50, tokenBudget: 20000000 });
      const resume = (await store.read(id)).find((x) => x.type === "resume");
      assert.deepEqual([resume.root, resume.version, resume.model, resume.limits], ["/work", "1.2.3", "claude-m2", { maxSteps: 50, tokenBudget: 20000000 }]);
      s.journal.close();
    });

    test("undo returns the snapshot's tree and prompt; nothing to undo or redo has its own code", () => {
      const s = agent.startSession(make(), { model: "m1" });
      assert.throws(() => agent.undo(s), (e) => e.code === "ERR_NOTHING_TO_UNDO");
      agent.addUserMessage(s, "one");
      agent.addSnapshot(s, { tree: { files: 3 }, prompt: "two", durationMs: 1 });
      agent.addUserMessage(s, "two");
      const u = agent.undo(s, "tree-after");
      assert.deepEqual([u.tree, u.prompt, typeof u.line], [{ files: 3 }, "two", "string"]);
      assert.equal(s.messages.length, 1);
      const r = agent.redo(s);
      assert.equal(r.after, "tree-after");
      assert.equal(s.messages.length, 2);
      assert.throws(() => agent.redo(s), (e) => e.code === "ERR_NOTHING_TO_REDO");
      s.journal.close();
    });

    test("after a resume whose repair joined messages, undo takes back one turn of the conversation, not of the view", async () => {
      const store = make();
      const api = new FakeApi();
      const first = agent.startSession(store, { model: "claude-m1" });
      agent.addUserMessage(first, "go");
      turn(api, first, 1, { tool: "t1" });
      agent.addToolResults(first, [{ type: "tool_result", tool_use_id: "t1", content: "ok" }], { calls: [{ toolUseId: "t1", name: "bash", durationMs: 1 }] });
      agent.addUserMessage(first, "and now?"); // a prompt after the results: the repair joins them
      turn(api, first, 2);
      first.journal.close();
      const s = await agent.resumeSession(store, first.id, { model: "claude-m1" });
      const conversation = s.journal.messageCount;
      assert.ok(s.messages.length < conversation, "the view is shorter than the conversation");
      agent.addSnapshot(s, { tree: "t", prompt: "three", durationMs: 1 });
      agent.addUserMessage(s, "three");
      turn(api, s, 3);
      const before = s.messages.length;
      agent.undo(s);
      // The snapshot counts the conversation's messages (spec: the message
      // count before the turn): the undo takes the turn's two back, no more.
      assert.equal(s.journal.messageCount, conversation);
      assert.equal(s.messages.length, before - 2);
      if (typeof store.replay === "function") assert.equal(store.replay(s.id).messages.length, conversation, "replay agrees");
      agent.redo(s);
      assert.equal(s.messages.length, before);
      s.journal.close();
    });

    test("a call a crash left open, answered after the resume, is answered once through undo and redo", async () => {
      const store = make();
      const api = new FakeApi();
      const first = agent.startSession(store, { model: "claude-m1" });
      agent.addUserMessage(first, "go");
      turn(api, first, 1);
      agent.addSnapshot(first, { tree: "t", prompt: "two", durationMs: 1 });
      agent.addUserMessage(first, "two");
      turn(api, first, 2, { tool: "t2" });
      first.journal.close(); // the crash: t2 has no result
      const s = await agent.resumeSession(store, first.id, { model: "claude-m1" });
      agent.closeOpenToolCalls(s);
      const answered = s.messages.length;
      agent.undo(s);
      agent.redo(s);
      assert.equal(s.messages.length, answered);
      const results = s.messages.flatMap((m) => (Array.isArray(m.content) ? m.content : [])).filter((b) => b.type === "tool_result" && b.tool_use_id === "t2");
      assert.equal(results.length, 1, JSON.stringify(s.messages));
      assert.deepEqual(core.checkMessages(s.messages, { thinking: true }), []);
      agent.addUserMessage(s, "three");
      turn(api, s, 3); // the fake API takes the history, signed thinking and all
      s.journal.close();
    });

    test("every call on a closed session throws ERR_JOURNAL_CLOSED", () => {
      const s = agent.startSession(make(), { model: "m1" });
      agent.addUserMessage(s, "one");
      assert.equal(s.model, "m1"); // the figures cached before the close
      s.journal.close();
      const calls = {
        figures: () => s.figures(),
        usage: () => s.usage,
        messages: () => s.messages,
        model: () => s.model,
        messagesFrom: () => s.journal.messagesFrom(0),
        state: () => s.journal.state(),
        addUserMessage: () => agent.addUserMessage(s, "x"),
        closeOpenToolCalls: () => agent.closeOpenToolCalls(s),
        undo: () => agent.undo(s),
        redo: () => agent.redo(s),
        switchModel: () => agent.switchModel(s, "m2"),
        setTitle: () => agent.setTitle(s, "t"),
        endSession: () => agent.endSession(s, "done", 1),
        startChildSession: () => agent.startChildSession(s, "explore-1"),
      };
      for (const [what, call] of Object.entries(calls)) assert.throws(call, (e) => e.code === "ERR_JOURNAL_CLOSED", what);
    });

    test("startChildSession: a full Session for a subagent run, kept with its parent", async () => {
      const store = make();
      const parent = agent.startSession(store, { model: "claude-m1", root: "/work" });
      const child = agent.startChildSession(parent, "explore-t1", { model: "claude-haiku" });
      agent.addUserMessage(child, "look around");
      agent.addAssistantResponse(child, { content: [{ type: "text", text: "seen" }], usage: { inputTokens: 200, outputTokens: 20 } }, 1, 0.0001);
      agent.endSession(child, "done", 1);
      assert.deepEqual([child.id, child.parentId, child.root, child.model, child.steps, child.messages.length], ["explore-t1", parent.id, "/work", "claude-haiku", 1, 2]);
      assert.throws(() => agent.startChildSession(child, "x"), (e) => e.code === "ERR_INVALID_ARG");
      child.journal.close();
      assert.deepEqual(parent.messages, [], "the parent's conversation is its own");
      parent.journal.close();
    });

    test("half an emoji never empties the history: the prompt keeps its \\uD83D", async () => {
      const store = make();
      const s = agent.startSession(store, { model: "m1" });
      const half = "smile 😀".slice(0, -1);
      agent.addUserMessage(s, half);
      agent.addAssistantResponse(s, { content: [{ type: "text", text: `you said ${half}` }], usage: {} }, 1, 0);
      s.journal.close();
      const state = core.rebuildState(await store.read(s.id));
      const { messages, report } = core.repairForResume(state, { model: "m1" });
      assert.equal(messages.length, 2, JSON.stringify(report));
      assert.equal(messages[0].content, half);
      assert.equal(report.messagesRemoved, 0);
      const r = await agent.resumeSession(store, s.id, { model: "m1" });
      assert.equal(r.messages[0].content, half);
      assert.equal(r.messages[1].content[0].text, `you said ${half}`);
      r.journal.close();
    });
  });
}

test("a message of an unknown role goes with a report entry; a block of an unknown type stays", () => {
  const state = core.rebuildState(
    [
      { type: "user", message: { role: "user", content: "go" } },
      { type: "user", message: { role: "system", content: "be brief" } },
      { type: "assistant", response: { content: [{ type: "text", text: "ok" }, { type: "hologram", data: 1 }], usage: {} } },
    ].map((r) => JSON.stringify(r)),
  );
  const { messages, report } = core.repairForResume(state, {});
  assert.equal(report.messagesRemoved, 1, "the system message is counted");
  assert.deepEqual(report.notMessages, [{ message: 1, line: 2, problem: "a role the API does not take (only user and assistant)" }]);
  assert.deepEqual(messages.map((m) => m.role), ["user", "assistant"]);
  assert.deepEqual(messages[1].content[1], { type: "hologram", data: 1 }, "newer API blocks survive older code");
});
