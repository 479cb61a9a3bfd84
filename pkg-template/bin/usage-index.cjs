// The incremental index of `statusline` and `usage` (the one Claude Code
// runs every few seconds must not read a 4 GB history each time): per file,
// its size, mtime, inode, the byte it was read to (the end of its last
// whole line) and the request rows read from it (usage_rows.rs). A file
// unchanged since is not opened; a Claude Code file that grew (appending is
// all Claude Code does) has only its new bytes read, and its rows merged by
// request key (a response streamed across the old end keeps its largest
// usage, as a whole read keeps it); any other change (shorter, rewritten,
// another inode, bytes before the old end that differ) reads the file
// again whole. Other formats are read whole when they change (a Codex
// rollout's counts run across the file; a Gemini session is rewritten).
//
// The index also keeps the walk of the folders asked for (each folder
// read, with its mtime and inode, and the session files found): while no
// folder's mtime changed, no file was added, removed or renamed, so a warm
// run lists no folder and resolves no path, it stats the folders and the
// files, and that is all it asks of the disk. A run that changed nothing
// writes nothing. (Why: a warm status line on a 1 GB history spent a third
// of its time walking and resolving paths, and a tenth rewriting the index.)
//
// It keeps what the report's totals need so that an append costs only its
// own rows: each request's copies across files and the table of request
// keys (usage-count.cjs: an appended key is one probe), a cut from which
// today's and the active block's rows are all in the files written to
// since, and the days of --by day per zone (usage-days.cjs).
//
// One file in the user's cache folder (XDG_CACHE_HOME or ~/.cache, or
// GARUDA_CACHE_DIR), mode 0600 in a 0700 folder, written whole and renamed
// into place: a 4-byte header length, the header (JSON, each file an array
// of its fields, not an object: it parses in a fraction of the time), then
// every file's rows and the key table as float64s. A run that only carried
// appends on writes a delta beside it instead (same shape, same mode: the
// entries of the files appended to, the table's slots written, the cut and
// the days, under the index's generation), folded in when it outgrows 4 MB.
// Both hold token counts, costs, model names, request keys as hashed
// numbers, file paths and hashes of 64 bytes at each file's head and read
// end, nothing of the conversations. A header of another version, or of
// other read options (--prices, --format), is rebuilt from scratch.
"use strict";

const fs = require("node:fs");
const os = require("node:os");
const path = require("node:path");
const crypto = require("node:crypto");
const { session } = require("./cli.cjs");
const { STRIDE, sessionFiles, lossOf, warnLoss } = require("./usage.cjs");
const { readItems, replayAll, startEarly } = require("./usage-read.cjs");
const { cacheDir, statOnce } = require("./usage-answers.cjs");
const count = require("./usage-count.cjs");
const daysKept = require("./usage-days.cjs");

const VERSION = 3;
const CHECK = 64;
const CHUNK = 4 << 20;
const KEY = 8;
const OUTPUT = 3;
/** Walks kept (statusline's folders, usage's, a few asked by hand). */
const WALKS = 8;
/** A file's fields in the header, in order. */
const FIELDS = ["format", "costUsd", "costIncomplete", "models", "offset", "appendable", "size", "mtimeMs", "ino", "tail", "head", "rowsAt", "rowsLen", "first", "pos", "maxT", "copies"];

const indexFile = () => path.join(cacheDir(), `usage-index-v${VERSION}.bin`);

const deltaFile = () => path.join(cacheDir(), `usage-index-v${VERSION}.delta`);
/** A delta larger than this is folded into the index (written whole). */
const MAX_DELTA = 4 << 20;

/** A file of the index's shape: a 4-byte header length, the header (JSON), padding to 8, float64s. */
function readShaped(file) {
  const buf = fs.readFileSync(file);
  const len = buf.readUInt32LE(0);
  const header = JSON.parse(buf.subarray(4, 4 + len).toString("utf8"));
  const start = 4 + len + ((8 - ((4 + len) % 8)) % 8);
  // A copy when the bytes are not 8-aligned in their buffer (a small file read into Node's pool).
  const aligned = (buf.byteOffset + start) % 8 === 0 ? buf : Buffer.from(buf);
  return { header, data: new Float64Array(aligned.buffer, aligned.byteOffset + start, (buf.length - start) / 8) };
}

