// The Markdown export never carries raw HTML (journal text never becomes
// markup), checked with markdown-it's HTML on: a CommonMark parser apart
// from the export's own escaping (web-demo/render.js demoteMarkdown), as a
// renderer that allows HTML (an editor's preview, a static site) reads it.
// Code spans and fenced blocks keep their `<` as written.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const MarkdownIt = createRequire(path.join(root, ".ci/package.json"))("markdown-it");
const { demoteMarkdown } = await import(pathToFileURL(path.join(root, "pkg/viewer/render.js")));
const permissive = new MarkdownIt({ html: true });

/** The raw HTML a permissive renderer finds in Markdown, block and inline. */
function rawHtml(markdown) {
  const found = [];
  const walk = (tokens) => {
    for (const t of tokens) {
      if (t.type === "html_block" || t.type === "html_inline") found.push(t.content);
      if (t.children) walk(t.children);
    }
  };
  walk(permissive.parse(markdown, {}));
  return found;
}

test("hostile prose: every tag, comment and declaration comes out as text, code spans and fences as written", () => {
  const cases = [
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "text <svg onload=alert(1)> more",
    "<!-- hidden --> <?php echo 1; ?> <!DOCTYPE html> </p>",
    "- item <iframe src=javascript:alert(1)>",
    "> quoted <details ontoggle=alert(1) open>",
    "# heading <b>x</b>",
    "a `b\nc` <img onerror=1> `d`",
    "# h `x\n<img onerror=2> `y`",
    "x \\`<img onerror=3>`",
    "a `b\n- c <img onerror=4> `d`",
    "| a | `b |\n| c <img onerror=5> | d` |",
    "    <img onerror=6> indented",
    "\t```\n<img onerror=7>",
    "<http://example.com> <mailto:a@b.c>",
    "- a\n\n  ```\n<img onerror=8>",
  ];
  for (const c of cases) assert.deepEqual(rawHtml(demoteMarkdown(c)), [], JSON.stringify(c));
  // Code keeps its text.
  assert.equal(demoteMarkdown("use `<div>` here"), "use `<div>` here");
  assert.equal(demoteMarkdown("```html\n<div onclick=x>\n```"), "```html\n<div onclick=x>\n```");
  assert.equal(demoteMarkdown("a `span\nover <b>` lines"), "a `span\nover <b>` lines");
  assert.equal(demoteMarkdown("1 < 2 and a<=b"), "1 < 2 and a<=b", "a `<` that opens no tag stays");
});

test("generated Markdown of backticks, tags, escapes and block starts: a permissive renderer finds no raw HTML in the export's text", () => {
  const pieces = ["`", "``", "```", "\n", "\n\n", "<img onerror=1>", "</b>", "<!--", "-->", "\\", "- ", "# ", "> ", "| ", "1. ", "x", " ", "<", "~~~", "    ", "*", "<a href=\"`\">", "&lt;"];
  let seed = 49;
  const next = () => (seed = (seed * 1103515245 + 12345) >>> 0) >>> 8;
  for (let k = 0; k < 20000; k++) {
    let text = "";
    for (let n = next() % 14; n > 0; n--) text += pieces[next() % pieces.length];
    const out = demoteMarkdown(text);
    assert.deepEqual(rawHtml(out), [], `${JSON.stringify(text)} -> ${JSON.stringify(out)}`);
  }
});

test("export --format md of a prompt and an answer with HTML in them: none of it is markup", () => {
  const dir = mkdtempSync(path.join(tmpdir(), "garuda-md-html-"));
  const file = path.join(dir, "s.jsonl");
  const t = "2026-12-01T10:00:00.000Z";
  const lines = [
    { type: "start", t, sessionId: "s", model: "claude-sonnet-4-5" },
    { type: "user", t, message: { role: "user", content: "Why does <img src=x onerror=alert(1)> run? See `<img>`." } },
    { type: "assistant", t, step: 1, response: { content: [{ type: "text", text: "Because <script>alert(2)</script> is HTML:\n\n```html\n<img onerror=x>\n```" }], usage: { inputTokens: 1, outputTokens: 1 } } },
  ];
  writeFileSync(file, lines.map((l) => JSON.stringify(l) + "\n").join(""));
  const r = spawnSync(process.execPath, [path.join(root, "pkg/bin/garuda-session.cjs"), "export", file, "--format", "md"], { encoding: "utf8" });
  assert.equal(r.status, 0, r.stderr);
  const html = rawHtml(r.stdout).filter((h) => !/^<\/?(small|details|summary)>/.test(h.trim()));
  assert.deepEqual(html, [], "only the export's own folds and small print are HTML");
  assert.match(r.stdout, /See `<img>`\./);
  assert.match(r.stdout, /```html\n<img onerror=x>\n```/);
});
