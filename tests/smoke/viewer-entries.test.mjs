// The viewer's page takes a big session's entries unparsed (JSON bytes, a
// piece of 256 at a time) and parses a piece, settled by the patch, when
// one of its entries is first read (web-demo/viewer-entries.js). Whatever
// order they are read in, the entries must be what the core gives for the
// whole journal at once (the oracle: `transcript()` of a Journal fed whole,
// not the patch's columns), and so must the items reading mode shows and
// the inline runs it names. Run on every real session in ../shared/peers
// (skipped, with a line saying so, without it) and a generated journal.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import { Incoming } from "../../web-demo/viewer-entries.js";
import { Sender, PIECE } from "../../web-demo/worker-send.js";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { Journal } = createRequire(import.meta.url)(path.join(root, "pkg/node/garuda_session.js"));
const peers = path.join(process.env.GARUDA_SHARED ?? path.join(root, "../shared"), "peers");
const SKIP = fs.existsSync(peers) ? false : `SKIP viewer entries on real sessions: ${peers} is absent (../shared sits beside the repository in CI)`;
const real = SKIP ? [] : fs.readdirSync(peers, { recursive: true }).map(String).filter((f) => f.endsWith(".jsonl")).sort().map((f) => path.join(peers, f));

/** What the worker posts (worker-send.js) for `bytes` fed in `chunk`-byte pieces: drafts as read, then the patch, or the entries whole when settling moved them. */
function messages(bytes, chunk) {
  const journal = new Journal({ history: true, lean: true });
  const out = [];
  const sender = new Sender((m) => out.push(m), 1, journal);
  for (let at = 0; at < bytes.length; at += chunk) {
    journal.feed(bytes.subarray(at, at + chunk));
    sender.draft();
  }
  journal.finish();
  sender.update();
  journal.free();
  return out;
}

/** The core's transcript of `bytes` fed whole. */
function whole(bytes) {
  const journal = new Journal({ history: true });
  journal.feed(bytes);
  journal.finish();
  const t = journal.transcript();
  journal.free();
  return t;
}

/** The page's Incoming after `posted` (viewer.js's handler), finished. */
function taken(posted, eager, incoming = null) {
  for (const m of posted) {
    incoming = Incoming.take(incoming, m.bytes ? { ...m, bytes: m.bytes.slice() } : m, { eager });
  }
  return Incoming.take(incoming, { type: "ready", load: 1 }, { eager });
}

/** Checks one file read both ways: entries read lazily in a scattered order, the reading items, the runs, then all of them; and the notes the summary shows. */
function check(name, bytes) {
  const want = whole(bytes);
  let lazyChecked = 0;
  for (const [chunk, eager] of [[65536, 0], [1 << 22, 8]]) {
    const got = taken(messages(bytes, chunk), eager);
    const entries = got.entries;
    assert.equal(entries.length, want.length, `${name}: entries`);
    const lazy = entries !== got.target;
    if (lazy) {
      lazyChecked++;
      assert.ok(!got.complete || want.length <= PIECE, `${name}: only the first piece parsed before any is asked`);
      // A search's hits by line (viewer.js entriesAtLines): the entries of
      // each line lie in the range found, and finding it parses no piece.
      const lines = [...new Set(want.map((e) => e.line))];
      const sample = [0, want.at(-1).line + 1, ...lines.filter((_, k) => k % 53 === 0)];
      for (const line of sample) {
        const { lo, hi } = got.rangeOfLine(line);
        want.forEach((e, i) => e.line === line && assert.ok(lo <= i && i < hi, `${name}: entry ${i} of line ${line} in ${lo}..${hi}`));
        assert.ok(hi - lo <= 3 * PIECE, `${name}: line ${line}'s range ${lo}..${hi} is a piece or two`);
      }
      assert.equal(got.pieces.filter((p) => p.done).length, 1, `${name}: no piece parsed to find lines`);
    }
    // Read from the end backwards by a stride, so pieces are parsed out of order.
    for (let i = want.length - 1; i >= 0; i -= 97) assert.deepEqual(entries[i], want[i], `${name}: entry ${i} (chunks of ${chunk})`);
    const items = want.flatMap((e, i) => (e.underCalls ? [] : [i]));
    assert.deepEqual(got.readingItems(), items, `${name}: reading items`);
    const runs = new Set(want.flatMap((e) => (e.tools ?? []).map((t) => t.child).filter((c) => c?.startsWith("sidechain-"))));
    if (got.sidechains) assert.deepEqual([...got.sidechains].sort(), [...runs].sort(), `${name}: inline runs`);
    assert.equal(got.estimates.length, want.length);
    assert.deepEqual(JSON.parse(JSON.stringify(entries)), want, `${name}: all entries`);
    assert.ok(got.complete, `${name}: every piece parsed`);
  }
  // What the summary shows of every entry (transcriptNotes), against the entries.
  const journal = new Journal({ history: true, lean: true });
  journal.feed(bytes);
  journal.finish();
  const warnings = want.flatMap((e, i) => (e.kind === "warning" ? [i] : []));
  const runs = want.reduce((a, e) => a + (e.kind === "warning" ? 0 : (e.subagents ?? []).length), 0);
  assert.deepEqual(journal.transcriptNotes(), { warnings: warnings.slice(0, 50), warningCount: warnings.length, subagentRuns: runs }, `${name}: notes`);
  journal.free();
  return lazyChecked;
}

