// The doctor's repaired pi and Gemini CLI files loaded by the agents' own
// code (installed, pinned, by .ci/install-agents into .ci/agents/):
// - pi: SessionManager.open, buildSessionContext and convertToLlm, then
//   pi-ai's own Anthropic provider sends the resumed history (with the
//   user's next prompt) to a fake Messages API on 127.0.0.1, which captures
//   the request. checkMessages must accept every captured request of a
//   repaired file, and each thinking block must carry the text its
//   signature was made over (the input's first text for it); the request a
//   broken input makes must be refused, so the test can fail;
// - Gemini CLI: loadConversationRecord and convertSessionToClientHistory
//   (gemini-cli-core), the history checked against the Gemini API's pair
//   rule (each call answered by a response in the next turn, each response
//   asked for).
// Each skips with one SKIP line when the agent's package is not installed.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { mkdtempSync, copyFileSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const agents = path.join(root, ".ci/agents/node_modules");
const session = createRequire(import.meta.url)(path.join(root, "pkg/node/garuda_session.js"));
const fixture = (agent, name) => path.join(root, "tests/doctor", agent, name);

const PI = ["orphan-compaction", "v1-orphan-compaction", "orphan-crash", "orphan-aborted", "thinking-changed", "empty-thinking", "broken-chain"];
const GEMINI = ["orphan-crash.json", "orphan-crash-jsonl.jsonl", "rewound.jsonl", "modern-pairs.jsonl"];

function installed(pkg, what) {
  const dir = path.join(agents, pkg);
  if (existsSync(path.join(dir, "package.json"))) return dir;
  console.log(`SKIP ${what}: ${pkg} is not installed (run bash .ci/install-agents)`);
  return null;
}

/** A fake Messages API: each request's body is kept, each is answered 400. */
async function fakeAnthropic() {
  const bodies = [];
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c) => (body += c));
    req.on("end", () => {
      bodies.push(JSON.parse(body));
      res.writeHead(400, { "content-type": "application/json" });
      res.end(JSON.stringify({ type: "error", error: { type: "invalid_request_error", message: "captured" } }));
    });
  });
  await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
  return { url: `http://127.0.0.1:${server.address().port}`, bodies, close: () => new Promise((ok) => server.close(ok)) };
}

/** What pi sends to resume `file` (a copy: pi migrates old files in place). */
async function piRequest(file, { pi, ai, api }) {
  const copy = path.join(mkdtempSync(path.join(tmpdir(), "garuda-pi-")), "session.jsonl");
  copyFileSync(file, copy);
  const sm = pi.SessionManager.open(copy, path.dirname(copy));
  const ctx = sm.buildSessionContext();
  const messages = pi.convertToLlm(ctx.messages);
  messages.push({ role: "user", content: [{ type: "text", text: "go on" }], timestamp: Date.now() });
  const model = { ...ai.getModel("anthropic", "claude-opus-4-5"), baseUrl: api.url };
  const before = api.bodies.length;
  await ai.complete(model, { systemPrompt: "", messages }, { apiKey: "sk-ant-test", maxRetries: 0 });
  assert.equal(api.bodies.length, before + 1, `${file}: pi sent no request`);
  return { body: api.bodies.at(-1), entries: ctx.messages.length };
}

/** Signatures as the API made them: each with the text it was first seen over. */
function signatures(messages, into = new Map()) {
  for (const m of messages) for (const b of Array.isArray(m.content) ? m.content : []) {
    if (b.type === "thinking" && !into.has(b.signature)) into.set(b.signature, b.thinking);
  }
  return into;
}

function refusedBy(messages, signed) {
  const problems = session.checkMessages(messages).map((p) => p.kind);
  for (const m of messages) for (const b of Array.isArray(m.content) ? m.content : []) {
    if (b.type === "thinking" && signed.get(b.signature) !== b.thinking) problems.push("thinking-signature");
  }
  return problems;
}

