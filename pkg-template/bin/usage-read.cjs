// Reading the files of a usage report: on two threads when there is enough
// to read, each file once; a file that cannot be read is a warning, not the
// end of the report (ccusage reports the rest too).
"use strict";

const path = require("node:path");
const { session } = require("./cli.cjs");
const usageReport = require("./usage.cjs");

const CHUNK = 4 << 20;

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
          const worker = new Worker(path.join(__dirname, "usage-worker.cjs"), { workerData: { files: share.items.map(([f]) => ({ file: f.file, size: f.size })), options } });
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
