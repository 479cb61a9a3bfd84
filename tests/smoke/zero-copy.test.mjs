// Zero-copy input (issue 29): a file read straight into wasm memory the
// journal owns (inputBuffer + feedInput) replays to the same state, line
// ranges included, as the same bytes fed whole; the view is re-taken after
// every call (wasm memory growing detaches it); bad arguments are coded
// errors, never a trap.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { mkdtempSync, writeFileSync, openSync, readSync, closeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);
const session = require(path.join(root, "pkg"));
const files = require(path.join(root, "pkg/node/files.js"));

/** A journal with multi-byte characters and escapes everywhere, big enough to grow wasm memory. */
function journalText(lines) {
  const out = [JSON.stringify({ type: "start", sessionId: "z", model: "claude-sonnet-4-5", t: "2026-01-01T00:00:00Z" })];
  for (let i = 0; i < lines; i++) {
    const text = `${i} é ∀ 😀 "quoted" \\ back [{ ${"x".repeat(i % 300)}`;
    out.push(JSON.stringify({ type: "user", message: { role: "user", content: text } }));
    if (i % 97 === 0) out.push("not json \u2028 {");
  }
  return out.join("\n") + "\n" + JSON.stringify({ type: "title", title: "no newline ü" });
}

function writeTemp(text) {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-zero-copy-"));
  const file = path.join(dir, "j.jsonl");
  writeFileSync(file, text);
  return file;
}

/** Reads `file` through inputBuffer/feedInput in chunks of `chunk` bytes. */
function zeroCopy(file, chunk, options) {
  const journal = new session.Journal(options);
  const fd = openSync(file, "r");
  try {
    for (;;) {
      const view = journal.inputBuffer(chunk); // fresh after every call
      const n = readSync(fd, view, 0, view.length, null);
      if (n <= 0) break;
      journal.feedInput(n);
    }
  } finally {
    closeSync(fd);
  }
  journal.finish();
  return journal;
}

test("a file read into wasm memory replays as the same bytes fed whole, in any chunk size", () => {
  const text = journalText(3000);
  const file = writeTemp(text);
  const bytes = Buffer.from(text);
  const whole = new session.Journal({ lean: true });
  whole.feed(bytes);
  whole.finish();
  const expected = JSON.stringify(whole.state());
  for (const chunk of [1, 7, 64, 4096, 65536, 1 << 22]) {
    if (chunk === 1 && bytes.length > 50000) {
      // One byte at a time over the first 20 KB only (a call per byte).
      const small = writeTemp(text.slice(0, 20000));
      const a = zeroCopy(small, 1, { lean: true });
      const b = new session.Journal({ lean: true });
      b.feed(Buffer.from(text.slice(0, 20000)));
      b.finish();
      assert.equal(JSON.stringify(a.state()), JSON.stringify(b.state()), "chunks of 1");
      continue;
    }
    const j = zeroCopy(file, chunk, { lean: true });
    assert.equal(JSON.stringify(j.state()), expected, `chunks of ${chunk}`);
    assert.equal(j.lineCount, whole.lineCount);
    for (const line of [1, 2, 50, 1000, whole.lineCount, whole.lineCount + 1]) {
      assert.deepEqual(j.lineRange(line), whole.lineRange(line), `line ${line}, chunks of ${chunk}`);
    }
    j.free();
  }
  // The range is the line's bytes in the file.
  const [a, b] = whole.lineRange(2);
  assert.equal(bytes.subarray(a, b).toString(), text.split("\n")[1]);
});

test("the store's replay (files.replayInto) reads through the input buffer", () => {
  const text = journalText(500);
  const file = writeTemp(text);
  const journal = new session.Journal();
  const fd = openSync(file, "r");
  const last = files.replayInto(fd, Buffer.byteLength(text), journal);
  closeSync(fd);
  journal.finish();
  assert.equal(last, text.charCodeAt(text.length - 1));
  assert.equal(JSON.stringify(journal.state()), JSON.stringify(session.rebuildState(text)));
});

test("inputBuffer and feedInput refuse bad arguments with ERR_INVALID_ARG", () => {
  const j = new session.Journal();
  for (const bad of [0, -1, 1.5, "8", null, undefined, 2 ** 26 + 1, NaN]) {
    assert.throws(() => j.inputBuffer(bad), { code: "ERR_INVALID_ARG" }, String(bad));
  }
  assert.throws(() => j.feedInput(1), { code: "ERR_INVALID_ARG" }, "no buffer yet");
  const view = j.inputBuffer(16);
  assert.equal(view.length, 16);
  assert.throws(() => j.inputBuffer(17), { code: "ERR_INVALID_ARG" }, "the buffer never grows (it never moves)");
  assert.equal(j.inputBuffer(8).length, 8, "less is fine");
  for (const bad of [17, -1, 0.5, "1", null]) {
    assert.throws(() => j.feedInput(bad), { code: "ERR_INVALID_ARG" }, String(bad));
  }
  const v = j.inputBuffer(16);
  v.set(Buffer.from('{"type":"title",'));
  j.feedInput(16);
  const w = j.inputBuffer(16);
  w.set(Buffer.from('"title":"ok"}\n').subarray(0, 14));
  j.feedInput(14);
  j.feedInput(0);
  j.finish();
  assert.equal(j.state().title, "ok");
});

test("a journal takes over a freed journal's buffer: each replays its own file, and its limits are its own", () => {
  // Larger, smaller and larger again: the kept buffer is longer than some
  // journals ask for, shorter than others.
  const texts = [3000, 200, 1, 800, 5000, 50].map((n) => journalText(n));
  for (const text of texts) {
    const file = writeTemp(text);
    const size = Math.min(1 << 16, Buffer.byteLength(text));
    const j = zeroCopy(file, size);
    assert.equal(JSON.stringify(j.state()), JSON.stringify(session.rebuildState(text)), `${Buffer.byteLength(text)} bytes`);
    // The limits are what this journal first asked for, not the kept buffer's length.
    assert.throws(() => j.inputBuffer(size + 1), { code: "ERR_INVALID_ARG" });
    assert.throws(() => j.feedInput(size + 1), { code: "ERR_INVALID_ARG" });
    j.free();
  }
});
