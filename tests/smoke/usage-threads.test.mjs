// `usage` over more than 32 MB reads on two threads (bin/usage-read.cjs,
// usage-worker.cjs), each claiming the next file from a shared counter.
// The oracle is the construction: 48 sessions of known sizes and known
// tokens per request, a request copied into a second file (counted once),
// and one file that is not a session. Every session's tokens, read on the
// threads, must be what was written; the index's cold read (the same
// threads) must give the same report.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "pkg/bin/garuda-session.cjs");

const filler = "x".repeat(4000);

/** Session `s`: `n` requests of `input` tokens each, after a user line of tool output (bulk the reader passes over). */
function session(s, n, input, copyOf = null) {
  let out = "";
  const lines = [];
  if (copyOf) lines.push(copyOf);
  for (let k = 0; k < n; k++) {
    const t = new Date(Date.UTC(2026, 10, 1 + (s % 20), 10, k % 60)).toISOString();
    lines.push(JSON.stringify({ type: "user", sessionId: `s${s}`, uuid: `u${s}-${k}`, timestamp: t, message: { role: "user", content: [{ type: "tool_result", tool_use_id: `t${s}-${k}`, content: filler }] } }));
    lines.push(
      JSON.stringify({
        type: "assistant",
        sessionId: `s${s}`,
        uuid: `a${s}-${k}`,
        timestamp: t,
        requestId: `req_${s}_${k}`,
        message: { id: `msg_${s}_${k}`, role: "assistant", model: "claude-sonnet-4-5-20250929", content: [{ type: "text", text: "ok" }], usage: { input_tokens: input, output_tokens: 1 } },
      }),
    );
  }
  out = lines.join("\n") + "\n";
  return { text: out, first: lines[copyOf ? 2 : 1] };
}

test("usage over 32 MB: read on two threads, every session's tokens as written, a copied request once", () => {
  const home = fs.mkdtempSync(path.join(tmpdir(), "garuda-threads-"));
  const project = path.join(home, "claude", "projects", "app");
  fs.mkdirSync(project, { recursive: true });
  const expected = new Map();
  let bytes = 0;
  let copied = null;
  for (let s = 0; s < 48; s++) {
    // Sizes from 0.1 to 1.5 MB, so that dealing by size alone would not balance the threads.
    const n = 25 + ((s * 37) % 350);
    const input = 100 + s;
    const { text, first } = session(s, n, input, s === 47 ? copied : null);
    if (s === 0) copied = first;
    fs.writeFileSync(path.join(project, `s${s}.jsonl`), text);
    bytes += text.length;
    expected.set(`s${s}`, n * input);
  }
  fs.writeFileSync(path.join(project, "notes.jsonl"), "not a session\n");
  assert.ok(bytes > 34e6, `${bytes} bytes: enough to read on threads`);
  const env = { ...process.env, TZ: "UTC", CLAUDE_CONFIG_DIR: path.join(home, "claude"), GARUDA_CACHE_DIR: path.join(home, "cache") };
  const run = (extra) => {
    const r = spawnSync(process.execPath, [bin, "usage", path.join(home, "claude", "projects"), "--by", "session", "--json", ...extra], { encoding: "utf8", env, maxBuffer: 1 << 26 });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout);
  };
  const whole = run(["--no-index"]);
  const got = new Map(whole.sessions.map((x) => [x.sessionId ?? x.id, x.inputTokens]));
  for (const [id, input] of expected) assert.equal(got.get(id), input, `session ${id}`);
  assert.equal(whole.totals.inputTokens, [...expected.values()].reduce((a, b) => a + b, 0), "the copied request counts once");
  assert.deepEqual(run([]), whole, "the index's cold read gives the same report");
  fs.rmSync(home, { recursive: true, force: true });
});
