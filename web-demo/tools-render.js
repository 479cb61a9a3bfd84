// A tool call drawn for reading, from the view the core gives it
// (`part.view`, src/transcript/tools.rs): a shell command as `$ cmd` with
// its output's first lines, a file read with line numbers and highlighting,
// a checklist, a subagent's prompt and report as Markdown, a search grouped
// by file, a fetch, an MCP call. The core read the record; this only draws.
// A call without a view is drawn by render.js as its JSON.
//
// Safety as in render.js: every journal string passes `r` (redaction) and
// is escaped here, or goes through markdownHtml / codeHtml.
import { escapeHtml, markdownHtml, codeHtml, langOf } from "./render.js";

// Lines of a shell command's output shown before "N more lines".
const PREVIEW_LINES = 6;
// A read longer than this many lines is shown in part, the rest folded.
const READ_LINES = 60;

const n = (x) => Number(x ?? 0).toLocaleString("en-US");

// A terminal's control sequences: CSI (colours, cursor moves: `ESC [ … m`),
// OSC (titles, links: `ESC ] … BEL`) and the two-byte escapes.
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;

/**
 * A command's output as its terminal showed it: the control sequences
 * taken out (they drew as boxes), and a line rewritten with `\r` (a
 * spinner, a progress bar) as what was left on it. The result's own text
 * keeps them.
 */
export function terminalText(text) {
  return String(text)
    .replace(ESCAPES, "")
    .split("\n")
    .map((line) => {
      const parts = line.replace(/\r$/, "").split("\r");
      return parts.findLast((p) => p !== "") ?? "";
    })
    .join("\n");
}
const lines = (s) => (s === "" ? [] : String(s).replace(/\n$/, "").split("\n"));

/** Text with its first `keep` lines shown and the rest folded under "N more lines". */
function previewPre(text, keep, cls = "output") {
  const all = lines(text);
  if (all.length === 0) return "";
  const head = `<pre class="${cls}">${escapeHtml(all.slice(0, keep).join("\n"))}</pre>`;
  if (all.length <= keep) return head;
  const rest = all.length - keep;
  return `${head}<details class="more"><summary>${n(rest)} more ${rest === 1 ? "line" : "lines"}</summary><pre class="${cls}">${escapeHtml(all.slice(keep).join("\n"))}</pre></details>`;
}

const STATUS = { completed: ["done", "☑"], in_progress: ["doing", "◐"], pending: ["todo", "☐"] };

const cut = (s) => (s.length > 120 ? `${s.slice(0, 120)}…` : s);

/** Lines of code numbered from `from`, highlighted by the file's language. */
const numberedHtml = (from, ls, lang) => `<div class="numbered"><pre class="gutter">${ls.map((_, i) => n(from + i)).join("\n")}</pre>${codeHtml(ls.join("\n"), lang)}</div>`;

/** A file's lines as a read shows them: numbered, highlighted, past READ_LINES folded. */
export function fileLinesHtml(from, all, lang) {
  let html = all.length ? numberedHtml(from, all.slice(0, READ_LINES), lang) : "";
  if (all.length > READ_LINES) html += `<details class="more"><summary>${n(all.length - READ_LINES)} more lines</summary>${numberedHtml(from + READ_LINES, all.slice(READ_LINES), lang)}</details>`;
  return html;
}

/** A short line for the fold's summary: what the call is about. */
export function viewGist(v, p, r) {
  return cut(gistOf(v, p, r));
}

function gistOf(v, p, r) {
  switch (v.kind) {
    case "shell":
      // The body shows the command whole: the summary says what it is for.
      return v.description ? r(v.description) : `$ ${r(v.command).split("\n")[0]}`;
    case "read":
      return r(v.path);
    case "todos": {
      const done = v.items.filter((i) => i.status === "completed").length;
      return `${n(done)} of ${n(v.items.length)} done`;
    }
    case "task":
      return r([v.agent, v.description].filter(Boolean).join(": "));
    case "search":
      return `${r(v.pattern)}${v.path ? ` in ${r(v.path)}` : ""}`;
    case "web":
      return r(v.url ?? v.query ?? "");
    case "mcp":
      return `${r(v.server)} › ${r(v.tool)}`;
    case "patch":
      return p.diff.map((f) => r(f.path)).join(", ");
    default:
      return "";
  }
}

/** A shell command's status: its exit code when the result says it. */
export function viewStatus(v, res) {
  if (!res || res.interrupted) return null;
  if ((v.kind === "shell" || v.kind === "patch") && typeof v.exit === "number") return v.exit === 0 ? "exit 0" : `exit ${v.exit}`;
  return null;
}

/** What a call that writes a whole file did, by its result: a failed Write wrote nothing (it read "written, 21 lines"). */
export const wrote = (res) => (!res ? "to write" : res.error ? "not written" : "written");

