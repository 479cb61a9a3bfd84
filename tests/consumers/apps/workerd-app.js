// A Cloudflare Worker (workerd, modules syntax): the .wasm comes in as a
// WebAssembly.Module (./wasm, a wasm module in the worker's config), and
// ./init takes it; no top-level await, no fetch of a URL.
import wasm from "@garuda/session/wasm";
import init, { rebuildState, formatCost, Journal, Redactor } from "@garuda/session/init";
import { run } from "./check.js";

export default {
  async fetch() {
    await init(wasm);
    return Response.json(run({ rebuildState, formatCost, Journal, Redactor }));
  },
};
