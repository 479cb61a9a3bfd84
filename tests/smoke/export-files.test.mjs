// `garuda-session export` as a reader gets it (issue 25): a folder export
// with its index.html and working links to subagent pages, a short H1, a
// message's headings under the entry's, images as files beside the Markdown.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, mkdirSync, copyFileSync, writeFileSync, readFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const bin = path.join(root, "pkg/bin/garuda-session.cjs");
const samples = path.join(root, "web-demo/samples");
const cli = (...args) => spawnSync(process.execPath, [bin, ...args], { encoding: "utf8" });
const tmp = () => mkdtempSync(path.join(tmpdir(), "garuda-export-"));
const line = (x) => JSON.stringify(x) + "\n";

test("a folder export writes index.html linking every session and its runs, and each call's run link reaches the run's page", () => {
  const dir = tmp();
  const folder = path.join(dir, "sessions");
  mkdirSync(path.join(folder, "viewer-sample"), { recursive: true });
  copyFileSync(path.join(samples, "viewer-sample.jsonl"), path.join(folder, "viewer-sample.jsonl"));
  copyFileSync(path.join(samples, "viewer-sample/explore-toolu_explore1.jsonl"), path.join(folder, "viewer-sample/explore-toolu_explore1.jsonl"));
  const out = path.join(dir, "html");
  const r = cli("export", folder, "--format", "html", "-o", out);
  assert.equal(r.status, 0, r.stderr);
  const index = readFileSync(path.join(out, "index.html"), "utf8");
  assert.match(index, /<a href="viewer-sample\.html">Find the flaky test<\/a>/);
  assert.match(index, /↳ <a href="viewer-sample\/explore-toolu_explore1\.html">explore-toolu_explore1<\/a>/);
  assert.match(index, /Content-Security-Policy/);
  assert.doesNotMatch(index, /<script/);
  const page = readFileSync(path.join(out, "viewer-sample.html"), "utf8");
  const href = /<a class="child-link" href="([^"]+)"/.exec(page)?.[1];
  assert.equal(href, "viewer-sample/explore-toolu_explore1.html");
  assert.ok(existsSync(path.join(out, href)), "the link's page was written");
});

test("a run the export has no page for is named without a link: the sample alone, and a folder without the run's file", () => {
  const dir = tmp();
  const folder = path.join(dir, "sessions");
  mkdirSync(folder, { recursive: true });
  copyFileSync(path.join(samples, "viewer-sample.jsonl"), path.join(folder, "viewer-sample.jsonl"));
  const alone = cli("export", path.join(folder, "viewer-sample.jsonl"), "--format", "html");
  assert.equal(alone.status, 0, alone.stderr);
  const out = path.join(dir, "html");
  assert.equal(cli("export", folder, "--format", "html", "-o", out).status, 0);
  for (const page of [alone.stdout, readFileSync(path.join(out, "viewer-sample.html"), "utf8")]) {
    // (A link of "#" went to the top of the page.)
    assert.doesNotMatch(page, /<a class="child-link" href="#"/);
    assert.match(page, /Subagent run <span class="child-link" data-child="explore-toolu_explore1">explore-toolu_explore1<\/span>/);
  }
});

