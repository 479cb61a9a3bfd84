// The viewer's worker: reads journals in chunks into the core, which builds
// the transcript (entries, pairs, fates, figures); this file only moves it
// to the page and renders entries to HTML with the reading mode's renderer.
// No record is parsed here: one model, in the core.
// The core (the wasm) loads while the page asks for a journal and its first
// bytes arrive: reading starts before it is ready, and waits for it only to
// feed what was read.
import { Sender } from "./worker-send.js";

let Journal, Redactor, formatCost, budgetNote, addCosts;
const ready = import("../web/index.js").then((m) => ({ Journal, Redactor, formatCost, budgetNote, addCosts } = m));
// The renderer (markdown-it, highlight.js) loads when the first entry is
// drawn, not before the journal starts to be read.
let renderer = null;
const loadRenderer = () => (renderer ??= import("./render.js"));

const post = (msg) => self.postMessage(msg);

// `serve`'s token, from the page (viewer.js): a header on requests to this
// origin only, and handed to reader.js with each source.
let serveToken = null;
const sameOrigin = (url) => new URL(url, self.location.href).origin === self.location.origin;
const fetchServed = (url) => fetch(url, serveToken && sameOrigin(url) ? { headers: { "x-garuda-token": serveToken } } : {});

// The session on screen: its journal (kept: entries are read on demand).
let current = null; // { journal, load, source, follow, foreign, end, sender }
// The last file read whole and settled, with its inline runs kept
// (`keepRuns`: a Claude Code 1.x file's Task runs): a run of it opens, or
// draws under its call, from that read (`runJournal`) instead of reading
// the whole file again for each run. Kept while its runs are on screen;
// freed when another file opens.
let parent = null; // { source, journal }

/** Whether two sources are the same file: the same dropped File, or the same address. */
const sameFile = (a, b) => (a.file ? a.file === b.file : a.url !== undefined && a.url === b.url);

/** The run `source.run` read from the kept read of its file, or null (its file is read again). */
function keptRun(source) {
  if (!source.run || !parent || !sameFile(source, parent.source)) return null;
  return parent.journal.runJournal(source.run) ?? null;
}

/** Frees the session on screen's journal, and the kept file's unless `keep` is it. */
function release(keep) {
  const journals = new Set([current?.journal, parent?.journal]);
  for (const j of journals) if (j && j !== keep) j.free();
  if (parent && parent.journal !== keep) parent = null;
  current = null;
}

// Entries the page shows before the journal is read to the end.
const FIRST = 60;

/**
 * Reads a source on reader.js's thread and calls onBytes for each chunk, in
 * order. An exception from onBytes (a newer open, say) stops the reading.
 * Resolves with what the server said of the file (its end offset and
 * whether its writer still runs), for following it.
 */
function readSource(source, onBytes) {
  return new Promise((resolve, reject) => {
    const reader = new Worker(new URL("./reader.js", import.meta.url));
    let stopped = false;
    // Chunks taken, acknowledged so the reader stays only a few ahead.
    let taken = 0;
    const stop = (settle, value) => {
      stopped = true;
      reader.terminate();
      settle(value);
    };
    reader.onmessage = ({ data }) => {
      if (stopped) return;
      if (data.error) return stop(reject, new Error(data.error));
      if (data.end) return stop(resolve, data.meta ?? {});
      try {
        // A chunk the core has read goes back to the reader, to be filled
        // again (reader.js's pool); one kept for later stays here.
        if (onBytes(data.bytes, data.done, data.total)) {
          const buffer = data.bytes.buffer;
          reader.postMessage({ taken: ++taken, buffer }, [buffer]);
        } else reader.postMessage({ taken: ++taken });
      } catch (e) {
        stop(reject, e);
      }
    };
    reader.onerror = (e) => (e.preventDefault(), stop(reject, new Error(`could not read the journal: ${e.message}`)));
    reader.postMessage(serveToken && source.url ? { ...source, token: serveToken } : source);
  });
}

let loading = 0;
class Superseded extends Error {}

/** Bytes a..b of the source on screen: a slice of its file, or a range the server sends. */
async function readRange(c, a, b) {
  if (c.source.file) return new Uint8Array(await c.source.file.slice(a, b).arrayBuffer());
  const url = new URL(c.source.url, self.location.href);
  url.searchParams.set("from", String(a));
  url.searchParams.set("to", String(b));
  return new Uint8Array(await (await fetchServed(url)).arrayBuffer());
}

