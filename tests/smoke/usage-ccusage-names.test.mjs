// ccusage's command names and short flags under `usage`: `usage daily`,
// `weekly`, `monthly`, `session`, `blocks` are --by day, week, month,
// session, block (the same report, byte for byte), `usage statusline` is
// the statusline command, ccusage's short flags mean what its help says,
// and the token totals of each name equal ccusage's own command's on the
// same folder (its native binary, pinned in .ci/).
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
const noCcusage = fs.existsSync(ccusage) ? false : "SKIP ccusage's names against ccusage: its native binary is absent (bash .ci/setup installs it)";

const line = (session, n, t, input, output) =>
  JSON.stringify({ parentUuid: null, sessionId: session, type: "assistant", uuid: `${session}-${n}`, timestamp: t, requestId: `req_${session}_${n}`, message: { id: `msg_${session}_${n}`, role: "assistant", model: "claude-sonnet-4-5-20250929", content: [{ type: "text", text: "ok" }], usage: { input_tokens: input, output_tokens: output, cache_read_input_tokens: 7 * n } } }) + "\n";

/** A Claude Code folder: two projects, requests over three days, two weeks and two months, and a gap of more than 5 hours. */
function folder() {
  const home = fs.mkdtempSync(path.join(tmpdir(), "garuda-names-"));
  const write = (project, session, lines) => {
    fs.mkdirSync(path.join(home, "projects", project), { recursive: true });
    fs.writeFileSync(path.join(home, "projects", project, `${session}.jsonl`), lines.join(""));
  };
  write("app", "s1", [line("s1", 1, "2026-01-30T10:00:00.000Z", 100, 10), line("s1", 2, "2026-01-30T11:00:00.000Z", 200, 20), line("s1", 3, "2026-01-31T23:30:00.000Z", 300, 30)]);
  write("web", "s2", [line("s2", 1, "2026-02-01T08:00:00.000Z", 400, 40), line("s2", 2, "2026-02-02T09:15:00.000Z", 500, 50)]);
  return home;
}

