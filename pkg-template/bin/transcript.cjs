// Readable transcripts of a session (Garuda's /export): Markdown or one
// self-contained HTML file. Every piece of text passes the Redactor; thinking
// is folded; long tool results are folded; HTML is escaped, never injected.
"use strict";

const FOLD_AT = 2000;

/** A message's blocks; anything in the array that is not an object is skipped. */
function blocksOf(message) {
  if (typeof message.content === "string") return [{ type: "text", text: message.content }];
  return Array.isArray(message.content) ? message.content.filter((b) => b && typeof b === "object") : [];
}

function resultText(block) {
  if (typeof block.content === "string") return block.content;
  if (Array.isArray(block.content)) {
    return block.content.map((p) => (p?.type === "text" ? String(p.text ?? "") : `[${p?.type} block]`)).join("\n");
  }
  return "";
}

// A prompt's content (spec §2): the prompt, then one
// <garuda_note>…</garuda_note> text block per note, then one plain text block
// per attachment.
const NOTE = /^<garuda_note>([\s\S]*)<\/garuda_note>$/;

/** A user message's text blocks after the first: a note, or an attachment. */
function promptPart(text, first) {
  if (first) return { kind: "text", text };
  const note = NOTE.exec(text);
  return note ? { kind: "note", label: "Note", text: note[1] } : { kind: "attachment", text };
}

/**
 * A format-neutral view of the conversation: one entry per message, parts
 * typed. With the whole history (`state.history`, the core's), every
 * message as it came, its fate (compacted away, undone), and the landmarks
 * between; else what the model sees now.
 */
function transcript(state, redact) {
  const items = state.history ?? state.messages.map((message) => ({ message, fate: "live" }));
  let index = 0;
  return items.map((item) => (item.landmark ? { landmark: item.landmark, text: redact(item.text), line: item.line } : entry(item.message, index++, item.fate, redact)));
}

function entry(message, index, fate, redact) {
  return {
    index,
    fate,
    role: message.role,
    parts: blocksOf(message).map((b, i, blocks) => {
      switch (b.type) {
        case "text": {
          const text = redact(String(b.text ?? ""));
          if (message.role !== "user") return { kind: "text", text };
          return promptPart(text, blocks.findIndex((x) => x.type === "text") === i);
        }
        case "thinking":
          return { kind: "thinking", text: redact(String(b.thinking ?? "")) };
        case "redacted_thinking":
          return { kind: "thinking", text: "[redacted thinking]" };
        case "tool_use":
          return { kind: "tool_use", id: b.id, name: b.name, text: redact(JSON.stringify(b.input ?? {}, null, 2)) };
        case "tool_result":
          return { kind: "tool_result", id: b.tool_use_id, error: b.is_error === true, text: redact(resultText(b)) };
        case "image":
          return { kind: "note", text: "[image]" };
        default:
          return { kind: "note", text: `[${b.type} block]` };
      }
    }),
  };
}

const FATE = { compacted: "compacted away", undone: "undone" };

function fence(text) {
  const longest = Math.max(2, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length));
  const ticks = "`".repeat(longest + 1);
  return `${ticks}\n${text}\n${ticks}`;
}

