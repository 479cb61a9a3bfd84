// Rewrites the tail of wasm-bindgen's Node (CommonJS) glue, pkg/node/garuda_session.js.
//
// wasm-bindgen's glue reads `${__dirname}/garuda_session_bg.wasm` when it is
// required. A bundled program (esbuild --platform=node, bun build --compile,
// a Next.js server chunk) has no such file beside it, so it died at load
// time. Here the wasm is instead instantiated on first use, from, in order:
// what init(bytes | URL | WebAssembly.Module) or the embedded entry gave
// (`__garudaWasm.source`), else the file in the package (../web/, where the
// one copy ships). A missing file is then an Error with a stable code that
// names the fixes, at the first call, not a crash at require.
//
// The glue also works without global TextDecoder/TextEncoder (Jest's jsdom
// environment has none): it takes Node's from `util` then.
//
// Usage: node .ci/node-glue.mjs pkg/node/garuda_session.js
import { readFileSync, writeFileSync } from "node:fs";

const file = process.argv[2];
let glue = readFileSync(file, "utf8");

const tail = [
  "const wasmPath = `${__dirname}/garuda_session_bg.wasm`;",
  "const wasmBytes = require('fs').readFileSync(wasmPath);",
  "const wasmModule = new WebAssembly.Module(wasmBytes);",
  "let wasmInstance = new WebAssembly.Instance(wasmModule, __wbg_get_imports());",
  "let wasm = wasmInstance.exports;",
  "wasm.__wbindgen_start();",
].join("\n");
if (!glue.includes(tail)) fail("wasm-bindgen's load sequence was not found (a new wasm-bindgen version?)");

const lazy = `// The wasm is instantiated on first use (see .ci/node-glue.mjs): every call
// goes through \`wasm\`, which is this proxy until then and the instance's
// exports after.
const loader = { source: null, loaded: false };
function instantiate(source) {
    let bytes = typeof source === 'function' ? source() : source;
    if (bytes == null) {
        // An ESM bundle has no __dirname (nor the file beside it).
        const wasmPath = typeof __dirname === 'string' ? __dirname + '/../web/garuda_session_bg.wasm' : 'no __dirname';
        try {
            if (typeof __dirname !== 'string') throw new Error('this module was bundled as ESM');
            bytes = (process.getBuiltinModule?.('node:fs') ?? require('fs')).readFileSync(wasmPath);
        } catch (e) {
            const err = new Error('@garuda/session: cannot read its wasm (' + wasmPath + '): ' + e.message
                + '. A bundled program imports "@garuda/session/embedded" first (the wasm inside), or calls init(bytes | URL | WebAssembly.Module) from "@garuda/session/init".');
            err.code = 'ERR_GARUDA_WASM_MISSING';
            throw err;
        }
    }
    const wasmModule = bytes instanceof WebAssembly.Module ? bytes : new WebAssembly.Module(bytes);
    const wasmInstance = new WebAssembly.Instance(wasmModule, __wbg_get_imports());
    wasm = wasmInstance.exports;
    loader.loaded = true;
    wasm.__wbindgen_start();
}
let wasm = new Proxy({}, {
    get(_, name) {
        if (!loader.loaded) instantiate(loader.source);
        return wasm[name];
    },
});
// Not enumerable: the API's names stay the keys of this module.
Object.defineProperty(module.exports, '__garudaWasm', {
    value: {
        get loaded() { return loader.loaded; },
        /** Where the wasm comes from (bytes, a WebAssembly.Module, or a function giving one), if not loaded yet. */
        use(source) { if (!loader.loaded) loader.source = source; },
        load() { if (!loader.loaded) instantiate(loader.source); },
    },
});`;
glue = glue.replace(tail, lazy);

// Jest's jsdom environment has no TextDecoder/TextEncoder globals; Node's
// util has both (since Node 11). The bindings stay module-local.
const text = "const { TextDecoder, TextEncoder } = typeof globalThis.TextDecoder === 'function' && typeof globalThis.TextEncoder === 'function' ? globalThis : process.getBuiltinModule?.('node:util') ?? require('util');\n";
const firstUse = glue.search(/new TextDecoder\(|new TextEncoder\(/);
if (firstUse < 0) fail("no TextDecoder/TextEncoder in the glue");
// Declared at the very top so every later use in the module sees it.
glue = text + glue;

writeFileSync(file, glue);

function fail(why) {
  console.error(`node-glue: ${why}`);
  process.exit(1);
}
