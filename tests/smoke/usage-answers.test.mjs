// The answers kept beside the usage index (bin/usage-answers.cjs): a run
// whose folders and files all stat as before answers `usage --by day` (and
// the other views that do not depend on the time asked) and `statusline`
// from them, without reading the index; any change to what they were
// computed from (an append, a file added in an old or a new folder, one
// removed, one rewritten, another zone) is seen, and the answer is always
// the one a whole read gives. Counted, not timed: GARUDA_USAGE_STATS says
// whether a run was answered from the kept answers.
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
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", input, env: { ...process.env, TZ: "UTC", GARUDA_USAGE_STATS: "1", ...env } });
  const stats = /read (\{.*\})/.exec(r.stderr);
  assert.equal(r.status, 0, r.stderr);
  return { out: r.stdout, err: r.stderr, stats: stats ? JSON.parse(stats[1]) : null };
}

const line = (session, n, t, input) => assistantLine(session, n, t, input);

function setup() {
  const history = claudeHistory("garuda-answers-");
  const { project, iso } = history;
  fs.writeFileSync(path.join(project, "a.jsonl"), line("a", 1, iso(50), 100) + line("a", 2, iso(40), 200));
  fs.writeFileSync(path.join(project, "b.jsonl"), line("b", 1, iso(30), 300));
  return history;
}

const input = (r) => JSON.parse(r.out).totals.inputTokens;

test("usage: an unchanged history is answered from the kept answers; an append, a file added or removed, a rewrite, another zone are seen", () => {
  const { home, project, iso, dir, env } = setup();
  const day = (extra = []) => run(["usage", dir, "--by", "day", "--json", ...extra], env);
  const whole = (extra = []) => run(["usage", dir, "--by", "day", "--json", "--no-index", ...extra], env);
  const cold = day();
  assert.notEqual(cold.stats.answered, true);
  const warm = day();
  assert.equal(warm.stats.answered, true, "nothing changed: answered");
  assert.equal(warm.out, cold.out, "the same report, byte for byte");
  assert.equal(warm.out, whole().out);
  // Appended to: read through the index (only the new bytes), then answered again.
  const added = line("a", 3, iso(20), 4000);
  fs.appendFileSync(path.join(project, "a.jsonl"), added);
  const appended = day();
  assert.notEqual(appended.stats.answered, true);
  assert.equal(appended.stats.bytesRead, Buffer.byteLength(added));
  assert.equal(input(appended), 4600);
  assert.equal(appended.out, whole().out);
  assert.equal(day().stats.answered, true);
  // A new file in a folder of the walk, then in a new folder.
  fs.writeFileSync(path.join(project, "c.jsonl"), line("c", 1, iso(10), 50000));
  assert.equal(input(day()), 54600);
  fs.mkdirSync(path.join(dir, "web"));
  fs.writeFileSync(path.join(dir, "web", "w.jsonl"), line("w", 1, iso(10), 600000));
  const grown = day();
  assert.equal(input(grown), 654600, "a file in a new folder is found");
  assert.equal(grown.out, whole().out);
  // Removed.
  fs.rmSync(path.join(project, "b.jsonl"));
  assert.equal(input(day()), 654300);
  // Rewritten in place: the same size, other bytes, another mtime.
  const a = path.join(project, "a.jsonl");
  fs.writeFileSync(a, fs.readFileSync(a, "utf8").replace('"input_tokens":100,', '"input_tokens":900,'));
  fs.utimesSync(a, new Date(Date.now() + 5000), new Date(Date.now() + 5000));
  const rewritten = day();
  assert.notEqual(rewritten.stats.answered, true);
  assert.equal(input(rewritten), 655100);
  assert.equal(rewritten.out, whole().out);
  // Another zone (by flag or by TZ) is another question.
  const tokyo = day(["--timezone", "Asia/Tokyo"]);
  assert.notEqual(tokyo.stats.answered, true);
  assert.equal(day(["--timezone", "Asia/Tokyo"]).stats.answered, true);
  assert.notEqual(run(["usage", dir, "--by", "day", "--json"], { ...env, TZ: "America/New_York" }).stats.answered, true);
  // Other questions are answered on their own: a month view, --since.
  const month = run(["usage", dir, "--by", "month", "--json"], env);
  assert.notEqual(month.stats.answered, true);
  assert.equal(run(["usage", dir, "--by", "month", "--json"], env).out, month.out);
  assert.equal(run(["usage", dir, "--by", "month", "--json"], env).stats.answered, true);
  // The table reads the same answer.
  assert.equal(run(["usage", dir, "--by", "day"], env).out, run(["usage", dir, "--by", "day", "--no-index"], env).out);
  fs.rmSync(home, { recursive: true, force: true });
});