/** Writes `header` and `parts` (float64 arrays, one after another) in one buffer, 0600, renamed into place. */
function writeShaped(file, header, parts) {
  const head = Buffer.from(JSON.stringify(header), "utf8");
  const start = 4 + head.length + ((8 - ((4 + head.length) % 8)) % 8);
  const n = parts.reduce((a, p) => a + p.length, 0);
  const whole = Buffer.from(new ArrayBuffer(start + n * 8));
  whole.writeUInt32LE(head.length, 0);
  head.copy(whole, 4);
  const data = new Float64Array(whole.buffer, start, n);
  let at = 0;
  for (const p of parts) {
    data.set(p, at);
    at += p.length;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, whole, { mode: 0o600 });
  fs.renameSync(tmp, file);
}

/** Entries as the header lists them (each an array of its fields; its rows' place in `parts`). */
function entriesOf(files) {
  const rows = [];
  const parts = [];
  let at = 0;
  for (const [file, e] of files) {
    rows.push([file, ...FIELDS.map((f) => (f === "rowsAt" ? at : f === "rowsLen" ? e.rows.length : e[f]))]);
    parts.push(e.rows);
    at += e.rows.length;
  }
  return { rows, parts, total: at };
}

function entryOf(row, data) {
  const e = {};
  FIELDS.forEach((f, i) => (e[f] = row[i + 1]));
  e.rows = data.subarray(e.rowsAt, e.rowsAt + e.rowsLen);
  return e;
}

/**
 * The index as it was written, or an empty one when absent, unreadable or
 * of other options; with its delta (what appends changed since it was
 * written whole: the entries of the files appended to, the slots of the
 * table written, the cut and the days) applied.
 */
function load(optionsKey) {
  const empty = { files: new Map(), walks: [], count: null, days: null, gen: null, delta: null };
  try {
    const { header, data } = readShaped(indexFile());
    if (header.version !== VERSION || header.options !== optionsKey) return empty;
    const files = new Map();
    for (const row of header.files) files.set(row[0], entryOf(row, data));
    // The table of request keys (usage-count.cjs) after every file's rows: its keys, then the row that counts each.
    const count = header.count ?? null;
    if (count) count.table = { keys: data.subarray(count.tableAt, count.tableAt + count.tableSize), owners: data.subarray(count.tableAt + count.tableSize, count.tableAt + 2 * count.tableSize) };
    let days = header.days ?? null;
    const delta = { files: new Set(), slots: new Set() };
    let d = null;
    try {
      d = readShaped(deltaFile());
    } catch {
      d = null;
    }
    if (d && count && d.header.gen === header.gen) {
      for (const row of d.header.files) {
        files.set(row[0], entryOf(row, d.data));
        delta.files.add(row[0]);
      }
      for (let p = d.header.patchAt; p < d.data.length; p += 3) {
        count.table.keys[d.data[p]] = d.data[p + 1];
        count.table.owners[d.data[p]] = d.data[p + 2];
        delta.slots.add(d.data[p]);
      }
      count.cut = d.header.cut;
      days = d.header.days;
    }
    return { files, walks: header.walks, count, days, gen: header.gen, delta };
  } catch {
    return empty;
  }
}

/** The index written whole (a new generation: a delta of the one before is of no use). */
function save(optionsKey, files, walks, { table, ...counted }, days) {
  const { rows, parts, total } = entriesOf(files);
  counted.tableAt = total;
  counted.tableSize = table.keys.length;
  writeShaped(indexFile(), { version: VERSION, options: optionsKey, gen: crypto.randomBytes(8).toString("hex"), files: rows, walks, count: counted, days }, [...parts, table.keys, table.owners]);
  fs.rmSync(deltaFile(), { force: true });
  // An index of an earlier version is no use to this one.
  for (let v = 1; v < VERSION; v++) fs.rmSync(path.join(cacheDir(), `usage-index-v${v}.bin`), { force: true });
}

