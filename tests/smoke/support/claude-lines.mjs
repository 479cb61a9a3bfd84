// Claude Code's raw lines read apart from the package, for the export
// tests' oracles: the lines of a file, the tool_use blocks of some lines,
// and the lines of the conversation as Claude Code loads it.
import fs from "node:fs";

export const parsed = (file) =>
  fs
    .readFileSync(file, "utf8")
    .split("\n")
    .flatMap((l) => {
      try {
        const v = JSON.parse(l);
        return v && typeof v === "object" ? [v] : [];
      } catch {
        return [];
      }
    });

/** The tool_use blocks of some assistant lines, by id (a block copied onto a later line is one call). */
export function toolBlocks(lines) {
  const calls = new Map();
  for (const l of lines) {
    if (l.type !== "assistant" || !Array.isArray(l.message?.content)) continue;
    l.message.content.forEach((b, k) => b?.type === "tool_use" && calls.set(typeof b.id === "string" ? b.id : `${l.uuid} block ${k}`, b));
  }
  return calls;
}

/** Their ids. */
export const toolUses = (lines) => new Set(toolBlocks(lines).keys());

/**
 * The lines of the conversation as Claude Code loads it: the last main
 * line's ancestors (`parentUuid`, across a compaction `logicalParentUuid`)
 * with the other lines of their responses (same `message.id`: parallel
 * calls), a branch left by a rewind not among them; and each Task call's subagent
 * run inside the file (sidechain lines under a first sidechain line whose
 * prompt is a Task call's `prompt`). A file all sidechain is one run, whole.
 */
export function conversation(lines) {
  const withUuid = lines.filter((l) => typeof l.uuid === "string");
  if (withUuid.length && withUuid.every((l) => l.isSidechain === true)) return withUuid;
  const byUuid = new Map(withUuid.map((l) => [l.uuid, l]));
  const on = new Set();
  const main = withUuid.filter((l) => l.isSidechain !== true && ["user", "assistant", "system"].includes(l.type));
  for (let l = main.at(-1); l && !on.has(l.uuid); l = byUuid.get(l.parentUuid ?? l.logicalParentUuid)) on.add(l.uuid);
  // One response written a line per content block (parallel calls) is one message: a block off the chain is on it.
  const onMessages = new Set(withUuid.filter((l) => on.has(l.uuid) && l.message?.id).map((l) => l.message.id));
  for (const l of withUuid) if (l.message?.id && onMessages.has(l.message.id)) on.add(l.uuid);
  const prompts = new Set();
  for (const l of lines) {
    if (l.type !== "assistant" || l.isSidechain === true || !on.has(l.uuid) || !Array.isArray(l.message?.content)) continue;
    for (const b of l.message.content) if (b?.type === "tool_use" && ["Task", "Agent"].includes(b.name) && typeof b.input?.prompt === "string") prompts.add(b.input.prompt.trim());
  }
  const rootOf = (l) => {
    const seen = new Set();
    while (byUuid.get(l.parentUuid)?.isSidechain === true && !seen.has(l.uuid)) seen.add(l.uuid), (l = byUuid.get(l.parentUuid));
    return l;
  };
  const taskRun = (l) => {
    const root = rootOf(l);
    return typeof root.message?.content === "string" && prompts.has(root.message.content.trim());
  };
  return withUuid.filter((l) => (l.isSidechain === true ? taskRun(l) : on.has(l.uuid)));
}
