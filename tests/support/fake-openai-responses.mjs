// A fake OpenAI Responses API (POST /v1/responses) for running Codex
// itself against, offline. Written from the API's documented 400 rules,
// apart from the doctor's code (an oracle, not a copy of it): each tool
// call in `input` (function_call, custom_tool_call) is answered by an
// output with its call_id after it, and each output answers a call before
// it. Encrypted reasoning cannot be checked here (the real API decrypts
// it), so reasoning items are taken as they come.
// Codex first asks for a Responses WebSocket (GET with Upgrade): the fake
// answers 426 Upgrade Required, on which Codex goes straight to HTTPS
// (other statuses make it retry five times first). A request it takes is
// answered with a short streamed assistant message; each request is kept
// with its refusal (null when taken).
import { loopback, json, sse } from "./loopback.mjs";

export const REPLY = "fake-openai: resumed";

const CALLS = new Set(["function_call", "custom_tool_call", "local_shell_call"]);
const OUTPUTS = new Set(["function_call_output", "custom_tool_call_output", "local_shell_call_output"]);

/** Why the API would refuse this request body (its 400 message), or null. */
export function refusal(body) {
  const input = body?.input;
  if (!Array.isArray(input)) return "input: an array of items is required";
  const called = new Set();
  const answered = new Set();
  input.forEach((item, k) => {
    if (OUTPUTS.has(item?.type)) {
      if (!called.has(item.call_id)) answered.add(`No tool call found for function call output with call_id ${item.call_id}. (input.${k})`);
      else answered.add(item.call_id);
    } else if (CALLS.has(item?.type)) called.add(item.call_id);
  });
  const orphan = [...answered].find((a) => a.startsWith("No tool call"));
  if (orphan) return orphan;
  const open = [...called].find((id) => !answered.has(id));
  if (open) return `No tool output found for function call ${open}.`;
  return null;
}

function reply(res) {
  const item = { type: "message", id: "msg_fake", role: "assistant", status: "completed", content: [{ type: "output_text", text: REPLY, annotations: [] }] };
  const usage = { input_tokens: 1, input_tokens_details: { cached_tokens: 0 }, output_tokens: 1, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 2 };
  sse(res, [
    ["response.created", { type: "response.created", response: { id: "resp_fake", status: "in_progress" } }],
    ["response.output_item.done", { type: "response.output_item.done", output_index: 0, item }],
    ["response.completed", { type: "response.completed", response: { id: "resp_fake", status: "completed", output: [item], usage } }],
  ]);
}

/** The fake API on 127.0.0.1: { url, requests: [{ body, refusal }], outside, close }. */
export async function fakeResponses() {
  const requests = [];
  const api = await loopback((req, text, res) => {
    const path = req.url.split("?")[0];
    if (req.headers.upgrade) return json(res, 426, { error: { message: "use HTTPS", type: "invalid_request_error" } });
    if (req.method !== "POST" || path !== "/v1/responses") return json(res, 404, { error: { message: `${req.method} ${path}`, type: "invalid_request_error" } });
    let body;
    try {
      body = JSON.parse(text);
    } catch {
      return json(res, 400, { error: { message: "the body is not JSON", type: "invalid_request_error" } });
    }
    const why = refusal(body);
    requests.push({ body, refusal: why });
    if (why) return json(res, 400, { error: { message: why, type: "invalid_request_error", param: "input", code: null } });
    reply(res);
  });
  return { ...api, requests };
}
