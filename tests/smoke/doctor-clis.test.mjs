// The doctor's repaired Claude Code and Codex sessions resumed by the
// agents' own CLIs (pinned, installed by .ci/install-agents into
// .ci/agents/clis/), offline: each fixture goes through `garuda-session
// doctor --fix -o`, the copy is put where the CLI looks for its sessions (a
// temporary home), and the CLI resumes it with one more prompt against a
// fake API on 127.0.0.1 (tests/support/fake-anthropic.mjs,
// fake-openai-responses.mjs) that refuses what the real API refuses.
// For each fixture the test asserts what the CLI does with the file as the
// agent wrote it (refused, or resumed with what the CLI itself drops or
// adds: the file wins over the doctor's word), that the repaired copy is
// resumed and its request accepted, and that the request carries the
// conversation's earlier turns, so the CLI really loaded the file. The
// fake API is also the CLIs' proxy: no request may leave 127.0.0.1.
// Each skips with one SKIP line when its CLI is not installed or cannot
// run here. The real sessions of ../shared/peers: doctor-clis-peers.test.mjs.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fakeAnthropic, refusal as anthropicRefusal, REPLY as CLAUDE_REPLY } from "../support/fake-anthropic.mjs";
import { fakeResponses, refusal as responsesRefusal, REPLY as CODEX_REPLY } from "../support/fake-openai-responses.mjs";
import { CLAUDE, CODEX, accepted, claudeNew, claudeResume, cleanup, codexResume, repaired, resumes, root, runnable, text } from "../support/agent-clis.mjs";

after(cleanup);

// The fake APIs refuse what the real ones refuse, so the tests below can
// fail. The good signature is one tests/doctor/make_fixtures.py made (in
// empty-thinking.jsonl), not one the fake computed.
test("the fake APIs refuse what the real ones refuse, and take the rest", () => {
  const opus = "claude-opus-4-5-20251101";
  const signed = { type: "thinking", thinking: "Three tasks; say so briefly.", signature: `fake1:${opus}:6b910d8814f56798` };
  const call = { type: "tool_use", id: "toolu_1", name: "Read", input: {} };
  const result = { type: "tool_result", tool_use_id: "toolu_1", content: "ok" };
  const u = (...content) => ({ role: "user", content });
  const a = (...content) => ({ role: "assistant", content });
  const hi = { type: "text", text: "hi" };
  const messages = [
    [true, [u(hi)]],
    [true, [u(hi), a(signed, call), u(result), a(hi), u(hi)]],
    [false, [a(hi), u(hi)]],
    [false, [u(hi), u(hi)]],
    [false, [u(hi), a(call), u(hi)]],
    [false, [u(hi), a(hi), u(result)]],
    [false, [u(hi), a(call), u(result, result)]],
    [false, [u(hi), a({ ...signed, thinking: "" }, hi), u(hi)]],
    [false, [u(hi), a({ ...signed, thinking: "Three tasks." }, hi), u(hi)]],
    [false, [u(hi), a({ ...signed, signature: "" }, hi), u(hi)]],
    [false, [u(hi), a({ ...call, id: undefined }), u({ ...result, tool_use_id: undefined })]],
    // A real signature (a peer's) cannot be checked here.
    [true, [u(hi), a({ ...signed, signature: "EqQBCkgIARABGAIiQL" }, hi), u(hi)]],
  ];
  for (const [takes, m] of messages) {
    assert.equal(anthropicRefusal({ model: opus, messages: m }) === null, takes, text(m));
  }
  assert.notEqual(anthropicRefusal({ model: "claude-sonnet-4-5-20250929", messages: messages[1][1] }), null, "thinking of another model");
  const fc = { type: "function_call", name: "exec_command", arguments: "{}", call_id: "call_1" };
  const out = { type: "function_call_output", call_id: "call_1", output: "ok" };
  const msg = { type: "message", role: "user", content: [{ type: "input_text", text: "hi" }] };
  const inputs = [
    [true, [msg, fc, out, msg]],
    [true, [msg, { ...fc, type: "custom_tool_call" }, { ...out, type: "custom_tool_call_output" }]],
    [false, [msg, fc, msg]],
    [false, [msg, out, msg]],
    [false, [msg, out, fc]],
  ];
  for (const [takes, input] of inputs) assert.equal(responsesRefusal({ input }) === null, takes, text(input));
});

// ---------------------------------------------------------------- Claude Code

