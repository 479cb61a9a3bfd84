// `garuda-session usage [paths...]`: tokens and cost of every session under
// some paths (default: each agent's own folders, roots.cjs), with ccusage's
// views and flags under our names (ccusage daily = --by day, weekly = --by
// week, monthly = --by month, session = --by session, blocks = --by block).
"use strict";

const fs = require("node:fs");
const { UsageError, writeOut, writeStats, parseArgs, READ, REDIS, withRedis, maskPassword, readOptions, known, progress, session } = require("../cli.cjs");
// The report (and the walk of folders) only when the kept answers do not answer.
const usageReport = () => require("../usage.cjs");
const { answers, cacheDir } = require("../usage-answers.cjs");
// The index (and the report's modules) only when the kept answers do not answer.
const readIndexed = (...a) => require("../usage-index.cjs").readIndexed(...a);
const { table, useColour } = require("../usage-table.cjs");
const time = require("../usage-time.cjs");
const { ROOTS_HELP } = require("../roots.cjs");

const HELP = `usage: garuda-session usage [daily|weekly|monthly|session|blocks|statusline] [paths...] [--by day|week|month|session|block|model] [options]
  tokens and cost of every session under the paths (files or folders, any agent's layout);
  default: CLAUDE_CONFIG_DIR (comma list) or ~/.config/claude and ~/.claude, CODEX_HOME or
  ~/.codex, PI_AGENT_DIR or ~/.pi/agent, GEMINI_DATA_DIR or ~/.gemini/tmp, GARUDA_HOME or .garuda
  A request copied into several files counts once; a subagent's file counts in its session.
  --by day|week|month   per local day, week (from Sunday) or month (ccusage daily/weekly/monthly)
  --start-of-week D     (weeks) the day a week starts on: sunday (default), monday, ... saturday
  --by session          per session (project and id; subagents folded in), by last activity
  --by block            per 5-hour usage block (ccusage blocks); the active one with its burn
                        rate and projection
  --by model            per model
  --since D, --until D  from / to a day (inclusive), YYYY-MM-DD or YYYYMMDD, in --timezone
  --last N              the last N days, weeks or months (1: today, this week, this month)
  --timezone Z          IANA zone for days and weeks (default: the system's)
  --order asc|desc      oldest or newest first (default asc)
  --breakdown           a row per model under each (and per subagent under each session)
  --project P           only project P's sessions; --instances: a table per project
  --active              (blocks) only the active block; --recent: the last 3 days
  --token-limit N|max   (blocks) the active block's projection against N tokens (max: the most
                        of any earlier block)
  --session-length H    (blocks) hours per block (default 5)
  --compact             fewer columns (automatic when the table is wider than the terminal)
  --no-cost             no costs: no cost column, no cost field in --json (tokens only)
  --color, --no-color   colours (default: on a terminal, off with NO_COLOR, on with FORCE_COLOR)
  --json                the report as JSON: ccusage's fields (totalTokens, totalCost, modelsUsed,
                        modelBreakdowns, lastActivity, ...) and ours (costIncomplete; an unknown
                        price makes a cost null, never $0)
  --no-index            read every file whole (by default an index in the user's cache folder
                        remembers each file's rows: unchanged files are not opened again, a
                        Claude Code file appended to has only its new bytes read; and when no
                        folder or file changed, a report asked before is answered from there)
  --format f, --prices p.json, --vertex-region R, --redis URL [--prefix p]: as for replay
ccusage's names work too: \`usage daily|weekly|monthly|session|blocks\` is --by day|week|month|
  session|block, \`usage statusline\` is \`garuda-session statusline\` (a path named like one of
  them: give it as ./daily); its short flags -j (--json), -s/-u (--since/--until), -z (--timezone),
  -o (--order), -b (--breakdown), -p (--project), -i (--instances; after \`session\`: --id),
  -a/-r/-t/-n (--active/--recent/--token-limit/--session-length), -w (--start-of-week); --id S (sessions: only session
  S); -O/--offline and --no-offline are accepted and change nothing (the prices are built in)`;

/** ccusage's commands: the view each is. */
const CCUSAGE = { daily: "day", weekly: "week", monthly: "month", session: "session", blocks: "block" };
/** ccusage's short flags (after the long ones: parseArgs gives the long name its short). */
const SHORT = { "-j": "json!", "-s": "since", "-u": "until", "-z": "timezone", "-o": "order", "-b": "breakdown!", "-p": "project", "-a": "active!", "-r": "recent!", "-t": "tokenLimit", "-n": "sessionLength", "-O": "offline!", "-w": "startOfWeek" };

