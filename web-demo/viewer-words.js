// The core's codes in a reader's words, shared by the page (viewer-*.js)
// and the renderer (render.js, bundled): one wording everywhere.

/** Why resume leaves thinking out, in words (the core's reason codes). */
export const DROP_WHY = {
  "model-switch": "the model changed after it (a signature binds thinking to its model)",
  "thinking-off": "thinking is off for the next request",
  "redacted-record": "the record was redacted when written, so its signature no longer matches",
  "legacy-redacted": "an old redacted record",
  unsigned: "it has no signature",
  "thinking-only": "the response held nothing but thinking",
  "after-repair": "the conversation was repaired before it (an open tool call answered)",
};
export const dropWhy = (why) => String(why ?? "").split(", ").filter(Boolean).map((w) => DROP_WHY[w] ?? w).join("; ");

/** The summary's resume line: what resuming this session sends back. */
export function resumeWords(report) {
  const dropped = Object.entries(report.thinkingDropped ?? {}).filter(([, c]) => c > 0);
  const total = dropped.reduce((s, [, c]) => s + c, 0);
  const calls = report.toolCallsAnswered?.length ?? 0;
  const text = `if resumed: ${total ? `${total} thinking ${total === 1 ? "block" : "blocks"} left out` : "all thinking is sent back"}${calls ? ` · ${calls} open tool ${calls === 1 ? "call" : "calls"} answered first` : ""}`;
  const title = dropped.map(([k, c]) => `${c} × ${DROP_WHY[k] ?? k}`).join("\n");
  return { text, title };
}
