// One thread of `garuda-session usage`: replays the files it is given (usage
// only: no messages kept) and sends back what the report adds up. The main
// thread splits a big folder between two of these, so both cores read. The
// request rows go back as transferred buffers (no copy, no string).
"use strict";

const { parentPort, workerData } = require("node:worker_threads");
const session = require("../node/garuda_session.js");
const { usageOf } = require("./usage.cjs");

const buf = Buffer.allocUnsafe(4 << 20);

const out = [];
const transfer = [];
for (const { file, size } of workerData.files) {
  try {
    const r = usageOf(session, file, workerData.options, buf);
    out.push(r);
    transfer.push(r.rows.buffer);
  } catch (e) {
    out.push({ error: e.code ?? String(e.message ?? e) });
  }
  parentPort.postMessage({ progress: size });
}
parentPort.postMessage({ done: out }, transfer);
