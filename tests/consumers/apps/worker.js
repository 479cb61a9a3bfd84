// A module Web Worker: the default entry (top-level await) works there.
import { rebuildState, formatCost, Journal, Redactor } from "@garuda/session";
import { run } from "./check.js";

postMessage(run({ rebuildState, formatCost, Journal, Redactor }));
