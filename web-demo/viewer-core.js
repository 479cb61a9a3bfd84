// The viewer's shared ground: DOM helpers, the state every mode reads
// (`view`), the workers and `serve`'s token, and the allowlist the
// renderer's HTML passes (sanitize) before it is shown.
export const $ = (id) => document.getElementById(id);
export const el = (tag, props = {}, ...children) => {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
};

// `garuda-session serve`'s token: it comes in the URL's fragment (which no
// request carries), is kept in this tab's sessionStorage (one per origin,
// so per port) and goes out as a header on this origin's own requests only.
// The cookie it replaces went to every server on 127.0.0.1, whatever its port.
export const serveToken = (() => {
  const h = new URLSearchParams(location.hash.slice(1));
  const given = h.get("token");
  if (given !== null) {
    // Out of the address bar (and the history), the rest of the link kept.
    h.delete("token");
    history.replaceState(null, "", `${location.pathname}${location.search}${String(h) ? `#${h}` : ""}`);
  }
  try {
    if (given !== null) sessionStorage.setItem("garuda-serve-token", given);
    return sessionStorage.getItem("garuda-serve-token");
  } catch {
    return given; // storage refused (a sandboxed page): this load only
  }
})();
export const serveHeaders = serveToken ? { "x-garuda-token": serveToken } : {};

export function startWorker() {
  const w = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
  // The worker says "alive" once its module (and the wasm) is loaded;
  // messages sent before that could reach it before it listens.
  let ready;
  const alive = new Promise((resolve) => (ready = resolve));
  w.addEventListener("message", ({ data }) => data.type === "alive" && ready());
  // Before any other message (promise callbacks run in order), so the first fetch carries the token.
  if (serveToken) alive.then(() => w.postMessage({ type: "token", token: serveToken }));
  return { w, send: (message) => alive.then(() => w.postMessage(message)) };
}
// One worker for the session on screen, one for the sessions index (so a
// folder's summaries never wait behind a big session, nor it behind them).
// The index's starts with the first folder: a single file does not pay for it.
export const main = startWorker();
export const send = main.send;

export const view = {
  mode: "reading",
  sessions: new Map(), // name -> { file?, url?, project, children: [] }
  rows: new Map(), // sessions index: name -> summary row
  active: null,
  entries: [],
  // Each entry's first guess at its height in reading mode (viewer-reading.js
  // estimate; viewer-entries.js guesses), or null (each is guessed when asked).
  estimates: null,
  // The `sidechain-` runs settling named (the patch lists every tool's
  // child), or null when the entries were not patched: noteInlineRuns then
  // walks every entry's tools.
  sidechains: null,
  // The entries of the session on screen as they came (viewer-entries.js
  // Incoming; a followed session's updates add to it), and that Incoming
  // again when `entries` is its Proxy (each piece parsed when first read),
  // else null.
  incoming: null,
  lazy: null,
  visible: [],
  hits: [],
  hitSet: new Set(),
  hit: -1,
  query: "",
  selected: -1,
  redaction: null,
  loadStarted: 0,
  progressShown: 0, // when the progress bar was last drawn (performance.now())
  generation: 0,
  load: 0, // the newest open; replies to older ones are ignored
  pendingEntry: null, // a deep link's entry, scrolled to once loaded
  initialLink: {}, // the link the page was opened with (viewer.js sets it)
};
window.viewer = view; // for tests and the curious

export const n = (x) => Number(x ?? 0).toLocaleString("en-US");
export const money = (x) => (typeof x === "number" ? `$${x.toFixed(x < 1 ? 4 : 2)}` : "unknown");

// ---- Sanitising the renderer's HTML ------------------------------------------

const TAGS = new Set("ARTICLE HEADER DIV SPAN A TIME SMALL B STRONG EM I DEL S P BR HR UL OL LI BLOCKQUOTE PRE CODE TABLE THEAD TBODY TR TH TD DETAILS SUMMARY H1 H2 H3 H4 H5 H6 IMG SUP SUB".split(" "));
const SAFE_HREF = /^(https?:|mailto:|#)/i;
const SAFE_IMG = /^data:image\/(png|jpeg|gif|webp);base64,[A-Za-z0-9+/=]*$/;

/**
 * The renderer's HTML as nodes, through an allowlist: known tags only, no
 * attribute but class, id, open, title, alt, rel, target, data-child, a
 * safe href and a base64 raster image. render.js already escapes all
 * journal text; this is the second wall.
 */
export function sanitize(html) {
  const t = document.createElement("template");
  t.innerHTML = html;
  const walk = (node) => {
    for (const child of [...node.children]) {
      if (!TAGS.has(child.tagName)) {
        child.replaceWith(document.createTextNode(child.textContent ?? ""));
        continue;
      }
      for (const a of [...child.attributes]) {
        const ok =
          ["class", "id", "open", "title", "alt", "data-child", "start"].includes(a.name) ||
          (a.name === "href" && child.tagName === "A" && SAFE_HREF.test(a.value.trim())) ||
          (a.name === "rel" && child.tagName === "A") ||
          (a.name === "target" && child.tagName === "A" && a.value === "_blank") ||
          (a.name === "src" && child.tagName === "IMG" && SAFE_IMG.test(a.value));
        if (!ok) child.removeAttribute(a.name);
      }
      if (child.tagName === "A") child.setAttribute("rel", "noopener noreferrer");
      if (child.tagName === "IMG" && !child.hasAttribute("src")) child.remove();
      else walk(child);
    }
  };
  walk(t.content);
  return t.content;
}
