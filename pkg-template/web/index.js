// ESM entry for browsers: fetches and instantiates the wasm once (top-level
// await), so importers use the same synchronous API as in Node.
import init from "./garuda_session.js";
import { explainLoadError } from "./load-error.js";

const wasmUrl = new URL("./garuda_session_bg.wasm", import.meta.url);
await init({ module_or_path: wasmUrl }).catch((e) => {
  throw explainLoadError(e, wasmUrl);
});

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
