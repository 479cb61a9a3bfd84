// The viewer's worker: reads journals in chunks, replays them with
// @garuda/session, and builds a format-neutral view model (entries, stats,
// chart series) so the page stays responsive. Journal text never leaves
// this worker except as plain strings the page renders as text.
import { Journal, Redactor, resumeSession, formatCost, budgetNote } from "../web/index.js";

const CHUNK = 4 << 20;
const PREVIEW = 160;

let current = null; // { lines: string[], entries: [], byLine: Map }

const post = (msg) => self.postMessage(msg);

async function readSource(source, onBytes) {
  if (source.file) {
    const file = source.file;
    for (let at = 0; at < file.size; at += CHUNK) {
      onBytes(new Uint8Array(await file.slice(at, at + CHUNK).arrayBuffer()), Math.min(at + CHUNK, file.size), file.size);
    }
    return;
  }
  const res = await fetch(source.url);
  if (!res.ok) throw new Error(`could not load ${source.url}: HTTP ${res.status}`);
  const total = Number(res.headers.get("content-length")) || 0;
  const reader = res.body.getReader();
  let done = 0;
  for (;;) {
    const { value, done: end } = await reader.read();
    if (end) break;
    done += value.length;
    onBytes(value, done, total);
  }
}

function blocksOf(message) {
  if (!message) return [];
  return typeof message.content === "string" ? [{ type: "text", text: message.content }] : Array.isArray(message.content) ? message.content : [];
}

function textOf(block) {
  switch (block.type) {
    case "text":
      return block.text ?? "";
    case "thinking":
      return block.thinking ?? "";
    case "tool_use":
      return `${block.name}(${JSON.stringify(block.input ?? {})})`;
    case "tool_result":
      return typeof block.content === "string" ? block.content : (block.content ?? []).map((p) => p.text ?? `[${p.type}]`).join("\n");
    default:
      return `[${block.type}]`;
  }
}

const tokens = (u) => (u ? (u.inputTokens ?? 0) + (u.outputTokens ?? 0) + (u.cacheReadTokens ?? 0) + (u.cacheWriteTokens ?? 0) : 0);

/** One entry per record: what the list shows without parsing again. */
function entryOf(record, line) {
  const e = { line, type: record.type, kind: "landmark", label: record.type, preview: "", blocks: [], tools: [] };
  const message = record.type === "assistant" ? { role: "assistant", content: record.response?.content } : record.message;
  switch (record.type) {
    case "user":
    case "continue":
    case "tool_results":
    case "assistant": {
      e.kind = "message";
      e.role = message?.role ?? "user";
      e.label = record.type === "tool_results" ? "tool results" : record.type === "continue" ? "continue note" : e.role;
      const blocks = blocksOf(message);
      e.blocks = [...new Set(blocks.map((b) => b.type))];
      e.preview = blocks.map(textOf).join(" · ").slice(0, PREVIEW);
      for (const b of blocks) {
        if (b.type === "tool_use") e.tools.push({ id: b.id, name: b.name, use: true });
        if (b.type === "tool_result") {
          const text = textOf(b);
          e.tools.push({ id: b.tool_use_id, error: b.is_error === true, interrupted: text.startsWith("[Interrupted before result was recorded]") });
        }
      }
      e.thinking = blocks.filter((b) => b.type === "thinking" || b.type === "redacted_thinking").length;
      if (record.type === "assistant") {
        e.tokens = tokens(record.response?.usage);
        e.cost = typeof record.costUsd === "number" ? record.costUsd : null;
      }
      if (record.synthetic) e.synthetic = true;
      break;
    }
    case "compaction":
      e.label = "compaction";
      e.preview = `${record.beforeTokens ?? "?"} → ${record.afterTokens ?? "?"} tokens (stage ${record.stage ?? "?"})`;
      break;
    case "start":
    case "resume":
    case "model":
      e.preview = `model ${record.model ?? "-"}${record.sessionId ? ` · session ${record.sessionId}` : ""}`;
      break;
    case "title":
      e.preview = String(record.title ?? "");
      break;
    case "thinking":
      e.preview = `thinking ${JSON.stringify(record.choice)}`;
      break;
    case "snapshot":
      e.preview = `before: ${String(record.prompt ?? "")}`;
      break;
    case "undo":
      e.preview = "the last turn was taken out";
      break;
    case "redo":
      e.preview = "the turn was put back";
      break;
    case "end":
      e.preview = `${JSON.stringify(record.stopReason)} after ${record.steps} steps`;
      break;
    case "unreported":
      e.preview = `${record.tokens} tokens reserved without reported usage`;
      break;
    case "child_debit":
      e.preview = `${record.childSessionId}: ${record.tokens} tokens pending`;
      break;
    case "side_usage":
      e.preview = `${record.purpose ?? "side request"}: ${tokens(record.usage)} tokens`;
      break;
    default:
      e.preview = "unknown record";
  }
  if (record.redacted === true) e.redacted = true;
  return e;
}

