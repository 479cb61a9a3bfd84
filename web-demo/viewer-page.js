// The page around the transcript: the colour scheme (the system's, or the
// reader's choice, kept in localStorage), the sessions sidebar and summary
// folded on a narrow screen, and the keyboard: `/` to search, `?` for help.
import { $, el, view } from "./viewer-core.js";

// ---- Light and dark -----------------------------------------------------------------

const THEMES = ["auto", "dark", "light"];
const system = matchMedia("(prefers-color-scheme: dark)");
let theme = "auto";
try {
  theme = localStorage.getItem("garuda-theme") ?? "auto";
} catch {}
function applyTheme() {
  const dark = theme === "dark" || (theme === "auto" && system.matches);
  document.documentElement.classList.toggle("dark", dark);
  $("theme").textContent = theme === "auto" ? "◐" : dark ? "☾" : "☀";
  $("theme").title = `colours: ${theme === "auto" ? `as the system says (${dark ? "dark" : "light"})` : theme} (click to change)`;
}
$("theme").addEventListener("click", () => {
  theme = THEMES[(THEMES.indexOf(theme) + 1) % THEMES.length];
  try {
    localStorage.setItem("garuda-theme", theme);
  } catch {}
  applyTheme();
});
system.addEventListener("change", applyTheme);
applyTheme();

// ---- A narrow screen ----------------------------------------------------------------

$("toggle-sessions").addEventListener("click", () => document.body.classList.toggle("show-sessions"));
// Choosing a session on a phone hides the list again.
$("sessions").addEventListener("click", (e) => e.target.closest("a") && document.body.classList.remove("show-sessions"));
// The summary shows its first line until tapped (a narrow screen only: CSS).
$("summary").addEventListener("click", (e) => {
  if (!e.target.closest("a, summary, details")) $("summary").classList.toggle("open");
});

// ---- Keyboard -------------------------------------------------------------------------

const KEYS = [
  ["/ or Ctrl+F (⌘F)", "search the transcript: every entry, not only those drawn"],
  ["Enter / Shift+Enter", "next / previous hit (in the search box)"],
  ["Esc", "leave the search box, close this help"],
  ["j / k", "next / previous entry (reading mode)"],
  ["?", "this help"],
];
function focusSearch() {
  const box = view.mode === "index" ? $("index-search") : $("search");
  box.focus();
  box.select();
}
function toggleHelp(show = $("help") === null) {
  $("help")?.remove();
  if (!show) return;
  const box = el("div", { id: "help", role: "dialog", "aria-label": "keyboard shortcuts" }, el("h3", { text: "Keyboard" }));
  const table = el("table");
  for (const [k, what] of KEYS) table.append(el("tr", {}, el("td", {}, el("kbd", { text: k })), el("td", { text: what })));
  box.append(table, el("p", { class: "muted", text: "Times are shown in UTC, as the sessions record them." }), el("button", { type: "button", text: "Close", onclick: () => toggleHelp(false) }));
  document.body.append(box);
}
$("help-button").addEventListener("click", () => toggleHelp());
document.addEventListener("keydown", (e) => {
  const typing = ["INPUT", "TEXTAREA", "SELECT"].includes(e.target.tagName) || e.target.isContentEditable;
  if (e.key === "Escape") return toggleHelp(false);
  // Ctrl+F / Cmd+F: the viewer's search, which covers every entry (the
  // browser's find sees only the entries the virtual list has drawn).
  if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === "f") {
    e.preventDefault();
    return focusSearch();
  }
  if (typing || e.ctrlKey || e.metaKey || e.altKey) return;
  if (e.key === "/") {
    e.preventDefault();
    focusSearch();
  } else if (e.key === "?") {
    e.preventDefault();
    toggleHelp();
  }
});