test("the H1 is the title's first line cut short; a message's headings are demoted, code left alone; a Markdown file's images are files beside it", () => {
  const dir = tmp();
  const file = path.join(dir, "long.jsonl");
  const prompt = `Fix the parser ${"and the dates ".repeat(20)}\nsecond line`;
  const answer = "# Plan\n\n## Steps\n\n```sh\n# a comment, not a heading\n```";
  writeFileSync(file, line({ type: "start", sessionId: "long", model: "claude-sonnet-4-5" }) + line({ type: "user", message: { role: "user", content: prompt } }) + line({ type: "assistant", step: 1, response: { content: [{ type: "text", text: answer }], usage: { inputTokens: 1, outputTokens: 1 } } }));
  const md = cli("export", file, "--format", "md").stdout;
  const h1 = md.split("\n")[0];
  assert.match(h1, /^# Fix the parser and the dates/);
  assert.ok(h1.length <= 82 && h1.endsWith("…"), h1);
  assert.match(md, /^### Plan$/m);
  assert.match(md, /^#### Steps$/m);
  assert.match(md, /^# a comment, not a heading$/m, "inside a fence, unchanged");
  const html = cli("export", file, "--format", "html").stdout;
  assert.match(html, /<h3>Plan<\/h3>/);
  assert.match(html, /<h4>Steps<\/h4>/);
  assert.ok(/<h1>([^<]*)<\/h1>/.exec(html)[1].length <= 80);
  // The reading sample's screenshot: a PNG file beside the Markdown, linked by relative path.
  const out = path.join(dir, "reading.md");
  assert.equal(cli("export", path.join(samples, "reading-sample.jsonl"), "--format", "md", "-o", out).status, 0);
  const text = readFileSync(out, "utf8");
  const link = /!\[image from the session\]\(([^)]+)\)/.exec(text)?.[1];
  assert.equal(link, "reading-images/1.png");
  assert.deepEqual([...readFileSync(path.join(dir, link)).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], "a PNG");
  // To stdout there is nowhere to put a file: the image is named only.
  assert.match(cli("export", path.join(samples, "reading-sample.jsonl"), "--format", "md").stdout, /\*\[image\]\*/);
});

// Claude Code writes thinking asked for with display "omitted" as an empty
// text and its signature (the API's default on recent models): the export
// says the text was not sent, where an empty fold would read as no
// thinking at all; thinking with text is folded as before.
test("thinking the API sent without its text is said so, in HTML and Markdown; thinking with text is folded", () => {
  const dir = tmp();
  const file = path.join(dir, "omitted.jsonl");
  const at = (s) => `2026-11-30T10:00:0${s}.000Z`;
  const base = { sessionId: "omitted", isSidechain: false, userType: "external", cwd: "/home/dev/app", version: "2.1.332" };
  const thinking = (text) => ({ type: "thinking", thinking: text, signature: "EqcBCkgIBxABGAI" });
  const assistant = (uuid, parent, id, content) => line({ ...base, type: "assistant", uuid, parentUuid: parent, timestamp: at(uuid.length), message: { id, type: "message", role: "assistant", model: "claude-opus-4-7", content, usage: { input_tokens: 5, output_tokens: 3 } } });
  writeFileSync(
    file,
    line({ ...base, type: "user", uuid: "u1", parentUuid: null, timestamp: at(1), message: { role: "user", content: "Say hello" } }) +
      assistant("a1", "u1", "msg_1", [thinking(""), { type: "text", text: "Hello." }]) +
      line({ ...base, type: "user", uuid: "u2", parentUuid: "a1", timestamp: at(3), message: { role: "user", content: "Again, with a plan" } }) +
      assistant("a22", "u2", "msg_2", [thinking("Plan: greet twice."), { type: "text", text: "Hello again." }]),
  );
  const html = cli("export", file, "--format", "html");
  assert.equal(html.status, 0, html.stderr);
  assert.equal(html.stdout.match(/Thinking \(the API did not send its text\)/g)?.length, 1, "the empty block, said once");
  assert.match(html.stdout, /Plan: greet twice\./, "the block with text is drawn");
  const md = cli("export", file, "--format", "md");
  assert.equal(md.status, 0, md.stderr);
  assert.equal(md.stdout.match(/\*Thinking \(the API did not send its text\)\*/g)?.length, 1);
  assert.equal(md.stdout.match(/<summary>Thinking<\/summary>/g)?.length, 1, "only the block with text is folded");
  assert.match(md.stdout, /Plan: greet twice\./);
});

test("a file with no session in it as its format is refused with exit 2, not exported empty; a failed Write is not 'written'", () => {
  const dir = tmp();
  const t = "2026-12-01T10:00:00.000Z";
  const base = { sessionId: "c1", timestamp: t, cwd: "/w", version: "2.0.0" };
  const claude = path.join(dir, "c1.jsonl");
  writeFileSync(
    claude,
    line({ ...base, type: "user", uuid: "u1", parentUuid: null, message: { role: "user", content: "write the notes" } }) +
      line({ ...base, type: "assistant", uuid: "a1", parentUuid: "u1", message: { id: "m1", role: "assistant", model: "claude-sonnet-4-5", content: [{ type: "tool_use", id: "toolu_w", name: "Write", input: { file_path: "/w/NOTES.md", content: "one\ntwo\n" } }], usage: { input_tokens: 1, output_tokens: 1 } } }) +
      line({ ...base, type: "user", uuid: "u2", parentUuid: "a1", message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_w", is_error: true, content: "File has not been read yet." }] } }),
  );
  // Read as Codex's: nothing of a session.
  const wrong = cli("export", claude, "--format", "md", "--from", "codex");
  assert.equal(wrong.status, 2, wrong.stderr);
  assert.match(wrong.stderr, /no session in it reads as codex/);
  assert.equal(wrong.stdout, "");
  // Gemini CLI's logs.json (a list of prompts, not a session document).
  const logs = path.join(dir, "logs.json");
  writeFileSync(logs, JSON.stringify([{ sessionId: "g1", messageId: 0, type: "user", message: "hi", timestamp: t }], null, 2));
  const notSession = cli("export", logs, "--format", "md");
  assert.equal(notSession.status, 2, notSession.stdout);
  // The same file as itself: the Write failed, so nothing was written.
  const md = cli("export", claude, "--format", "md");
  assert.equal(md.status, 0, md.stderr);
  assert.match(md.stdout, /`\/w\/NOTES\.md` not written, 2 lines/);
  assert.doesNotMatch(md.stdout, /NOTES\.md` written/);
  const html = cli("export", claude, "--format", "html");
  assert.match(html.stdout, /<span class="del">not written, 2 lines<\/span>/);
});