/**
 * What appends changed since the index was written whole (`changed`: the
 * files, `slots`: the table's): a small file, so a status line after an
 * append writes kilobytes, not the 10 MB of a 1 GB history's index.
 * Returns false when it would be too large (the caller writes it whole).
 */
function saveDelta(gen, files, changed, slots, table, cut, days) {
  const entries = new Map([...changed].map((f) => [f, files.get(f)]).filter(([, e]) => e));
  const { rows, parts, total } = entriesOf(entries);
  if ((total + slots.size * 3) * 8 > MAX_DELTA) return false;
  const patches = new Float64Array(slots.size * 3);
  let p = 0;
  for (const h of slots) {
    patches[p++] = h;
    patches[p++] = table.keys[h];
    patches[p++] = table.owners[h];
  }
  writeShaped(deltaFile(), { version: VERSION, gen, files: rows, patchAt: total, cut, days }, [...parts, patches]);
  return true;
}

/** A short hash of some bytes (what tells an append from a rewrite, without keeping the bytes). */
const hash = (buf) => crypto.createHash("sha256").update(buf).digest("base64").slice(0, 22);

/**
 * The session files under `paths` (usage.cjs `sessionFiles`), from the
 * index's walk of the same paths when no folder of it changed; `changed`
 * says whether the walk was made again (and the index is to be written).
 */
function walkOf(index, paths) {
  const key = JSON.stringify(paths.map((p) => path.resolve(p)));
  const kept = index.walks.find((w) => w.key === key);
  if (kept && kept.roots.every(([p, ino]) => statOnce(p)?.ino === ino) && kept.dirs.every(([d, mtimeMs, ino]) => {
    const st = statOnce(d);
    return st ? st.mtimeMs === mtimeMs && st.ino === ino : mtimeMs === -1;
  })) {
    // One shape for every file (a spread made each a slow object: a tenth of a warm run on a 1 GB history).
    const files = kept.files.map(([file, named, id, project, parent]) => ({ file, size: 0, named, id, project, parent: parent === null ? undefined : parent, link: undefined }));
    return { files, walk: kept, changed: false };
  }
  const dirs = [];
  const roots = paths.map((p) => [p, fs.statSync(p, { throwIfNoEntry: false })?.ino ?? -1]);
  const files = sessionFiles(paths, { dirs });
  // A link among the files: what it leads to can change with no folder's
  // mtime changing, so such a walk is made again every time.
  const walk = files.some((f) => f.link) ? null : { key, roots, dirs, files: files.map((f) => [f.file, f.named, f.id, f.project, f.parent ?? null]) };
  return { files, walk, changed: true };
}

/** Bytes `start..end` of a file read whole lines at a time into a usage-only Journal; returns what it read and where its last whole line ends. */
function readFrom(file, start, size, options, stats) {
  const journal = new session.Journal({ ...options, usageOnly: true });
  const fd = fs.openSync(file, "r");
  const buf = Buffer.allocUnsafe(CHUNK);
  let at = start;
  let pending = Buffer.alloc(0);
  try {
    while (at < size) {
      const n = fs.readSync(fd, buf, 0, Math.min(CHUNK, size - at), at);
      if (n <= 0) break;
      at += n;
      stats.bytesRead += n;
      const data = pending.length ? Buffer.concat([pending, buf.subarray(0, n)]) : buf.subarray(0, n);
      const cut = data.lastIndexOf(10) + 1;
      if (cut > 0) journal.feed(data.subarray(0, cut));
      pending = Buffer.from(data.subarray(cut));
    }
    journal.finish();
    const state = journal.state();
    const { format, costUsd, costIncomplete } = state;
    return { format, costUsd, costIncomplete, ...lossOf(state), rows: journal.usageRows(), models: JSON.parse(journal.usageModels()), offset: at - pending.length };
  } finally {
    fs.closeSync(fd);
    journal.free();
  }
}

/** The `CHECK` bytes before `offset` (hashed), to tell an appended file from a rewritten one. */
function tailOf(file, offset, stats) {
  const from = Math.max(0, offset - CHECK);
  const buf = Buffer.alloc(offset - from);
  const fd = fs.openSync(file, "r");
  try {
    fs.readSync(fd, buf, 0, buf.length, from);
  } finally {
    fs.closeSync(fd);
  }
  stats.bytesChecked += buf.length;
  return hash(buf);
}

