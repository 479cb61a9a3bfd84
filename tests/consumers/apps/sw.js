// A Service Worker, bundled as an iife: no top-level await there, and no
// import.meta.url, so it takes ./init and gives init() the wasm's URL.
import init, { rebuildState, formatCost, Journal, Redactor } from "@garuda/session/init";
import { run } from "./check.js";

const ready = init(new URL("./garuda_session_bg.wasm", self.location.href));
self.addEventListener("install", (e) => e.waitUntil(ready.then(() => self.skipWaiting())));
self.addEventListener("activate", (e) => e.waitUntil(self.clients.claim()));
self.addEventListener("message", (e) => {
  e.waitUntil(ready.then(() => e.source.postMessage(run({ rebuildState, formatCost, Journal, Redactor })), (err) => e.source.postMessage({ error: String(err) })));
});
