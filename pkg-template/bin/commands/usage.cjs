// `garuda-session usage [paths...]`: tokens and cost of every session under some paths.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { UsageError, parseArgs, READ, REDIS, withRedis, maskPassword, readOptions, known, progress, CHUNK, session } = require("../cli.cjs");
const usageReport = require("../usage.cjs");

const HELP = `usage: garuda-session usage [paths...] [--by session|day|month|model] [--since YYYY-MM-DD] [--until YYYY-MM-DD] [--json]
  tokens and cost of every session under the paths
  (default: the folders of Claude Code, Codex, pi, Gemini CLI and Garuda)
Reads Garuda journals and Claude Code, Codex, pi and Gemini CLI sessions, detecting the
format; --format garuda|claude-code|codex|pi|gemini forces it.
--prices prices.json adds or replaces model prices ({"models": {"<model>": {"input", "output", ...}}}).
--redis URL [--prefix p]: every session on Redis instead of paths.`;

/**
 * `usage [paths…]`: every session under the paths (files or folders, any
 * format; default: each agent's own folder), or on Redis with --redis.
 */
async function usageCommand(args) {
  const o = parseArgs(args, { "--by": "by", "--since": "since", "--until": "until", "--json": "json!", ...READ, ...REDIS });
  const by = o.by ?? "session";
  if (!["session", "day", "month", "model"].includes(by)) throw new UsageError("--by takes session, day, month or model");
  for (const k of ["since", "until"]) {
    if (o[k] !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(o[k])) throw new UsageError(`--${k} takes a date as YYYY-MM-DD`);
  }
  const options = readOptions(o);
  const states = [];
  if (o.redis !== undefined) {
    await withRedis(o, async (store) => {
      for (const { id } of await store.list()) states.push({ id, file: `${maskPassword(o.redis)} ${id}`, state: session.rebuildState(await store.text(id), options) });
    });
  } else {
    const roots = o._.length > 0 ? o._ : usageReport.defaultFolders();
    if (roots.length === 0) throw new UsageError("no path given, and none of the agents' folders exists (~/.claude/projects, ~/.codex/sessions, ~/.pi/agent/sessions, ~/.gemini/tmp, .garuda/sessions)");
    const files = roots.flatMap((r) => {
      if (!fs.existsSync(r)) throw new UsageError(`${r}: no such file or folder`);
      return usageReport.sessionFiles(r);
    });
    const total = files.reduce((a, f) => a + f.size, 0);
    const bar = progress("usage", total);
    const read = await replayAll(files, options, (done) => bar.tick(done));
    bar.done();
    files.forEach((f, i) => {
      const state = read[i];
      if (state.error) throw new Error(`${f.file}: ${state.error}`);
      if (f.named) known(state, f.file);
      if (state.format === null) return; // a folder's other files
      states.push({ id: path.basename(f.file).replace(/\.jsonl?$/, ""), file: f.file, state, parent: f.parent });
    });
  }
  const r = usageReport.report(states, { by, since: o.since, until: o.until });
  process.stdout.write(o.json ? JSON.stringify(r, null, 2) + "\n" : usageReport.table(r, by));
  return 0;
}

/**
 * The usage figures of every file: on two threads when there is enough to
 * read (each with its own wasm instance), else here. Files are dealt by
 * size, largest first, to the thread with less to do.
 */
async function replayAll(files, options, tick) {
  const total = files.reduce((a, f) => a + f.size, 0);
  const threads = Math.min(2, require("node:os").availableParallelism?.() ?? 2);
  if (threads < 2 || total < 32e6 || files.length < 2) {
    let done = 0;
    const buf = Buffer.allocUnsafe(CHUNK);
    return files.map((f) => {
      const read = usageReport.usageOf(session, f.file, options, buf);
      tick((done += f.size));
      return read;
    });
  }
  const { Worker } = require("node:worker_threads");
  const shares = Array.from({ length: threads }, () => ({ size: 0, items: [] }));
  const order = files.map((f, i) => [f, i]).sort((a, b) => b[0].size - a[0].size);
  for (const [f, i] of order) {
    const share = shares.reduce((a, b) => (b.size < a.size ? b : a));
    share.size += f.size;
    share.items.push([f, i]);
  }
  const results = new Array(files.length);
  let done = 0;
  await Promise.all(
    shares.map(
      (share) =>
        new Promise((resolve, reject) => {
          const worker = new Worker(path.join(__dirname, "../usage-worker.cjs"), { workerData: { files: share.items.map(([f]) => ({ file: f.file, size: f.size })), options } });
          worker.on("message", (m) => {
            if (m.progress !== undefined) tick((done += m.progress));
            if (m.done) {
              m.done.forEach((r, k) => (results[share.items[k][1]] = r));
              resolve();
            }
          });
          worker.on("error", reject);
        }),
    ),
  );
  return results;
}

module.exports = { help: HELP, run: usageCommand };
