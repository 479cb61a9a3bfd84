// Whole-input calls on inputs too large for one call: an Error with the
// stable code ERR_INPUT_TOO_LARGE, never an abort of the module (a failed
// allocation in wasm traps, and the module is then unusable for its host),
// and the module keeps working after it. And the bytes given whole are fed
// in 8 MiB chunks (src/wasm/mod.rs, feed_js_bytes): across chunk edges
// inside multi-byte characters and lines the state is the one the text
// gives.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
const session = require("../../pkg/node/garuda_session.js");

const start = JSON.stringify({ type: "start", sessionId: "20261201-120000-0001", t: "2026-12-01T12:00:00.000Z", model: "claude-sonnet-4-5", version: "0.17.2", root: "/w", executor: "local", isolation: "none", limits: { contextWindow: 200000, maxSteps: 200, tokenBudget: 20000000 } });
const user = (i, text) => JSON.stringify({ type: "user", t: "2026-12-01T12:00:01.000Z", step: i, message: { role: "user", content: text } });

test("rebuildState: a state whose JSON is over what one JS string holds is ERR_INPUT_TOO_LARGE, and the module still works", () => {
  // 600 user messages of 1 MB: 600 MB of messages, over V8's 512 MiB string.
  // (As bytes: the text itself would be over that limit in JS too.)
  const big = "a".repeat(1 << 20);
  const parts = [Buffer.from(start + "\n")];
  for (let i = 0; i < 600; i++) parts.push(Buffer.from(user(i, big) + "\n"));
  const bytes = Buffer.concat(parts);
  parts.length = 0;
  assert.throws(
    () => session.rebuildState(bytes),
    (e) => e instanceof Error && e.code === "ERR_INPUT_TOO_LARGE" && /rebuildState/.test(e.message) && /Journal\.feed/.test(e.message),
  );
  // The same journal read in parts: its figures are there.
  const j = new session.Journal();
  for (let i = 0; i < bytes.length; i += 64 << 20) j.feed(bytes.subarray(i, Math.min(bytes.length, i + (64 << 20))));
  j.finish();
  assert.equal(j.figures().prompts, 600);
  j.free();
  // And the module is whole: a small journal replays.
  assert.equal(session.rebuildState(start + "\n" + user(0, "hi") + "\n").messages.length, 1);
});

test("rebuildState(bytes): fed in 8 MiB chunks, the state equals the text's across chunk edges inside characters and lines", () => {
  // ~20 MB of lines with 2-, 3- and 4-byte characters, so that some 8 MiB edges fall inside them.
  const words = ["é", "日本語", "😀", "plain"];
  const lines = [start];
  for (let i = 0; lines.length < 40000; i++) lines.push(user(i, `${words[i % 4].repeat(100 + (i % 37))} ${i}`));
  const text = lines.join("\n") + "\n";
  const bytes = Buffer.from(text);
  assert.ok(bytes.length > 2 * (8 << 20), `${bytes.length} bytes: more than two chunks`);
  const fromText = session.rebuildState(text);
  const fromBytes = session.rebuildState(bytes);
  assert.equal(fromBytes.messages.length, 39999);
  assert.deepEqual(fromBytes, fromText);
  // A torn tail at the end of the last chunk is read as the text's is.
  const torn = bytes.subarray(0, bytes.length - 40);
  assert.deepEqual(session.rebuildState(torn), session.rebuildState(torn.toString("utf8")));
});

test("diagnose: bytes over 1 GiB whole are ERR_INPUT_TOO_LARGE (the Diagnoser streams them)", { skip: process.env.GARUDA_SKIP_HUGE ? "GARUDA_SKIP_HUGE set" : false }, () => {
  // Zeros, never read: the check is on the length alone.
  const huge = new Uint8Array((1 << 30) + 1);
  assert.throws(() => session.diagnose(huge), (e) => e.code === "ERR_INPUT_TOO_LARGE" && /Diagnoser/.test(e.message));
  assert.equal(session.diagnose(Buffer.from(start + "\n")).resumes, true);
});
