// `usage --by day|week|month|session|block` against ccusage's native binary
// (pinned in .ci/): the same token totals per view, period by period, on
// the peers' Claude Code folders and on a synthetic folder made for the
// edges (midnight in a time zone, a week's Sunday, a block cut at 5 hours
// from its first request, a gap of more than 5 hours, a request copied into
// a continued session, a subagent's file). Where ccusage disagrees with
// itself (its daily view counts every streamed line of a response; its
// weekly, monthly, session and blocks views count the response once) the
// test shows it from the raw lines, walked here apart from both.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "pkg/bin/garuda-session.cjs");
const ccusage = path.join(root, ".ci/node_modules/@ccusage/ccusage-linux-x64/bin/ccusage");
const shared = process.env.GARUDA_SHARED ?? path.join(root, "../shared");
const peers = path.join(shared, "peers", "claude-code");
const noCcusage = fs.existsSync(ccusage) ? false : "SKIP usage views against ccusage: its native binary is absent (bash .ci/setup installs it)";
const noPeers = noCcusage || (fs.existsSync(peers) ? false : `SKIP usage views on the peers' files: ${peers} is absent (../shared sits beside the repository in CI)`);

function theirs(view, configDir, tz, extra = []) {
  const r = spawnSync(ccusage, ["claude", view, "--json", "--offline", "--timezone", tz, ...extra], { encoding: "utf8", env: { ...process.env, CLAUDE_CONFIG_DIR: configDir, HOME: configDir, TZ: tz } });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

function ours(by, dir, tz, extra = []) {
  const r = spawnSync(process.execPath, [bin, "usage", dir, "--by", by, "--json", "--timezone", tz, ...extra], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const four = (x) => [x.inputTokens, x.outputTokens, x.cacheCreationTokens ?? x.cacheCreationInputTokens, x.cacheReadTokens ?? x.cacheReadInputTokens];
const byKey = (rows, key) => Object.fromEntries(rows.map((r) => [r[key], four(r.tokenCounts ?? r)]));

function copyTree(from, to) {
  fs.mkdirSync(to, { recursive: true });
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    if (e.isDirectory()) copyTree(path.join(from, e.name), path.join(to, e.name));
    else fs.copyFileSync(path.join(from, e.name), path.join(to, e.name));
  }
}

/** One Claude Code assistant line. */
function line(session, n, t, usage, extra = {}) {
  return JSON.stringify({
    parentUuid: n === 1 ? null : `${session}-${n - 1}`,
    isSidechain: false,
    sessionId: session,
    type: "assistant",
    uuid: `${session}-${n}`,
    timestamp: t,
    requestId: `req_${session}_${n}`,
    message: { id: `msg_${session}_${n}`, role: "assistant", model: "claude-sonnet-4-5-20250929", content: [{ type: "text", text: "ok" }], usage },
    ...extra,
  });
}

/** The synthetic folder: times chosen for the edges of days, weeks and blocks. */
function synthetic() {
  const home = fs.mkdtempSync(path.join(tmpdir(), "garuda-views-"));
  const app = path.join(home, "projects", "app");
  const web = path.join(home, "projects", "web");
  fs.mkdirSync(path.join(app, "a", "subagents"), { recursive: true });
  fs.mkdirSync(web, { recursive: true });
  const u = (i) => ({ input_tokens: 100 * i, output_tokens: 10 * i, cache_creation_input_tokens: 1000 * i, cache_read_input_tokens: 5000 * i });
  const a = [
    line("a", 1, "2026-01-03T23:30:00.000Z", u(1)), // Saturday 23:30 UTC: Sunday in Tokyo, Saturday in New York
    line("a", 2, "2026-01-04T00:30:00.000Z", u(2)),
    line("a", 3, "2026-01-04T04:59:00.000Z", u(3)), // still the block of 23:00 (5 h from 23:00 is 04:00): a new block
    line("a", 4, "2026-01-04T05:10:00.000Z", u(4)),
    line("a", 5, "2026-01-04T16:00:00.000Z", u(5)), // more than 5 h after the last: a gap block
  ];
  fs.writeFileSync(path.join(app, "a.jsonl"), a.join("\n") + "\n");
  // A continued session: the lines of the one it continues, then its own.
  fs.writeFileSync(path.join(app, "b.jsonl"), [a[0], a[1], line("b", 6, "2026-01-31T23:50:00.000Z", u(6)), line("b", 7, "2026-02-01T00:10:00.000Z", u(7))].join("\n") + "\n");
  fs.writeFileSync(path.join(app, "a", "subagents", "agent-x.jsonl"), line("a", 8, "2026-01-04T00:40:00.000Z", u(8), { isSidechain: true, agentId: "x" }) + "\n");
  fs.writeFileSync(path.join(web, "c.jsonl"), [line("c", 1, "2026-01-10T12:00:00.000Z", u(9)), line("c", 2, "2026-01-10T12:01:00.000Z", { input_tokens: 0, output_tokens: 0 })].join("\n") + "\n");
  return home;
}

const ZONES = ["UTC", "Asia/Tokyo", "America/New_York", "Asia/Kolkata"];

test("day, week and month views: the same tokens per period as ccusage, in several time zones (synthetic edges)", { skip: noCcusage }, () => {
  const home = synthetic();
  for (const tz of ZONES) {
    for (const [view, by, list, key] of [
      ["daily", "day", "daily", "date"],
      ["weekly", "week", "weekly", "week"],
      ["monthly", "month", "monthly", "month"],
    ]) {
      const t = theirs(view, home, tz);
      const o = ours(by, path.join(home, "projects"), tz);
      assert.deepEqual(byKey(o[list], key), byKey(t[list], key), `${view} in ${tz}`);
      assert.equal(o.totals.totalTokens, t.totals.totalTokens, `${view} in ${tz}: total tokens`);
    }
  }
  // The edges really are edges: Tokyo and New York put the first request on different days and weeks.
  assert.notDeepEqual(Object.keys(byKey(ours("day", path.join(home, "projects"), "Asia/Tokyo").daily, "date")), Object.keys(byKey(ours("day", path.join(home, "projects"), "America/New_York").daily, "date")));
  assert.notDeepEqual(Object.keys(byKey(ours("week", path.join(home, "projects"), "Asia/Tokyo").weekly, "week")), Object.keys(byKey(ours("week", path.join(home, "projects"), "America/New_York").weekly, "week")));
});

test("session and block views: the same tokens as ccusage; blocks start, end and break where ccusage's do", { skip: noCcusage }, () => {
  const home = synthetic();
  const tb = theirs("blocks", home, "UTC");
  const ob = ours("block", path.join(home, "projects"), "UTC");
  const shape = (b) => [b.id, b.isGap, b.startTime, b.endTime, b.actualEndTime ?? null, b.entries, b.totalTokens];
  assert.deepEqual(ob.blocks.map(shape), tb.blocks.map(shape));
  assert.ok(ob.blocks.some((b) => b.isGap), "the synthetic folder has a gap");
  assert.ok(ob.blocks.filter((b) => !b.isGap).length >= 3, "and a block cut at 5 hours from its start");
  const ts = theirs("session", home, "UTC");
  const os = ours("session", path.join(home, "projects"), "UTC");
  assert.equal(os.totals.totalTokens, ts.totals.totalTokens);
  assert.deepEqual(four(os.totals), four(ts.totals));
  // Ours: the subagent counts in its session and is listed under it; the copy counts in the session it came from.
  const a = os.sessions.find((s) => s.sessionId === "a");
  assert.equal(a.projectPath, "app");
  assert.deepEqual(a.subagents.map((s) => s.id), ["agent-x"]);
  assert.equal(a.inputTokens, 100 * (1 + 2 + 3 + 4 + 5 + 8));
  assert.equal(os.sessions.find((s) => s.sessionId === "b").inputTokens, 100 * (6 + 7));
  assert.equal(os.sessions.find((s) => s.sessionId === "c").lastActivity, "2026-01-10T12:01:00.000Z", "a request that reported 0 tokens is activity (as ccusage's blocks count it)");
});

test("session --breakdown: a session's subagents are named as such, apart from its models", () => {
  const home = synthetic();
  const r = spawnSync(process.execPath, [bin, "usage", path.join(home, "projects"), "--by", "session", "--breakdown", "--timezone", "UTC"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const rows = r.stdout.split("\n");
  const at = rows.findIndex((l) => l.includes("app/a "));
  assert.ok(at >= 0, r.stdout);
  const under = rows.slice(at + 1).filter((l, i, all) => all.slice(0, i + 1).every((x) => /^\s*[│|]?\s+[↳└]/.test(x)));
  assert.ok(under.some((l) => /↳ subagent agent-x\b/.test(l)), r.stdout);
  assert.ok(under.some((l) => /└ claude-/.test(l)), r.stdout);
  assert.ok(!under.some((l) => /└ agent-/.test(l)), r.stdout);
});

test("the peers' Claude Code folders: week, month, session and block views give ccusage's tokens; day too, less what ccusage's daily counts twice (Bedrock's streamed lines)", { skip: noPeers }, () => {
  const home = fs.mkdtempSync(path.join(tmpdir(), "garuda-views-peers-"));
  copyTree(peers, path.join(home, "projects"));
  const dir = path.join(home, "projects");
  for (const [view, by, list, key] of [
    ["weekly", "week", "weekly", "week"],
    ["monthly", "month", "monthly", "month"],
  ]) {
    const t = theirs(view, home, "UTC");
    const o = ours(by, dir, "UTC");
    assert.deepEqual(byKey(o[list], key), byKey(t[list], key), view);
  }
  const shape = (b) => [b.id, b.isGap, b.actualEndTime ?? null, b.entries, b.totalTokens];
  assert.deepEqual(ours("block", dir, "UTC").blocks.map(shape), theirs("blocks", home, "UTC").blocks.map(shape));
  assert.deepEqual(four(ours("session", dir, "UTC").totals), four(theirs("session", home, "UTC").totals));
  // ccusage 20.0.24's daily counts each streamed line of a response that has
  // no requestId (Bedrock writes none) again; its weekly view and ours count
  // it once. An independent walk of the raw lines gives the excess, day by day.
  const t = byKey(theirs("daily", home, "UTC").daily, "date");
  const o = byKey(ours("day", dir, "UTC").daily, "date");
  const excess = {};
  const walk = (d) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".jsonl") && !/^agent-/.test(e.name)) {
        // Per response: every line's tokens, and the line whose usage counts
        // (the largest output, the first such: the final streamed line).
        const responses = new Map();
        for (const l of fs.readFileSync(p, "utf8").split("\n")) {
          let x;
          try {
            x = JSON.parse(l);
          } catch {
            continue;
          }
          const u = x?.message?.usage;
          if (x?.type !== "assistant" || !u || !x.message.id || x.requestId) continue;
          const v = [u.input_tokens, u.output_tokens, u.cache_creation_input_tokens, u.cache_read_input_tokens].map((n) => n ?? 0);
          const r = responses.get(x.message.id) ?? { day: x.timestamp.slice(0, 10), all: [0, 0, 0, 0], kept: null };
          v.forEach((n, i) => (r.all[i] += n));
          if (r.kept === null || v[1] > r.kept[1]) r.kept = v;
          responses.set(x.message.id, r);
        }
        for (const r of responses.values()) {
          excess[r.day] ??= [0, 0, 0, 0];
          r.all.forEach((n, i) => (excess[r.day][i] += n - r.kept[i]));
        }
      }
    }
  };
  walk(dir);
  assert.ok(Object.values(excess).some((v) => v.some((n) => n > 0)), "the peers' files have streamed responses without requestId");
  for (const day of Object.keys(t)) {
    const want = t[day].map((v, i) => v - (excess[day]?.[i] ?? 0));
    assert.deepEqual(o[day], want, `${day}: ccusage's daily less its repeated streamed lines`);
  }
});
