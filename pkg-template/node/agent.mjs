// ESM entry of @garuda/session/agent.
import agent from "./agent.js";
import store from "./store.js";

export const {
  Session,
  FileTracker,
  startSession,
  resumeSession,
  addUserMessage,
  addAssistantResponse,
  addToolResults,
  closeOpenToolCalls,
  addCompaction,
  addSnapshot,
  undo,
  redo,
  switchModel,
  setTitle,
  setThinking,
  addContinue,
  addUnreported,
  addChildDebit,
  addSideUsage,
  endSession,
} = agent;
export const { FileSessionStore, MemorySessionStore, MemoryJournal } = store;
