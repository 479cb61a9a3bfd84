// @garuda/session/init for Node's import: the API, and an init() that has
// nothing to do (the CommonJS build initialises its wasm synchronously).
import pkg from "./garuda_session.js";

export default function init() {
  return Promise.resolve();
}

export const {
  Redactor,
  Journal,
  rebuildState,
  formatCost,
  budgetNote,
  summariseSession,
  validateSessionId,
  newSessionId,
  resumeMessages,
  repairForResume,
  closeOpenToolCalls,
  checkMessages,
} = pkg;