/** The text of some lines of the source on screen, as [line, text] pairs. */
async function readLines(c, numbers) {
  const decoder = new TextDecoder();
  return Promise.all(
    numbers.map(async (n) => {
      // Where the line is in the file: the core noted each line's start as
      // the bytes passed (a lean journal).
      const [a, b] = c.journal.lineRange(n) ?? [0, 0];
      return [n, decoder.decode(await readRange(c, a, b))];
    }),
  );
}

/** One entry whole, with the lines its forgotten messages are on. */
async function entryOf(c, index) {
  const need = c.journal.transcriptLinesFor(index);
  return c.journal.transcriptEntry(index, need.length ? await readLines(c, Array.from(need)) : undefined);
}

/** Calls `each(lineNumber, text)` for every line of the source, read again. */
async function eachLine(c, each) {
  const decoder = new TextDecoder();
  let partial = "";
  let n = 0;
  await readSource(c.source, (bytes) => {
    const parts = (partial + decoder.decode(bytes, { stream: true })).split("\n");
    partial = parts.pop();
    for (const p of parts) each(++n, p);
  });
  partial += decoder.decode();
  if (partial !== "") each(++n, partial);
}

/** Whether the history forgot its messages (a Garuda journal read lean). */
const lean = (c) => c.journal.format === "garuda";

/** The figures the summary shows, from the core (O(1) of the conversation). */
function stats(journal) {
  const f = journal.figures();
  return {
    messages: f.messageCount,
    prompts: f.prompts,
    steps: f.steps,
    model: f.model ?? null,
    title: f.title ?? null,
    firstPrompt: f.firstPrompt ?? null,
    format: f.format ?? null,
    sessionId: f.sessionId ?? null,
    cost: formatCost(f),
    budgetNote: budgetNote(f),
    usage: f.usage,
    costUsd: f.costUsd,
    contextTokens: f.contextTokens,
    tornTail: f.tornTail,
    usageByDay: f.usageByDay,
    report: journal.resumeReport(),
    // Warnings and subagent runs, without the page reading every entry.
    notes: journal.transcriptNotes(),
  };
}

async function open(source, load) {
  loading = load;
  // A run of the kept file comes from its read: nothing is read again.
  const derived = keptRun(source);
  release(derived ? parent.journal : null);
  const marks = { start: performance.now() };
  // Where the worker's time went (bench/viewer.mjs prints it): the core
  // reading chunks, building entries from them, writing them for the page.
  const spent = { feed: 0, entries: 0, draft: 0 };
  let journal = null;
  let first = false;
  let meta;
  // Chunks read before the core is ready wait here.
  const early = [];
  // Entries the page has, unsettled: it takes them while the rest is read.
  const sender = new Sender((msg, transfer) => self.postMessage(msg, transfer), load);
  const take = (bytes, done, total) => {
    const t0 = performance.now();
    journal.feed(bytes);
    const t1 = performance.now();
    spent.feed += t1 - t0;
    // Entries are built as chunks arrive (transcriptLength extends the
    // core's transcript), and the first screen is sent as soon as there is one.
    const length = journal.transcriptLength;
    const t2 = performance.now();
    spent.entries += t2 - t1;
    if (length > 0 && !first) {
      first = true;
      marks.first = performance.now();
      post({ type: "first", load, entries: journal.transcript(0, FIRST), marks: { start: marks.start + performance.timeOrigin, chunk: marks.chunk + performance.timeOrigin, first: marks.first + performance.timeOrigin } });
    }
    sender.draft(length);
    spent.draft += performance.now() - t2;
    post({ type: "progress", load, done, total });
  };
  const started = ready.then(() => {
    if (loading !== load || derived) return;
    // `run`: a child run inside the file (a Claude Code sidechain).
    journal = sender.journal = new Journal({ history: true, lean: true, ...(source.run ? { run: source.run } : { keepRuns: true }) });
    for (const chunk of early.splice(0)) take(...chunk);
  });
  if (derived) {
    // Read and settled already: the page gets every entry below.
    journal = sender.journal = derived;
    meta = {};
  } else {
    try {
      meta = await readSource(source, (bytes, done, total) => {
        if (loading !== load) throw new Superseded();
        marks.chunk ??= performance.now();
        if (!journal) return void early.push([bytes, done, total]);
        take(bytes, done, total);
        return true;
      });
      await started;
      if (loading !== load) throw new Superseded();
    } catch (e) {
      journal?.free();
      if (e instanceof Superseded) return;
      throw e;
    }
  }
  // A journal still being written keeps its torn last line pending: it is
  // waited for, not reported, until it is complete or its writer is gone.
  const follow = Boolean(source.url) && meta.writer === "live";
  let end = meta.end ?? null;
  const foreign = journal.format !== null && journal.format !== "garuda";
  if (follow && foreign) {
    // Other agents' readers settle a session at its end (a branch, a
    // streamed response): a live one is read again whole, up to its last
    // complete line, whenever it grows.
    journal.free();
    ({ journal, end } = await wholeForeign(source, true));
    if (loading !== load) return journal.free();
  } else if (!follow && !derived) journal.finish();
  marks.read = performance.now();
  sender.journal = journal;
  // Followed, each update posts only the patch's slices that changed.
  if (follow) sender.follow();
  current = { journal, load, source, follow, foreign, end, sender };
  // A file read whole and settled keeps its runs for the next opens.
  if (!derived && !follow && !source.run) parent = { source, journal };
  const total = journal.transcriptLength;
  // The page has the entries, unsettled: what settling decided is all it
  // still needs. Another agent's session read again whole, or one whose
  // settling moved entries, is sent whole.
  if (follow && foreign) sender.whole(total);
  else sender.update();
  marks.indexed = performance.now();
  for (const k in marks) marks[k] += performance.timeOrigin;
  post({ type: "ready", load, total, stats: stats(journal), marks, spent, follow });
  if (follow) setTimeout(() => poll(load), 1000);
  return total;
}

