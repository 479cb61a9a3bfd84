// The baseline: a straightforward plain-JS replay of JOURNAL.md §1–4, the way
// the TypeScript agent did it (JSON.parse per line, the obvious logic). It
// exists only so the benchmark can compare the wasm package against it.

const tokens = (u) =>
  (u?.inputTokens ?? 0) + (u?.outputTokens ?? 0) + (u?.cacheReadTokens ?? 0) + (u?.cacheWriteTokens ?? 0);

function addUsage(total, u) {
  total.inputTokens += u?.inputTokens ?? 0;
  total.outputTokens += u?.outputTokens ?? 0;
  total.cacheReadTokens += u?.cacheReadTokens ?? 0;
  total.cacheWriteTokens += u?.cacheWriteTokens ?? 0;
}

export function plainRebuildState(text) {
  const s = {
    messages: [],
    usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
    unreportedTokens: 0,
    childDebits: {},
    costUsd: 0,
    reportIncomplete: false,
    contextTokens: 0,
    steps: 0,
    prompts: 0,
    undo: [],
    redo: [],
    warnings: [],
    tornTail: false,
  };
  const addCost = (u, cost) => {
    if (s.costUsd === null) return;
    if (typeof cost === "number") s.costUsd += cost;
    else if (tokens(u) > 0) s.costUsd = null;
  };
  const response = (r, cost, reportedFlag) => {
    if ((r.usageReported ?? reportedFlag) !== false) {
      addUsage(s.usage, r.usage);
      addCost(r.usage, cost);
    }
  };
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i];
    if (line.endsWith("\r")) line = line.slice(0, -1);
    if (line.trim() === "") continue;
    let r;
    try {
      r = JSON.parse(line);
    } catch (e) {
      if (i === lines.length - 1) s.tornTail = true;
      else s.warnings.push({ line: i + 1, kind: "bad-json", message: String(e.message) });
      continue;
    }
    if (typeof r !== "object" || r === null || typeof r.type !== "string") {
      s.warnings.push({ line: i + 1, kind: "bad-record", message: "not a record" });
      continue;
    }
    switch (r.type) {
      case "start":
      case "resume":
      case "model":
        for (const k of ["sessionId", "root", "version", "model", "executor", "isolation", "limits"])
          if (r[k] !== undefined) s[k] = r[k];
        if (r.type === "resume") delete s.ended;
        break;
      case "user":
        s.messages.push(r.message);
        s.prompts++;
        break;
      case "continue":
        s.messages.push(r.message);
        break;
      case "assistant":
        s.messages.push({ role: "assistant", content: r.response.content });
        response(r.response, r.costUsd, r.usageReported);
        s.contextTokens = tokens(r.response.usage);
        if (r.step !== undefined) s.steps = r.step;
        break;
      case "tool_results":
        s.messages.push(r.message);
        for (const call of r.calls ?? []) {
          const rep = call.report;
          if (!rep) continue;
          addUsage(s.usage, rep.usage);
          addCost(rep.usage, rep.costUsd);
          if (rep.costIncomplete) s.reportIncomplete = true;
          const pending = s.childDebits[rep.childSessionId];
          if (pending !== undefined) {
            const left = Math.max(0, pending - tokens(rep.usage));
            if (left === 0) delete s.childDebits[rep.childSessionId];
            else s.childDebits[rep.childSessionId] = left;
          }
        }
        break;
      case "compaction":
        s.messages = r.messages;
        if (r.summary) response(r.summary, r.costUsd, r.usageReported);
        s.contextTokens = r.afterTokens;
        s.undo = [];
        s.redo = [];
        break;
      case "snapshot":
        s.undo.push({ tree: r.tree, messages: r.messages, prompt: r.prompt });
        s.redo = [];
        break;
      case "undo": {
        const snap = s.undo.pop();
        if (!snap) {
          s.warnings.push({ line: i + 1, kind: "empty-undo", message: "empty undo" });
          break;
        }
        s.redo.push({ snapshot: snap, after: r.after, messages: s.messages.splice(snap.messages) });
        break;
      }
      case "redo": {
        const u = s.redo.pop();
        if (!u) {
          s.warnings.push({ line: i + 1, kind: "empty-redo", message: "empty redo" });
          break;
        }
        s.messages.push(...u.messages);
        s.undo.push(u.snapshot);
        break;
      }
      case "title":
        s.title = r.title;
        break;
      case "thinking":
        s.thinking = r.choice;
        break;
      case "unreported":
        s.unreportedTokens += r.tokens;
        break;
      case "child_debit":
        s.childDebits[r.childSessionId] = (s.childDebits[r.childSessionId] ?? 0) + r.tokens;
        break;
      case "side_usage":
        response({ usage: r.usage, usageReported: r.usageReported }, r.costUsd);
        break;
      case "end":
        s.ended = { stopReason: r.stopReason, steps: r.steps };
        break;
      default:
        s.warnings.push({ line: i + 1, kind: "unknown-type", message: r.type });
    }
  }
  s.costIncomplete =
    s.unreportedTokens > 0 || s.reportIncomplete || Object.values(s.childDebits).some((t) => t > 0);
  return s;
}
