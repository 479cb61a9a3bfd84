// ESM entry of @garuda/session/node.
import store from "./store.js";

export const { FileSessionStore, FileJournal, MemorySessionStore, MemoryJournal } = store;
export const { takeSessionLock, releaseSessionLock } = store;
