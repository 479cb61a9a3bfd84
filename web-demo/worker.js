// The viewer's worker: reads journals in chunks, replays them with
// @garuda/session, and builds a format-neutral view model (entries, stats,
// chart series) so the page stays responsive. Journal text never leaves
// this worker except as plain strings the page renders as text.
import { Journal, Redactor, repairForResume, formatCost, budgetNote } from "../web/index.js";

// Codes the page turns back into words (see viewer.js).
const STATUS = { live: 1, compacted: 2, undone: 3 };
const THINKING = { kept: 1, notSent: 2, dropped: 3 };
const PREVIEW = 160;
// The content of a synthetic result for a call cut off by a crash (spec §6).
const INTERRUPTED = "[Interrupted before result was recorded]";

let current = null; // { lines: string[], entries: [] }

const post = (msg) => self.postMessage(msg);

/**
 * Reads a source on reader.js's thread and calls onBytes for each chunk, in
 * order. An exception from onBytes (a newer open, say) stops the reading.
 */
function readSource(source, onBytes) {
  return new Promise((resolve, reject) => {
    const reader = new Worker(new URL("./reader.js", import.meta.url));
    let stopped = false;
    const stop = (settle, value) => {
      stopped = true;
      reader.terminate();
      settle(value);
    };
    reader.onmessage = ({ data }) => {
      if (stopped) return;
      if (data.error) return stop(reject, new Error(data.error));
      if (data.end) return stop(resolve);
      try {
        onBytes(data.bytes, data.done, data.total);
      } catch (e) {
        stop(reject, e);
      }
    };
    reader.onerror = (e) => (e.preventDefault(), stop(reject, new Error(`could not read the journal: ${e.message}`)));
    reader.postMessage(source);
  });
}

/** A message's blocks; anything in the array that is not an object is skipped. */
function blocksOf(message) {
  if (!message || typeof message !== "object") return [];
  if (typeof message.content === "string") return [{ type: "text", text: message.content }];
  return Array.isArray(message.content) ? message.content.filter((b) => b && typeof b === "object") : [];
}

/** A block as text, cut near `limit` characters: previews need 160, and a
 * 50 KB file write need not be stringified whole to show its first line. */
function textOf(block, limit = Infinity) {
  switch (block.type) {
    case "text":
      return String(block.text ?? "").slice(0, limit);
    case "thinking":
      return String(block.thinking ?? "").slice(0, limit);
    case "tool_use":
      return `${block.name}(${shortJson(block.input ?? {}, limit)})`;
    case "tool_result": {
      if (typeof block.content === "string") return block.content.slice(0, limit);
      let out = "";
      for (const p of Array.isArray(block.content) ? block.content : []) {
        if (out.length >= limit) break;
        out += (out ? "\n" : "") + (p?.text ?? `[${p?.type}]`);
      }
      return out.slice(0, limit);
    }
    default:
      return `[${block.type}]`;
  }
}

/** JSON.stringify that stops once `limit` characters are written. */
function shortJson(value, limit) {
  if (limit === Infinity) return JSON.stringify(value) ?? "null";
  if (typeof value === "string") return JSON.stringify(value.slice(0, limit));
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  const array = Array.isArray(value);
  let out = array ? "[" : "{";
  for (const k in value) {
    if (out.length >= limit) break;
    if (out.length > 1) out += ",";
    out += (array ? "" : JSON.stringify(k) + ":") + shortJson(value[k], limit - out.length);
  }
  return out + (array ? "]" : "}");
}

// A user record's content (spec §2): the prompt, then one
// <garuda_note>…</garuda_note> text block per note, then one plain text block
// per attachment.
const NOTE = /^<garuda_note>([\s\S]*)<\/garuda_note>$/;

