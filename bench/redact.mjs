// Redaction benchmark: the wasm Redactor against the plain-JS one
// (bench/plain-redact.mjs), in one run, on generated journals; the live
// write latency of Journal.write; and adversarial single lines.
//
//   node bench/redact.mjs      (after .ci/build)

import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { PlainRedactor } from "./plain-redact.mjs";
import { journalFile, timeMedian as timeIt, alternating, spread } from "./data.mjs";

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
// BENCH_PKG=/path/to/pkg measures another build (before/after in one sitting).
const session = require(process.env.BENCH_PKG ? path.resolve(process.env.BENCH_PKG) : path.join(here, "..", "pkg"));

const env = {
  PATH: "/usr/bin:/bin",
  GARUDA_API_KEY: "gk_live_7d41c0a9e2b84f6f9a3c",
  DATABASE_PASSWORD: "correct-horse-battery-staple-42",
  GITHUB_TOKEN: "not-in-these-journals-0123abcd",
};

function median(times) {
  const s = [...times].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}


const wasm = new session.Redactor({ env });
const plain = new PlainRedactor(env);

console.log("throughput: redaction of generated journals (the three alternating, median [min-max] ms of 5 runs; MB = 10^6 bytes)");
console.log("size   | wasm redactLine ms (MB/s)  | wasm redactJournal ms (MB/s) | plain-JS ms (MB/s)       | speed-up (per line, bulk; medians)");
for (const mb of (process.env.BENCH_SIZES ?? "10,100").split(",").map(Number)) {
  const text = readFileSync(journalFile(mb), "utf8");
  const bytes = Buffer.byteLength(text);
  const lines = text.split("\n").filter(Boolean);
  const perLine = () => {
    let changed = 0;
    for (const l of lines) changed += wasm.redactLine(l).changed ? 1 : 0;
    return changed;
  };
  const bulk = () => wasm.redactJournal(text);
  const baseline = () => {
    let changed = 0;
    for (const l of lines) changed += plain.redactLine(l).changed ? 1 : 0;
    return changed;
  };
  const t = alternating({ perLine, bulk, baseline }, 5);
  const [w, b, p] = [t.perLine, t.bulk, t.baseline];
  const rate = (ms) => (bytes / 1e6 / (ms / 1000)).toFixed(0).padStart(4);
  console.log(
    `${String(mb).padStart(3)} MB | ${spread(w).padStart(18)} (${rate(w.ms)}) | ${spread(b).padStart(20)} (${rate(b.ms)}) | ${spread(p).padStart(17)} (${rate(p.ms)}) | ${(p.ms / w.ms).toFixed(2)}x, ${(p.ms / b.ms).toFixed(2)}x`,
  );
  console.log(`       lines changed: wasm ${w.result} of ${lines.length}, plain-JS ${p.result}`);
  const leaks = ["sk-ant-api03-", "ghp_"].filter((s) => b.result.text.includes(s));
  if (leaks.length) throw new Error(`secrets survived the wasm Redactor: ${leaks}`);
}

// Live write: Journal.write of a typical 1 KB record, redaction and apply.
const record = {
  t: "2026-11-29T10:00:00.000Z",
  type: "assistant",
  step: 3,
  response: {
    id: "msg_01",
    content: [
      { type: "text", text: "I will read the parser and fix the off-by-one in the token budget check. ".repeat(6) },
      { type: "tool_use", id: "toolu_01", name: "read_file", input: { path: "src/session/parser.ts" } },
    ],
    usage: { inputTokens: 1200, outputTokens: 300, cacheReadTokens: 40000, cacheWriteTokens: 0 },
  },
  costUsd: 0.0123,
};
const size = JSON.stringify(record).length;
const journal = new session.Journal({ redactor: wasm });
const times = [];
for (let i = 0; i < 20000; i++) {
  const t0 = process.hrtime.bigint();
  journal.write(record);
  times.push(Number(process.hrtime.bigint() - t0) / 1e3);
}
const textRecord = JSON.stringify(record);
const textTimes = [];
for (let i = 0; i < 20000; i++) {
  const t0 = process.hrtime.bigint();
  journal.write(textRecord);
  textTimes.push(Number(process.hrtime.bigint() - t0) / 1e3);
}
const plainTimes = [];
for (let i = 0; i < 20000; i++) {
  const t0 = process.hrtime.bigint();
  plain.redactLine(JSON.stringify(record));
  plainTimes.push(Number(process.hrtime.bigint() - t0) / 1e3);
}
console.log(
  `\nlive write of a ${size}-byte record (median of 20,000): Journal.write(object) ${median(times).toFixed(2)} µs, ` +
    `Journal.write(string) ${median(textTimes).toFixed(2)} µs; plain-JS redactLine alone ${median(plainTimes).toFixed(2)} µs`,
);
journal.free();

