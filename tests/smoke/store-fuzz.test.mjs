// The file store's deterministic fuzzer (fuzz/store.mjs) on a few fixed
// seeds: opens, writes and closes mixed with dead and live writers' locks,
// planted symlinks, junk, a BOM, a read-only folder and a full disk, every
// rule checked after every step. `node fuzz/store.mjs <seed> <steps>` walks
// any other seed, as long as wanted.
import { test } from "node:test";
import { run } from "../../fuzz/store.mjs";

for (const seed of [1, 2, 3, 4]) {
  test(`fuzz/store.mjs seed ${seed}, 500 steps: every rule holds after every step`, () => {
    run(seed, 500);
  });
}
