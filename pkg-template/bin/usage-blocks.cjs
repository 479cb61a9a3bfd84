// `usage --by block`: Anthropic's 5-hour usage windows as ccusage computes
// them (its _session-blocks.ts): requests in time order; a block starts at
// the hour (UTC) of its first request and ends 5 hours later; the next
// request starts a new block when it falls past that end or more than 5
// hours after the block's last request, and a gap of more than 5 hours
// between two requests is a gap block of its own (from 5 hours after the
// last request to the next one). A block is active while now is before its
// end and within 5 hours of its last request; only the active block has a
// burn rate (tokens per minute and dollars per hour between its first and
// last request) and a projection to its end.
"use strict";

const HOUR = 3600000;

function blocks(items, o, u) {
  const { STRIDE, T, MODEL, KEY, newAcc, addRow, figures } = u;
  const length = (o.sessionLength ?? 5) * HOUR;
  const now = o.now ?? Date.now();
  // The blocks' bounds come from the requests' times alone, sorted as
  // numbers (a native sort: sorting row references with a comparator was
  // most of this view's extra time over --by day). A block holds the
  // requests from its first one's time to the next block's first (equal
  // times never part: a new block starts only past a gap or its end), so
  // each row then finds its block by a binary search, in any order.
  const counted = (it) => it.rows && u.ofProject(it);
  let count = 0;
  for (const it of items) {
    if (!counted(it)) continue;
    const r = it.rows;
    for (let k = 0; k < r.length; k += STRIDE) if (!(r[k + KEY] < 0) && !Number.isNaN(r[k + T])) count++;
  }
  const times = new Float64Array(count);
  let c = 0;
  for (const it of items) {
    if (!counted(it)) continue;
    const r = it.rows;
    for (let k = 0; k < r.length; k += STRIDE) if (!(r[k + KEY] < 0) && !Number.isNaN(r[k + T])) times[c++] = r[k + T];
  }
  times.sort();
  // Per block: [start (the hour of its first request), its first request, its last].
  const bounds = [];
  let b = null;
  for (let j = 0; j < times.length; j++) {
    const t = times[j];
    if (b && (t - b[0] > length || t - b[2] > length)) b = null;
    if (!b) bounds.push((b = [Math.floor(t / HOUR) * HOUR, t, t]));
    b[2] = t;
  }
  const isActive = (b) => now - b[2] < length && now < b[0] + length;
  // Only the blocks shown add up their rows (all of them for --token-limit max).
  const needed = bounds.map((b) => !o.active || o.tokenLimit === "max" || isActive(b));
  const accs = bounds.map(() => ({ acc: newAcc(), unsure: false }));
  const firstOf = Float64Array.from(bounds, (b) => b[1]);
  const lowest = needed.indexOf(true) < 0 ? Infinity : firstOf[needed.indexOf(true)];
  for (const it of items) {
    if (!counted(it)) continue;
    const r = it.rows;
    const unsure = u.unsure(it);
    for (let k = 0; k < r.length; k += STRIDE) {
      const t = r[k + T];
      if (r[k + KEY] < 0 || Number.isNaN(t) || t < lowest) continue;
      let lo = 0;
      let hi = firstOf.length - 1;
      while (lo < hi) {
        const mid = (lo + hi + 1) >> 1;
        if (firstOf[mid] <= t) lo = mid;
        else hi = mid - 1;
      }
      if (!needed[lo]) continue;
      addRow(accs[lo].acc, r, k, it.models[r[k + MODEL]] || "unknown");
      if (unsure) accs[lo].unsure = true;
    }
  }
  const out = [];
  const close = (j) => {
    const cur = { start: bounds[j][0], ...accs[j] };
    const end = cur.start + length;
    const active = isActive(bounds[j]);
    if (!needed[j]) {
      // Not shown (--active): only what --token-limit and the filters ask of it.
      out.push({ startTime: new Date(cur.start).toISOString(), isActive: false, isGap: false, totalTokens: 0 });
      return;
    }
    const f = figures(cur.acc);
    const block = {
      id: new Date(cur.start).toISOString(),
      startTime: new Date(cur.start).toISOString(),
      endTime: new Date(end).toISOString(),
      actualEndTime: new Date(cur.acc.last).toISOString(),
      isActive: active,
      isGap: false,
      entries: cur.acc.entries,
      tokenCounts: { inputTokens: f.inputTokens, outputTokens: f.outputTokens, cacheCreationInputTokens: f.cacheCreationTokens, cacheReadInputTokens: f.cacheReadTokens },
      totalTokens: f.totalTokens,
      costUSD: f.totalCost,
      costIncomplete: f.costIncomplete || cur.unsure,
      models: f.modelsUsed,
      modelBreakdowns: f.modelBreakdowns,
      cacheCreation5mTokens: f.cacheCreation5mTokens,
      cacheCreation1hTokens: f.cacheCreation1hTokens,
      burnRate: null,
      projection: null,
    };
    if (active) {
      const minutes = (cur.acc.last - cur.acc.first) / 60000;
      if (minutes > 0) {
        block.burnRate = {
          tokensPerMinute: f.totalTokens / minutes,
          tokensPerMinuteForIndicator: (f.inputTokens + f.outputTokens) / minutes,
          costPerHour: f.totalCost === null ? null : (f.totalCost / minutes) * 60,
        };
        const remaining = Math.max(0, (end - now) / 60000);
        block.projection = {
          totalTokens: Math.round(f.totalTokens + block.burnRate.tokensPerMinute * remaining),
          totalCost: f.totalCost === null ? null : Math.round((f.totalCost + (block.burnRate.costPerHour / 60) * remaining) * 100) / 100,
          remainingMinutes: Math.round(remaining),
        };
      }
    }
    out.push(block);
  };
  bounds.forEach((b, j) => {
    if (j > 0) {
      // A gap of more than a block's length between two requests: a gap block of its own.
      const last = bounds[j - 1][2];
      const t = b[1];
      if (t - last > length) {
        out.push({ id: `gap-${new Date(last + length).toISOString()}`, startTime: new Date(last + length).toISOString(), endTime: new Date(t).toISOString(), actualEndTime: null, isActive: false, isGap: true, entries: 0, tokenCounts: { inputTokens: 0, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 }, totalTokens: 0, costUSD: 0, costIncomplete: false, models: [], modelBreakdowns: [], burnRate: null, projection: null });
      }
    }
    close(j);
  });
  // --token-limit: the active block's projection against it ("max": the
  // most tokens of any block before).
  let limit = o.tokenLimit;
  if (limit === "max") limit = Math.max(0, ...out.filter((b) => !b.isGap && !b.isActive).map((b) => b.totalTokens)) || null;
  for (const b of out) {
    if (!b.isActive || !limit) continue;
    const projected = b.projection?.totalTokens ?? b.totalTokens;
    const percent = (projected / limit) * 100;
    b.tokenLimitStatus = { limit, projectedUsage: projected, percentUsed: percent, status: percent > 100 ? "exceeds" : percent > 80 ? "warning" : "ok" };
  }
  let shown = out;
  // --since/--until: blocks that start on those days (in the zone); --recent: the last 3 days; --active: the active block.
  if (o.since !== undefined || o.until !== undefined) shown = shown.filter((b) => u.inRange(o.zone.dayOf(Date.parse(b.startTime))));
  if (o.recent) shown = shown.filter((b) => Date.parse(b.startTime) >= now - 3 * 24 * HOUR || b.isActive);
  if (o.active) shown = shown.filter((b) => b.isActive);
  if (o.order === "desc") shown = [...shown].reverse();
  const real = shown.filter((b) => !b.isGap);
  const sum = (f) => real.reduce((a, b) => a + f(b), 0);
  const t = {
    inputTokens: sum((b) => b.tokenCounts.inputTokens),
    outputTokens: sum((b) => b.tokenCounts.outputTokens),
    cacheCreationTokens: sum((b) => b.tokenCounts.cacheCreationInputTokens),
    cacheReadTokens: sum((b) => b.tokenCounts.cacheReadInputTokens),
  };
  const costs = real.map((b) => b.costUSD);
  const cost = costs.every((c) => c === null) && real.length > 0 ? null : Math.round(costs.reduce((a, c) => a + (c ?? 0), 0) * 1e6) / 1e6;
  return {
    blocks: shown,
    totals: { ...t, totalTokens: t.inputTokens + t.outputTokens + t.cacheCreationTokens + t.cacheReadTokens, totalCost: cost, cacheWriteTokens: t.cacheCreationTokens, costUsd: cost, costIncomplete: real.some((b) => b.costIncomplete) },
  };
}

module.exports = { blocks };
