// Following a live journal in the viewer: what one update costs when the
// session is big. The journal is read up to 99% of its bytes, as the viewer
// opens a session still being written; then each round appends its next two
// lines (a step: the tools' results and the response) and times the update
// both ways, alternating:
// - "now": the worker posts the drafts of the new entries and the patch's
//   slices that changed (web-demo/worker-send.js), and the page adds them
//   to the entries it has (web-demo/viewer-entries.js Incoming.update);
// - "whole": every entry again as JSON text, parsed whole by the page (what
//   an update did before; Sender.whole is the same calls).
// Both run the real code of the worker and the page, on two journals fed
// the same bytes. The worker's and the page's times are threads of their
// own in the browser; the bytes are what crosses between them.
//
// Usage: node bench/follow.mjs   (after .ci/build; MB=100 by default, RUNS=5)
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { journalFile, spread } from "./data.mjs";
import { Sender } from "../web-demo/worker-send.js";
import { Incoming } from "../web-demo/viewer-entries.js";

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), "..");
const { Journal } = createRequire(import.meta.url)(path.join(root, "pkg/node/garuda_session.js"));
const MB = Number(process.env.MB ?? 100);
const RUNS = Number(process.env.RUNS ?? 5);
const bytes = readFileSync(journalFile(MB));

// Where each line ends, and where the first read stops (a line's end at 99%).
const ends = [];
for (let i = bytes.indexOf(10); i >= 0; i = bytes.indexOf(10, i + 1)) ends.push(i + 1);
let line = ends.findIndex((e) => e >= bytes.length * 0.99);

/** A session opened as the viewer opens a followed one: read in 4 MB chunks, drafts as read, then the patch. */
function open(upto) {
  const journal = new Journal({ history: true, lean: true });
  const posted = [];
  const sender = new Sender((m) => posted.push(m), 1, journal);
  for (let at = 0; at < upto; at += 4 << 20) {
    journal.feed(bytes.subarray(at, Math.min(upto, at + (4 << 20))));
    sender.draft();
  }
  sender.follow();
  sender.update();
  const page = take(null, posted, "ready");
  return { journal, sender, posted, page };
}

/** The page's side (viewer.js): each message to its Incoming, then "ready" or "update"; and the items reading mode shows. */
function take(incoming, posted, type) {
  for (const m of posted.splice(0)) incoming = Incoming.take(incoming, m);
  incoming = Incoming.take(incoming, { type, load: 1 });
  incoming.readingItems();
  return incoming;
}

const now = open(ends[line - 1]);
const whole = open(ends[line - 1]);
const figures = { now: { worker: [], page: [], bytes: [] }, whole: { worker: [], page: [], bytes: [] } };

/** One update of `s`: the worker's part (`post`), then the page's; times and bytes into `f`. */
function update(s, post, f) {
  const t0 = performance.now();
  post(s.sender);
  const t1 = performance.now();
  f.bytes.push(s.posted.reduce((a, m) => a + (m.bytes?.length ?? m.patch?.length ?? m.json?.length), 0));
  s.page = take(s.page, s.posted, "update");
  const t2 = performance.now();
  f.worker.push(t1 - t0);
  f.page.push(t2 - t1);
}

for (let round = 0; round <= RUNS && line + 2 <= ends.length; round++, line += 2) {
  const step = bytes.subarray(ends[line - 1], ends[line + 1]);
  for (const s of [now, whole]) s.journal.feed(step);
  update(now, (sender) => sender.update(), round ? figures.now : { worker: [], page: [], bytes: [] });
  update(whole, (sender) => sender.whole(), round ? figures.whole : { worker: [], page: [], bytes: [] });
  if (now.page.entries.length !== whole.page.entries.length) throw new Error("the two journals differ");
}

const stat = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { ms: s[Math.floor(s.length / 2)], min: s[0], max: s.at(-1) };
};
const total = now.page.entries.length;
console.log(`follow: ${(bytes.length / 1e6).toFixed(0)} MB journal, ${total} entries; one update (2 lines appended), ${figures.now.worker.length} rounds alternating, median [min-max] ms:`);
for (const [name, f] of Object.entries(figures)) {
  const mb = stat(f.bytes).ms / 1e6;
  console.log(`  ${name.padEnd(6)} worker ${spread(stat(f.worker))}, page ${spread(stat(f.page))}, ${mb >= 1 ? mb.toFixed(1) + " MB" : (mb * 1e3).toFixed(1) + " KB"} posted`);
}
const ratio = (k) => (stat(figures.whole[k]).ms / stat(figures.now[k]).ms).toFixed(1);
console.log(`  ratio  worker ${ratio("worker")}x, page ${ratio("page")}x, bytes ${ratio("bytes")}x (whole / now)`);