/**
 * Another agent's session read whole from `source.url`; while its writer
 * runs, only up to its last complete line. A child run inside the file (a
 * sidechain, `source.run`) is read again as that run, not as the file's
 * main conversation.
 */
async function wholeForeign(source, live) {
  const res = await fetchServed(source.url);
  const bytes = new Uint8Array(await res.arrayBuffer());
  const cut = live ? bytes.lastIndexOf(10) + 1 : bytes.length;
  const journal = new Journal({ history: true, ...(source.run ? { run: source.run } : {}) });
  journal.feed(bytes.subarray(0, cut));
  journal.finish();
  return { journal, end: Number(res.headers.get("x-garuda-end")) || bytes.length };
}

/** Following a journal that is still being written: what it gained since. */
async function poll(load) {
  const c = current;
  if (!c || c.load !== load || loading !== load || !c.follow) return;
  try {
    const url = new URL(c.source.url, self.location.href);
    url.searchParams.set("from", String(c.end ?? 0));
    const res = await fetchServed(url);
    if (current !== c) return;
    if (res.ok) {
      const bytes = new Uint8Array(await res.arrayBuffer());
      if (current !== c) return;
      const end = Number(res.headers.get("x-garuda-end"));
      if (Number.isFinite(end)) c.end = end;
      const before = c.journal.transcriptLength;
      const gone = res.headers.get("x-garuda-writer") !== "live";
      if (c.foreign && (bytes.length || gone)) {
        const again = await wholeForeign(c.source, !gone);
        if (current !== c) return again.journal.free();
        c.journal.free();
        c.journal = again.journal;
        c.end = again.end;
      } else if (bytes.length) {
        c.journal.feed(bytes);
      }
      if (gone) {
        if (!c.foreign) c.journal.finish();
        c.follow = false;
      }
      if (bytes.length || gone) {
        // Another agent's session, read again whole: all of it again; ours: what it gained.
        c.sender.journal = c.journal;
        if (c.foreign) c.sender.whole();
        else c.sender.update();
        post({ type: "update", load, total: c.journal.transcriptLength, stats: stats(c.journal), follow: c.follow, before });
      }
    }
  } catch {}
  if (c.follow) setTimeout(() => poll(load), 1000);
}

/** Reading-mode HTML of some entries. */
async function render(indices) {
  const { entryHtml } = await loadRenderer();
  const c = current;
  if (!c) return [];
  const out = [];
  for (const index of indices) {
    const d = await entryOf(c, index);
    if (current !== c) return [];
    out.push({ index, html: d ? entryHtml(d, { hidePaired: true, nest: true, anchor: (i) => `#e=${i}` }) : "" });
  }
  return out;
}

