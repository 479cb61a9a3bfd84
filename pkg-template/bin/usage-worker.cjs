// One thread of `garuda-session usage`: replays the files it is given (usage
// only: no messages kept) and sends back what the report adds up. The main
// thread splits a big folder between two of these, so both cores read.
"use strict";

const { parentPort, workerData } = require("node:worker_threads");
const session = require("../node/garuda_session.js");
const { usageOf } = require("./usage.cjs");

const buf = Buffer.allocUnsafe(4 << 20);

const out = [];
for (const { file, size } of workerData.files) {
  try {
    out.push(usageOf(session, file, workerData.options, buf));
  } catch (e) {
    out.push({ error: String(e.message ?? e) });
  }
  parentPort.postMessage({ progress: size });
}
parentPort.postMessage({ done: out });
