// The garuda-session CLI: each command, its output, its exit codes.
import http from "node:http";
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
  const dir = tmp();
  const notes = path.join(dir, "notes.jsonl");
  writeFileSync(notes, "garbage\n");
  const empty = path.join(dir, "empty.jsonl");
  writeFileSync(empty, "");
  for (const args of [[], ["nope"], ["replay"], ["replay", "/no/such/file.jsonl"], ["export", golden("crlf.jsonl"), "--format", "pdf"], ["redact", golden("crlf.jsonl")], ["list", "/no/such/dir"], ["replay", dir], ["redact", golden("crlf.jsonl"), "-o", dir], ["doctor", notes], ["doctor", empty]]) {
    const r = cli(...args);
    if (args.length === 0) {
      // No command is bad usage too: the usage, on stderr (stop 48's review found exit 0).
      assert.equal(r.code, 2, "no command");
      assert.match(r.err, /^usage: garuda-session <command>/);
      continue;
    }
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.err}`);
    assert.match(r.err, /^garuda-session( \w+)?: /);
    assert.doesNotMatch(r.err, /EISDIR/, "a folder is named as one");
    if (args[0] === "doctor") assert.match(r.err, /no known session format \(tried garuda, claude-code/);
    // The error names what was wrong; the whole global help is not repeated.
    assert.doesNotMatch(r.err, /Every command reads/);
  }
});

test("each command answers --help with its own help (exit 0); --version; a usage error names the argument", () => {
  for (const command of ["replay", "usage", "statusline", "export", "redact", "resume", "check", "list", "serve", "import", "doctor"]) {
    for (const flag of ["--help", "-h"]) {
      const r = cli(command, flag);
      assert.equal(r.code, 0, `${command} ${flag}: ${r.err}`);
      assert.match(r.out, new RegExp(`^usage: garuda-session ${command} `), command);
    }
  }
  assert.match(cli("help", "usage").out, /^usage: garuda-session usage /);
  const v = cli("--version");
  assert.equal(v.code, 0);
  assert.match(v.out, /^garuda-session \d+\.\d+\.\d+/);
  assert.equal(cli("usage", "--version").out, v.out);
  const bad = cli("usage", "--by", "fortnight");
  assert.equal(bad.code, 2);
  assert.match(bad.err, /^garuda-session usage: --by .*fortnight|^garuda-session usage: --by takes/);
  assert.match(bad.err, /garuda-session usage --help/);
  assert.equal(bad.err.trim().split("\n").length, 1, "one line, not the whole help");
  const unknown = cli("replay", "--frob");
  assert.equal(unknown.code, 2);
  assert.match(unknown.err, /'--frob'/);
  // A second file is refused, not passed over (a review found `replay a b` read a only).
  for (const command of ["replay", "check", "resume", "export", "redact", "list", "doctor"]) {
    const extra = cli(command, golden("crlf.jsonl"), "extra.jsonl");
    assert.equal(extra.code, 2, `${command}: ${extra.err}`);
    assert.match(extra.err, /unexpected argument "extra\.jsonl"/, command);
  }
  assert.match(cli("list", "/no/such/dir").err, /\/no\/such\/dir: no such folder/);
  assert.match(cli("list", golden("crlf.jsonl")).err, /is not a folder/);
});

test("doctor on an empty folder says there is nothing to check", () => {
  const r = cli("doctor", tmp());
  assert.equal(r.code, 0);
  assert.match(r.err, /no session files in it \(nothing to check\)/);
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

// The journal's own thinking record decides, as resumeSession's view reads
// it (JOURNAL.md §2: "a resume brings it back"): resume and check once went
// by thinking off unless --thinking said on, and passed a history whose
// unfinished tool loop lacks the thinking the API then asks for.
test("resume and check go by the journal's thinking record unless --thinking says otherwise", () => {
  const dir = tmp();
  const file = path.join(dir, "loop.jsonl");
  const records = [
    { type: "start", sessionId: "s", model: "claude-sonnet-4-5" },
    { type: "thinking", choice: { type: "enabled", budget_tokens: 2048 } },
    { type: "user", message: { role: "user", content: "go" } },
    { type: "assistant", step: 1, response: { content: [{ type: "thinking", thinking: "plan", signature: "sig" }, { type: "tool_use", id: "t1", name: "bash", input: {} }], usage: {} } },
    { type: "model", model: "claude-opus-4-5" },
    { type: "tool_results", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }] }, calls: [] },
  ];
  writeFileSync(file, records.map((r) => JSON.stringify(r)).join("\n") + "\n");
  const r = cli("resume", file);
  assert.equal(r.code, 0, r.err);
  const report = JSON.parse(r.err);
  assert.equal(report.thinking, true);
  assert.equal(report.toolLoopToText, true);
  assert.match(JSON.parse(r.out)[1].content[0].text, /^\[Called tool bash \(t1\)/);
  const off = cli("resume", file, "--thinking", "off");
  assert.equal(JSON.parse(off.err).thinking, false);
  assert.equal(JSON.parse(off.out)[1].content[0].type, "tool_use");
  const c = cli("check", file);
  assert.equal(c.code, 0, c.out);
  assert.match(c.out, /resume drops thinking blocks: model-switch 1\n.* is accepted/);
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
  assert.match(html, /<div class="note"><span class="label">Note<\/span> on the release branch<\/div>/);
  assert.match(html, /<details class="attachment"><summary>Attachment <small>2 lines<\/small><\/summary><pre class="output">@src\/a\.ts/);
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

/** Starts `serve` on a folder; resolves to its printed URL (with the token) and the child. */
async function startServe(dir, ...flags) {
  const child = spawn(process.execPath, [bin, "serve", dir, ...flags], { stdio: ["ignore", "pipe", "inherit"] });
  const line = await new Promise((resolve) => child.stdout.once("data", (d) => resolve(String(d))));
  const printed = /http:\/\/127\.0\.0\.1:\d+\/\S*#token=[\w-]+/.exec(line)[0];
  return { child, printed, origin: new URL(printed).origin, token: new URLSearchParams(new URL(printed).hash.slice(1)).get("token") };
}

/** A GET (or other method) on 127.0.0.1 with a Host header of our choosing; fetch() will not send a false Host. */
function rawRequest(origin, { path: p = "/", method = "GET", host, token } = {}) {
  const { port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const headers = { host: host ?? `127.0.0.1:${port}` };
    if (token) headers["x-garuda-token"] = token;
    const req = http.request({ host: "127.0.0.1", port, path: p, method, headers }, (res) => {
      let body = "";
      res.on("data", (d) => (body += d));
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

test("serve answers on 127.0.0.1 with the sessions and a transcript, to the holder of its token", async () => {
  const dir = tmp();
  copyFileSync(golden("every-record-type.jsonl"), path.join(dir, "s1.jsonl"));
  const { child, printed, origin, token } = await startServe(dir);
  try {
    assert.equal(new URL(printed).search, "?dir=/files/index.json", "the printed URL opens the viewer on the folder");
    const page = await rawRequest(origin, { path: new URL(printed).pathname + new URL(printed).search });
    assert.equal(page.status, 200, "the viewer's own page loads without the token (its fragment holds it)");
    assert.equal(page.headers["set-cookie"], undefined, "no cookie: one would reach every port of 127.0.0.1");
    const get = (p) => fetch(origin + p, { headers: { "x-garuda-token": token } });
    const index = await (await get("/files/index.json")).json();
    assert.deepEqual(index.sessions.map((s) => s.id), ["s1"]);
    assert.match(await (await get("/")).text(), /Garuda transcript viewer/);
    assert.equal((await get("/web/garuda_session_bg.wasm")).headers.get("content-type"), "application/wasm");
    assert.equal((await get("/files/s1.jsonl")).status, 200);
    assert.equal((await get("/files/..%2F..%2Fetc%2Fpasswd.jsonl")).status, 400);
    assert.match(await (await get("/session/s1")).text(), /Fix the parser/);
    assert.equal((await get("/session/..%2Fx")).status, 400);
    for (const r of [await get("/files/s1.jsonl"), await get("/")]) {
      assert.equal(r.headers.get("access-control-allow-origin"), null, "no CORS header lets a response out");
    }
  } finally {
    child.kill();
  }
});

test("serve refuses other Hosts (DNS rebinding), requests without the token, and methods other than GET and HEAD", async () => {
  const dir = tmp();
  copyFileSync(golden("every-record-type.jsonl"), path.join(dir, "s1.jsonl"));
  const { child, origin, token } = await startServe(dir);
  const port = new URL(origin).port;
  try {
    // A rebinding page's name resolves to 127.0.0.1, but its Host header is its own.
    for (const host of [`evil.example:${port}`, `127.0.0.1.nip.io:${port}`, `127.0.0.1:${Number(port) + 1}`, `localhost`]) {
      const r = await rawRequest(origin, { path: "/files/s1.jsonl", host, token });
      assert.equal(r.status, 403, host);
      assert.doesNotMatch(r.body, /Fix the parser/);
    }
    for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]) {
      assert.equal((await rawRequest(origin, { path: "/files/index.json", host, token })).status, 200, host);
    }
    const noToken = await rawRequest(origin, { path: "/files/s1.jsonl" });
    assert.equal(noToken.status, 401);
    assert.doesNotMatch(noToken.body, /Fix the parser/);
    assert.equal((await rawRequest(origin, { path: "/files/s1.jsonl", token: "wrong" })).status, 401);
    assert.equal((await rawRequest(origin, { path: `/files/s1.jsonl?token=${token}` })).status, 401, "the token goes in the header only");
    assert.equal((await rawRequest(origin, { path: "/session/s1" })).status, 401);
    for (const method of ["POST", "PUT", "DELETE", "OPTIONS"]) {
      const r = await rawRequest(origin, { path: "/files/index.json", method, token });
      assert.equal(r.status, 405, method);
      assert.equal(r.headers.allow, "GET, HEAD");
    }
    assert.equal((await rawRequest(origin, { path: "/files/index.json", method: "HEAD", token })).status, 200);
  } finally {
    child.kill();
  }
});

test("serve sends files that Garuda did not write through the Redactor, unless --no-redact is given", async () => {
  const dir = tmp();
  const secret = "sk-ant-api03-" + "x".repeat(93) + "AA";
  // Another agent's line shape: never passed Garuda's Redactor.
  writeFileSync(path.join(dir, "s1.jsonl"), JSON.stringify({ type: "human", text: `key ${secret}` }) + "\n");
  for (const [flags, leaks] of [[[], false], [["--no-redact"], true]]) {
    const { child, origin, token } = await startServe(dir, ...flags);
    try {
      const body = (await rawRequest(origin, { path: "/files/s1.jsonl", token })).body;
      assert.equal(body.includes(secret), leaks, body);
      if (!leaks) assert.match(body, /\[REDACTED\]/);
    } finally {
      child.kill();
    }
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

test("redact --rules: the user's own token formats go, counted by name; a bad pattern names its rule and position", () => {
  const dir = tmp();
  const file = path.join(dir, "s.jsonl");
  writeFileSync(file, JSON.stringify({ type: "user", message: { role: "user", content: "deploy acme_0123abcd4567efgh and TKT-123456" } }) + "\n");
  const rules = path.join(dir, "rules.json");
  writeFileSync(rules, JSON.stringify([{ name: "acme", pattern: "acme_[a-z0-9]{16}" }, { name: "ticket", pattern: "TKT-[0-9]{6}" }]));
  const r = cli("redact", file, "-o", path.join(dir, "out.jsonl"), "--rules", rules);
  assert.equal(r.code, 0, r.err);
  assert.match(r.err, /acme 1, ticket 1/);
  const out = readFileSync(path.join(dir, "out.jsonl"), "utf8");
  assert.ok(!out.includes("acme_0123") && !out.includes("TKT-123456"), out);
  writeFileSync(rules, JSON.stringify({ rules: [{ name: "broken", pattern: "tok_[a-z" }] }));
  const bad = cli("redact", file, "-o", path.join(dir, "out2.jsonl"), "--rules", rules);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /rule "broken": bad pattern at position 4/);
});

const formats = (name) => path.join(root, "tests/formats", name);

test("every command reads other agents' sessions; a file in no known format is exit 2 naming the formats tried", () => {
  const r = cli("replay", formats("claude-code.jsonl"), "--json");
  // The rewound branch is reported, but no line was skipped: exit 0, as the
  // help says (a rewind is Claude Code's normal use; exit 1 read as a fault).
  assert.equal(r.code, 0, r.err);
  const s = JSON.parse(r.out);
  assert.deepEqual([...new Set(s.warnings.map((w) => w.kind))], ["other-branch"]);
  assert.equal(s.format, "claude-code");
  assert.equal(s.prompts, 2);
  assert.ok(s.costUsd > 0);
  for (const f of ["codex.jsonl", "pi.jsonl", "gemini.json", "gemini.jsonl"]) {
    const x = cli("check", formats(f));
    assert.equal(x.code, 0, `${f}: ${x.out}${x.err}`);
  }
  const dir = tmp();
  writeFileSync(path.join(dir, "x.jsonl"), '{"hello":"world"}\n');
  const bad = cli("replay", path.join(dir, "x.jsonl"));
  assert.equal(bad.code, 2);
  assert.match(bad.err, /no known session format \(tried garuda, claude-code, codex, pi, gemini\)/);
  // A pretty-printed JSON file that is no session opens like a Gemini CLI
  // document: it was read as a Gemini session that cost $0.0000.
  writeFileSync(path.join(dir, "manifest.json"), JSON.stringify({ manifest_version: 1, files: [] }, null, 2) + "\n");
  const manifest = cli("replay", path.join(dir, "manifest.json"));
  assert.equal(manifest.code, 2, manifest.out + manifest.err);
  assert.match(manifest.err, /no known session format/);
  assert.doesNotMatch(manifest.out, /\$0/);
  assert.equal(cli("replay", formats("codex.jsonl"), "--format", "klingon").code, 2);
  const forced = JSON.parse(cli("replay", formats("codex.jsonl"), "--format", "pi", "--json").out);
  assert.equal(forced.format, "pi", "--format forces the reader");
});

test("usage: sessions of every format, grouped by day, month or model, filtered by date; --prices adds a price", () => {
  const dir = tmp();
  for (const f of ["claude-code.jsonl", "codex.jsonl", "pi.jsonl", "gemini.jsonl"]) copyFileSync(formats(f), path.join(dir, f));
  copyFileSync(formats("gemini.json"), path.join(dir, "session-gemini.json"));
  writeFileSync(path.join(dir, "notes.jsonl"), '{"hello":"world"}\n');
  const all = JSON.parse(cli("usage", dir, "--json").out);
  assert.deepEqual(all.sessions.map((s) => s.format).sort(), ["claude-code", "codex", "gemini", "gemini", "pi"], "a folder's other files are passed over");
  for (const k of ["inputTokens", "outputTokens", "cacheReadTokens", "cacheWriteTokens"]) {
    assert.equal(all.totals[k], all.sessions.reduce((a, s) => a + s[k], 0), k);
  }
  const codex = all.sessions.find((s) => s.format === "codex");
  assert.equal(codex.inputTokens, 500, "input without cached tokens");
  const byDay = JSON.parse(cli("usage", dir, "--by", "day", "--timezone", "UTC", "--json").out);
  assert.deepEqual(byDay.daily.map((d) => d.date), ["2026-01-05", "2026-01-06", "2026-02-01", "2026-03-01", "2026-04-01"]);
  const byModel = JSON.parse(cli("usage", dir, "--by", "model", "--json").out);
  assert.ok(byModel.models.some((m) => m.model === "gpt-5.1-codex"));
  const since = JSON.parse(cli("usage", dir, "--since", "2026-03-01", "--timezone", "UTC", "--json").out);
  assert.deepEqual(since.sessions.map((s) => s.format).sort(), ["gemini", "gemini", "pi"]);
  const month = JSON.parse(cli("usage", dir, "--by", "month", "--until", "2026-01-31", "--timezone", "UTC", "--json").out);
  assert.deepEqual(month.monthly.map((m) => m.month), ["2026-01"]);
  // An unknown model's cost is unknown, never $0; --prices gives it one.
  const unknown = formats("gemini.json").replace("gemini.json", "");
  const g = path.join(tmp(), "session-g.json");
  writeFileSync(g, readFileSync(path.join(unknown, "gemini.json"), "utf8").replaceAll("gemini-2.5-pro", "gemini-9-ultra"));
  const u = JSON.parse(cli("usage", g, "--json").out);
  assert.equal(u.totals.costUsd, null);
  assert.equal(u.totals.costIncomplete, true);
  const prices = path.join(tmp(), "prices.json");
  writeFileSync(prices, JSON.stringify({ models: { "gemini-9-ultra": { input: 1, output: 2, cacheRead: 0.5 } } }));
  const priced = JSON.parse(cli("usage", g, "--prices", prices, "--json").out);
  assert.equal(priced.totals.costUsd, (800 * 1 + 90 * 2 + 1400 * 0.5) / 1e6);
  const table = cli("usage", dir);
  assert.equal(table.code, 0);
  assert.match(table.out, /total \(5 sessions\)/);
  assert.equal(cli("usage", dir, "--by", "fortnight").code, 2);
  assert.equal(cli("usage", dir, "--since", "yesterday").code, 2);
});

test("import writes a redacted Garuda journal from another agent's session, whose resumed history passes checkMessages", () => {
  const dir = tmp();
  const src = path.join(dir, "rollout.jsonl");
  const secret = "sk-ant-api03-" + "Qw9".repeat(30) + "AA";
  writeFileSync(src, readFileSync(formats("codex.jsonl"), "utf8").replace("a.txt\\nb.txt", `ANTHROPIC_API_KEY=${secret}`));
  const out = path.join(dir, "imported.jsonl");
  const r = cli("import", src, "-o", out);
  assert.equal(r.code, 0, r.err);
  const text = readFileSync(out, "utf8");
  assert.ok(!text.includes(secret), "redacted");
  assert.match(text, /gAAAAABpQ0ZfakeCipherTextThatMustNotBeRedacted/, "ciphertext is kept as it is");
  assert.equal(JSON.parse(text.split("\n")[0]).type, "start");
  const check = cli("check", out);
  assert.equal(check.code, 0, check.out);
  const replayed = JSON.parse(cli("replay", out, "--json").out);
  assert.equal(replayed.format, "garuda");
  assert.equal(replayed.usage.outputTokens, 120);
  assert.equal(cli("import", path.join(root, "tests/golden/crlf.jsonl"), "-o", path.join(dir, "x.jsonl")).code, 2, "a Garuda journal needs no import");
});

test("export writes the whole transcript, compacted and undone turns marked, with landmarks; --live only what the model sees", () => {
  const sample = path.join(root, "web-demo/samples/viewer-sample.jsonl");
  const whole = cli("export", sample, "--format", "md");
  assert.equal(whole.code, 0, whole.err);
  assert.match(whole.out, /Find the flaky test in the parser suite\./, "the first prompt, compacted away, is there");
  assert.match(whole.out, /— compacted away/);
  assert.match(whole.out, /\*compaction: the conversation so far \(9,000 tokens\) summarised in 1,200\* \(line 15\)/);
  const live = cli("export", sample, "--format", "md", "--live");
  assert.doesNotMatch(live.out, /Find the flaky test in the parser suite\./);
  assert.ok(whole.out.length > live.out.length * 2);
  const html = cli("export", sample, "--format", "html");
  assert.match(html.out, /<div class="landmark compaction"><span>compaction: /);
  assert.match(html.out, /Content-Security-Policy/);
});

test("export redacts unless --no-redact, and exports a whole folder, a file per session", () => {
  const dir = tmp();
  const file = path.join(dir, "s.jsonl");
  const key = "sk-ant-api03-" + "Q7vXk2m9Pz4tR8wY1nB6cD3fG5hJ0lK".repeat(3).slice(0, 93) + "AA";
  writeFileSync(file, JSON.stringify({ type: "user", message: { role: "user", content: `use ${key} please` } }) + "\n");
  const redacted = cli("export", file, "--format", "md");
  assert.doesNotMatch(redacted.out, /Q7vXk2m9/);
  const raw = cli("export", file, "--format", "md", "--no-redact");
  assert.match(raw.out, /Q7vXk2m9/);
  // A folder: every session (child runs too) to a file of its own, at the same path.
  const folder = path.join(dir, "sessions");
  mkdirSync(path.join(folder, "viewer-sample"), { recursive: true });
  copyFileSync(path.join(root, "web-demo/samples/viewer-sample.jsonl"), path.join(folder, "viewer-sample.jsonl"));
  copyFileSync(path.join(root, "web-demo/samples/viewer-sample/explore-toolu_explore1.jsonl"), path.join(folder, "viewer-sample/explore-toolu_explore1.jsonl"));
  writeFileSync(path.join(folder, "notes.jsonl"), "not a session\n");
  const out = path.join(dir, "html");
  const r = cli("export", folder, "--format", "html", "-o", out);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /2 sessions written .*1 files in no known format skipped/);
  assert.match(readFileSync(path.join(out, "viewer-sample.html"), "utf8"), /Find the flaky test/);
  assert.match(readFileSync(path.join(out, "viewer-sample/explore-toolu_explore1.html"), "utf8"), /<article/);
  assert.equal(cli("export", folder, "--format", "html").code, 2, "a folder needs -o");
});
