// The npm tarball as people install it: `npm pack`, then a fresh project
// each for CommonJS, ESM, TypeScript (--strict, every export), and a browser
// page that imports the package from a static server in headless Chromium.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync, readFileSync, readdirSync, existsSync, copyFileSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const ciRequire = createRequire(path.join(root, ".ci/package.json"));
let tarball;

before(() => {
  const out = mkdtempSync(path.join(tmpdir(), "garuda-pack-"));
  execFileSync("npm", ["pack", path.join(root, "pkg"), "--pack-destination", out, "--silent"], { encoding: "utf8" });
  tarball = path.join(out, readdirSync(out).find((f) => f.endsWith(".tgz")));
});

function project(type) {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-project-"));
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--silent", tarball], { cwd: dir });
  return dir;
}

const journal = readFileSync(path.join(root, "tests/golden/every-record-type.jsonl"), "utf8");

const body = (fs, store) => `
const state = s.rebuildState(${JSON.stringify(journal)});
const dir = ${fs}.mkdtempSync(require_os_tmp + "/pack-store-");
const st = new ${store}(dir + "/sessions");
const j = st.open("a1"); j.write({ type: "user", message: { role: "user", content: "hi" } }); j.close();
console.log(JSON.stringify({ prompts: state.prompts, cost: s.formatCost(state), rows: st.summaries().length, resumed: s.resumeMessages(state, {}).length }));
`;

function check(out) {
  assert.deepEqual(JSON.parse(out), { prompts: 2, cost: "≥ $0.0311 (incomplete)", rows: 1, resumed: 2 });
}

test("the tarball holds the package and nothing else", () => {
  const list = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).split("\n").filter(Boolean);
  for (const f of ["package/package.json", "package/index.d.ts", "package/index.d.cts", "package/README.md", "package/LICENSE", "package/web/garuda_session_bg.wasm", "package/bin/garuda-session.cjs", "package/node/store.d.ts", "package/node/store.d.mts", "package/node/agent.d.mts", "package/node/redis.js", "package/node/redis-worker.js", "package/node/redis.d.mts"]) {
    assert.ok(list.includes(f), `${f} in ${list}`);
  }
  assert.equal(list.filter((f) => f.endsWith(".wasm")).length, 1, "the wasm ships once");
  assert.ok(list.every((f) => !f.includes("..") && !f.includes("target/")));
});

// The spec ships as ../shared has it (.ci/build copies it; the repository
// carries no copy): byte for byte, or, built without ../shared, not at all.
test("the tarball's JOURNAL.md is the spec of ../shared", (t) => {
  const spec = path.join(process.env.GARUDA_SHARED ?? path.join(root, "../shared"), "spec/JOURNAL.md");
  if (!existsSync(spec)) return t.skip(`SKIP: ${spec} is absent (no ../shared): the package is built without the spec`);
  const list = execFileSync("tar", ["-tzf", tarball], { encoding: "utf8" }).split("\n");
  assert.ok(list.includes("package/JOURNAL.md"), "the package ships the spec");
  const shipped = execFileSync("tar", ["-xzOf", tarball, "package/JOURNAL.md"]);
  assert.ok(shipped.equals(readFileSync(spec)), "the shipped spec is ../shared's, unchanged");
});

test("CommonJS: require", () => {
  const dir = project("commonjs");
  writeFileSync(
    path.join(dir, "main.js"),
    `const fs = require("fs"); const require_os_tmp = require("os").tmpdir(); const s = require("@garuda/session"); const { FileSessionStore } = require("@garuda/session/node");\n${body("fs", "FileSessionStore")}`,
  );
  check(execFileSync(process.execPath, ["main.js"], { cwd: dir, encoding: "utf8" }));
  const bin = execFileSync(path.join(dir, "node_modules/.bin/garuda-session"), ["replay", path.join(root, "tests/golden/crlf.jsonl")], { encoding: "utf8" });
  assert.match(bin, /messages  2/);
});

