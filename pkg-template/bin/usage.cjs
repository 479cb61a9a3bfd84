// `garuda-session usage`: what each session file adds, read by the core
// (`Journal` with usageOnly: one row per request, usage_rows.rs), and the
// report over many files: each request once, grouped by day, week or month
// in a time zone, by session (a subagent's file folded into its session),
// by 5-hour block (usage-blocks.cjs) or by model.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { walkSessions } = require("./folders.cjs");
const { dataRoots } = require("./roots.cjs");
const time = require("./usage-time.cjs");

/** Numbers per request row (`Journal.usageRows`). */
const STRIDE = 9;
const [T, MODEL, INPUT, OUTPUT, CACHE_READ, CACHE_WRITE, CACHE_1H, COST, KEY] = [0, 1, 2, 3, 4, 5, 6, 7, 8];

/** Where each agent keeps its sessions (roots.cjs): those that exist. */
const defaultFolders = () => dataRoots();

/**
 * Session files under some paths (folders.cjs walks any agent's layout),
 * each file once however the paths overlap (`~/.claude` and
 * `~/.claude/projects/app`, a link to a folder given too): by its real
 * path. A child run names its session's file (`parent`), whose row counts it.
 */
function sessionFiles(paths, { dirs = null } = {}) {
  const seen = new Set();
  const out = [];
  const realOf = (file) => {
    try {
      return fs.realpathSync.native(file);
    } catch {
      return path.resolve(file);
    }
  };
  const once = (f, real) => {
    if (seen.has(real)) return;
    seen.add(real);
    out.push(f);
  };
  // Folders first: a file given alone that a folder holds keeps the folder's project and parent.
  const stats = paths.map((p) => [p, fs.statSync(p)]);
  for (const [p, st] of stats.filter(([, st]) => st.isDirectory())) {
    // The walk descends real folders only, so a file that is no link is
    // the folder's real path and its own name: one realpath per folder
    // given, not one per file (that was a third of a warm report).
    const base = realOf(p);
    // The walk joins names onto `p` as path.join does, so a file's path
    // under it is what follows `p` normalised (a prefix test, not a
    // path.relative per file); anything else goes the long way.
    const under = path.join(p, path.sep);
    const real = (s) => (s.link ? realOf(s.file) : s.file.startsWith(under) ? path.join(base, s.file.slice(under.length)) : path.join(base, path.relative(p, s.file)));
    for (const s of walkSessions(p, { links: true, dirs })) {
      once({ file: s.file, size: s.size, named: false, id: s.id, project: s.project, link: s.link }, real(s));
      for (const c of s.children) once({ file: c.file, size: c.size, named: false, id: c.id, project: s.project, parent: s.file, link: c.link }, real(c));
    }
  }
  for (const [p, st] of stats.filter(([, st]) => !st.isDirectory())) {
    once({ file: p, size: st.size, named: true, id: path.basename(p).replace(/\.jsonl?$/, ""), project: path.basename(path.dirname(path.resolve(p))) }, realOf(p));
  }
  return out;
}

/**
 * What a usage report needs of one file (usage-only replay: no messages
 * kept), read in chunks into `buf` (one buffer for all files: a fresh 4 MB
 * one per file was a third of the report's time). Both threads use this.
 */
function usageOf(session, file, options, buf) {
  const journal = new session.Journal({ ...options, usageOnly: true });
  let fd;
  try {
    fd = fs.openSync(file, "r");
    // Read straight into wasm memory (the journal's input buffer: no copy
    // from a JS buffer, no buffer allocated per chunk), no larger than the
    // file. A fresh view for every read: wasm memory growing detaches one.
    const st = fs.fstatSync(fd);
    // A link named like a session to a device (/dev/zero) never ends: not read.
    if (!st.isFile()) throw Object.assign(new Error("not a regular file"), { code: st.isDirectory() ? "EISDIR" : "not a regular file" });
    const cap = Math.max(1, Math.min(buf.length, st.size));
    let n;
    while ((n = fs.readSync(fd, journal.inputBuffer(cap), 0, cap, null)) > 0) journal.feedInput(n);
    journal.finish();
    const state = journal.state();
    const { format, costUsd, costIncomplete } = state;
    return { format, costUsd, costIncomplete, rows: journal.usageRows(), models: JSON.parse(journal.usageModels()), ...lossOf(state) };
  } finally {
    if (fd !== undefined) fs.closeSync(fd);
    journal.free();
  }
}

