// ccusage's statusline flags under ours: -z, -B, -O and --no-offline mean
// what its help says, and the context's percentage is coloured by
// --context-low-threshold and --context-medium-threshold (green below low,
// yellow below medium, else red) when colours are on, never with NO_COLOR.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { assistantLine, claudeHistory } from "./support/claude-history.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "pkg/bin/garuda-session.cjs");

/** (FORCE_COLOR and NO_COLOR only as `env` gives them: an empty FORCE_COLOR turns colours on.) */
function run(args, env, input) {
  const base = { ...process.env, TZ: "UTC" };
  delete base.FORCE_COLOR;
  delete base.NO_COLOR;
  const r = spawnSync(process.execPath, [bin, "statusline", "--no-cache", ...args], { encoding: "utf8", input, env: { ...base, ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

function setup() {
  const { home, project, iso, env } = claudeHistory("garuda-statusline-flags-");
  fs.writeFileSync(path.join(project, "a.jsonl"), assistantLine("a", 1, iso(30), 100_000) + assistantLine("a", 2, iso(1), 120_000));
  // 120,000 of a 200,000 window: 60%.
  const hook = JSON.stringify({ session_id: "a", transcript_path: path.join(project, "a.jsonl"), model: { id: "claude-sonnet-4-5-20250929", display_name: "Sonnet 4.5" } });
  return { home, hook, env };
}

const pct = (out) => /🧠 [\d,]+ \((.*)\)/.exec(out)[1];

test("statusline: the context's percentage is coloured by ccusage's thresholds when colours are on", () => {
  const { home, hook, env } = setup();
  const on = { ...env, FORCE_COLOR: "1" };
  assert.equal(pct(run([], env, hook).out), "60%");
  assert.equal(pct(run([], { ...env, NO_COLOR: "1" }, hook).out), "60%");
  assert.equal(pct(run([], on, hook).out), "\x1b[33m60%\x1b[0m");
  assert.equal(pct(run(["--context-low-threshold", "70", "--context-medium-threshold", "90"], on, hook).out), "\x1b[32m60%\x1b[0m");
  assert.equal(pct(run(["--context-low-threshold", "10", "--context-medium-threshold", "60"], on, hook).out), "\x1b[31m60%\x1b[0m");
  for (const [args, message] of [
    [["--context-low-threshold", "80", "--context-medium-threshold", "50"], /--context-low-threshold 80 is not below --context-medium-threshold 50/],
    [["--context-medium-threshold", "120"], /--context-medium-threshold 120: give a percentage, 0 to 100/],
    [["--context-low-threshold", "x"], /--context-low-threshold x: give a percentage/],
  ]) {
    const r = run(args, env, hook);
    assert.equal(r.code, 2, args.join(" "));
    assert.match(r.err, message);
  }
  fs.rmSync(home, { recursive: true, force: true });
});

test("statusline: ccusage's short flags -z, -B and -O, and --no-offline", () => {
  const { home, hook, env } = setup();
  const still = (s) => s.replace(/\(\d+h \d+m left\)/, "(left)");
  assert.equal(still(run(["-z", "UTC", "-B", "emoji-text", "-O"], env, hook).out), still(run(["--timezone", "UTC", "--visual-burn-rate", "emoji-text", "--offline"], env, hook).out));
  assert.equal(still(run(["--no-offline"], env, hook).out), still(run([], env, hook).out));
  assert.match(run(["-B", "loud"], env, hook).err, /--visual-burn-rate loud: give off, emoji, text or emoji-text/);
  fs.rmSync(home, { recursive: true, force: true });
});
