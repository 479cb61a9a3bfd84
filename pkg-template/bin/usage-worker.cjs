// One thread of `garuda-session usage`: replays the files it is given (usage
// only: no messages kept) and sends back what the report adds up. The main
// thread splits a big folder between two of these, so both cores read.
"use strict";

const fs = require("node:fs");
const { parentPort, workerData } = require("node:worker_threads");
const session = require("../node/garuda_session.js");

const buf = Buffer.allocUnsafe(4 << 20);

function replay(file, options) {
  const journal = new session.Journal({ ...options, usageOnly: true });
  const fd = fs.openSync(file, "r");
  let n;
  try {
    while ((n = fs.readSync(fd, buf, 0, buf.length, null)) > 0) journal.feed(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
  journal.finish();
  const { format, usageByDay, costUsd, costIncomplete } = journal.state();
  journal.free();
  return { format, usageByDay, costUsd, costIncomplete };
}

const out = [];
for (const { file, size } of workerData.files) {
  try {
    out.push(replay(file, workerData.options));
  } catch (e) {
    out.push({ error: String(e.message ?? e) });
  }
  parentPort.postMessage({ progress: size });
}
parentPort.postMessage({ done: out });
