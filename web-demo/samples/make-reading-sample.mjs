// Writes web-demo/samples/reading-sample.jsonl: a short session that shows
// every part of the reading mode (Markdown, code, thinking, tool calls with
// results, an edit as a diff, an image, a compaction, an undo).
import { writeFileSync } from "node:fs";
import { deflateSync } from "node:zlib";

/** A small PNG (a calendar-ish grid), made here so the sample carries no binary file. */
function pngBase64(w = 96, h = 64) {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const out = Buffer.alloc(12 + data.length);
    out.writeUInt32BE(data.length, 0);
    out.write(type, 4, "ascii");
    data.copy(out, 8);
    out.writeUInt32BE(crc(out.subarray(4, 8 + data.length)), 8 + data.length);
    return out;
  };
  const raw = Buffer.alloc((w * 3 + 1) * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const o = y * (w * 3 + 1) + 1 + x * 3;
      const line = x % 16 === 0 || y % 16 === 0;
      const today = x >= 48 && x < 64 && y >= 32 && y < 48;
      raw[o] = line ? 180 : today ? 9 : 246;
      raw[o + 1] = line ? 186 : today ? 105 : 248;
      raw[o + 2] = line ? 193 : today ? 218 : 250;
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8;
  ihdr[9] = 2;
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk("IHDR", ihdr), chunk("IDAT", deflateSync(raw)), chunk("IEND", Buffer.alloc(0))]).toString("base64");
}
const png = pngBase64();
let t = 0;
const at = () => `2026-11-29T09:${String(10 + Math.floor(t / 60)).padStart(2, "0")}:${String(t++ % 60).padStart(2, "0")}.000Z`;
const u = (i, o, r = 0, w = 0) => ({ inputTokens: i, outputTokens: o, cacheReadTokens: r, cacheWriteTokens: w });
const lines = [
  { type: "start", sessionId: "reading-sample", model: "claude-sonnet-4-5", root: "/work/app", t: at() },
  { type: "title", title: "Fix the date parser's time zone bug", t: at() },
  { type: "user", t: at(), message: { role: "user", content: [{ type: "text", text: "The `parses dates` test fails **1 in 20 runs**. Find out why and fix it.\n\nSee https://example.com/issue/42 for the report." }] } },
  { type: "assistant", step: 1, t: at(), costUsd: 0.0123, response: { content: [
    { type: "thinking", thinking: "The test builds a local time; on a machine in a zone with DST the hour may not exist. Read the test first.", signature: "sig-a" },
    { type: "text", text: "I'll read the test and the parser first." },
    { type: "tool_use", id: "toolu_r1", name: "read_file", input: { path: "src/parser.test.ts" } } ], usage: u(2100, 120, 0, 1800) } },
  { type: "tool_results", t: at(), message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_r1", content: "it(\"parses dates\", () => {\n  expect(parse(\"2026-03-29T01:30\")).toEqual(local(2026, 3, 29, 1, 30));\n});" }] }, calls: [{ toolUseId: "toolu_r1", name: "read_file", durationMs: 4 }] },
  { type: "assistant", step: 2, t: at(), costUsd: 0.0210, response: { content: [
    { type: "text", text: "## What is wrong\n\n`2026-03-29T01:30` does not exist in *Europe/London*: clocks jump from 01:00 to 02:00. The parser builds a **local** time, so:\n\n1. on a UTC machine the test passes;\n2. in London it gets `02:30`.\n\nThe fix is to parse in UTC:\n\n```ts\nexport function parse(text: string): Date {\n  const [date, time] = text.split(\"T\");\n  return new Date(`${date}T${time}Z`); // always UTC\n}\n```" },
    { type: "tool_use", id: "toolu_e1", name: "edit_file", input: { path: "src/parser.ts", old: "export function parse(text: string): Date {\n  return new Date(text);\n}", new: "export function parse(text: string): Date {\n  const [date, time] = text.split(\"T\");\n  return new Date(`${date}T${time}Z`); // always UTC\n}" } } ], usage: u(300, 260, 3900, 0) } },
  { type: "tool_results", t: at(), message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_e1", content: "ok: 1 edit applied" }] }, calls: [{ toolUseId: "toolu_e1", name: "edit_file", durationMs: 9 }] },
  { type: "assistant", step: 3, t: at(), costUsd: 0.0101, response: { content: [{ type: "tool_use", id: "toolu_s1", name: "screenshot", input: { url: "http://localhost:5173/calendar" } }], usage: u(200, 40, 4200, 0) } },
  { type: "tool_results", t: at(), message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_s1", content: [{ type: "text", text: "The calendar after the fix:" }, { type: "image", source: { type: "base64", media_type: "image/png", data: png } }] }] }, calls: [{ toolUseId: "toolu_s1", name: "screenshot", durationMs: 900 }] },
  { type: "assistant", step: 4, t: at(), costUsd: 0.0082, response: { content: [{ type: "tool_use", id: "toolu_b1", name: "bash", input: { command: "npm test -- parser" } }], usage: u(150, 30, 4400, 0) } },
  { type: "tool_results", t: at(), message: { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_b1", content: "PASS src/parser.test.ts\n  ✓ parses dates (3 ms)\n\nTests: 14 passed, 14 total" }] }, calls: [{ toolUseId: "toolu_b1", name: "bash", durationMs: 2100 }] },
  { type: "assistant", step: 5, t: at(), costUsd: 0.0064, response: { content: [{ type: "text", text: "Fixed: `parse` now reads times as UTC, and the test passes in every zone.\n\n| before | after |\n|---|---|\n| 1 in 20 runs fail | 0 of 200 fail |" }], usage: u(120, 60, 4500, 0) } },
  { type: "end", stopReason: "end_turn", steps: 5, t: at() },
];
writeFileSync(process.argv[2], lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
