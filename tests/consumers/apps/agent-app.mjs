// The session layer (./agent) with the embedded wasm: Bun's bundler used to
// break it ("exports_agent is not defined", from export * over CommonJS).
import "@garuda/session/embedded";
import { startSession, addUserMessage, MemorySessionStore } from "@garuda/session/agent";

const session = startSession(new MemorySessionStore(), {});
addUserMessage(session, "hello");
console.log(JSON.stringify({ messages: session.messages.length }));
