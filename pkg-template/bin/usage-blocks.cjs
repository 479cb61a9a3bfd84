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
  // Every counted request with a time, in time order: [time, item, row].
  const order = [];
  items.forEach((it, i) => {
    if (!it.rows || !u.ofProject(it)) return;
    const r = it.rows;
    for (let k = 0; k < r.length; k += STRIDE) {
      if (r[k + KEY] < 0 || Number.isNaN(r[k + T])) continue;
      order.push(i, k);
    }
  });
  const idx = Array.from({ length: order.length / 2 }, (_, j) => j);
  const at = (j) => items[order[2 * j]].rows[order[2 * j + 1] + T];
  idx.sort((a, b) => at(a) - at(b) || a - b);
  const out = [];
  let cur = null;
  const close = () => {
    const end = cur.start + length;
    const active = now - cur.acc.last < length && now < end;
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
  for (const j of idx) {
    const it = items[order[2 * j]];
    const k = order[2 * j + 1];
    const t = it.rows[k + T];
    if (cur && (t - cur.start > length || t - cur.acc.last > length)) {
      const last = cur.acc.last;
      close();
      if (t - last > length) {
        out.push({ id: `gap-${new Date(last + length).toISOString()}`, startTime: new Date(last + length).toISOString(), endTime: new Date(t).toISOString(), actualEndTime: null, isActive: false, isGap: true, entries: 0, tokenCounts: { inputTokens: 0, outputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 }, totalTokens: 0, costUSD: 0, costIncomplete: false, models: [], modelBreakdowns: [], burnRate: null, projection: null });
      }
      cur = null;
    }
    if (!cur) cur = { start: Math.floor(t / HOUR) * HOUR, acc: newAcc(), unsure: false };
    addRow(cur.acc, it.rows, k, it.models[it.rows[k + MODEL]] || "unknown");
    if (u.unsure(it)) cur.unsure = true;
  }
  if (cur) close();
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
