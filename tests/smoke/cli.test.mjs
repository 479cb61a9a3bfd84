// The garuda-session CLI: each command, its output, its exit codes.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync, readFileSync, copyFileSync, mkdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "pkg/bin/garuda-session.cjs");
const golden = (name) => path.join(root, "tests/golden", name);

function cli(...args) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const tmp = () => mkdtempSync(path.join(tmpdir(), "garuda-cli-"));

test("replay prints the summary and exits 1 on warnings", () => {
  const ok = cli("replay", golden("every-record-type.jsonl"));
  assert.equal(ok.code, 1, "the golden journal has an unknown-type warning");
  assert.match(ok.out, /messages  3 \(2 prompts, 5 steps\)/);
  assert.match(ok.out, /cost      ≥ \$0\.0311 \(incomplete\)/);
  assert.match(ok.out, /budget 3,760 tokens: 2,560 reported \+ 1,200 unreported \+ 0 pending \(subagents\)/);
  assert.match(ok.out, /warning   line 25: unknown-type/);
  const clean = cli("replay", golden("crlf.jsonl"), "--json");
  assert.equal(clean.code, 0);
  const json = JSON.parse(clean.out);
  assert.equal(json.messages, 2);
  assert.equal(json.cost, "$0.0001");
  assert.equal(cli("replay", golden("torn-tail.jsonl")).code, 1);
});

test("bad usage and unreadable input exit 2 with a message that says what to do", () => {
  for (const args of [[], ["nope"], ["replay"], ["replay", "/no/such/file.jsonl"], ["export", golden("crlf.jsonl"), "--format", "pdf"], ["redact", golden("crlf.jsonl")], ["list", "/no/such/dir"]]) {
    const r = cli(...args);
    if (args.length === 0) {
      assert.equal(r.code, 0, "no command prints the usage");
      continue;
    }
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.err}`);
    assert.match(r.err, /usage: garuda-session|garuda-session \w+: /);
  }
});

test("redact writes a copy with counts per rule and never touches the input without --in-place", () => {
  const dir = tmp();
  const input = path.join(dir, "in.jsonl");
  const secret = "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";
  writeFileSync(input, `{"type":"user","message":{"role":"user","content":"token ${secret}"}}\n{"type":"title","title":"x"}\nnot json password=hunter2hunter\n`);
  const before = readFileSync(input, "utf8");
  const r = cli("redact", input, "-o", path.join(dir, "out.jsonl"));
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /2 of 3 lines changed; removed: assignment 1, github-token 1; 1 lines were not records/);
  assert.equal(readFileSync(input, "utf8"), before);
  const out = readFileSync(path.join(dir, "out.jsonl"), "utf8");
  assert.ok(!out.includes(secret) && !out.includes("hunter2hunter"));
  assert.equal(statSync(path.join(dir, "out.jsonl")).mode & 0o777, 0o600);
  assert.equal(cli("redact", input, "-o", input).code, 2, "-o onto the input is refused");
  assert.equal(cli("redact", input, "--in-place").code, 0);
  assert.ok(!readFileSync(input, "utf8").includes(secret));
});

test("resume prints messages and the report; check exits 1 only when the API would refuse", () => {
  const r = cli("resume", golden("every-record-type.jsonl"), "--model", "claude-other");
  assert.equal(r.code, 0);
  const messages = JSON.parse(r.out);
  assert.equal(messages[0].role, "user");
  const report = JSON.parse(r.err);
  assert.deepEqual(report.remaining, []);
  const c = cli("check", golden("resume/orphan-result-after-compaction.jsonl"));
  assert.equal(c.code, 0, c.out);
  assert.match(c.out, /tool-result-orphan/);
  assert.match(c.out, /is accepted/);
});

test("list shows the /sessions table newest first; export writes md and self-contained html", () => {
  const dir = tmp();
  copyFileSync(golden("every-record-type.jsonl"), path.join(dir, "20261129-100000-ab12.jsonl"));
  mkdirSync(path.join(dir, "20261129-100000-ab12"));
  const l = cli("list", dir);
  assert.equal(l.code, 0);
  assert.match(l.out, /20261129-100000-ab12 .* 2 +claude-opus-4-1 +≥ \$0\.0311 \(incomplete\) +Fix the parser/);
  const md = cli("export", golden("every-record-type.jsonl"), "--format", "md");
  assert.equal(md.code, 0);
  assert.match(md.out, /^# Fix the parser/);
  const html = cli("export", golden("every-record-type.jsonl"), "--format", "html");
  assert.match(html.out, /^<!doctype html>/);
  assert.ok(!/<script|src=|href="http/i.test(html.out), "one self-contained file, nothing fetched");
});

test("export shows a prompt's notes and attachments as such", () => {
  const dir = tmp();
  const file = path.join(dir, "n.jsonl");
  const content = [
    { type: "text", text: "Fix the parser." },
    { type: "text", text: "<garuda_note>on the release branch</garuda_note>" },
    { type: "text", text: "@src/a.ts\nconst token = 'x';" },
  ];
  writeFileSync(file, JSON.stringify({ type: "user", message: { role: "user", content } }) + "\n");
  const md = cli("export", file, "--format", "md").out;
  assert.match(md, /Fix the parser\.\n\n> \*\*Note:\*\* on the release branch\n\n\*\*Attachment\*\*\n\n```+\n@src\/a\.ts/);
  assert.doesNotMatch(md, /garuda_note/);
  const html = cli("export", file, "--format", "html").out;
  assert.match(html, /<div class="note"><b>Note:<\/b> on the release branch<\/div>/);
  assert.match(html, /<div class="attachment"><b>Attachment<\/b><pre>@src\/a\.ts/);
});

