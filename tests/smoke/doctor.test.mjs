// `garuda-session doctor` and the package's diagnose/repair, on the doctor's
// fixtures (tests/doctor/): exit codes, the written copy equal to the
// expected repaired file, --in-place's backup, atomic replace and refusal
// while the agent still writes, --redact, and bad arguments as coded errors.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, copyFileSync, writeFileSync, utimesSync, existsSync, readdirSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "pkg/bin/garuda-session.cjs");
const fixture = (name) => path.join(root, "tests/doctor", name);
const session = createRequire(import.meta.url)(path.join(root, "pkg/node/garuda_session.js"));
const FIXTURES = ["empty-thinking", "model-switch", "orphan-crash", "orphan-tail", "orphan-compaction", "broken-chain"];

function cli(...args) {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
const tmp = () => mkdtempSync(path.join(tmpdir(), "garuda-doctor-"));
/** A copy of a fixture that the agent last wrote a minute ago. */
function quietCopy(name, dir) {
  const f = path.join(dir, `${name}.jsonl`);
  copyFileSync(fixture(`${name}.jsonl`), f);
  const then = new Date(Date.now() - 60_000);
  utimesSync(f, then, then);
  return f;
}

test("doctor names each problem's line and exits 1; the fixed copy is the expected file and exits 0", () => {
  const dir = tmp();
  for (const name of FIXTURES) {
    const r = cli("doctor", fixture(`${name}.jsonl`));
    assert.equal(r.code, 1, `${name}: ${r.out}${r.err}`);
    assert.match(r.out, /will not resume/);
    const report = JSON.parse(readFileSync(fixture(`${name}.report.json`), "utf8"));
    for (const p of report.problems) assert.ok(r.out.includes(`line ${p.line}: ${p.kind}`), `${name}: line ${p.line} ${p.kind}`);
    const out = path.join(dir, `${name}.fixed.jsonl`);
    const fixed = cli("doctor", fixture(`${name}.jsonl`), "--fix", "-o", out);
    assert.equal(fixed.code, 1, "the exit code says how the input was");
    assert.match(fixed.out, /: resumes\n/);
    assert.deepEqual(readFileSync(out), readFileSync(fixture(`${name}.fixed.jsonl`)), name);
    assert.equal(cli("doctor", out).code, 0, `${name}: the repaired copy resumes`);
    const json = JSON.parse(cli("doctor", fixture(`${name}.jsonl`), "--json").out);
    assert.deepEqual(json.problems, report.problems);
  }
});

test("a folder: every session is checked, and --fix -o mirrors it", () => {
  const dir = tmp();
  const src = path.join(dir, "in", "project");
  mkdirSync(src, { recursive: true });
  copyFileSync(fixture("orphan-tail.jsonl"), path.join(src, "a.jsonl"));
  copyFileSync(fixture("orphan-tail.fixed.jsonl"), path.join(src, "b.jsonl"));
  const r = cli("doctor", path.join(dir, "in"), "--json");
  assert.equal(r.code, 1);
  const reports = JSON.parse(r.out);
  assert.deepEqual(reports.map((x) => [path.basename(x.file), x.resumes]), [["a.jsonl", false], ["b.jsonl", true]]);
  assert.equal(cli("doctor", path.join(dir, "in"), "--fix", "-o", path.join(dir, "out")).code, 1);
  assert.deepEqual(readFileSync(path.join(dir, "out/project/a.jsonl")), readFileSync(fixture("orphan-tail.fixed.jsonl")));
  assert.deepEqual(readFileSync(path.join(dir, "out/project/b.jsonl")), readFileSync(fixture("orphan-tail.fixed.jsonl")), "a file that resumes is copied byte for byte");
});

test("--in-place keeps a backup and replaces the file whole; it refuses a file the agent wrote seconds ago", () => {
  const dir = tmp();
  const f = quietCopy("orphan-crash", dir);
  const r = cli("doctor", f, "--in-place");
  // The file now resumes, and the exit says so (it said 1 after "wrote …: resumes").
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /wrote .*: resumes/);
  assert.deepEqual(readFileSync(f), readFileSync(fixture("orphan-crash.fixed.jsonl")));
  assert.deepEqual(readFileSync(`${f}.bak`), readFileSync(fixture("orphan-crash.jsonl")), "the original is kept");
  assert.deepEqual(readdirSync(dir).sort(), ["orphan-crash.jsonl", "orphan-crash.jsonl.bak"], "no temporary file is left");
  assert.equal(cli("doctor", f, "--in-place").code, 0, "a repaired file needs nothing more");
  assert.ok(!existsSync(`${f}.bak.1`), "and is not backed up again");

  const live = path.join(dir, "live.jsonl");
  copyFileSync(fixture("orphan-crash.jsonl"), live); // written just now
  const refused = cli("doctor", live, "--in-place");
  assert.equal(refused.code, 2);
  assert.match(refused.err, /not replaced: modified \d+ s ago: the agent may still be writing it/);
  assert.deepEqual(readFileSync(live), readFileSync(fixture("orphan-crash.jsonl")), "the file is untouched");
  assert.ok(!existsSync(`${live}.bak`));
});

