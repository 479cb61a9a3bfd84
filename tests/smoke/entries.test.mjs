// Every entry of the exports map against the module it stands for: the ESM
// entries over CommonJS export exactly the CommonJS module's keys (by name,
// no `export *`, which Bun's bundler breaks), the web entries exactly the
// glue's, ./wasm is the wasm, and the Node glue works without global
// TextDecoder/TextEncoder (Jest's jsdom environment) and loads from what
// init() is given.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, mkdtempSync, mkdirSync, symlinkSync, writeFileSync, cpSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const pkg = path.join(root, "pkg");
const require = createRequire(path.join(pkg, "node/package.json"));
const manifest = JSON.parse(readFileSync(path.join(pkg, "package.json"), "utf8"));
const golden = path.join(root, "tests/golden/every-record-type.jsonl");
const sorted = (names) => [...names].sort();

test("each ESM entry over CommonJS exports exactly the CommonJS module's keys, by name", async () => {
  for (const [esm, cjs] of [["agent.mjs", "agent.js"], ["redis.mjs", "redis.js"], ["embedded.mjs", "embedded.js"], ["index.mjs", "garuda_session.js"], ["store.mjs", "store.js"]]) {
    const source = readFileSync(path.join(pkg, "node", esm), "utf8");
    assert.doesNotMatch(source, /export \*/, `${esm} has no export * over CommonJS`);
    const names = Object.keys(await import(pathToFileURL(path.join(pkg, "node", esm))));
    if (cjs) assert.deepEqual(sorted(names), sorted(Object.keys(require(`./${cjs}`))), esm);
  }
  const init = Object.keys(await import(pathToFileURL(path.join(pkg, "node/init.mjs"))));
  assert.deepEqual(sorted(init), sorted([...Object.keys(require("./garuda_session.js")), "default"]), "init.mjs");
});

test("the browser entries list exactly the glue's names", () => {
  const glue = sorted(Object.keys(require("./garuda_session.js")));
  for (const file of ["web/index.js", "web/init.js"]) {
    const list = readFileSync(path.join(pkg, file), "utf8").match(/export \{([^}]*)\} from "\.\/garuda_session\.js"/);
    assert.ok(list, file);
    assert.deepEqual(sorted(list[1].split(",").map((n) => n.trim()).filter(Boolean)), glue, file);
  }
});

test("the manifest: ./wasm is the wasm, a top-level browser field for Parcel, the embedded entry is a side effect", () => {
  const wasm = readFileSync(path.join(pkg, manifest.exports["./wasm"]));
  assert.deepEqual([...wasm.subarray(0, 4)], [0x00, 0x61, 0x73, 0x6d]);
  assert.equal(manifest.browser, "./web/index.js");
  assert.equal(manifest.exports["."].browser.default, manifest.browser);
  for (const f of ["./node/embedded.js", "./node/embedded.mjs"]) assert.ok(manifest.sideEffects.includes(f), `${f}: a bare import of it must survive tree-shaking`);
  assert.ok(manifest.files.includes("embedded/"));
  // node10 resolution of the subpath (the folder stub).
  assert.equal(JSON.parse(readFileSync(path.join(pkg, "embedded/package.json"), "utf8")).main, "../node/embedded.js");
});

/** Runs `source` (CommonJS) in a project with the package installed; returns its JSON output. */
function run(source, args = [], installed = pkg) {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-entries-"));
  mkdirSync(path.join(dir, "node_modules/@garuda"), { recursive: true });
  symlinkSync(installed, path.join(dir, "node_modules/@garuda/session"), "dir");
  writeFileSync(path.join(dir, "main.cjs"), source);
  return JSON.parse(execFileSync(process.execPath, ["main.cjs", ...args], { cwd: dir, encoding: "utf8" }));
}

const replay = `const s = require("@garuda/session"); const st = s.rebuildState(require("fs").readFileSync(${JSON.stringify(golden)}, "utf8"));`;

test("without global TextDecoder and TextEncoder (Jest's jsdom environment), the Node glue takes util's", () => {
  const out = run(`delete globalThis.TextDecoder; delete globalThis.TextEncoder;\n${replay}\nconst j = new s.Journal({ redactor: new s.Redactor({ env: {} }) });\nconst line = j.write({ type: "user", message: { role: "user", content: "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 ünï" } });\nconsole.log(JSON.stringify({ globals: typeof TextDecoder, prompts: st.prompts, line: line.includes("[REDACTED]") && line.includes("ünï") }));`);
  assert.deepEqual(out, { globals: "undefined", prompts: 2, line: true });
});

test("init() in Node takes bytes, an ArrayBuffer, a WebAssembly.Module, a path, a file: URL or a Response; a number is a coded TypeError", () => {
  const wasm = path.join(pkg, "web/garuda_session_bg.wasm");
  const sources = {
    bytes: `fs.readFileSync(wasm)`,
    arrayBuffer: `new Uint8Array(fs.readFileSync(wasm)).buffer`,
    module: `new WebAssembly.Module(fs.readFileSync(wasm))`,
    path: `wasm`,
    fileUrl: `require("url").pathToFileURL(wasm)`,
    response: `new Response(fs.readFileSync(wasm))`,
  };
  // A copy of the package without its .wasm: only the source given can load.
  const bare = mkdtempSync(path.join(tmpdir(), "garuda-nowasm-"));
  cpSync(pkg, bare, { recursive: true, filter: (f) => !f.endsWith(".wasm") });
  const none = run(`const s = require("@garuda/session"); try { s.formatCost({}); } catch (e) { console.log(JSON.stringify({ code: e.code })); }`, [], bare);
  assert.deepEqual(none, { code: "ERR_GARUDA_WASM_MISSING" });
  for (const [kind, expr] of Object.entries(sources)) {
    const out = run(`const fs = require("fs"); const wasm = process.argv[2]; const { init, rebuildState, formatCost } = require("@garuda/session/init");\ninit(${expr}).then(() => console.log(JSON.stringify({ cost: formatCost(rebuildState(fs.readFileSync(${JSON.stringify(golden)}, "utf8"))) })), (e) => console.log(JSON.stringify({ error: e.message })));`, [wasm], bare);
    assert.deepEqual(out, { cost: "≥ $0.0311 (incomplete)" }, kind);
  }
  const bad = run(`const { init } = require("@garuda/session/init"); init(42).catch((e) => console.log(JSON.stringify({ code: e.code, type: e instanceof TypeError })));`);
  assert.deepEqual(bad, { code: "ERR_INVALID_ARG_TYPE", type: true });
});