// What Claude Code 2.1.332 does with each fixture as the agent wrote it
// (`before`): "refused" when the first request it sends is one the API
// refuses; otherwise it resumes, having repaired the file itself in
// memory, and `lacks` names what its own repair lost. `carries`: what the
// request for the repaired copy must hold of the earlier conversation.
const CLAUDE_CASES = [
  // claude-code#63147: "" thinking with its signature kept: the request is
  // refused. Claude Code 2.1.332 then sends it again with every thinking
  // block stripped (the valid one too), and that one is taken: each resume
  // costs a refused request, which the repaired copy does not.
  { name: "empty-thinking", before: "refused", retry: "without thinking", carries: ["Read notes.txt and summarise it", "toolu_01", "It lists three tasks"] },
  // A crash between a call and its result, then more turns: Claude Code
  // drops the unanswered call; the repaired copy keeps it, answered.
  { name: "orphan-crash", before: "resumed", lacks: ["toolu_01"], carries: ["Run the tests", "toolu_01", "are you still there?"] },
  // The file ends on an unanswered call: Claude Code answers it itself.
  { name: "orphan-tail", before: "resumed", carries: ["List the files", "toolu_01"] },
  // A result whose call was compacted away: Claude Code resumes from the
  // compaction and leaves the result out.
  { name: "orphan-compaction", before: "resumed", carries: ["This session is being continued", "Fixed: empty input"] },
  // A torn line breaks the parent chain: Claude Code 2.1.332 bridges it
  // (the doctor's report says the start is lost: true of older versions).
  { name: "broken-chain", before: "resumed", carries: ["hello", "Hi! What shall we work on?", "Add a README"] },
  // Thinking of another model: Claude Code drops it.
  { name: "model-switch", before: "resumed", carries: ["What does main.rs do?", "It starts the server.", "It holds the request handlers."] },
];

test("Claude Code resumes every repaired session, and the API accepts what it sends", async (t) => {
  const claude = runnable(CLAUDE, "Claude Code 2.1.332");
  if (!claude) return t.skip("Claude Code not runnable here");
  const api = await fakeAnthropic();
  try {
    for (const c of CLAUDE_CASES) {
      const input = path.join(root, "tests/doctor", `${c.name}.jsonl`);
      assert.equal(resumes(input), false, `${c.name}: the doctor says it will not resume`);
      const was = await claudeResume(claude, input, api);
      assert.ok(was.requests.length > 0, `${c.name}: Claude Code sent no request for the input (exit ${was.status}): ${was.stderr}${was.stdout}`);
      const asked = text(was.requests.map((q) => q.body.messages));
      if (c.before === "refused") {
        assert.ok(was.requests[0].refusal, `${c.name}: the first request for the input was accepted`);
        if (c.retry === "without thinking") {
          const last = was.requests.at(-1);
          assert.equal(was.status, 0, `${c.name}: Claude Code's retry: ${was.stderr}`);
          assert.equal(last.refusal, null, `${c.name}: the retry is accepted`);
          assert.ok(!text(last.body.messages).includes('"type":"thinking"'), `${c.name}: the retry has no thinking`);
        } else {
          assert.notEqual(was.status, 0, `${c.name}: Claude Code resumed the input`);
          assert.ok(was.requests.every((q) => q.refusal), `${c.name}: a request for the input was accepted`);
        }
      } else {
        assert.equal(was.status, 0, `${c.name}: Claude Code 2.1.332 resumes the input itself: ${was.requests.map((q) => q.refusal)} ${was.stderr}`);
        assert.deepEqual(was.requests.map((q) => q.refusal).filter(Boolean), [], `${c.name}: the input's requests`);
        for (const s of c.lacks ?? []) assert.ok(!asked.includes(s), `${c.name}: Claude Code's own repair keeps ${s}`);
      }

      const fixed = repaired(input);
      assert.equal(resumes(fixed), true, `${c.name}: the doctor says the repaired copy resumes`);
      const now = await claudeResume(claude, fixed, api);
      assert.equal(now.status, 0, `${c.name}: Claude Code on the repaired copy: ${now.requests.map((q) => q.refusal)} ${now.stderr}${now.stdout}`);
      assert.ok(now.stdout.includes(CLAUDE_REPLY), `${c.name}: the fake API's reply is printed: ${now.stdout}`);
      assert.ok(now.requests.length > 0, `${c.name}: no request`);
      assert.deepEqual(now.requests.map((q) => q.refusal).filter(Boolean), [], `${c.name}: every request for the repaired copy is accepted`);
      const main = now.requests.find((q) => text(q.body.messages.at(-1)).includes("next"));
      assert.ok(main, `${c.name}: no request carries the prompt "next"`);
      for (const s of c.carries) assert.ok(text(main.body.messages).includes(s), `${c.name}: the resumed request carries ${s}`);
    }
    assert.deepEqual(api.outside, [], "Claude Code asked for hosts other than the fake API");
  } finally {
    await api.close();
  }
});