/** A subagent's run, read whole and rendered, to nest under the call that started it. */
async function renderChild(source, limit = 400) {
  const { entryHtml } = await loadRenderer();
  const kept = keptRun(source);
  const journal = kept ?? new Journal({ history: true, ...(source.run ? { run: source.run } : {}) });
  try {
    if (!kept) {
      await readSource(source, (bytes) => journal.feed(bytes));
      journal.finish();
    }
    const total = journal.transcriptLength;
    const html = [];
    for (const e of journal.transcript(0, total)) {
      if (html.length >= limit) break;
      if (e.underCalls) continue;
      html.push(entryHtml(journal.transcriptEntry(e.index), { hidePaired: true }));
    }
    return { html, total };
  } finally {
    journal.free();
  }
}

/**
 * The whole transcript as Markdown, the document `export --format md` writes
 * (render.js's transcriptDocument over the core's entries), for the page's
 * "Copy transcript": the list on screen is virtual, so a select-all copy
 * reaches only the drawn rows. Entries whose messages a lean journal forgot
 * are read again a batch at a time, each batch's lines in one request.
 */
async function markdown() {
  const { transcriptDocument } = await loadRenderer();
  const c = current;
  if (!c) return null;
  const f = c.journal.figures();
  const info = { title: f.title ?? f.firstPrompt, sessionId: f.sessionId, model: f.model, cost: formatCost(f), budgetNote: budgetNote(f) };
  const details = [];
  const total = c.journal.transcriptLength;
  for (let from = 0; from < total; from += 2000) {
    const shown = c.journal.transcript(from, from + 2000).filter((e) => !e.underCalls);
    const need = new Map(shown.map((e) => [e.index, Array.from(c.journal.transcriptLinesFor(e.index))]));
    const text = new Map(await readLineSpan(c, [...new Set([...need.values()].flat())]));
    for (const e of shown) {
      const lines = need.get(e.index).map((n) => [n, text.get(n) ?? ""]);
      const d = c.journal.transcriptEntry(e.index, lines.length ? lines : undefined);
      if (current !== c) return null;
      if (d) details.push(d);
    }
  }
  // Redacted, as `export` writes by default: a copy leaves the page for a
  // chat or an issue. The page has no environment, so the patterns and
  // secret-looking names are what it knows (export adds the CLI's env values).
  const redactor = new Redactor({ env: {} });
  try {
    return transcriptDocument(info, details, (s) => redactor.redact(s));
  } finally {
    redactor.free();
  }
}

/** Lines of the source on screen, as [line, text] pairs: one read from the first line's start to the last's end. */
async function readLineSpan(c, numbers) {
  if (numbers.length === 0) return [];
  const ranges = numbers.map((n) => [n, c.journal.lineRange(n) ?? [0, 0]]);
  const a = Math.min(...ranges.map(([, r]) => r[0]));
  const b = Math.max(...ranges.map(([, r]) => r[1]));
  const bytes = await readRange(c, a, b);
  const decoder = new TextDecoder();
  return ranges.map(([n, [x, y]]) => [n, decoder.decode(bytes.subarray(x - a, y - a))]);
}

/** The detail panel of the list mode: the whole entry, unfolded. */
async function detail(index) {
  const { entryHtml } = await loadRenderer();
  const d = current ? await entryOf(current, index) : null;
  return d ? { index, line: d.line, html: entryHtml(d, {}) } : null;
}

/**
 * Entries whose record a Redactor would change now, and those marked
 * redacted. A Garuda journal's lines are read again and checked as written
 * (`lines`, mapped to entries by the page); another agent's translated
 * messages are checked as the core holds them.
 */
async function redactionCheck() {
  const c = current;
  const j = c?.journal;
  const redactor = new Redactor({ env: {} });
  const would = [];
  const wouldLines = [];
  const marked = [];
  const total = j?.transcriptLength ?? 0;
  try {
    for (let from = 0; from < total; from += BATCH) {
      for (const e of j.transcript(from, from + BATCH)) {
        if (e.redacted) marked.push(e.index);
        if (e.kind !== "message" || lean(c)) continue;
        const d = j.transcriptEntry(e.index);
        const texts = [];
        for (const p of d?.parts ?? []) texts.push(p.text ?? "", p.input ?? "", p.result?.text ?? "");
        const text = texts.join("\n");
        if (redactor.redact(text) !== text) would.push(e.index);
      }
    }
    if (c && lean(c)) {
      await eachLine(c, (n, line) => {
        try {
          if (redactor.redactLine(line.replace(/\r$/, "")).changed) wouldLines.push(n);
        } catch {}
      });
    }
  } finally {
    redactor.free();
  }
  return { would, wouldLines, marked };
}

