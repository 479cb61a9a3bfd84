// The model view on every real session in ../shared/peers (issue 20): each
// file imported as Garuda would keep it (redacted), opened live, resumed;
// then an oracle apart from the core's rules (support/fake-api.cjs: a
// signature binds a thinking block to the content before it, as the API
// documents) checks every thinking block the view kept against the same
// block in the conversation as written: its prefix and its text must be
// unchanged, or the API would refuse it. The view must also pass
// checkMessages, keep every conversation that had messages, and drop all
// thinking when resumed with another model.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);
const core = require(path.join(root, "pkg/node/garuda_session.js"));
const { FakeApi } = require("./support/fake-api.cjs");
const shared = process.env.GARUDA_SHARED ?? path.join(root, "../shared");
const peers = path.join(shared, "peers");
const SKIP = fs.existsSync(peers) ? false : `SKIP peers view: ${peers} is absent (../shared sits beside the repository in CI)`;

const files = SKIP ? [] : fs.readdirSync(peers, { recursive: true }).map(String).filter((f) => f.endsWith(".jsonl") || f.endsWith(".json")).sort();
const blocksOf = (m) => (Array.isArray(m.content) ? m.content : []);

/** Each signed thinking block of `messages`: its signature, text, and the oracle's digest of what came before it. */
function signed(api, messages) {
  const out = [];
  messages.forEach((m, i) => {
    if (m.role !== "assistant") return;
    blocksOf(m).forEach((b, j) => {
      if (b.type === "thinking" && typeof b.signature === "string" && b.signature !== "") {
        out.push({ signature: b.signature, text: b.thinking, at: `${i}.${j}`, digest: api.sign("m", messages.slice(0, i), b.thinking, blocksOf(m).slice(0, j)) });
      }
    });
  });
  return out;
}

function resumedView(imported, model) {
  const j = new core.Journal({ modelView: true, strict: true, redactor: new core.Redactor({ env: {} }) });
  try {
    j.feed(imported);
    j.finish();
    j.write({ type: "resume", model });
    // What the layer does before the next prompt: calls left open are answered in the journal.
    const closing = j.closeOpenToolCalls(new Date().toISOString());
    if (closing) j.write(closing);
    return j.viewFrom(0);
  } finally {
    j.free();
  }
}

test("the view kept no thinking block the API would refuse, on every real session in ../shared/peers", { skip: SKIP }, () => {
  const api = new FakeApi();
  let kept = 0;
  let written = 0;
  let sessions = 0;
  for (const f of files) {
    const text = fs.readFileSync(path.join(peers, f), "utf8");
    let imported;
    try {
      imported = core.importSession(text, { redactor: new core.Redactor({ env: {} }) });
    } catch (e) {
      if (e.code === "ERR_UNKNOWN_FORMAT") continue; // a catalog, not a session
      throw e;
    }
    const asWritten = core.rebuildState(text);
    const model = core.rebuildState(imported).model ?? "m";
    const view = resumedView(imported, model);
    sessions++;
    if (asWritten.messages.length > 0) assert.ok(view.length > 0, `${f}: the view lost the conversation`);
    assert.deepEqual(core.checkMessages(view).filter((p) => p.kind !== "no-messages"), [], f);
    // By signature; a sanitized catalog gives many blocks one placeholder
    // signature ("[trimmed for fixture]"), so a kept block must match one of
    // the blocks written with its signature, text and prefix both.
    const truth = new Map();
    for (const s of signed(api, asWritten.messages)) truth.set(s.signature, [...(truth.get(s.signature) ?? []), s]);
    written += [...truth.values()].reduce((n, c) => n + c.length, 0);
    for (const s of signed(api, view)) {
      kept++;
      const was = truth.get(s.signature) ?? [];
      assert.ok(was.length > 0, `${f}: block ${s.at} carries a signature the session never had`);
      const same = was.filter((w) => w.text === s.text);
      assert.ok(same.length > 0, `${f}: block ${s.at} kept its signature, but its text changed`);
      assert.ok(same.some((w) => w.digest === s.digest), `${f}: block ${s.at} (${same.map((w) => w.at).join(" or ")} as written) kept, but the content before it changed: the API would refuse it`);
    }
    assert.deepEqual(signed(api, resumedView(imported, `${model}-other`)), [], `${f}: another model, no thinking`);
  }
  assert.ok(sessions >= 10, `only ${sessions} sessions read`);
  console.log(`peers view: ${sessions} sessions, ${written} signed thinking blocks as written, ${kept} kept after resume, each with its prefix unchanged`);
});
