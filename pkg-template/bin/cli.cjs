// What every command shares: the usage error, the option parser, reading a
// journal file in chunks, --format/--prices, Redis, the Redactor of --rules.
// The commands themselves are in commands/<name>.cjs.
"use strict";

const fs = require("node:fs");
const util = require("node:util");
// The core, loaded on first use: a warm `statusline` (every few seconds
// in Claude Code) answers from the usage index without compiling the wasm.
let core;
const session = new Proxy({}, { get: (_, name) => (core ??= require("../node/garuda_session.js"))[name] });

class UsageError extends Error {}

/**
 * Writes a command's whole answer to standard output: to the descriptor
 * itself, not through `process.stdout`, whose stream machinery costs a
 * warm `usage` or status line a few of its 100 ms to load. A closed pipe
 * (`| head`) ends the run quietly; a descriptor that will not take it all
 * at once (a non-blocking pipe) gets the rest through the stream.
 */
function writeOut(text) {
  const buf = Buffer.from(text);
  let at = 0;
  try {
    while (at < buf.length) at += fs.writeSync(1, buf, at);
  } catch (e) {
    if (e.code === "EPIPE") process.exit(0);
    if (e.code !== "EAGAIN") throw e;
    process.stdout.write(buf.subarray(at));
  }
}

/**
 * GARUDA_USAGE_STATS's line on stderr (what a run read: the benchmarks'
 * and tests' evidence), written to the descriptor as writeOut does, so
 * that asking for it does not load the stream machinery the run it
 * describes does without.
 */
function writeStats(command, stats) {
  if (!process.env.GARUDA_USAGE_STATS) return;
  try {
    fs.writeSync(2, `garuda-session ${command}: read ${JSON.stringify(stats)}\n`);
  } catch {
    // stderr closed: the stats are only evidence
  }
}

const CHUNK = 4 << 20;
const PROGRESS_OVER = 10e6;

/** A progress bar on stderr, for big inputs on a terminal only. */
function progress(label, total) {
  if (!process.stderr.isTTY || total < PROGRESS_OVER) return { tick() {}, done() {} };
  let shown = -1;
  return {
    tick(done) {
      const pct = Math.floor((done / total) * 100);
      if (pct === shown) return;
      shown = pct;
      const bar = "#".repeat(Math.floor(pct / 4)).padEnd(25, ".");
      process.stderr.write(`\r${label} [${bar}] ${pct}% of ${(total / 1e6).toFixed(0)} MB`);
    },
    done() {
      process.stderr.write("\r\x1b[K");
    },
  };
}

function openInput(file) {
  if (file === undefined) throw new UsageError("give a journal file");
  let fd;
  let stat;
  try {
    fd = fs.openSync(file, "r");
    stat = fs.fstatSync(fd);
  } catch (e) {
    throw new UsageError(`cannot read ${file}: ${e.code === "ENOENT" ? "no such file" : e.message}`);
  }
  if (stat.isDirectory()) {
    fs.closeSync(fd);
    throw new UsageError(`${file} is a folder: give one session file (list, usage, export -o and doctor read folders)`);
  }
  return { fd, size: stat.size };
}

/**
 * Calls `each(buffer)` for successive chunks of a file, up to its size when
 * it was opened: a file that grows while it is read (a writer appending) is
 * read to there, not on and on (replay read 8 GB of one that way).
 */
function readChunks(file, label, each) {
  const { fd, size } = openInput(file);
  const bar = progress(label, size);
  const buf = Buffer.alloc(CHUNK);
  let n;
  let done = 0;
  try {
    while (done < size && (n = fs.readSync(fd, buf, 0, Math.min(buf.length, size - done), done)) > 0) {
      each(buf.subarray(0, n));
      done += n;
      bar.tick(done);
    }
  } finally {
    fs.closeSync(fd);
    bar.done();
  }
}

const FORMATS = ["garuda", "claude-code", "codex", "pi", "gemini"];

