// The doctor's CLI and host functions on pi and Gemini CLI sessions, and
// the streamed diagnosis: `doctor --fix -o` writes the expected repaired
// file in the agent's own format, `--in-place` keeps a backup and refuses a
// file written seconds ago, `--redact` takes a secret out and still
// repairs; `new Diagnoser().feed(...).finish()` in any chunks is what
// `diagnose` says of the whole file, on every fixture of every agent.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, copyFileSync, writeFileSync, utimesSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "pkg/bin/garuda-session.cjs");
const dir = path.join(root, "tests/doctor");
const session = createRequire(import.meta.url)(path.join(root, "pkg/node/garuda_session.js"));
const cli = (...args) => {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
};
const tmp = () => mkdtempSync(path.join(tmpdir(), "garuda-doctor-formats-"));
const BROKEN = [
  ["pi", "orphan-compaction.jsonl", "pi"],
  ["pi", "thinking-changed.jsonl", "pi"],
  ["pi", "broken-chain.jsonl", "pi"],
  ["gemini", "orphan-crash.json", "gemini"],
  ["gemini", "modern-pairs.jsonl", "gemini"],
];
const fixedName = (name) => name.replace(/\.(jsonl?|json)$/, ".fixed.$1");

test("doctor --fix -o writes a pi or Gemini CLI session repaired in its own format", () => {
  const out = tmp();
  for (const [agent, name, format] of BROKEN) {
    const input = path.join(dir, agent, name);
    const r = cli("doctor", input);
    assert.equal(r.code, 1, `${name}: ${r.out}${r.err}`);
    const report = JSON.parse(readFileSync(path.join(dir, agent, name.replace(/\.(jsonl?|json)$/, ".report.json")), "utf8"));
    for (const p of report.problems) assert.ok(r.out.includes(`line ${p.line}: ${p.kind}`), `${name}: line ${p.line}`);
    const target = path.join(out, name);
    const fixed = cli("doctor", input, "--fix", "-o", target);
    assert.equal(fixed.code, 1, fixed.err);
    for (const c of report.changes) assert.ok(fixed.out.includes(`fix line ${c.line}: ${c.kind}`), `${name}: change on line ${c.line}`);
    assert.deepEqual(readFileSync(target), readFileSync(path.join(dir, agent, fixedName(name))), name);
    assert.equal(JSON.parse(cli("doctor", target, "--json").out).format, format);
    assert.equal(cli("doctor", target).code, 0, `${name}: the copy resumes`);
  }
});

test("--in-place on a pi session: a backup, the file replaced; a file the agent just wrote is refused", () => {
  const d = tmp();
  const f = path.join(d, "s.jsonl");
  copyFileSync(path.join(dir, "pi/orphan-aborted.jsonl"), f);
  const live = cli("doctor", f, "--in-place");
  assert.equal(live.code, 2);
  assert.match(live.err, /not replaced: modified \d+ s ago/);
  assert.deepEqual(readFileSync(f), readFileSync(path.join(dir, "pi/orphan-aborted.jsonl")));
  const then = new Date(Date.now() - 60_000);
  utimesSync(f, then, then);
  assert.equal(cli("doctor", f, "--in-place").code, 0, "the replaced file resumes");
  assert.deepEqual(readFileSync(f), readFileSync(path.join(dir, "pi/orphan-aborted.fixed.jsonl")));
  assert.deepEqual(readFileSync(`${f}.bak`), readFileSync(path.join(dir, "pi/orphan-aborted.jsonl")));
  assert.deepEqual(readdirSync(d).sort(), ["s.jsonl", "s.jsonl.bak"]);
});

test("--redact on a Gemini CLI document: the key is gone, the result is added, the document still parses", () => {
  const d = tmp();
  const f = path.join(d, "session.json");
  const key = "sk-ant-api03-" + "Q7vXm2Pz9LkR4tWn8YbC".repeat(4) + "-AbCdEf";
  writeFileSync(f, readFileSync(path.join(dir, "gemini/orphan-crash.json"), "utf8").replace("list the files and read the README", `read the README; my key is ${key}`));
  const out = path.join(d, "shared.json");
  const r = cli("doctor", f, "--redact", "-o", out);
  assert.equal(r.code, 1, r.err);
  const text = readFileSync(out, "utf8");
  assert.ok(!text.includes(key), "the key is gone");
  const doc = JSON.parse(text);
  assert.ok(doc.messages.some((m) => (m.toolCalls ?? []).some((c) => c.result?.[0]?.functionResponse?.response?.error)), "the repair is there");
});

test("a Diagnoser fed in any chunks says what diagnose says of the whole file, for every agent's fixtures", () => {
  const files = [];
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.jsonl?$/.test(e.name) && !e.name.endsWith(".report.json")) files.push(p);
    }
  };
  walk(dir);
  assert.ok(files.length > 20);
  const d = new session.Diagnoser();
  for (const f of files) {
    const bytes = readFileSync(f);
    const whole = session.diagnose(bytes);
    for (const size of [1, 5, 4096]) {
      for (let at = 0; at < bytes.length; at += size) d.feed(bytes.subarray(at, at + size));
      assert.deepEqual(d.finish(), whole, `${path.relative(dir, f)} in chunks of ${size}`);
    }
  }
  d.free();
  assert.throws(() => new session.Diagnoser({ format: "nope" }), (e) => e.code === "ERR_INVALID_ARG" && /new Diagnoser\(options\)/.test(e.message));
});
