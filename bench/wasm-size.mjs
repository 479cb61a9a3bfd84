// Where the wasm's bytes are: each function body's size in the release build
// (before wasm-bindgen and wasm-opt, which keep the name section), summed by
// the crate and module path its (legacy-mangled) name starts with, and each
// section's size raw and gzipped (the data section, messages and number
// tables, compresses far less than code). For the size budget (.ci/build
// fails above GZ_BUDGET bytes gzipped): --compare shows what grew between
// two builds, e.g. a worktree of an older commit built with its own
// CARGO_TARGET_DIR.
//
// Usage: node bench/wasm-size.mjs [wasm] [--compare older.wasm] [--depth N] [--top N]
//   default wasm: target/wasm32-unknown-unknown/release/garuda_session.wasm
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const file = args.find((a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--")) ?? "target/wasm32-unknown-unknown/release/garuda_session.wasm";
const depth = Number(opt("--depth", 2));
const top = Number(opt("--top", 25));
const older = opt("--compare", null);

const SECTIONS = { 1: "type", 2: "import", 3: "function", 7: "export", 10: "code", 11: "data" };

/** Function body sizes by name, and section sizes, of one wasm file. */
function read(wasm) {
  const bytes = readFileSync(wasm);
  let pos = 8;
  const u32 = () => {
    let result = 0, shift = 0, b;
    do {
      b = bytes[pos++];
      result |= (b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80);
    return result >>> 0;
  };
  const name = () => {
    const n = u32();
    const s = bytes.toString("utf8", pos, pos + n);
    pos += n;
    return s;
  };
  let imported = 0;
  const bodies = [];
  const names = new Map();
  const sections = [];
  while (pos < bytes.length) {
    const id = bytes[pos++];
    const size = u32();
    const end = pos + size;
    const start = pos;
    if (id === 2) {
      // Imports: function imports take the first indices.
      for (let n = u32(); n > 0; n--) {
        name();
        name();
        const kind = bytes[pos++];
        if (kind === 0) { u32(); imported++; }
        else if (kind === 1) { pos++; const f = u32(); u32(); if (f & 1) u32(); }
        else if (kind === 2) { const f = u32(); u32(); if (f & 1) u32(); }
        else if (kind === 3) { pos += 2; }
        else if (kind === 4) { pos++; u32(); }
      }
    } else if (id === 10) {
      for (let n = u32(), i = 0; i < n; i++) {
        const len = u32();
        bodies.push(len);
        pos += len;
      }
    } else if (id === 0) {
      const custom = name();
      if (custom === "name") {
        while (pos < end) {
          const sub = bytes[pos++];
          const subEnd = u32() + pos;
          if (sub === 1) for (let n = u32(); n > 0; n--) names.set(u32(), name());
          pos = subEnd;
        }
      }
      sections.push({ name: `custom ${custom}`, raw: size, gz: null });
    }
    if (id !== 0) sections.push({ name: SECTIONS[id] ?? `section ${id}`, raw: size, gz: gzipSync(bytes.subarray(start, end), { level: 9 }).length });
    pos = end;
  }
  const groups = new Map();
  let total = 0;
  bodies.forEach((len, i) => {
    const key = path(names.get(imported + i)).slice(0, depth).join("::");
    groups.set(key, (groups.get(key) ?? 0) + len);
    total += len;
  });
  return { bytes: bytes.length, functions: bodies.length, total, groups, sections };
}

/**
 * `_ZN10serde_json2de5parse17h…E` → ["serde_json", "de", "parse"]; a v0
 * symbol (`_RNvNtCs…_10serde_json2de5parse`, what rustc writes now) → the
 * same: its first crate and the names that follow it, up to the first
 * that is not a plain name (an impl's type, a generic argument), which
 * is enough to group by crate and module.
 */
function path(symbol) {
  if (symbol?.startsWith("_R")) {
    // A crate root: `C`, an optional disambiguator `s<base-62>_`, its name.
    const crate = /C(?:s[0-9A-Za-z]*_)?(\d+)/.exec(symbol);
    if (!crate) return [symbol];
    const parts = [];
    let i = crate.index + crate[0].length - crate[1].length;
    for (let m; (m = /^(\d+)_?/.exec(symbol.slice(i))); ) {
      i += m[0].length;
      parts.push(symbol.slice(i, i + Number(m[1])));
      i += Number(m[1]);
    }
    return parts;
  }
  if (!symbol?.startsWith("_ZN")) return [symbol ?? "(no name)"];
  const parts = [];
  let i = 3;
  while (i < symbol.length && symbol[i] !== "E") {
    const m = /^\d+/.exec(symbol.slice(i));
    if (!m) break;
    i += m[0].length;
    parts.push(symbol.slice(i, i + Number(m[0])));
    i += Number(m[0]);
  }
  return parts.filter((p) => !/^h[0-9a-f]{16}$/.test(p)).map((p) => p.replace(/\$LT\$.*|\$u7b\$.*|^_\$LT\$/, "<…>"));
}

const now = read(file);
const pad = (n, w = 9) => String(n).padStart(w);
console.log(`${file}: ${now.functions} functions, ${now.total} bytes of code (${now.bytes} bytes in all)`);
console.log("sections (raw, gzip -9 alone):");
for (const s of now.sections) console.log(`${pad(s.raw)} ${s.gz === null ? "".padStart(9) : pad(s.gz)}  ${s.name}`);
if (older === null) {
  console.log("code by crate and module:");
  for (const [key, len] of [...now.groups].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${pad(len)}  ${((100 * len) / now.total).toFixed(1).padStart(5)}%  ${key}`);
  }
} else {
  const then = read(older);
  console.log(`${older}: ${then.functions} functions, ${then.total} bytes of code (${then.bytes} bytes in all)`);
  console.log(`code by crate and module, what grew most first (older, now, change):`);
  const keys = new Set([...then.groups.keys(), ...now.groups.keys()]);
  const rows = [...keys].map((k) => [k, then.groups.get(k) ?? 0, now.groups.get(k) ?? 0]);
  rows.sort((a, b) => b[2] - b[1] - (a[2] - a[1]));
  for (const [key, a, b] of rows.slice(0, top)) console.log(`${pad(a)}${pad(b)}${pad((b - a > 0 ? "+" : "") + (b - a))}  ${key}`);
  console.log(`${pad(then.total)}${pad(now.total)}${pad((now.total - then.total > 0 ? "+" : "") + (now.total - then.total))}  all code`);
}
