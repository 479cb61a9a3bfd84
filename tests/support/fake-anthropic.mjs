// A fake Anthropic Messages API (POST /v1/messages) for running Claude
// Code itself against, offline. Written from the API's documented 400
// rules, apart from the doctor's code (an oracle, not a copy of it):
// - the first message is the user's and roles alternate;
// - each tool_use has an id of letters, digits, "_" and "-", is answered
//   by a tool_result in the next message, and each tool_result answers a
//   tool_use of the message before it, once;
// - a thinking block carries a signature the API gave for that text and
//   that model. The doctor's fixtures sign as tests/doctor/make_fixtures.py
//   does: "fake1:<model>:<FNV-1a 64 of the text>", so a text emptied or
//   changed since it was signed, or thinking of another model, is refused
//   as the real API refuses it. A real signature (a peer's session) cannot
//   be checked without the real API's key: it is taken. (The other half of the prefix rule, what
//   comes before the block, is checked by tests/doctor.rs's fake_api and
//   tests/smoke/support/fake-api.cjs, whose signatures bind it.)
// A request it takes is answered with a short streamed text reply; each
// request is kept with its refusal (null when taken).
import { loopback, json, sse } from "./loopback.mjs";

export const REPLY = "fake-anthropic: resumed";

function fnv(text) {
  let h = 0xcbf29ce484222325n;
  for (const b of Buffer.from(text, "utf8")) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, "0");
}

const blocks = (m) => (typeof m.content === "string" ? [{ type: "text", text: m.content }] : Array.isArray(m.content) ? m.content : []);
const ids = (m, type, key) => blocks(m).filter((b) => b.type === type).map((b) => b[key]);

/** Why the API would refuse this request body (its 400 message), or null. */
export function refusal(body) {
  const msgs = body?.messages;
  if (!Array.isArray(msgs) || msgs.length === 0) return "messages: at least one message is required";
  if (msgs[0].role !== "user") return "messages: the first message must use the user role";
  for (let i = 0; i < msgs.length; i++) {
    const m = msgs[i];
    if (i > 0 && m.role === msgs[i - 1].role) return `messages.${i}: roles must alternate between "user" and "assistant"`;
    if (m.role === "assistant") {
      const next = msgs[i + 1];
      const answered = next ? ids(next, "tool_result", "tool_use_id") : null;
      const open = answered ? ids(m, "tool_use", "id").filter((id) => !answered.includes(id)) : [];
      if (open.length) {
        return `messages.${i}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${open.join(", ")}. Each \`tool_use\` block must have a corresponding \`tool_result\` block in the next message.`;
      }
      const bs = blocks(m);
      for (let j = 0; j < bs.length; j++) {
        const b = bs[j];
        if (b.type === "tool_use" && !/^[a-zA-Z0-9_-]+$/.test(b.id ?? "")) return `messages.${i}.content.${j}.id: String should match pattern '^[a-zA-Z0-9_-]+$'`;
        if (b.type === "redacted_thinking" && !b.data) return `messages.${i}.content.${j}: redacted_thinking.data: Field required`;
        if (b.type !== "thinking") continue;
        if (typeof b.signature !== "string" || b.signature === "") return `messages.${i}.content.${j}: thinking.signature: Field required`;
        // A signature the real API made cannot be checked here: taken.
        if (b.signature.startsWith("fake1:") && b.signature !== `fake1:${body.model}:${fnv(b.thinking ?? "")}`) {
          return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`;
        }
      }
    } else {
      const asked = i > 0 ? ids(msgs[i - 1], "tool_use", "id") : [];
      const seen = new Set();
      for (const id of ids(m, "tool_result", "tool_use_id")) {
        if (!asked.includes(id)) {
          return `messages.${i}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
        }
        if (seen.has(id)) return `messages.${i}: each tool_use must have a single result. Found multiple \`tool_result\` blocks with id: ${id}`;
        seen.add(id);
      }
    }
  }
  return null;
}

// With `thinking: { display: "omitted" }` (what Claude Code 2.1.332 asks
// for) the real API streams each thinking block with an empty text and the
// signature alone, and takes it back so. `omitted: true` makes the fake
// answer so too, signing the empty text it shows.
function reply(res, body, { omitted }) {
  const usage = { input_tokens: 1, output_tokens: 1 };
  const message = { id: "msg_fake", type: "message", role: "assistant", model: body.model, content: [], stop_reason: null, stop_sequence: null, usage };
  if (!body.stream) {
    json(res, 200, { ...message, content: [{ type: "text", text: REPLY }], stop_reason: "end_turn" });
    return;
  }
  const think = omitted && body.thinking?.display === "omitted";
  const t = think ? 1 : 0;
  sse(res, [
    ["message_start", { type: "message_start", message }],
    ...(think
      ? [
          ["content_block_start", { type: "content_block_start", index: 0, content_block: { type: "thinking", thinking: "", signature: "" } }],
          ["content_block_delta", { type: "content_block_delta", index: 0, delta: { type: "signature_delta", signature: `fake1:${body.model}:${fnv("")}` } }],
          ["content_block_stop", { type: "content_block_stop", index: 0 }],
        ]
      : []),
    ["content_block_start", { type: "content_block_start", index: t, content_block: { type: "text", text: "" } }],
    ["content_block_delta", { type: "content_block_delta", index: t, delta: { type: "text_delta", text: REPLY } }],
    ["content_block_stop", { type: "content_block_stop", index: t }],
    ["message_delta", { type: "message_delta", delta: { stop_reason: "end_turn", stop_sequence: null }, usage }],
    ["message_stop", { type: "message_stop" }],
  ]);
}

/** The fake API on 127.0.0.1: { url, requests: [{ body, refusal }], outside, close }. */
export async function fakeAnthropic({ omitted = false } = {}) {
  const requests = [];
  const api = await loopback((req, text, res) => {
    const path = req.url.split("?")[0];
    if (req.method !== "POST" || !path.startsWith("/v1/messages")) return json(res, 404, { type: "error", error: { type: "not_found_error", message: `${req.method} ${path}` } });
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      return json(res, 400, { type: "error", error: { type: "invalid_request_error", message: "the body is not JSON" } });
    }
    if (path === "/v1/messages/count_tokens") return json(res, 200, { input_tokens: 1 });
    const why = refusal(body);
    requests.push({ body, refusal: why });
    if (why) return json(res, 400, { type: "error", error: { type: "invalid_request_error", message: why } });
    reply(res, body, { omitted });
  });
  return { ...api, requests };
}
