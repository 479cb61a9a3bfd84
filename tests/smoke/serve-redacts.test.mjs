// `serve` sends another agent's transcript redacted, and only a Garuda
// journal (which passed the Redactor when it was written) as it is. It told
// them apart by the first record's type alone, so a Claude Code file whose
// first line is a "user" line (6 of the peers' files) went to the browser
// with its secrets. The oracle is the spec (JOURNAL.md §1-2): a Garuda
// record has a `t` time and one of §2's types. Over tests/formats and every
// .jsonl in ../shared/peers, each with a secret put in its first line.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const peers = path.join(process.env.GARUDA_SHARED ?? path.join(root, "../shared"), "peers");
const servers = [];
after(() => servers.forEach((s) => s.kill()));

// An Anthropic API key's shape (the Redactor's table names it; any secret would do).
const SECRET = `sk-ant-api03-${"AbCdEfGhIjKlMnOpQrStUvWxYz0123456789".repeat(2)}AbCdEfGhIjKl-AAAAAA`;
const SPEC_TYPES = new Set(["start", "resume", "model", "user", "assistant", "tool_results", "compaction", "snapshot", "undo", "redo", "title", "thinking", "continue", "unreported", "child_debit", "side_usage", "end"]);
const isGaruda = (record) => SPEC_TYPES.has(record?.type) && typeof record.t === "string";

function files() {
  const walk = (d) => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(path.join(d, e.name)) : e.name.endsWith(".jsonl") ? [path.join(d, e.name)] : []));
  const out = walk(path.join(root, "tests/formats"));
  if (!fs.existsSync(peers)) console.log(`SKIP serve's redaction of real files: ${peers} is absent (../shared sits beside the repository in CI); the fixtures only`);
  else out.push(...walk(peers));
  return out;
}

test("serve redacts every file that is not a Garuda journal, whatever its first line's type", async () => {
  const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-serve-redacts-"));
  const served = [];
  for (const [i, file] of files().entries()) {
    const lines = fs.readFileSync(file, "utf8").split("\n");
    const k = lines.findIndex((l) => l.trim() !== "");
    let first;
    try {
      first = JSON.parse(lines[k]);
    } catch {
      continue;
    }
    if (!first || typeof first !== "object" || Array.isArray(first) || isGaruda(first)) continue;
    lines[k] = JSON.stringify({ ...first, probe: `the key is ${SECRET}` });
    const name = `${i}-${path.basename(file)}`;
    fs.writeFileSync(path.join(dir, name), lines.join("\n"));
    served.push({ name, type: first.type, from: path.relative(root, file) });
  }
  // A Garuda journal is sent as written.
  const sample = path.join(root, "web-demo/samples/viewer-sample.jsonl");
  assert.ok(isGaruda(JSON.parse(fs.readFileSync(sample, "utf8").split("\n")[0])), "the sample is a Garuda journal");
  fs.copyFileSync(sample, path.join(dir, "garuda.jsonl"));

  const child = spawn(process.execPath, [path.join(root, "pkg/bin/garuda-session.cjs"), "serve", dir], { stdio: ["ignore", "pipe", "inherit"] });
  servers.push(child);
  const printed = new URL(/http:\/\/127\.0\.0\.1:\d+\/\S*#token=[\w-]+/.exec(await new Promise((r) => child.stdout.once("data", (d) => r(String(d)))))[0]);
  const token = new URLSearchParams(printed.hash.slice(1)).get("token");
  const get = async (name) => (await fetch(`${printed.origin}/files/${encodeURIComponent(name)}`, { headers: { "x-garuda-token": token } })).text();
  assert.ok(served.some((s) => s.type === "user"), "a file whose first line is a user line is among them");
  for (const s of served) {
    const text = await get(s.name);
    assert.ok(text.length > 0, `${s.from}: served`);
    assert.ok(!text.includes(SECRET), `${s.from} (first line "${s.type}"): the secret is not sent`);
  }
  assert.equal(await get("garuda.jsonl"), fs.readFileSync(sample, "utf8"), "a Garuda journal is sent as written");
  console.log(`serve redacts: ${served.length} files of other agents (${served.filter((s) => s.type === "user").length} starting with a user line)`);
});

// The index the viewer opens (`/files/index.json`, and `list`) shows each
// session's first prompt and title: another agent's, read from a file that
// was never redacted, showed a key there (cut at 60 characters, so its
// first 50 or so) while the file itself was served redacted.
test("serve's index and list show another agent's prompt and title redacted (as read with --no-redact)", async () => {
  const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-serve-index-"));
  const line = (o) => JSON.stringify({ parentUuid: null, isSidechain: false, userType: "external", cwd: "/w", sessionId: "cc-s", version: "2.0.76", uuid: "u1", timestamp: "2026-01-05T10:00:00.000Z", ...o });
  fs.writeFileSync(
    path.join(dir, "cc-s.jsonl"),
    [line({ type: "user", message: { role: "user", content: `please deploy with ${SECRET} today` } }), JSON.stringify({ type: "custom-title", customTitle: `key ${SECRET}`, sessionId: "cc-s" })].join("\n") + "\n",
  );
  const head = SECRET.slice(0, 24);
  const index = async (...flags) => {
    const child = spawn(process.execPath, [path.join(root, "pkg/bin/garuda-session.cjs"), "serve", dir, ...flags], { stdio: ["ignore", "pipe", "inherit"] });
    servers.push(child);
    const printed = new URL(/http:\/\/127\.0\.0\.1:\d+\/\S*#token=[\w-]+/.exec(await new Promise((r) => child.stdout.once("data", (d) => r(String(d)))))[0]);
    const token = new URLSearchParams(printed.hash.slice(1)).get("token");
    const res = await fetch(`${printed.origin}/files/index.json`, { headers: { "x-garuda-token": token } });
    child.kill();
    return (await res.json()).sessions;
  };
  const [raw] = await index("--no-redact");
  assert.equal(raw.format, "claude-code");
  assert.ok(raw.prompt.includes(head) && raw.title.includes(SECRET), "with --no-redact the row is as the file says");
  const [row] = await index();
  assert.equal(row.prompt, "please deploy with [REDACTED] today");
  assert.equal(row.title, "key [REDACTED]");
  const { execFileSync } = await import("node:child_process");
  const listed = execFileSync(process.execPath, [path.join(root, "pkg/bin/garuda-session.cjs"), "list", dir, "--json"], { encoding: "utf8" });
  assert.ok(!listed.includes(head), `list --json shows no part of the key: ${listed}`);
  const table = execFileSync(process.execPath, [path.join(root, "pkg/bin/garuda-session.cjs"), "list", dir], { encoding: "utf8" });
  assert.ok(!table.includes(head) && table.includes("[REDACTED]"), table);
});
