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

/** The second reading thread, started by `startEarly` before the folder walk (or null). */
let early = null;

function spawn(options) {
  const { Worker } = require("node:worker_threads");
  return new Worker(path.join(__dirname, "usage-worker.cjs"), { workerData: { options } });
}

/**
 * Starts the second reading thread now, for a read that is likely to be
 * large (no index, or an empty one): its start-up (about 60 ms: Node, the
 * glue, the wasm) then overlaps the folder walk, on the core the walk
 * leaves idle. `replayAll` ends it if the files turn out too few.
 */
function startEarly(options) {
  if (early !== null || threadsHere() < 2) return;
  const e = { worker: spawn(options), options, failed: false };
  // Not in use yet: it does not keep the process alive (a walk that finds
  // nothing to read ends the run without it).
  e.worker.unref();
  // One that fails before it is taken is not taken (another is started).
  e.worker.once("error", () => (e.failed = true));
  e.worker.once("exit", () => (e.failed = true));
  early = e;
}

/** The early thread if it was started with these options (else it is ended): taken once. */
function takeEarly(options) {
  const e = early;
  early = null;
  if (e && !e.failed && e.options === options) return e.worker.ref(), e.worker;
  e?.worker.terminate();
  return null;
}

/** Reads a file's usage here; an error is the file's result, not the run's end. */
function readHere(file, options, buf) {
  try {
    return usageReport.usageOf(session, file, options, buf);
  } catch (e) {
    return { error: e.code ?? String(e.message ?? e) };
  }
}

/**
 * The usage figures of every file: on two threads when there is enough to
 * read, else here. The two are this one and one worker (usage-worker.cjs),
 * each with its own wasm instance; both claim the files from a shared
 * counter, largest first, so both stay busy to the end. (Two workers with
 * this thread waiting cost a third start-up, and left a core to the
 * waiting thread's wake-ups.)
 */
async function replayAll(files, options, tick) {
  const total = files.reduce((a, f) => a + f.size, 0);
  const buf = Buffer.allocUnsafe(CHUNK);
  if (threadsHere() < 2 || total < ON_THREADS || files.length < 2) {
    takeEarly(null);
    let done = 0;
    return files.map((f) => {
      const read = readHere(f.file, options, buf);
      tick((done += f.size));
      return read;
    });
  }
  const list = files.map((f, index) => ({ file: f.file, size: f.size, index })).sort((a, b) => b.size - a.size);
  const next = new SharedArrayBuffer(4);
  const claim = new Int32Array(next);
  const results = new Array(files.length);
  let done = 0;
  const worker = takeEarly(options) ?? spawn(options);
  const theirs = new Promise((resolve, reject) => {
    worker.on("message", (m) => {
      if (m.progress !== undefined) tick((done += m.progress));
      if (m.done) {
        for (const [index, r] of m.done) results[index] = r;
        resolve();
      }
    });
    worker.on("error", reject);
    // (Node delivers a thread's messages before its exit: after `done`, this is a no-op.)
    worker.on("exit", (code) => reject(new Error(`the second reading thread stopped (exit code ${code}) before it was done`)));
  });
  worker.postMessage({ files: list, next });
  // This thread's share: its progress is told as it goes (the worker's
  // messages wait until it is done).
  for (let k = Atomics.add(claim, 0, 1); k < list.length; k = Atomics.add(claim, 0, 1)) {
    const { file, size, index } = list[k];
    results[index] = readHere(file, options, buf);
    tick((done += size));
  }
  await theirs;
  return results;
}

/**
 * The items of a report (`usage.cjs` report's input) for some files:
 * each read, with its figures; `warn(text)` hears of a file that could not
 * be read or held a line over the length cap. A file given by name in no
 * known format is `unknownFormat` (the caller refuses it). Each item is
 * its entry of `files`, its figures assigned to it.
 */
async function readItems(files, options, tick, warn) {
  const read = await replayAll(files, options, tick);
  const items = [];
  files.forEach((f, i) => {
    const r = read[i];
    if (r.error) return warn(`${f.file}: cannot read it (${r.error}); the report leaves it out`);
    usageReport.warnLoss(warn, f.file, r);
    if (r.format === null) {
      if (f.named) items.unknownFormat = f.file;
      return; // a folder's other files
    }
    // The file's own object takes its figures (the caller keeps no other
    // use of it): a fresh `{ ...f, ...r }` per file (1,386 of them) was
    // 17 ms of a 0.48 s report on the 500 MB bench history, and the
    // marking after it ran 5 ms slower.
    items.push(Object.assign(f, r));
  });
  return items;
}

module.exports = { replayAll, readItems, startEarly };
