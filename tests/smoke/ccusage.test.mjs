// `garuda-session usage` against ccusage's native binary on the same real
// sessions (../shared/peers, laid out in each agent's own folders): token
// totals per format must be equal. Where we disagree on purpose the test
// says so and checks both figures:
// - Gemini CLI thoughts are billed as output: our outputTokens are ccusage's
//   plus the sessions' thought tokens;
// - Anthropic's long-context rule: one request over 200k input tokens is
//   charged at the long-context rates for all its tokens (ccusage charges
//   only the excess), shown on a session made for it.
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
const peers = path.join(shared, "peers");
const skip = !fs.existsSync(peers)
  ? `SKIP ccusage cross-check: ${peers} is absent (../shared sits beside the repository in CI)`
  : !fs.existsSync(ccusage)
    ? "SKIP ccusage cross-check: ccusage's native binary is absent (bash .ci/setup installs it)"
    : false;

function copyTree(from, to, filter = () => true) {
  fs.mkdirSync(to, { recursive: true });
  for (const e of fs.readdirSync(from, { withFileTypes: true })) {
    const a = path.join(from, e.name);
    const b = path.join(to, e.name);
    if (e.isDirectory()) copyTree(a, b, filter);
    else if (filter(e.name)) fs.copyFileSync(a, b);
  }
}

