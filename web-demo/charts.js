// The viewer's charts, as SVG with axes, units and labels: a session's
// context, cost and tokens per turn, and any chart the page builds with
// `chart` (the sessions index's cost per day). Text goes in as textContent.

const n = (x) => Number(x ?? 0).toLocaleString("en-US");

const SVG = "http://www.w3.org/2000/svg";
export const svgEl = (tag, attrs = {}, text) => {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
};

/** A round step for about `count` ticks up to `max`. */
function niceStep(max, count = 4) {
  const raw = max / count;
  const p = 10 ** Math.floor(Math.log10(raw || 1));
  return [1, 2, 2.5, 5, 10].map((m) => m * p).find((s) => s >= raw) ?? raw;
}
const compact = (v) => (v >= 1e6 ? `${+(v / 1e6).toFixed(1)}M` : v >= 1e3 ? `${+(v / 1e3).toFixed(1)}k` : `${+v.toFixed(2)}`);

/**
 * A chart with axes: x from 1 to `xMax` ("turn"), y from 0 with round ticks
 * in `unit`; `series`: [{ points: [[x, y]], cls, label, bars?, stack? }];
 * `hlines`: [{ y, label }]; `vlines`: [{ x, label }].
 */
export function chart({ title, unit, xLabel, xMax, yMax, series, hlines = [], vlines = [], format = compact, xFormat = (v) => n(v) }) {
  const W = 640, H = 190, L = 58, R = 12, T = 22, B = 34;
  const svg = svgEl("svg", { class: "chart", width: W, height: H, viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": title });
  svg.append(svgEl("text", { x: L, y: 14, class: "chart-title" }, title));
  const top = (Math.max(yMax, ...hlines.map((h) => h.y)) || 1) * 1.05;
  // Each x value sits in the middle of its band, so one day or one turn is a visible bar.
  const x = (v) => L + ((W - L - R) * (v - 0.5)) / Math.max(1, xMax);
  const y = (v) => H - B - ((H - T - B) * v) / top;
  // Axes, ticks and labels.
  svg.append(svgEl("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, class: "axis" }), svgEl("line", { x1: L, x2: L, y1: T, y2: H - B, class: "axis" }));
  const ys = niceStep(top);
  for (let v = 0; v <= top; v += ys) {
    svg.append(svgEl("line", { x1: L - 4, x2: W - R, y1: y(v), y2: y(v), class: "grid" }), svgEl("text", { x: L - 6, y: y(v) + 4, class: "tick", "text-anchor": "end" }, format(v)));
  }
  const xs = Math.max(1, Math.round(niceStep(xMax, 6)));
  for (let v = xs; v <= xMax; v += xs) svg.append(svgEl("text", { x: x(v), y: H - B + 14, class: "tick", "text-anchor": "middle" }, xFormat(v)));
  svg.append(svgEl("text", { x: (L + W - R) / 2, y: H - 4, class: "axis-label", "text-anchor": "middle" }, xLabel), svgEl("text", { x: 12, y: (T + H - B) / 2, class: "axis-label", "text-anchor": "middle", transform: `rotate(-90 12 ${(T + H - B) / 2})` }, unit));
  for (const s of series) {
    if (s.bars) {
      const w = Math.max(1, Math.min(40, (W - L - R) / Math.max(1, xMax) - 1));
      for (const [px, y0, y1] of s.points) svg.append(svgEl("rect", { x: x(px) - w / 2, y: y(y1), width: w, height: Math.max(0, y(y0) - y(y1)), class: s.cls }));
    } else if (s.points.length) {
      svg.append(svgEl("polyline", { points: s.points.map(([px, py]) => `${x(px).toFixed(1)},${y(py).toFixed(1)}`).join(" "), class: s.cls }));
    }
  }
  for (const h of hlines) svg.append(svgEl("line", { x1: L, x2: W - R, y1: y(h.y), y2: y(h.y), class: "limit" }), svgEl("text", { x: W - R - 2, y: y(h.y) - 3, class: "tick limit-label", "text-anchor": "end" }, h.label));
  for (const v of vlines) svg.append(svgEl("line", { x1: x(v.x), x2: x(v.x), y1: T, y2: H - B, class: "compaction" }, undefined), svgEl("title", {}, v.label));
  // Legend.
  let lx = L + 8;
  for (const s of series.filter((s) => s.label)) {
    svg.append(svgEl("rect", { x: lx, y: T + 2, width: 10, height: 10, class: `${s.cls} legend` }), svgEl("text", { x: lx + 14, y: T + 11, class: "tick" }, s.label));
    lx += 18 + s.label.length * 6.5;
  }
  return svg;
}

/** At most `max` points: each bucket keeps its largest value. */
function thin(points, max = 600) {
  if (points.length <= max) return points;
  const out = [];
  const per = points.length / max;
  for (let i = 0; i < max; i++) {
    const bucket = points.slice(Math.floor(i * per), Math.floor((i + 1) * per));
    out.push(bucket.reduce((a, b) => (b[b.length - 1] > a[a.length - 1] ? b : a)));
  }
  return out;
}

export function sessionCharts(entries) {
  const turns = entries.filter((e) => e.type === "assistant" && e.usage);
  if (turns.length === 0) {
    const none = document.createElement("p");
    none.className = "muted";
    none.textContent = "no responses to chart";
    return [none];
  }
  const turnOf = new Map(turns.map((e, i) => [e.index, i + 1]));
  // Compactions sit between the turns around them.
  const compactions = [];
  let t = 0;
  for (const e of entries) {
    if (turnOf.has(e.index)) t = turnOf.get(e.index);
    if (e.type === "compaction" && e.kind === "landmark") compactions.push({ x: t + 0.5, label: `compaction after turn ${t}` });
  }
  const window = Math.max(0, ...turns.map((e) => e.contextWindow ?? 0));
  const context = turns.map((e, i) => [i + 1, e.contextTokens ?? 0]);
  let sum = 0;
  let unknownFrom = null;
  const cost = turns.map((e, i) => {
    if (typeof e.costUsd === "number") sum += e.costUsd;
    else if (unknownFrom === null) unknownFrom = i + 1;
    return [i + 1, sum];
  });
  const kinds = [["inputTokens", "input", "k-input"], ["cacheReadTokens", "cache read", "k-read"], ["cacheWriteTokens", "cache write", "k-write"], ["outputTokens", "output", "k-output"]];
  const stacked = kinds.map(() => []);
  for (const [i, e] of turns.entries()) {
    let base = 0;
    kinds.forEach(([k], s) => {
      const v = e.usage[k] ?? 0;
      stacked[s].push([i + 1, base, base + v]);
      base += v;
    });
  }
  const maxOf = (pts, k = 1) => pts.reduce((m, p) => Math.max(m, p[k]), 0);
  const tokensMax = stacked.length ? maxOf(stacked[stacked.length - 1], 2) : 0;
  const thinBars = (pts) => (pts.length <= 600 ? pts : thin(pts.map((p) => [p[0], p[1], p[2]]), 600));
  return [
    chart({ title: "Context size per turn", unit: "tokens", xLabel: "turn (model response)", xMax: turns.length, yMax: maxOf(context), series: [{ points: thin(context), cls: "line-context" }], hlines: window ? [{ y: window, label: `context window ${compact(window)}` }] : [], vlines: compactions }),
    chart({ title: `Cumulative cost${unknownFrom ? ` (a price is unknown from turn ${unknownFrom}: known part only)` : ""}`, unit: "USD", xLabel: "turn (model response)", xMax: turns.length, yMax: sum, series: [{ points: thin(cost), cls: "line-cost" }], format: (v) => `$${v < 10 ? v.toFixed(2) : Math.round(v)}` }),
    chart({ title: "Tokens per turn by kind", unit: "tokens", xLabel: "turn (model response)", xMax: turns.length, yMax: tokensMax, series: kinds.map(([, label, cls], s) => ({ points: thinBars(stacked[s]), cls, label, bars: true })) }),
  ];
}

