// `garuda-session export <file|folder> --format md|html`: the whole transcript, readable and redacted.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
// Built from web-demo/export.js (.ci/build); it renders with the viewer's
// viewer/render.js, loaded by loadRenderer() before the first transcript.
const { transcriptMarkdown, transcriptHtml, loadRenderer } = require("../transcript.cjs");
const { UsageError, parseArgs, REDIS, withRedis, journalOf, readOptions, known, redactorFor, session } = require("../cli.cjs");
const { walkSessions } = require("../folders.cjs");

const HELP = `usage: garuda-session export <file> --format md|html [-o out] [--rules rules.json] [--live] [--no-redact] [--from f] [--prices p.json]
       garuda-session export <folder> --format md|html -o <out folder>
  the whole transcript, readable and redacted (a folder: every session, a file each)
  --live: only what the model sees now; --from forces the input's format
  --redis URL [--prefix p]: a session on Redis (RedisSessionStore), its id where the file goes.`;

function journalOfText(text) {
  const journal = new session.Journal({ history: true });
  journal.feed(text);
  journal.finish();
  return journal;
}

/** The transcript of a journal (read with `history: true`), then frees it. */
function exportTranscript(journal, format, o = {}) {
  try {
    // Redacted unless --no-redact: an export is a file that leaves the machine.
    const redactor = o.noRedact ? null : redactorFor(o);
    const redact = redactor ? (text) => redactor.redact(text) : (text) => text;
    const f = journal.figures();
    const info = { title: f.title ?? f.firstPrompt, sessionId: f.sessionId, model: f.model, cost: session.formatCost(f), budgetNote: session.budgetNote(f) };
    return (format === "md" ? transcriptMarkdown : transcriptHtml)(journal, info, redact, { live: o.live === true });
  } finally {
    journal.free();
  }
}

async function exportCommand(args) {
  const o = parseArgs(args, { "--format": "format", "-o": "out", "--rules": "rules", "--from": "from", "--prices": "prices", "--live": "live!", "--no-redact": "noRedact!", ...REDIS });
  if (o.format !== "md" && o.format !== "html") throw new UsageError("--format takes md or html");
  await loadRenderer();
  // The whole transcript (compacted and undone turns marked), or with --live what the model sees now.
  let journal;
  if (o.redis !== undefined) {
    if (o._[0] === undefined) throw new UsageError("give a session id");
    journal = journalOfText(await withRedis(o, (store) => store.text(o._[0])));
  } else {
    if (o._[0] === undefined) throw new UsageError("give a session file");
    if (fs.existsSync(o._[0]) && fs.statSync(o._[0]).isDirectory()) return exportFolder(o);
    journal = journalOf(o._[0], { ...readOptions(o, "from"), history: true });
    if (journal.format === null) {
      journal.free();
      known({ format: null }, o._[0]);
    }
  }
  const text = exportTranscript(journal, o.format, o);
  if (o.out) fs.writeFileSync(o.out, text, { mode: 0o600 });
  else process.stdout.write(text);
  return 0;
}

/**
 * `export <folder> --format html -o <out folder>`: every session of the
 * folder (any agent's layout, child runs included) to a file of its own,
 * at the same relative path. Files in no known format are skipped.
 */
function exportFolder(o) {
  if (!o.out) throw new UsageError("exporting a folder needs -o <output folder>");
  const sessions = walkSessions(o._[0]).flatMap((s) => [s, ...s.children]);
  let written = 0;
  let skipped = 0;
  for (const s of sessions) {
    const journal = journalOf(s.file, { ...readOptions(o, "from"), history: true });
    if (journal.format === null) {
      journal.free();
      skipped++;
      continue;
    }
    const target = path.join(o.out, s.rel.replace(/\.jsonl?$/, `.${o.format}`));
    fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
    fs.writeFileSync(target, exportTranscript(journal, o.format, o), { mode: 0o600 });
    written++;
  }
  process.stdout.write(`${written} sessions written to ${o.out}${skipped ? ` (${skipped} files in no known format skipped)` : ""}\n`);
  return 0;
}

module.exports = { help: HELP, run: exportCommand, journalOfText, exportTranscript };
