// Reading the files of a usage report: on two threads when there is enough
// to read, each file once; a file that cannot be read is a warning, not the
// end of the report (ccusage reports the rest too).
"use strict";

const path = require("node:path");
const { session } = require("./cli.cjs");
const usageReport = require("./usage.cjs");

const CHUNK = 4 << 20;

const THREADS = 2;
/** Below this many bytes (or with one file) the files are read here: two threads' start-up would cost more. */
const ON_THREADS = 32e6;

const threadsHere = () => Math.min(THREADS, require("node:os").availableParallelism?.() ?? THREADS);

/**
 * The usage figures of every file: on two threads when there is enough to
 * read (each with its own wasm instance), else here. The threads claim
 * the files from a shared counter, largest first (usage-worker.cjs).
 */
async function replayAll(files, options, tick) {
  const total = files.reduce((a, f) => a + f.size, 0);
  if (threadsHere() < 2 || total < ON_THREADS || files.length < 2) {
    let done = 0;
    const buf = Buffer.allocUnsafe(CHUNK);
    return files.map((f) => {
      let read;
      try {
        read = usageReport.usageOf(session, f.file, options, buf);
      } catch (e) {
        read = { error: e.code ?? String(e.message ?? e) };
      }
      tick((done += f.size));
      return read;
    });
  }
  const { Worker } = require("node:worker_threads");
  const list = files.map((f, index) => ({ file: f.file, size: f.size, index })).sort((a, b) => b.size - a.size);
  const next = new SharedArrayBuffer(4);
  const results = new Array(files.length);
  let done = 0;
  await Promise.all(
    Array.from({ length: THREADS }, () => new Worker(path.join(__dirname, "usage-worker.cjs"), { workerData: { options } })).map(
      (worker) =>
        new Promise((resolve, reject) => {
          worker.on("message", (m) => {
            if (m.progress !== undefined) tick((done += m.progress));
            if (m.done) {
              for (const [index, r] of m.done) results[index] = r;
              resolve();
            }
          });
          worker.on("error", reject);
          worker.postMessage({ files: list, next });
        }),
    ),
  );
  return results;
}

/**
 * The items of a report (`usage.cjs` report's input) for some files:
 * each read, with its figures; `warn(text)` hears of a file that could not
 * be read or held a line over the length cap. A file given by name in no
 * known format is `unknownFormat` (the caller refuses it).
 */
async function readItems(files, options, tick, warn) {
  const read = await replayAll(files, options, tick);
  const items = [];
  files.forEach((f, i) => {
    const r = read[i];
    if (r.error) return warn(`${f.file}: cannot read it (${r.error}); the report leaves it out`);
    if (r.tooLong > 0) warn(`${f.file}: ${r.tooLong} line(s) longer than the line size cap were skipped (the first is line ${r.tooLongLine}); their usage is not counted`);
    if (r.format === null) {
      if (f.named) items.unknownFormat = f.file;
      return; // a folder's other files
    }
    items.push({ ...f, ...r });
  });
  return items;
}

module.exports = { replayAll, readItems };