test("--redact writes a repaired copy with the secrets out", () => {
  const dir = tmp();
  const f = path.join(dir, "s.jsonl");
  const key = "sk-ant-api03-" + "Q7vXm2Pz9LkR4tWn8YbC".repeat(4) + "-AbCdEf";
  writeFileSync(f, readFileSync(fixture("orphan-tail.jsonl"), "utf8").replace('"List the files"', JSON.stringify(`List the files; my key is ${key}`)));
  const out = path.join(dir, "shared.jsonl");
  const r = cli("doctor", f, "--redact", "-o", out);
  assert.equal(r.code, 1, r.err);
  const text = readFileSync(out, "utf8");
  assert.ok(!text.includes(key), "the key is gone");
  assert.match(text, /"is_error":true/, "and the repair is there");
});

test("bad usage exits 2 and says what to do", () => {
  for (const args of [["doctor"], ["doctor", "/no/such/file.jsonl"], ["doctor", fixture("orphan-tail.jsonl"), "--fix"], ["doctor", fixture("orphan-tail.jsonl"), "-o", "/tmp/x"], ["doctor", fixture("orphan-tail.jsonl"), "--format", "nope"]]) {
    const r = cli(...args);
    assert.equal(r.code, 2, `${args.join(" ")}: ${r.out}`);
    assert.match(r.err, /garuda-session doctor: /);
  }
});

test("diagnose and repair for hosts: bytes or a string in, a report with lines and the repaired bytes out", () => {
  const bytes = readFileSync(fixture("orphan-compaction.jsonl"));
  const d = session.diagnose(bytes);
  assert.equal(d.format, "claude-code");
  assert.equal(d.resumes, false);
  assert.deepEqual(d.problems.map((p) => [p.line, p.kind]), [[5, "tool-result-orphan"]]);
  assert.deepEqual(session.diagnose(bytes.toString("utf8"), { format: "claude-code" }), d);
  const r = session.repair(new Uint8Array(bytes));
  assert.ok(r.bytes instanceof Uint8Array);
  assert.deepEqual(Buffer.from(r.bytes), readFileSync(fixture("orphan-compaction.fixed.jsonl")));
  assert.deepEqual(r.report.changes.map((c) => [c.line, c.kind]), [[5, "line-removed"], [5, "result-dropped"], [6, "reparented"]]);
  assert.equal(r.report.after.resumes, true);
  // A Garuda journal goes through resume's own repair: nothing to say here.
  const garuda = session.diagnose('{"type":"start","sessionId":"s","model":"m"}\n');
  assert.deepEqual([garuda.format, garuda.resumes, garuda.problems], ["garuda", true, []]);
  const pi = session.diagnose('{"type":"session","id":"s"}\n');
  assert.deepEqual([pi.format, pi.resumes], ["pi", true]);
  for (const [f, args] of [[session.diagnose, [42]], [session.repair, [bytes, { format: "nope" }]], [session.diagnose, [bytes, "claude-code"]]]) {
    assert.throws(() => f(...args), (e) => e.code === "ERR_INVALID_ARG");
  }
});

test("Codex rollouts: a torn write stops the resume and --fix writes the expected copy; a pair problem Codex mends itself exits 0, and its file is left as it is", () => {
  const dir = tmp();
  const codex = (name) => path.join(root, "tests/doctor/codex", name);
  const torn = cli("doctor", codex("torn-utf8.jsonl"), "--fix", "-o", path.join(dir, "torn.jsonl"));
  assert.equal(torn.code, 1, torn.out + torn.err);
  assert.match(torn.out, /line 5: bad-line: the line is not UTF-8/);
  assert.deepEqual(readFileSync(path.join(dir, "torn.jsonl")), readFileSync(codex("torn-utf8.fixed.jsonl")));
  assert.equal(cli("doctor", path.join(dir, "torn.jsonl")).code, 0);
  const crash = cli("doctor", codex("orphan-crash.jsonl"), "--fix", "-o", path.join(dir, "crash.jsonl"));
  assert.equal(crash.code, 0, crash.out + crash.err);
  assert.match(crash.out, /line 5: tool-use-unanswered \(warning\)/);
  assert.deepEqual(readFileSync(path.join(dir, "crash.jsonl")), readFileSync(codex("orphan-crash.jsonl")));
  assert.equal(cli("doctor", codex("no-session-meta.jsonl")).code, 1);
});
