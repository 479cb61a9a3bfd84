// `list`: a session's "updated" is its last activity, the time of its last
// record that has one, not the file's mtime (a copy, a restored backup or
// a sync tool sets that): rows sorted by it; the mtime only when no record
// has a time. Checked on synthetic files whose mtime says otherwise, and
// on every real file of ../shared/peers against an independent forward walk
// of its raw lines (Gemini's session document: its lastUpdated).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "pkg/bin/garuda-session.cjs");
const peers = path.join(process.env.GARUDA_SHARED ?? path.join(root, "../shared"), "peers");
const noPeers = fs.existsSync(peers) ? false : `SKIP list's last activity on the peers' files: ${peers} is absent (../shared sits beside the repository in CI)`;

function list(dir, json = true) {
  const r = spawnSync(process.execPath, [bin, "list", dir, ...(json ? ["--json"] : [])], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return json ? JSON.parse(r.stdout) : r.stdout;
}

const claude = (session, n, t, role = "user") => JSON.stringify({ parentUuid: null, sessionId: session, type: role, uuid: `${session}-${n}`, timestamp: t, message: role === "user" ? { role, content: `prompt ${n}` } : { id: `msg_${n}`, role, model: "claude-sonnet-4-5-20250929", content: [{ type: "text", text: "ok" }], usage: { input_tokens: 1, output_tokens: 1 } } }) + "\n";

test("list: updated is the last record's time, not the file's mtime; rows newest activity first", () => {
  const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-list-"));
  const project = path.join(dir, "app");
  fs.mkdirSync(project);
  // Active last (a record after the last message: a system line), but an old mtime.
  const a = path.join(project, "a.jsonl");
  fs.writeFileSync(a, claude("a", 1, "2026-01-05T09:00:00.000Z") + claude("a", 2, "2026-01-05T09:30:00.000Z", "assistant") + JSON.stringify({ type: "system", subtype: "turn_duration", timestamp: "2026-01-05T10:00:00.000Z", sessionId: "a" }) + "\n" + JSON.stringify({ type: "summary", summary: "no time on this line" }) + "\n" + '{"type":"user","timest');
  fs.utimesSync(a, new Date("2020-01-01T00:00:00Z"), new Date("2020-01-01T00:00:00Z"));
  // Active earlier, but touched since.
  const b = path.join(project, "b.jsonl");
  fs.writeFileSync(b, claude("b", 1, "2026-01-01T08:00:00.000Z") + claude("b", 2, "2026-01-01T08:15:00+01:00", "assistant"));
  fs.utimesSync(b, new Date("2030-01-01T00:00:00Z"), new Date("2030-01-01T00:00:00Z"));
  // A Garuda journal: its records' `t`.
  const g = path.join(dir, "20261129-100000-ab12.jsonl");
  fs.copyFileSync(path.join(root, "tests/golden/every-record-type.jsonl"), g);
  fs.utimesSync(g, new Date("2029-06-01T00:00:00Z"), new Date("2029-06-01T00:00:00Z"));
  // No record with a time: the file's mtime.
  const c = path.join(project, "c.jsonl");
  fs.writeFileSync(c, claude("c", 1, undefined) + claude("c", 2, undefined, "assistant"));
  fs.utimesSync(c, new Date("2025-03-03T00:00:00Z"), new Date("2025-03-03T00:00:00Z"));
  const rows = list(dir);
  const by = Object.fromEntries(rows.map((r) => [r.id, r]));
  assert.equal(by.a.updated, "2026-01-05T10:00:00.000Z", "the last record with a time, not the mtime (2020)");
  assert.equal(by.a.lastActivity, "2026-01-05T10:00:00.000Z");
  assert.equal(by.b.updated, "2026-01-01T07:15:00.000Z", "an offset time, in UTC; not the mtime (2030)");
  assert.equal(by["20261129-100000-ab12"].updated, "2026-11-29T10:00:00.000Z");
  assert.equal(by.c.updated, "2025-03-03T00:00:00.000Z");
  assert.equal(by.c.lastActivity, null);
  assert.deepEqual(rows.map((r) => r.id), ["20261129-100000-ab12", "a", "b", "c"], "newest activity first");
  assert.match(list(dir, false), /app\/a +2026-01-05 10:00 /);
  fs.rmSync(dir, { recursive: true, force: true });
});

test("list: on every real file of the peers, updated is the time of its last line that has one", { skip: noPeers }, () => {
  let checked = 0;
  for (const agent of fs.readdirSync(peers)) {
    const dir = path.join(peers, agent);
    if (!fs.statSync(dir).isDirectory()) continue;
    for (const row of list(dir)) {
      const base = path.join(dir, row.project ?? "", row.id);
      const file = [".jsonl", ".json"].map((x) => base + x).find((f) => fs.existsSync(f));
      if (!file) continue;
      const text = fs.readFileSync(file, "utf8");
      let want = null;
      if (file.endsWith(".json")) {
        want = JSON.parse(text).lastUpdated ?? null;
      } else {
        // Forward, every line: the last one with a time wins.
        for (const l of text.split("\n")) {
          let v;
          try {
            v = JSON.parse(l);
          } catch {
            continue;
          }
          const t = v?.t ?? v?.timestamp;
          if (typeof t === "string" && !Number.isNaN(Date.parse(t))) want = t;
        }
      }
      if (want === null) continue;
      assert.equal(row.updated, new Date(Date.parse(want)).toISOString(), `${agent}: ${path.relative(dir, file)}`);
      checked++;
    }
  }
  assert.ok(checked >= 10, `only ${checked} files checked`);
});

// A Claude Code subagent writes its own file (<session>/subagents/agent-*.jsonl),
// and the session's file holds none of its requests: list counts it in the
// session, as usage --by session does; an unknown price makes it a lower bound.
test("list: a Claude Code session's cost includes its subagents' files, as usage --by session counts it", () => {
  const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-list-runs-"));
  const project = path.join(dir, "app");
  fs.mkdirSync(path.join(project, "s", "subagents"), { recursive: true });
  const priced = (session, n, model, t) => JSON.stringify({ parentUuid: null, sessionId: session, type: "assistant", uuid: `${session}-${n}`, timestamp: t, requestId: `req_${session}_${n}`, message: { id: `msg_${session}_${n}`, role: "assistant", model, content: [{ type: "text", text: "ok" }], usage: { input_tokens: 1000, output_tokens: 1000 } } }) + "\n";
  fs.writeFileSync(path.join(project, "s.jsonl"), claude("s", 1, "2026-01-05T09:00:00.000Z") + priced("s", 2, "claude-sonnet-4-5-20250929", "2026-01-05T09:01:00.000Z"));
  fs.writeFileSync(path.join(project, "s", "subagents", "agent-a1.jsonl"), priced("s", 3, "claude-sonnet-4-5-20250929", "2026-01-05T09:02:00.000Z"));
  const [row] = list(dir);
  const u = spawnSync(process.execPath, [bin, "usage", "session", dir, "--json", "--no-index", "--timezone", "UTC"], { encoding: "utf8" });
  assert.equal(u.status, 0, u.stderr);
  const usage = JSON.parse(u.stdout).sessions[0].totalCost;
  assert.ok(Math.abs(row.costUsd - usage) < 1e-9, `list ${row.costUsd}, usage ${usage}`);
  assert.ok(Math.abs(row.costUsd - 2 * row.ownCostUsd) < 1e-9, "the run costs what the session's own request does");
  assert.equal(row.costIncomplete, false);
  // A run of a model with no price: the sum is a lower bound, never the known part alone as if whole.
  fs.writeFileSync(path.join(project, "s", "subagents", "agent-a2.jsonl"), priced("s", 4, "no-such-model", "2026-01-05T09:03:00.000Z"));
  const [bound] = list(dir);
  assert.equal(bound.costIncomplete, true);
  assert.ok(bound.cost.startsWith("≥"), bound.cost);
});