/** What each block of a user message is: prompt, note or attachment. */
function userRoles(blocks) {
  let prompt = false;
  return blocks.map((b) => {
    if (b.type !== "text") return b.type;
    if (!prompt) return (prompt = true), "prompt";
    return NOTE.test(b.text ?? "") ? "note" : "attachment";
  });
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
      // A prompt's preview is the prompt; its notes and attachments are counted.
      const roles = record.type === "user" ? userRoles(blocks) : null;
      let preview = "";
      for (const [i, b] of blocks.entries()) {
        if (roles?.[i] === "note") e.notes = (e.notes ?? 0) + 1;
        else if (roles?.[i] === "attachment") e.attachments = (e.attachments ?? 0) + 1;
        else if (preview.length < PREVIEW) preview += (preview ? " · " : "") + textOf(b, PREVIEW);
      }
      e.preview = preview.slice(0, PREVIEW);
      for (const b of blocks) {
        if (b.type === "tool_use") e.tools.push({ id: b.id, name: b.name, use: true });
        if (b.type === "tool_result") {
          const text = textOf(b, INTERRUPTED.length);
          e.tools.push({ id: b.tool_use_id, error: b.is_error === true, interrupted: text === INTERRUPTED });
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

// The load in progress; a newer open supersedes it and the older one stops.
let loading = 0;
class Superseded extends Error {}

async function open(source, load) {
  loading = load;
  // When each phase ended (absolute ms); the 100 MB test prints where the time went.
  const marks = { start: performance.now() };
  // Another agent's session is read by the core into journal records
  // (keepTranslation hands them over): the entries are built from those.
  const journal = new Journal({ keepTranslation: true });
  const decoder = new TextDecoder();
  const lines = [];
  const entries = [];
  const chart = [];
  const compactions = [];
  const subagents = [];
  // Calls whose subagent's run is another file: [toolUseId, child run id].
  const links = [];
  let lastCompaction = 0;
  // Entries are built as lines arrive, so the parsing overlaps the network
  // instead of following it.
  // `i`: the index in `lines` of the record's text; `at`: its line in the
  // file (another agent's line for a translated record).
  const take = (i, at = i + 1) => {
    const raw = lines[i].endsWith("\r") ? lines[i].slice(0, -1) : lines[i];
    if (raw.trim() === "") return;
    let record;
    try {
      record = JSON.parse(raw);
    } catch {
      return;
    }
    if (!record || typeof record !== "object" || typeof record.type !== "string") return;
    let e;
    try {
      e = entryOf(record, at);
    } catch {
      // A record of a known type with fields of the wrong shape: shown, not fatal.
      e = { line: at, type: record.type, kind: "landmark", label: record.type, preview: "a record whose fields could not be read", blocks: [], tools: [] };
    }
    e.index = entries.length;
    e.text = i;
    entries.push(e);
    if (record.type === "assistant") chart.push([at, tokens(record.response?.usage)]);
    if (record.type === "compaction") {
      chart.push([at, record.afterTokens ?? 0]);
      compactions.push(at);
      lastCompaction = at;
    }
    if (record.type === "tool_results" && Array.isArray(record.calls)) {
      for (const call of record.calls) {
        if (typeof call?.toolUseId === "string" && typeof call?.childSessionId === "string") links.push([call.toolUseId, call.childSessionId]);
        if (call?.report && typeof call.report === "object") subagents.push({ child: call.report.childSessionId, tokens: tokens(call.report.usage), costUsd: call.report.costUsd ?? null, line: at });
      }
    }
  };
  let partial = "";
  let foreign; // undefined until the core has read a line
  // Entries go to the page with each chunk: copying them in one message at
  // the end cost a quarter of a second for 100 MB, all of it after the read.
  let sent = 0;
  try {
    await readSource(source, (bytes, done, total) => {
      if (loading !== load) throw new Superseded();
      journal.feed(bytes);
      // Another agent's lines are not records: once the core says so, they
      // are neither kept nor parsed here (the entries come from its records).
      if (foreign === undefined && journal.format !== null) foreign = journal.format !== "garuda";
      const parts = (partial + decoder.decode(bytes, { stream: true })).split("\n");
      partial = parts.pop();
      if (!foreign) for (const p of parts) take(lines.push(p) - 1);
      post({ type: "progress", load, done, total, entries: entries.slice(sent) });
      sent = entries.length;
    });
  } catch (e) {
    journal.free();
    if (e instanceof Superseded) return;
    throw e;
  }
  partial += decoder.decode();
  if (partial !== "" && !foreign) take(lines.push(partial) - 1);
  journal.finish();
  marks.read = performance.now();
  const state = journal.state();
  if (state.format !== null && state.format !== "garuda") {
    // The raw lines were another agent's: the entries come from the records
    // the core read them into, each keeping its line in the file.
    const translated = journal.translated();
    lines.length = 0;
    entries.length = 0;
    chart.length = 0;
    compactions.length = 0;
    subagents.length = 0;
    links.length = 0;
    lastCompaction = 0;
    for (const [at, record] of translated) take(lines.push(record) - 1, at);
    post({ type: "progress", load, done: 1, total: 1, entries: [], replace: true });
    sent = 0;
  }
  journal.free();

  // Messages that are not in the final state were taken out: by a compaction
  // (before the last one) or by undo. Sent as one code per entry.
  const live = new Set(state.messageOrigins.map((o) => o.line));
  const status = new Uint8Array(entries.length);
  for (const e of entries) {
    if (e.kind === "message") status[e.index] = live.has(e.line) ? STATUS.live : e.line < lastCompaction ? STATUS.compacted : STATUS.undone;
  }
  // The resume view: which thinking blocks go back, and why others do not.
  const { report } = repairForResume(state, {});
  const dropped = new Map();
  for (const d of report.dropped) {
    const line = state.messageOrigins[d.message]?.line;
    if (line !== undefined) dropped.set(line, [...(dropped.get(line) ?? []), d.reason]);
  }
  const thinking = new Uint8Array(entries.length);
  const droppedWhy = {};
  for (const e of entries) {
    if (!e.thinking) continue;
    if (status[e.index] !== STATUS.live) thinking[e.index] = THINKING.notSent;
    else if (!dropped.has(e.line)) thinking[e.index] = THINKING.kept;
    else (thinking[e.index] = THINKING.dropped), (droppedWhy[e.index] = [...new Set(dropped.get(e.line))].join(", "));
  }
  marks.resume = performance.now();
  for (const k in marks) marks[k] += performance.timeOrigin;
  current = { lines, entries };
  const usage = state.usage;
  post({
    type: "ready",
    load,
    entries: entries.slice(sent),
    status,
    thinking,
    droppedWhy,
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
    links,
    marks,
  });
}

/** Full content of one entry, for the detail panel. */
function detail(index) {
  const e = current?.entries[index];
  if (!e) return null;
  const record = JSON.parse(current.lines[e.text].replace(/\r$/, ""));
  const message = record.type === "assistant" ? { role: "assistant", content: record.response?.content } : record.message;
  const blocks = blocksOf(message);
  const roles = record.type === "user" ? userRoles(blocks) : blocks.map((b) => b.type);
  const parts = blocks.map((b, i) => ({
    type: roles[i],
    text: roles[i] === "note" ? NOTE.exec(b.text)[1] : textOf(b),
    error: b.is_error === true,
    id: b.id ?? b.tool_use_id ?? null,
    name: b.name ?? null,
  }));
  const other = { ...record };
  delete other.message;
  delete other.response;
  return { index, line: e.line, record: JSON.stringify(other, null, 2), parts };
}

function search(query) {
  const q = query.toLowerCase();
  if (!current || q === "") return [];
  const hits = [];
  for (const e of current.entries) if (current.lines[e.text].toLowerCase().includes(q)) hits.push(e.index);
  return hits;
}

function redactionCheck() {
  const redactor = new Redactor({ env: {} });
  const would = [];
  const marked = [];
  for (const e of current?.entries ?? []) {
    const line = current.lines[e.text].replace(/\r$/, "");
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
    if (data.type === "open") await open(data.source, data.load);
    else if (data.type === "detail") post({ type: "detail", detail: detail(data.index) });
    else if (data.type === "search") post({ type: "hits", query: data.query, hits: search(data.query) });
    else if (data.type === "redaction") post({ type: "redaction", ...redactionCheck() });
  } catch (e) {
    post({ type: "error", load: data.load, message: String(e?.message ?? e) });
  }
};
post({ type: "alive" });
