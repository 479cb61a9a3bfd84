// Dates for `usage`: local days in a time zone (default: the system's, as
// ccusage), weeks from Sunday (ccusage's weekly), months, and the dates
// --since/--until take (YYYY-MM-DD or YYYYMMDD, as ccusage takes them).
// A day is a whole number (days since 1970-01-01 in that zone), so grouping
// 100,000s of requests costs one lookup each: a zone's offset is asked of
// Intl once per quarter hour of the data (offsets change on quarter hours).
"use strict";

const DAY = 86400000;
const QUARTER = 900000;

/** The system's zone (what ccusage uses when --timezone is not given). */
const systemZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

/** A checked IANA zone name, or null when Intl does not know it. */
function checkZone(name) {
  if (name === "UTC" || name === "Etc/UTC") return name;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return name;
  } catch {
    return null;
  }
}

/**
 * `dayOf(ms)` (local day number) and `offsetOf(ms)` in one zone; without a
 * name, the system's. The system's zone and UTC are read without Intl:
 * Intl's first DateTimeFormat loads ICU's zone data, 12 to 50 ms of a
 * status line that must answer in under 100 (Date's local time is the
 * same zone, from the same source).
 */
function zone(name) {
  if (name === undefined) {
    const cache = new Map();
    const offsetOf = (ms) => {
      const q = Math.floor(ms / QUARTER);
      let off = cache.get(q);
      if (off === undefined) cache.set(q, (off = -new Date(q * QUARTER).getTimezoneOffset() * 60000));
      return off;
    };
    return { name: undefined, offsetOf, dayOf: (ms) => Math.floor((ms + offsetOf(ms)) / DAY) };
  }
  if (name === "UTC" || name === "Etc/UTC") return { name, offsetOf: () => 0, dayOf: (ms) => Math.floor(ms / DAY) };
  const fmt = new Intl.DateTimeFormat("en-US", { timeZone: name, hourCycle: "h23", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit" });
  const cache = new Map();
  const offsetOf = (ms) => {
    const q = Math.floor(ms / QUARTER);
    let off = cache.get(q);
    if (off === undefined) {
      const at = q * QUARTER;
      const p = Object.fromEntries(fmt.formatToParts(new Date(at)).map((x) => [x.type, x.value]));
      off = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute)) - at;
      cache.set(q, off);
    }
    return off;
  };
  return { name, offsetOf, dayOf: (ms) => Math.floor((ms + offsetOf(ms)) / DAY) };
}

/**
 * What names a zone's days in a kept answer (usage-answers.cjs): its name,
 * or for the system's, TZ and the system's zone file (a change of either
 * is another zone).
 */
function zoneKey(z) {
  if (z.name !== undefined) return z.name;
  const st = require("node:fs").statSync("/etc/localtime", { throwIfNoEntry: false });
  return `local:${process.env.TZ ?? ""}:${st ? `${st.ino}:${st.mtimeMs}` : ""}:${-new Date().getTimezoneOffset()}`;
}

/** YYYY-MM-DD of a day number (remembered: a report asks it of every request). */
const dates = new Map();
function dateOf(day) {
  let s = dates.get(day);
  if (s === undefined) dates.set(day, (s = new Date(day * DAY).toISOString().slice(0, 10)));
  return s;
}

/** The day number of YYYY-MM-DD or YYYYMMDD, or null when it is no real date. */
function parseDate(s) {
  const m = /^(\d{4})-?(\d{2})-?(\d{2})$/.exec(String(s));
  if (!m || (s.length === 10) !== s.includes("-") || (s.length === 10 && (s[4] !== "-" || s[7] !== "-"))) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const ms = Date.UTC(y, mo - 1, d);
  const back = new Date(ms);
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return null;
  return ms / DAY;
}

/** ccusage's --start-of-week names, Sunday first (index: the day of the week). */
const WEEKDAYS = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];

/** The first day of a day's week, weeks starting on weekday `start` (0: Sunday; 1970-01-01 was a Thursday). */
const weekOf = (day, start = 0) => day - ((day + 11 - start) % 7);

/** YYYY-MM of a day number, and the day number of its first day. */
const monthOf = (day) => dateOf(day).slice(0, 7);
const monthStart = (day) => parseDate(dateOf(day).slice(0, 8) + "01");

/** The first day of the period `n` periods back from the one holding `today` (--last n: 1 is this one). */
function lastStart(by, today, n, weekStart = 0) {
  if (by === "day") return today - (n - 1);
  if (by === "week") return weekOf(today, weekStart) - 7 * (n - 1);
  const d = new Date(monthStart(today) * DAY);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() - (n - 1), 1) / DAY;
}

module.exports = { DAY, WEEKDAYS, systemZone, checkZone, zone, zoneKey, dateOf, parseDate, weekOf, monthOf, monthStart, lastStart };
