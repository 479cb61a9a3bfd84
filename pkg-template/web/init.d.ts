// Types of @garuda/session/init: the package's API, after an explicit init().
export * from "../index.js";

/** Loads the wasm once (from beside this module, or from the URL or bytes given); await it before any other call. */
export default function init(wasm?: string | URL | Request | Response | BufferSource | WebAssembly.Module): Promise<unknown>;
