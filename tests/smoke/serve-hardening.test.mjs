// `garuda-session serve` against a hostile folder and a careless command
// line: it never serves through a symlink (`passwd.jsonl -> /etc/passwd`
// was served), its index of a folder with a junk file stays in bounded
// memory (a 16 MB junk file took it to 6.5 GB), and its banner never prints
// the password of a --redis URL.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { spawn, spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "pkg/bin/garuda-session.cjs");
const line = (r) => JSON.stringify(r) + "\n";
const SESSION = line({ type: "start", sessionId: "s1", model: "m" }) + line({ type: "user", message: { role: "user", content: "Fix the parser" } });

/** Starts serve; resolves to its child, origin, token and banner. */
async function serve(...args) {
  // The CLI finds the optional `redis` package from its working directory: the CI tools' folder has it.
  const child = spawn(process.execPath, [bin, "serve", ...args], { stdio: ["ignore", "pipe", "pipe"], cwd: path.join(root, ".ci") });
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  const banner = await new Promise((resolve) => {
    child.stdout.once("data", (d) => resolve(String(d)));
    child.once("exit", () => resolve(`exited: ${err}`));
  });
  const m = /http:\/\/127\.0\.0\.1:\d+\/\S*#token=([\w-]+)/.exec(banner);
  return { child, banner, err: () => err, origin: m && new URL(m[0]).origin, token: m?.[1] };
}

test("serve never serves through a symlink: a linked journal, a linked child folder, a linked transcript", async () => {
  const base = fs.mkdtempSync(path.join(tmpdir(), "garuda-serve-links-"));
  const dir = path.join(base, "sessions");
  const outside = path.join(base, "outside");
  fs.mkdirSync(dir);
  fs.mkdirSync(outside);
  const secret = path.join(outside, "passwd");
  fs.writeFileSync(secret, "root:x:0:0:root:/root:/bin/bash\n");
  fs.writeFileSync(path.join(outside, "child.jsonl"), "root:x:0:0 in a child\n");
  fs.writeFileSync(path.join(dir, "s1.jsonl"), SESSION);
  fs.symlinkSync(secret, path.join(dir, "passwd.jsonl"));
  fs.symlinkSync(outside, path.join(dir, "s1"));
  const { child, origin, token } = await serve(dir);
  try {
    const get = (p) => fetch(origin + p, { headers: { "x-garuda-token": token } });
    assert.equal((await get("/files/s1.jsonl")).status, 200, "the real journal is served");
    for (const p of ["/files/passwd.jsonl", "/files/s1/child.jsonl", "/session/passwd", "/session/s1/child.jsonl"]) {
      const r = await get(p);
      const body = await r.text();
      assert.notEqual(r.status, 200, p);
      assert.doesNotMatch(body, /root:x:0:0/, p);
    }
    const index = await (await get("/files/index.json")).json();
    assert.deepEqual(index.sessions.map((s) => [s.id, s.children.length]), [["s1", 0]], "links are not listed");
  } finally {
    child.kill();
  }
});

test("serve's index of a folder with 2 M junk lines in it answers in bounded memory", async (t) => {
  if (!fs.existsSync("/proc/self/status")) return t.skip("no /proc to read the server's peak memory from");
  const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-serve-junk-"));
  fs.writeFileSync(path.join(dir, "s1.jsonl"), SESSION);
  const fd = fs.openSync(path.join(dir, "junk.jsonl"), "w");
  fs.writeSync(fd, SESSION);
  const block = Buffer.from("junk\n".repeat(100_000));
  for (let i = 0; i < 20; i++) fs.writeSync(fd, block);
  fs.closeSync(fd);
  const { child, origin, token } = await serve(dir);
  try {
    for (let i = 0; i < 2; i++) {
      const r = await fetch(origin + "/files/index.json", { headers: { "x-garuda-token": token } });
      assert.equal(r.status, 200);
      assert.deepEqual((await r.json()).sessions.map((s) => s.id).sort(), ["junk", "s1"]);
    }
    const peak = Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${child.pid}/status`, "utf8"))[1]) * 1024;
    assert.ok(peak < 300 << 20, `serve's peak RSS was ${(peak / 2 ** 20).toFixed(0)} MB for a 10 MB junk file (bound 300 MB)`);
  } finally {
    child.kill();
  }
});

test("serve --redis: the banner masks the URL's password", async (t) => {
  if (!fs.existsSync(path.join(root, ".ci/node_modules/redis"))) return t.skip("SKIP the `redis` package is not in .ci/node_modules");
  const { child, banner } = await serve("--redis", "redis://user:hunter2pw@127.0.0.1:9/0");
  try {
    assert.doesNotMatch(banner, /hunter2pw/);
    assert.match(banner, /redis:\/\/user:\*\*\*@127\.0\.0\.1:9\/0 \(Redis\)/);
  } finally {
    child.kill();
  }
});