function ours(args, env = {}, input) {
  const r = spawnSync(process.execPath, [bin, "usage", ...args], { encoding: "utf8", input, env: { ...process.env, TZ: "UTC", ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const ok = (r) => {
  assert.equal(r.code, 0, r.err);
  return r.out;
};

const NAMES = [["daily", "day"], ["weekly", "week"], ["monthly", "month"], ["session", "session"], ["blocks", "block"]];

test("usage daily|weekly|monthly|session|blocks print what --by day|week|month|session|block print", () => {
  const home = folder();
  const env = { GARUDA_CACHE_DIR: path.join(home, "cache") };
  const dir = path.join(home, "projects");
  for (const [name, by] of NAMES) {
    for (const extra of [["--json"], []]) {
      assert.equal(ok(ours([name, dir, ...extra, "--timezone", "UTC"], env)), ok(ours([dir, "--by", by, ...extra, "--timezone", "UTC"], env)), `${name} ${extra.join(" ")}`);
    }
  }
  // The same name as a --by of the same view is no conflict; another is.
  assert.equal(ok(ours(["daily", dir, "--by", "day", "--json"], env)), ok(ours([dir, "--by", "day", "--json"], env)));
  const clash = ours(["daily", dir, "--by", "week"], env);
  assert.equal(clash.code, 2);
  assert.match(clash.err, /daily and --by week: give one of them/);
  // A folder named like a command is still a path given as ./name.
  fs.cpSync(dir, path.join(home, "daily"), { recursive: true });
  const named = spawnSync(process.execPath, [bin, "usage", "./daily", "--json"], { cwd: home, encoding: "utf8", env: { ...process.env, ...env } });
  assert.equal(named.status, 0, named.stderr);
  assert.equal(JSON.parse(named.stdout).totals.inputTokens, 1500);
  fs.rmSync(home, { recursive: true, force: true });
});

test("ccusage's short flags mean its long ones; --id picks one session; --offline is accepted", () => {
  const home = folder();
  const env = { GARUDA_CACHE_DIR: path.join(home, "cache") };
  const dir = path.join(home, "projects");
  const same = (short, long) => assert.equal(ok(ours(short, env)), ok(ours(long, env)), short.join(" "));
  same(["daily", dir, "-j", "-z", "UTC", "-s", "20260130", "-u", "20260201", "-o", "desc", "-b"], ["daily", dir, "--json", "--timezone", "UTC", "--since", "20260130", "--until", "20260201", "--order", "desc", "--breakdown"]);
  same(["daily", dir, "-j", "-i"], ["daily", dir, "--json", "--instances"]);
  same(["monthly", dir, "-j", "-p", "web"], ["monthly", dir, "--json", "--project", "web"]);
  same(["blocks", dir, "-j", "-a", "-t", "max", "-n", "5"], ["blocks", dir, "--json", "--active", "--token-limit", "max", "--session-length", "5"]);
  same(["blocks", dir, "-j", "-r"], ["blocks", dir, "--json", "--recent"]);
  same(["weekly", dir, "-j", "-O"], ["weekly", dir, "--json"]);
  same(["weekly", dir, "-j", "--offline"], ["weekly", dir, "--json", "--no-offline"]);
  // session -i is ccusage's --id: one session, by its id.
  const one = JSON.parse(ok(ours(["session", dir, "-j", "-i", "s2"], env)));
  assert.deepEqual(one.sessions.map((s) => s.sessionId), ["s2"]);
  assert.equal(one.totals.inputTokens, 900);
  assert.deepEqual(JSON.parse(ok(ours([dir, "--by", "session", "--id", "s1", "--json"], env))).sessions.map((s) => s.sessionId), ["s1"]);
  const wrong = ours(["daily", dir, "--id", "s1"], env);
  assert.equal(wrong.code, 2);
  assert.match(wrong.err, /--id goes with --by session/);
  fs.rmSync(home, { recursive: true, force: true });
});

test("usage statusline is the statusline command", () => {
  const home = folder();
  const env = { GARUDA_CACHE_DIR: path.join(home, "cache"), CLAUDE_CONFIG_DIR: home };
  const hook = JSON.stringify({ session_id: "s1", transcript_path: path.join(home, "projects", "app", "s1.jsonl"), model: { id: "claude-sonnet-4-5-20250929", display_name: "Sonnet 4.5" } });
  const viaUsage = ok(ours(["statusline", "--timezone", "UTC"], env, hook));
  const direct = spawnSync(process.execPath, [bin, "statusline", "--timezone", "UTC"], { encoding: "utf8", input: hook, env: { ...process.env, ...env } });
  assert.equal(viaUsage, direct.stdout);
  assert.match(viaUsage, /^🤖 Sonnet 4\.5 \| 💰 \$\d+\.\d\d session/);
  fs.rmSync(home, { recursive: true, force: true });
});

test("each ccusage name counts the tokens ccusage's own command counts", { skip: noCcusage }, () => {
  const home = folder();
  const env = { GARUDA_CACHE_DIR: path.join(home, "cache") };
  const four = (t) => [t.inputTokens, t.outputTokens, t.cacheCreationTokens, t.cacheReadTokens];
  for (const [name] of NAMES) {
    const r = spawnSync(ccusage, ["claude", name, "--json", "--offline", "--timezone", "UTC"], { encoding: "utf8", env: { ...process.env, CLAUDE_CONFIG_DIR: home, HOME: home, TZ: "UTC" } });
    assert.equal(r.status, 0, r.stderr);
    const theirs = JSON.parse(r.stdout);
    // ccusage's blocks JSON has no totals: the sum of its blocks'.
    if (name === "blocks") {
      const sum = (k) => theirs.blocks.reduce((a, b) => a + b.tokenCounts[k], 0);
      theirs.totals = { inputTokens: sum("inputTokens"), outputTokens: sum("outputTokens"), cacheCreationTokens: sum("cacheCreationInputTokens"), cacheReadTokens: sum("cacheReadInputTokens") };
    }
    const mine = JSON.parse(ok(ours([name, path.join(home, "projects"), "-j", "-z", "UTC"], env)));
    assert.deepEqual(four(mine.totals), four(theirs.totals), name);
    const rows = { daily: "daily", weekly: "weekly", monthly: "monthly", session: "sessions", blocks: "blocks" }[name];
    assert.equal(mine[rows].filter((b) => !b.isGap).length, theirs[rows].filter((b) => !b.isGap).length, `${name}: as many rows`);
  }
  fs.rmSync(home, { recursive: true, force: true });
});

test("--start-of-week (-w) makes ccusage's weeks for every day, on a fixture and on the peers' real sessions", { skip: noCcusage }, () => {
  const home = folder();
  const env = { GARUDA_CACHE_DIR: path.join(home, "cache") };
  const peers = path.join(root, "../shared/peers/claude-code");
  const homes = [home];
  if (fs.existsSync(peers)) {
    // ccusage reads <CLAUDE_CONFIG_DIR>/projects: a link to the peers' folder.
    const p = fs.mkdtempSync(path.join(tmpdir(), "garuda-weeks-"));
    fs.symlinkSync(peers, path.join(p, "projects"));
    homes.push(p);
  } else console.log("SKIP the peers' part: ../shared/peers is absent");
  const weeks = (list) => list.map((w) => [w.week, w.inputTokens, w.outputTokens, w.cacheCreationTokens, w.cacheReadTokens]);
  for (const h of homes) {
    for (const day of ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]) {
      const r = spawnSync(ccusage, ["claude", "weekly", "--json", "--offline", "--timezone", "UTC", "-w", day], { encoding: "utf8", env: { ...process.env, CLAUDE_CONFIG_DIR: h, HOME: h, TZ: "UTC" } });
      assert.equal(r.status, 0, r.stderr);
      const mine = JSON.parse(ok(ours(["weekly", path.join(h, "projects"), "--json", "-z", "UTC", "-w", day], env)));
      assert.deepEqual(weeks(mine.weekly), weeks(JSON.parse(r.stdout).weekly), `${h} ${day}`);
      assert.equal(ok(ours([path.join(h, "projects"), "--by", "week", "--start-of-week", day.toUpperCase(), "--json", "-z", "UTC"], env)), JSON.stringify(mine, null, 2) + "\n");
    }
  }
  // Sunday is the default; the table says which day a week starts on.
  const dir = path.join(home, "projects");
  assert.equal(ok(ours(["weekly", dir, "-j"], env)), ok(ours(["weekly", dir, "-j", "-w", "sunday"], env)));
  assert.match(ok(ours(["weekly", dir, "-w", "monday"], env)), /^week \(from Monday\)/);
  const bad = ours(["weekly", dir, "-w", "funday"], env);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /--start-of-week funday: give a day of the week/);
  assert.match(ours(["daily", dir, "-w", "monday"], env).err, /--start-of-week goes with --by week/);
  for (const h of homes.slice(1)) fs.rmSync(h, { recursive: true, force: true });
  fs.rmSync(home, { recursive: true, force: true });
});

test("--no-cost leaves every cost out of the table and the JSON, as ccusage's does", () => {
  const home = folder();
  const env = { GARUDA_CACHE_DIR: path.join(home, "cache") };
  const dir = path.join(home, "projects");
  const costKeys = (x, out = []) => {
    if (x && typeof x === "object") for (const [k, v] of Object.entries(x)) (/cost/i.test(k) && out.push(k), costKeys(v, out));
    return out;
  };
  for (const [name] of NAMES) {
    const full = JSON.parse(ok(ours([name, dir, "-j"], env)));
    const bare = JSON.parse(ok(ours([name, dir, "-j", "--no-cost"], env)));
    assert.ok(costKeys(full).length > 0, name);
    assert.deepEqual(costKeys(bare), [], name);
    // The tokens are the same.
    assert.deepEqual(bare.totals?.totalTokens, full.totals?.totalTokens, name);
    const table = ok(ours([name, dir, "--no-cost"], env));
    assert.doesNotMatch(table, /\$|cost|unknown/, name);
    assert.match(ok(ours([name, dir], env)), /cost/, name);
  }
  // The burn rate's note of an active block drops its dollars too.
  const ago = (min) => new Date(Date.now() - min * 60000).toISOString();
  fs.appendFileSync(path.join(dir, "app", "s1.jsonl"), line("s1", 8, ago(20), 100, 10) + line("s1", 9, ago(1), 100, 10));
  const blocks = ok(ours(["blocks", dir, "--no-cost", "--active"], env));
  assert.match(blocks, /burn rate [\d,]+ tokens\/min; projected [\d,]+ tokens/);
  assert.doesNotMatch(blocks, /\$/);
  fs.rmSync(home, { recursive: true, force: true });
});

test("the blocks table shows each block's start in the zone, as ccusage's does in the system's, and names the zone", { skip: noCcusage }, () => {
  const home = folder();
  const env = { GARUDA_CACHE_DIR: path.join(home, "cache") };
  const dir = path.join(home, "projects");
  for (const zone of ["Asia/Tokyo", "Asia/Kolkata", "America/New_York"]) {
    const r = spawnSync(ccusage, ["claude", "blocks", "--offline"], { encoding: "utf8", env: { ...process.env, CLAUDE_CONFIG_DIR: home, HOME: home, TZ: zone, NO_COLOR: "1" } });
    assert.equal(r.status, 0, r.stderr);
    // ccusage: `│ 1/30/2026, 7:00:00 PM (1h 0m)`, in the system's zone (a gap's row has ` - ` and its end).
    const theirs = [...r.stdout.matchAll(/^│ (\d+)\/(\d+)\/(\d{4}), (\d+):(\d\d):\d\d ([AP]M) \(/gm)].map(([, mo, d, y, h, mi, ap]) => `${y}-${mo.padStart(2, "0")}-${d.padStart(2, "0")} ${String((Number(h) % 12) + (ap === "PM" ? 12 : 0)).padStart(2, "0")}:${mi}`);
    assert.ok(theirs.length >= 2, r.stdout);
    for (const out of [ok(ours(["blocks", dir], { ...env, TZ: zone })), ok(ours(["blocks", dir, "-z", zone], env))]) {
      const mine = [...out.matchAll(/^(\d{4}-\d\d-\d\d \d\d:\d\d)/gm)].map((m) => m[1]);
      assert.deepEqual(mine, theirs, zone);
      assert.match(out, new RegExp(`^block \\(5 h, ${zone}\\)`));
    }
  }
  assert.match(ok(ours(["blocks", dir, "-n", "3", "-z", "UTC"], env)), /^block \(3 h, UTC\)/);
  fs.rmSync(home, { recursive: true, force: true });
});