test("a big generated journal's entries, taken unparsed and read in any order, are the core's whole transcript", async () => {
  const { journalFile } = await import(path.join(root, "bench/data.mjs"));
  const bytes = fs.readFileSync(journalFile(10));
  assert.equal(check("10mb.jsonl", bytes), 2, "the lazy path was taken, both times");
});

test("the same on every real session in ../shared/peers", { skip: SKIP }, () => {
  let lazy = 0;
  for (const file of real) lazy += check(path.relative(peers, file), fs.readFileSync(file));
  assert.ok(real.length >= 10, `${real.length} real sessions`);
  assert.ok(lazy >= real.length / 2, `${lazy} read lazily`);
});

/** The core's transcript of the first bytes of a journal a writer still writes (`gone`: its writer has finished), fed whole. */
function prefix(bytes, gone) {
  const journal = new Journal({ history: true });
  journal.feed(bytes);
  if (gone) journal.finish();
  const t = journal.transcript();
  journal.free();
  return t;
}

/**
 * Follows a journal as the viewer does (worker.js `open`, then `poll`):
 * read up to the first cut, then each cut's bytes an update, the last with
 * its writer gone. After each, the page's entries must be the core's
 * transcript of that prefix read whole. Odd updates read only a stride of
 * entries, so later ones both settle parsed entries again and parse pieces
 * under slices replaced since. Returns what was posted.
 */
function follow(name, bytes, cuts, eager) {
  const journal = new Journal({ history: true, lean: true });
  let posted = [];
  const sender = new Sender((m) => posted.push(m), 1, journal);
  let incoming = null;
  let at = 0;
  const sent = { drafted: 0, patches: 0, whole: 0, updates: [] };
  for (const [k, cut] of cuts.entries()) {
    const gone = k === cuts.length - 1;
    journal.feed(bytes.subarray(at, cut));
    at = cut;
    if (gone) journal.finish();
    if (k === 0) sender.follow();
    sender.update();
    for (const m of posted) {
      incoming = Incoming.take(incoming, m.bytes ? { ...m, bytes: m.bytes.slice() } : m, { eager });
      if (m.bytes) sent.drafted += m.to - m.from;
      if (m.patch) sent.patches++;
      if (m.json) sent.whole++;
    }
    sent.updates.push(posted.reduce((a, m) => a + (m.bytes?.length ?? m.patch?.length ?? m.json?.length), 0));
    posted = [];
    incoming = Incoming.take(incoming, { type: k ? "update" : "ready", load: 1 }, { eager });
    const want = prefix(bytes.subarray(0, cut), gone);
    const entries = incoming.entries;
    assert.equal(entries.length, want.length, `${name}: entries after update ${k}`);
    if (k % 2 && !gone) for (let i = want.length - 1; i >= 0; i -= 97) assert.deepEqual(entries[i], want[i], `${name}: entry ${i} after update ${k}`);
    else assert.deepEqual(JSON.parse(JSON.stringify(entries)), want, `${name}: entries after update ${k}`);
    assert.deepEqual(incoming.readingItems(), want.flatMap((e, i) => (e.underCalls ? [] : [i])), `${name}: reading items after update ${k}`);
    assert.equal(incoming.estimates.length, want.length);
  }
  journal.free();
  return { ...sent, total: incoming.entries.length };
}

test("a followed journal's updates post only what the page lacks, and the page's entries are the core's for each prefix", async () => {
  const { journalFile } = await import(path.join(root, "bench/data.mjs"));
  const big = fs.readFileSync(journalFile(10));
  // Cuts at no line's end: each update ends with a torn line, waited for.
  const cuts = [1.3, 2.1, 2.2, 4.7, 6.1, 8.9].map((mb) => Math.round(mb * 1e6)).concat(big.length);
  for (const eager of [0, 8]) {
    const s = follow("10mb.jsonl", big, cuts, eager);
    assert.equal(s.whole, 0, "nothing sent whole");
    assert.equal(s.drafted, s.total, "each entry drafted once");
    // Each update's bytes: its drafts and a few slices of the patch, not every entry again.
    const wholeJson = fs.statSync(journalFile(10)).size / 4;
    for (const [k, b] of s.updates.entries()) if (k) assert.ok(b < wholeJson / 2, `update ${k}: ${b} bytes posted`);
    console.log(`follow 10mb.jsonl (eager ${eager}): ${s.total} entries, bytes posted per update ${s.updates.join(", ")}; ${s.patches} patch slices`);
  }
  // Every journal of ours in the repository (undo, redo, compaction and
  // torn tails change what earlier entries say), followed line by line.
  const ours = [path.join(root, "tests/golden"), path.join(root, "web-demo/samples")].flatMap((d) => fs.readdirSync(d).filter((f) => f.endsWith(".jsonl")).map((f) => path.join(d, f)));
  assert.ok(ours.length >= 12, `${ours.length} journals`);
  for (const file of ours) {
    const bytes = fs.readFileSync(file);
    const ends = [...bytes.keys()].filter((i) => bytes[i] === 10).map((i) => i + 1);
    // Every line's end, and halfway through the last line.
    const cuts = [...ends.filter((e) => e < bytes.length), Math.max(1, bytes.length - 20), bytes.length];
    const s = follow(path.relative(root, file), bytes, [...new Set(cuts)].sort((a, b) => a - b), 8);
    assert.equal(s.whole, 0, `${file}: nothing sent whole`);
  }
});