test("serve answers names a folder may hold (spaces, apostrophes, accents) and still refuses every step out", async () => {
  const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-serve-names-"));
  const names = ["My Project/a b.jsonl", "a'b.jsonl", "ünï.jsonl", "50% off.jsonl", "x#y.jsonl"];
  for (const n of names) {
    fs.mkdirSync(path.dirname(path.join(dir, n)), { recursive: true });
    fs.writeFileSync(path.join(dir, n), SESSION);
  }
  fs.writeFileSync(path.join(path.dirname(dir), "outside.jsonl"), SESSION);
  const { child, origin, token } = await serve(dir);
  try {
    const get = (p) => fetch(origin + p, { headers: { "x-garuda-token": token } });
    const index = await (await get("/files/index.json")).json();
    assert.deepEqual(index.sessions.map((s) => decodeURIComponent(s.file)).sort(), [...names].sort());
    for (const s of index.sessions) {
      const r = await get(`/files/${s.file}`);
      assert.equal(r.status, 200, s.file);
      assert.match(await r.text(), /Fix the parser/, s.file);
    }
    for (const p of ["/files/..%2foutside.jsonl", "/files/%2e%2e/outside.jsonl", "/files/My%20Project/..%2f..%2foutside.jsonl", "/files/a%00b.jsonl", "/files/My%20Project%5c..%5c..%5coutside.jsonl"]) {
      assert.notEqual((await get(p)).status, 200, p);
    }
  } finally {
    child.kill();
  }
});

test("serve: a line that is not UTF-8 keeps its bytes, and the rest is redacted and sent", async () => {
  const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-serve-utf8-"));
  const claude = (content, extra = {}) => line({ type: "user", uuid: `u${Math.random()}`, sessionId: "c1", timestamp: "2026-12-01T10:00:00.000Z", message: { role: "user", content }, ...extra });
  const bad = Buffer.concat([Buffer.from(claude("No files ").slice(0, -4)), Buffer.from([0xe9]), Buffer.from('found"}}\n')]);
  const secret = "sk-ant-api03-" + "Q7vXk2".repeat(15) + "AA";
  fs.writeFileSync(path.join(dir, "c1.jsonl"), Buffer.concat([Buffer.from(claude("first prompt")), bad, Buffer.from(claude(`the key is ${secret}`))]));
  const { child, origin, token } = await serve(dir);
  try {
    const r = await fetch(`${origin}/files/c1.jsonl`, { headers: { "x-garuda-token": token } });
    assert.equal(r.status, 200);
    const body = Buffer.from(await r.arrayBuffer());
    assert.ok(body.includes(Buffer.from([0x20, 0xe9, 0x66])), "the invalid byte is sent as it was");
    assert.match(body.toString("latin1"), /first prompt/);
    assert.ok(!body.includes(secret), "the line after it is redacted");
    assert.match(body.toString("latin1"), /the key is \[REDACTED/);
  } finally {
    child.kill();
  }
});

test("serve refuses another origin's page even with the token, and says when its port is taken", async () => {
  const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-serve-origin-"));
  fs.writeFileSync(path.join(dir, "s1.jsonl"), SESSION);
  const { child, origin, token } = await serve(dir);
  try {
    const get = (headers) => fetch(`${origin}/files/s1.jsonl`, { headers: { "x-garuda-token": token, ...headers } });
    assert.equal((await get({})).status, 200);
    assert.equal((await get({ origin, "sec-fetch-site": "same-origin" })).status, 200, "its own page");
    assert.equal((await get({ "sec-fetch-site": "none" })).status, 200, "a URL typed in");
    for (const headers of [{ origin: "http://evil.example" }, { origin: "null" }, { origin: "http://127.0.0.1:1" }, { "sec-fetch-site": "cross-site" }, { "sec-fetch-site": "same-site" }]) {
      assert.equal((await get(headers)).status, 403, JSON.stringify(headers));
    }
    // The same port again: a line and exit 2, no stack trace.
    const port = new URL(origin).port;
    const again = spawnSync(process.execPath, [bin, "serve", dir, "--port", port], { encoding: "utf8", timeout: 20000 });
    assert.equal(again.status, 2);
    assert.match(again.stderr, new RegExp(`port ${port} on 127.0.0.1 is in use`));
    assert.doesNotMatch(again.stderr, /node:events|at /);
  } finally {
    child.kill();
  }
});
