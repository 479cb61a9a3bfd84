// "Copy transcript": the whole transcript as Markdown, redacted, the
// document `export --format md` writes, built by the worker from the core's entries
// (render.js's transcriptDocument). The reading mode draws only the entries
// on screen, so a select-all copy would reach only those.
import { $, el, view, send, main, n } from "./viewer-core.js";

let waiting = null;
main.w.addEventListener("message", ({ data }) => {
  if (data.type !== "markdown" || !waiting) return;
  waiting(data);
  waiting = null;
});

/** The open session's Markdown, from the worker. */
function transcriptText() {
  const load = view.load;
  return new Promise((resolve) => {
    waiting = resolve;
    send({ type: "markdown", load });
  }).then((d) => {
    if (d.load !== view.load || typeof d.text !== "string") throw new Error("another session was opened");
    return d.text;
  });
}

$("copy-transcript").addEventListener("click", async () => {
  if (!view.active || document.body.dataset.loaded !== view.active) return void ($("status").textContent = "Open a session first: the copy is its whole transcript.");
  $("status").textContent = "Copying the transcript…";
  const text = transcriptText();
  try {
    // A ClipboardItem takes the text still being made, within the click's
    // user activation (a long transcript takes longer than it lasts).
    if (typeof ClipboardItem !== "undefined" && navigator.clipboard?.write) {
      await navigator.clipboard.write([new ClipboardItem({ "text/plain": text.then((t) => new Blob([t], { type: "text/plain" })) })]);
    } else await navigator.clipboard.writeText(await text);
    const t = await text;
    $("status").textContent = `Copied the transcript: ${n(view.entries.length)} entries, ${n(t.length)} characters of Markdown, secrets redacted.`;
    document.body.dataset.copied = String(t.length);
  } catch (e) {
    const t = await text.catch(() => null);
    if (t === null) return void ($("status").textContent = `Could not copy the transcript: ${e.message}`);
    // The clipboard refused (no permission, an old browser): the same text as a file.
    const a = el("a", { href: URL.createObjectURL(new Blob([t], { type: "text/markdown" })), download: `${view.active}.md`, text: "download it as Markdown" });
    $("status").replaceChildren(`The clipboard refused the transcript (${e.message}): `, a);
  }
});