test("export reads past blocks of the wrong shape", () => {
  const dir = tmp();
  const file = path.join(dir, "w.jsonl");
  const content = [null, 5, { type: "text", text: 7 }, { type: "tool_result", tool_use_id: {}, content: [null, { type: "text", text: null }] }];
  writeFileSync(file, JSON.stringify({ type: "user", message: { role: "user", content } }) + "\n");
  for (const format of ["md", "html"]) {
    const r = cli("export", file, "--format", format);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /7/);
  }
});

test("export escapes hostile content and redacts it", () => {
  const dir = tmp();
  const file = path.join(dir, "h.jsonl");
  const hostile = '<script>alert(1)</script><img src=x onerror=alert(2)> password=hunter2hunter';
  writeFileSync(file, JSON.stringify({ type: "user", message: { role: "user", content: hostile } }) + "\n");
  const html = cli("export", file, "--format", "html").out;
  assert.ok(!html.includes("<script>alert") && !html.includes("<img"), html);
  assert.ok(html.includes("&lt;script&gt;"));
  assert.ok(!html.includes("hunter2hunter"));
});

test("serve answers on 127.0.0.1 with the sessions and a transcript", async () => {
  const dir = tmp();
  copyFileSync(golden("every-record-type.jsonl"), path.join(dir, "s1.jsonl"));
  const child = spawn(process.execPath, [bin, "serve", dir], { stdio: ["ignore", "pipe", "inherit"] });
  try {
    const line = await new Promise((resolve) => child.stdout.once("data", (d) => resolve(String(d))));
    const url = /http:\/\/127\.0\.0\.1:\d+\//.exec(line)[0];
    const index = await (await fetch(url + "files/index.json")).json();
    assert.deepEqual(index.sessions.map((s) => s.id), ["s1"]);
    assert.match(await (await fetch(url)).text(), /Garuda transcript viewer/);
    assert.equal((await fetch(url + "web/garuda_session_bg.wasm")).headers.get("content-type"), "application/wasm");
    assert.equal((await fetch(url + "files/s1.jsonl")).status, 200);
    assert.equal((await fetch(url + "files/..%2F..%2Fetc%2Fpasswd.jsonl")).status, 400);
    const page = await (await fetch(url + "session/s1")).text();
    assert.match(page, /Fix the parser/);
    assert.equal((await fetch(url + "session/..%2Fx")).status, 400);
  } finally {
    child.kill();
  }
});

test("a progress bar on a terminal for inputs over 10 MB, and none when stderr is not a terminal", async (t) => {
  const { journalFile } = await import(path.join(root, "bench/data.mjs"));
  const big = journalFile(10); // just over 10 MB
  // script(1) (util-linux, in every Debian) runs the command on a pseudo-terminal.
  const quote = (s) => `'${s.replaceAll("'", `'\\''`)}'`;
  const tty = spawnSync("script", ["-qec", `${quote(process.execPath)} ${quote(bin)} replay ${quote(big)}`, "/dev/null"], { encoding: "utf8" });
  assert.equal(tty.error, undefined, "script(1) runs");
  if (tty.status !== 0 && /pseudo-terminal|openpty|\/dev\/pts/i.test(tty.stderr)) {
    t.skip(`this machine gives no pseudo-terminal: ${tty.stderr.trim()}`);
    return;
  }
  assert.match(tty.stdout, /\rreplay \[#+\.*\] \d+% of 10 MB/);
  assert.match(tty.stdout, /\rreplay \[#{25}\] 100% of 10 MB/);
  assert.match(tty.stdout, /\x1b\[K/, "the bar is cleared before the summary");
  assert.match(tty.stdout, /messages/);
  const piped = cli("replay", big);
  assert.doesNotMatch(piped.err, /% of/);
  assert.match(piped.out, /messages/);
});
