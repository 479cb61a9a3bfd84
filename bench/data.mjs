// The benchmark journals: generated once by the crate's deterministic
// generator (bench/gen_journal.rs) and kept in bench/data/ (ignored by git).

import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.join(here, "..");

export function journalFile(mb) {
  const dir = path.join(here, "data");
  const file = path.join(dir, `${mb}mb.jsonl`);
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const out = execFileSync("cargo", ["run", "--release", "--quiet", "--example", "gen-journal", "--", String(mb)], {
      cwd: root,
      maxBuffer: 1 << 30,
    });
    writeFileSync(file, out);
  }
  return file;
}


/** Runs `fn` `runs` times; the median time in ms and the last result. */
export function timeMedian(fn, runs) {
  const times = [];
  let result;
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    result = fn();
    times.push(Number(process.hrtime.bigint() - t0) / 1e6);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)], result };
}

/**
 * Runs each of `fns` ({ name: fn }) once per round, in turn, for `runs`
 * rounds (after one warm-up call each), so a change in the machine's load
 * falls on all alike (issue 29's proof: each figure beside its anchor,
 * alternating, 5 runs, medians and ranges). Returns, per name, the median,
 * min and max in ms and the last result.
 */
export function alternating(fns, runs = 5) {
  const times = Object.fromEntries(Object.keys(fns).map((k) => [k, []]));
  const results = {};
  for (const [name, fn] of Object.entries(fns)) results[name] = fn();
  for (let round = 0; round < runs; round++) {
    for (const [name, fn] of Object.entries(fns)) {
      const t0 = process.hrtime.bigint();
      results[name] = fn();
      times[name].push(Number(process.hrtime.bigint() - t0) / 1e6);
    }
  }
  return Object.fromEntries(
    Object.entries(times).map(([name, t]) => {
      const s = [...t].sort((a, b) => a - b);
      return [name, { ms: s[Math.floor(s.length / 2)], min: s[0], max: s[s.length - 1], result: results[name] }];
    }),
  );
}

/** "median [min-max]" in ms: tenths under a 100 ms median, else whole. */
export const spread = (t) => {
  const d = t.ms < 100 ? 1 : 0;
  return `${t.ms.toFixed(d)} [${t.min.toFixed(d)}-${t.max.toFixed(d)}]`;
};