const BY = ["day", "week", "month", "session", "block", "model"];

/** Checked options of the report, from the command line. */
function reportOptions(o) {
  const by = o.by ?? "session";
  if (!BY.includes(by)) throw new UsageError(`--by ${o.by}: give one of ${BY.join(", ")}`);
  // No --timezone: the system's zone (time.zone reads it without Intl).
  if (o.timezone !== undefined && !time.checkZone(o.timezone)) throw new UsageError(`--timezone ${o.timezone}: not a time zone (give an IANA name such as UTC or Europe/Paris)`);
  const zone = time.zone(o.timezone);
  const out = { by, zone, order: o.order ?? "asc", breakdown: o.breakdown === true, project: o.project, instances: o.instances === true };
  for (const k of ["since", "until"]) {
    if (o[k] === undefined) continue;
    const day = time.parseDate(o[k]);
    if (day === null) throw new UsageError(`--${k} ${o[k]}: not a date (give YYYY-MM-DD or YYYYMMDD)`);
    out[k] = day;
  }
  if (out.since !== undefined && out.until !== undefined && out.since > out.until) throw new UsageError(`--since ${o.since} is after --until ${o.until}`);
  if (!["asc", "desc"].includes(out.order)) throw new UsageError(`--order ${o.order}: give asc or desc`);
  if (o.startOfWeek !== undefined) {
    // ccusage's weekly takes any day; its default is Sunday, as ours is.
    const start = time.WEEKDAYS.indexOf(String(o.startOfWeek).toLowerCase());
    if (start < 0) throw new UsageError(`--start-of-week ${o.startOfWeek}: give a day of the week (sunday, monday, ... saturday)`);
    if (by !== "week") throw new UsageError("--start-of-week goes with --by week");
    out.weekStart = start;
  }
  if (o.last !== undefined) {
    if (!/^[1-9]\d*$/.test(o.last)) throw new UsageError(`--last ${o.last}: give a whole number of periods, 1 or more`);
    if (!["day", "week", "month"].includes(by)) throw new UsageError("--last goes with --by day, week or month");
    const from = time.lastStart(by, zone.dayOf(Date.now()), Number(o.last), out.weekStart);
    out.since = Math.max(out.since ?? -Infinity, from);
  }
  const blockOnly = ["active", "recent", "tokenLimit", "sessionLength"].filter((k) => o[k] !== undefined);
  if (blockOnly.length > 0 && by !== "block") throw new UsageError(`--${blockOnly[0].replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} goes with --by block`);
  out.active = o.active === true;
  out.recent = o.recent === true;
  if (o.tokenLimit !== undefined) {
    if (o.tokenLimit !== "max" && !/^[1-9]\d*$/.test(o.tokenLimit)) throw new UsageError(`--token-limit ${o.tokenLimit}: give a number of tokens or max`);
    out.tokenLimit = o.tokenLimit === "max" ? "max" : Number(o.tokenLimit);
  }
  if (o.sessionLength !== undefined) {
    const h = Number(o.sessionLength);
    if (!(h > 0 && h <= 24 * 7)) throw new UsageError(`--session-length ${o.sessionLength}: give hours, more than 0`);
    out.sessionLength = h;
  }
  if (o.project !== undefined && o.project === "") throw new UsageError("--project needs a project name");
  if (o.id !== undefined) {
    if (by !== "session") throw new UsageError("--id goes with --by session (usage session --id S)");
    if (o.id === "") throw new UsageError("--id needs a session id");
    out.id = o.id;
  }
  return out;
}

/** The paths to read (or the default folders), each there. */
function rootsOf(paths) {
  const roots = paths.length > 0 ? paths : require("../roots.cjs").dataRoots();
  if (roots.length === 0) throw new UsageError(`no path given, and none of the agents' folders exists (${ROOTS_HELP})`);
  for (const r of roots) if (!fs.existsSync(r)) throw new UsageError(`${r}: no such file or folder`);
  return roots;
}

/**
 * The report without its costs (--no-cost, as ccusage's): every field
 * whose name says cost (totalCost, cost, costUsd, costIncomplete,
 * costPerHour), at any depth. Not kept: the kept answers hold the whole report.
 */
function withoutCost(x) {
  if (Array.isArray(x)) return x.map(withoutCost);
  if (x === null || typeof x !== "object") return x;
  return Object.fromEntries(Object.entries(x).filter(([k]) => !/cost/i.test(k)).map(([k, v]) => [k, withoutCost(v)]));
}