test("pi loads every repaired session, and what it sends to resume it is accepted", async (t) => {
  const dir = installed("@mariozechner/pi-coding-agent", "pi's SessionManager");
  if (!dir) return t.skip("pi not installed");
  const pi = await import(path.join(dir, "dist/index.js"));
  const ai = await import(path.join(agents, "@mariozechner/pi-ai/dist/index.js"));
  const api = await fakeAnthropic();
  try {
    for (const name of PI) {
      const input = fixture("pi", `${name}.jsonl`);
      const d = session.diagnose(readFileSync(input));
      const sent = await piRequest(input, { pi, ai, api });
      const signed = signatures(sent.body.messages);
      if (d.resumes) {
        assert.deepEqual(refusedBy(sent.body.messages, signed), [], `${name}: resumes, so pi's request is accepted`);
        assert.deepEqual(Buffer.from(session.repair(readFileSync(input)).bytes), readFileSync(input), `${name}: and stays`);
        continue;
      }
      const fixed = fixture("pi", `${name}.fixed.jsonl`);
      const after = await piRequest(fixed, { pi, ai, api });
      assert.deepEqual(refusedBy(after.body.messages, signed), [], `${name}: pi's request for the repaired file`);
      if (name === "broken-chain") {
        assert.ok(after.entries > sent.entries, `${name}: the repaired file gives pi the lost start (${sent.entries} -> ${after.entries})`);
      } else {
        assert.notDeepEqual(refusedBy(sent.body.messages, signed), [], `${name}: the input's request is refused`);
      }
    }
  } finally {
    await api.close();
  }
});

/** The Gemini API's pair rule on a history (Content turns). */
function geminiRefuses(history) {
  const turns = history.map((h) => h.content ?? h);
  const ids = (t, key) => (t?.parts ?? []).filter((p) => p[key]).map((p) => p[key].id);
  const out = [];
  turns.forEach((t, k) => {
    if (t.role === "model") {
      const next = turns[k + 1]?.role === "user" ? ids(turns[k + 1], "functionResponse") : [];
      for (const id of ids(t, "functionCall")) if (!next.includes(id)) out.push(`turn ${k}: call ${id} unanswered`);
    } else {
      const asked = turns[k - 1]?.role === "model" ? ids(turns[k - 1], "functionCall") : [];
      for (const id of ids(t, "functionResponse")) if (!asked.includes(id)) out.push(`turn ${k}: response ${id} asked by no call`);
    }
  });
  return out;
}

test("Gemini CLI loads every repaired session, and the history it resumes with keeps the pair rule", async (t) => {
  const dir = installed("@google/gemini-cli-core", "Gemini CLI's loadConversationRecord");
  if (!dir) return t.skip("gemini-cli-core not installed");
  const rec = await import(path.join(dir, "dist/src/services/chatRecordingService.js"));
  const utils = await import(path.join(dir, "dist/src/utils/sessionUtils.js"));
  const history = async (file) => {
    const r = await rec.loadConversationRecord(file);
    assert.ok(r, `${file}: Gemini CLI cannot load it`);
    return utils.convertSessionToClientHistory(r.messages);
  };
  for (const name of GEMINI) {
    const input = fixture("gemini", name);
    const d = session.diagnose(readFileSync(input));
    const before = geminiRefuses(await history(input));
    assert.equal(before.length === 0, d.resumes, `${name}: the doctor and Gemini CLI's history agree (${before})`);
    if (d.resumes) continue;
    const [stem, ext] = [name.slice(0, name.lastIndexOf(".")), name.slice(name.lastIndexOf("."))];
    assert.deepEqual(geminiRefuses(await history(fixture("gemini", `${stem}.fixed${ext}`))), [], `${name}: repaired`);
  }
  // A file repaired here and now (not a stored one) loads too.
  const tmp = path.join(mkdtempSync(path.join(tmpdir(), "garuda-gemini-")), "session.json");
  writeFileSync(tmp, session.repair(readFileSync(fixture("gemini", "orphan-crash.json"))).bytes);
  assert.deepEqual(geminiRefuses(await history(tmp)), []);
});
