// `garuda-session doctor <file|folder> [--fix -o <out>] [--in-place] [--redact] [--json]`:
// why another agent's session will not resume, each problem with its line,
// and a repaired copy in that agent's own format (the core's `diagnose` and
// `repair`). Exit 0 when every session would resume (with --in-place: once
// replaced), 1 when one would not, 2 on a usage error, a refused write or a
// named file in no known format.
"use strict";

const fs = require("node:fs");
const path = require("node:path");

/** A file the agent wrote this recently may still be written: --in-place
 * refuses it. Claude Code appends a line per message, tool result, progress
 * event and hook, and holds no lock or open descriptor between writes, so
 * the file's age is the one sign left; a file that changes between reading
 * and replacing is refused too (checked again just before the rename). */
const QUIET_MS = 10_000;

function sessionFiles(root) {
  const out = [];
  const walk = (dir) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile() && (e.name.endsWith(".jsonl") || e.name.endsWith(".json"))) out.push(p);
    }
  };
  walk(root);
  return out;
}

function freeBackup(file) {
  for (let i = 0; ; i++) {
    const name = i === 0 ? `${file}.bak` : `${file}.bak.${i}`;
    if (!fs.existsSync(name)) return name;
  }
}

/** The diagnosis of a file read in chunks: a file of any size, never held
 * whole (the core keeps a summary per line). */
function diagnoseInChunks(session, file, options) {
  const d = new session.Diagnoser(options);
  const fd = fs.openSync(file, "r");
  try {
    const buf = Buffer.allocUnsafe(8 << 20);
    for (let n; (n = fs.readSync(fd, buf, 0, buf.length, null)) > 0; ) d.feed(buf.subarray(0, n));
    return d.finish();
  } finally {
    fs.closeSync(fd);
    d.free();
  }
}

function describe(file, d) {
  const errors = d.problems.filter((p) => p.severity === "error").length;
  const warnings = d.problems.length - errors;
  const counts = [errors && `${errors} error${errors > 1 ? "s" : ""}`, warnings && `${warnings} warning${warnings > 1 ? "s" : ""}`]
    .filter(Boolean)
    .join(", ");
  const lines = [`${file}: ${d.resumes ? "resumes" : "will not resume"}${counts ? ` (${counts})` : ""}`];
  for (const p of d.problems) {
    lines.push(`  ${p.line ? `line ${p.line}` : "file"}: ${p.kind}${p.severity === "warning" ? " (warning)" : ""}: ${p.message}`);
  }
  return lines.join("\n");
}

