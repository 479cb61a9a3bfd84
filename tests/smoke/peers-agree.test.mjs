// The CLI's views of one session agree, on every real file of other agents
// (../shared/peers) and every fixture of tests/formats/: `replay`, `usage`
// and `export` (the transcript the viewer renders too) count the same
// prompts, tokens and cost. The Rust oracle (tests/peers_oracle.rs) checks
// the prompts against an independent walk of the raw lines.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "pkg/bin/garuda-session.cjs");
const peers = path.join(process.env.GARUDA_SHARED ?? path.join(root, "../shared"), "peers");

function walk(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return walk(p);
    return /\.jsonl?$/.test(e.name) && !["manifest.json", "logs.json"].includes(e.name) && !e.name.endsWith(".meta.json") ? [p] : [];
  });
}

function cli(...args) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", maxBuffer: 1 << 28 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const files = () => {
  const out = walk(path.join(root, "tests/formats"));
  if (fs.existsSync(peers)) out.push(...walk(peers));
  else console.log(`SKIP peers-agree on real files: ${peers} is absent (../shared sits beside the repository in CI); fixtures only`);
  return out;
};

test("replay, usage and export agree on prompts, tokens and cost for each file", () => {
  for (const file of files()) {
    const name = path.relative(path.dirname(peers), file);
    const replay = JSON.parse(cli("replay", file, "--json").out);
    const usage = cli("usage", file, "--json");
    assert.equal(usage.code, 0, `${name}: ${usage.err}`);
    const totals = JSON.parse(usage.out).totals;
    for (const k of ["inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens"]) {
      assert.equal(totals[k], replay.usage[k], `${name}: ${k}`);
    }
    const cents = (c) => (c === null || c === undefined ? null : Math.round(c * 1e6));
    assert.equal(cents(totals.costUsd), cents(replay.costUsd), `${name}: cost`);
    const md = cli("export", file, "--format", "md", "--no-redact");
    assert.equal(md.code, 0, `${name}: ${md.err}`);
    const prompts = (md.out.match(/^## User \(/gm) ?? []).length;
    assert.equal(prompts, replay.prompts, `${name}: the export's prompts are the replay's`);
    assert.ok(md.out.includes(`- cost: ${replay.cost}`), `${name}: the export's cost is the replay's (${replay.cost})`);
  }
});
