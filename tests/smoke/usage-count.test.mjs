// The copies kept in the index (bin/usage-count.cjs): after an append, a
// warm run marks only the new rows' copies and adds up only the files
// written to since the cut, and what it prints is byte for byte what a cold
// run (an empty cache) and a read without the index print: the day view
// (table and JSON), the session view, the status line. Proved on appends
// that carry the kept marks on (a copy of a request appended to a later
// file; a copy appended to the earliest file, which then counts it and the
// later one's becomes the copy) and on changes that count every file again
// (a row older than the cut, a file truncated, a file replaced).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "pkg/bin/garuda-session.cjs");

function run(args, env, input) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", input, env: { ...process.env, GARUDA_USAGE_STATS: "1", TZ: "UTC", ...env } });
  assert.equal(r.status, 0, r.stderr);
  const stats = /read (\{.*\})/.exec(r.stderr);
  return { out: r.stdout, stats: stats ? JSON.parse(stats[1]) : null };
}

const MIN = 60000;
const now = Date.now();
const at = (minutesAgo) => new Date(now - minutesAgo * MIN).toISOString();
let n = 0;
/** One assistant line of Claude Code: `id` is its message.id (and requestId), what ccusage de-duplicates by. */
function line(minutesAgo, id, usage, model = "claude-sonnet-4-5-20250929") {
  n++;
  return JSON.stringify({ type: "assistant", sessionId: "s", uuid: `u${n}`, timestamp: at(minutesAgo), requestId: `req_${id}`, message: { id: `msg_${id}`, role: "assistant", model, content: [], usage } }) + "\n";
}

function setup() {
  const home = fs.mkdtempSync(path.join(tmpdir(), "garuda-count-"));
  const project = path.join(home, "claude", "projects", "app");
  fs.mkdirSync(project, { recursive: true });
  const u = (i, o, c = 0) => ({ input_tokens: i, output_tokens: o, cache_read_input_tokens: c });
  const D = 24 * 60;
  // Days back (so the index has a cut: a gap of more than 5 hours at least two days ago), and today.
  fs.writeFileSync(path.join(project, "old.jsonl"), line(5 * D, "o1", u(100, 10)) + line(4 * D, "o2", u(200, 20, 500)));
  fs.writeFileSync(path.join(project, "a.jsonl"), line(3 * D, "a1", u(300, 30)) + line(50, "a2", u(400, 40, 1000)) + line(40, "a3", u(10, 5), "claude-opus-4-1-20250805"));
  // b starts later than a, and holds a copy of a's request a2 (a continued session): a counts it.
  fs.writeFileSync(path.join(project, "b.jsonl"), line(2.5 * D, "b1", u(500, 50)) + line(50, "a2", u(400, 40, 1000)) + line(30, "b2", u(600, 60)));
  fs.writeFileSync(path.join(project, "c.jsonl"), line(60, "c1", u(700, 70)) + line(20, "c2", u(800, 80, 2000)));
  return { home, project, env: { CLAUDE_CONFIG_DIR: path.join(home, "claude") } };
}

/** Everything compared, as printed (the status line's minutes left stripped: the clock moves between runs). */
function views(home, env, project) {
  const dir = path.join(home, "claude", "projects");
  const hook = JSON.stringify({ session_id: "c", transcript_path: path.join(project, "c.jsonl"), model: { id: "claude-sonnet-4-5-20250929", display_name: "Sonnet 4.5" } });
  // --no-cache: past the line statusline keeps for a second while its transcript is unchanged
  // (a step that changes another file came within that second on a fast machine).
  const status = run(["statusline", "--no-cache"], env, hook);
  const day = run(["usage", dir, "--by", "day", "--json"], env);
  const out = {
    statusline: status.out.replace(/\(\d+h \d+m left\)/, "(left)"),
    dayJson: day.out,
    dayTable: run(["usage", dir, "--by", "day", "--no-color"], env).out,
    // Another zone's days are kept beside the system's (and newest first).
    dayTokyo: run(["usage", dir, "--by", "day", "--json", "--timezone", "Asia/Tokyo", "--order", "desc"], env).out,
    sessionJson: run(["usage", dir, "--by", "session", "--json"], env).out,
  };
  return { out, stats: status.stats, dayStats: day.stats };
}

