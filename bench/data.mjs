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
