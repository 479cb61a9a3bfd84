// Compiles tests/acceptance/*.ts with tsc --strict against the built package
// and runs them: Garuda's own session tests, ported (issue 9).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, symlinkSync, writeFileSync, readdirSync, copyFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");

test("the ported session tests type-check with tsc --strict and pass", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-acceptance-"));
  mkdirSync(path.join(dir, "node_modules/@garuda"), { recursive: true });
  symlinkSync(path.join(root, "pkg"), path.join(dir, "node_modules/@garuda/session"));
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "acceptance", private: true, type: "module" }));
  // The sources beside the package they import, as in a consumer's project.
  const sources = readdirSync(path.join(root, "tests/acceptance")).filter((f) => f.endsWith(".ts"));
  for (const f of sources) copyFileSync(path.join(root, "tests/acceptance", f), path.join(dir, f));
  const tsconfig = {
    compilerOptions: { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", lib: ["es2022", "dom"], types: [], outDir: "out", skipLibCheck: false },
    files: [...sources],
  };
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig));
  // Type declarations for node:test and friends come from no @types package here: a minimal ambient module.
  writeFileSync(path.join(dir, "node.d.ts"), NODE_TYPES);
  tsconfig.files.push("node.d.ts");
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig));
  try {
    execFileSync(path.join(root, ".ci/node_modules/.bin/tsc"), ["-p", "."], { cwd: dir, encoding: "utf8" });
  } catch (e) {
    assert.fail(String(e.stdout));
  }
  const out = readdirSync(path.join(dir, "out"), { recursive: true }).filter((f) => String(f).endsWith(".test.js")).map((f) => path.join(dir, "out", String(f)));
  // A test run of its own: without NODE_TEST_CONTEXT, which would make it report to this one.
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  const run = spawnSync(process.execPath, ["--test", "--test-reporter=tap", ...out], { cwd: dir, encoding: "utf8", env });
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /# pass [1-9]/);
  assert.match(run.stdout, /# fail 0/);
});

const NODE_TYPES = `
declare module "node:test" { export function test(name: string, fn: () => unknown): void; }
declare module "node:assert/strict" {
  interface Assert { (value: unknown, message?: string): asserts value; ok(value: unknown, message?: string): asserts value; equal(a: unknown, b: unknown, message?: string): void; notEqual(a: unknown, b: unknown, message?: string): void; deepEqual(a: unknown, b: unknown, message?: string): void; }
  const assert: Assert; export default assert;
}
declare module "node:fs" { export function mkdtempSync(prefix: string): string; export function readFileSync(path: string, encoding: "utf8"): string; }
declare module "node:os" { export function tmpdir(): string; }
declare module "node:path" { const path: { join(...parts: string[]): string }; export default path; }
`;

test("Message is assignable to and from @anthropic-ai/sdk's MessageParam, and the declarations are generated from it", () => {
  const check = spawnSync(process.execPath, [path.join(root, ".ci/api-types.mjs"), "--check"], { encoding: "utf8" });
  assert.equal(check.status, 0, check.stderr);
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-sdk-types-"));
  mkdirSync(path.join(dir, "node_modules/@garuda"), { recursive: true });
  mkdirSync(path.join(dir, "node_modules/@anthropic-ai"), { recursive: true });
  symlinkSync(path.join(root, "pkg"), path.join(dir, "node_modules/@garuda/session"));
  symlinkSync(path.join(root, ".ci/node_modules/@anthropic-ai/sdk"), path.join(dir, "node_modules/@anthropic-ai/sdk"));
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "sdk-types", private: true, type: "module" }));
  copyFileSync(path.join(root, "tests/acceptance/sdk/message-param.ts"), path.join(dir, "message-param.ts"));
  const compilerOptions = { strict: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", lib: ["es2022", "dom"], types: [], noEmit: true };
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["message-param.ts"] }));
  const tsc = spawnSync(path.join(root, ".ci/node_modules/.bin/tsc"), ["-p", "."], { cwd: dir, encoding: "utf8" });
  assert.equal(tsc.status, 0, tsc.stdout);
});
