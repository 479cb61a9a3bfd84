// The real Claude Code and Codex sessions of ../shared/peers resumed by the
// agents' own CLIs, offline (tests/support/agent-clis.mjs), as written and,
// when the doctor would change them, as repaired: the doctor's word
// checked against the agent's own loader on files nobody here wrote.
// Skips with one SKIP line when a CLI or ../shared is absent.
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fakeAnthropic } from "../support/fake-anthropic.mjs";
import { fakeResponses } from "../support/fake-openai-responses.mjs";
import { CLAUDE, CODEX, accepted, claudeResume, cleanup, codexResume, repaired, resumes, root, runnable } from "../support/agent-clis.mjs";

const peers = path.join(process.env.GARUDA_SHARED ?? path.join(root, "../shared"), "peers");

after(cleanup);

/** The .jsonl files under ../shared/peers/<agent>, or null after one SKIP line. */
function peerFiles(agent) {
  const dir = path.join(peers, agent);
  if (!existsSync(dir)) {
    console.log(`SKIP ${agent} peers resumed by their CLI: ${dir} is absent (../shared sits beside the repository in CI)`);
    return null;
  }
  return readdirSync(dir, { recursive: true }).filter((f) => f.endsWith(".jsonl")).sort().map((f) => path.join(dir, f));
}


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
