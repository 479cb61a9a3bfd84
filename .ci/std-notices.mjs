// Prints the notices of the Rust standard library and of the crates it
// brings into the wasm, for THIRD_PARTY_LICENSES (after licenses/crates.txt,
// in its format). .ci/build compiles the standard library from the
// toolchain's rust-src (-Z build-std), so these are compiled into the wasm
// as the crates of Cargo.lock are; their versions are read from rust-src's
// own lock file, their licence files from rust-src and from the crates cargo
// downloaded for that build. Fails when a file is missing.
//
// Usage: node .ci/std-notices.mjs
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import path from "node:path";

const sysroot = execFileSync("rustc", ["--print", "sysroot"], { encoding: "utf8" }).trim();
const rustc = execFileSync("rustc", ["-V"], { encoding: "utf8" }).split(" ")[1];
const library = path.join(sysroot, "lib/rustlib/src/rust/library");
const lock = readFileSync(path.join(library, "Cargo.lock"), "utf8");
const version = (name) => {
  const m = new RegExp(`\\nname = "${name}"\\nversion = "([^"]+)"`).exec(lock);
  if (!m) throw new Error(`std-notices: ${name} is not in ${library}/Cargo.lock`);
  return m[1];
};

// The crates.io crates std depends on for wasm32-unknown-unknown whose code
// ends up in the module (the hash map, cfg-if's macro). std's allocator,
// dlmalloc, is not: the module's global allocator is talc (src/wasm/grow.rs),
// whose notice is in crates.txt.
const registry = path.join(process.env.CARGO_HOME ?? path.join(homedir(), ".cargo"), "registry/src");
const fromRegistry = (name) => {
  const dir = `${name}-${version(name)}`;
  for (const index of existsSync(registry) ? readdirSync(registry) : []) {
    const file = path.join(registry, index, dir, "LICENSE-MIT");
    if (existsSync(file)) return readFileSync(file, "utf8").trim();
  }
  throw new Error(`std-notices: no ${dir}/LICENSE-MIT under ${registry} (is the build-std build done?)`);
};

const mit = readFileSync(new URL("../licenses/crates.txt", import.meta.url), "utf8");
// The MIT text itself, as the first MIT notice of crates.txt gives it (its
// copyright line left out).
const text = /\n(Permission is hereby granted[\s\S]*?SOFTWARE\.)/.exec(mit)?.[1];
if (!text) throw new Error("std-notices: no MIT licence text in licenses/crates.txt");

const out = [
  "",
  `The Rust standard library is compiled into the wasm from the source of rustc ${rustc} (rust-src), with these crates.`,
  "",
  "==== MIT License (MIT), the standard library's MIT OR Apache-2.0 ====",
  "Used by:",
  `  core ${rustc}`,
  `  alloc ${rustc}`,
  `  std ${rustc}`,
  "",
  "Copyright (c) The Rust Project Contributors",
  "",
  text,
];
for (const name of ["hashbrown", "cfg-if"]) {
  out.push("", `==== MIT License (MIT) ====`, "Used by:", `  ${name} ${version(name)}`, "", fromRegistry(name));
}
out.push("", `==== compiler_builtins ${version("compiler_builtins")} (its LICENSE.txt) ====`, "Used by:", `  compiler_builtins ${version("compiler_builtins")}`, "");
out.push(readFileSync(path.join(library, "compiler-builtins/LICENSE.txt"), "utf8").trim(), "");
process.stdout.write(out.join("\n"));
