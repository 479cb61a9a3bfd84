// The reading mode's renderer (markdown-it, highlight.js) ships once in the
// package: as viewer/render.js, which the viewer's worker and `export`
// (bin/transcript.cjs) both load. A second bundled copy doubles what the
// package weighs and what a fix in either library has to reach.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const pkg = path.join(root, "pkg");

/** Every script file of the package, relative to pkg/. */
function scripts(dir = pkg) {
  return readdirSync(dir).flatMap((name) => {
    const file = path.join(dir, name);
    if (statSync(file).isDirectory()) return scripts(file);
    return /\.(c|m)?js$/.test(name) ? [path.relative(pkg, file)] : [];
  });
}

// Names the libraries' code keeps after minifying (property names): one
// from highlight.js's API, one from markdown-it's.
const MARKERS = { "highlight.js": "highlightAuto", "markdown-it": "validateLink" };

test("markdown-it and highlight.js are in one file of the package, viewer/render.js", () => {
  for (const [library, marker] of Object.entries(MARKERS)) {
    const holders = scripts().filter((f) => readFileSync(path.join(pkg, f), "utf8").includes(marker));
    assert.deepEqual(holders, ["viewer/render.js"], `${library} (${marker})`);
  }
});

test("bin/transcript.cjs loads the renderer the viewer ships, and refuses to render before it has", async () => {
  const { createRequire } = await import("node:module");
  const transcript = createRequire(import.meta.url)(path.join(pkg, "bin/transcript.cjs"));
  const journal = { transcriptLength: 0, transcript: () => [], transcriptEntry: () => null };
  const info = { title: "t", sessionId: "s", model: "m", cost: "$0.00" };
  assert.throws(() => transcript.transcriptHtml(journal, info, (s) => s), /loadRenderer/);
  await transcript.loadRenderer();
  const html = transcript.transcriptHtml(journal, { ...info, title: "<b>x</b>" }, (s) => s);
  assert.match(html, /<title>&lt;b&gt;x&lt;\/b&gt;<\/title>/);
  assert.match(transcript.transcriptMarkdown(journal, info, (s) => s), /^# t\n/);
});
