// The built package used exactly as a consumer would: installed under
// node_modules/@garuda/session, loaded with require and with import.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, mkdirSync, symlinkSync, writeFileSync, readFileSync } from "node:fs";
import { execFileSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const golden = path.join(root, "tests/golden/every-record-type.jsonl");

function consumer() {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-consumer-"));
  mkdirSync(path.join(dir, "node_modules/@garuda"), { recursive: true });
  symlinkSync(path.join(root, "pkg"), path.join(dir, "node_modules/@garuda/session"), "dir");
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true }));
  return dir;
}

// One script body for both module systems: it prints what the checks need.
const body = `
const journalText = fs.readFileSync(${JSON.stringify(golden)}, "utf8");
const state = s.rebuildState(journalText);
const journal = new s.Journal({ redactor: new s.Redactor({ env: {} }) });
for (const line of journalText.split("\\n").filter(Boolean)) journal.write(line);
let error = null;
try { s.rebuildState(42); } catch (e) { error = { isError: e instanceof Error, message: e.message }; }
console.log(JSON.stringify({
  exports: Object.keys(s).sort(),
  prompts: state.prompts,
  messages: state.messages.length,
  cost: s.formatCost(state),
  note: s.budgetNote(state),
  liveEqualsReplay: JSON.stringify(journal.state()) === JSON.stringify(state),
  id: s.newSessionId(new Date(Date.UTC(2026, 10, 30, 5, 25, 48))),
  valid: [s.validateSessionId("../x"), s.validateSessionId("20261130-052548-ab12")],
  row: s.summariseSession("s1", "2026-11-30T00:00:00.000Z", journalText),
  error,
}));
`;

function run(dir, file, source) {
  writeFileSync(path.join(dir, file), source);
  return JSON.parse(execFileSync(process.execPath, [file], { cwd: dir, encoding: "utf8" }));
}

function check(out) {
  for (const name of ["Journal", "Redactor", "rebuildState", "formatCost", "budgetNote", "summariseSession", "validateSessionId", "newSessionId", "resumeMessages", "repairForResume", "closeOpenToolCalls", "checkMessages"]) {
    assert.ok(out.exports.includes(name), `${name} is exported`);
  }
  assert.equal(out.prompts, 2);
  assert.equal(out.messages, 3);
  assert.equal(out.cost, "≥ $0.0311 (incomplete)");
  assert.equal(out.note, "budget 3,760 tokens: 2,560 reported + 1,200 unreported + 0 pending (subagents)");
  assert.equal(out.liveEqualsReplay, true);
  assert.match(out.id, /^20261130-052548-[a-z0-9]{4}$/);
  assert.deepEqual(out.valid, [false, true]);
  assert.equal(out.row.prompt, "fix the parser");
  assert.equal(out.row.model, "claude-opus-4-1");
  assert.equal(out.row.title, "Fix the parser");
  assert.deepEqual(out.error, { isError: true, message: "rebuildState(journal, options): journal must be a string, a Uint8Array or an array of lines, got number" });
}

test("require('@garuda/session') works in CommonJS", () => {
  const dir = consumer();
  check(run(dir, "main.cjs", `const fs = require("fs"); const s = require("@garuda/session");\n${body}`));
});

test("import from '@garuda/session' works in ESM", () => {
  const dir = consumer();
  check(run(dir, "main.mjs", `import fs from "fs"; import * as s from "@garuda/session";\n${body}`));
});

test("the package.json exports map has node, browser and types conditions", () => {
  const pkg = JSON.parse(readFileSync(path.join(root, "pkg/package.json"), "utf8"));
  const entry = pkg.exports["."];
  assert.equal(entry.node.import.types, "./index.d.ts");
  assert.equal(entry.node.require.types, "./index.d.cts", "CommonJS consumers get CommonJS declarations");
  assert.ok(entry.node.import.default && entry.node.require.default && entry.browser.default);
});

test("a TypeScript consumer type-checks with --strict against index.d.ts", () => {
  const dir = consumer();
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type: "module" }));
  writeFileSync(path.join(dir, "use.ts"), readFileSync(path.join(root, "tests/smoke/consumer.ts")));
  const tsconfig = {
    compilerOptions: { strict: true, noEmit: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", lib: ["es2022", "dom"], types: [] },
    files: ["use.ts"],
  };
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig));
  const tsc = path.join(root, ".ci/node_modules/.bin/tsc");
  execFileSync(tsc, ["-p", "."], { cwd: dir, encoding: "utf8" });
});