/** The file's first `CHECK` bytes (hashed): with the tail, what tells an append from a rewrite. */
function headOf(file, stats) {
  const buf = Buffer.alloc(CHECK);
  const fd = fs.openSync(file, "r");
  let n;
  try {
    n = fs.readSync(fd, buf, 0, CHECK, 0);
  } finally {
    fs.closeSync(fd);
  }
  stats.bytesChecked += n;
  return hash(buf.subarray(0, n));
}

/** Rows read from a file's new bytes merged into its old ones: a request in both keeps the larger usage (the later line on a tie is a copy). */
function merge(old, add) {
  const models = [...old.models];
  const remap = add.models.map((m) => {
    const i = models.indexOf(m);
    if (i >= 0) return i;
    models.push(m);
    return models.length - 1;
  });
  const rows = Array.from(old.rows);
  const byKey = new Map();
  const added = [];
  const replaced = [];
  const was = [];
  for (let k = 0; k < rows.length; k += STRIDE) if (rows[k + KEY] > 0) byKey.set(rows[k + KEY], k);
  for (let k = 0; k < add.rows.length; k += STRIDE) {
    const row = Array.from(add.rows.subarray(k, k + STRIDE));
    row[1] = remap[row[1]];
    const at = row[KEY] > 0 ? byKey.get(row[KEY]) : undefined;
    if (at === undefined) {
      if (row[KEY] > 0) byKey.set(row[KEY], rows.length);
      added.push(rows.length);
      rows.push(...row);
    } else if (row[OUTPUT] > rows[at + OUTPUT]) {
      replaced.push(at);
      was.push(rows[at]);
      for (let i = 0; i < STRIDE; i++) rows[at + i] = row[i];
    }
  }
  return { added, replaced, was, rows: Float64Array.from(rows), models, costUsd: old.costUsd === null || add.costUsd === null ? null : old.costUsd + add.costUsd, costIncomplete: old.costIncomplete || add.costIncomplete };
}

/**
 * The report's items for the session files under `paths` (files or
 * folders), through the index. `stats` (returned as `items.stats`) counts
 * the bytes read: the proof that appending re-reads only what was
 * appended. `progress(bytes)` hears how much is to be read (and returns
 * what `tick(done)` is called on as it is).
 */
