// ESM entry for browsers: fetches and instantiates the wasm once (top-level
// await), so importers use the same synchronous API as in Node.
import init from "./garuda_session.js";

await init({ module_or_path: new URL("./garuda_session_bg.wasm", import.meta.url) });

export {
  Redactor,
  Journal,
  rebuildState,
  importSession,
  formatCost,
  budgetNote,
  summariseSession,
  validateSessionId,
  newSessionId,
  resumeMessages,
  repairForResume,
  closeOpenToolCalls,
  checkMessages,
  diagnose,
  repair,
} from "./garuda_session.js";