/** Warnings of a line the reader could not read (its request, if any, is not counted). */
const SKIPPED = ["bad-json", "bad-record", "bad-field"];

/**
 * What a file's read left out: lines over the size cap, and lines the reader
 * could not read (ccusage drops those in silence; a torn last line, an agent
 * still writing, is not one of them). Counts and the first of each.
 */
function lossOf({ warnings, warningCounts }) {
  const count = (kinds) => kinds.reduce((a, k) => a + (warningCounts?.[k] ?? 0), 0);
  const first = (kinds) => warnings.find((w) => kinds.includes(w.kind)) ?? null;
  const skippedFirst = first(SKIPPED);
  return { tooLong: count(["line-too-long"]), tooLongLine: first(["line-too-long"])?.line ?? null, skipped: count(SKIPPED), skippedLine: skippedFirst?.line ?? null, skippedWhy: skippedFirst?.message ?? null };
}

/** The report's warning of what a file's read left out (`r`: what lossOf gave). */
function warnLoss(warn, file, r) {
  if (r.tooLong > 0) warn(`${file}: ${r.tooLong} line(s) longer than the line size cap were skipped${r.tooLongLine ? ` (the first is line ${r.tooLongLine})` : ""}; their usage is not counted`);
  if (r.skipped > 0) warn(`${file}: ${r.skipped} line(s) could not be read${r.skippedLine ? ` (the first is line ${r.skippedLine}: ${r.skippedWhy})` : ""}; a request on them is not counted (garuda-session replay lists them)`);
}

/**
 * A Claude Code request copied into several files (a continued session
 * starts with the lines of the one it continues) counts once, as ccusage
 * counts it: by `message.id` and `requestId` (the core's key, a number), in
 * the file whose first request is the oldest (the original, not the copy).
 * A copy's key is set to -1: every view passes it over. One table of
 * numbers over all files; no strings are made.
 */
function countRequestsOnce(items) {
  // The marking the index keeps (usage-count.cjs), without the index: one
  // table of float64 keys, no Set (it boxed each of 65,000 numbers).
  const { markAll, applyCopies } = require("./usage-count.cjs");
  markAll(items, 2);
  applyCopies(items);
}

const newAcc = () => ({ input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cache1h: 0, cost: 0, known: false, unknown: false, incomplete: false, entries: 0, first: Infinity, last: -Infinity, models: new Map() });

/** Adds row `k` of `r` into an accumulator (and its model's). */
function addRow(acc, r, k, model, perModel = true) {
  const tokens = r[k + INPUT] + r[k + OUTPUT] + r[k + CACHE_READ] + r[k + CACHE_WRITE];
  acc.input += r[k + INPUT];
  acc.output += r[k + OUTPUT];
  acc.cacheRead += r[k + CACHE_READ];
  acc.cacheWrite += r[k + CACHE_WRITE];
  acc.cache1h += r[k + CACHE_1H];
  acc.entries += 1;
  const cost = r[k + COST];
  if (Number.isNaN(cost)) {
    if (tokens > 0) acc.unknown = true;
  } else {
    acc.cost += cost;
    if (tokens > 0) acc.known = true;
  }
  const t = r[k + T];
  if (t < acc.first) acc.first = t;
  if (t > acc.last) acc.last = t;
  if (perModel && model) {
    let m = acc.models.get(model);
    if (!m) acc.models.set(model, (m = newAcc()));
    addRow(m, r, k, null, false);
  }
}

/** Adds one accumulator into another (totals). */
function addAcc(into, a) {
  // Each field by name (a loop over their names was a keyed access each: 10 µs a call, most of --by session's extra time over --by day).
  into.input += a.input;
  into.output += a.output;
  into.cacheRead += a.cacheRead;
  into.cacheWrite += a.cacheWrite;
  into.cache1h += a.cache1h;
  into.cost += a.cost;
  into.entries += a.entries;
  into.known ||= a.known;
  into.unknown ||= a.unknown;
  into.incomplete ||= a.incomplete;
  into.first = Math.min(into.first, a.first);
  into.last = Math.max(into.last, a.last);
  for (const [name, m] of a.models) {
    if (!into.models.has(name)) into.models.set(name, newAcc());
    addAcc(into.models.get(name), m);
  }
}

const round = (c) => Math.round(c * 1e6) / 1e6;
const tokensOf = (a) => a.input + a.output + a.cacheRead + a.cacheWrite;