// Worst cases: one long line of adversarial text, at 1 MB and 10 MB (linear
// means the 10 MB time is about ten times the 1 MB time).
console.log("\nworst case: one line of adversarial text through redact()");
const units = {
  "password= repeated": "password=",
  "sk- repeated": "sk-",
  "eyJ repeated": "eyJ",
  "ghp_ repeated": "ghp_",
  "BEGIN without END": "-----BEGIN PRIVATE KEY-----\n",
  // Issue 22's data contexts and commands: each looks along its line.
  "DB_PASSWORD= repeated": "DB_PASSWORD=",
  "' password: ' (YAML)": " password: ",
  "Cookie: repeated": "Cookie: ",
  "curl -u a: repeated": "curl -u a:",
  ".netrc password": "login u password ",
  ":5432: (.pgpass)": "a:5432:",
  "SG. / MTA tokens": "SG.MTA",
  // Structures: XML elements, escaped JSON, YAML keys, name/value pairs.
  "<password> repeated": "<password>",
  '\\"password\\": repeated': '\\"password\\": ',
  "password: repeated": "password:",
  "name: DB_PASSWORD, repeated": "name: DB_PASSWORD, ",
  "docker login -p repeated": "docker login -p ",
  // A query string's closing quote looks back along its line; so does ::add-mask::.
  '"a&password=" + repeated': '"a&password=" + ',
  "::add-mask:: repeated": "::add-mask::",
  // A sentence's verb after a name; a password's name in another script,
  // whose text has no blank to end a value (each hit looks along its line).
  "password is repeated": "password is ",
  "パスワード： repeated": "パスワード：",
  "one base64 run": null,
};
for (const [name, unit] of Object.entries(units)) {
  const make = (n) => {
    if (unit) return unit.repeat(Math.ceil(n / unit.length)).slice(0, n);
    let s = "";
    const b64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    for (let i = 0; i < n; i++) s += b64[(i * 7919) % 64];
    return s;
  };
  const small = make(1e6);
  const big = make(1e7);
  const t1 = timeIt(() => wasm.redact(small), 3).ms;
  const t10 = timeIt(() => wasm.redact(big), 3).ms;
  console.log(`  ${name.padEnd(20)} 1 MB ${t1.toFixed(1).padStart(7)} ms, 10 MB ${t10.toFixed(1).padStart(7)} ms (x${(t10 / t1).toFixed(1)})`);
}