test("without the redis package (an optional peer dependency): the package works, and the Redis store says what to install", () => {
  const dir = project("commonjs");
  writeFileSync(
    path.join(dir, "redis.js"),
    `const { RedisSessionStore } = require("@garuda/session/redis");\ntry { new RedisSessionStore({ url: "redis://127.0.0.1:1" }); } catch (e) { console.log(e.code + " " + e.message); }\n`,
  );
  const out = execFileSync(process.execPath, ["redis.js"], { cwd: dir, encoding: "utf8" });
  assert.match(out, /^ERR_REDIS_MISSING .*npm install redis/);
});

test("ESM: import", () => {
  const dir = project("module");
  writeFileSync(
    path.join(dir, "main.js"),
    `import fs from "fs"; import os from "os"; const require_os_tmp = os.tmpdir(); import * as s from "@garuda/session"; import { FileSessionStore } from "@garuda/session/node";\n${body("fs", "FileSessionStore")}`,
  );
  check(execFileSync(process.execPath, ["main.js"], { cwd: dir, encoding: "utf8" }));
});

test("TypeScript: tsc --noEmit --strict on a consumer of every export", () => {
  const dir = project("module");
  writeFileSync(path.join(dir, "use.ts"), readFileSync(path.join(root, "tests/smoke/consumer.ts")));
  const tsconfig = {
    compilerOptions: { strict: true, noEmit: true, module: "nodenext", moduleResolution: "nodenext", target: "es2022", lib: ["es2022", "dom"], types: [] },
    files: ["use.ts"],
  };
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig));
  execFileSync(path.join(root, ".ci/node_modules/.bin/tsc"), ["-p", "."], { cwd: dir, encoding: "utf8" });
});

test("attw --pack finds no problem in any entry under any resolution, and publint --strict none", () => {
  const bin = (name) => path.join(root, ".ci/node_modules/.bin", name);
  // ./wasm is the .wasm itself (for bundler plugins and workerd): no types to resolve.
  const attw = execFileSync(bin("attw"), [tarball, "--format", "json", "--exclude-entrypoints", "./wasm"], { encoding: "utf8" });
  const report = JSON.parse(attw);
  assert.deepEqual(report.analysis?.problems ?? report.problems ?? [], [], attw.slice(0, 2000));
  // NO_COLOR: with CI set, publint's colours are on, and the text below would not match.
  const publint = execFileSync(bin("publint"), ["--strict", path.join(root, "pkg")], { encoding: "utf8", env: { ...process.env, NO_COLOR: "1" } });
  // Its one suggestion is to drop the top-level "browser" field for the
  // exports map: Parcel reads that field, not the map (unless configured).
  assert.doesNotMatch(publint, /Errors:|Warnings:/, publint);
  assert.match(publint, /All good!|Suggestions:\n1\. pkg\.browser with a string value[^\n]*\n?$/, publint);
});

/** tsc --strict on `files` (name -> source) in a fresh project with the tarball installed. */
function typecheck(type, compilerOptions, files) {
  const dir = project(type);
  for (const [name, source] of Object.entries(files)) writeFileSync(path.join(dir, name), source);
  const tsconfig = { compilerOptions: { strict: true, noEmit: true, target: "es2022", lib: ["es2022", "dom"], types: [], skipLibCheck: false, ...compilerOptions }, files: Object.keys(files) };
  writeFileSync(path.join(dir, "tsconfig.json"), JSON.stringify(tsconfig));
  try {
    execFileSync(path.join(root, ".ci/node_modules/.bin/tsc"), ["-p", "."], { cwd: dir, encoding: "utf8" });
    return "";
  } catch (e) {
    return String(e.stdout);
  }
}