/** A cost: the sum of the known parts, null when no part is known (tokens without a price, or a file whose usage was not all read, are unknown, never $0). */
const costOf = (a) => (!a.known && (a.unknown || a.incomplete || tokensOf(a) > 0) ? null : round(a.cost));

/**
 * The figures of an accumulator, under ccusage's names (inputTokens,
 * outputTokens, cacheCreationTokens, cacheReadTokens, totalTokens,
 * totalCost, modelsUsed, modelBreakdowns) and ours beside them
 * (cacheWriteTokens, the 5-minute/1-hour split of the cache writes,
 * costUsd, costIncomplete: a part had no price).
 */
function figures(a) {
  const cost = costOf(a);
  const models = [...a.models.keys()].sort();
  return {
    inputTokens: a.input,
    outputTokens: a.output,
    cacheCreationTokens: a.cacheWrite,
    cacheReadTokens: a.cacheRead,
    totalTokens: tokensOf(a),
    totalCost: cost,
    cacheWriteTokens: a.cacheWrite,
    cacheCreation5mTokens: a.cacheWrite - a.cache1h,
    cacheCreation1hTokens: a.cache1h,
    costUsd: cost,
    costIncomplete: a.unknown || a.incomplete,
    modelsUsed: models,
    modelBreakdowns: models.map((name) => {
      const m = a.models.get(name);
      return { modelName: name, inputTokens: m.input, outputTokens: m.output, cacheCreationTokens: m.cacheWrite, cacheReadTokens: m.cacheRead, cost: costOf(m), costIncomplete: m.unknown || m.incomplete };
    }),
  };
}

const iso = (ms) => (Number.isFinite(ms) ? new Date(ms).toISOString() : null);
const PERIOD = { day: "daily", week: "weekly", month: "monthly", session: "sessions", block: "blocks", model: "models" };
const KEY_NAME = { day: "date", week: "week", month: "month", model: "model" };

/**
 * The report. `items` are the files read (`sessionFiles` with `usageOf`'s
 * figures). Options: `by` day|week|month|session|block|model, `zone` (a
 * `usage-time` zone), `since`/`until` (day numbers, inclusive, in that
 * zone), `order` asc|desc, `project` (only that project's sessions),
 * `instances` (a report per project), `blocks` (usage-blocks options).
 */
