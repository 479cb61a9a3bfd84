// `garuda-session statusline`: Claude Code's status line hook. Claude Code
// runs the command every few seconds with its status JSON on stdin
// (session_id, transcript_path, model.id/display_name, ...) and shows the
// one line it prints: the model, this session's cost, today's, the active
// 5-hour block's (and the time left in it), its burn rate, and the
// context's size, as ccusage's statusline prints them. The files are read
// through the incremental index (usage-index.cjs): a warm run reads only
// what was appended since the last.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { UsageError, parseArgs, writeOut, writeStats } = require("../cli.cjs");
const { cacheDir } = require("../usage-answers.cjs");
const lineCache = require("../statusline-cache.cjs");
// The rest only when the line kept (statusline-cache.cjs) does not answer:
// a run that prints the kept line loads nothing else.
const usageReport = () => require("../usage.cjs");
const time = () => require("../usage-time.cjs");
const readIndexed = (...a) => require("../usage-index.cjs").readIndexed(...a);
const applyCopies = (items) => require("../usage-count.cjs").applyCopies(items);

const HELP = `usage: garuda-session statusline [--timezone Z] [--visual-burn-rate off|emoji|text|emoji-text] [--prices p.json] [--no-index]
                                [--no-cache | --refresh-interval S] [--cost-source auto|ccusage|cc|both]
                                [--context-low-threshold P] [--context-medium-threshold P]
  Claude Code's status line hook: its status JSON on stdin, one line out:
  model | session / today / block cost (time left in the block) | burn rate | context tokens
  In ~/.claude/settings.json: { "statusLine": { "type": "command", "command": "npx garuda-session statusline" } }
  Reads CLAUDE_CONFIG_DIR (comma list) or ~/.config/claude and ~/.claude, through an index in the
  user's cache folder (only appended bytes are read again); --no-index reads every file.
  As ccusage's statusline, the line is kept for --refresh-interval seconds (default 1) while the
  transcript is unchanged, for the same status JSON and options; --no-cache computes every line.
  --cost-source: the session's cost as ccusage's statusline takes it: auto (default) Claude Code's own
  (cost.total_cost_usd on stdin) when it sends one, else the transcript's; ccusage the transcript's; cc
  Claude Code's; both, both.
  The context's percentage is green below --context-low-threshold (default 50), yellow below
  --context-medium-threshold (default 80), else red, when colours are on (FORCE_COLOR, or a terminal;
  never with NO_COLOR).
  ccusage's short flags: -z (--timezone), -B (--visual-burn-rate), -O (--offline).
  --offline and --no-offline are accepted (and change nothing: prices are built in).`;

const money = (c) => (c === null ? "unknown" : `$${c.toFixed(2)}`);
/** 1,234,567 (not toLocaleString: Intl's first use costs a status line 10 to 40 ms). */
const n = (x) => (Number.isSafeInteger(Number(x)) ? String(Number(x)).replace(/\B(?=(\d{3})+(?!\d))/g, ",") : Number(x).toLocaleString("en-US"));

/** The hook's JSON on stdin (Claude Code sends one object). */
function hookInput() {
  let text;
  try {
    text = fs.readFileSync(0, "utf8");
  } catch {
    text = "";
  }
  try {
    const v = JSON.parse(text);
    if (v && typeof v === "object" && !Array.isArray(v)) return { text, input: v };
  } catch {
    // below
  }
  throw new UsageError("stdin is not Claude Code's status JSON (an object with session_id, transcript_path, model)");
}