// Claude Code 2.1.332 asks for `thinking.display: "omitted"`, so the API
// answers with thinking blocks of empty text, each with its signature, and
// Claude Code writes them so. The real API takes such a block back (the
// signature carries the hidden thinking; claude-code#49268: Opus 4.7's
// default), and so does Claude Code, but the doctor reads each one as the
// text lost of claude-code#63147 and says the session will not resume.
// A todo: the doctor cannot tell the two apart from the file alone, and
// which rule holds (by model, by version, by display) is the lead's call.
test("a session Claude Code writes with display omitted resumes, and the doctor says so", { todo: "the doctor flags every display-omitted thinking block as thinking-empty" }, async (t) => {
  const claude = runnable(CLAUDE, "Claude Code 2.1.332 (display omitted)");
  if (!claude) return t.skip("Claude Code not runnable here");
  const api = await fakeAnthropic({ omitted: true });
  try {
    const file = await claudeNew(claude, api, "claude-opus-4-7");
    assert.ok(readFileSync(file, "utf8").includes('"thinking":"","signature":"fake1:'), "Claude Code wrote the thinking block as the API sent it");
    const resumed = await claudeResume(claude, file, api);
    assert.ok(accepted(resumed), `Claude Code resumes it: ${resumed.requests.map((q) => q.refusal)} ${resumed.stderr}`);
    assert.ok(text(resumed.requests.at(-1).body.messages).includes('"thinking":""'), "with the empty thinking block sent back");
    assert.equal(resumes(file), true, "the doctor says it resumes");
  } finally {
    await api.close();
  }
});

// ---------------------------------------------------------------- Codex

// What Codex 0.171.0 does with each fixture as the agent wrote it: "fails"
// when it cannot load it (`error`: what it says), else it resumes, having
// mended the history itself as the doctor's warnings say it will (an
// "aborted" output for an unanswered call, an orphan output left out), so
// the doctor leaves those files as they are. `carries` / `lacks`: what
// the request Codex sends (for the repaired copy, or for the input when it
// resumes) holds of the earlier conversation.
const CODEX_CASES = [
  // A torn write: a line cut mid-character with the next line appended.
  { name: "torn-utf8", before: "fails", error: "valid UTF-8", carries: ["say café", '"call_id":"call_t"', "Done."] },
  // No session_meta line: no id, and the doctor cannot make one up.
  { name: "no-session-meta", before: "fails", error: "does not start with session metadata", fixable: false },
  { name: "orphan-crash", before: "resumed", carries: ["run the tests", '"call_id":"call_crash1","output":"aborted"'] },
  { name: "orphan-compaction", before: "resumed", carries: ["list the files", "Two files."], lacks: ["call_cut1"] },
  { name: "reasoning-pairs", before: "resumed", carries: ["fix the typo", '"call_id":"call_a"', '"call_id":"call_b"', '"call_id":"call_p"', "Fixed."] },
];

/** The request Codex sent for the prompt "next", checked: accepted, and carrying (or not) what the case says. */
function codexAsked(c, resumed, { lacks = [] } = {}) {
  assert.equal(resumed.status, 0, `${c.name}: Codex: ${resumed.requests.map((q) => q.refusal)} ${resumed.stderr}`);
  assert.ok(resumed.stdout.includes(CODEX_REPLY), `${c.name}: the fake API's reply is printed: ${resumed.stdout}`);
  assert.ok(resumed.requests.length > 0, `${c.name}: no request`);
  assert.deepEqual(resumed.requests.map((q) => q.refusal).filter(Boolean), [], `${c.name}: every request is accepted`);
  const main = resumed.requests.find((q) => text(q.body.input.at(-1)).includes("next"));
  assert.ok(main, `${c.name}: no request carries the prompt "next"`);
  for (const s of c.carries ?? []) assert.ok(text(main.body.input).includes(s), `${c.name}: the resumed request carries ${s}`);
  for (const s of lacks) assert.ok(!text(main.body.input).includes(s), `${c.name}: the resumed request still carries ${s}`);
}

test("Codex resumes every repaired rollout, and the API accepts what it sends", async (t) => {
  const codex = runnable(CODEX, "Codex 0.171.0");
  if (!codex) return t.skip("Codex not runnable here");
  const api = await fakeResponses();
  try {
    for (const c of CODEX_CASES) {
      const input = path.join(root, "tests/doctor/codex", `${c.name}.jsonl`);
      const was = await codexResume(codex, input, api);
      if (c.before === "fails") {
        assert.equal(resumes(input), false, `${c.name}: the doctor says it will not resume`);
        assert.notEqual(was.status, 0, `${c.name}: Codex resumed the input`);
        assert.equal(was.requests.length, 0, `${c.name}: Codex sent a request for a file it cannot load`);
        assert.ok(was.stderr.includes(c.error), `${c.name}: Codex's error: ${was.stderr}`);
      } else {
        assert.equal(resumes(input), true, `${c.name}: the doctor says it resumes`);
        codexAsked(c, was, { lacks: c.lacks });
        assert.deepEqual(readFileSync(repaired(input)), readFileSync(input), `${c.name}: --fix leaves a file that resumes as it is`);
        continue;
      }
      const fixed = repaired(input);
      if (c.fixable === false) {
        assert.equal(resumes(fixed), false, `${c.name}: the doctor does not claim to have repaired it`);
        assert.notEqual((await codexResume(codex, fixed, api)).status, 0, `${c.name}: nor does Codex resume the copy`);
        continue;
      }
      assert.equal(resumes(fixed), true, `${c.name}: the doctor says the repaired copy resumes`);
      codexAsked(c, await codexResume(codex, fixed, api));
    }
    assert.deepEqual(api.outside, [], "Codex asked for hosts other than the fake API");
  } finally {
    await api.close();
  }
});
