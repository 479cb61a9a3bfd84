// @garuda/session/init for Node's import: the API, and the init() of init.js
// (bytes, a WebAssembly.Module, a path or a URL; see there).
import cjs from "./init.js";

export * from "./index.mjs";

export default function init(source) {
  return cjs.init(source);
}