/** `usage [paths…]`: every session under the paths, or on Redis with --redis. */
async function usageCommand(argv) {
  // \`usage daily\` etc. as ccusage names its views (\`usage statusline\`: that command).
  let view;
  let args = argv;
  if (argv[0] === "statusline") return require("./statusline.cjs").run(argv.slice(1));
  if (Object.hasOwn(CCUSAGE, argv[0])) {
    view = CCUSAGE[argv[0]];
    args = argv.slice(1);
  }
  const o = parseArgs(args, {
    "--by": "by",
    "--since": "since",
    "--until": "until",
    "--timezone": "timezone",
    "--last": "last",
    "--order": "order",
    "--breakdown": "breakdown!",
    "--project": "project",
    "--instances": "instances!",
    "--active": "active!",
    "--recent": "recent!",
    "--token-limit": "tokenLimit",
    "--session-length": "sessionLength",
    "--compact": "compact!",
    "--color": "color!",
    "--no-color": "noColor!",
    "--json": "json!",
    "--no-index": "noIndex!",
    "--id": "id",
    "--offline": "offline!",
    "--no-offline": "noOffline!",
    "--start-of-week": "startOfWeek",
    "--no-cost": "noCost!",
    ...READ,
    ...REDIS,
    ...SHORT,
    ...(view === "session" ? { "-i": "id" } : { "-i": "instances!" }),
  }, Infinity);
  if (view !== undefined) {
    if (o.by !== undefined && o.by !== view) throw new UsageError(`${argv[0]} and --by ${o.by}: give one of them`);
    o.by = view;
  }
  const ro = reportOptions(o);
  const options = readOptions(o);
  const warn = (text) => process.stderr.write(`garuda-session usage: warning: ${text}\n`);
  let items;
  if (o.redis !== undefined) {
    items = [];
    await withRedis(o, async (store) => {
      for (const { id } of await store.list()) {
        const journal = new session.Journal({ ...options, usageOnly: true });
        try {
          journal.feed(await store.text(id));
          journal.finish();
          const { format, costUsd, costIncomplete } = journal.state();
          items.push({ id, project: "", file: `${maskPassword(o.redis)} ${id}`, format, costUsd, costIncomplete, rows: journal.usageRows(), models: JSON.parse(journal.usageModels()) });
        } finally {
          journal.free();
        }
      }
    });
  }
  let r;
  // A report that does not depend on the time it is asked (not blocks'),
  // from the answers kept when no folder or file changed since.
  const roots = o.redis === undefined ? rootsOf(o._) : null;
  const kept = roots && o.noIndex !== true && ro.by !== "block" ? answers(cacheDir(), roots, options) : null;
  const question = kept && JSON.stringify({ ...ro, zone: time.zoneKey(ro.zone) });
  r = kept?.get(question);
  if (r !== undefined) writeStats("usage", { bytesRead: 0, answered: true });
  if (r === undefined && roots) {
    let bar = null;
    // --by day over everything: its days are kept in the index (usage-days.cjs), only those an append touched added up again.
    const plainDay = ro.by === "day" && ro.since === undefined && ro.until === undefined && ro.project === undefined && !ro.instances && ro.id === undefined;
    items = await readIndexed(roots, options, warn, { noIndex: o.noIndex === true, progress: (bytes) => (bar = progress("usage", bytes)), dayZone: plainDay ? ro.zone : null });
    bar?.done();
    writeStats("usage", items.stats);
    if (items.unknownFormat) known({ format: null }, items.unknownFormat);
  }
  if (r === undefined) {
    // The index knows each request's copies (usage-count.cjs): marked, not counted again.
    if (items.copiesKnown) require("../usage-count.cjs").applyCopies(items);
    r = items.days ? require("../usage-days.cjs").dayReport(items.days, items, ro.order) : usageReport().report(items, items.copiesKnown ? { ...ro, counted: true } : ro);
    if (kept) {
      kept.put(question, r);
      kept.save(items.snapshot);
    }
  }
  if (o.json) {
    writeOut(JSON.stringify(o.noCost ? withoutCost(r) : r, null, 2) + "\n");
  } else {
    const colour = o.color ? true : o.noColor ? false : useColour(undefined);
    writeOut(table(r, ro.by, { ...ro, compact: o.compact === true, colour, noCost: o.noCost === true }));
  }
  return 0;
}

module.exports = { help: HELP, run: usageCommand, rootsOf };
