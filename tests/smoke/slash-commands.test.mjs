// A Claude Code session that opens with a slash command (`/init`, a custom
// `/orchestrator`): the command the model answered is a turn, and the
// sessions index (`list`, serve's index.json, the viewer's table) shows it
// as the first prompt; `/clear`, which asks the model nothing, is not one.
// On a fixture in the shape Claude Code writes, and on the peers' real
// files that open so (the Rust oracle, tests/peers_oracle.rs, counts every
// file's prompts with an independent walk of the raw lines).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "pkg/bin/garuda-session.cjs");
const peers = path.join(process.env.GARUDA_SHARED ?? path.join(root, "../shared"), "peers");
const PEERS_SKIP = fs.existsSync(peers) ? false : `SKIP slash commands on real files: ${peers} is absent (../shared sits beside the repository in CI)`;

const cli = (...args) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });

/** Lines as Claude Code 1.0.98 wrote `/init` (the peers' claude-code-viewer session), with our own words. */
function commandSession(command, args) {
  let parent = null;
  const line = (uuid, rest) => {
    const l = { parentUuid: parent, isSidechain: false, userType: "external", cwd: "/work/app", sessionId: "slash", version: "1.0.98", ...rest, uuid, timestamp: "2026-11-30T10:00:00.000Z" };
    parent = uuid;
    return JSON.stringify(l);
  };
  const user = (content, extra = {}) => ({ type: "user", message: { role: "user", content }, ...extra });
  return [
    line("c0", user("<command-name>/clear</command-name>\n            <command-message>clear</command-message>\n            <command-args></command-args>")),
    line("c1", user("<local-command-stdout></local-command-stdout>")),
    line("u1", user(`<command-message>${command.slice(1)} is running…</command-message>\n<command-name>${command}</command-name>\n<command-args>${args}</command-args>`)),
    line("u2", user([{ type: "text", text: "Split the task into parts and work on them one by one." }], { isMeta: true })),
    line("a1", { type: "assistant", message: { id: "msg_1", type: "message", role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "text", text: "I'll split it." }], usage: { input_tokens: 3, output_tokens: 5 } }, requestId: "req_1" }),
  ].join("\n") + "\n";
}

test("a session opening with a slash command the model answered counts it as its first turn, in list, replay and export", () => {
  const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-slash-"));
  fs.writeFileSync(path.join(dir, "slash.jsonl"), commandSession("/orchestrator", "create a TODO app"));
  const rows = JSON.parse(cli("list", dir, "--json").stdout);
  assert.equal(rows.length, 1);
  assert.equal(rows[0].prompts, 1, "the command is a turn; /clear is not");
  assert.equal(rows[0].prompt, "/orchestrator create a TODO app");
  const replay = JSON.parse(cli("replay", path.join(dir, "slash.jsonl"), "--json").stdout);
  assert.equal(replay.prompts, 1);
  // The export heads it as the person's turn, the command as code; /clear stays context.
  const md = cli("export", path.join(dir, "slash.jsonl"), "--format", "md").stdout;
  assert.match(md, /## User \(#\d+, [^\n]*\n\n`\/orchestrator` create a TODO app\n/);
  assert.match(md, /## Context \(#\d+[^\n]*\n\n<details><summary>context: \/clear<\/summary>/);
  // The HTML (the viewer's renderer) draws the command as the person's words, not as a context chip.
  const html = cli("export", path.join(dir, "slash.jsonl"), "--format", "html").stdout;
  assert.match(html, /<p class="prompt-command"><code>\/orchestrator<\/code> create a TODO app<\/p>/);
  assert.doesNotMatch(html, /context-label">context<\/span> <code>\/orchestrator/);
});

test("the peers' sessions that open with /init and /orchestrator count it as a turn and show it as the first prompt", { skip: PEERS_SKIP }, () => {
  const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-slash-peers-"));
  const cases = {
    "1af7fc5e-8455-4414-9ccd-011d40f70b2a": "/init",
    "5c0375b4-57a5-4f26-b12d-d022ee4e51b7": "/orchestrator @CLAUDE.md を最新の状態にアップデートしてください",
  };
  for (const id of Object.keys(cases)) fs.copyFileSync(path.join(peers, "claude-code/claude-code-viewer", `${id}.jsonl`), path.join(dir, `${id}.jsonl`));
  const rows = JSON.parse(cli("list", dir, "--json").stdout);
  for (const [id, prompt] of Object.entries(cases)) {
    const row = rows.find((r) => r.id === id);
    assert.equal(row.prompt, prompt, id);
    assert.ok(row.prompts >= 1, `${id}: ${row.prompts} turns`);
  }
});