async function statusline(args) {
  const o = parseArgs(args, {
    "--timezone": "timezone",
    "--visual-burn-rate": "burn",
    "--offline": "offline!",
    "--no-offline": "noOffline!",
    "--prices": "prices",
    "--vertex-region": "vertexRegion",
    "--no-index": "noIndex!",
    "--cost-source": "costSource",
    "--cache": "cache!",
    "--no-cache": "noCache!",
    "--refresh-interval": "refresh",
    "--context-low-threshold": "low",
    "--context-medium-threshold": "medium",
    // ccusage's short flags.
    "-z": "timezone",
    "-B": "burn",
    "-O": "offline!",
  }, 0);
  // As ccusage's: the context's percentage green below low, yellow below medium, else red (when colours are on).
  const percent = (v, dflt, name) => {
    if (v === undefined) return dflt;
    if (!/^\d+(\.\d+)?$/.test(v) || Number(v) > 100) throw new UsageError(`--context-${name}-threshold ${v}: give a percentage, 0 to 100`);
    return Number(v);
  };
  const low = percent(o.low, 50, "low");
  const medium = percent(o.medium, 80, "medium");
  if (low >= medium) throw new UsageError(`--context-low-threshold ${low} is not below --context-medium-threshold ${medium}`);
  const refresh = o.refresh === undefined ? 1 : /^\d+(\.\d+)?$/.test(o.refresh) ? Number(o.refresh) : NaN;
  if (!(refresh >= 0 && refresh <= 3600)) throw new UsageError(`--refresh-interval ${o.refresh}: give seconds, 0 to 3600`);
  const { text, input } = hookInput();
  // The line kept from a run less than --refresh-interval ago, for the same
  // status JSON, options and transcript (its size and mtime unchanged).
  const keep = o.noCache !== true && refresh > 0 ? lineCache.open(cacheDir(), { text, args }, input.transcript_path) : null;
  const line = keep?.get(refresh * 1000);
  if (line !== undefined) {
    writeOut(line);
    writeStats("statusline", { bytesRead: 0, answered: true, kept: "line" });
    return 0;
  }
  const computed = Date.now();
  const burnStyle = o.burn ?? "off";
  // As ccusage's: auto takes Claude Code's own session cost (cost.total_cost_usd on stdin) when it sends one.
  const costSource = o.costSource ?? "auto";
  if (!["auto", "ccusage", "cc", "both"].includes(costSource)) throw new UsageError(`--cost-source ${o.costSource}: give auto, ccusage, cc or both`);
  if (!["off", "emoji", "text", "emoji-text"].includes(burnStyle)) throw new UsageError(`--visual-burn-rate ${o.burn}: give off, emoji, text or emoji-text`);
  // No --timezone: the system's zone (time.zone reads it without Intl).
  if (o.timezone !== undefined && !time().checkZone(o.timezone)) throw new UsageError(`--timezone ${o.timezone}: not a time zone (give an IANA name such as UTC or Europe/Paris)`);
  const zone = time().zone(o.timezone);
  const { readOptions } = require("../cli.cjs");
  const { claudeRoots } = require("../roots.cjs");
  const { answers } = require("../usage-answers.cjs");
  const options = readOptions(o);
  const roots = claudeRoots();
  const transcript = typeof input.transcript_path === "string" ? input.transcript_path : null;
  if (transcript && fs.existsSync(transcript) && !roots.some((r) => path.resolve(transcript).startsWith(path.resolve(r) + path.sep))) roots.push(transcript);
  const warn = (text) => process.stderr.write(`garuda-session statusline: warning: ${text}\n`);
  const now = Date.now();
  const today = zone.dayOf(now);
  const id = typeof input.session_id === "string" ? input.session_id : null;
  const own = transcript && path.resolve(transcript);
  // What the line says, from the answers kept when no folder or file changed since (usage-answers.cjs), else from the files.
  const kept = roots.length && o.noIndex !== true ? answers(cacheDir(), roots, options) : null;
  const question = kept && JSON.stringify({ statusline: 1, zone: time().zoneKey(zone), today, own, id });
  // (The index keeps this zone's days too, usage-days.cjs: a `usage --by day` after the appends it saw adds up only their days.)
  let facts = kept?.get(question);
  let stats = { bytesRead: 0, answered: true };
  if (facts === undefined) {
    const items = roots.length ? await readIndexed(roots, options, warn, { noIndex: o.noIndex === true, dayZone: zone }) : Object.assign([], { stats: null, snapshot: null });
    stats = items.stats;
    facts = factsOf(items, { zone, today, own, id });
    if (kept) {
      kept.put(question, facts);
      kept.save(items.snapshot);
    }
  }
  // The block kept is the one active when it was computed: still active while now is before its end and within its length of its last request.
  const block = facts.block && now < Date.parse(facts.block.endTime) && now - Date.parse(facts.block.actualEndTime) < 5 * 3600000 ? facts.block : null;
  const { sessionCost, dayCost, context } = facts;
  const parts = [];
  const model = input.model?.display_name ?? input.model?.id;
  parts.push(`🤖 ${model ?? "unknown model"}`);
  const ours = sessionCost === undefined ? "N/A" : money(sessionCost);
  const cc = Number.isFinite(input.cost?.total_cost_usd) && input.cost.total_cost_usd >= 0 ? money(input.cost.total_cost_usd) : null;
  const session = costSource === "ccusage" ? ours : costSource === "cc" ? cc ?? "N/A" : costSource === "both" ? `(${cc ?? "N/A"} cc / ${ours} ccusage)` : cc ?? ours;
  let costs = `💰 ${session} session / ${money(dayCost ?? 0)} today / `;
  if (block) {
    const left = Math.max(0, Date.parse(block.endTime) - now);
    costs += `${money(block.costUSD)} block (${Math.floor(left / 3600000)}h ${Math.floor((left % 3600000) / 60000)}m left)`;
  } else costs += "No active block";
  parts.push(costs);
  if (block?.burnRate) {
    const rate = block.burnRate.tokensPerMinuteForIndicator;
    const level = rate > 5000 ? ["🚨", "High"] : rate > 2000 ? ["⚠️", "Moderate"] : ["", "Normal"];
    const shown = burnStyle === "emoji" ? ` ${level[0]}` : burnStyle === "text" ? ` (${level[1]})` : burnStyle === "emoji-text" ? ` ${level[0]} (${level[1]})` : "";
    parts.push(`🔥 ${block.burnRate.costPerHour === null ? "unknown" : `$${block.burnRate.costPerHour.toFixed(2)}`}/hr${shown}`);
  }
  // Claude Code's own figures when it sends them (context_window, 2.0.65
  // on): the window it runs with (1M where enabled, whatever the model id
  // says) and its latest request's context (input, cache write and cache
  // read, as its used_percentage counts; the transcript may not have it
  // yet). Else the transcript's latest request and the id's window.
  const cw = input.context_window && typeof input.context_window === "object" ? input.context_window : {};
  const size = Number.isFinite(cw.context_window_size) && cw.context_window_size > 0 ? cw.context_window_size : null;
  const u = cw.current_usage && typeof cw.current_usage === "object" ? cw.current_usage : null;
  const count = (v) => (Number.isFinite(v) && v >= 0 ? v : 0);
  const current = u ? count(u.input_tokens) + count(u.cache_creation_input_tokens) + count(u.cache_read_input_tokens) : null;
  const shown = current ?? context;
  if (shown !== null) {
    const window = size ?? (/\[1m\]|-1m\b/.test(String(input.model?.id ?? "")) ? 1_000_000 : 200_000);
    const pct = Math.round((shown / window) * 100);
    const colour = require("../usage-table.cjs").useColour(undefined) ? (pct < low ? 32 : pct < medium ? 33 : 31) : null;
    parts.push(`🧠 ${n(shown)} (${colour === null ? `${pct}%` : `\x1b[${colour}m${pct}%\x1b[0m`})`);
  } else parts.push("🧠 N/A");
  const out = parts.join(" | ") + "\n";
  writeOut(out);
  keep?.put(out, computed);
  writeStats("statusline", stats);
  return 0;
}

/**
 * What the line says, from the files read: the session's cost (undefined
 * when no file is the session's), today's, the active block (with its burn
 * rate) and the context of the transcript's latest request.
 */
function factsOf(items, { zone, today, own, id }) {
  // Resolved only when relative and the name could be the transcript's (a path.resolve per file was a tenth of the line's time; the walk's paths are normalized).
  const ownName = own ? path.basename(own) : null;
  const isOwn = (it) => own && it.file.endsWith(ownName) && (it.file === own || (!path.isAbsolute(it.file) && path.resolve(it.file) === own));
  const mine = items.filter((it) => isOwn(it) || (id && (it.id === id || (it.parent && path.basename(it.parent).replace(/\.jsonl$/, "") === id))));
  // The session's own files, each request once among them (copies of its rows: the report marks copies in them) ...
  const usage = usageReport();
  const sessionCost = mine.length ? usage.report(mine.map(fresh), { by: "session", zone }).totals.totalCost : undefined;
  // ... then today's and the block's over every file: its requests counted once for both (in place: no copy of every row).
  // The index knows the copies (usage-count.cjs) and from when on rows matter:
  // today's and the active block's rows are all in the files written to
  // since its cut (the chain of blocks starts again there), in their order.
  if (items.copiesKnown) applyCopies(items);
  else usage.countRequestsOnce(items);
  const recent = items.cut === null || items.cut === undefined ? items : items.filter((it) => it.maxT !== null && it.maxT >= items.cut);
  const day = usage.report(recent, { by: "day", zone, since: today, until: today, counted: true });
  const block = usage.report(recent, { by: "block", zone, active: true, counted: true }).blocks[0] ?? null;
  // The context: the last request of the transcript (its input, cache read and cache write).
  let context = null;
  const ownItem = own ? items.find(isOwn) : undefined;
  if (ownItem && ownItem.rows.length >= usage.STRIDE) {
    // The latest request (rows come in no particular order).
    let k = 0;
    const r = ownItem.rows;
    for (let j = 0; j < r.length; j += usage.STRIDE) if (r[j] > r[k] || Number.isNaN(r[k])) k = j;
    context = r[k + 2] + r[k + 4] + r[k + 5];
  }
  return { sessionCost, dayCost: day.totals.totalCost, block, context };
}

/** An item with its own copy of the rows (a report marks copies in them). */
const fresh = (it) => ({ ...it, rows: it.rows ? Float64Array.from(it.rows) : it.rows });

module.exports = { help: HELP, run: statusline };
