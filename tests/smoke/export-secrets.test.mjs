// An export is a file that leaves the machine: no private key in it, in any
// view a tool's text is drawn in. The renderer redacts every string it
// draws, but a Read's numbered lines and an Edit's diff split a key's BEGIN
// and END onto lines redacted one by one, and the key's body went out (a
// red-team review, stop 50). Each file now goes through the Redactor line by
// line before it is read. Checked on a Claude Code session made here, in
// Markdown and HTML, by searching the output for every body line.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "pkg/bin/garuda-session.cjs");

// A made-up key: 64-character base64 lines, as PEM writes them.
const body = ["MIIEpAIBAAKCAQEAwq3fZ8Lk2mN9pQ4rS7tU1vW3xY5zA6bC8dE0fG2hJ4kL6mN8", "pQ0rS2tU4vW6xY8zA0bC2dE4fG6hJ8kL0mN2pQ4rS6tU8vW0xY2zA4bC6dE8fG0h", "J2kL4mN6pQ8rS0tU2vW4xY6zA8bC0dE2fG4hJ6kL8mN0pQ2rS4tU6vW8xY0zA2bC"];
const pem = `-----BEGIN RSA PRIVATE KEY-----\n${body.join("\n")}\n-----END RSA PRIVATE KEY-----\n`;
const numbered = pem.trimEnd().split("\n").map((l, i) => `${String(i + 1).padStart(6)}→${l}`).join("\n");

function session(dir) {
  let n = 0;
  const t = "2026-11-29T10:00:00.000Z";
  const lines = [];
  let parent = null;
  const push = (r) => {
    const uuid = `u${++n}`;
    lines.push(JSON.stringify({ parentUuid: parent, isSidechain: false, sessionId: "s", type: r.role, uuid, timestamp: t, ...(r.role === "assistant" ? { requestId: `req_${n}` } : {}), message: r.role === "assistant" ? { id: `msg_${n}`, role: "assistant", model: "claude-sonnet-4-5", content: r.content, usage: { input_tokens: 1, output_tokens: 1 } } : { role: "user", content: r.content } }));
    parent = uuid;
  };
  push({ role: "user", content: "set up TLS" });
  const calls = [
    ["Read", { file_path: "/srv/server.key" }, numbered],
    ["Write", { file_path: "/srv/server.key", content: pem }, "File created successfully at: /srv/server.key"],
    ["Edit", { file_path: "/srv/.env", old_string: "TLS_KEY=", new_string: `TLS_KEY="${pem}"` }, "The file /srv/.env has been updated."],
    ["MultiEdit", { file_path: "/srv/.env", edits: [{ old_string: "A", new_string: pem }] }, "Applied 1 edit."],
  ];
  calls.forEach(([name, input, result], i) => {
    push({ role: "assistant", content: [{ type: "tool_use", id: `toolu_${i}`, name, input }] });
    push({ role: "user", content: [{ type: "tool_result", tool_use_id: `toolu_${i}`, content: result }] });
  });
  const file = path.join(dir, "s.jsonl");
  writeFileSync(file, lines.join("\n") + "\n");
  return file;
}

test("export: a private key read, written or edited by a tool is not in the Markdown or the HTML", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-export-secrets-"));
  const file = session(dir);
  for (const format of ["md", "html"]) {
    const out = path.join(dir, `s.${format}`);
    const r = spawnSync(process.execPath, [bin, "export", file, "--format", format, "-o", out], { encoding: "utf8" });
    assert.equal(r.status, 0, r.stderr);
    const text = readFileSync(out, "utf8");
    for (const b of body) for (const piece of [b, b.slice(0, 24), b.slice(40)]) assert.ok(!text.includes(piece), `${format}: ${piece} reached the export`);
    assert.match(text, /server\.key/, `${format}: the calls are drawn`);
  }
  // --no-redact writes them as they are (the control: the test can see a key).
  const raw = spawnSync(process.execPath, [bin, "export", file, "--format", "md", "--no-redact"], { encoding: "utf8", maxBuffer: 1 << 24 });
  assert.ok(raw.stdout.includes(body[1]));
});