test("types under every moduleResolution: node16 from CommonJS (.cts) and ESM, node10 for ./node and ./agent", () => {
  const cjs = `import session = require("@garuda/session");\nimport store = require("@garuda/session/node");\nimport agent = require("@garuda/session/agent");\nconst s: session.SessionState = session.rebuildState("");\nconst st = new store.FileSessionStore("/tmp/x");\nconst live: agent.Session = agent.startSession(new store.MemorySessionStore(), {});\nexport { s, st, live };\n`;
  assert.equal(typecheck("module", { module: "node16", moduleResolution: "node16" }, { "use.cts": cjs }), "");
  const esm = `import { rebuildState } from "@garuda/session";\nimport { FileSessionStore } from "@garuda/session/node";\nimport { startSession, MemorySessionStore } from "@garuda/session/agent";\nimport init, { formatCost } from "@garuda/session/init";\nawait init();\nexport const x = [rebuildState(""), new FileSessionStore(), startSession(new MemorySessionStore()), formatCost];\n`;
  assert.equal(typecheck("module", { module: "node16", moduleResolution: "node16" }, { "use.mts": esm }), "");
  const node10 = `import { FileSessionStore } from "@garuda/session/node";\nimport { startSession } from "@garuda/session/agent";\nexport const x = [new FileSessionStore(), startSession];\n`;
  assert.equal(typecheck("commonjs", { module: "commonjs", moduleResolution: "node" }, { "use.ts": node10 }), "");
});

test("types and runtime agree: a default import of @garuda/session/node is a type error, as it fails at run time", () => {
  const out = typecheck("module", { module: "nodenext", moduleResolution: "nodenext" }, { "use.ts": `import store from "@garuda/session/node";\nconsole.log(store);\n` });
  assert.match(out, /has no default export/);
  const dir = project("module");
  writeFileSync(path.join(dir, "main.js"), `import store from "@garuda/session/node";\n`);
  assert.throws(() => execFileSync(process.execPath, ["main.js"], { cwd: dir, stdio: "pipe" }), /does not provide an export named 'default'/);
});

let server;
after(() => server?.close());

