// The status line kept between runs, as ccusage's statusline keeps it (its
// "hybrid time+file caching": --cache, --refresh-interval, default 1 s).
// Claude Code runs the hook on every event and every few seconds, often
// several times a second while a turn streams. A line computed less than
// the interval ago, for the same status JSON, options and environment, and
// while the transcript's size and mtime are what they were, is printed
// again: the run stats one file and reads one small one, where checking the
// kept answers (usage-answers.cjs) stats every file of the history (2,758
// on the 1 GB benchmark's). Spend written by another session in the same
// second shows in the next line after the interval.
//
// One JSON file in the index's folder, 0600, written whole and renamed into
// place, holding the last `KEEP` lines (costs and token counts, nothing of
// the conversations) by the FNV-1a of what they answer.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const { hash } = require("./usage-answers.cjs");

const VERSION = 1;
const KEEP = 16;

/** What a line depends on besides the files: the status JSON, the options, and where the data and the zone come from. */
function keyOf({ text, args }) {
  const env = process.env;
  const from = [env.CLAUDE_CONFIG_DIR, env.HOME, env.USERPROFILE, env.TZ, env.CLOUD_ML_REGION, process.cwd()];
  return hash(JSON.stringify([VERSION, text, args, from]));
}

/** The transcript's size, mtime and inode ([] when there is none or it cannot be read). */
function stamp(transcript) {
  if (typeof transcript !== "string" || transcript === "") return [];
  const st = fs.statSync(transcript, { throwIfNoEntry: false });
  return st ? [st.size, st.mtimeMs, st.ino] : [];
}

/**
 * The kept line for this question: `get(maxAgeMs)` gives it (or undefined
 * when none is kept, it is older, or the transcript changed); `put(line,
 * computedAt)` keeps a line computed from files read at or after
 * `computedAt`.
 */
function open(dir, question, transcript) {
  const file = path.join(dir, `statusline-v${VERSION}.json`);
  const key = keyOf(question);
  let st;
  try {
    st = stamp(transcript);
  } catch {
    return null;
  }
  let lines = null;
  const load = () => {
    if (lines !== null) return lines;
    try {
      const v = JSON.parse(fs.readFileSync(file, "utf8"));
      lines = v && v.version === VERSION && v.lines && typeof v.lines === "object" ? v.lines : {};
    } catch {
      lines = {};
    }
    return lines;
  };
  return {
    get(maxAgeMs) {
      const kept = load()[key];
      if (!kept || typeof kept.line !== "string" || !Array.isArray(kept.st)) return undefined;
      const age = Date.now() - kept.at;
      if (!(age >= 0 && age < maxAgeMs)) return undefined;
      if (kept.st.length !== st.length || kept.st.some((x, i) => x !== st[i])) return undefined;
      return kept.line;
    },
    put(line, computedAt) {
      const all = { ...load(), [key]: { at: computedAt, st, line } };
      // The newest KEEP (one per session running a status line).
      const keys = Object.keys(all).sort((a, b) => all[b].at - all[a].at).slice(0, KEEP);
      try {
        fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
        const tmp = `${file}.${process.pid}.tmp`;
        fs.writeFileSync(tmp, JSON.stringify({ version: VERSION, lines: Object.fromEntries(keys.map((k) => [k, all[k]])) }), { mode: 0o600 });
        fs.renameSync(tmp, file);
      } catch {
        // Only a cache: the next run computes its line again.
      }
    },
  };
}

module.exports = { open };
