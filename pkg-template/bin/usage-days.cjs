// `usage --by day` kept in the index, per time zone: each day's running
// totals (usage.cjs's accumulator, every request of that day added in the
// report's order) and where its first request is in that order. After an
// append, only the days of the rows appended (or whose copy mark changed)
// are added up again, from the files written to since the cut (all of a
// later day's rows are there, in their order); the report is then built
// from the days as usage.cjs builds it, the totals added in the order the
// report meets the days (so every sum is the same sum, to the last bit).
// (Why: after an append, `usage --by day` on a 1 GB history spent most of
// its time adding up 65,000 rows again in a fresh process.)
"use strict";

const usage = require("./usage.cjs");
const time = require("./usage-time.cjs");

const { STRIDE, newAcc, addRow, addAcc, figures, tokensOf } = usage;
const [T, MODEL, INPUT, OUTPUT, CACHE_READ, CACHE_WRITE, KEY] = [0, 1, 2, 3, 4, 5, 8];
/** Zones kept (the system's, and a few asked with --timezone). */
const ZONES = 4;

/**
 * Each day's group over `items` (in order, `at` their indices in the
 * report's items), as usage.cjs `report` groups --by day with no filter: a
 * copy (kept in `it.copies`, or marked) is passed over, a row with neither
 * time nor tokens too. `only`: just these days.
 */
function dayGroups(items, at, zone, only = null) {
  const groups = new Map();
  items.forEach((it, n) => {
    const r = it.rows;
    if (!r) return;
    const i = at[n];
    const copies = it.copies && it.copies.length ? new Set(it.copies) : null;
    const unsure = it.costUsd === null || it.costIncomplete;
    for (let k = 0; k < r.length; k += STRIDE) {
      if (r[k + KEY] < 0 || copies?.has(k)) continue;
      const t = r[k + T];
      if (Number.isNaN(t) && r[k + INPUT] + r[k + OUTPUT] + r[k + CACHE_READ] + r[k + CACHE_WRITE] === 0) continue;
      const key = Number.isNaN(t) ? "unknown" : time.dateOf(zone.dayOf(t));
      if (only && !only.has(key)) continue;
      let g = groups.get(key);
      if (!g) groups.set(key, (g = { acc: newAcc(), i, k }));
      addRow(g.acc, r, k, it.models[r[k + MODEL]] || "unknown");
      if (unsure) g.acc.incomplete = true;
    }
  });
  return groups;
}

/** The --by day report from the days kept, as usage.cjs `report` builds it (`order`: asc|desc). */
function dayReport(groups, items, order) {
  // The report's map meets the days in the order of their first request.
  const met = [...groups].sort((a, b) => a[1].i - b[1].i || a[1].k - b[1].k);
  const totals = newAcc();
  const rows = [];
  for (const [key, g] of met) {
    if (tokensOf(g.acc) === 0 && !g.acc.unknown) continue;
    addAcc(totals, g.acc);
    rows.push({ date: key, period: key, ...figures(g.acc), _sort: key });
  }
  if (items.some((it) => it.rows && it.costUsd === null)) totals.unknown = true;
  const dir = order === "desc" ? -1 : 1;
  rows.sort((a, b) => dir * (a._sort < b._sort ? -1 : a._sort > b._sort ? 1 : 0));
  for (const x of rows) delete x._sort;
  return { daily: rows, totals: figures(totals) };
}

/** An accumulator as the index keeps it (JSON: ±Infinity as strings), and back. */
const enc = (a) => [a.input, a.output, a.cacheRead, a.cacheWrite, a.cache1h, a.cost, a.known, a.unknown, a.incomplete, a.entries, String(a.first), String(a.last), [...a.models].map(([name, m]) => [name, enc(m)])];
function dec(x) {
  const a = newAcc();
  [a.input, a.output, a.cacheRead, a.cacheWrite, a.cache1h, a.cost, a.known, a.unknown, a.incomplete, a.entries] = x;
  a.first = Number(x[10]);
  a.last = Number(x[11]);
  for (const [name, m] of x[12]) a.models.set(name, dec(m));
  return a;
}
const encode = (groups) => [...groups].map(([key, g]) => [key, g.i, g.k, enc(g.acc)]);
const decode = (list) => new Map(list.map(([key, i, k, acc]) => [key, { i, k, acc: dec(acc) }]));

/**
 * The days kept, brought up to date (usage-index.cjs, before it writes the
 * index): `kept` as the index had them, `carried` whether the copies were
 * carried on (else every zone's days are dropped), `touched` the rows an
 * append added or changed ([item, row offset, time before]), `cut` and
 * `asked` (the zone of this run's --by day, null: none). Returns the days
 * to keep, and this run's zone's (decoded) as `groups` (`made`: from
 * every row, not kept).
 */
function update(kept, { items, carried, touched, cut, asked }) {
  const out = [];
  let groups = null;
  const all = items.map((_, i) => i);
  for (const z of carried ? kept ?? [] : []) {
    const zone = time.zone(z.name ?? undefined);
    if (time.zoneKey(zone) !== z.key) continue; // the system's zone changed since: of no use
    let g = decode(z.groups);
    if (touched.length > 0) {
      const days = new Set();
      let whole = false;
      for (const [i, k, before] of touched) {
        for (const t of [items[i].rows[k + T], before]) {
          if (t === undefined) continue;
          if (Number.isNaN(t) || (cut !== null && zone.dayOf(t) <= zone.dayOf(cut))) whole = true;
          else days.add(time.dateOf(zone.dayOf(t)));
        }
      }
      if (whole) g = dayGroups(items, all, zone);
      else {
        // A later day's rows are all in the files written to since the cut.
        const at = [];
        const recent = items.filter((it, i) => (cut === null || (it.maxT !== null && it.maxT >= cut)) && at.push(i));
        const fresh = dayGroups(recent, at, zone, days);
        for (const d of days) {
          if (fresh.has(d)) g.set(d, fresh.get(d));
          else g.delete(d);
        }
      }
    }
    out.push({ key: z.key, name: z.name, groups: encode(g) });
    if (asked && time.zoneKey(asked) === z.key) groups = g;
  }
  let made = false;
  if (asked && groups === null) {
    made = true;
    groups = dayGroups(items, all, asked);
    out.unshift({ key: time.zoneKey(asked), name: asked.name ?? null, groups: encode(groups) });
  }
  return { days: out.slice(0, ZONES), groups, made };
}

module.exports = { dayGroups, dayReport, update };