function report(items, o) {
  // `counted`: the caller has marked the copies already (statusline's two reports over the same rows).
  if (!o.counted) countRequestsOnce(items);
  const { by, zone } = o;
  const inRange = (day) => (o.since === undefined || day >= o.since) && (o.until === undefined || day <= o.until);
  const byFile = new Map(items.map((s) => [s.file, s]));
  // --project P, and --id S (ccusage session --id): a subagent's file goes with its session's.
  const ofProject = (it) => (o.project === undefined || it.project === o.project) && (o.id === undefined || (it.parent ? byFile.get(it.parent) ?? it : it).id === o.id);
  // A file whose reader could not know its usage (a rollout without token
  // counts) makes what it adds to incomplete. Not a file whose rows say it
  // themselves (a request of a model with no price: its cost is NaN, and
  // only its own day, block or model is incomplete; the file's flag made
  // every row of the file "≥", found by a ccusage user's review).
  // (Asked once per file: it scans the file's rows.)
  const hasUnpricedRow = (it) => {
    for (let k = 0; k < (it.rows?.length ?? 0); k += STRIDE) if (Number.isNaN(it.rows[k + COST])) return true;
    return false;
  };
  const unsure = (it) => (it.costUsd === null || it.costIncomplete) && !hasUnpricedRow(it);
  let unknownFiles = false;
  const groups = (items) => {
    unknownFiles = false;
    const periods = new Map();
    const sessions = new Map();
    for (const it of items) {
      if (!it.rows || !ofProject(it)) continue;
      const parent = it.parent ? byFile.get(it.parent) ?? null : null;
      const owner = parent ?? it;
      const sessionKey = `${owner.project}\0${owner.id}`;
      const r = it.rows;
      const incomplete = unsure(it);
      for (let k = 0; k < r.length; k += STRIDE) {
        if (r[k + KEY] < 0) continue; // a copy, counted where it came from
        const t = r[k + T];
        // A request of no tokens and no time adds nothing, not even a model (ccusage drops a line without a time).
        if (Number.isNaN(t) && r[k + INPUT] + r[k + OUTPUT] + r[k + CACHE_READ] + r[k + CACHE_WRITE] === 0) continue;
        const day = Number.isNaN(t) ? null : zone.dayOf(t);
        if ((o.since !== undefined || o.until !== undefined) && (day === null || !inRange(day))) continue;
        const model = it.models[r[k + MODEL]] || "unknown";
        let key;
        if (by === "session") key = sessionKey;
        else if (by === "model") key = model;
        else if (day === null) key = "unknown";
        else key = by === "day" ? time.dateOf(day) : by === "week" ? time.dateOf(time.weekOf(day, o.weekStart)) : time.monthOf(day);
        const map = by === "session" ? sessions : periods;
        let g = map.get(key);
        if (!g) {
          map.set(key, (g = { acc: newAcc(), owner, subagents: new Map(), sort: key }));
        }
        addRow(g.acc, r, k, model);
        // The file's usage is not all known: its model's breakdown row is
        // as unsure as the group (it showed $0.00 under a day marked so).
        if (incomplete) g.acc.incomplete = g.acc.models.get(model).incomplete = true;
        if (by === "session" && it !== owner) {
          let s = g.subagents.get(it.file);
          if (!s) g.subagents.set(it.file, (s = { id: it.id, file: it.file, acc: newAcc() }));
          addRow(s.acc, r, k, model);
        }
      }
      // A file whose usage its reader could not know (a rollout without
      // token counts): its session's cost is unknown, and so is the total's.
      if (it.costUsd === null && o.since === undefined && o.until === undefined) {
        unknownFiles = true;
        if (by === "session") {
          if (!sessions.has(sessionKey)) sessions.set(sessionKey, { acc: newAcc(), owner, subagents: new Map() });
          sessions.get(sessionKey).acc.unknown = true;
        }
      }
    }
    return by === "session" ? sessions : periods;
  };
  const dir = o.order === "desc" ? -1 : 1;
  const build = (items) => {
    const map = groups(items);
    const totals = newAcc();
    const rows = [];
    for (const [key, g] of map) {
      // Rows with no tokens say nothing (ccusage leaves them out too).
      if (tokensOf(g.acc) === 0 && !g.acc.unknown) continue;
      addAcc(totals, g.acc);
      if (by === "session") {
        const s = g.owner;
        rows.push({
          sessionId: s.id,
          projectPath: s.project,
          ...figures(g.acc),
          firstActivity: iso(g.acc.first),
          lastActivity: iso(g.acc.last),
          id: s.id,
          format: s.format,
          file: s.file,
          subagents: [...g.subagents.values()].map((x) => ({ id: x.id, file: x.file, ...figures(x.acc) })),
          _sort: g.acc.last,
        });
      } else {
        // `period`: ccusage 20's name for the row's key; `date`, `week`, `month`: its earlier ones.
        rows.push({ [KEY_NAME[by]]: key, period: key, ...figures(g.acc), _sort: key });
      }
    }
    if (unknownFiles) totals.unknown = true;
    rows.sort((a, b) => dir * (a._sort < b._sort ? -1 : a._sort > b._sort ? 1 : 0));
    for (const x of rows) delete x._sort;
    return { rows, totals: { ...figures(totals), ...(by === "session" ? { sessions: rows.length } : {}) } };
  };
  if (by === "block") return require("./usage-blocks.cjs").blocks(items, o, { STRIDE, T, MODEL, INPUT, OUTPUT, CACHE_READ, CACHE_WRITE, CACHE_1H, COST, KEY, newAcc, addRow, figures, tokensOf, costOf, inRange, ofProject, unsure });
  const out = {};
  if (o.instances) {
    const projects = [...new Set(items.filter((x) => x.rows && ofProject(x)).map((x) => x.project))].sort();
    out.projects = {};
    for (const p of projects) {
      const r = build(items.filter((x) => (x.parent ? byFile.get(x.parent) ?? x : x).project === p));
      if (r.rows.length === 0) continue;
      out.projects[p] = r.rows;
    }
    const whole = build(items);
    out.totals = whole.totals;
    return out;
  }
  const r = build(items);
  out[PERIOD[by]] = r.rows;
  out.totals = r.totals;
  return out;
}

module.exports = { STRIDE, defaultFolders, sessionFiles, usageOf, lossOf, warnLoss, countRequestsOnce, report, figures, newAcc, PERIOD, KEY_NAME, addRow, addAcc, tokensOf };