async function readIndexed(paths, options, warn, { noIndex = false, progress = () => ({ tick() {} }), dayZone = null } = {}) {
  const stats = { bytesRead: 0, bytesChecked: 0, filesRead: 0, filesAppended: 0, filesFromIndex: 0, walked: false };
  if (noIndex) {
    startEarly(options);
    const compiling = compileAhead();
    const files = sessionFiles(paths);
    await useCompiled(compiling);
    const bar = progress(files.reduce((a, f) => a + f.size, 0));
    const items = await readItems(files, options, (done) => bar.tick(done), warn);
    stats.bytesRead = files.reduce((a, f) => a + f.size, 0);
    stats.walked = true;
    items.stats = stats;
    return items;
  }
  const optionsKey = crypto.createHash("sha256").update(JSON.stringify(options ?? {})).digest("hex");
  const index = load(optionsKey);
  // No index yet: every file is to be read, so the second reading thread
  // starts now, while the walk runs (before the wasm's file is read below).
  if (index.files.size === 0) startEarly(options);
  // The wasm compiled on V8's threads while this one walks and stats the
  // files (compiled here, when appended lines are to be parsed, it was 20
  // to 35 ms of a status line's 100): used only if a file needs reading.
  const compiling = compileAhead();
  const { files, walk, changed } = walkOf(index, paths);
  stats.walked = changed;
  let dirty = changed;
  // What the answers (usage-answers.cjs) computed from these items depend on: none when a file could not be stat'ed or the walk met a link.
  let snapshot = walk ? { dirs: walk.dirs, files: [] } : null;
  const next = new Map();
  const plan = [];
  const whole = [];
  for (const f of files) {
    let st;
    try {
      // (The stat of the kept answers' check when it made one; the disk's error when there is none.)
      st = statOnce(f.file) ?? fs.statSync(f.file);
    } catch (e) {
      warn(`${f.file}: cannot read it (${e.code ?? e.message}); the report leaves it out`);
      dirty = true;
      snapshot = null;
      continue;
    }
    snapshot?.files.push([f.file, st.size, st.mtimeMs, st.ino]);
    const old = index.files.get(f.file);
    let how = "whole";
    try {
      if (old && old.size === st.size && old.mtimeMs === st.mtimeMs && old.ino === st.ino) how = "same";
      // Grown, same inode, the same first and last bytes before the old end: appended to (an in-place rewrite of the same size, or a shorter one, is read whole).
      else if (old && old.appendable && old.ino === st.ino && st.size > old.size && tailOf(f.file, old.offset, stats) === old.tail && headOf(f.file, stats) === old.head) how = "append";
    } catch {
      how = "whole";
    }
    if (how !== "same") dirty = true;
    plan.push({ f, st, old, how });
    if (how === "whole") whole.push({ ...f, size: st.size });
  }
  if (plan.some((p) => p.how !== "same")) await useCompiled(compiling);
  // Files read whole go to the two threads of a plain report (a cold index costs what no index costs).
  const bar = progress(whole.reduce((a, f) => a + f.size, 0));
  const read = await replayAll(whole, options, (done) => bar.tick(done));
  stats.bytesRead += whole.reduce((a, f) => a + f.size, 0);
  const readOf = new Map(whole.map((f, i) => [f.file, read[i]]));
  const items = [];
  // The appended files' new rows (by item), and whether every file is as kept or appended to: the kept marks of copies may then be carried on (usage-count.cjs).
  const appended = new Map();
  let carried = !changed && plan.length === files.length;
  for (const { f, st, old, how } of plan) {
    let e;
    try {
      if (how === "same") {
        e = old;
        stats.filesFromIndex++;
      } else if (how === "append") {
        const add = readFrom(f.file, old.offset, st.size, { ...options, format: "claude-code" }, stats);
        // Line numbers of an appended read start at its first new line: not the file's.
        warnLoss(warn, f.file, { ...add, tooLongLine: null, skippedLine: null });
        e = { ...old, ...merge(old, add), offset: add.offset, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
        e.tail = tailOf(f.file, e.offset, stats);
        e.copies = [...(old.copies ?? [])];
        stats.filesAppended++;
      } else {
        const r = readOf.get(f.file);
        if (r.error) throw Object.assign(new Error(r.error), { code: r.error });
        warnLoss(warn, f.file, r);
        // Read to its end: only a Claude Code file that ends with a whole
        // line may later be read from there on (appended to).
        const appendable = r.format === "claude-code" && st.size > 0 && lastByte(f.file) === 10;
        e = { format: r.format, costUsd: r.costUsd, costIncomplete: r.costIncomplete, rows: r.rows, models: r.models, offset: st.size, appendable, size: st.size, mtimeMs: st.mtimeMs, ino: st.ino };
        e.tail = appendable ? tailOf(f.file, e.offset, stats) : "";
        e.head = appendable ? headOf(f.file, stats) : "";
        stats.filesRead++;
        carried = false;
      }
    } catch (err) {
      warn(`${f.file}: cannot read it (${err.code ?? err.message}); the report leaves it out`);
      snapshot = null;
      carried = false;
      continue;
    }
    next.set(f.file, e);
    if (e.format === null) {
      if (f.named) items.unknownFormat = f.file;
      continue;
    }
    if (how === "append") appended.set(items.length, { added: e.added, replaced: e.replaced, was: e.was });
    // Each field named, one shape for all (a spread of the walk's object was 15 ms of a run on a 1 GB history).
    items.push({ file: f.file, size: st.size, named: f.named, id: f.id, project: f.project, parent: f.parent, link: f.link, format: e.format, costUsd: e.costUsd, costIncomplete: e.costIncomplete, rows: e.rows, models: e.models, copies: e.copies, first: e.first, pos: e.pos, maxT: e.maxT });
  }
  // Each request once across files: the kept marks carried on, or all counted again.
  const kept = index.count;
  carried &&= kept !== null && kept.files.length === items.length && items.every((it, i) => it.file === kept.files[i]) && items.every((it) => Array.isArray(it.copies));
  let cut;
  let table;
  const changedCopies = [];
  const slots = [];
  if (carried && count.countAppended(items, appended, kept.cut, kept.table, changedCopies, slots)) {
    ({ cut, table } = kept);
    stats.counted = "carried";
  } else {
    let keys, owners;
    ({ cut, keys, owners } = count.countAll(items));
    table = { keys, owners };
    stats.counted = "all";
    dirty = true;
  }
  for (const it of items) Object.assign(next.get(it.file), { copies: it.copies, first: it.first, pos: it.pos, maxT: it.maxT });
  // The days of --by day kept per zone (usage-days.cjs): those an append touched added up again, this run's zone's made when absent.
  const touched = [...changedCopies.map(([j, k]) => [j, k, undefined])];
  for (const [i, a] of appended) {
    for (const k of a.added) touched.push([i, k, undefined]);
    a.replaced.forEach((k, n) => touched.push([i, k, a.was[n]]));
  }
  const before = JSON.stringify(index.days ?? []);
  const { days, groups, made } = daysKept.update(index.days, { items, carried: stats.counted === "carried", touched, cut, asked: dayZone });
  if (dayZone) stats.days = made ? "made" : "kept";
  if (!dirty && JSON.stringify(days) !== before) dirty = true;
  // A run that changed nothing leaves the index as it is.
  if (dirty) {
    // Files of the index not asked for this time are kept (another folder's report), and the walks of other paths.
    for (const [file, e] of index.files) if (!next.has(file) && fs.existsSync(file)) next.set(file, e);
    const walks = [...(walk ? [walk] : []), ...index.walks.filter((w) => w.key !== walk?.key)].slice(0, WALKS);
    try {
      // Only appends carried on: a delta beside the index (the files appended to, and those whose copies changed), else the index whole.
      const changedFiles = new Set([...(index.delta?.files ?? []), ...[...appended.keys()].map((i) => items[i].file), ...changedCopies.map(([j]) => items[j].file)]);
      const delta = stats.counted === "carried" && index.gen && saveDelta(index.gen, next, changedFiles, new Set([...index.delta.slots, ...slots]), table, cut, days);
      if (!delta) save(optionsKey, next, walks, { files: items.map((it) => it.file), cut, table }, days);
    } catch (err) {
      warn(`the usage index could not be written (${err.code ?? err.message}); the next run reads every file again`);
    }
  }
  items.stats = stats;
  items.snapshot = snapshot;
  // The copies are known (statusline marks them, usage-count.cjs applyCopies, instead of counting every row again); from `cut` on, the files whose latest row is not earlier hold every row today's and the active block's figures need.
  items.copiesKnown = true;
  items.cut = cut;
  items.days = groups;
  return items;
}

/**
 * The module `compileAhead` compiled, given to the glue before this thread
 * first reads a file. A cold read (no index, or an empty one) reads on this
 * thread too, beside the second one: compiled here after the walk, the
 * wasm held that thread's first file back. On the 500 MB bench history
 * (`usage --no-index`, six runs alternating), this thread's first file
 * was read 31 ms after the walk instead of 40 (medians); the whole run's
 * time moved less than the machine's noise.
 */
async function useCompiled(compiling) {
  const compiled = await compiling;
  if (compiled) session.__garudaWasm.use(compiled);
}

/** The package's wasm being compiled off this thread (null: loaded already, or not there: the glue reads it as it does). */
function compileAhead() {
  try {
    if (session.__garudaWasm?.loaded !== false) return null;
    const bytes = fs.readFileSync(path.join(__dirname, "..", "web", "garuda_session_bg.wasm"));
    return WebAssembly.compile(bytes).catch(() => null);
  } catch {
    return null;
  }
}

function lastByte(file) {
  const fd = fs.openSync(file, "r");
  try {
    const b = Buffer.alloc(1);
    fs.readSync(fd, b, 0, 1, fs.fstatSync(fd).size - 1);
    return b[0];
  } finally {
    fs.closeSync(fd);
  }
}

module.exports = { readIndexed, indexFile, cacheDir };