function runCcusage(agent, env) {
  const r = spawnSync(ccusage, [agent, "session", "--json", "--offline"], { encoding: "utf8", env: { ...process.env, ...env, TZ: "UTC" } });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

function runOurs(dir) {
  const r = spawnSync(process.execPath, [bin, "usage", dir, "--json"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

const tokens = (t) => ({ input: t.inputTokens, output: t.outputTokens, cacheRead: t.cacheReadTokens, cacheWrite: t.cacheWriteTokens ?? t.cacheCreationTokens });

/** Each agent's sessions laid out where that agent (and ccusage) keeps them. */
function layout() {
  const home = fs.mkdtempSync(path.join(tmpdir(), "garuda-ccusage-"));
  const claude = path.join(home, "claude");
  copyTree(path.join(peers, "claude-code"), path.join(claude, "projects"));
  const codex = path.join(home, "codex");
  fs.mkdirSync(path.join(codex, "sessions/2026/02/23"), { recursive: true });
  for (const sub of fs.readdirSync(path.join(peers, "codex"))) {
    for (const f of fs.readdirSync(path.join(peers, "codex", sub)).filter((f) => f.startsWith("rollout-"))) {
      fs.copyFileSync(path.join(peers, "codex", sub, f), path.join(codex, "sessions/2026/02/23", f));
    }
  }
  const pi = path.join(home, "pi");
  fs.mkdirSync(path.join(pi, "sessions/--work--"), { recursive: true });
  for (const sub of fs.readdirSync(path.join(peers, "pi"))) {
    for (const f of fs.readdirSync(path.join(peers, "pi", sub)).filter((f) => f.endsWith(".jsonl"))) {
      fs.copyFileSync(path.join(peers, "pi", sub, f), path.join(pi, "sessions/--work--", `${sub}-${f}`));
    }
  }
  const gemini = path.join(home, "gemini");
  const chats = path.join(gemini, "tmp/project/chats");
  fs.mkdirSync(chats, { recursive: true });
  for (const f of fs.readdirSync(path.join(peers, "gemini/codemie-code")).filter((f) => f.startsWith("session-"))) {
    fs.copyFileSync(path.join(peers, "gemini/codemie-code", f), path.join(chats, f));
  }
  fs.copyFileSync(path.join(peers, "gemini/agent-sessions-sanitized/jsonl_v040.jsonl"), path.join(chats, "session-2026-04-29T21-39-jsonl.jsonl"));
  return { home, claude, codex, pi, gemini };
}

test("usage and ccusage give the same token totals for Claude Code, Codex and pi sessions", { skip }, () => {
  const d = layout();
  for (const [agent, env, dir] of [
    ["claude", { CLAUDE_CONFIG_DIR: d.claude }, path.join(d.claude, "projects")],
    ["codex", { CODEX_HOME: d.codex }, path.join(d.codex, "sessions")],
    ["pi", { PI_AGENT_DIR: d.pi }, path.join(d.pi, "sessions")],
  ]) {
    const theirs = runCcusage(agent, env);
    const ours = runOurs(dir);
    console.log(`${agent}: ccusage ${JSON.stringify(tokens(theirs.totals))} $${theirs.totals.totalCost ?? theirs.totals.costUSD}; ours ${JSON.stringify(tokens(ours.totals))} $${ours.totals.costUsd}${ours.totals.costIncomplete ? " (incomplete)" : ""}`);
    assert.deepEqual(tokens(ours.totals), { ...tokens(theirs.totals), cacheWrite: tokens(theirs.totals).cacheWrite ?? 0 }, agent);
  }
});

test("Gemini CLI: the same input and cache figures; our output adds the thoughts ccusage leaves out", { skip }, () => {
  const d = layout();
  const theirs = runCcusage("gemini", { GEMINI_DATA_DIR: path.join(d.gemini, "tmp") });
  const ours = runOurs(path.join(d.gemini, "tmp"));
  let thoughts = 0;
  const chats = path.join(d.gemini, "tmp/project/chats");
  for (const f of fs.readdirSync(chats)) {
    const text = fs.readFileSync(path.join(chats, f), "utf8");
    const messages = f.endsWith(".json") ? JSON.parse(text).messages : text.split("\n").filter(Boolean).map((l) => JSON.parse(l)).filter((m) => m.type);
    const last = new Map(messages.map((m) => [m.id, m]));
    for (const m of last.values()) thoughts += m.tokens?.thoughts ?? 0;
  }
  console.log(`gemini: ccusage ${JSON.stringify(tokens(theirs.totals))}; ours ${JSON.stringify(tokens(ours.totals))}; thoughts ${thoughts}`);
  assert.equal(ours.totals.inputTokens, theirs.totals.inputTokens);
  assert.equal(ours.totals.cacheReadTokens, theirs.totals.cacheReadTokens);
  assert.equal(ours.totals.outputTokens, theirs.totals.outputTokens + thoughts, "thoughts are billed as output");
});

test("the long-context rule: all of a request over 200k input tokens at the long rates (ccusage: only the excess)", { skip }, () => {
  const home = fs.mkdtempSync(path.join(tmpdir(), "garuda-tier-"));
  const dir = path.join(home, "projects/tier");
  fs.mkdirSync(dir, { recursive: true });
  const line = (n, usage) =>
    JSON.stringify({
      parentUuid: n === 1 ? null : `u${n - 1}`,
      isSidechain: false,
      type: n % 2 ? "user" : "assistant",
      sessionId: "tier",
      uuid: `u${n}`,
      timestamp: `2026-06-01T10:00:0${n}.000Z`,
      requestId: `req_${n}`,
      message: n % 2 ? { role: "user", content: "go" } : { id: `msg_${n}`, role: "assistant", model: "claude-sonnet-4-5-20250929", content: [{ type: "text", text: "ok" }], usage },
    });
  const usage = { input_tokens: 150_000, cache_read_input_tokens: 100_000, cache_creation_input_tokens: 0, output_tokens: 10_000 };
  fs.writeFileSync(path.join(dir, "tier.jsonl"), [line(1), line(2, usage)].join("\n") + "\n");
  const theirs = runCcusage("claude", { CLAUDE_CONFIG_DIR: home });
  const ours = runOurs(path.join(home, "projects"));
  assert.deepEqual(tokens(ours.totals), tokens(theirs.totals));
  // Anthropic: the whole request at $6 / $22.50 / $0.60 per million.
  const whole = (150_000 * 6 + 10_000 * 22.5 + 100_000 * 0.6) / 1e6;
  console.log(`long context, one request of 250k input tokens: ours $${ours.totals.costUsd} (all tokens at the long rates), ccusage $${theirs.totals.totalCost}`);
  assert.ok(Math.abs(ours.totals.costUsd - whole) < 1e-6, `${ours.totals.costUsd} vs ${whole}`);
  assert.ok(theirs.totals.totalCost < whole, "ccusage charges less: only the tokens over 200k at the long rates");
});

test("a Bedrock geographic profile costs Anthropic's 10% regional premium, as ccusage charges it; global. does not", { skip }, () => {
  const home = fs.mkdtempSync(path.join(tmpdir(), "garuda-geo-"));
  const dir = path.join(home, "projects/geo");
  fs.mkdirSync(dir, { recursive: true });
  const usage = { input_tokens: 100_000, output_tokens: 20_000, cache_read_input_tokens: 300_000, cache_creation_input_tokens: 0 };
  const lines = ["jp", "global"].map((geo, i) =>
    JSON.stringify({ parentUuid: null, isSidechain: false, type: "assistant", sessionId: geo, uuid: `u${i}`, timestamp: `2026-06-01T10:00:0${i}.000Z`, requestId: `req_${geo}`, message: { id: `msg_${geo}`, role: "assistant", model: `${geo}.anthropic.claude-haiku-4-5-20251001-v1:0`, content: [], usage } }),
  );
  fs.writeFileSync(path.join(dir, "jp.jsonl"), lines[0] + "\n");
  fs.writeFileSync(path.join(dir, "global.jsonl"), lines[1] + "\n");
  const theirs = runCcusage("claude", { CLAUDE_CONFIG_DIR: home });
  const ours = runOurs(path.join(home, "projects"));
  assert.deepEqual(tokens(ours.totals), tokens(theirs.totals));
  // Anthropic's Haiku 4.5 rates: $1 input, $5 output, $0.10 cache read per million; regional endpoints +10%.
  const global = (100_000 * 1 + 20_000 * 5 + 300_000 * 0.1) / 1e6;
  const byId = Object.fromEntries(ours.sessions.map((s) => [s.sessionId, s.costUsd]));
  console.log(`geographic profile: ours jp $${byId.jp} global $${byId.global}; ccusage $${theirs.totals.totalCost} for both`);
  assert.ok(Math.abs(theirs.totals.totalCost - (byId.jp + byId.global)) < 1e-9, "the same total as ccusage");
  assert.ok(Math.abs(byId.global - global) < 1e-9, `global ${byId.global}`);
  assert.ok(Math.abs(byId.jp - global * 1.1) < 1e-9, `jp ${byId.jp}`);
});

// Every view of ours counts a response once. ccusage 20.0.24's daily view
// keys a response written as several lines without a requestId (Bedrock's
// msg_bdrk_ sessions) by its line's timestamp too, but for a subagent's
// (sidechain) lines (its PR #1661), so it counts such a response once per
// line, where its own weekly, monthly and session views count it once. The
// raw lines, walked here apart from both, explain each figure exactly.
test("usage --by day counts each response once in every view; ccusage's daily counts a main-chain response without a requestId once per line", { skip }, () => {
  const d = layout();
  const env = { CLAUDE_CONFIG_DIR: d.claude };
  const view = (v) => {
    const r = spawnSync(ccusage, ["claude", v, "--json", "--offline", "--timezone", "UTC"], { encoding: "utf8", env: { ...process.env, ...env, TZ: "UTC" } });
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout).totals.totalTokens;
  };
  const ours = spawnSync(process.execPath, [bin, "usage", "daily", path.join(d.claude, "projects"), "--json", "--no-index", "--timezone", "UTC"], { encoding: "utf8" });
  assert.equal(ours.status, 0, ours.stderr);
  // The raw lines: each response once (the most tokens any of its lines
  // says), and ccusage daily's key (message id, requestId, and without a
  // requestId the line's timestamp).
  const once = new Map();
  const daily = new Map();
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const f = path.join(dir, e.name);
      if (e.isDirectory()) walk(f);
      else if (e.name.endsWith(".jsonl")) {
        for (const line of fs.readFileSync(f, "utf8").split("\n")) {
          let r;
          try {
            r = JSON.parse(line);
          } catch {
            continue;
          }
          const u = r?.type === "assistant" ? r.message?.usage : null;
          if (!u || typeof r.message.id !== "string") continue;
          const t = (u.input_tokens ?? 0) + (u.output_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0) + (u.cache_read_input_tokens ?? 0);
          const key = `${r.message.id}:${r.requestId ?? ""}`;
          once.set(key, Math.max(once.get(key) ?? 0, t));
          const dkey = r.requestId || r.isSidechain ? key : `${key}:${r.timestamp}`;
          daily.set(dkey, Math.max(daily.get(dkey) ?? 0, t));
        }
      }
    }
  };
  walk(path.join(d.claude, "projects"));
  const sum = (m) => [...m.values()].reduce((a, b) => a + b, 0);
  const figures = { ours: JSON.parse(ours.stdout).totals.totalTokens, walkOnce: sum(once), session: view("session"), monthly: view("monthly"), weekly: view("weekly"), daily: view("daily"), walkPerLine: sum(daily) };
  console.log(`Claude Code peers, total tokens: ${JSON.stringify(figures)}`);
  assert.equal(figures.ours, figures.walkOnce);
  for (const v of ["session", "monthly", "weekly"]) assert.equal(figures[v], figures.ours, `ccusage ${v}`);
  assert.equal(figures.daily, figures.walkPerLine, "ccusage daily: once per line where a response has no requestId");
  assert.ok(figures.daily > figures.ours, "the peers hold such responses (Bedrock's)");
});
