// Claude Code sessions of a given size for the benchmarks: the real
// sessions of ../shared/peers/claude-code copied with fresh session,
// message, request and line ids (so nothing deduplicates across copies).
// Built once per size in the folder given (bench/data/, ignored by git).

import fs from "node:fs";
import path from "node:path";

/** The sample sessions: [relative path, lines]. */
function samples(peers) {
  const out = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith(".jsonl")) out.push([path.relative(peers, p), fs.readFileSync(p, "utf8").split("\n").filter(Boolean)]);
    }
  };
  walk(peers);
  return out;
}

/** Copy k of a line: every id made unique to the copy. */
function fresh(line, k) {
  let r;
  try {
    r = JSON.parse(line);
  } catch {
    return line;
  }
  const tag = (v, sep) => (typeof v === "string" && v !== "" ? `${v}${sep}${k}` : v);
  for (const f of ["sessionId", "uuid", "parentUuid", "leafUuid", "logicalParentUuid"]) if (f in r) r[f] = tag(r[f], "-c");
  if ("requestId" in r) r.requestId = tag(r.requestId, "_c");
  if (r.message && typeof r.message === "object" && "id" in r.message) r.message.id = tag(r.message.id, "_c");
  return JSON.stringify(r);
}

export function buildClaudeSessions(peers, dir, MB, flat = false) {
  const stamp = path.join(dir, `.built-${MB}`);
  if (fs.existsSync(stamp)) return;
  fs.rmSync(dir, { recursive: true, force: true });
  const files = samples(peers);
  // A session's folder (its subagents' runs: <session>/subagents/…) is
  // renamed with its file, as Claude Code names both by the session's id:
  // renamed alone, the file lost its runs, which the walk then took for
  // sessions of a project named by the old id.
  const stems = new Set(files.map(([rel]) => rel.replace(/\.jsonl$/, "")));
  const rename = (rel, k) => {
    const parts = rel.split("/");
    return parts.map((part, i) => (i === parts.length - 1 || stems.has(parts.slice(0, i + 1).join("/")) ? part.replace(/^([^.]+)/, `$1-c${k}`) : part)).join("/");
  };
  let bytes = 0;
  for (let k = 0; bytes < MB * 1e6; k++) {
    for (const [rel, lines] of files) {
      const renamed = rename(rel, k);
      // flat: one project folder of session files (subagents' runs left out).
      if (flat && rel.includes("/subagent")) continue;
      const target = flat ? path.join(dir, "project", path.basename(renamed)) : path.join(dir, "projects", `copy-${k}`, renamed);
      fs.mkdirSync(path.dirname(target), { recursive: true });
      const text = lines.map((l) => fresh(l, k)).join("\n") + "\n";
      fs.writeFileSync(target, text);
      bytes += Buffer.byteLength(text);
    }
  }
  fs.writeFileSync(stamp, String(bytes));
}

