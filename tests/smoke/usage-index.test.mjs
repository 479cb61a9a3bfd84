// The usage index (bin/usage-index.cjs): a warm run opens no unchanged
// file, appending to a Claude Code session re-reads only the appended bytes
// (counted, not timed: GARUDA_USAGE_STATS prints what was read), and the
// report is always the one a run without the index gives; a file rewritten
// is read whole again; the index is 0600 in a 0700 folder. And the
// statusline hook answers one line from Claude Code's JSON.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { assistantLine, claudeHistory } from "./support/claude-history.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "pkg/bin/garuda-session.cjs");

function run(args, env, input) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", input, env: { ...process.env, GARUDA_USAGE_STATS: "1", ...env } });
  const stats = /read (\{.*\})/.exec(r.stderr);
  return { code: r.status, out: r.stdout, err: r.stderr, stats: stats ? JSON.parse(stats[1]) : null };
}

const line = (session, n, t, usage, id) => assistantLine(session, n, t, usage, { id, chained: true });

function setup() {
  const { home, project, iso, env } = claudeHistory("garuda-index-");
  fs.writeFileSync(path.join(project, "a.jsonl"), line("a", 1, iso(50), { input_tokens: 100, output_tokens: 10 }) + line("a", 2, iso(40), { input_tokens: 200, output_tokens: 20, cache_read_input_tokens: 1000 }));
  fs.writeFileSync(path.join(project, "b.jsonl"), line("b", 1, iso(30), { input_tokens: 300, output_tokens: 30 }));
  return { home, project, iso, env };
}

const totals = (r) => JSON.parse(r.out).totals;

test("a warm index opens no unchanged file; appending re-reads only the appended bytes; the report equals a read without the index", () => {
  const { home, project, iso, env } = setup();
  const dir = path.join(home, "claude", "projects");
  const cold = run(["usage", dir, "--by", "day", "--json"], env);
  assert.equal(cold.code, 0, cold.err);
  const size = fs.statSync(path.join(project, "a.jsonl")).size + fs.statSync(path.join(project, "b.jsonl")).size;
  assert.equal(cold.stats.bytesRead, size, "cold: every byte once");
  const warm = run(["usage", dir, "--by", "day", "--json"], env);
  assert.equal(warm.stats.bytesRead, 0, "warm: nothing read");
  assert.equal(warm.stats.answered, true, "warm: the kept answer (usage-answers.cjs)");
  assert.deepEqual(totals(warm), totals(cold));
  // A view whose answer is not kept (blocks depend on the time asked) reads the index: no file opened.
  const blocks = run(["usage", dir, "--by", "block", "--json"], env);
  assert.equal(blocks.stats.bytesRead, 0);
  assert.equal(blocks.stats.filesFromIndex, 2);
  assert.equal(blocks.stats.walked, false, "no folder listed again");
  // A response streamed across the old end: its first line was read, its
  // final one (more output) is appended, with one new request.
  fs.appendFileSync(path.join(project, "a.jsonl"), line("a", 3, iso(20), { input_tokens: 5, output_tokens: 1 }, "msg_stream"));
  const before = fs.statSync(path.join(project, "a.jsonl")).size;
  run(["usage", dir, "--json"], env);
  const appended = line("a", 4, iso(19), { input_tokens: 5, output_tokens: 50 }, "msg_stream") + line("a", 5, iso(10), { input_tokens: 700, output_tokens: 70 });
  fs.appendFileSync(path.join(project, "a.jsonl"), appended);
  const after = run(["usage", dir, "--by", "day", "--json"], env);
  assert.equal(after.stats.bytesRead, Buffer.byteLength(appended), "only the appended bytes");
  assert.equal(after.stats.filesAppended, 1);
  const plain = run(["usage", dir, "--by", "day", "--json", "--no-index"], env);
  assert.deepEqual(totals(after), totals(plain), "the index's report is the whole read's");
  assert.equal(totals(after).outputTokens, 10 + 20 + 30 + 50 + 70, "the streamed response counts once, with its final usage");
  // A half-written last line waits for its newline.
  fs.appendFileSync(path.join(project, "b.jsonl"), line("b", 2, iso(5), { input_tokens: 1, output_tokens: 1 }).slice(0, 40));
  const torn = run(["usage", dir, "--json"], env);
  assert.equal(torn.code, 0, torn.err);
  // Rewritten (same size, other bytes): read whole again.
  const a = path.join(project, "a.jsonl");
  fs.writeFileSync(a, fs.readFileSync(a, "utf8").replace('"input_tokens":100', '"input_tokens":900'));
  const rewritten = run(["usage", dir, "--json"], env);
  assert.equal(rewritten.stats.filesRead, 1);
  assert.deepEqual(totals(rewritten), totals(run(["usage", dir, "--json", "--no-index"], env)));
  const idx = fs.readdirSync(env.GARUDA_CACHE_DIR).map((f) => path.join(env.GARUDA_CACHE_DIR, f));
  assert.deepEqual(idx.map((f) => path.basename(f).replace(/-[0-9a-f]{16}\.json$/, "")).sort(), ["usage-answers-v2", "usage-index-v3.bin"], "the index and one answers file, no temporary left");
  assert.equal(fs.statSync(env.GARUDA_CACHE_DIR).mode & 0o777, 0o700);
  for (const f of idx) {
    assert.equal(fs.statSync(f).mode & 0o777, 0o600);
    // Not a word of the conversations in it.
    assert.doesNotMatch(fs.readFileSync(f, "latin1"), /"ok"|msg_/);
  }
});

