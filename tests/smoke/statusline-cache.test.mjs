// The status line kept between runs (bin/statusline-cache.cjs), as
// ccusage's statusline keeps it (--cache, --refresh-interval): within the
// interval, for the same status JSON and options and while the transcript
// is unchanged, the run prints the line kept; an append to the transcript,
// another session, other options, --no-cache or the interval passing each
// compute the line again, and that line is the one a whole read gives.
// Counted, not timed: GARUDA_USAGE_STATS says how a run was answered.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { assistantLine, claudeHistory, noonZone } from "./support/claude-history.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "pkg/bin/garuda-session.cjs");

function run(args, env, input) {
  const r = spawnSync(process.execPath, [bin, "statusline", ...args], { encoding: "utf8", input, env: { ...process.env, TZ: noonZone(), GARUDA_USAGE_STATS: "1", ...env } });
  const stats = /read (\{.*\})/.exec(r.stderr);
  return { code: r.status, out: r.stdout, err: r.stderr, stats: stats ? JSON.parse(stats[1]) : null };
}

const line = (session, n, t, input) => assistantLine(session, n, t, input, { text: "the secret word is PAPAYA" });

function setup() {
  const { home, project, iso, env } = claudeHistory("garuda-statusline-");
  fs.writeFileSync(path.join(project, "a.jsonl"), line("a", 1, iso(50), 100_000));
  fs.writeFileSync(path.join(project, "b.jsonl"), line("b", 1, iso(30), 300_000));
  const hook = (s) => JSON.stringify({ session_id: s, transcript_path: path.join(project, `${s}.jsonl`), model: { id: "claude-sonnet-4-5-20250929", display_name: "Sonnet 4.5" } });
  return { home, project, iso, hook, env };
}

// The time left in the block may tick over a minute between two runs.
const still = (s) => s.replace(/\(\d+h \d+m left\)/, "(left)");
const today = (s) => s.split(" | ")[1].split(" / ")[1];

test("statusline: within --refresh-interval the kept line answers; another session's spend shows once it has passed", () => {
  const { home, project, iso, hook, env } = setup();
  const long = ["--refresh-interval", "3600"];
  const first = run(long, env, hook("a"));
  assert.equal(first.code, 0, first.err);
  assert.notEqual(first.stats.kept, "line");
  const again = run(long, env, hook("a"));
  assert.equal(again.stats.kept, "line");
  assert.equal(again.out, first.out);
  // Another session spends: within the interval the kept line still answers (as ccusage's) ...
  fs.appendFileSync(path.join(project, "b.jsonl"), line("b", 2, iso(1), 2_000_000));
  const kept = run(long, env, hook("a"));
  assert.equal(kept.stats.kept, "line");
  assert.equal(kept.out, first.out);
  // ... and --no-cache, a shorter interval, or other options see it, each the line a whole read gives.
  const whole = run(["--no-cache", "--no-index"], env, hook("a"));
  assert.notEqual(today(whole.out), today(first.out));
  const fresh = run(["--no-cache"], env, hook("a"));
  assert.notEqual(fresh.stats.kept, "line");
  assert.equal(still(fresh.out), still(whole.out));
  const passed = run(["--refresh-interval", "0.001"], env, hook("a"));
  assert.notEqual(passed.stats.kept, "line");
  assert.equal(still(passed.out), still(whole.out));
  fs.rmSync(home, { recursive: true, force: true });
});

test("statusline: an append to the transcript, or another session's status JSON, computes the line again", () => {
  const { home, project, iso, hook, env } = setup();
  const long = ["--refresh-interval", "3600"];
  const first = run(long, env, hook("a"));
  fs.appendFileSync(path.join(project, "a.jsonl"), line("a", 2, iso(1), 1_500_000));
  const after = run(long, env, hook("a"));
  assert.notEqual(after.stats.kept, "line");
  assert.match(after.out, /🧠 1,500,001|🧠 1,500,000/);
  assert.notEqual(still(after.out), still(first.out));
  assert.equal(still(after.out), still(run(["--no-cache", "--no-index"], env, hook("a")).out));
  const other = run(long, env, hook("b"));
  assert.notEqual(other.stats.kept, "line");
  assert.notEqual(other.out.split(" | ")[1].split(" / ")[0], after.out.split(" | ")[1].split(" / ")[0]);
  // Both kept, each answering its own session.
  assert.equal(run(long, env, hook("a")).stats.kept, "line");
  assert.equal(run(long, env, hook("b")).out, other.out);
  fs.rmSync(home, { recursive: true, force: true });
});

test("statusline cache: one 0600 file of lines and costs, nothing of the conversations; damaged, it is computed again", () => {
  const { home, hook, env } = setup();
  const first = run([], env, hook("a"));
  const file = path.join(env.GARUDA_CACHE_DIR, "statusline-v1.json");
  assert.equal(fs.statSync(file).mode & 0o777, 0o600);
  const text = fs.readFileSync(file, "utf8");
  assert.doesNotMatch(text, /PAPAYA/);
  assert.ok(text.includes(JSON.stringify(first.out).slice(1, -1)));
  fs.writeFileSync(file, "garbage");
  const again = run(["--refresh-interval", "3600"], env, hook("a"));
  assert.equal(again.code, 0, again.err);
  assert.notEqual(again.stats.kept, "line");
  assert.equal(still(again.out), still(first.out));
  fs.rmSync(home, { recursive: true, force: true });
});

test("statusline: --refresh-interval takes seconds from 0 to 3600; 0 keeps nothing", () => {
  const { home, hook, env } = setup();
  for (const bad of ["x", "-1", "3601", ""]) {
    const r = run(["--refresh-interval", bad], env, hook("a"));
    assert.equal(r.code, 2, bad);
    assert.match(r.err, bad === "-1" ? /--refresh-interval/ : /--refresh-interval .*give seconds, 0 to 3600/);
  }
  run(["--refresh-interval", "0"], env, hook("a"));
  assert.notEqual(run(["--refresh-interval", "0"], env, hook("a")).stats.kept, "line");
  assert.equal(fs.existsSync(path.join(env.GARUDA_CACHE_DIR, "statusline-v1.json")), false);
  fs.rmSync(home, { recursive: true, force: true });
});
