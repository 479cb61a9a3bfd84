// The folder walk (pkg/bin/folders.cjs) on Claude Code's older layout: a
// subagent's agent-<id>.jsonl beside its session's file is that session's
// child run when the session is the folder's only one, and a session of its
// own otherwise; the walk keeps the listing's order either way, and stays
// linear in the files (10,000 agent files beside one session).
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { walkSessions } = createRequire(import.meta.url)(path.join(root, "pkg/bin/folders.cjs"));

function folder(files) {
  const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-folders-"));
  for (const f of files) {
    fs.mkdirSync(path.dirname(path.join(dir, f)), { recursive: true });
    fs.writeFileSync(path.join(dir, f), "{}\n");
  }
  return dir;
}

const ids = (rows) => rows.map((r) => r.id).sort();

test("agent files beside a folder's only session are its child runs; beside two, sessions of their own", () => {
  const one = walkSessions(folder(["p/main.jsonl", "p/agent-a1.jsonl", "p/agent-a2.jsonl", "q/other.jsonl", "q/agent-b1.jsonl"]));
  assert.deepEqual(ids(one), ["main", "other"]);
  assert.deepEqual(ids(one.find((s) => s.id === "main").children), ["agent-a1", "agent-a2"]);
  assert.deepEqual(ids(one.find((s) => s.id === "other").children), ["agent-b1"]);
  const two = walkSessions(folder(["p/main.jsonl", "p/second.jsonl", "p/agent-a1.jsonl"]));
  assert.deepEqual(ids(two), ["agent-a1", "main", "second"]);
  assert.ok(two.every((s) => s.children.length === 0));
});

test("10,000 agent files beside one session: all its children, none left as sessions", () => {
  const n = 10000;
  const dir = folder(["p/main.jsonl", "r/solo.jsonl", ...Array.from({ length: n }, (_, i) => `p/agent-${i}.jsonl`)]);
  const rows = walkSessions(dir);
  assert.deepEqual(ids(rows), ["main", "solo"]);
  assert.equal(rows.find((s) => s.id === "main").children.length, n);
  fs.rmSync(dir, { recursive: true });
});
