// `garuda-session redact` (issue 22): a byte it does not redact comes out
// as it went in (invalid UTF-8 and binary included), the count of changed
// lines is the count of lines whose bytes changed, and --in-place takes the
// session's lock (or refuses with ERR_SESSION_LOCKED) and replaces the file
// by a rename.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "pkg/bin/garuda-session.cjs");
const require = createRequire(import.meta.url);

function cli(...args) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
const tmp = () => fs.mkdtempSync(path.join(tmpdir(), "garuda-redact-"));

/** Lines as bytes; the oracle is a plain comparison of the byte lines before and after. */
const splitLines = (buf) => {
  const out = [];
  let at = 0;
  while (at < buf.length) {
    const nl = buf.indexOf(0x0a, at);
    const end = nl < 0 ? buf.length : nl + 1;
    out.push(buf.subarray(at, end));
    at = end;
  }
  return out;
};

const SECRET = "ghp_" + "wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx";

test("redact --in-place changes only the bytes it redacts, counts them truthfully, and renames", () => {
  const dir = tmp();
  const file = path.join(dir, "s1.jsonl");
  const lines = [
    Buffer.from("\ufeff" + '{"type":"start","sessionId":"s1","model":"m"}\n'),
    Buffer.from(`{"type":"user","message":{"role":"user","content":"token ${SECRET} é ✓"}}\n`),
    Buffer.concat([Buffer.from("raw \xff\xfe bytes ", "latin1"), Buffer.from([0xe2, 0x82]), Buffer.from(` then ${SECRET} and \xc0\xaf\n`, "latin1")]),
    Buffer.from([0x00, 0x01, 0xff, 0x80, 0x0d, 0x0a]),
    Buffer.from('{"type":"title","title":"café\\u00e9"}\r\n'),
    Buffer.from("DB_PASSWORD=SuperSecretPassword\n"),
    Buffer.concat([Buffer.from([0xf0, 0x9f, 0x98]), Buffer.from(" a torn emoji, nothing secret")]),
  ];
  const before = Buffer.concat(lines);
  fs.writeFileSync(file, before);
  const inode = fs.statSync(file).ino;
  const r = cli("redact", file, "--in-place");
  assert.equal(r.code, 0, r.err);
  const after = fs.readFileSync(file);
  const a = splitLines(before);
  const b = splitLines(after);
  assert.equal(b.length, a.length);
  const changed = a.map((line, i) => !line.equals(b[i]));
  assert.deepEqual(changed, [false, true, true, false, false, true, false], "only the lines with secrets changed");
  assert.match(r.err, / 3 of 7 lines changed;/, "the count is the lines whose bytes changed");
  assert.ok(!after.includes(SECRET) && !after.includes("SuperSecretPassword"));
  // The invalid bytes of the redacted line are still there, as they were.
  for (const bytes of [[0xff, 0xfe], [0xe2, 0x82], [0xc0, 0xaf]]) assert.ok(b[2].includes(Buffer.from(bytes)), `kept ${bytes}`);
  assert.ok(b[2].toString("latin1").startsWith("raw \xff\xfe bytes "));
  assert.notEqual(fs.statSync(file).ino, inode, "replaced by a rename, not rewritten");
  assert.deepEqual(fs.readdirSync(dir).sort(), ["s1.jsonl"], "no temp file and no lock left");
  // A second run has nothing to do.
  assert.match(cli("redact", file, "--in-place").err, / 0 of 7 lines changed;/);
  assert.ok(fs.readFileSync(file).equals(after));
});

test("a binary file goes through byte for byte with 0 lines changed", () => {
  const dir = tmp();
  const file = path.join(dir, "blob.jsonl");
  // Seeded bytes, not crypto.randomBytes: random bytes spell a secret's
  // shape about once in a thousand runs, and a test must not fail by chance.
  const bytes = Buffer.alloc(200_000);
  let x = 0x9e3779b9;
  for (let i = 0; i < bytes.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  fs.writeFileSync(file, bytes);
  const r = cli("redact", file, "-o", path.join(dir, "out.jsonl"));
  assert.equal(r.code, 0, r.err);
  const out = fs.readFileSync(path.join(dir, "out.jsonl"));
  assert.match(r.err, / 0 of [\d,]+ lines changed;/);
  assert.ok(out.equals(bytes), "every byte as it was");
});

test("redact --in-place refuses a session open for writing with ERR_SESSION_LOCKED, and takes a dead writer's lock", () => {
  const dir = tmp();
  const { FileSessionStore } = require(path.join(root, "pkg/node/store.js"));
  const store = new FileSessionStore(dir);
  const j = store.open("live");
  j.write({ type: "start", sessionId: "live", model: "m" });
  const file = path.join(dir, "live.jsonl");
  fs.appendFileSync(file, `{"type":"user","message":{"role":"user","content":"${SECRET}"}}\n`);
  const before = fs.readFileSync(file);
  const r = cli("redact", file, "--in-place");
  assert.equal(r.code, 2);
  assert.match(r.err, /ERR_SESSION_LOCKED/);
  assert.ok(fs.readFileSync(file).equals(before), "the file is untouched");
  j.close();
  // A lock whose writer is gone is taken over, and released after.
  fs.writeFileSync(path.join(dir, "live.lock"), JSON.stringify({ pid: 2 ** 22 + 12345, start: null }));
  const ok = cli("redact", file, "--in-place");
  assert.equal(ok.code, 0, ok.err);
  assert.match(ok.err, new RegExp(`taken over from process ${2 ** 22 + 12345}, which ended without releasing it`));
  assert.ok(!fs.readFileSync(file).includes(SECRET));
  assert.ok(!fs.existsSync(path.join(dir, "live.lock")));
});
