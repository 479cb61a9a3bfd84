// The browser program of the matrix: replays a journal and redacts a secret
// with the default entry (top-level await loads the wasm), then shows the
// result on the page for the test to read. JOURNAL is replaced by the test.
import { rebuildState, formatCost, Journal, Redactor } from "@garuda/session";
import { run } from "./check.js";

document.body.dataset.result = JSON.stringify(run({ rebuildState, formatCost, Journal, Redactor }));