/** The warm run's views (the cache kept across steps) against a cold run's (an empty cache) and a read without the index. */
function same(home, project, label) {
  const warmEnv = { CLAUDE_CONFIG_DIR: path.join(home, "claude"), GARUDA_CACHE_DIR: path.join(home, "warm") };
  const coldEnv = { ...warmEnv, GARUDA_CACHE_DIR: path.join(home, `cold-${n}`) };
  const cold = views(home, coldEnv, project);
  const warm = views(home, warmEnv, project);
  for (const k of Object.keys(cold.out)) assert.equal(warm.out[k], cold.out[k], `${label}: ${k} warm equals cold`);
  const dir = path.join(home, "claude", "projects");
  assert.equal(run(["usage", dir, "--by", "day", "--json", "--no-index"], warmEnv).out, cold.out.dayJson, `${label}: the index's day view is the whole read's`);
  assert.equal(run(["usage", dir, "--by", "day", "--json", "--no-index", "--timezone", "Asia/Tokyo", "--order", "desc"], warmEnv).out, cold.out.dayTokyo, `${label}: in another zone too`);
  return warm;
}

test("after an append, the kept copies give what a cold run gives, byte for byte; a change the marks cannot follow counts all again", () => {
  const { home, project } = setup();
  const first = same(home, project, "cold");
  assert.equal(first.stats.counted, "all");
  const day = (h) => JSON.parse(views(h, { CLAUDE_CONFIG_DIR: path.join(home, "claude"), GARUDA_CACHE_DIR: path.join(home, "warm") }, project).out.dayJson).totals;
  const before = day(home);

  // A copy of b's request b2 appended to c (c starts after b: b keeps it), and a new request.
  fs.appendFileSync(path.join(project, "c.jsonl"), line(30, "b2", u3(600, 60)) + line(5, "c3", u3(900, 90)));
  const one = same(home, project, "copy appended to a later file");
  assert.equal(one.stats.counted, "carried", "the kept marks carried on");
  assert.equal(one.stats.filesAppended, 1);
  assert.equal(one.dayStats.days, "kept", "the day view from the days kept (the status line brought them up to date)");
  // What the append changed went to a delta beside the index (0600), not into the index written whole again.
  const cache = path.join(home, "warm");
  const delta = path.join(cache, "usage-index-v3.delta");
  assert.ok(fs.existsSync(delta), "a delta is written");
  assert.equal(fs.statSync(delta).mode & 0o777, 0o600);
  assert.doesNotMatch(fs.readFileSync(delta, "latin1"), /msg_|"ok"/, "no word of the conversations");
  assert.equal(day(home).outputTokens, before.outputTokens + 90, "the copy counts once");

  // Copies of c's requests c2 (in the index written whole) and c3 (in its
  // delta), with other figures, appended to the earliest file: they now
  // count there, and c's are the copies.
  fs.appendFileSync(path.join(project, "old.jsonl"), line(20, "c2", u3(800, 81, 2000)) + line(5, "c3", u3(900, 91)));
  const two = same(home, project, "copy appended to the earliest file");
  assert.equal(two.stats.counted, "carried");
  assert.equal(two.dayStats.days, "kept");
  assert.equal(day(home).outputTokens, before.outputTokens + 90 + 1 + 1, "the earliest file's copies are the ones counted");

  // A row older than the cut: every file counted again.
  fs.appendFileSync(path.join(project, "a.jsonl"), line(6 * 24 * 60, "late", u3(5, 5)));
  assert.equal(same(home, project, "a row before the cut").stats.counted, "all");

  // b truncated (its copy of a2 and b2 gone): read whole, counted again.
  const b = path.join(project, "b.jsonl");
  fs.writeFileSync(b, fs.readFileSync(b, "utf8").split("\n")[0] + "\n");
  assert.equal(same(home, project, "a file truncated").stats.counted, "all");

  // a replaced by another file (another inode) with one more request.
  const a = path.join(project, "a.jsonl");
  // (Written beside it and renamed over it, as an editor saves: a new inode, the first line gone.)
  const text = fs.readFileSync(a, "utf8").split("\n").slice(1).join("\n") + line(3, "a4", u3(1, 1));
  fs.writeFileSync(`${a}.new`, text);
  fs.renameSync(`${a}.new`, a);
  const replaced = same(home, project, "a file replaced");
  assert.equal(replaced.stats.counted, "all");
  assert.equal(replaced.stats.filesRead, 1);

  // And an append after all that carries on again.
  fs.appendFileSync(path.join(project, "c.jsonl"), line(1, "c4", u3(3, 3)));
  assert.equal(same(home, project, "an append after the recount").stats.counted, "carried");
});

function u3(i, o, c = 0) {
  return { input_tokens: i, output_tokens: o, cache_read_input_tokens: c };
}