test("statusline: an unchanged history is answered from the kept answers, the same line; an append to the transcript changes it", () => {
  const { home, project, iso, env } = setup();
  const transcript = path.join(project, "a.jsonl");
  const hook = JSON.stringify({ session_id: "a", transcript_path: transcript, model: { id: "claude-sonnet-4-5-20250929", display_name: "Sonnet 4.5" } });
  // --no-cache: the line kept for a second (statusline-cache.test.mjs) would answer first.
  const first = run(["statusline", "--no-cache"], env, hook);
  assert.notEqual(first.stats.answered, true);
  assert.match(first.out, /block \(\d+h \d+m left\) \| 🔥 /);
  const second = run(["statusline", "--no-cache"], env, hook);
  assert.equal(second.stats.answered, true);
  // The time left may tick over a minute between the two runs.
  const still = (s) => s.replace(/\(\d+h \d+m left\)/, "(left)");
  assert.equal(still(second.out), still(first.out));
  assert.equal(still(second.out), still(run(["statusline", "--no-cache", "--no-index"], env, hook).out));
  fs.appendFileSync(transcript, line("a", 3, iso(1), 2_000_000));
  const after = run(["statusline", "--no-cache"], env, hook);
  assert.notEqual(after.stats.answered, true);
  assert.notEqual(still(after.out), still(first.out));
  assert.match(after.out, /🧠 2,000,000 \(1000%\)|🧠 2,000,000 \(\d+%\)/);
  assert.equal(still(after.out), still(run(["statusline", "--no-cache", "--no-index"], env, hook).out));
  // Another session asked about: its own question.
  const other = run(["statusline", "--no-cache"], env, JSON.stringify({ session_id: "b", transcript_path: path.join(project, "b.jsonl"), model: { id: "claude-sonnet-4-5-20250929" } }));
  assert.notEqual(other.stats.answered, true);
  assert.notEqual(still(other.out).split(" | ")[1], still(after.out).split(" | ")[1]);
  fs.rmSync(home, { recursive: true, force: true });
});

test("answers files: one per set of paths asked about, the 16 written last kept", () => {
  const { home, dir, env } = setup();
  // An earlier version's file is removed by the next save.
  fs.mkdirSync(env.GARUDA_CACHE_DIR, { recursive: true });
  const old = path.join(env.GARUDA_CACHE_DIR, "usage-answers-v1-0123456789abcdef.json");
  fs.writeFileSync(old, "{}");
  for (let i = 0; i < 20; i++) {
    const d = path.join(home, `copy-${i}`);
    fs.cpSync(dir, d, { recursive: true });
    run(["usage", d, "--by", "day", "--json"], env);
  }
  const kept = fs.readdirSync(env.GARUDA_CACHE_DIR).filter((f) => f.startsWith("usage-answers-"));
  assert.equal(kept.length, 16);
  assert.equal(fs.existsSync(old), false, "the earlier version's answers are gone");
  // The newest is among them: it still answers.
  assert.equal(run(["usage", path.join(home, "copy-19"), "--by", "day", "--json"], env).stats.answered, true);
  fs.rmSync(home, { recursive: true, force: true });
});

test("a closed pipe ends a report quietly, and the report is whole through a pipe", () => {
  const { home, project, iso, dir, env } = setup();
  // A report larger than a pipe's buffer (64 KiB), so that the writer meets the closed pipe.
  for (let i = 0; i < 400; i++) fs.writeFileSync(path.join(project, `s${i}.jsonl`), line(`s${i}`, 1, iso(5), 1));
  const report = (tail) => spawnSync("bash", ["-c", `set -o pipefail; "${process.execPath}" "${bin}" usage "${dir}" --by session --json ${tail}`], { encoding: "utf8", env: { ...process.env, TZ: "UTC", ...env } });
  const whole = report("| cat");
  assert.equal(whole.status, 0, whole.stderr);
  assert.ok(whole.stdout.length > 65536, `${whole.stdout.length} bytes`);
  assert.equal(JSON.parse(whole.stdout).totals.inputTokens, 1000);
  // `| head -c 1`: the reader goes away after one byte: no error, exit 0.
  const cut = report("| head -c 1");
  assert.equal(cut.status, 0, cut.stderr);
  assert.equal(cut.stderr, "");
  assert.equal(cut.stdout, "{");
  fs.rmSync(home, { recursive: true, force: true });
});