/** `{ format, prices }` for the core, from --format (or --from) and --prices. */
function readOptions(o, formatOption = "format") {
  const options = {};
  const format = o[formatOption];
  if (format !== undefined) {
    if (!FORMATS.includes(format)) throw new UsageError(`--${formatOption} takes ${FORMATS.join(", ")}`);
    options.format = format;
  }
  if (o.prices !== undefined) {
    try {
      options.prices = JSON.parse(fs.readFileSync(o.prices, "utf8"));
    } catch (e) {
      throw new UsageError(`--prices ${o.prices}: ${e.code === "ENOENT" ? "no such file" : e.message}`);
    }
  }
  // Vertex AI's regional endpoints cost 10% over its global one, and the
  // session files do not say which served a request: --vertex-region, or
  // Claude Code's own CLOUD_ML_REGION, says it (for responses whose ids
  // are Vertex's, msg_vrtx_...).
  const region = o.vertexRegion ?? process.env.CLOUD_ML_REGION;
  if (region !== undefined && region !== "") {
    if (!/^[a-z][a-z0-9-]{1,40}$/i.test(region)) throw new UsageError(`--vertex-region ${region}: give a Vertex region such as us-east5, europe-west1, us (a multi-region) or global${o.vertexRegion === undefined ? " (from CLOUD_ML_REGION)" : ""}`);
    options.prices = { ...(options.prices ?? {}), vertexRegion: region };
  }
  // A table the core refuses is refused here, once: each file's read
  // refused it, and a usage report of every file left out said $0.00 with
  // exit 0 (found by a ccusage user's review).
  if (options.prices !== undefined) {
    try {
      new session.Journal({ prices: options.prices }).free();
    } catch (e) {
      const why = e.message.replace(/^new Journal\(options\): options\.prices: /, "");
      throw new UsageError(o.prices !== undefined ? `--prices ${o.prices}: ${why}` : `--vertex-region: ${why}`);
    }
  }
  return options;
}

/** A journal file read in chunks (any size, never one big string) into a Journal. */
function journalOf(file, options = {}, redactor = null) {
  let journal;
  try {
    journal = new session.Journal(options);
  } catch (e) {
    throw new UsageError(e.message.replace(/^new Journal\(options\): options\./, "--"));
  }
  if (redactor) {
    // Each line through the Redactor before it is read: every string is
    // redacted whole, as the file holds it (a private key's BEGIN to END is
    // one string; a reader's views split it into lines).
    const totals = { lines: 0, changed: 0, notRecords: 0, rules: {} };
    const lines = require("./redact-bytes.cjs").redactingLines(redactor, totals, (bytes) => journal.feed(bytes));
    readChunks(file, "replay", (chunk) => lines.push(chunk));
    lines.end();
  } else readChunks(file, "replay", (chunk) => journal.feed(chunk));
  journal.finish();
  return journal;
}

/** The replayed state of a journal file. */
function replayFile(file, options = {}) {
  const journal = journalOf(file, options);
  const state = journal.state();
  journal.free();
  return state;
}

/** A state read from a file that held no known format: a refusal, not figures. */
function known(state, file) {
  if (state.format === null) {
    throw new UsageError(`${file}: no known session format (tried ${FORMATS.join(", ")})`);
  }
  return state;
}

/** A URL with its password (if any) shown as ***, for banners and messages. */
function maskPassword(url) {
  try {
    const u = new URL(url);
    if (!u.password) return url;
    u.password = "***";
    return u.href;
  } catch {
    return String(url).replace(/(\/\/[^/:@]*:)[^/@]*@/, "$1***@");
  }
}

/** The Redis store of --redis URL [--prefix p] (the `redis` package is the host's: an optional peer dependency). */
function redisStore(o) {
  const { RedisSessionStore } = require("../node/redis.js");
  try {
    return new RedisSessionStore({ url: o.redis, prefix: o.prefix, timeoutMs: 10000 });
  } catch (e) {
    throw new UsageError(e.message);
  }
}

