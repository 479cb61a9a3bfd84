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
// run here.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { fakeAnthropic, refusal as anthropicRefusal, REPLY as CLAUDE_REPLY } from "../support/fake-anthropic.mjs";
import { fakeResponses, refusal as responsesRefusal, REPLY as CODEX_REPLY } from "../support/fake-openai-responses.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const clis = path.join(root, ".ci/agents/clis/node_modules");
const bin = path.join(root, "pkg/bin/garuda-session.cjs");
const peers = path.join(process.env.GARUDA_SHARED ?? path.join(root, "../shared"), "peers");
// Each CLI run gets a home of its own (Codex leaves 2 MB of state in it),
// removed when the file's tests end.
const homes = [];
const tmp = (what) => {
  const dir = realpathSync(mkdtempSync(path.join(tmpdir(), `garuda-${what}-`)));
  homes.push(dir);
  return dir;
};
after(() => {
  for (const dir of homes) rmSync(dir, { recursive: true, force: true });
});

// Where npm puts each CLI's linux-x64 binary (its package's optional
// dependency); the wrapper packages only find and start it.
const CLAUDE = path.join(clis, "@anthropic-ai/claude-code-linux-x64/claude");
const CODEX = path.join(clis, "@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex");

/** The binary when it is installed and starts here, else null after one SKIP line. */
function runnable(file, what) {
  if (process.platform !== "linux" || process.arch !== "x64") {
    console.log(`SKIP ${what}: only the linux-x64 binary is installed (this is ${process.platform}-${process.arch})`);
    return null;
  }
  if (!existsSync(file)) {
    console.log(`SKIP ${what}: not installed (run bash .ci/install-agents)`);
    return null;
  }
  const r = spawnSync(file, ["--version"], { encoding: "utf8", timeout: 60_000 });
  if (r.status !== 0) {
    console.log(`SKIP ${what}: ${path.basename(file)} --version fails here (${r.error?.code ?? r.status}): ${(r.stderr || "").trim().split("\n")[0]}`);
    return null;
  }
  return file;
}

/** A child process's exit and output, without blocking the fake API in this process. */
function run(file, args, { cwd, env }) {
  return new Promise((done) => {
    const child = spawn(file, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), 120_000);
    child.on("close", (status, signal) => {
      clearTimeout(timer);
      done({ status, signal, stdout, stderr });
    });
  });
}

/** `doctor --fix -o`: the repaired copy of `input`, written by the CLI. */
function repaired(input, ext = ".jsonl") {
  const out = path.join(tmp("fixed"), `fixed${ext}`);
  const r = spawnSync(process.execPath, [bin, "doctor", input, "--fix", "-o", out], { encoding: "utf8" });
  assert.ok(existsSync(out), `${input}: doctor --fix wrote nothing (exit ${r.status}): ${r.stderr}`);
  return out;
}

/** Whether the doctor says `file` resumes (exit 0) or not (exit 1). */
function resumes(file) {
  const r = spawnSync(process.execPath, [bin, "doctor", file], { encoding: "utf8" });
  assert.ok(r.status === 0 || r.status === 1, `doctor ${file}: exit ${r.status}: ${r.stderr}`);
  return r.status === 0;
}

/** The environment a CLI runs in: its own home, the fake API, everything else at the trap. */
function env(home, api, extra) {
  return {
    PATH: process.env.PATH,
    HOME: home,
    TMPDIR: home,
    LANG: "C.UTF-8",
    HTTPS_PROXY: api.url,
    HTTP_PROXY: api.url,
    https_proxy: api.url,
    http_proxy: api.url,
    NO_PROXY: "127.0.0.1",
    no_proxy: "127.0.0.1",
    ...extra,
  };
}

const text = (v) => JSON.stringify(v);

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

/** Claude Code resumes `file` (`claude -p --resume <id>`) against `api`: its exit, output and requests. */
async function claudeResume(claude, file, api) {
  const lines = readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => { try { return JSON.parse(l); } catch { return {}; } });
  const id = lines.find((l) => l.sessionId)?.sessionId;
  const model = lines.filter((l) => l.message?.model && l.message.model !== "<synthetic>").at(-1)?.message.model ?? "claude-sonnet-4-5-20250929";
  const home = tmp("claude");
  const cwd = path.join(home, "project");
  const config = path.join(home, ".claude");
  // Claude Code keeps a project's sessions under its path with every
  // character but letters and digits made "-".
  const dir = path.join(config, "projects", cwd.replace(/[^a-zA-Z0-9]/g, "-"));
  mkdirSync(cwd);
  mkdirSync(dir, { recursive: true });
  copyFileSync(file, path.join(dir, `${id}.jsonl`));
  const before = api.requests.length;
  const r = await run(claude, ["-p", "--resume", id, "--model", model, "next"], { cwd, env: claudeEnv(home, config, api) });
  return { ...r, requests: api.requests.slice(before) };
}

