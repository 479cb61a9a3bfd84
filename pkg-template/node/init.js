// @garuda/session/init for Node, as in the browser: `await init()` loads the
// wasm now (from the embedded entry if it was imported, else from the file in
// the package); `await init(source)` loads it from what the program has:
// bytes (a Buffer, Uint8Array, ArrayBuffer), a WebAssembly.Module, a path or
// file: URL, an http(s) URL, a Request or a Response (or a promise of one).
// A bundled program without a node_modules beside it passes its own copy.
// Once loaded, later calls change nothing and resolve at once.
"use strict";

Object.defineProperty(exports, "__esModule", { value: true });
const glue = require("./garuda_session.js");
Object.assign(exports, glue);

async function bytesOf(source) {
  source = await source;
  if (source instanceof WebAssembly.Module || source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  if (ArrayBuffer.isView(source)) return new Uint8Array(source.buffer, source.byteOffset, source.byteLength);
  if (source && typeof source === "object" && "module_or_path" in source) return bytesOf(source.module_or_path);
  if (typeof Response === "function" && source instanceof Response) return new Uint8Array(await source.arrayBuffer());
  if (typeof Request === "function" && source instanceof Request) return bytesOf(fetch(source));
  const url = source instanceof URL ? source : typeof source === "string" && /^[a-z][a-z0-9+.-]+:\/\//i.test(source) ? new URL(source) : null;
  if (url && url.protocol !== "file:") return bytesOf(fetch(url));
  if (url || typeof source === "string") return (process.getBuiltinModule?.("node:fs") ?? require("node:fs")).readFileSync(url ?? source);
  const err = new TypeError(`init(source): source must be bytes, a WebAssembly.Module, a path, a URL, a Request or a Response, got ${source === null ? "null" : typeof source}`);
  err.code = "ERR_INVALID_ARG_TYPE";
  throw err;
}

/** Loads the wasm once (see above); resolves when the API is ready. */
async function init(source) {
  const loader = glue.__garudaWasm;
  if (loader.loaded) return;
  if (source != null) {
    const bytes = await bytesOf(source);
    loader.use(bytes);
  }
  loader.load();
}

exports.init = init;
exports.default = init;
