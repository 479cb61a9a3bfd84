// Node programs that bundle the package (esbuild --platform=node, ESM and
// CommonJS), run from another folder with no node_modules anywhere above it:
// the embedded entry carries the wasm; init(bytes) takes the program's own
// copy; without either, the first call says what to do (a stable code), where
// it used to die at load looking for ../web/garuda_session_bg.wasm.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, symlinkSync, copyFileSync, existsSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const esbuild = createRequire(path.join(root, ".ci/package.json"))("esbuild");
const apps = path.join(root, "tests/consumers/apps");
const golden = path.join(root, "tests/golden/every-record-type.jsonl");
const expected = { prompts: 2, cost: "≥ $0.0311 (incomplete)", redacted: true, reread: 1 };

/** A project with the package installed (a link to pkg/) and the app in it. */
function project(app) {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-bundle-src-"));
  mkdirSync(path.join(dir, "node_modules/@garuda"), { recursive: true });
  symlinkSync(path.join(root, "pkg"), path.join(dir, "node_modules/@garuda/session"), "dir");
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "app", private: true }));
  copyFileSync(path.join(apps, app), path.join(dir, app));
  return dir;
}

/** Bundles `app`, moves the bundle alone to a fresh folder, and runs it there. */
function bundleAndRun(app, format, args = [golden]) {
  const src = project(app);
  const ext = format === "esm" ? "mjs" : "cjs";
  esbuild.buildSync({ entryPoints: [path.join(src, app)], bundle: true, platform: "node", format, outfile: path.join(src, `dist/app.${ext}`), logLevel: "silent" });
  const away = mkdtempSync(path.join(tmpdir(), "garuda-bundle-run-"));
  for (let d = away; d !== path.dirname(d); d = path.dirname(d)) assert.ok(!existsSync(path.join(d, "node_modules")), `no node_modules in ${d}`);
  copyFileSync(path.join(src, `dist/app.${ext}`), path.join(away, `app.${ext}`));
  return JSON.parse(execFileSync(process.execPath, [`app.${ext}`, ...args], { cwd: away, encoding: "utf8" }));
}

test("esbuild --platform=node --format=esm: the embedded entry and the file store work from another folder", () => {
  assert.deepEqual(bundleAndRun("node-app.mjs", "esm"), expected);
});

test("esbuild --platform=node --format=cjs: the same program with require", () => {
  assert.deepEqual(bundleAndRun("node-app.cjs", "cjs"), expected);
});

test("a bundle without the embedded entry: init(bytes) loads the program's own copy", () => {
  const out = bundleAndRun("node-init.mjs", "esm", [golden, path.join(root, "pkg/web/garuda_session_bg.wasm")]);
  assert.deepEqual(out, { prompts: 2, cost: "≥ $0.0311 (incomplete)" });
});

test("a bundle with no wasm at all: the first call throws ERR_GARUDA_WASM_MISSING naming both fixes", () => {
  const out = bundleAndRun("node-init.mjs", "esm");
  assert.equal(out.code, "ERR_GARUDA_WASM_MISSING");
  assert.match(out.message, /@garuda\/session\/embedded/);
  assert.match(out.message, /init\(bytes \| URL \| WebAssembly\.Module\)/);
});

test("esbuild ESM bundle of the session layer (./agent): every builtin it requires is reached without require", () => {
  // A new `require("node:…")` at the top of a module under node/ without the
  // process.getBuiltinModule fallback fails here with "Dynamic require".
  assert.deepEqual(bundleAndRun("agent-app.mjs", "esm", []), { messages: 1 });
});