function claudeEnv(home, config, api) {
  return env(home, api, {
    CLAUDE_CONFIG_DIR: config,
    ANTHROPIC_BASE_URL: api.url,
    ANTHROPIC_API_KEY: "sk-ant-test",
    // The documented switches: no update check, telemetry, error reports
    // or any other request but the Messages API's.
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
    DISABLE_AUTOUPDATER: "1",
    DISABLE_TELEMETRY: "1",
    DISABLE_ERROR_REPORTING: "1",
    DISABLE_BUG_COMMAND: "1",
  });
}

/** A new session Claude Code writes itself (`claude -p`, one prompt): its file. */
async function claudeNew(claude, api, model) {
  const home = tmp("claude-new");
  const cwd = path.join(home, "project");
  const config = path.join(home, ".claude");
  mkdirSync(cwd);
  const r = await run(claude, ["-p", "--model", model, "hi"], { cwd, env: claudeEnv(home, config, api) });
  assert.equal(r.status, 0, `claude -p: ${r.stderr}`);
  const dir = path.join(config, "projects", cwd.replace(/[^a-zA-Z0-9]/g, "-"));
  const file = readdirSync(dir).find((f) => f.endsWith(".jsonl"));
  assert.ok(file, `Claude Code wrote no session in ${dir}`);
  return path.join(dir, file);
}

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

/** Codex resumes `file` (`codex exec resume <id>`) against `api`: its exit, output and requests. */
async function codexResume(codex, file, api) {
  const lines = readFileSync(file, "latin1").split("\n").filter(Boolean).map((l) => { try { return JSON.parse(l); } catch { return {}; } });
  // Codex reads the id from the file's session_meta line; the file's name
  // carries it too, which is how `resume <id>` finds the file.
  const id = lines.find((l) => l.type === "session_meta")?.payload?.id ?? "019e2a40-5c1d-7e2f-9a3b-4c5d6e7f8091";
  const model = lines.filter((l) => l.type === "turn_context").at(-1)?.payload?.model ?? "gpt-5.2-codex";
  const [day, time] = lines[0].timestamp.slice(0, 19).split("T");
  const home = tmp("codex");
  const cwd = path.join(home, "project");
  const codexHome = path.join(home, ".codex");
  const dir = path.join(codexHome, "sessions", ...day.split("-"));
  mkdirSync(cwd);
  mkdirSync(dir, { recursive: true });
  copyFileSync(file, path.join(dir, `rollout-${day}T${time.replaceAll(":", "-")}-${id}.jsonl`));
  // The rollout names its provider, "openai", and Codex will not resume it
  // with another, so the built-in provider is kept and only its base URL
  // moved. The plugins feature would fetch github.com and chatgpt.com at
  // start; analytics and the update check are off too. --strict-config: a
  // key this version does not know fails the run instead of being ignored.
  writeFileSync(
    path.join(codexHome, "config.toml"),
    [`model = ${JSON.stringify(model)}`, `openai_base_url = ${JSON.stringify(`${api.url}/v1`)}`, "check_for_update_on_startup = false",
      "[features]", "plugins = false", "[analytics]", "enabled = false", ""].join("\n"),
  );
  const before = api.requests.length;
  const r = await run(codex, ["exec", "--strict-config", "--skip-git-repo-check", "resume", id, "next"], {
    cwd,
    env: env(home, api, { CODEX_HOME: codexHome, CODEX_API_KEY: "sk-test" }),
  });
  return { ...r, requests: api.requests.slice(before) };
}

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

// ---------------------------------------------------------------- real files

/** The .jsonl files under ../shared/peers/<agent>, or null after one SKIP line. */
function peerFiles(agent) {
  const dir = path.join(peers, agent);
  if (!existsSync(dir)) {
    console.log(`SKIP ${agent} peers resumed by their CLI: ${dir} is absent (../shared sits beside the repository in CI)`);
    return null;
  }
  return readdirSync(dir, { recursive: true }).filter((f) => f.endsWith(".jsonl")).sort().map((f) => path.join(dir, f));
}

const accepted = (r) => r.status === 0 && r.requests.length > 0 && r.requests.every((q) => q.refusal === null);

/**
 * Every real session of `agent` that its CLI can name, resumed as written
 * and, when the doctor would change it, as repaired: where the doctor says
 * a file resumes, the CLI resumes it and every request it sends is
 * accepted; where it says the repaired copy still will not, the CLI fails
 * on it too. Returns one line per file, for the log.
 */