test("browser: a page imports the package from a static server in headless Chromium", async () => {
  const dir = project("module");
  writeFileSync(
    path.join(dir, "index.html"),
    `<!doctype html><meta charset="utf-8"><body><script type="module">
import { rebuildState, formatCost, Journal, Redactor, resumeMessages } from "/node_modules/@garuda/session/web/index.js";
const state = rebuildState(${JSON.stringify(journal)});
const j = new Journal({ redactor: new Redactor({ env: {} }) });
const line = j.write({ type: "user", message: { role: "user", content: "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" } });
document.body.dataset.result = JSON.stringify({ prompts: state.prompts, cost: formatCost(state), redacted: line.includes("[REDACTED]"), resumed: resumeMessages(state, {}).length });
</script>`,
  );
  const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm", ".json": "application/json" };
  server = createServer((req, res) => {
    const file = path.join(dir, decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (!file.startsWith(dir) || !existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  const origin = `http://127.0.0.1:${server.address().port}`;
  const { chromium } = ciRequire("playwright-core");
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  try {
    const page = await browser.newPage();
    const requests = [];
    page.on("request", (r) => requests.push(r.url()));
    const errors = [];
    page.on("pageerror", (e) => errors.push(String(e)));
    await page.goto(`${origin}/index.html`);
    await page.waitForFunction(() => document.body.dataset.result, null, { timeout: 15000 });
    const result = JSON.parse(await page.evaluate(() => document.body.dataset.result));
    assert.deepEqual(result, { prompts: 2, cost: "≥ $0.0311 (incomplete)", redacted: true, resumed: 2 });
    assert.deepEqual(errors, []);
    assert.ok(requests.every((u) => u.startsWith(origin)), `only its own files: ${requests}`);
  } finally {
    await browser.close();
  }
});

test("esbuild bundles for the browser: the top-level-await entry as ESM, and ./init as an iife, each with the wasm copied beside it", async () => {
  const esbuild = ciRequire("esbuild");
  const dir = project("module");
  const pkgDir = path.join(dir, "node_modules/@garuda/session");
  const out = path.join(dir, "dist");
  const app = `const s = rebuildState(${JSON.stringify(journal)}); document.body.dataset.result = JSON.stringify({ prompts: s.prompts, cost: formatCost(s) });`;
  writeFileSync(path.join(dir, "esm.js"), `import { rebuildState, formatCost } from "@garuda/session";\n${app}\n`);
  // An iife cannot await at the top, nor know its own URL: init() is given the wasm's.
  writeFileSync(path.join(dir, "iife.js"), `import init, { rebuildState, formatCost } from "@garuda/session/init";\ninit("./garuda_session_bg.wasm").then(() => { ${app} });\n`);
  await esbuild.build({ entryPoints: [path.join(dir, "esm.js")], bundle: true, format: "esm", platform: "browser", outfile: path.join(out, "esm.bundle.js"), logLevel: "silent" });
  await esbuild.build({ entryPoints: [path.join(dir, "iife.js")], bundle: true, format: "iife", platform: "browser", outfile: path.join(out, "iife.bundle.js"), logLevel: "silent" });
  // What an esbuild user copies: the one .wasm, beside the bundle.
  copyFileSync(path.join(pkgDir, "web/garuda_session_bg.wasm"), path.join(out, "garuda_session_bg.wasm"));
  writeFileSync(path.join(out, "esm.html"), `<!doctype html><body><script type="module" src="./esm.bundle.js"></script>`);
  writeFileSync(path.join(out, "iife.html"), `<!doctype html><body><script src="./iife.bundle.js"></script>`);
  const types = { ".html": "text/html", ".js": "text/javascript", ".wasm": "application/wasm" };
  const bundleServer = createServer((req, res) => {
    const file = path.join(out, decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (!file.startsWith(out) || !existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
  await new Promise((r) => bundleServer.listen(0, "127.0.0.1", r));
  const origin = `http://127.0.0.1:${bundleServer.address().port}`;
  const { chromium } = ciRequire("playwright-core");
  const browser = await chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
  try {
    for (const pageName of ["esm.html", "iife.html"]) {
      const page = await browser.newPage();
      const errors = [];
      page.on("pageerror", (e) => errors.push(String(e)));
      await page.goto(`${origin}/${pageName}`);
      await page.waitForFunction(() => document.body.dataset.result, null, { timeout: 15000 });
      assert.deepEqual(JSON.parse(await page.evaluate(() => document.body.dataset.result)), { prompts: 2, cost: "≥ $0.0311 (incomplete)" }, pageName);
      assert.deepEqual(errors, [], pageName);
      await page.close();
    }
  } finally {
    await browser.close();
    bundleServer.close();
  }
});

test("types of ./embedded (import and require) and of init() in Node (bytes, a path, a Module)", () => {
  const esm = `import { rebuildState } from "@garuda/session/embedded";\nimport init from "@garuda/session/init";\nimport { readFileSync } from "node:fs";\nawait init(readFileSync("x.wasm"));\nawait init("x.wasm");\nawait init(new WebAssembly.Module(new Uint8Array()));\nexport const s = rebuildState("").prompts;\n`;
  const cjs = `import embedded = require("@garuda/session/embedded");\nexport const n: number = embedded.rebuildState("").prompts;\n`;
  const wrong = `import { rebuildState } from "@garuda/session/embedded";\nexport const s: string = rebuildState("").prompts;\n`;
  const decl = `declare module "node:fs" { export function readFileSync(p: string): Uint8Array; }\n`;
  assert.equal(typecheck("module", { module: "node16", moduleResolution: "node16" }, { "use.mts": esm, "fs.d.ts": decl, "use2.cts": cjs }), "");
  assert.match(typecheck("module", { module: "node16", moduleResolution: "node16" }, { "wrong.mts": wrong }), /not assignable to type 'string'/);
  // (No negative case for init(): lib.dom's WebAssembly.Module is an empty interface, so any
  // non-null value type-checks as one; init() refuses it at run time instead.)
});
