// A small Node program as agents ship it, bundled: replays a journal, redacts
// a secret while writing a session with the file store, and reads it back.
// Prints one JSON line that tests/consumers/expect.mjs checks.
// Usage: node bundle.mjs <journal.jsonl>
import { readFileSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { rebuildState, formatCost, Redactor } from "@garuda/session/embedded";
import { FileSessionStore } from "@garuda/session/node";

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
