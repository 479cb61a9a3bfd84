// `usage` as a ccusage user drives it: the data roots ccusage reads (and
// each file once however the paths overlap), an unreadable file or an
// over-long line as a warning, every flag checked, and the table's
// --breakdown, --instances, --project, --order, --last, --compact and
// colours.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "pkg/bin/garuda-session.cjs");

function run(args, env = {}) {
  const home = env.HOME ?? fs.mkdtempSync(path.join(tmpdir(), "garuda-nohome-"));
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !["CLAUDE_CONFIG_DIR", "CODEX_HOME", "PI_AGENT_DIR", "GEMINI_DATA_DIR", "GARUDA_HOME", "NO_COLOR", "FORCE_COLOR"].includes(k)));
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", cwd: home, env: { ...clean, HOME: home, GARUDA_CACHE_DIR: path.join(home, ".cache-test"), ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const line = (session, n, t, input, model = "claude-sonnet-4-5-20250929") =>
  JSON.stringify({ sessionId: session, type: "assistant", uuid: `${session}-${n}`, parentUuid: null, timestamp: t, requestId: `req_${session}_${n}`, message: { id: `msg_${session}_${n}`, role: "assistant", model, content: [], usage: { input_tokens: input, output_tokens: 1 } } }) + "\n";

function claudeDir(base, project, session, lines) {
  const d = path.join(base, "projects", project);
  fs.mkdirSync(d, { recursive: true });
  fs.writeFileSync(path.join(d, `${session}.jsonl`), lines.join(""));
  return d;
}

const totals = (r) => {
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out).totals;
};