// Custom rules: 20 gitleaks-style token formats (each with a literal
// prefix, as real ones have), then the same throughput and worst cases.
const customRules = [
  ["gitlab-pat", "glpat-[0-9a-zA-Z_-]{20}"],
  ["npm", "npm_[a-zA-Z0-9]{36}"],
  ["pypi", "pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,}"],
  ["stripe", "sk_live_[0-9a-zA-Z]{24,99}"],
  ["sendgrid", "SG\\.[a-zA-Z0-9_-]{22}\\.[a-zA-Z0-9_-]{43}"],
  ["rubygems", "rubygems_[a-f0-9]{48}"],
  ["planetscale", "pscale_tkn_[a-zA-Z0-9_=.-]{32,64}"],
  ["shopify", "shpat_[a-fA-F0-9]{32}"],
  ["doppler", "dp\\.pt\\.[a-zA-Z0-9]{43}"],
  ["digitalocean", "dop_v1_[a-f0-9]{64}"],
  ["linear", "lin_api_[a-zA-Z0-9]{40}"],
  ["huggingface", "hf_[a-zA-Z]{34}"],
  ["databricks", "dapi[a-h0-9]{32}"],
  ["postman", "PMAK-[a-fA-F0-9]{24}-[a-fA-F0-9]{34}"],
  ["pulumi", "pul-[a-f0-9]{40}"],
  ["grafana", "glsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}"],
  ["age", "AGE-SECRET-KEY-1[QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L]{58}"],
  ["acme-internal", "(?i)acme_[a-z0-9]{32}"],
  ["ticket-token", "tkt-live-[0-9]{12}"],
  ["greedy", "zzq_.*Q"],
].map(([name, pattern]) => ({ name, pattern }));
const withRules = new session.Redactor({ env, rules: customRules });
console.log(`\nwith ${customRules.length} custom rules, each with a literal prefix (as gitleaks' rules mostly have)`);
for (const mb of (process.env.BENCH_SIZES ?? "10,100").split(",").map(Number)) {
  const text = readFileSync(journalFile(mb), "utf8");
  const bytes = Buffer.byteLength(text);
  const runs = mb >= 100 ? 3 : 5;
  const none = timeIt(() => wasm.redactJournal(text), runs).ms;
  const some = timeIt(() => withRules.redactJournal(text), runs).ms;
  const rate = (ms) => (bytes / 1e6 / (ms / 1000)).toFixed(0);
  console.log(`  ${String(mb).padStart(3)} MB redactJournal: no custom rules ${none.toFixed(0)} ms (${rate(none)} MB/s), 20 rules ${some.toFixed(0)} ms (${rate(some)} MB/s)`);
}
// A rule without a literal of 3 bytes or more searches every string.
const unprefixed = [{ name: "twilio", pattern: "SK[0-9a-fA-F]{32}" }];
{
  const text = readFileSync(journalFile(10), "utf8");
  const ms = timeIt(() => new session.Redactor({ env, rules: unprefixed }).redactJournal(text), 3).ms;
  console.log(`  one rule without a literal prefix (twilio, SK[0-9a-fA-F]{32}): 10 MB in ${ms.toFixed(0)} ms (${(Buffer.byteLength(text) / 1e6 / (ms / 1000)).toFixed(0)} MB/s)`);
}
const withPrefixed = withRules;
const live = new session.Journal({ redactor: withPrefixed });
const ruleTimes = [];
for (let i = 0; i < 20000; i++) {
  const t0 = process.hrtime.bigint();
  live.write(textRecord);
  ruleTimes.push(Number(process.hrtime.bigint() - t0) / 1e3);
}
live.free();
console.log(`  live Journal.write(string) of the ${size}-byte record with the 20 rules: ${median(ruleTimes).toFixed(2)} µs (median of 20,000)`);
console.log("  worst case with 20 rules: one line of one rule's literal, over and over (the rule never matches)");
for (const [name, unit] of [["glpat- repeated", "glpat-"], ["zzq_ (greedy .*Q) repeated", "zzq_"], ["acme_ repeated", "ACME_"]]) {
  const small = unit.repeat(Math.ceil(1e6 / unit.length)).slice(0, 1e6);
  const big = unit.repeat(Math.ceil(1e7 / unit.length)).slice(0, 1e7);
  const t1 = timeIt(() => withRules.redact(small), 3).ms;
  const t10 = timeIt(() => withRules.redact(big), 3).ms;
  console.log(`  ${name.padEnd(28)} 1 MB ${t1.toFixed(1).padStart(7)} ms, 10 MB ${t10.toFixed(1).padStart(7)} ms (x${(t10 / t1).toFixed(1)})`);
}
