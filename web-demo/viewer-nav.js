// Navigation: the modes, deep links (`#session=…&e=…&mode=…`), search
// within the open session and the redaction check.
import { $, view, send } from "./viewer-core.js";
import { reading } from "./viewer-reading.js";
import { applyFilters, scrollToEntry } from "./viewer-list.js";
import { renderIndex } from "./viewer-index.js";
import { openByName } from "./viewer-sessions.js";

// ---- Modes and deep links -------------------------------------------------------

export function setMode(mode) {
  view.mode = mode;
  for (const b of document.querySelectorAll("[data-mode]")) b.classList.toggle("on", b.dataset.mode === mode);
  $("index-view").hidden = mode !== "index";
  $("middle").hidden = mode === "index";
  $("reading").hidden = mode !== "reading";
  $("list").hidden = mode !== "list";
  $("filters").hidden = mode !== "list";
  $("detail").hidden = mode !== "list";
  if (mode === "reading") reading.update();
  if (mode === "list") applyFilters();
  if (mode === "index") renderIndex();
  writeLink();
}
for (const b of document.querySelectorAll("[data-mode]")) b.addEventListener("click", () => setMode(b.dataset.mode));

/** `#session=<name>&e=<entry>&mode=<mode>`: the session and the entry on screen. */
export function deepLink() {
  const h = new URLSearchParams(location.hash.slice(1));
  const e = h.get("e");
  return { session: h.get("session"), entry: e !== null && /^\d+$/.test(e) ? Number(e) : null, mode: h.get("mode") };
}

let linkTimer = 0;
export function writeLink(entry = null) {
  if (!view.active) return; // the link the page was opened with stays until a session is on screen
  clearTimeout(linkTimer);
  linkTimer = setTimeout(() => {
    const h = new URLSearchParams();
    if (view.active && view.mode !== "index") h.set("session", view.active);
    const e = entry ?? (view.mode === "reading" ? reading.topEntry() : view.selected >= 0 ? view.selected : null);
    if (e !== null && e !== undefined && view.mode !== "index") h.set("e", String(e));
    if (view.mode !== "reading") h.set("mode", view.mode);
    history.replaceState(null, "", `${location.pathname}${location.search}#${h}`);
  }, 150);
}

window.addEventListener("hashchange", () => {
  const { session, entry } = deepLink();
  if (session && session !== view.active) openByName(session, entry);
  else if (entry !== null) goTo(entry);
});

/** Shows an entry: in reading mode at the top of the screen, in the list selected. */
export function goTo(index) {
  if (view.mode === "list") return scrollToEntry(index);
  if (view.mode !== "reading") setMode("reading");
  reading.scrollToEntry(index);
}

// ---- Search and redaction check ---------------------------------------------------------

let searchTimer = 0;
$("search").addEventListener("input", (e) => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => {
    view.query = e.target.value;
    send({ type: "search", query: view.query });
  }, 150);
});
export function goToHit() {
  const index = view.hits[view.hit];
  showHitCount();
  if (index === undefined) return;
  if (view.mode === "list") scrollToEntry(index);
  else {
    reading.scrollToEntry(index);
    reading.focusHit(index);
  }
}
/** "3 of 21": the entry on screen among the entries that hold the query. */
export function showHitCount() {
  $("hits").textContent = !view.query ? "" : view.hits.length ? `${view.hit + 1} of ${view.hits.length}` : "no match";
}
const step = (d) => {
  if (!view.hits.length) return;
  view.hit = (view.hit + d + view.hits.length) % view.hits.length;
  goToHit();
};
// Enter and Shift+Enter step through the hits (a query still being typed is searched at once).
$("search").addEventListener("keydown", (e) => {
  if (e.key === "Escape") return void e.target.blur();
  if (e.key !== "Enter") return;
  e.preventDefault();
  if (e.target.value !== view.query) {
    clearTimeout(searchTimer);
    view.query = e.target.value;
    send({ type: "search", query: view.query });
  } else step(e.shiftKey ? -1 : 1);
});
$("next-hit").addEventListener("click", () => step(1));
$("prev-hit").addEventListener("click", () => step(-1));
$("redaction").addEventListener("click", () => {
  if (view.mode !== "list") setMode("list");
  send({ type: "redaction" });
});
