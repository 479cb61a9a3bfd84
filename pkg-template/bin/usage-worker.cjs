// The second thread of `garuda-session usage`: replays the files it claims
// (usage only: no messages kept) and sends back what the report adds up.
// The main thread reads too (usage-read.cjs): it sends this thread the
// list, largest file first, and each of the two claims the next file from
// a shared counter, so both cores stay busy to the end whatever each file
// costs (dealt out ahead by size, two threads finished up to 125 ms apart
// on the 1 GB bench history; claimed, within 15).
// The request rows go back as transferred buffers (no copy, no string).
// Progress goes back in steps of about half a percent of the whole, not
// per file: a message wakes the main thread, and on two cores one per file
// (1,400 a thread on the 1 GB bench history) cost each thread 60-100 ms.
"use strict";

const { parentPort, workerData } = require("node:worker_threads");
const session = require("../node/garuda_session.js");
const { usageOf } = require("./usage.cjs");

const buf = Buffer.allocUnsafe(4 << 20);

parentPort.once("message", ({ files, next }) => {
  const claim = new Int32Array(next);
  const step = Math.max(1 << 20, files.reduce((a, f) => a + f.size, 0) / 200);
  let unsaid = 0;
  const out = [];
  const transfer = [];
  for (let k = Atomics.add(claim, 0, 1); k < files.length; k = Atomics.add(claim, 0, 1)) {
    const { file, size, index } = files[k];
    try {
      const r = usageOf(session, file, workerData.options, buf);
      out.push([index, r]);
      transfer.push(r.rows.buffer);
    } catch (e) {
      out.push([index, { error: e.code ?? String(e.message ?? e) }]);
    }
    if ((unsaid += size) >= step) {
      parentPort.postMessage({ progress: unsaid });
      unsaid = 0;
    }
  }
  parentPort.postMessage({ done: out, progress: unsaid }, transfer);
});
