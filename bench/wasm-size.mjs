// Where the wasm's bytes are: each function body's size in the release build
// (before wasm-bindgen and wasm-opt, which keep the name section), summed by
// the crate and module path its (legacy-mangled) name starts with. For the
// size budget (.ci/build fails above 300,000 bytes gzipped): compare two
// commits' output to find what grew.
//
// Usage: node bench/wasm-size.mjs [wasm] [--depth N] [--top N]
//   default wasm: target/wasm32-unknown-unknown/release/garuda_session.wasm
import { readFileSync } from "node:fs";

const args = process.argv.slice(2);
const opt = (name, fallback) => (args.includes(name) ? Number(args[args.indexOf(name) + 1]) : fallback);
const file = args.find((a, i) => !a.startsWith("--") && !args[i - 1]?.startsWith("--")) ?? "target/wasm32-unknown-unknown/release/garuda_session.wasm";
const depth = opt("--depth", 2);
const top = opt("--top", 25);
const bytes = readFileSync(file);

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
while (pos < bytes.length) {
  const id = bytes[pos++];
  const size = u32();
  const end = pos + size;
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
  } else if (id === 0 && name() === "name") {
    while (pos < end) {
      const sub = bytes[pos++];
      const subEnd = u32() + pos;
      if (sub === 1) for (let n = u32(); n > 0; n--) names.set(u32(), name());
      pos = subEnd;
    }
  }
  pos = end;
}

/** `_ZN10serde_json2de5parse17h…E` → ["serde_json", "de", "parse"]. */
function path(symbol) {
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

const groups = new Map();
let total = 0;
bodies.forEach((len, i) => {
  const key = path(names.get(imported + i)).slice(0, depth).join("::");
  groups.set(key, (groups.get(key) ?? 0) + len);
  total += len;
});
console.log(`${file}: ${bodies.length} functions, ${total} bytes of code (${bytes.length} bytes in all)`);
for (const [key, len] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  console.log(`${String(len).padStart(9)}  ${((100 * len) / total).toFixed(1).padStart(5)}%  ${key}`);
}