test("data roots: CLAUDE_CONFIG_DIR as a comma list; without it both ~/.config/claude and ~/.claude; CODEX_HOME; GARUDA_HOME; each file once", () => {
  const home = fs.mkdtempSync(path.join(tmpdir(), "garuda-roots-"));
  const one = path.join(home, "one");
  const two = path.join(home, "two");
  claudeDir(one, "p", "s1", [line("s1", 1, "2026-01-01T10:00:00Z", 100)]);
  claudeDir(two, "p", "s2", [line("s2", 1, "2026-01-02T10:00:00Z", 20)]);
  assert.equal(totals(run(["usage", "--json"], { HOME: home, CLAUDE_CONFIG_DIR: `${one}, ${two}` })).inputTokens, 120, "both folders of the list");
  assert.equal(totals(run(["usage", "--json"], { HOME: home, CLAUDE_CONFIG_DIR: `${one},${one}` })).inputTokens, 100, "a folder named twice counts once");
  claudeDir(path.join(home, ".config", "claude"), "p", "new", [line("new", 1, "2026-01-03T10:00:00Z", 3)]);
  claudeDir(path.join(home, ".claude"), "p", "old", [line("old", 1, "2026-01-03T11:00:00Z", 4)]);
  assert.equal(totals(run(["usage", "--json"], { HOME: home })).inputTokens, 7, "~/.config/claude and ~/.claude both");
  const codex = path.join(home, "codexhome", "sessions", "2026", "01", "05");
  fs.mkdirSync(codex, { recursive: true });
  fs.copyFileSync(path.join(root, "tests/formats/codex.jsonl"), path.join(codex, "rollout-x.jsonl"));
  const withCodex = run(["usage", "--json"], { HOME: home, CODEX_HOME: path.join(home, "codexhome") });
  assert.ok(JSON.parse(withCodex.out).sessions.some((s) => s.format === "codex"), "CODEX_HOME is read");
  const garuda = path.join(home, "gh", "sessions");
  fs.mkdirSync(garuda, { recursive: true });
  fs.copyFileSync(path.join(root, "tests/golden/crlf.jsonl"), path.join(garuda, "g.jsonl"));
  assert.ok(JSON.parse(run(["usage", "--json"], { HOME: home, GARUDA_HOME: path.join(home, "gh") }).out).sessions.some((s) => s.format === "garuda"), "GARUDA_HOME is read");
  // Overlapping paths: a folder, a folder inside it, a file inside that, a link to the folder.
  const p = path.join(one, "projects");
  fs.symlinkSync(p, path.join(home, "link"));
  const overlap = run(["usage", p, path.join(p, "p"), path.join(p, "p", "s1.jsonl"), path.join(home, "link"), "--json"], { HOME: home });
  assert.equal(totals(overlap).inputTokens, 100, "each file read once");
  const none = run(["usage"], { HOME: home, CLAUDE_CONFIG_DIR: path.join(home, "nowhere") });
  assert.equal(none.code, 2);
  assert.match(none.err, /none of the agents' folders exists \(CLAUDE_CONFIG_DIR/);
});

test("an unreadable file and an over-long line are warnings: the rest is reported", () => {
  const home = fs.mkdtempSync(path.join(tmpdir(), "garuda-unreadable-"));
  const d = claudeDir(home, "p", "ok", [line("ok", 1, "2026-01-01T10:00:00Z", 5)]);
  // Files that cannot be read whoever runs the test (root reads a chmod 000
  // file): a link to a folder (EISDIR) and a link to nothing (ENOENT).
  fs.mkdirSync(path.join(home, "a-folder"));
  fs.symlinkSync(path.join(home, "a-folder"), path.join(d, "broken.jsonl"));
  fs.symlinkSync(path.join(d, "missing-target.jsonl"), path.join(d, "dangling.jsonl"));
  const r = run(["usage", path.join(home, "projects"), "--json"]);
  assert.equal(r.code, 0, r.err);
  assert.equal(JSON.parse(r.out).totals.inputTokens, 5);
  assert.match(r.err, /warning: .*broken\.jsonl: cannot read it \(EISDIR\)/);
  assert.match(r.err, /warning: .*dangling\.jsonl: cannot read it \(ENOENT\)/);
  const big = path.join(home, "big");
  claudeDir(big, "p", "long", [line("long", 1, "2026-01-01T10:00:00Z", 7), JSON.stringify({ type: "user", pad: "x".repeat(65 << 20) }) + "\n", line("long", 2, "2026-01-01T10:01:00Z", 8)]);
  const long = run(["usage", path.join(big, "projects"), "--json", "--no-index"]);
  assert.equal(long.code, 0, long.err);
  assert.equal(JSON.parse(long.out).totals.inputTokens, 15);
  assert.match(long.err, /warning: .*long\.jsonl: 1 line\(s\) longer than the line size cap were skipped/);
});

// ccusage drops a line it cannot read in silence; the report says so (a torn
// last line, an agent still writing, is not one). With the index too: the
// cold read and the appended read each say what they left out.
test("a line that cannot be read is a warning naming its line and the value: the rest is reported", () => {
  const home = fs.mkdtempSync(path.join(tmpdir(), "garuda-badline-"));
  const d = claudeDir(home, "p", "s", [line("s", 1, "2026-01-01T10:00:00Z", 5), line("s", 2, "2026-01-01T10:01:00Z", "6"), line("s", 3, "2026-01-01T10:02:00Z", 7), '{"type":"assistant","message":{"usage":{"input_']);
  for (const index of [["--no-index"], []]) {
    const r = run(["usage", path.join(home, "projects"), "--json", ...index]);
    assert.equal(totals(r).inputTokens, 12, "the lines that read are counted");
    assert.match(r.err, /warning: .*s\.jsonl: 1 line\(s\) could not be read \(the first is line 2: not a Claude Code line: `message\.usage\.input_tokens`: invalid type: string "6", expected u64\)/);
    assert.equal(r.err.split("\n").filter(Boolean).length, 1, `only that line, not the torn tail: ${r.err}`);
  }
  fs.appendFileSync(path.join(d, "s.jsonl"), "\n" + line("s", 4, "2026-01-01T10:03:00Z", -1));
  const appended = run(["usage", path.join(home, "projects"), "--json"]);
  assert.equal(totals(appended).inputTokens, 12);
  assert.match(appended.err, /could not be read/);
});

// Found by a ccusage user's review (stop 50): a price table the core refuses
// left every file out of the report ($0.00, exit 0); one unpriced request
// made every row of its file "≥"; a link to /dev/zero never ended.
test("a refused price table is refused once; an unpriced request marks only its own row; a link to a device is passed over", () => {
  const home = fs.mkdtempSync(path.join(tmpdir(), "garuda-prices-"));
  claudeDir(home, "p", "s", [line("s", 1, "2026-04-01T10:00:00Z", 1000, "acme-llm-1"), line("s", 2, "2026-04-02T10:00:00Z", 1000)]);
  const dir = path.join(home, "projects");
  const table = path.join(home, "prices.json");
  for (const bad of ['{"models":{"acme-llm-1":{"input":1}}}', '{"models":{"acme-llm-1":{"input":"x","output":1}}}', '{"acme-llm-1":{"input":1,"output":1}}']) {
    fs.writeFileSync(table, bad);
    const r = run(["usage", dir, "--json", "--prices", table]);
    assert.equal(r.code, 2, `${bad}: ${r.out}`);
    assert.match(r.err, /--prices .*prices\.json: a price table is/);
  }
  const days = JSON.parse(run(["usage", "daily", dir, "--json", "--timezone", "UTC", "--no-index"]).out).daily;
  assert.deepEqual(days.map((d) => [d.date, d.costIncomplete, d.totalCost === null]), [["2026-04-01", true, true], ["2026-04-02", false, false]]);
  fs.symlinkSync("/dev/zero", path.join(dir, "p", "zero.jsonl"));
  const r = spawnSync(process.execPath, [bin, "usage", dir, "--json", "--no-index"], { encoding: "utf8", timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stderr, /zero\.jsonl: cannot read it \(not a regular file\)/);
});

test("every flag is checked, and the error names it", () => {
  const home = fs.mkdtempSync(path.join(tmpdir(), "garuda-flags-"));
  claudeDir(home, "p", "s", [line("s", 1, "2026-01-01T10:00:00Z", 5)]);
  const dir = path.join(home, "projects");
  for (const [args, re] of [
    [["--since", "2026-13-45"], /--since 2026-13-45: not a date/],
    [["--until", "2026-02-30"], /--until 2026-02-30: not a date/],
    [["--since", "yesterday"], /--since yesterday/],
    [["--since", "20260105", "--until", "20260101"], /--since 20260105 is after --until 20260101/],
    [["--timezone", "Mars/Olympus"], /--timezone Mars\/Olympus: not a time zone/],
    [["--by", "fortnight"], /--by fortnight: give one of day, week, month, session, block, model/],
    [["--order", "up"], /--order up: give asc or desc/],
    [["--last", "0", "--by", "day"], /--last 0/],
    [["--last", "2"], /--last goes with --by day, week or month/],
    [["--active"], /--active goes with --by block/],
    [["--by", "block", "--token-limit", "lots"], /--token-limit lots/],
    [["--by", "block", "--session-length", "0"], /--session-length 0/],
  ]) {
    const r = run(["usage", dir, ...args]);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.out}`);
    assert.match(r.err, re, args.join(" "));
    assert.equal(r.err.trim().split("\n").length, 1, "one line");
  }
  // YYYYMMDD as ccusage takes it, and the same day as YYYY-MM-DD.
  assert.equal(totals(run(["usage", dir, "--since", "20260101", "--until", "20260101", "--timezone", "UTC", "--json"])).inputTokens, 5);
  assert.equal(totals(run(["usage", dir, "--since", "2026-01-02", "--timezone", "UTC", "--json"])).inputTokens, 0);
});

test("the table: zero-token rows hidden, --order, --last, --breakdown, --project and --instances, --compact, colours only when asked or on a terminal", () => {
  const home = fs.mkdtempSync(path.join(tmpdir(), "garuda-table-"));
  const today = new Date().toISOString().slice(0, 10);
  const zero = JSON.parse(line("s", 3, "2026-01-03T10:00:00Z", 0));
  zero.message.usage = { input_tokens: 0, output_tokens: 0 };
  claudeDir(home, "app", "s", [line("s", 1, "2026-01-01T10:00:00Z", 5), line("s", 2, "2026-01-02T10:00:00Z", 6, "claude-haiku-4-5-20251001"), JSON.stringify(zero) + "\n"]);
  claudeDir(home, "web", "w", [line("w", 1, `${today}T00:30:00Z`, 9)]);
  const dir = path.join(home, "projects");
  const days = JSON.parse(run(["usage", dir, "--by", "day", "--timezone", "UTC", "--json"]).out).daily.map((d) => d.date);
  assert.deepEqual(days, ["2026-01-01", "2026-01-02", today], "a day of no tokens is not shown");
  const desc = JSON.parse(run(["usage", dir, "--by", "day", "--order", "desc", "--timezone", "UTC", "--json"]).out).daily.map((d) => d.date);
  assert.deepEqual(desc, [...days].reverse());
  const last = JSON.parse(run(["usage", dir, "--by", "day", "--last", "1", "--timezone", "UTC", "--json"]).out);
  assert.deepEqual(last.daily.map((d) => d.date), [today]);
  // ccusage's all-agent report names each row's key `period` (its `claude <view>` reports, date/week/month): both are there.
  assert.deepEqual(last.daily.map((d) => d.period), [today]);
  const breakdown = JSON.parse(run(["usage", dir, "--by", "month", "--timezone", "UTC", "--json"]).out).monthly.find((m) => m.month === "2026-01");
  assert.equal(breakdown.period, "2026-01");
  assert.deepEqual(breakdown.modelBreakdowns.map((m) => [m.modelName, m.inputTokens]), [["claude-haiku-4-5-20251001", 6], ["claude-sonnet-4-5-20250929", 5]]);
  const table = run(["usage", dir, "--by", "month", "--breakdown", "--timezone", "UTC"]).out;
  assert.match(table, /└ claude-haiku-4-5-20251001/);
  assert.doesNotMatch(table, /\x1b\[/, "no colour off a terminal");
  assert.match(run(["usage", dir, "--color"]).out, /\x1b\[36m/);
  assert.match(run(["usage", dir], { FORCE_COLOR: "1" }).out, /\x1b\[/);
  assert.doesNotMatch(run(["usage", dir, "--no-color"], { FORCE_COLOR: "1" }).out, /\x1b\[/);
  const project = JSON.parse(run(["usage", dir, "--project", "web", "--json"]).out);
  assert.deepEqual(project.sessions.map((s) => s.sessionId), ["w"]);
  const instances = JSON.parse(run(["usage", dir, "--by", "day", "--instances", "--json"]).out);
  assert.deepEqual(Object.keys(instances.projects), ["app", "web"]);
  const compact = run(["usage", dir, "--compact"]).out.split("\n")[0];
  assert.doesNotMatch(compact, /cache/);
  assert.match(run(["usage", dir]).out.split("\n")[0], /cache create/);
});

// A Codex rollout without token counts: its usage is unknown. Its session
// was marked incomplete, but --breakdown's row for its model said $0.00
// (and --json's modelBreakdowns cost 0, costIncomplete false), found by a
// new user's review on the peers' Codex files.
test("--breakdown: a model whose file's usage is unknown shows an unknown cost, never $0.00", () => {
  const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-usage-unknown-"));
  const rollout = fs.readFileSync(path.join(root, "tests/formats/codex.jsonl"), "utf8").split("\n").filter((l) => l && !l.includes("token_count"));
  fs.writeFileSync(path.join(dir, "rollout-2026-01-05T10-00-00-nocounts.jsonl"), rollout.join("\n") + "\n");
  const r = run(["usage", dir, "--by", "session", "--breakdown", "--json"]);
  const rows = JSON.parse(r.out).sessions;
  assert.equal(rows.length, 1, r.out);
  assert.equal(rows[0].totalCost, null, "the session's cost is unknown");
  assert.ok(rows[0].modelBreakdowns.length > 0, r.out);
  for (const m of rows[0].modelBreakdowns) {
    assert.equal(m.cost, null, `${m.modelName}: unknown, not 0`);
    assert.equal(m.costIncomplete, true);
  }
  const table = run(["usage", dir, "--by", "session", "--breakdown"]).out;
  assert.doesNotMatch(table, /\$0\.00/, table);
  assert.match(table, /└ .*unknown\s*$/m, table);
});
