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
const { UsageError, parseArgs, readOptions } = require("../cli.cjs");
const usageReport = require("../usage.cjs");
const time = require("../usage-time.cjs");
const { claudeRoots } = require("../roots.cjs");
const { readIndexed } = require("../usage-index.cjs");

const HELP = `usage: garuda-session statusline [--timezone Z] [--visual-burn-rate off|emoji|text|emoji-text] [--prices p.json] [--no-index]
  Claude Code's status line hook: its status JSON on stdin, one line out:
  model | session / today / block cost (time left in the block) | burn rate | context tokens
  In ~/.claude/settings.json: { "statusLine": { "type": "command", "command": "npx garuda-session statusline" } }
  Reads CLAUDE_CONFIG_DIR (comma list) or ~/.config/claude and ~/.claude, through an index in the
  user's cache folder (only appended bytes are read again); --no-index reads every file.
  --offline is accepted (and changes nothing: prices are built in).`;

const money = (c) => (c === null ? "unknown" : `$${c.toFixed(2)}`);
const n = (x) => Number(x).toLocaleString("en-US");

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
    if (v && typeof v === "object" && !Array.isArray(v)) return v;
  } catch {
    // below
  }
  throw new UsageError("stdin is not Claude Code's status JSON (an object with session_id, transcript_path, model)");
}

async function statusline(args) {
  const o = parseArgs(args, { "--timezone": "timezone", "--visual-burn-rate": "burn", "--offline": "offline!", "--prices": "prices", "--no-index": "noIndex!", "--cost-source": "costSource" });
  const burnStyle = o.burn ?? "off";
  if (!["off", "emoji", "text", "emoji-text"].includes(burnStyle)) throw new UsageError(`--visual-burn-rate ${o.burn}: give off, emoji, text or emoji-text`);
  const zoneName = o.timezone ?? time.systemZone();
  if (!time.checkZone(zoneName)) throw new UsageError(`--timezone ${o.timezone}: not a time zone (give an IANA name such as UTC or Europe/Paris)`);
  const zone = time.zone(zoneName);
  const input = hookInput();
  const options = readOptions(o);
  const roots = claudeRoots();
  const transcript = typeof input.transcript_path === "string" ? input.transcript_path : null;
  if (transcript && fs.existsSync(transcript) && !roots.some((r) => path.resolve(transcript).startsWith(path.resolve(r) + path.sep))) roots.push(transcript);
  const files = roots.length ? usageReport.sessionFiles(roots) : [];
  const warn = (text) => process.stderr.write(`garuda-session statusline: warning: ${text}\n`);
  const items = await readIndexed(files, options, warn, { noIndex: o.noIndex === true });
  const today = zone.dayOf(Date.now());
  const day = usageReport.report(items.map(fresh), { by: "day", zone, since: today, until: today });
  const blocks = usageReport.report(items.map(fresh), { by: "block", zone, active: true });
  const id = typeof input.session_id === "string" ? input.session_id : null;
  const mine = items.filter((it) => (transcript && path.resolve(it.file) === path.resolve(transcript)) || (id && (it.id === id || (it.parent && path.basename(it.parent).replace(/\.jsonl$/, "") === id))));
  const sessionCost = mine.length ? usageReport.report(mine.map(fresh), { by: "session", zone }).totals.totalCost : null;
  const block = blocks.blocks[0];
  const parts = [];
  const model = input.model?.display_name ?? input.model?.id;
  parts.push(`🤖 ${model ?? "unknown model"}`);
  let costs = `💰 ${mine.length ? money(sessionCost) : "N/A"} session / ${money(day.totals.totalCost ?? 0)} today / `;
  if (block) {
    const left = Math.max(0, Date.parse(block.endTime) - Date.now());
    costs += `${money(block.costUSD)} block (${Math.floor(left / 3600000)}h ${Math.floor((left % 3600000) / 60000)}m left)`;
  } else costs += "No active block";
  parts.push(costs);
  if (block?.burnRate) {
    const rate = block.burnRate.tokensPerMinuteForIndicator;
    const level = rate > 5000 ? ["🚨", "High"] : rate > 2000 ? ["⚠️", "Moderate"] : ["", "Normal"];
    const shown = burnStyle === "emoji" ? ` ${level[0]}` : burnStyle === "text" ? ` (${level[1]})` : burnStyle === "emoji-text" ? ` ${level[0]} (${level[1]})` : "";
    parts.push(`🔥 ${block.burnRate.costPerHour === null ? "unknown" : `$${block.burnRate.costPerHour.toFixed(2)}`}/hr${shown}`);
  }
  // The context: the last request of the transcript (its input, cache read and cache write).
  const own = items.find((it) => transcript && path.resolve(it.file) === path.resolve(transcript));
  if (own && own.rows.length >= usageReport.STRIDE) {
    // The latest request (rows come in no particular order).
    let k = 0;
    for (let j = 0; j < own.rows.length; j += usageReport.STRIDE) if (own.rows[j] > own.rows[k] || Number.isNaN(own.rows[k])) k = j;
    const context = own.rows[k + 2] + own.rows[k + 4] + own.rows[k + 5];
    const window = /\[1m\]|-1m\b/.test(String(input.model?.id ?? "")) ? 1_000_000 : 200_000;
    parts.push(`🧠 ${n(context)} (${Math.round((context / window) * 100)}%)`);
  } else parts.push("🧠 N/A");
  process.stdout.write(parts.join(" | ") + "\n");
  if (process.env.GARUDA_USAGE_STATS) process.stderr.write(`garuda-session statusline: read ${JSON.stringify(items.stats)}\n`);
  return 0;
}

/** An item with its own copy of the rows (a report marks copies in them). */
const fresh = (it) => ({ ...it, rows: it.rows ? Float64Array.from(it.rows) : it.rows });

module.exports = { help: HELP, run: statusline };