test("an index of other read options (--prices) is rebuilt, and a damaged one is rebuilt too", () => {
  const { home, env } = setup();
  const dir = path.join(home, "claude", "projects");
  run(["usage", dir, "--json"], env);
  const prices = path.join(home, "prices.json");
  fs.writeFileSync(prices, JSON.stringify({ models: { "claude-sonnet-4-5-20250929": { input: 1, output: 1 } } }));
  const other = run(["usage", dir, "--json", "--prices", prices], env);
  assert.equal(other.stats.filesRead, 2);
  assert.notEqual(totals(other).costUsd, totals(run(["usage", dir, "--json"], env)).costUsd, "the new prices count");
  assert.deepEqual(totals(other), totals(run(["usage", dir, "--json", "--no-index", "--prices", prices], env)));
  // The index and the answers kept beside it, both damaged.
  for (const f of fs.readdirSync(env.GARUDA_CACHE_DIR)) fs.writeFileSync(path.join(env.GARUDA_CACHE_DIR, f), "garbage");
  const again = run(["usage", dir, "--json"], env);
  assert.equal(again.code, 0, again.err);
  assert.equal(again.stats.filesRead, 2);
});

test("statusline: Claude Code's JSON on stdin, one line out with the session's, today's and the block's cost", () => {
  const { home, project, env } = setup();
  const input = JSON.stringify({ session_id: "a", transcript_path: path.join(project, "a.jsonl"), model: { id: "claude-sonnet-4-5-20250929", display_name: "Sonnet 4.5" } });
  const r = run(["statusline", "--timezone", "UTC"], env, input);
  assert.equal(r.code, 0, r.err);
  const lines = r.out.trimEnd().split("\n");
  assert.equal(lines.length, 1);
  assert.match(lines[0], /^🤖 Sonnet 4\.5 \| 💰 \$\d+\.\d\d session \/ \$\d+\.\d\d today \/ \$\d+\.\d\d block \(\d+h \d+m left\) \| 🔥 \$\d+\.\d\d\/hr \| 🧠 1,200 \(1%\)$/);
  const warm = run(["statusline", "--timezone", "UTC"], env, input);
  assert.equal(warm.stats.bytesRead, 0, "a warm status line reads nothing");
  const bad = run(["statusline"], env, "not json");
  assert.equal(bad.code, 2);
  assert.match(bad.err, /stdin is not Claude Code's status JSON/);
  // Claude Code's own context_window (2.0.65 on) wins: the window it runs
  // with (1M here, the model id says nothing of it) and its latest request's
  // context (input, cache write and cache read), ahead of the transcript.
  const cw = (context_window) => run(["statusline", "--timezone", "UTC", "--no-cache"], env, JSON.stringify({ ...JSON.parse(input), context_window })).out;
  assert.match(cw({ context_window_size: 1_000_000, current_usage: { input_tokens: 10, output_tokens: 99, cache_creation_input_tokens: 90, cache_read_input_tokens: 499_900 } }), /🧠 500,000 \(50%\)$/m);
  assert.match(cw({ context_window_size: 1_000_000, current_usage: null }), /🧠 1,200 \(0%\)$/m, "no request yet: the transcript's, in Claude Code's window");
  assert.match(cw({ context_window_size: "big", current_usage: "x" }), /🧠 1,200 \(1%\)$/m, "what is not a figure is not taken");
  // --cost-source, as ccusage's: auto takes Claude Code's own session cost when it sends one.
  const cost = (args) => run(["statusline", "--timezone", "UTC", "--no-cache", ...args], env, JSON.stringify({ ...JSON.parse(input), cost: { total_cost_usd: 12.5 } }));
  assert.match(cost([]).out, /💰 \$12\.50 session/);
  assert.match(cost(["--cost-source", "cc"]).out, /💰 \$12\.50 session/);
  assert.match(cost(["--cost-source", "ccusage"]).out, /💰 \$\d+\.\d\d session/);
  assert.doesNotMatch(cost(["--cost-source", "ccusage"]).out, /12\.50/);
  assert.match(cost(["--cost-source", "both"]).out, /💰 \(\$12\.50 cc \/ \$\d+\.\d\d ccusage\) session/);
  assert.equal(cost(["--cost-source", "bogus"]).code, 2);
});
