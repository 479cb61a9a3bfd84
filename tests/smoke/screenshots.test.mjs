// The README's light, dark and phone screenshots come from a script
// (web-demo/screenshots/take.mjs) that writes its own session and shoots it
// in headless Chromium: it runs, gives four PNGs of the widths it names and
// a small size, and the session it shoots is ours (no peer's file is read).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const script = path.join(root, "web-demo/screenshots/take.mjs");

test("take.mjs writes the README's four screenshots: 1280 and 390 px, light and dark, each under 160 KB", () => {
  const out = mkdtempSync(path.join(tmpdir(), "garuda-shots-"));
  // With ../shared out of reach: the script needs nothing but the repository.
  const r = spawnSync(process.execPath, [script, out], { encoding: "utf8", env: { ...process.env, GARUDA_SHARED: "/nonexistent" }, timeout: 120000 });
  assert.equal(r.status, 0, r.stderr);
  for (const width of [1280, 390]) {
    for (const scheme of ["light", "dark"]) {
      const file = path.join(out, `reader-${width}-${scheme}.png`);
      const png = readFileSync(file);
      assert.equal(png.subarray(1, 4).toString("latin1"), "PNG", file);
      assert.equal(png.readUInt32BE(16), width, `${file}: its width`);
      assert.ok(statSync(file).size < 160_000, `${file}: ${statSync(file).size} bytes`);
    }
  }
  assert.notDeepEqual(readFileSync(path.join(out, "reader-1280-light.png")), readFileSync(path.join(out, "reader-1280-dark.png")), "two schemes, two pictures");
});

test("the README shows the four screenshots, and the repository holds them", () => {
  const readme = readFileSync(path.join(root, "README.md"), "utf8");
  for (const name of ["reader-1280-light", "reader-1280-dark", "reader-390-light", "reader-390-dark"]) {
    assert.ok(readme.includes(`(web-demo/screenshots/${name}.png)`), name);
    assert.ok(statSync(path.join(root, `web-demo/screenshots/${name}.png`)).size < 160_000, name);
  }
});

test("take.mjs --out shoots given journals: per file, 1280 and 390 px, light and dark, from the prompt and from the first tool call", async () => {
  // A journal we generate (never a peer's file), under a name that is not the script's own session.
  const { screenshotSession } = await import(script);
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-given-"));
  const file = path.join(dir, "given-one.jsonl");
  writeFileSync(file, screenshotSession());
  const out = path.join(dir, "shots");
  const r = spawnSync(process.execPath, [script, "--out", out, file], { encoding: "utf8", env: { ...process.env, GARUDA_SHARED: "/nonexistent" }, timeout: 120000 });
  assert.equal(r.status, 0, r.stderr);
  const names = readdirSync(out).sort();
  assert.deepEqual(names, ["1280", "390"].flatMap((w) => ["dark", "light"].flatMap((s) => [`given-one-${w}-${s}-tools.png`, `given-one-${w}-${s}.png`])).sort());
  for (const name of names) assert.equal(readFileSync(path.join(out, name)).readUInt32BE(16), Number(name.split("-")[2]), name);
  assert.notDeepEqual(readFileSync(path.join(out, "given-one-1280-light.png")), readFileSync(path.join(out, "given-one-1280-light-tools.png")), "two places, two pictures");
});

test("take.mjs --out without a file, or without a folder, is a usage error, not our session shot somewhere", () => {
  for (const args of [["--out", mkdtempSync(path.join(tmpdir(), "garuda-empty-"))], ["--out"]]) {
    const r = spawnSync(process.execPath, [script, ...args], { encoding: "utf8", timeout: 60000 });
    assert.notEqual(r.status, 0, args.join(" "));
    assert.match(r.stderr, /usage: take\.mjs --out/);
  }
});
