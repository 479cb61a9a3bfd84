// @garuda/session/init for Node's import: the API, and an init() that has
// nothing to do (the CommonJS build initialises its wasm synchronously).
export * from "./index.mjs";

export default function init() {
  return Promise.resolve();
}
