// Moves wasm-bindgen's JS snippets (src/wasm/js/*.js, imported with
// #[wasm_bindgen(module = ...)]) out of the hashed snippets/ folders it
// writes, beside each glue as `snippet-<name>.js`, and points the glue there:
//   - web (ESM): the file as written;
//   - node (CommonJS): `export function` turned into module.exports, since
//     the nodejs glue require()s it and Node 18 and 20 cannot require ESM.
// Flat names keep `serve` (which serves /web/<file> only) and every
// bundler's copy of the package simple.
//
// Usage: node .ci/snippets.mjs pkg/node pkg/web
import fs from "node:fs";
import path from "node:path";

for (const dir of process.argv.slice(2)) {
  const root = path.join(dir, "snippets");
  if (!fs.existsSync(root)) continue;
  const glueFile = path.join(dir, "garuda_session.js");
  let glue = fs.readFileSync(glueFile, "utf8");
  const commonjs = glue.includes("require(");
  for (const file of fs.readdirSync(root, { recursive: true })) {
    const from = path.join(root, file);
    if (!from.endsWith(".js") || !fs.statSync(from).isFile()) continue;
    const flat = `snippet-${path.basename(from)}`;
    let js = fs.readFileSync(from, "utf8");
    if (commonjs) {
      const names = [];
      js = js.replace(/^export function (\w+)/gm, (_, name) => (names.push(name), `function ${name}`));
      if (/^\s*(export|import)\b/m.test(js)) fail(`${file}: only \`export function\` can be made CommonJS here`);
      js = `"use strict";\n${js}\nmodule.exports = { ${names.join(", ")} };\n`;
    }
    fs.writeFileSync(path.join(dir, flat), js);
    const rel = `./snippets/${file.split(path.sep).join("/")}`;
    const before = glue;
    glue = glue.replaceAll(`String.raw\`${rel}\``, `"./${flat}"`).replaceAll(`'${rel}'`, `'./${flat}'`);
    if (glue === before) fail(`${dir}: the glue does not import ${rel}`);
  }
  fs.writeFileSync(glueFile, glue);
  fs.rmSync(root, { recursive: true });
}

function fail(why) {
  console.error(`snippets: ${why}`);
  process.exit(1);
}
