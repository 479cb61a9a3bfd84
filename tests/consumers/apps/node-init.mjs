// A bundled program that brings its own copy of the wasm: init(bytes) from
// "@garuda/session/init", as in the browser. Without it (or the embedded
// entry), the first call is an Error with code ERR_GARUDA_WASM_MISSING.
// Usage: node bundle.mjs <journal.jsonl> [<garuda_session_bg.wasm>]
import { readFileSync } from "node:fs";
import init, { rebuildState, formatCost } from "@garuda/session/init";

try {
  if (process.argv[3]) await init(readFileSync(process.argv[3]));
  const state = rebuildState(readFileSync(process.argv[2], "utf8"));
  console.log(JSON.stringify({ prompts: state.prompts, cost: formatCost(state) }));
} catch (e) {
  console.log(JSON.stringify({ code: e.code, message: e.message }));
}
