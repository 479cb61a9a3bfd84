// ESM entry of @garuda/session/redis: Node finds the names redis.js exports.
export * from "./redis.js";
