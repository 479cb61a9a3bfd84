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

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const { Journal } = createRequire(import.meta.url)(path.join(root, "pkg/node/garuda_session.js"));
const peers = path.join(process.env.GARUDA_SHARED ?? path.join(root, "../shared"), "peers");
const SKIP = fs.existsSync(peers) ? false : `SKIP viewer entries on real sessions: ${peers} is absent (../shared sits beside the repository in CI)`;
const real = SKIP ? [] : fs.readdirSync(peers, { recursive: true }).map(String).filter((f) => f.endsWith(".jsonl")).sort().map((f) => path.join(peers, f));

// As web-demo/worker.js sends them.
const PIECE = 256;
const PATCH = 3072;

/** What the worker posts for `bytes` fed in `chunk`-byte pieces: drafts as read, then the patch, or the entries whole when settling moved them. */
function messages(bytes, chunk) {
  const journal = new Journal({ history: true, lean: true });
  const out = [];
  let drafted = 0;
  const draft = () => {
    const length = journal.transcriptLength;
    for (let from = drafted; from < length; from += PIECE) {
      const to = Math.min(length, from + PIECE);
      out.push({ type: "entries", from, to, bytes: journal.transcriptDraftJson(from, to) });
    }
    drafted = Math.max(drafted, length);
  };
  for (let at = 0; at < bytes.length; at += chunk) {
    journal.feed(bytes.subarray(at, at + chunk));
    draft();
  }
  journal.finish();
  draft();
  const total = journal.transcriptLength;
  const patches = [];
  for (let from = 0; from < total; from += PATCH) {
    const patch = journal.transcriptPatchJson(from, Math.min(total, from + PATCH));
    if (patch == null) {
      // Settling moved entries: all of them again, as JSON text.
      patches.length = 0;
      out.push({ type: "entries", from: 0, json: journal.transcriptJson(0, total) });
      break;
    }
    patches.push({ type: "patch", patch });
  }
  journal.free();
  return [...out, ...patches];
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
function taken(posted, eager) {
  let incoming = new Incoming({ eager });
  for (const m of posted) {
    if (m.type === "entries" && m.from === 0) incoming = new Incoming({ eager });
    if (m.type === "entries") incoming.add(m.bytes ? { ...m, bytes: m.bytes.slice() } : m);
    else incoming.patch(JSON.parse(m.patch));
  }
  return incoming.finish();
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