module.exports = function doctor(args, { session, parseArgs, UsageError, redactorFor, known }) {
  const o = parseArgs(args, {
    "--fix": "fix!",
    "-o": "out",
    "--in-place": "inPlace!",
    "--redact": "redact!",
    "--rules": "rules",
    "--json": "json!",
    "--format": "format",
  });
  const input = o._[0];
  if (input === undefined) throw new UsageError("give a session file or a folder");
  let stat;
  try {
    stat = fs.statSync(input);
  } catch (e) {
    throw new UsageError(`${input}: ${e.code === "ENOENT" ? "no such file or folder" : e.message}`);
  }
  const fix = o.fix || o.redact || o.inPlace;
  if (fix && o.inPlace && o.out !== undefined) throw new UsageError("give -o or --in-place, not both");
  if (fix && !o.inPlace && o.out === undefined) throw new UsageError("--fix writes a copy: give -o <out> (or --in-place)");
  if (!fix && o.out !== undefined) throw new UsageError("-o needs --fix");
  const options = o.format === undefined ? {} : { format: o.format };
  const folder = stat.isDirectory();
  const files = folder ? sessionFiles(input) : [input];
  if (fix && !o.inPlace && path.resolve(o.out) === path.resolve(input)) throw new UsageError("-o is the input: use --in-place");
  const redactor = o.redact ? redactorFor(o) : null;
  const reports = [];
  let allResume = true;
  let refused = false;
  let skipped = 0;
  for (const file of files) {
    const before = fs.statSync(file);
    // A repair needs the bytes; a diagnosis alone reads the file in chunks.
    const bytes = fix ? fs.readFileSync(file) : null;
    let d;
    try {
      d = fix ? session.diagnose(bytes, options) : diagnoseInChunks(session, file, options);
    } catch (e) {
      throw new UsageError(e.message.replace(/^(diagnose\(bytes, options\)|new Diagnoser\(options\)): /, ""));
    }
    // A file in no known format: refused when named (exit 2, as every
    // command refuses it), passed over in a folder (its other files).
    if (d.format === null) {
      if (!folder) known(d, file);
      skipped++;
      continue;
    }
    // A file replaced in place by a copy that resumes now resumes: the exit
    // says so (it said 1 after "wrote x: resumes"). A copy written with -o
    // leaves the input as it was, and the exit is the input's.
    let resumes = d.resumes;
    const report = { file, ...d };
    if (!o.json) process.stdout.write(describe(file, d) + "\n");
    if (fix) {
      const r = session.repair(bytes, options);
      let out = r.bytes;
      if (redactor) out = Buffer.from(redactor.redactJournal(Buffer.from(out).toString("utf8")).text, "utf8");
      report.changes = r.report.changes;
      report.after = r.report.after;
      const unchanged = Buffer.compare(Buffer.from(out), bytes) === 0;
      if (o.inPlace) {
        if (unchanged) {
          report.written = null;
        } else if (Date.now() - before.mtimeMs < QUIET_MS) {
          refused = true;
          report.refused = `modified ${Math.round((Date.now() - before.mtimeMs) / 1000)} s ago: the agent may still be writing it (try again once it has been quiet for ${QUIET_MS / 1000} s)`;
        } else {
          const tmp = `${file}.doctor-${process.pid}`;
          fs.writeFileSync(tmp, out, { mode: before.mode & 0o777 });
          const fd = fs.openSync(tmp, "r");
          fs.fsyncSync(fd);
          fs.closeSync(fd);
          const now = fs.statSync(file);
          if (now.mtimeMs !== before.mtimeMs || now.size !== before.size) {
            fs.rmSync(tmp, { force: true });
            refused = true;
            report.refused = "it changed while the doctor read it: the agent is writing it";
          } else {
            const backup = freeBackup(file);
            fs.copyFileSync(file, backup);
            fs.renameSync(tmp, file);
            report.written = file;
            report.backup = backup;
            resumes = r.report.after.resumes;
          }
        }
      } else {
        const target = folder ? path.join(o.out, path.relative(input, file)) : o.out;
        fs.mkdirSync(path.dirname(target), { recursive: true });
        fs.writeFileSync(target, out, { mode: 0o600 });
        report.written = target;
      }
      if (!o.json) {
        for (const c of r.report.changes) process.stdout.write(`  fix line ${c.line}: ${c.kind}: ${c.message}\n`);
        if (report.refused) process.stderr.write(`${file}: not replaced: ${report.refused}\n`);
        else if (report.written) {
          const note = r.report.after.resumes ? "resumes" : "still will not resume: " + r.report.after.problems.filter((p) => p.severity === "error").map((p) => `line ${p.line} ${p.kind}`).join(", ");
          process.stdout.write(`  wrote ${report.written}${report.backup ? ` (the original kept as ${report.backup})` : ""}: ${note}${redactor ? " (redacted, for sharing: thinking in a redacted line no longer matches its signature)" : ""}\n`);
        } else if (o.inPlace) process.stdout.write("  nothing to repair: the file is left as it is\n");
      }
    }
    allResume &&= resumes;
    reports.push(report);
  }
  // An empty folder (or the wrong one) is said, not passed in silence.
  if (folder && files.length === 0 && !o.json) process.stderr.write(`${input}: no session files in it (nothing to check)\n`);
  if (skipped && !o.json) process.stderr.write(`${skipped} file${skipped > 1 ? "s" : ""} in no known session format passed over\n`);
  if (o.json) process.stdout.write(JSON.stringify(folder ? reports : reports[0], null, 2) + "\n");
  if (refused) return 2;
  return allResume ? 0 : 1;
};
