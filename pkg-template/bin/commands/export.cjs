// `garuda-session export <file|folder> --format md|html`: the whole transcript, readable and redacted.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
// Built from web-demo/export.js (.ci/build); it renders with the viewer's
// viewer/render.js, loaded by loadRenderer() before the first transcript.
const { transcriptMarkdown, transcriptHtml, folderIndexHtml, loadRenderer } = require("../transcript.cjs");
const { imageWriter } = require("../export-files.cjs");
const { UsageError, parseArgs, REDIS, withRedis, journalOf, readOptions, known, redactorFor, session, FORMATS } = require("../cli.cjs");
const { walkSessions } = require("../folders.cjs");
const { runOpener, childFilesOf } = require("../export-runs.cjs");
const { withRunsCost } = require("./list.cjs");

const HELP = `usage: garuda-session export <file> --format md|html [-o out] [--rules rules.json] [--live] [--no-redact] [--from f] [--prices p.json]
       garuda-session export <folder> --format md|html -o <out folder>
  the whole transcript, readable and redacted (a folder: every session, a file each)
  --live: only what the model sees now; --from forces the input's format
  --redis URL [--prefix p]: a session on Redis (RedisSessionStore), its id where the file goes.`;

function journalOfText(text, options = {}) {
  const journal = new session.Journal({ history: true, ...options });
  journal.feed(text);
  journal.finish();
  return journal;
}

/** The transcript of a journal (read with `history: true`); the caller frees it. */
function transcriptOf(journal, format, o = {}) {
  // Redacted unless --no-redact: an export is a file that leaves the machine.
  const redactor = o.noRedact ? null : redactorFor(o);
  const redact = redactor ? (text) => redactor.redact(text) : (text) => text;
  const f = journal.figures();
  const info = { title: f.title ?? f.firstPrompt, sessionId: f.sessionId, model: f.model, cost: o.cost ?? session.formatCost(f), budgetNote: session.budgetNote(f) };
  return (format === "md" ? transcriptMarkdown : transcriptHtml)(journal, info, redact, { live: o.live === true, childHref: o.childHref, image: o.image, runOf: o.runOf });
}

/** The transcript of a journal (read with `history: true`), then frees it. */
function exportTranscript(journal, format, o = {}) {
  try {
    return transcriptOf(journal, format, o);
  } finally {
    journal.free();
  }
}

/**
 * `journalOf` for an export: each file through the Redactor line by line
 * before it is read, unless --no-redact. The renderer redacts every string
 * it draws too, but a reader's views split a tool's text into lines (a
 * Read's numbered lines, an Edit's diff), and a private key's BEGIN and
 * END on different lines were each redacted alone: the key's body went
 * out (found by a red-team review).
 */
function readerFor(o) {
  const redactor = o.noRedact ? null : redactorFor(o);
  return (file, options) => journalOf(file, options, redactor);
}

async function exportCommand(args) {
  const o = parseArgs(args, { "--format": "format", "-o": "out", "--rules": "rules", "--from": "from", "--prices": "prices", "--vertex-region": "vertexRegion", "--live": "live!", "--no-redact": "noRedact!", ...REDIS });
  if (o.format !== "md" && o.format !== "html") throw new UsageError("--format takes md or html");
  await loadRenderer();
  // The whole transcript (compacted and undone turns marked), or with --live what the model sees now.
  let journal;
  // Each Task call's subagent run is written under it (export-runs.cjs finds and reads them).
  // The session is read once, keeping its inline runs (a Claude Code 1.x
  // Task's, inside its file): each is drawn from what was kept.
  let runOf;
  const read = readerFor(o);
  const openFile = (file) => read(file, { ...readOptions(o, "from"), history: true });
  if (o.redis !== undefined) {
    if (o._[0] === undefined) throw new UsageError("give a session id");
    const text = await withRedis(o, (store) => store.text(o._[0]));
    journal = journalOfText(text, { keepRuns: true });
    runOf = runOpener({ open: (run) => journal.runJournal(run), openFile });
  } else {
    if (o._[0] === undefined) throw new UsageError("give a session file");
    if (fs.existsSync(o._[0]) && fs.statSync(o._[0]).isDirectory()) return exportFolder(o);
    journal = read(o._[0], { ...readOptions(o, "from"), history: true, keepRuns: true });
    if (journal.format === null) {
      journal.free();
      known({ format: null }, o._[0]);
    }
    // Read as a format but nothing of a session in it (`--from codex` on a
    // Claude Code file, Gemini CLI's logs.json): refused as a file in no
    // known format is, not exported as an empty page with exit 0.
    if (journal.figures().messageCount === 0 && journal.state().sessionId == null) {
      const format = journal.format;
      journal.free();
      throw new UsageError(`${o._[0]}: no session in it reads as ${format}${o.from ? "" : ` (give --from to read it as another format: ${FORMATS.join(", ")})`}`);
    }
    const kids = childFilesOf(o._[0]);
    runOf = runOpener({ open: (run) => journal.runJournal(run), openFile, kids });
    // The header's cost with the subagents' files, as list and usage --by
    // session count it (their requests are in their own files, drawn here
    // under their calls): the file's own cost alone under-stated it.
    const row = { ...journal.figures(), format: journal.format };
    withRunsCost(row, kids);
    if (row.runsCounted > 0) o.cost = `${row.cost} with ${row.runsCounted} subagent run${row.runsCounted === 1 ? "" : "s"} (${session.formatCost({ ...row, costUsd: row.ownCostUsd })} its own)`;
  }
  // Markdown written to a file keeps its images as files beside it.
  const text = exportTranscript(journal, o.format, { ...o, runOf, ...(o.out && o.format === "md" ? { image: imageWriter(o.out) } : {}) });
  if (o.out) fs.writeFileSync(o.out, text, { mode: 0o600 });
  else process.stdout.write(text);
  return 0;
}

