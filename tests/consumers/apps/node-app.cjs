// node-app.mjs as CommonJS (require): the same program, the same output.
"use strict";
const { readFileSync, mkdtempSync } = require("node:fs");
const { tmpdir } = require("node:os");
const { rebuildState, formatCost, Redactor } = require("@garuda/session/embedded");
const { FileSessionStore } = require("@garuda/session/node");

const secret = ["ghp_", "wWPw5k4aXcaT4fNP0UcnZwJUVFk6LO0pINUx"].join("");
const state = rebuildState(readFileSync(process.argv[2], "utf8"));
const store = new FileSessionStore(mkdtempSync(`${tmpdir()}/garuda-bundled-`), { redactor: new Redactor({ env: {} }) });
const journal = store.open("s1");
journal.write({ type: "user", message: { role: "user", content: `deploy with ${secret}` } });
const file = journal.path;
journal.close();
const written = readFileSync(file, "utf8");
console.log(JSON.stringify({
  prompts: state.prompts,
  cost: formatCost(state),
  redacted: written.includes("[REDACTED]") && !written.includes(secret),
  reread: rebuildState(written).messages.length,
}));
