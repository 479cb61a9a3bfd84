// A tool call as Markdown (the Markdown export and the viewer's "Copy
// transcript"), drawn from the same view of the call as the HTML
// (`part.view`, src/transcript/tools.rs; tools-render.js draws its HTML):
// a heading line with what the call is about, then a shell command as
// `$ cmd` with its output's first lines, a file read with its path and
// lines, an edit as a diff, a checklist, a subagent's prompt and report as
// Markdown, a search's pattern and matches by file, a fetch, an MCP call.
// What is past the first lines is kept, folded in `<details>`: an export
// loses nothing. A call with neither a view nor a diff keeps its JSON.
//
// Every journal string passes `r` (redaction); text that is not fenced or
// Markdown by intent is escaped.
import { viewGist, viewStatus, terminalText, wrote } from "./tools-render.js";

// As tools-render.js: lines of a command's output shown before the fold,
// lines of a read shown before the fold.
const PREVIEW_LINES = 6;
const READ_LINES = 60;

const n = (x) => Number(x ?? 0).toLocaleString("en-US");
const lines = (s) => (s === "" ? [] : String(s).replace(/\n$/, "").split("\n"));
const code = (s) => `\`${String(s).replace(/`/g, "")}\``;

/**
 * `fence(text, lang)` fences text; `demote(md)` moves a message's headings
 * under the entry's; `langOf(path)` names a file's language (render.js
 * gives them). `run`: a subagent's run as an export writes it (lines), put
 * between a Task's prompt and its report, else after the call.
 */
export function toolMarkdown(p, r, { fence, demote, langOf, run = [] }) {
  const esc = (s) => r(s).replace(/[*_`[\]<>]/g, "\\$&");
  const v = p.view;
  const res = p.result;
  const status = !res ? "no result" : res.interrupted ? "interrupted" : (v && viewStatus(v, res)) || (res.error ? "error" : "ok");
  // What the call is about, on its heading line: a path or a pattern as code, words as words.
  const gist = v ? viewGist(v, p, r) : p.diff.length ? p.diff.map((f) => r(f.path)).join(", ") : "";
  const literal = !v || ["read", "search", "mcp", "patch"].includes(v.kind) || (v.kind === "shell" && !v.description);
  const about = !gist ? "" : v?.kind === "search" ? `${code(r(v.pattern))}${v.path ? ` in ${code(r(v.path))}` : ""}` : literal ? code(gist) : esc(gist);
  const out = [`**Tool call** ${code(r(p.name))}${about ? ` — ${about}` : ""} · ${status} <small>(${esc(p.id)})</small>`, ""];

  /** Text with its first `keep` lines fenced and the rest fenced in a fold. */
  const preview = (text, keep, lang = "") => {
    const all = lines(text);
    if (all.length === 0) return;
    out.push(fence(all.slice(0, keep).join("\n"), lang), "");
    if (all.length > keep) out.push(`<details><summary>${n(all.length - keep)} more ${all.length - keep === 1 ? "line" : "lines"}</summary>`, "", fence(all.slice(keep).join("\n"), lang), "", "</details>", "");
  };
  const diffs = (files) => {
    for (const f of files) {
      // A file written whole: its lines in its language, not a diff of "+" lines.
      if (f.whole) {
        out.push(`${code(r(f.path || "(file)"))} ${wrote(res)}, ${n(f.lines.length)} ${f.lines.length === 1 ? "line" : "lines"}`, "");
        preview(f.lines.map(([, t]) => r(t)).join("\n"), READ_LINES, langOf(f.path) ?? "");
        continue;
      }
      const added = f.lines.filter(([op]) => op === "+").length;
      const removed = f.lines.filter(([op]) => op === "-").length;
      out.push(`${code(r(f.path || "(file)"))} +${added} −${removed}`, "", fence(f.lines.map(([op, t]) => (op === "@" ? "@@" : op) + r(t)).join("\n"), "diff"), "");
    }
  };
  const result = (label, text, fold) => {
    if (!text) return;
    if (fold) out.push(`<details><summary>${label}</summary>`, "", fence(r(text)), "", "</details>", "");
    else out.push(`**${label}**`, "", fence(r(text)), "");
  };

  switch (v?.kind) {
    case "shell":
      // The description is the heading's gist; a long one is written whole here.
      if (v.description && r(v.description).length > 120) out.push(`*${esc(v.description)}*`, "");
      out.push(fence(`$ ${r(v.command)}`, "bash"), "");
      if (v.cwd) out.push(`in ${code(r(v.cwd))}`, "");
      if (res) {
        const text = terminalText(r(v.output ?? res.text));
        if (text.trim()) preview(text, PREVIEW_LINES);
        else out.push("*(no output)*", "");
      }
      break;
    case "read":
      if (res && !res.error) out.push(v.lines.length ? `lines ${n(v.first)}–${n(v.first + v.lines.length - 1)}` : "(empty)", "");
      if (res?.error) result("Error", res.text);
      else if (res) {
        preview(v.lines.map((l) => r(l)).join("\n"), READ_LINES, langOf(v.path) ?? "");
        if (v.after) result("Also in the result", v.after, true);
      }
      break;
    case "todos":
      if (v.note) out.push(`*${esc(v.note)}*`, "");
      for (const i of v.items) out.push(`- [${i.status === "completed" ? "x" : " "}] ${esc(i.text)}${i.status === "in_progress" ? " *(in progress)*" : ""}`);
      out.push("");
      if (res?.error) result("Error", res.text);
      break;
    case "task":
      if (v.prompt) out.push("**Prompt**", "", demote(r(v.prompt)), "");
      out.push(...run.splice(0));
      if (res) out.push(`**Report**${res.error ? " — error" : ""}`, "", demote(r(res.text)), "");
      break;
    case "search":
      if (v.glob) out.push(`files ${code(r(v.glob))}`, "");
      if (res?.error) result("Error", res.text);
      else if (res) {
        if (v.rest) out.push(esc(v.rest), "");
        const files = v.groups.filter((g) => g.lines.length === 0);
        if (files.length) out.push(...files.map((g) => `- ${code(r(g.file))}`), "");
        for (const g of v.groups.filter((g) => g.lines.length)) out.push(`${code(r(g.file))} (${n(g.lines.length)})`, "", fence(g.lines.map((l) => r(l)).join("\n")), "");
      }
      break;
    case "web":
      if (v.url) out.push(/^https?:[^\s<>]*$/i.test(r(v.url)) ? `<${r(v.url)}>` : code(r(v.url)), "");
      if (v.query) out.push(`search: ${esc(v.query)}`, "");
      if (v.prompt) out.push("**Prompt**", "", demote(r(v.prompt)), "");
      if (res) out.push(`**Result**${res.error ? " — error" : ""}`, "", demote(r(res.text)), "");
      break;
    case "mcp":
      out.push(`MCP server **${esc(v.server)}**, tool **${esc(v.tool)}**`, "", fence(r(p.input), "json"), "");
      if (res) result(res.error ? "Result — error" : "Result", res.text);
      break;
    case "patch":
      diffs(p.diff);
      if (res) preview(terminalText(r(v.output ?? res.text)), PREVIEW_LINES);
      break;
    default:
      if (p.diff.length) {
        // An edit or a write: the diff says it; the tool's echo of the file is folded.
        diffs(p.diff);
        if (res) result(res.error ? "Result — error" : "Result", res.text, !res.error);
      } else {
        // A tool this does not know: its input as JSON.
        out.push(fence(r(p.input), "json"), "");
        if (res) result(res.error ? "Result — error" : "Result", res.text);
      }
  }
  out.push(...run);
  return out;
}
