// Turns the browser's "expected magic word 00 61 73 6d" (the wasm's URL
// answered with something else, mostly a dev server's HTML fallback) into an
// Error that says why and what to do. The common cause: a bundler moved this
// package's JS away from its .wasm (Vite's dev-server pre-bundling does).
export function explainLoadError(error, url) {
  if (!(error instanceof WebAssembly.CompileError) || !/magic word/.test(error.message)) return error;
  const err = new Error(
    `@garuda/session: ${url} is not its wasm (${error.message}): a bundler moved the package's JS away from it. ` +
      `Vite's dev server: optimizeDeps: { exclude: ["@garuda/session"] } in vite.config. Other bundlers: copy "@garuda/session/wasm" beside the bundle, ` +
      `or import "@garuda/session/init" and pass the wasm's URL, bytes or WebAssembly.Module to init().`,
    { cause: error },
  );
  err.code = "ERR_GARUDA_WASM_NOT_WASM";
  return err;
}