/** Runs `f(store)` on the --redis store and closes it after; a missing session is a usage error. */
async function withRedis(o, f) {
  const store = redisStore(o);
  try {
    return await f(store);
  } catch (e) {
    if (e.code === "ERR_NO_SESSION" || e.code === "ERR_BAD_SESSION_ID") throw new UsageError(e.message);
    throw e;
  } finally {
    store.close();
  }
}

const REDIS = { "--redis": "redis", "--prefix": "prefix" };
const READ = { "--format": "format", "--prices": "prices", "--vertex-region": "vertexRegion" };

/** The replayed state of a journal file, or (--redis) of a session id. */
async function stateOf(o, formatOption = "format") {
  if (o.redis === undefined) return known(replayFile(o._[0], readOptions(o, formatOption)), o._[0]);
  if (o._[0] === undefined) throw new UsageError("give a session id");
  return withRedis(o, (store) => store.replay(o._[0]));
}

/**
 * A command's arguments, read by node:util's parseArgs from a table of its
 * options: `{ "--json": "json!", "-o": "out" }` (a `!` marks a flag; the
 * rest take a value), and at most `most` positional ones (one file or
 * folder unless said: a second was silently ignored). Mistakes are usage
 * errors, said in one line.
 */
function parseArgs(args, spec, most = 1) {
  const options = {};
  const names = {};
  for (const [flag, name] of Object.entries(spec)) {
    const long = flag.startsWith("--") ? flag.slice(2) : name.replace(/!$/, "");
    options[long] = { type: name.endsWith("!") ? "boolean" : "string", ...(flag.startsWith("--") ? {} : { short: flag.slice(1) }) };
    names[long] = name.replace(/!$/, "");
  }
  let parsed;
  try {
    parsed = util.parseArgs({ args, options, allowPositionals: true, strict: true });
  } catch (e) {
    // Node's wording, cut to what was wrong ("Unknown option '--x'. To
    // specify a positional argument...").
    throw new UsageError(e.code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" ? e.message.split(". ")[0] : e.message.split("\n")[0]);
  }
  if (parsed.positionals.length > most) {
    throw new UsageError(`unexpected argument ${JSON.stringify(parsed.positionals[most])}${most === 1 ? " (one file or folder at a time)" : ""}`);
  }
  const out = { _: parsed.positionals };
  for (const [long, value] of Object.entries(parsed.values)) out[names[long]] = value;
  return out;
}

const n = (x) => Number(x).toLocaleString("en-US");


/**
 * A Redactor over this process's environment and, with --rules, the user's
 * own token formats: a JSON file `[{ "name", "pattern" }]` (or `{ "rules":
 * [...] }`), patterns in regex-lite syntax.
 */
function redactorFor(o) {
  let rules = [];
  if (o.rules !== undefined) {
    let parsed;
    try {
      parsed = JSON.parse(fs.readFileSync(o.rules, "utf8"));
    } catch (e) {
      throw new UsageError(`--rules ${o.rules}: ${e.code === "ENOENT" ? "no such file" : e.message}`);
    }
    rules = Array.isArray(parsed) ? parsed : parsed?.rules;
    if (!Array.isArray(rules)) throw new UsageError(`--rules ${o.rules}: give an array of { "name", "pattern" }`);
  }
  try {
    return new session.Redactor({ env: process.env, rules });
  } catch (e) {
    throw new UsageError(`--rules ${o.rules}: ${e.message.replace(/^new Redactor\(options\): /, "")}`);
  }
}

module.exports = { UsageError, writeOut, writeStats, CHUNK, progress, openInput, readChunks, FORMATS, readOptions, journalOf, replayFile, known, maskPassword, redisStore, withRedis, REDIS, READ, stateOf, parseArgs, n, redactorFor, session };
