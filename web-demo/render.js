// The reading mode: one transcript entry (the core's `transcriptEntry`) as
// HTML, and as Markdown. The viewer (in its worker) and `export` both render
// with this file, so an exported page reads like the viewer.
//
// Safety: every string from a journal is escaped here or by markdown-it,
// which runs with raw HTML off; links are kept only for http, https and
// mailto and open with rel="noopener noreferrer"; Markdown images become
// text (an image URL would be fetched); the only images shown are the
// core's base64 PNG, JPEG, GIF and WebP blocks. The viewer also passes what
// this returns through an allowlist before it reaches the page.
import MarkdownIt from "markdown-it";
import hljs from "highlight.js/lib/core";
import bash from "highlight.js/lib/languages/bash";
import c from "highlight.js/lib/languages/c";
import cpp from "highlight.js/lib/languages/cpp";
import css from "highlight.js/lib/languages/css";
import diff from "highlight.js/lib/languages/diff";
import go from "highlight.js/lib/languages/go";
import java from "highlight.js/lib/languages/java";
import javascript from "highlight.js/lib/languages/javascript";
import json from "highlight.js/lib/languages/json";
import markdown from "highlight.js/lib/languages/markdown";
import python from "highlight.js/lib/languages/python";
import rust from "highlight.js/lib/languages/rust";
import shell from "highlight.js/lib/languages/shell";
import sql from "highlight.js/lib/languages/sql";
import typescript from "highlight.js/lib/languages/typescript";
import xml from "highlight.js/lib/languages/xml";
import yaml from "highlight.js/lib/languages/yaml";
import { viewGist, viewStatus, viewBody, fileLinesHtml, OPEN_VIEWS, wrote } from "./tools-render.js";
import { toolMarkdown } from "./tools-markdown.js";
import { dropWhy } from "./viewer-words.js";

for (const [name, lang] of Object.entries({ bash, c, cpp, css, diff, go, java, javascript, json, markdown, python, rust, shell, sql, typescript, xml, yaml })) {
  hljs.registerLanguage(name, lang);
}

// Code past this size is shown plain: highlighting it would hold up a frame.
const HIGHLIGHT_MAX = 20000;
// Tool results and attachments longer than this are folded.
const FOLD_AT = 1500;

export const escapeHtml = (s) => String(s).replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]);

const SAFE_LINK = /^(https?:|mailto:)/i;

const md = new MarkdownIt({
  html: false,
  linkify: true,
  highlight(code, lang) {
    if (code.length <= HIGHLIGHT_MAX && lang && hljs.getLanguage(lang)) {
      try {
        return hljs.highlight(code, { language: lang, ignoreIllegals: true }).value;
      } catch {}
    }
    return ""; // markdown-it escapes it
  },
});
md.validateLink = (url) => SAFE_LINK.test(url.trim());
// Headings inside a message sit under the entry's own: an H1 of an AGENTS.md
// or a report is drawn as an H3 (and so on, down to H6).
md.renderer.rules.heading_open = (tokens, i, options, env, self) => {
  tokens[i].tag = `h${Math.min(6, Number(tokens[i].tag.slice(1)) + 2)}`;
  return self.renderToken(tokens, i, options);
};
md.renderer.rules.heading_close = (tokens, i, options, env, self) => {
  tokens[i].tag = `h${Math.min(6, Number(tokens[i].tag.slice(1)) + 2)}`;
  return self.renderToken(tokens, i, options);
};

/**
 * A message's Markdown for the Markdown export: its headings `by` levels
 * down (under its entry's heading), and raw HTML made text (`<` of a tag,
 * a comment or a declaration as `&lt;`), since a renderer that allows HTML
 * (an editor's preview, a static site) would otherwise run a journal's
 * `<img onerror>`: journal text never becomes markup. Fenced blocks and
 * code spans are left alone. Where it cannot tell, it escapes: a `<` in an
 * indented code block, or in a span whose line starts a new block, shows
 * as `&lt;` (a cost in looks, never markup); where markdown-it with HTML
 * on still finds raw HTML in the result, every `<` that opens a tag is
 * escaped (tests/smoke/export-md-html checks the export with it too).
 */
