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
import { CLAUDE, CLAUDE_2_0, CODEX, accepted, claudeNew, claudeResume, cleanup, codexResume, repaired, resumes, root, runnable, text } from "../support/agent-clis.mjs";

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

// What each Claude Code version does with each fixture as the agent wrote
// it: "refused" when the request it sends is one the API refuses; else it
// resumes, having mended the file itself in memory, and `lacks` names what
// its own mending lost. `carries`: what the request for the repaired copy
// must hold of the earlier conversation. 2.0.30 is the version the
// fixtures name as their writer: the doctor's reports describe it.
const CLAUDE_CASES = [
  // claude-code#63147: "" thinking with its signature kept: refused.
  // 2.1.332 then sends the request again with every thinking block
  // stripped (the valid one too), which is taken: each resume costs a
  // refused request, which the repaired copy does not.
  {
    name: "empty-thinking",
    carries: ["Read notes.txt and summarise it", "toolu_01", "It lists three tasks"],
    "2.0.30": { before: "refused" },
    "2.1.332": { before: "refused", retry: "without thinking" },
  },
  // A crash between a call and its result, then more turns: both versions
  // drop the unanswered call; the repaired copy keeps it, answered.
  {
    name: "orphan-crash",
    carries: ["Run the tests", "toolu_01", "are you still there?"],
    "2.0.30": { before: "resumed", lacks: ["toolu_01"] },
    "2.1.332": { before: "resumed", lacks: ["toolu_01"] },
  },
  // The file ends on an unanswered call: 2.0.30 drops it, 2.1.332 answers
  // it. 2.0.30 drops the call from the repaired copy too, answered as it is
  // (a turn that ends on a tool_result reads to it as interrupted): the
  // copy resumes as the input does.
  {
    name: "orphan-tail",
    carries: ["List the files", "toolu_01"],
    "2.0.30": { before: "resumed", lacks: ["toolu_01"], carries: ["List the files"] },
    "2.1.332": { before: "resumed" },
  },
  // A result whose call was compacted away: 2.0.30 sends it and is
  // refused; 2.1.332 leaves it out.
  {
    name: "orphan-compaction",
    carries: ["This session is being continued", "Fixed: empty input"],
    "2.0.30": { before: "refused" },
    "2.1.332": { before: "resumed" },
  },
  // A torn line breaks the parent chain: 2.0.30 resumes from the line
  // after it and loses the start, as the doctor says; 2.1.332 bridges it.
  {
    name: "broken-chain",
    carries: ["hello", "Hi! What shall we work on?", "Add a README"],
    "2.0.30": { before: "resumed", lacks: ["Hi! What shall we work on?"] },
    "2.1.332": { before: "resumed" },
  },
  // Thinking of another model: 2.0.30 sends it and is refused; 2.1.332
  // drops it.
  {
    name: "model-switch",
    carries: ["What does main.rs do?", "It starts the server.", "It holds the request handlers."],
    "2.0.30": { before: "refused" },
    "2.1.332": { before: "resumed" },
  },
];

/** The requests of a run that carry the prompt "next" (2.0.30 sends warm-up requests too). */
const mains = (r) => r.requests.filter((q) => text(q.body.messages.at(-1)).includes("next"));

// The hosts each version asks for besides the fake API, caught by the
// trap (refused there, so nothing leaves 127.0.0.1): 2.0.30, run with an
// API key, checks api.anthropic.com/api/claude_code/organizations/
// metrics_enabled before it exports usage metrics, and no setting turns
// that off but Bedrock or Vertex (cli.js: the BigQuery exporter); refused,
// it exports nothing. 2.1.332 asks for nothing.
const OUTSIDE = { "2.1.332": [], "2.0.30": ["api.anthropic.com:443"] };

for (const [version, cli] of [["2.1.332", CLAUDE], ["2.0.30", CLAUDE_2_0]]) {
  test(`Claude Code ${version} resumes every repaired session, and the API accepts what it sends`, async (t) => {
    const claude = runnable(cli, `Claude Code ${version}`);
    if (!claude) return t.skip("Claude Code not runnable here");
    const api = await fakeAnthropic();
    try {
      for (const c of CLAUDE_CASES) {
        const want = c[version];
        const input = path.join(root, "tests/doctor", `${c.name}.jsonl`);
        assert.equal(resumes(input), false, `${c.name}: the doctor says it will not resume`);
        const was = await claudeResume(claude, input, api);
        const sent = mains(was);
        assert.ok(sent.length > 0, `${c.name}: Claude Code sent no request for the input (exit ${was.status}): ${was.stderr}${was.stdout}`);
        if (want.before === "refused") {
          assert.ok(sent[0].refusal, `${c.name}: the first request for the input was accepted`);
          if (want.retry === "without thinking") {
            assert.equal(was.status, 0, `${c.name}: Claude Code's retry: ${was.stderr}`);
            assert.equal(sent.at(-1).refusal, null, `${c.name}: the retry is accepted`);
            assert.ok(!text(sent.at(-1).body.messages).includes('"type":"thinking"'), `${c.name}: the retry has no thinking`);
          } else {
            assert.notEqual(was.status, 0, `${c.name}: Claude Code resumed the input`);
            assert.ok(sent.every((q) => q.refusal), `${c.name}: a request for the input was accepted`);
          }
        } else {
          assert.ok(accepted(was), `${c.name}: Claude Code ${version} resumes the input itself: ${was.requests.map((q) => q.refusal)} ${was.stderr}`);
          const asked = text(sent.map((q) => q.body.messages));
          for (const s of want.lacks ?? []) assert.ok(!asked.includes(s), `${c.name}: Claude Code's own mending keeps ${s}`);
        }

        const fixed = repaired(input);
        assert.equal(resumes(fixed), true, `${c.name}: the doctor says the repaired copy resumes`);
        const now = await claudeResume(claude, fixed, api);
        assert.ok(accepted(now), `${c.name}: Claude Code on the repaired copy: ${now.requests.map((q) => q.refusal)} ${now.stderr}${now.stdout}`);
        assert.ok(now.stdout.includes(CLAUDE_REPLY), `${c.name}: the fake API's reply is printed: ${now.stdout}`);
        const main = mains(now)[0];
        assert.ok(main, `${c.name}: no request carries the prompt "next"`);
        for (const s of want.carries ?? c.carries) assert.ok(text(main.body.messages).includes(s), `${c.name}: the resumed request carries ${s}`);
      }
      assert.deepEqual(api.outside.filter((host) => !OUTSIDE[version].includes(host)), [], `Claude Code ${version} asked for other hosts than the fake API`);
    } finally {
      await api.close();
    }
  });
}

// Claude Code 2.1.332 asks for `thinking.display: "omitted"` in a session
// it runs without a terminal (`-p`), so the API answers with thinking
// blocks of empty text, each with its signature, and Claude Code writes
// them so. The API takes such a block back (the signature carries the
// hidden thinking; claude-code#49268: Opus 4.7's default), and so does
// Claude Code. The doctor cannot tell one such block from a text lost with
// its signature kept (claude-code#63147, refused) by the block alone; it
// reads a session in which no signed block has text as display omitted.
test("a session Claude Code writes with display omitted resumes, and the doctor says so", async (t) => {
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
