// The JS half of pruneOldToolOutputs (src/wasm/context.rs): a walk that
// reads each message's shape off the caller's objects into numbers, and
// the copy that carries out the core's plan. The rules (which results go,
// what the placeholders say, which thinking must go with them) are the
// core's: this file only reads and copies. Read from wasm, each field was
// a boundary call (about 48 per turn: 5,000 turns spent most of their
// time there and in the garbage those calls left).

const KIND = { tool_result: 1, tool_use: 2, text: 3, thinking: 4, redacted_thinking: 5 };
// A switch, not KIND[type]: a type of "constructor" or "__proto__" would
// find Object's own properties.
function kindOf(type) {
  switch (type) {
    case "tool_result":
      return KIND.tool_result;
    case "tool_use":
      return KIND.tool_use;
    case "text":
      return KIND.text;
    case "thinking":
      return KIND.thinking;
    case "redacted_thinking":
      return KIND.redacted_thinking;
    default:
      return 0;
  }
}
const HAS_ID = 8;
const HAS_NAME = 16;
const PLACEHOLDER = 32;

/** Appends one message's codes to `codes` (role, block count, then kind|flags, size, images per block; [0]: not a message). */
function facts(m, prefix, mark, codes, strings) {
  const role = m?.role;
  const r = role === "user" ? 1 : role === "assistant" ? 2 : 0;
  if (r === 0) return void codes.push(0);
  const content = m.content;
  if (typeof content === "string") {
    if (content.trim().length === 0) codes.push(r, 0);
    else codes.push(r, 1, KIND.text, 0, 0);
    return;
  }
  if (!Array.isArray(content)) return void codes.push(0);
  codes.push(r, content.length);
  for (let k = 0; k < content.length; k++) {
    const b = content[k];
    const kind = kindOf(b?.type);
    let code = kind;
    let size = 0;
    let images = 0;
    if (kind === KIND.tool_use) {
      if (typeof b.id === "string") (code |= HAS_ID), strings.push(b.id);
      if (typeof b.name === "string") (code |= HAS_NAME), strings.push(b.name);
    } else if (kind === KIND.tool_result) {
      if (typeof b.tool_use_id === "string") (code |= HAS_ID), strings.push(b.tool_use_id);
      const c = b.content;
      if (typeof c === "string") {
        size = c.length + 2;
        if (c.startsWith(prefix) && c.includes(mark)) code |= PLACEHOLDER;
      } else if (Array.isArray(c)) {
        size = 2;
        for (let x = 0; x < c.length; x++) {
          const part = c[x];
          size += 32;
          if (part?.type === "image") images++;
          if (typeof part?.text === "string") size += part.text.length;
          if (typeof part?.source?.data === "string") size += part.source.data.length;
        }
      }
    }
    codes.push(code, Math.min(size, 0xffffffff), images);
  }
}

/**
 * The shapes of `messages`: [codes, strings, lengths]. A message whose
 * fields throw when read (a getter, a proxy) is no message here: the plan
 * leaves it as it is.
 */
export function pruneFacts(messages, prefix, mark) {
  const codes = [];
  const strings = [];
  for (let i = 0; i < messages.length; i++) {
    // Written straight into the lists; a throw takes back what the message wrote.
    const [c0, s0] = [codes.length, strings.length];
    try {
      facts(messages[i], prefix, mark, codes, strings);
    } catch {
      codes.length = c0;
      strings.length = s0;
      codes.push(0);
    }
  }
  return [new Uint32Array(codes), strings.join(""), new Uint32Array(strings.map((s) => s.length))];
}

/**
 * The new array: the caller's messages, and a shallow copy (with a copy of
 * its content) of each one the plan changes. `plan`: the replaced results
 * [count, (message, block, text length)...], the dropped thinking
 * [count, (message, block)...], the messages given a note [count, message...];
 * `texts`: the replacements one after another.
 */
export function pruneApply(messages, plan, texts, leftOut) {
  const out = messages.slice();
  const copies = new Map();
  const copyOf = (i) => {
    let c = copies.get(i);
    if (c === undefined) {
      const m = messages[i];
      c = { m: Object.assign({}, m), content: Array.isArray(m.content) ? m.content.slice() : [] };
      copies.set(i, c);
    }
    return c;
  };
  let p = 0;
  let at = 0;
  for (let n = plan[p++]; n > 0; n--) {
    const c = copyOf(plan[p]);
    const j = plan[p + 1];
    const block = Object.assign({}, c.content[j]);
    block.content = texts.slice(at, at + plan[p + 2]);
    at += plan[p + 2];
    c.content[j] = block;
    p += 3;
  }
  const drops = new Map();
  for (let n = plan[p++]; n > 0; n--) {
    const i = plan[p];
    if (!drops.has(i)) drops.set(i, new Set());
    drops.get(i).add(plan[p + 1]);
    p += 2;
  }
  for (const [i, gone] of drops) {
    const c = copyOf(i);
    c.content = c.content.filter((_, j) => !gone.has(j));
  }
  for (let n = plan[p++]; n > 0; n--) copyOf(plan[p++]).content.push({ type: "text", text: leftOut });
  for (const [i, c] of copies) {
    c.m.content = c.content;
    out[i] = c.m;
  }
  return out;
}