function markdown(state, summary, redact) {
  const out = [`# ${redact(summary.title ?? summary.prompt ?? state.sessionId ?? "Session")}`, ""];
  out.push(`- session: ${state.sessionId ?? "-"}`, `- model: ${state.model ?? "-"}`, `- cost: ${summary.cost}`);
  if (summary.budgetNote) out.push(`- ${summary.budgetNote}`);
  out.push("");
  for (const m of transcript(state, redact)) {
    if (m.landmark) {
      out.push("---", "", `*${m.text.replace(/[*_`]/g, "\\$&")}* (line ${m.line})`, "");
      continue;
    }
    out.push(`## ${m.role === "user" ? "User" : "Assistant"} (message ${m.index + 1})${FATE[m.fate] ? ` — ${FATE[m.fate]}` : ""}`, "");
    for (const p of m.parts) {
      if (p.kind === "text" || (p.kind === "note" && !p.label)) out.push(p.text, "");
      else if (p.kind === "note") out.push(`> **${p.label}:** ${p.text.replace(/\n/g, "\n> ")}`, "");
      else if (p.kind === "attachment") out.push("**Attachment**", "", fence(p.text), "");
      else if (p.kind === "thinking") out.push("<details><summary>Thinking</summary>", "", fence(p.text), "", "</details>", "");
      else if (p.kind === "tool_use") out.push(`**Tool call** \`${p.name}\` (${p.id})`, "", fence(p.text), "");
      else if (p.kind === "tool_result") {
        const head = `**Tool result** (${p.id})${p.error ? " — error" : ""}`;
        if (p.text.length > FOLD_AT) out.push(`<details><summary>${head}</summary>`, "", fence(p.text), "", "</details>", "");
        else out.push(head, "", fence(p.text), "");
      }
    }
  }
  return out.join("\n");
}

const escapeHtml = (s) =>
  String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);

function html(state, summary, redact) {
  const e = escapeHtml;
  const parts = [];
  for (const m of transcript(state, redact)) {
    if (m.landmark) {
      parts.push(`<div class="landmark">${e(m.text)} <small>line ${e(m.line)}</small></div>`);
      continue;
    }
    const body = m.parts
      .map((p) => {
        if (p.kind === "text") return `<div class="text">${e(p.text)}</div>`;
        if (p.kind === "note") return `<div class="note">${p.label ? `<b>${e(p.label)}:</b> ` : ""}${e(p.text)}</div>`;
        if (p.kind === "attachment") return `<div class="attachment"><b>Attachment</b><pre>${e(p.text)}</pre></div>`;
        if (p.kind === "thinking") return `<details class="thinking"><summary>Thinking</summary><pre>${e(p.text)}</pre></details>`;
        if (p.kind === "tool_use") return `<div class="tool"><b>Tool call</b> <code>${e(p.name)}</code> <small>${e(p.id)}</small><pre>${e(p.text)}</pre></div>`;
        const head = `<b>Tool result</b> <small>${e(p.id)}</small>${p.error ? ' <span class="error">error</span>' : ""}`;
        return p.text.length > FOLD_AT
          ? `<details class="result"><summary>${head}</summary><pre>${e(p.text)}</pre></details>`
          : `<div class="result">${head}<pre>${e(p.text)}</pre></div>`;
      })
      .join("\n");
    const fate = FATE[m.fate] ? ` <span class="fate">${e(FATE[m.fate])}</span>` : "";
    parts.push(`<section class="${e(m.role)} ${e(m.fate ?? "live")}"><h2>${m.role === "user" ? "User" : "Assistant"} <small>#${m.index + 1}</small>${fate}</h2>${body}</section>`);
  }
  const title = e(redact(summary.title ?? summary.prompt ?? state.sessionId ?? "Session"));
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>${title}</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;max-width:900px;margin:2em auto;padding:0 1em;color:#222}
section{border-left:4px solid #ccc;padding:.2em 1em;margin:1em 0}
section.user{border-color:#3b82f6}section.assistant{border-color:#10b981}
.text{white-space:pre-wrap}pre{background:#f5f5f5;padding:.6em;overflow:auto;white-space:pre-wrap}
.error{color:#b91c1c;font-weight:bold}.landmark{border-top:1px dashed #999;color:#555;margin:1.5em 0;padding-top:.4em;font-style:italic}
section.compacted,section.undone{opacity:.6}.fate{font-size:70%;background:#eee;border-radius:3px;padding:0 .4em;color:#555}.note{color:#666;font-style:italic;white-space:pre-wrap}summary{cursor:pointer;color:#555}
</style></head><body>
<h1>${title}</h1>
<p>session ${e(state.sessionId ?? "-")} · model ${e(state.model ?? "-")} · cost ${e(summary.cost)}${summary.budgetNote ? " · " + e(summary.budgetNote) : ""}</p>
${parts.join("\n")}
</body></html>
`;
}

module.exports = { transcript, markdown, html, escapeHtml };
