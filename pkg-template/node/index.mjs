// ESM entry for Node: the CommonJS build initialises the wasm synchronously.
import pkg from "./garuda_session.js";

export const {
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
} = pkg;