export function demoteMarkdown(text, by = 2) {
  const out = escapedMarkdown(text, by);
  // The escaping reads code spans and fences as a CommonMark parser would,
  // nearly: where markdown-it (HTML on) still finds raw HTML in it, every
  // `<` that could open a tag is escaped, code included (no tag, comment or
  // declaration can start without one).
  return !out.includes("<") || !hasRawHtml(out) ? out : out.replace(/<(?=[A-Za-z/!?])/g, "&lt;");
}

let htmlOn = null;
function hasRawHtml(markdown) {
  htmlOn ??= new MarkdownIt({ html: true });
  const walk = (tokens) => tokens.some((t) => t.type === "html_block" || t.type === "html_inline" || (t.children !== null && walk(t.children)));
  return walk(htmlOn.parse(markdown, {}));
}

function escapedMarkdown(text, by) {
  let fence = null;
  // A code span's backticks left open at the end of the line before, when
  // this line may go on its paragraph (so the span may close here).
  let open = null;
  return String(text)
    .split("\n")
    .map((line) => {
      // CommonMark's fences: a backtick fence's info has no backtick, and
      // a fence closes on a line of its own character, at least as long.
      if (fence === null) {
        const f = /^ {0,3}(?:(`{3,})[^`]*|(~{3,}).*)$/.exec(line);
        if (f) {
          fence = f[1] ?? f[2];
          open = null;
          return line;
        }
      } else {
        const f = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
        if (f && f[1][0] === fence[0] && f[1].length >= fence.length) fence = null;
        return line;
      }
      // A line that may start a block of its own ends any span before it.
      if (line.trim() === "" || /^ {0,3}([#>*+=_|<-]|\d+[.)])/.test(line) || line.includes("|")) open = null;
      const h = /^( {0,3})(#{1,6})(\s|$)/.exec(line);
      const demoted = h ? `${h[1]}${"#".repeat(Math.min(6, h[2].length + by))}${line.slice(h[1].length + h[2].length)}` : line;
      const [safe, left] = noRawHtml(demoted, open);
      open = h ? null : left;
      return safe;
    })
    .join("\n");
}

/**
 * A line's `<` that would open a tag (`<a`, `</a`, `<!--`, `<?`) as
 * `&lt;`, outside its code spans; `open`: a span's backticks still open
 * from the line before. Gives the line and the backticks it leaves open.
 */
function noRawHtml(line, open) {
  let out = "";
  let i = 0;
  const closeOf = (run, from) => {
    for (let j = line.indexOf(run, from); j !== -1; j = line.indexOf(run, j + 1)) {
      if (line[j + run.length] !== "`" && line[j - 1] !== "`") return j;
    }
    return -1;
  };
  if (open !== null) {
    // The span from the line before closes here, or this line is read as
    // text (escaped) while it may still close on a later one.
    const close = closeOf(open, 0);
    if (close !== -1) {
      out = line.slice(0, close + open.length);
      i = close + open.length;
      open = null;
    }
  }
  while (i < line.length) {
    const c = line[i];
    if (c === "\\") {
      // An escaped character is itself, a backtick included: no span starts there.
      out += line.slice(i, i + 2);
      i += 2;
    } else if (c === "`") {
      const run = /^`+/.exec(line.slice(i))[0];
      const close = closeOf(run, i + run.length);
      if (close === -1) {
        // Open to the end of the line: it may close on the next one. What
        // follows is escaped as if it were not code, which is safe. The
        // first such run is the one a later line can close.
        open ??= run;
        out += run;
        i += run.length;
        continue;
      }
      out += line.slice(i, close + run.length);
      i = close + run.length;
    } else {
      out += c === "<" && /[A-Za-z/!?]/.test(line[i + 1] ?? "") ? "&lt;" : c;
      i++;
    }
  }
  return [out, open];
}

md.renderer.rules.image = (tokens, i) => `<span class="md-image">[image: ${escapeHtml(tokens[i].content || tokens[i].attrGet("src") || "")}]</span>`;
const linkOpen = md.renderer.rules.link_open ?? ((tokens, i, options, env, self) => self.renderToken(tokens, i, options));
md.renderer.rules.link_open = (tokens, i, options, env, self) => {
  tokens[i].attrSet("rel", "noopener noreferrer");
  tokens[i].attrSet("target", "_blank");
  return linkOpen(tokens, i, options, env, self);
};

/** Markdown as HTML (raw HTML in it shows as text). */
export function markdownHtml(text) {
  return md.render(String(text));
}

/** Code as highlighted HTML when its language is known. */
export function codeHtml(code, lang) {
  const text = String(code);
  if (lang && text.length <= HIGHLIGHT_MAX && hljs.getLanguage(lang)) {
    try {
      return `<pre class="code"><code class="hljs language-${escapeHtml(lang)}">${hljs.highlight(text, { language: lang, ignoreIllegals: true }).value}</code></pre>`;
    } catch {}
  }
  return `<pre class="code"><code>${escapeHtml(text)}</code></pre>`;
}

const n = (x) => Number(x ?? 0).toLocaleString("en-US");
const cost = (c) => (typeof c === "number" ? `$${c.toFixed(4)}` : "cost unknown");
const FATE = { compacted: "compacted away", undone: "undone" };
// What resume does with a thinking block, in plain words: the summary says
// it only when the block would not go back; the rest is in a tooltip.
const THINKING = { kept: "", notSent: "no longer in the conversation", dropped: "not sent back if resumed" };
/** A thinking block the API sent without its text (display "omitted"). */
const THINKING_UNSENT = "Thinking (the API did not send its text)";
const THINKING_TIP = {
  kept: "Resuming this session sends this thinking back to the model as written.",
  notSent: "This message was compacted away or undone: resuming does not send it.",
  dropped: "Resuming this session leaves this thinking out",
};


/** What a tool call is about, in a few words: its path, command or query. */
function gist(input) {
  let v;
  try {
    v = JSON.parse(input);
  } catch {
    return "";
  }
  if (!v || typeof v !== "object") return "";
  for (const k of ["file_path", "path", "command", "cmd", "pattern", "query", "url", "description", "prompt", "input"]) {
    const x = Array.isArray(v[k]) ? v[k].join(" ") : v[k];
    if (typeof x === "string" && x) return x.length > 120 ? `${x.slice(0, 120)}…` : x;
  }
  return "";
}

/** A language for a path's extension, for highlighting. */
export function langOf(path) {
  const ext = /\.([a-z0-9]+)$/i.exec(path ?? "")?.[1]?.toLowerCase();
  return { js: "javascript", mjs: "javascript", cjs: "javascript", jsx: "javascript", ts: "typescript", tsx: "typescript", mts: "typescript", cts: "typescript", py: "python", rs: "rust", go: "go", java: "java", c: "c", h: "c", cpp: "cpp", hpp: "cpp", cc: "cpp", css: "css", html: "xml", xml: "xml", svg: "xml", json: "json", jsonl: "json", md: "markdown", yml: "yaml", yaml: "yaml", sh: "bash", bash: "bash", zsh: "bash", sql: "sql", toml: "yaml" }[ext];
}

function diffHtml(files, r, res) {
  return files
    .map((f) => {
      // A file written whole reads as a file: numbered and highlighted, not 40 lines of "+".
      if (f.whole) return `<div class="diff written"><div class="diff-head">${escapeHtml(r(f.path || "(file)"))} <span class="${res?.error ? "del" : "add"}">${wrote(res)}, ${n(f.lines.length)} ${f.lines.length === 1 ? "line" : "lines"}</span></div>${fileLinesHtml(1, f.lines.map(([, t]) => r(t)), langOf(f.path))}</div>`;
      const rows = f.lines.map(([op, text]) => {
        const cls = op === "+" ? "add" : op === "-" ? "del" : op === "@" ? "hunk" : "ctx";
        return `<div class="${cls}"><span class="op">${op === "@" ? "@@" : escapeHtml(op)}</span>${escapeHtml(r(text))}</div>`;
      });
      const added = f.lines.filter(([op]) => op === "+").length;
      const removed = f.lines.filter(([op]) => op === "-").length;
      return `<div class="diff"><div class="diff-head">${escapeHtml(r(f.path || "(file)"))} <span class="add">+${added}</span> <span class="del">−${removed}</span></div><div class="diff-body">${rows.join("")}</div></div>`;
    })
    .join("");
}

function imagesHtml(images) {
  // The core gives only base64 PNG, JPEG, GIF and WebP; checked again here.
  return images
    .filter((i) => /^image\/(png|jpeg|gif|webp)$/.test(i.mediaType) && /^[A-Za-z0-9+/=]*$/.test(i.data))
    .map((i) => `<img class="inline-image" alt="image from the session" src="data:${i.mediaType};base64,${i.data}">`)
    .join("");
}

function folded(cls, summary, body, open = false) {
  return `<details class="${cls}"${open ? " open" : ""}><summary>${summary}</summary>${body}</details>`;
}

function resultBody(text, images, r) {
  return `${text ? `<pre class="output">${escapeHtml(r(text))}</pre>` : ""}${imagesHtml(images ?? [])}`;
}

function partHtml(p, d, r, opts = {}) {
  switch (p.type) {
    case "prompt":
    case "text":
      return `<div class="md">${markdownHtml(r(p.text))}</div>`;
    case "note":
      return `<div class="note"><span class="label">Note</span> ${escapeHtml(r(p.text))}</div>`;
    case "attachment": {
      const text = r(p.text);
      return folded("attachment", `Attachment <small>${n(text.split("\n").length)} lines</small>`, `<pre class="output">${escapeHtml(text)}</pre>`);
    }
    case "thinking": {
      if (p.redacted) return `<div class="thinking redacted">Thinking (encrypted by the provider)</div>`;
      const fate = THINKING[d.thinkingFate] ?? "";
      const tip = d.thinkingFate === "dropped" ? `${THINKING_TIP.dropped}: ${dropWhy(d.droppedWhy)}.` : THINKING_TIP[d.thinkingFate] ?? "";
      // Thinking asked for with display "omitted" (Claude Code without a
      // terminal, the API's default on recent models) comes with no text,
      // only its signature: an empty fold would read as no thinking at all.
      // (The text as the API sent it: nothing to redact in an empty one.)
      if (!p.text?.trim()) return `<div class="thinking redacted" title="${escapeHtml(tip)}">${THINKING_UNSENT}${fate ? ` <small>${escapeHtml(fate)}</small>` : ""}</div>`;
      return folded(`thinking ${escapeHtml(d.thinkingFate ?? "")}`, `<span title="${escapeHtml(tip)}">Thinking${fate ? ` <small>${escapeHtml(fate)}</small>` : ""}</span>`, `<div class="md">${markdownHtml(r(p.text))}</div>`);
    }
    case "toolUse": {
      const res = p.result;
      const status = !res ? "no result" : res.interrupted ? "interrupted" : res.error ? "error" : "ok";
      const v = p.view;
      const exit = v ? viewStatus(v, res) : null;
      const head = `<span class="tool-name">${escapeHtml(r(p.name))}</span> <span class="tool-gist">${escapeHtml(v ? viewGist(v, p, r) : r(gist(p.input)))}</span> ${exit ? `<span class="status ${exit === "exit 0" ? "ok" : "error"}">${escapeHtml(exit)}</span>` : `<span class="status ${status.replace(" ", "-")}">${status}</span>`}`;
      const edit = p.diff.length > 0;
      // An export draws the run itself, folded (opts.childRun: export.js, from the run's own journal):
      // a subagent's between its prompt and its report, as it happened; any other under the call.
      let run = p.child ? opts.childRun?.(p.child) ?? "" : "";
      let body;
      if (v) {
        // The core's view of the call (tools-render.js draws it, result included).
        body = viewBody(v, p, r, diffHtml, run);
        if (v.kind === "task") run = "";
        if (res?.images?.length) body += imagesHtml(res.images);
      } else {
        body = edit ? diffHtml(p.diff, r, res) : `<div class="io-label">input</div>${codeHtml(r(p.input), "json")}`;
        if (res) body += `<div class="io-label">result${res.error ? " (error)" : ""}</div>${resultBody(res.text, res.images, r)}`;
      }
      if (p.child) {
        // The viewer can show the run here, nested under its call; it can also open it.
        const show = opts.nest ? ` · <a class="child-show" href="#" data-child="${escapeHtml(p.child)}">show it here</a>` : "";
        // An export links the run's own page (opts.childHref), and names a
        // run it has no page for without a link (a "#" that went nowhere);
        // the viewer (no childHref) opens it from data-child.
        const href = opts.childHref ? opts.childHref(p.child) : "#";
        const name = escapeHtml(p.child);
        const link = href == null ? `<span class="child-link" data-child="${name}">${name}</span>` : `<a class="child-link" href="${escapeHtml(href)}" data-child="${name}">${name}</a>`;
        body += `<div class="subagent">Subagent run ${link}${show}</div>${run}`;
      }
      return folded(`tool${res?.error ? " error" : ""}${edit ? " edit" : ""}${v ? ` view-${escapeHtml(v.kind)}` : ""}`, head, body, edit || (v && OPEN_VIEWS.has(v.kind)));
    }
    case "toolResult": {
      const status = p.interrupted ? "interrupted" : p.error ? "error" : "ok";
      const head = `Result${p.name ? ` of <span class="tool-name">${escapeHtml(r(p.name))}</span>` : ""} <span class="status ${status}">${status}</span>`;
      return folded(`result${p.error ? " error" : ""}`, head, resultBody(p.text, p.images, r), p.text.length <= FOLD_AT && !p.call);
    }
    case "context": {
      // What the agent put in the conversation: folded under its label.
      const text = r(p.text);
      const command = p.label.startsWith("/");
      // A slash command that is the person's turn (isContext): drawn as
      // what they typed, the command as code, not as the agent's context.
      if (command && !isContext(d)) return `<p class="prompt-command"><code>${escapeHtml(r(p.label))}</code>${text.trim() ? ` ${escapeHtml(text.trim())}` : ""}</p>`;
      const summary = `<span class="context-label">context</span> ${command ? `<code>${escapeHtml(r(p.label))}</code>${text ? ` <small>${escapeHtml(text.slice(0, 120))}</small>` : ""}` : `${escapeHtml(r(p.label))}${text ? ` <small>${n(text.split("\n").length)} ${text.includes("\n") ? "lines" : "line"}</small>` : ""}`}`;
      if (command && text.length <= 120) return `<div class="context">${summary}</div>`;
      return folded("context", summary, `<pre class="output">${escapeHtml(text)}</pre>`);
    }
    case "image":
      return imagesHtml([{ mediaType: p.mediaType, data: p.data }]);
    default:
      return `<div class="other">${escapeHtml(r(p.text ?? ""))}</div>`;
  }
}

const WHO = { user: "User", assistant: "Assistant", tool_results: "Tool results", continue: "Continue note" };

/** An entry of the agent's context, folded as such; a prompt that is a slash command (`/init`) is the person's turn. */
const isContext = (d) => Boolean(d.context) && !(d.type === "user" && d.context.startsWith("/"));

/** The header of an entry: who, when, its line, its figures and fate. */
function headHtml(d, r, anchor) {
  const who = isContext(d) ? "Context" : d.type === "user" ? "User" : WHO[d.type] ?? (d.role === "assistant" ? "Assistant" : "User");
  const bits = [`<span class="who">${escapeHtml(who)}</span>`];
  if (anchor) bits.push(`<a class="anchor" href="${escapeHtml(anchor)}" title="link to this entry">#${d.index}</a>`);
  if (d.t) {
    // As the session recorded it; a Z time says its zone (UTC) instead of hiding it.
    const t = String(d.t);
    const utc = /Z$/.test(t);
    bits.push(`<time title="${escapeHtml(t)}">${escapeHtml(t.replace("T", " ").replace(/\.\d+Z$|Z$/, ""))}${utc ? " UTC" : ""}</time>`);
  }
  bits.push(`<span class="line">line ${n(d.line)}</span>`);
  if (d.usage) {
    const u = d.usage;
    bits.push(`<span class="figures">${n(u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens)} tokens · ${cost(d.costUsd)}</span>`);
  }
  if (FATE[d.fate]) bits.push(`<span class="fate">${FATE[d.fate]}</span>`);
  if (d.synthetic) bits.push(`<span class="fate">written at resume</span>`);
  return `<header>${bits.join(" ")}</header>`;
}

/**
 * One entry as HTML. `opts.redact` is applied to every string from the
 * journal first; `opts.anchor(index)` gives an entry's link; `opts.hidePaired`
 * leaves out results already shown under their call.
 */
export function entryHtml(d, opts = {}) {
  const r = opts.redact ?? ((s) => String(s ?? ""));
  if (d.kind === "landmark") return `<div class="landmark ${escapeHtml(d.type)}"><span>${escapeHtml(r(d.preview))}</span> <span class="line">line ${n(d.line)}</span></div>`;
  if (d.kind === "warning") return `<div class="warning-entry">Line ${n(d.line)} was not read (${escapeHtml(d.type)}): ${escapeHtml(r(d.preview))}</div>`;
  const parts = (d.parts ?? []).filter((p) => !(opts.hidePaired && p.type === "toolResult" && p.call !== undefined && p.call !== null));
  const body = parts.map((p) => partHtml(p, d, r, opts)).join("");
  const subs = (d.subagents ?? []).map((s) => `<div class="subagent">Subagent ${escapeHtml(r(s.child ?? "-"))}: ${n(s.tokens)} tokens · ${cost(s.costUsd)}</div>`).join("");
  // `opts.idPrefix`: a run nested in an export has its own ids (`<run>-e-N`), not its parent's.
  return `<article class="entry ${escapeHtml(d.role ?? "user")} ${escapeHtml(d.type)} ${escapeHtml(d.fate ?? "live")}${isContext(d) ? " context-entry" : ""}" id="${escapeHtml(opts.idPrefix ?? "e-")}${d.index}">${headHtml(d, r, opts.anchor?.(d.index))}<div class="body">${body}${subs}</div></article>`;
}

// ---- Markdown ---------------------------------------------------------------

function fence(text, lang = "") {
  const longest = Math.max(2, ...Array.from(String(text).matchAll(/`+/g), (m) => m[0].length));
  const ticks = "`".repeat(longest + 1);
  return `${ticks}${lang}\n${text}\n${ticks}`;
}

/** An image as Markdown: a file beside the document when the writer keeps one (`opts.image` gives its relative path), else a mention. */
function imageMarkdown(i, opts) {
  const file = /^image\/(png|jpeg|gif|webp)$/.test(i.mediaType) ? opts.image?.(i.mediaType, i.data) : null;
  return file ? `![image from the session](${encodeURI(file)})` : "*[image]*";
}

/** One entry as Markdown (the same parts, in the same order). */
export function entryMarkdown(d, opts = {}) {
  const r = opts.redact ?? ((s) => String(s ?? ""));
  const esc = (s) => r(s).replace(/[*_`[\]<>]/g, "\\$&");
  if (d.kind === "landmark") return `---\n\n*${esc(d.preview)}* (line ${d.line})\n`;
  if (d.kind === "warning") return `> Line ${d.line} was not read (${d.type}): ${esc(d.preview)}\n`;
  const who = isContext(d) ? "Context" : WHO[d.type] ?? (d.role === "assistant" ? "Assistant" : "User");
  const fig = d.usage ? ` · ${n(d.usage.inputTokens + d.usage.outputTokens + d.usage.cacheReadTokens + d.usage.cacheWriteTokens)} tokens · ${cost(d.costUsd)}` : "";
  // `opts.level`: an entry's heading level (a nested subagent run's entries sit a level or two down).
  const out = [`${"#".repeat(opts.level ?? 2)} ${who} (#${d.index}, line ${d.line}${d.t ? `, ${d.t}` : ""}${fig})${FATE[d.fate] ? ` — ${FATE[d.fate]}` : ""}`, ""];
  // A message's headings sit under its entry's.
  const demote = (t) => demoteMarkdown(t, opts.level ?? 2);
  for (const p of d.parts ?? []) {
    if (opts.hidePaired && p.type === "toolResult" && p.call !== undefined && p.call !== null) continue;
    if (p.type === "prompt" || p.type === "text") out.push(demote(r(p.text)), "");
    else if (p.type === "note") out.push(`> **Note:** ${esc(p.text).replace(/\n/g, "\n> ")}`, "");
    else if (p.type === "attachment") out.push("**Attachment**", "", fence(r(p.text)), "");
    else if (p.type === "thinking" && !p.redacted && !p.text?.trim()) out.push(`*${THINKING_UNSENT}*`, "");
    else if (p.type === "thinking") out.push("<details><summary>Thinking</summary>", "", p.redacted ? "(encrypted by the provider)" : fence(r(p.text)), "", "</details>", "");
    else if (p.type === "toolUse") {
      // Drawn by its tool's view, as the HTML is (tools-markdown.js).
      // An export writes a subagent's run in it (opts.childRun: export.js).
      const run = p.child && opts.childRun ? opts.childRun(p.child) : [];
      out.push(...toolMarkdown(p, r, { fence, demote, langOf, run }));
      for (const i of p.result?.images ?? []) out.push(imageMarkdown(i, opts), "");
    } else if (p.type === "toolResult") {
      out.push(`**Tool result** (${esc(p.id)})${p.error ? " — error" : ""}`, "", fence(r(p.text)), "");
      for (const i of p.images ?? []) out.push(imageMarkdown(i, opts), "");
    }
    else if (p.type === "context" && !isContext(d) && p.label.startsWith("/")) out.push(`\`${r(p.label).replace(/`/g, "")}\`${p.text.trim() ? ` ${esc(p.text.trim())}` : ""}`, "");
    else if (p.type === "context") out.push(`<details><summary>context: ${esc(p.label)}</summary>`, "", fence(r(p.text)), "", "</details>", "");
    else if (p.type === "image") out.push(imageMarkdown(p, opts), "");
    else out.push(esc(p.text ?? ""), "");
  }
  return out.join("\n");
}

// ---- A whole transcript ------------------------------------------------------------

/** A page's title: the session's title or first prompt, its first line, cut near 80 characters. */
export function shortTitle(text) {
  const line = String(text ?? "").trim().split("\n")[0].trim();
  return line.length > 80 ? `${line.slice(0, 78).replace(/\s+\S*$/, "")}…` : line || "Session";
}

/**
 * A whole transcript as one Markdown document: what `export --format md`
 * writes and what the viewer's "Copy transcript" copies, from the core's
 * entries (`details`: transcriptEntry of each entry shown, in order).
 * `info`: { title, sessionId, model, cost, budgetNote }; `redact`: applied to
 * every journal string; `opts.image` and `opts.childRun` as entryMarkdown takes them.
 */
export function transcriptDocument(info, details, redact, { image, childRun } = {}) {
  const r = (s) => redact(String(s ?? ""));
  const out = [`# ${shortTitle(r(info.title ?? info.sessionId)).replace(/[*_`[\]<>]/g, "\\$&")}`, ""];
  out.push(`- session: ${r(info.sessionId ?? "-")}`, `- model: ${r(info.model ?? "-")}`, `- cost: ${info.cost}`);
  if (info.budgetNote) out.push(`- ${info.budgetNote}`);
  out.push("");
  for (const d of details) out.push(entryMarkdown(d, { redact: r, hidePaired: true, image, childRun }));
  return out.join("\n");
}