/**
 * `export <folder> --format html -o <out folder>`: every session of the
 * folder (any agent's layout, child runs included) to a file of its own,
 * at the same relative path. A run inside a session's file (a Claude Code
 * sidechain) is a child page too, in a folder named after the session, as
 * a subagent's own file would be. Files in no known format are skipped.
 */
function exportFolder(o) {
  if (!o.out) throw new UsageError("exporting a folder needs -o <output folder>");
  const top = walkSessions(o._[0]);
  const outRel = (s) => s.rel.replace(/\.jsonl?$/, `.${o.format}`);
  const redactor = o.noRedact ? null : redactorFor(o);
  const rows = [];
  let written = 0;
  let skipped = 0;
  const read = readerFor(o);
  const open = (file) => read(file, { ...readOptions(o, "from"), history: true, keepRuns: true });
  /**
   * Writes one session or child run (`journal`, read with its inline runs
   * kept; the caller frees it); gives its figures and child runs (the
   * file's and, named as the core names them, `sidechain-<id>`, the runs
   * inside it), or null for a file in no known format.
   */
  const write = (s, files, journal) => {
    if (journal.format === null) {
      skipped++;
      return null;
    }
    const target = path.join(o.out, outRel(s));
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    const dirRel = s.rel.replace(/\.jsonl?$/, "");
    const kids = [...files, ...(s.run ? [] : inlineRuns(journal)).map((id) => ({ id: `sidechain-${id}`, file: s.file, rel: `${dirRel}/sidechain-${id}.jsonl`, run: id }))];
    // A call's subagent run links the run's page: by the run's id, or the id the call names (`agent-<id>`, `…-<toolUseId>`).
    const childHref = (child) => {
      const c = kids.find((k) => k.id === child || k.id === `agent-${child}` || k.id.endsWith(`-${child}`));
      return c ? path.relative(path.dirname(outRel(s)), outRel(c)).split(path.sep).join("/") : null;
    };
    const f = journal.figures();
    const image = o.format === "md" ? imageWriter(target) : undefined;
    // The runs are drawn under their calls too (the child pages stay, linked).
    const runOf = runOpener({ open: (id) => journal.runJournal(id), openFile: open, kids: files });
    fs.writeFileSync(target, transcriptOf(journal, o.format, { ...o, childHref, image, runOf }), { mode: 0o600 });
    written++;
    return { f, kids };
  };
  /** `write`, then frees the journal. */
  const writeOnce = (s, files, journal) => {
    try {
      return write(s, files, journal);
    } finally {
      journal.free();
    }
  };
  for (const s of top) {
    const journal = open(s.file);
    try {
      const done = write(s, s.children, journal);
      if (!done) continue;
      const { f, kids } = done;
      // An inline run's page from what the session's read kept; a child file read itself.
      for (const c of kids) writeOnce(c, [], (c.run && journal.runJournal(c.run)) || read(c.file, { ...readOptions(o, "from"), history: true, ...(c.run ? { run: c.run } : { keepRuns: true }) }));
      const r = (t) => (t == null ? t : redactor ? redactor.redact(String(t)) : String(t));
      rows.push({ href: outRel(s), title: r(f.title ?? f.firstPrompt ?? s.id), format: f.format, model: r(f.model), date: f.usageByDay.map((d) => d.day).filter(Boolean).sort().at(-1) ?? "", cost: session.formatCost(f), children: kids.map((c) => ({ id: c.id, href: outRel(c) })) });
    } finally {
      journal.free();
    }
  }
  // The sessions index as a static page beside them.
  fs.writeFileSync(path.join(o.out, "index.html"), folderIndexHtml(rows, path.basename(path.resolve(o._[0]))), { mode: 0o600 });
  process.stdout.write(`${written} sessions written to ${o.out}${skipped ? ` (${skipped} files in no known format skipped)` : ""}\n`);
  return 0;
}

/** The runs inside a session's file (Claude Code sidechains) its calls started, as the core pairs them: the Task calls' ids. */
function inlineRuns(journal) {
  const ids = new Set();
  const total = journal.transcriptLength;
  for (let from = 0; from < total; from += 2000) {
    for (const e of journal.transcript(from, from + 2000)) {
      for (const t of e.tools ?? []) if (t.child?.startsWith("sidechain-")) ids.add(t.child.slice("sidechain-".length));
    }
  }
  return [...ids];
}

module.exports = { help: HELP, run: exportCommand, journalOfText, exportTranscript };
