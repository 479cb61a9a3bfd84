// The page that starts worker.js and shows what it posts back.
const worker = new Worker(new URL("./worker.bundle.js", import.meta.url), { type: "module" });
worker.onmessage = (e) => (document.body.dataset.result = JSON.stringify(e.data));
worker.onerror = (e) => (document.body.dataset.result = JSON.stringify({ error: e.message }));
