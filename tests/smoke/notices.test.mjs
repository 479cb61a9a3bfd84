// What the package says about itself: `garuda-session --version`, and the
// licences of the crates compiled into its wasm (shipped in
// THIRD_PARTY_LICENSES; .ci/licences-check.mjs fails the build when a crate
// of the wasm target has no notice).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, writeFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const pkg = path.join(root, "pkg");

test("garuda-session --version and -V print the package's version", () => {
  const { version } = JSON.parse(readFileSync(path.join(pkg, "package.json"), "utf8"));
  for (const flag of ["--version", "-V"]) {
    assert.equal(execFileSync(process.execPath, [path.join(pkg, "bin/garuda-session.cjs"), flag], { encoding: "utf8" }), `garuda-session ${version}\n`);
  }
});

test("THIRD_PARTY_LICENSES names every crate compiled into the wasm, the standard library's included, with its licence text", () => {
  const shipped = readFileSync(path.join(pkg, "THIRD_PARTY_LICENSES"), "utf8");
  // The crates the issue named (and the allocator, talc), and the licence texts they come under.
  for (const crate of ["serde ", "serde_json ", "regex-lite ", "wasm-bindgen ", "js-sys ", "itoa ", "memchr ", "talc "]) assert.match(shipped, new RegExp(`\\n  ${crate}\\d`), crate);
  assert.match(shipped, /Permission is hereby granted, free of charge/);
  assert.ok(shipped.includes(readFileSync(path.join(root, "licenses/crates.txt"), "utf8")));
  // The standard library, compiled in from rust-src (.ci/build's -Z
  // build-std), and the crates it brings (.ci/std-notices.mjs).
  for (const crate of ["core ", "alloc ", "std ", "hashbrown ", "cfg-if ", "compiler_builtins "]) assert.match(shipped, new RegExp(`\\n  ${crate}\\d`), crate);
  assert.match(shipped, /Copyright \(c\) The Rust Project Contributors/);
});

test("the licence check fails, naming the crate, when a crate of the wasm has no notice", () => {
  const notices = readFileSync(path.join(root, "licenses/crates.txt"), "utf8");
  const without = path.join(mkdtempSync(path.join(tmpdir(), "garuda-notices-")), "crates.txt");
  writeFileSync(without, notices.replace(/\n  serde_json \S+\n/g, "\n"));
  const ok = spawnSync(process.execPath, [path.join(root, ".ci/licences-check.mjs")], { encoding: "utf8" });
  assert.equal(ok.status, 0, ok.stderr);
  const bad = spawnSync(process.execPath, [path.join(root, ".ci/licences-check.mjs"), without], { encoding: "utf8" });
  assert.equal(bad.status, 1);
  assert.match(bad.stderr, /no notice for serde_json \d/);
  assert.doesNotMatch(bad.stderr, /no notice for .*\bserde \d/);
});
