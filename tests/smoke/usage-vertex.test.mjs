// Vertex AI's regional endpoints cost 10% over its global one (Anthropic's
// pricing page, from Sonnet 4.5 and Haiku 4.5 on), and a session file does
// not name the region: `--vertex-region R` (or Claude Code's own
// CLOUD_ML_REGION) says it. Only Vertex's responses (`msg_vrtx_…` ids)
// take the premium; `global`, or no region, is the global price.
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
  const home = fs.mkdtempSync(path.join(tmpdir(), "garuda-vertex-"));
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !["CLAUDE_CONFIG_DIR", "CLOUD_ML_REGION"].includes(k)));
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", cwd: home, env: { ...clean, HOME: home, GARUDA_CACHE_DIR: path.join(home, "cache"), ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const line = (id, model) =>
  JSON.stringify({ sessionId: "s", type: "assistant", uuid: id, parentUuid: null, timestamp: "2026-11-30T10:00:00.000Z", requestId: `req_${id}`, message: { id, role: "assistant", model, content: [], usage: { input_tokens: 100_000, output_tokens: 10_000 } } }) + "\n";

function history(lines) {
  const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-vertex-data-"));
  fs.mkdirSync(path.join(dir, "projects", "p"), { recursive: true });
  fs.writeFileSync(path.join(dir, "projects", "p", "s.jsonl"), lines.join(""));
  return path.join(dir, "projects");
}

const cost = (r) => {
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out).totals.totalCost;
};

test("usage: Vertex responses cost the regional premium with --vertex-region or CLOUD_ML_REGION, others never", () => {
  const vertex = history([line("msg_vrtx_01AAA", "claude-sonnet-4-5@20250929")]);
  const direct = history([line("msg_01BBB", "claude-sonnet-4-5-20250929")]);
  // $3 per million input, $15 per million output (under the long-context threshold).
  const global = 0.3 + 0.15;
  const day = (dir, extra, env) => cost(run(["usage", dir, "--by", "day", "--json", ...extra], env));
  assert.ok(Math.abs(day(vertex, []) - global) < 1e-9);
  assert.ok(Math.abs(day(vertex, ["--vertex-region", "us-east5"]) - global * 1.1) < 1e-9);
  assert.ok(Math.abs(day(vertex, [], { CLOUD_ML_REGION: "europe-west1" }) - global * 1.1) < 1e-9);
  assert.ok(Math.abs(day(vertex, ["--vertex-region", "global"], { CLOUD_ML_REGION: "us-east5" }) - global) < 1e-9, "the flag over the environment");
  assert.ok(Math.abs(day(direct, ["--vertex-region", "us-east5"]) - global) < 1e-9, "not a Vertex response");
  // The index keeps each region's answer apart.
  assert.ok(Math.abs(day(vertex, ["--vertex-region", "us-east5", "--no-index"]) - global * 1.1) < 1e-9);
});

test("usage: a region that is not one is a usage error naming it", () => {
  const dir = history([line("msg_vrtx_01AAA", "claude-sonnet-4-5@20250929")]);
  for (const [args, env] of [[["--vertex-region", "us east/5"], {}], [[], { CLOUD_ML_REGION: "../x" }]]) {
    const r = run(["usage", dir, "--json", ...args], env);
    assert.equal(r.code, 2);
    assert.match(r.err, /--vertex-region .*give a Vertex region/);
  }
});
