// ESM entry of @garuda/session/agent: Node finds the names agent.js exports.
export * from "./agent.js";
