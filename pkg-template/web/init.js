// ESM entry without top-level await, for bundles that cannot have it (an
// esbuild iife, a Vite worker of another format): call `await init()` once
// before anything else. `init()` fetches the wasm beside this file; a bundle
// that does not copy it passes its URL (or its bytes): `init(url)`.
import wasmInit from "./garuda_session.js";
import { explainLoadError } from "./load-error.js";

let ready;

/** Loads the wasm once; later calls return the same promise. */
export default function init(wasm) {
  const source = wasm ?? new URL("./garuda_session_bg.wasm", import.meta.url);
  ready ??= wasmInit({ module_or_path: source }).catch((e) => {
    throw explainLoadError(e, source);
  });
  return ready;
}

export {
  Redactor,
  Journal,
  Diagnoser,
  rebuildState,
  importSession,
  formatCost,
  budgetNote,
  addCosts,
  summariseSession,
  validateSessionId,
  newSessionId,
  resumeMessages,
  repairForResume,
  truncateToolOutput,
  pruneOldToolOutputs,
  pruneOldToolOutputsWithReport,
  closeOpenToolCalls,
  checkMessages,
  diagnose,
  repair,
} from "./garuda_session.js";
