// A kill -9 soak of the file store: 200 writers killed with SIGKILL at random
// points while they write records of mixed sizes (1 byte to 5 MB). After
// each kill: every record the writer had acknowledged is on disk and whole,
// every complete line is a record, and the next open appends a whole record.
// Each record says its own sequence number and length, so a line cut short
// or glued to another is seen.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { spawn } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);
const storeModule = path.join(root, "pkg/node/store.js");
const { FileSessionStore } = require(storeModule);

const KILLS = 200;
const KILLS_PER_SESSION = 5; // a fresh session now and then keeps files (and the test) small

/** A deterministic generator, so a failure can be replayed. */
function rng(seed) {
  let x = seed >>> 0 || 1;
  return () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), (x >>> 0) / 2 ** 32);
}

// The writer: records of log-uniform sizes from 1 byte to 5 MB, each
// acknowledged on stdout (a pipe: synchronous in Node on Linux) after its
// write returned.
const writer = (dir, id, seed, start) => `
  const { FileSessionStore } = require(${JSON.stringify(storeModule)});
  let x = ${seed} >>> 0 || 1;
  const next = () => ((x ^= x << 13), (x ^= x >>> 17), (x ^= x << 5), (x >>> 0) / 2 ** 32);
  const j = new FileSessionStore(${JSON.stringify(dir)}).open(${JSON.stringify(id)});
  process.stdout.write("open\\n");
  for (let seq = ${start}; ; seq++) {
    const len = Math.floor(Math.exp(next() * Math.log(5e6)));
    j.write({ type: "user", message: { role: "user", content: "seq=" + seq + " len=" + len + " " + "x".repeat(len) } });
    process.stdout.write("ack " + seq + "\\n");
  }`;

function runAndKill(dir, id, seed, start, delayMs) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["-e", writer(dir, id, seed, start)], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    let timer;
    child.stdout.on("data", (d) => {
      out += d;
      if (timer === undefined && out.includes("open\n")) timer = setTimeout(() => child.kill("SIGKILL"), delayMs);
    });
    child.stderr.on("data", (d) => (err += d));
    child.on("error", reject);
    child.on("exit", (code, signal) => {
      clearTimeout(timer);
      if (signal !== "SIGKILL") return reject(new Error(`the writer ended by itself (${code}): ${err}`));
      const acks = [...out.matchAll(/ack (\d+)\n/g)].map((m) => Number(m[1]));
      resolve(acks);
    });
  });
}

/** The records of a session file: the sequence numbers of whole lines, and how many lines are not records. */
function audit(file) {
  const text = fs.readFileSync(file, "utf8");
  const lines = text.split("\n");
  const tail = lines.pop(); // "" when the file ends with a newline
  const seqs = [];
  let bad = 0;
  for (const line of lines) {
    let r;
    try {
      r = JSON.parse(line);
    } catch {
      bad++; // a torn line from an earlier kill, ended by the next open
      continue;
    }
    const m = /^seq=(\d+) len=(\d+) (x*)$/.exec(r.message.content);
    if (!m) continue; // the record the test writes after each kill
    assert.equal(m[3].length, Number(m[2]), `record ${m[1]} is whole`);
    seqs.push(Number(m[1]));
  }
  let tailIsRecord = false;
  try {
    tailIsRecord = tail !== "" && typeof JSON.parse(tail) === "object";
  } catch {}
  return { seqs, bad, tornTail: tail !== "", tailIsRecord };
}

test(`kill -9 soak: ${KILLS} writers killed at random points; every acknowledged record survives whole`, { timeout: 20 * 60_000 }, async () => {
  const dir = path.join(fs.mkdtempSync(path.join(tmpdir(), "garuda-soak-")), "sessions");
  const random = rng(20261130);
  let torn = 0;
  let acknowledged = 0;
  let bytes = 0;
  let seq = 0;
  let before = { seqs: [], bad: 0 }; // the audit after the last open, for this session
  for (let kill = 0; kill < KILLS; kill++) {
    const id = `soak-${Math.floor(kill / KILLS_PER_SESSION)}`;
    const file = path.join(dir, `${id}.jsonl`);
    if (kill % KILLS_PER_SESSION === 0) before = { seqs: [], bad: 0 };
    const acks = await runAndKill(dir, id, Math.floor(random() * 2 ** 31), seq, Math.floor(random() * 120));
    const after = audit(file);
    for (const a of acks) assert.ok(after.seqs.includes(a), `kill ${kill}: acknowledged record ${a} is on disk`);
    assert.deepEqual(after.seqs.slice(0, before.seqs.length), before.seqs, `kill ${kill}: nothing written before was lost`);
    for (let i = 1; i < after.seqs.length; i++) assert.ok(after.seqs[i] > after.seqs[i - 1], `kill ${kill}: in order`);
    assert.equal(after.bad, before.bad, `kill ${kill}: no complete line is broken`);
    torn += after.tornTail ? 1 : 0;
    acknowledged += acks.length;
    bytes += fs.statSync(file).size;
    seq = Math.max(seq, ...after.seqs, ...acks) + 1;
    // The next open ends a torn line and appends a whole record after it.
    const store = new FileSessionStore(dir);
    const j = store.open(id);
    j.write({ type: "user", message: { role: "user", content: `after kill ${kill}` } });
    j.close();
    const next = audit(file);
    assert.equal(next.tornTail, false, `kill ${kill}: the file ends with a whole line`);
    assert.equal(next.bad, after.bad + (after.tornTail && !after.tailIsRecord ? 1 : 0), `kill ${kill}: at most the torn line is reported`);
    const state = store.replay(id);
    assert.equal(state.warnings.length, next.bad);
    assert.equal(state.messages.at(-1).content, `after kill ${kill}`);
    before = next;
    if (kill % KILLS_PER_SESSION === KILLS_PER_SESSION - 1) await store.remove(id);
  }
  console.log(`soak: ${KILLS} kills, ${acknowledged} acknowledged records all on disk, ${torn} kills left a torn last line, ${(bytes / 1e6).toFixed(0)} MB audited`);
});