/** Entries whose text holds `query`: the core searches what it keeps; a lean journal's lines are read again. */
async function search(query) {
  const c = current;
  if (!c || query === "") return { hits: [], lines: [] };
  const hits = Array.from(c.journal.searchTranscript(query));
  const lines = [];
  if (lean(c)) {
    const q = query.toLowerCase();
    await eachLine(c, (n, line) => line.toLowerCase().includes(q) && lines.push(n));
  }
  return { hits, lines };
}

/** One session's row of the sessions index, read whole by the core. */
async function summary(source, runs = []) {
  const figures = async (src) => {
    const journal = new Journal({});
    try {
      await readSource(src, (bytes) => journal.feed(bytes));
      journal.finish();
      return journal.figures();
    } finally {
      journal.free();
    }
  };
  const tokensOf = (u) => u.inputTokens + u.outputTokens + u.cacheReadTokens + u.cacheWriteTokens;
  try {
    const f = await figures(source);
    let tokens = tokensOf(f.usage);
    const parts = [f];
    const usageByDay = [...f.usageByDay];
    // A Claude Code session's subagents write their own files, which its
    // file leaves out: counted in it, as `list` and `usage --by session`
    // count them (a Garuda journal already counts each child's report).
    // The core adds the costs (an unknown or unread run: a lower bound).
    if (f.format === "claude-code") {
      for (const run of runs) {
        const k = await figures(run).catch(() => null);
        if (k === null) parts.push(null);
        if (!k?.format) continue;
        tokens += tokensOf(k.usage);
        parts.push(k);
        usageByDay.push(...k.usageByDay);
      }
    }
    const cost = addCosts(parts);
    return {
      title: f.title ?? null,
      prompt: f.firstPrompt ?? null,
      format: f.format,
      model: f.model ?? null,
      prompts: f.prompts,
      steps: f.steps,
      tokens,
      costUsd: cost.costUsd,
      cost: formatCost(cost),
      usageByDay,
      date: usageByDay.map((d) => d.day).filter(Boolean).sort().at(-1) ?? null,
    };
  } catch (e) {
    return { error: String(e?.message ?? e) };
  }
}

/** Sessions whose text holds `query` (case ignored), with the number of hits. */
async function searchSessions(sources, query, token) {
  const q = query.toLowerCase();
  for (const { name, source } of sources) {
    if (token !== searchToken) return;
    const decoder = new TextDecoder();
    let hits = 0;
    let tail = "";
    await readSource(source, (bytes) => {
      const text = tail + decoder.decode(bytes, { stream: true }).toLowerCase();
      for (let i = text.indexOf(q); i !== -1; i = text.indexOf(q, i + q.length)) hits++;
      tail = text.slice(Math.max(0, text.length - q.length + 1));
    });
    post({ type: "session-hits", query, name, hits });
  }
  post({ type: "session-hits-done", query });
}
let searchToken = 0;

self.onmessage = async ({ data }) => {
  // Taken at once: the messages after it may not wait for the core.
  if (data.type === "token") return void (serveToken = data.token);
  try {
    if (data.type !== "open") await ready;
    if (data.type === "open") await open(data.source, data.load);
    else if (data.type === "render") post({ type: "rendered", load: current?.load, items: await render(data.indices) });
    else if (data.type === "detail") post({ type: "detail", detail: await detail(data.index) });
    else if (data.type === "markdown") post({ type: "markdown", load: data.load, text: await markdown() });
    else if (data.type === "child") post({ type: "child-rendered", key: data.key, name: data.name, ...(await renderChild(data.source)) });
    else if (data.type === "search") post({ type: "hits", query: data.query, ...(await search(data.query)) });
    else if (data.type === "redaction") post({ type: "redaction", ...(await redactionCheck()) });
    else if (data.type === "summary") post({ type: "summary", name: data.name, row: await summary(data.source, data.runs) });
    else if (data.type === "search-sessions") await searchSessions(data.sources, data.query, (searchToken = data.token));
    else if (data.type === "stop-follow") current && (current.follow = false);
  } catch (e) {
    post({ type: "error", load: data.load, message: String(e?.message ?? e) });
  }
};
post({ type: "alive" });