/**
 * The body of a call with a view, its result included (the view says how
 * to show it). `diffHtml` draws the call's diff (an edit, a patch); `run`
 * is a subagent's run as an export draws it, put between its prompt and
 * its report.
 */
export function viewBody(v, p, r, diffHtml, run = "") {
  const res = p.result;
  const error = res?.error ? `<div class="io-label">error</div><pre class="output">${escapeHtml(r(res.text))}</pre>` : "";
  switch (v.kind) {
    case "shell": {
      const bits = [];
      if (v.command) bits.push(`<div class="shell-cmd"><span class="shell-prompt">$</span>${codeHtml(r(v.command), "bash")}</div>`);
      if (v.cwd) bits.push(`<div class="tool-desc">in <code>${escapeHtml(r(v.cwd))}</code></div>`);
      if (res) {
        const out = terminalText(r(v.output ?? res.text));
        bits.push(out.trim() ? previewPre(out, PREVIEW_LINES) : `<div class="tool-desc">(no output)</div>`);
      }
      return bits.join("");
    }
    case "read": {
      if (!res) return `<div class="tool-desc">${escapeHtml(r(v.path))}</div>`;
      if (res.error) return error;
      const all = v.lines.map((l) => r(l));
      let html = `<div class="file-path">${escapeHtml(r(v.path))} <small>${all.length ? `lines ${n(v.first)}–${n(v.first + all.length - 1)}` : "empty"}</small></div>`;
      html += fileLinesHtml(v.first, all, langOf(v.path));
      if (v.after) html += `<div class="io-label">also in the result</div><pre class="output">${escapeHtml(r(v.after))}</pre>`;
      return html;
    }
    case "todos": {
      const items = v.items.map((i) => {
        const [cls, box] = STATUS[i.status] ?? ["todo", "☐"];
        return `<li class="${cls}"><span class="box">${box}</span> ${escapeHtml(r(i.text))}</li>`;
      });
      return `${v.note ? `<div class="tool-desc">${escapeHtml(r(v.note))}</div>` : ""}<ul class="todos">${items.join("")}</ul>${error}`;
    }
    case "task": {
      let html = v.prompt ? `<div class="io-label">prompt</div><div class="md">${markdownHtml(r(v.prompt))}</div>` : "";
      html += run;
      if (res) html += `<div class="io-label">${res.error ? "error" : "report"}</div><div class="md">${markdownHtml(r(res.text))}</div>`;
      return html;
    }
    case "search": {
      let html = `<div class="tool-desc">${escapeHtml(r(v.pattern))}${v.path ? ` in <code>${escapeHtml(r(v.path))}</code>` : ""}${v.glob ? ` (files ${escapeHtml(r(v.glob))})` : ""}</div>`;
      if (!res) return html;
      if (res.error) return html + error;
      if (v.rest) html += `<div class="tool-desc">${escapeHtml(r(v.rest))}</div>`;
      const groups = v.groups.map((g) => `<div class="match-file">${escapeHtml(r(g.file))}${g.lines.length ? ` <small>${n(g.lines.length)}</small>` : ""}</div>${g.lines.length ? `<pre class="output">${escapeHtml(g.lines.map((l) => r(l)).join("\n"))}</pre>` : ""}`);
      if (groups.length) html += `<div class="matches">${groups.join("")}</div>`;
      return html;
    }
    case "web": {
      const safe = v.url && /^https?:/i.test(v.url);
      let html = v.url ? `<div class="tool-desc">${safe ? `<a href="${escapeHtml(r(v.url))}" rel="noopener noreferrer" target="_blank">${escapeHtml(r(v.url))}</a>` : escapeHtml(r(v.url))}</div>` : "";
      if (v.query) html += `<div class="tool-desc">search: ${escapeHtml(r(v.query))}</div>`;
      if (v.prompt) html += `<div class="io-label">prompt</div><div class="md">${markdownHtml(r(v.prompt))}</div>`;
      if (res) html += `<div class="io-label">result${res.error ? " (error)" : ""}</div><div class="md">${markdownHtml(r(res.text))}</div>`;
      return html;
    }
    case "mcp": {
      let html = `<div class="tool-desc">MCP server <b>${escapeHtml(r(v.server))}</b>, tool <b>${escapeHtml(r(v.tool))}</b></div><div class="io-label">input</div>${codeHtml(r(p.input), "json")}`;
      if (res) html += `<div class="io-label">result${res.error ? " (error)" : ""}</div>${previewPre(r(res.text), 40)}`;
      return html;
    }
    case "patch": {
      let html = diffHtml(p.diff, r, res);
      if (res) html += `<div class="io-label">result${res.error ? " (error)" : ""}</div>${previewPre(terminalText(r(v.output ?? res.text)), PREVIEW_LINES)}`;
      return html;
    }
    default:
      return "";
  }
}

/** Views drawn open: what a reader reads in passing (a command and its first lines, a list, a prompt). */
export const OPEN_VIEWS = new Set(["shell", "todos", "task", "patch"]);
