// Bounded memory on hostile input: a file of junk lines costs memory by
// warning kind, not by line. Each bad line used to cost about 400 bytes in
// the warnings list (6 M lines took 2.5 GB; 20 M ended the wasm module).
// Here 2 M junk lines are replayed in one process, whose memory must stay
// within a small bound, and the module must still work after.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);
const session = require(path.join(root, "pkg/node/garuda_session.js"));
const { FileSessionStore } = require(path.join(root, "pkg/node/store.js"));

const JUNK_LINES = 2_000_000;
const KEPT = 100;
/** RSS growth allowed, well under what 2 M kept warnings take (about 800 MB). */
const MAX_GROWTH = 120 << 20;

test(`${JUNK_LINES / 1e6} M junk lines replay in bounded memory: the first ${KEPT} warnings of a kind kept, all counted, and the module works after`, () => {
  const dir = path.join(fs.mkdtempSync(path.join(tmpdir(), "garuda-bounds-")), "sessions");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, "junk.jsonl");
  const start = JSON.stringify({ t: "2026-12-01T00:00:00.000Z", type: "start", sessionId: "junk", model: "m" });
  const fd = fs.openSync(file, "w");
  fs.writeSync(fd, start + "\n");
  const block = Buffer.from("junk\n{\"type\":\"hologram\"}\n".repeat(50_000));
  for (let i = 0; i < JUNK_LINES / 100_000; i++) fs.writeSync(fd, block);
  fs.writeSync(fd, JSON.stringify({ type: "title", title: "after the junk" }) + "\n");
  fs.closeSync(fd);

  global.gc?.();
  const before = process.memoryUsage().rss;
  const state = new FileSessionStore(dir).replay("junk");
  const growth = process.memoryUsage().rss - before;

  assert.equal(state.title, "after the junk", "the record after the junk is read");
  assert.deepEqual(state.warningCounts, { "bad-json": JUNK_LINES / 2, "unknown-type": JUNK_LINES / 2 });
  assert.equal(state.warnings.length, 2 * KEPT, "the first 100 of each kind, with their lines");
  assert.deepEqual(state.warnings.slice(0, 2).map((w) => [w.line, w.kind]), [[2, "bad-json"], [3, "unknown-type"]]);
  console.log(`# RSS growth: ${(growth / 2 ** 20).toFixed(1)} MB`);
  assert.ok(growth < MAX_GROWTH, `RSS grew by ${(growth / 2 ** 20).toFixed(0)} MB replaying ${JUNK_LINES} junk lines (bound ${MAX_GROWTH / 2 ** 20} MB)`);

  // The module still works: a journal after it, with its warning count
  // counting every warning (the session layer's in-step check relies on it).
  const j = new session.Journal();
  j.feed("junk\n".repeat(KEPT + 5) + start + "\n");
  j.finish();
  assert.equal(j.warningCount, KEPT + 5);
  assert.equal(j.state().warnings.length, KEPT);
  assert.equal(j.state().sessionId, "junk");
  j.free();
  assert.equal(session.rebuildState(start).sessionId, "junk");
});

test("replay (the CLI) lists the first 100 warnings of a kind and says how many more there were", async () => {
  const { spawnSync } = await import("node:child_process");
  const file = path.join(fs.mkdtempSync(path.join(tmpdir(), "garuda-bounds-cli-")), "junk.jsonl");
  fs.writeFileSync(file, JSON.stringify({ type: "start", sessionId: "j", model: "m" }) + "\n" + "junk\n".repeat(150));
  const r = spawnSync(process.execPath, [path.join(root, "pkg/bin/garuda-session.cjs"), "replay", file], { encoding: "utf8" });
  assert.equal(r.status, 1, r.stderr);
  assert.equal(r.stdout.match(/warning {3}line \d+: bad-json/g).length, KEPT);
  assert.match(r.stdout, /warning {3}50 more bad-json \(150 in all; the first 100 are listed\)/);
  const json = JSON.parse(spawnSync(process.execPath, [path.join(root, "pkg/bin/garuda-session.cjs"), "replay", file, "--json"], { encoding: "utf8" }).stdout);
  assert.deepEqual(json.warningCounts, { "bad-json": 150 });
});
