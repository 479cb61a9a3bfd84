// A Claude Code history in a temporary folder, for the usage and status
// line tests: one project folder, the environment that points the CLI at
// it (and at a cache folder of its own), and the assistant line Claude
// Code writes for a response with its usage.
import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";

/**
 * An assistant line of `session`, the `n`th, at time `t`; `usage` is the
 * input tokens (one output token) or the whole usage object. `chained`:
 * each line's parent is the one before (else none).
 */
export function assistantLine(session, n, t, usage, { id = `msg_${session}_${n}`, text = "ok", chained = false } = {}) {
  return (
    JSON.stringify({
      parentUuid: chained && n > 1 ? `${session}-${n - 1}` : null,
      sessionId: session,
      type: "assistant",
      uuid: `${session}-${n}`,
      timestamp: t,
      requestId: `req_${id}`,
      message: { id, role: "assistant", model: "claude-sonnet-4-5-20250929", content: [{ type: "text", text }], usage: typeof usage === "number" ? { input_tokens: usage, output_tokens: 1 } : usage },
    }) + "\n"
  );
}

/** An empty history: `project` (claude/projects/app under `home`), its `dir` (claude/projects), `iso(minutesAgo)`, and `env`. */
export function claudeHistory(prefix) {
  const home = fs.mkdtempSync(path.join(tmpdir(), prefix));
  const project = path.join(home, "claude", "projects", "app");
  fs.mkdirSync(project, { recursive: true });
  const now = Date.now();
  const iso = (minutesAgo) => new Date(now - minutesAgo * 60000).toISOString();
  return { home, project, iso, dir: path.join(home, "claude", "projects"), env: { GARUDA_CACHE_DIR: path.join(home, "cache"), CLAUDE_CONFIG_DIR: path.join(home, "claude") } };
}

/**
 * A time zone where it is now about noon (`Etc/GMT-12` .. `Etc/GMT+11`):
 * lines written minutes ago stay on today's side of local midnight. With
 * TZ=UTC a CI run at 00:00 UTC put them in yesterday, and "today" read $0.00.
 */
export function noonZone(now = new Date()) {
  const east = 12 - now.getUTCHours();
  return east > 0 ? `Etc/GMT-${east}` : east < 0 ? `Etc/GMT+${-east}` : "Etc/GMT";
}
