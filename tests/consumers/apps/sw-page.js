// The page that registers sw.js and asks it for the result.
navigator.serviceWorker.addEventListener("message", (e) => (document.body.dataset.result = JSON.stringify(e.data)));
navigator.serviceWorker.register("./sw.bundle.js").then(() => navigator.serviceWorker.ready).then((reg) => reg.active.postMessage("run"));