async function peersResumed(files, resume, api, { resumable, carried }) {
  const seen = [];
  for (const file of files) {
    const name = path.relative(peers, file);
    if (!resumable(file)) {
      seen.push(`${name}: not a session the CLI can name (a subagent's file, or an id that is no UUID)`);
      continue;
    }
    const says = resumes(file);
    const was = await resume(file, api);
    // A schema catalog (../shared/peers/SOURCES.md: real lines with most
    // values replaced by "[trimmed for fixture]") is no replayable
    // session: what the CLI makes of it is logged, not asserted.
    if (readFileSync(file, "latin1").includes("[trimmed for fixture]")) {
      const error = was.stderr.split("\n").find((l) => l.startsWith("Error")) ?? "";
      seen.push(`${name}: a catalog; the doctor: ${says ? "resumes" : "will not resume"}; the CLI: ${accepted(was) ? "accepted" : `fails ${error.replace(/\/\S+\.jsonl/g, "<file>").slice(0, 300)}`}`);
      continue;
    }
    if (says) {
      assert.ok(accepted(was), `${name}: the doctor says it resumes; the CLI: exit ${was.status}, ${was.requests.map((q) => q.refusal)} ${was.stderr.slice(0, 400)}`);
      assert.ok(was.requests.some((q) => carried(q.body)), `${name}: the CLI's request carries none of the earlier conversation`);
      assert.deepEqual(readFileSync(repaired(file)), readFileSync(file), `${name}: --fix leaves a file that resumes as it is`);
      seen.push(`${name}: resumes, and the CLI's ${was.requests.length} request(s) are accepted`);
      continue;
    }
    const fixed = repaired(file);
    const now = await resume(fixed, api);
    if (resumes(fixed)) {
      assert.ok(accepted(now), `${name}: the repaired copy: exit ${now.status}, ${now.requests.map((q) => q.refusal)} ${now.stderr.slice(0, 400)}`);
      assert.ok(now.requests.some((q) => carried(q.body)), `${name}: the CLI's request for the copy carries none of the earlier conversation`);
      seen.push(`${name}: repaired (the CLI on the input: ${accepted(was) ? "accepted" : "refused"}), and the CLI resumes the copy`);
    } else {
      assert.ok(!accepted(now), `${name}: the doctor says the repaired copy still will not resume, but the CLI resumes it`);
      seen.push(`${name}: the doctor cannot repair it, and the CLI refuses the copy too`);
    }
  }
  return seen;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

test("Claude Code resumes every real session the doctor says resumes, as written or repaired", async (t) => {
  const claude = runnable(CLAUDE, "Claude Code 2.1.332 on the peers");
  const files = claude && peerFiles("claude-code");
  if (!files) return t.skip("Claude Code or the peers absent");
  const api = await fakeAnthropic();
  try {
    // `claude --resume` takes a UUID, and resumes a main session, not a
    // subagent's file (every line a sidechain).
    const resumable = (file) => {
      const lines = readFileSync(file, "utf8").split("\n").filter(Boolean).map((l) => { try { return JSON.parse(l); } catch { return {}; } });
      const id = lines.find((l) => l.sessionId)?.sessionId;
      return UUID.test(id ?? "") && lines.some((l) => l.isSidechain === false);
    };
    // Earlier turns: an assistant turn before the new prompt.
    const carried = (body) => body.messages.slice(0, -1).some((m) => m.role === "assistant");
    const seen = await peersResumed(files, (f, a) => claudeResume(claude, f, a), api, { resumable, carried });
    console.log(seen.join("\n"));
    assert.ok(seen.some((l) => l.includes("resumes")), "no peer was resumed");
    assert.deepEqual(api.outside, [], "Claude Code asked for hosts other than the fake API");
  } finally {
    await api.close();
  }
});

test("Codex resumes every real rollout the doctor says resumes, as written or repaired", async (t) => {
  const codex = runnable(CODEX, "Codex 0.171.0 on the peers");
  const files = codex && peerFiles("codex");
  if (!files) return t.skip("Codex or the peers absent");
  const api = await fakeResponses();
  try {
    const resumable = (file) => readFileSync(file, "latin1").startsWith('{"timestamp"');
    const carried = (body) => body.input.some((i) => i.role === "assistant" || i.type === "function_call");
    const seen = await peersResumed(files, (f, a) => codexResume(codex, f, a), api, { resumable, carried });
    console.log(seen.join("\n"));
    assert.ok(seen.some((l) => l.includes("resumes")), "no peer was resumed");
    assert.deepEqual(api.outside, [], "Codex asked for hosts other than the fake API");
  } finally {
    await api.close();
  }
});