async function open(source) {
  const journal = new Journal();
  const decoder = new TextDecoder();
  const lines = [];
  let partial = "";
  await readSource(source, (bytes, done, total) => {
    journal.feed(bytes);
    const text = partial + decoder.decode(bytes, { stream: true });
    const parts = text.split("\n");
    partial = parts.pop();
    for (const p of parts) lines.push(p);
    post({ type: "progress", done, total });
  });
  partial += decoder.decode();
  if (partial !== "") lines.push(partial);
  journal.finish();
  const state = journal.state();
  journal.free();

  const entries = [];
  const byLine = new Map();
  const chart = [];
  const compactions = [];
  const subagents = [];
  let lastCompaction = 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i].endsWith("\r") ? lines[i].slice(0, -1) : lines[i];
    if (raw.trim() === "") continue;
    let record;
    try {
      record = JSON.parse(raw);
    } catch {
      continue;
    }
    if (!record || typeof record !== "object" || typeof record.type !== "string") continue;
    const e = entryOf(record, i + 1);
    e.index = entries.length;
    byLine.set(i + 1, e.index);
    entries.push(e);
    if (record.type === "assistant") chart.push([i + 1, tokens(record.response?.usage)]);
    if (record.type === "compaction") {
      chart.push([i + 1, record.afterTokens ?? 0]);
      compactions.push(i + 1);
      lastCompaction = i + 1;
    }
    if (record.type === "tool_results") {
      for (const call of record.calls ?? []) {
        if (call.report) subagents.push({ child: call.report.childSessionId, tokens: tokens(call.report.usage), costUsd: call.report.costUsd ?? null, line: i + 1 });
      }
    }
  }
  // Pair tool calls with their results: the call shows how it ended, the
  // result names its call.
  const calls = new Map();
  for (const e of entries) for (const t of e.tools) if (t.use) calls.set(t.id, t);
  for (const e of entries) {
    for (const t of e.tools) {
      if (t.use) continue;
      const call = calls.get(t.id);
      if (!call) continue;
      t.name = call.name;
      call.outcome = t.interrupted ? "interrupted" : t.error ? "error" : "ok";
      call.resultLine = e.line;
    }
  }
  // Messages that are not in the final state were taken out: by a compaction
  // (before the last one) or by undo.
  const live = new Set(state.messageOrigins.map((o) => o.line));
  for (const e of entries) {
    if (e.kind !== "message") continue;
    e.status = live.has(e.line) ? "live" : e.line < lastCompaction ? "compacted" : "undone";
  }
  // The resume view: which thinking blocks go back, and why others do not.
  const { report } = resumeSession(state, {});
  const dropped = new Map();
  for (const d of report.dropped) {
    const line = state.messageOrigins[d.message]?.line;
    if (line !== undefined) dropped.set(line, [...(dropped.get(line) ?? []), d.reason]);
  }
  for (const e of entries) {
    if (!e.thinking) continue;
    e.thinkingState = e.status !== "live" ? "not sent" : dropped.has(e.line) ? `dropped: ${[...new Set(dropped.get(e.line))].join(", ")}` : "kept";
  }
  current = { lines, entries, byLine };
  const usage = state.usage;
  post({
    type: "ready",
    entries,
    stats: {
      messages: state.messages.length,
      prompts: state.prompts,
      steps: state.steps,
      model: state.model ?? null,
      title: state.title ?? null,
      cost: formatCost(state),
      budgetNote: budgetNote(state),
      usage,
      unreportedTokens: state.unreportedTokens,
      childDebits: state.childDebits,
      contextTokens: state.contextTokens,
      warnings: state.warnings,
      tornTail: state.tornTail,
      tornLine: state.tornTail ? lines.length : null,
      report,
    },
    chart,
    compactions,
    subagents,
  });
}

/** Full content of one entry, for the detail panel. */
function detail(index) {
  const e = current?.entries[index];
  if (!e) return null;
  const record = JSON.parse(current.lines[e.line - 1].replace(/\r$/, ""));
  const message = record.type === "assistant" ? { role: "assistant", content: record.response?.content } : record.message;
  const parts = blocksOf(message).map((b) => ({ type: b.type, text: textOf(b), error: b.is_error === true, id: b.id ?? b.tool_use_id ?? null, name: b.name ?? null }));
  const other = { ...record };
  delete other.message;
  delete other.response;
  return { index, line: e.line, record: JSON.stringify(other, null, 2), parts };
}

function search(query) {
  const q = query.toLowerCase();
  if (!current || q === "") return [];
  const hits = [];
  for (const e of current.entries) if (current.lines[e.line - 1].toLowerCase().includes(q)) hits.push(e.index);
  return hits;
}

function redactionCheck() {
  const redactor = new Redactor({ env: {} });
  const would = [];
  const marked = [];
  for (const e of current?.entries ?? []) {
    const line = current.lines[e.line - 1].replace(/\r$/, "");
    if (e.redacted) marked.push(e.index);
    try {
      if (redactor.redactLine(line).changed) would.push(e.index);
    } catch {}
  }
  redactor.free();
  return { would, marked };
}

self.onmessage = async ({ data }) => {
  try {
    if (data.type === "open") await open(data.source);
    else if (data.type === "detail") post({ type: "detail", detail: detail(data.index) });
    else if (data.type === "search") post({ type: "hits", query: data.query, hits: search(data.query) });
    else if (data.type === "redaction") post({ type: "redaction", ...redactionCheck() });
  } catch (e) {
    post({ type: "error", message: String(e?.message ?? e) });
  }
};
post({ type: "alive" });
