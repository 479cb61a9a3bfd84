// A fake Messages API that checks thinking blocks the way the real one
// does, written apart from the core's rules (an oracle, not a copy of
// them): a signature it issues binds a thinking block to the model and to
// all the content before the block. A history carrying a block whose
// prefix (or own text) changed since it was signed is refused with the
// real API's 400: "The block is bound to a different conversation".
//
// What the prefix is, per the API's documented behaviour: the messages
// before the block, with earlier assistant turns' thinking left out (the
// API strips it from the context), adjacent user messages joined (the API
// joins them into one turn) and string content read as one text block.
// It also refuses a call answered twice in one turn, and a tool_use id
// used twice anywhere in the request, as the real API does ("`tool_use`
// ids must be unique", seen in agents' bug reports: opencode #1150, Claude
// Code #28515).
"use strict";
const crypto = require("node:crypto");

/** JSON with sorted keys: the same content gives the same text whatever the key order. */
function canon(v) {
  if (Array.isArray(v)) return `[${v.map(canon).join(",")}]`;
  if (v && typeof v === "object") {
    return `{${Object.keys(v)
      .sort()
      .filter((k) => v[k] !== undefined)
      .map((k) => `${JSON.stringify(k)}:${canon(v[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(v);
}

const isThinking = (b) => b && (b.type === "thinking" || b.type === "redacted_thinking");
const blocksOf = (m) => (typeof m.content === "string" ? [{ type: "text", text: m.content }] : Array.isArray(m.content) ? m.content : []);

/** The turns the API sees: roles with their blocks, thinking left out, user messages in a row joined. */
function turns(messages) {
  const out = [];
  for (const m of messages) {
    const blocks = blocksOf(m).filter((b) => !isThinking(b));
    const last = out.at(-1);
    if (last && last.role === "user" && m.role === "user") last.blocks.push(...blocks);
    else out.push({ role: m.role, blocks: [...blocks] });
  }
  return out;
}

function digest(model, prefix, before, text) {
  return crypto.createHash("sha256").update(canon({ model, prefix: turns(prefix), before: before.filter((b) => !isThinking(b)), text })).digest("base64");
}

class FakeApi {
  constructor() {
    this.requests = 0;
    this.refused = [];
  }

  /** The signature for a thinking block with `text`, the first block of a response to `history` by `model`. */
  sign(model, history, text, before = []) {
    return `${model}:${digest(model, history, before, text)}`;
  }

  /** Why the API would refuse `history` for `model` (400), or null. */
  refusal(model, history) {
    if (!Array.isArray(history) || history.length === 0) return "messages: at least one message is required";
    if (history[0].role !== "user") return "messages: the first message must use the user role";
    // One result per call, across the user messages the API joins into one turn.
    let answered = new Set();
    for (let i = 0; i < history.length; i++) {
      if (history[i].role !== "user") {
        answered = new Set();
        continue;
      }
      const blocks = blocksOf(history[i]);
      for (let j = 0; j < blocks.length; j++) {
        if (blocks[j].type !== "tool_result") continue;
        if (answered.has(blocks[j].tool_use_id)) return `messages.${i}.content.${j}: each tool_use must have a single result. Found multiple \`tool_result\` blocks with id: ${blocks[j].tool_use_id}`;
        answered.add(blocks[j].tool_use_id);
      }
    }
    const used = new Set();
    for (let i = 0; i < history.length; i++) {
      if (history[i].role !== "assistant") continue;
      const blocks = blocksOf(history[i]);
      for (let j = 0; j < blocks.length; j++) {
        if (blocks[j].type !== "tool_use") continue;
        if (used.has(blocks[j].id)) return `messages.${i}.content.${j}: \`tool_use\` ids must be unique`;
        used.add(blocks[j].id);
      }
    }
    for (let i = 0; i < history.length; i++) {
      const m = history[i];
      if (m.role !== "assistant") continue;
      const blocks = blocksOf(m);
      for (let j = 0; j < blocks.length; j++) {
        const b = blocks[j];
        if (b.type !== "thinking") continue;
        if (typeof b.signature !== "string" || b.signature === "") return `messages.${i}.content.${j}: thinking.signature: Field required`;
        const [signedBy] = b.signature.split(":");
        if (signedBy !== model) return `messages.${i}.content.${j}: the thinking block was made by ${signedBy}, not ${model}`;
        if (b.signature !== this.sign(model, history.slice(0, i), b.thinking, blocks.slice(0, j))) {
          return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block: The block is bound to a different conversation`;
        }
      }
    }
    return null;
  }

  /** A request: refused (returns the reason) or taken (returns null and counts it). */
  request(model, history) {
    this.requests++;
    const why = this.refusal(model, history);
    if (why) this.refused.push(why);
    return why;
  }
}

module.exports = { FakeApi, canon };
