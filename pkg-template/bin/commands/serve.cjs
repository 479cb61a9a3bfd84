// `garuda-session serve <dir>`: the viewer for a sessions folder on http://127.0.0.1.
"use strict";

const fs = require("node:fs");
const path = require("node:path");
const http = require("node:http");
const { lockHeld } = require("../../node/lock.js");
const { redactingLines } = require("../redact-bytes.cjs");
const { UsageError, parseArgs, REDIS, redisStore, maskPassword, journalOf, CHUNK, session } = require("../cli.cjs");
const { folderRows } = require("./list.cjs");
const { journalOfText, exportTranscript } = require("./export.cjs");
const { loadRenderer } = require("../transcript.cjs");

const HELP = `usage: garuda-session serve <dir> [--port n] [--no-redact] [--redis URL [--prefix p]]
  browse a sessions folder on http://127.0.0.1; other agents' files and Redis sessions are served
  through the Redactor unless --no-redact, Garuda's journals as written (redacted when written)`;

const TYPES = { ".html": "text/html; charset=utf-8", ".js": "text/javascript", ".css": "text/css", ".wasm": "application/wasm", ".json": "application/json", ".jsonl": "text/plain; charset=utf-8" };

/**
 * The folder's sessions as the viewer's index: ids, files, children.
 * Unless --no-redact, each row's prompt and title are redacted (in the
 * core, before the prompt is cut): another agent's files are served
 * redacted, and so is what the index shows of them.
 */
function sessionIndex(dir, noRedact) {
  return { sessions: folderRows(dir, { redact: !noRedact }) };
}

/** A path under the served folder from URL segments, or null: names only (no "." or "..", no separators). */
function underDir(dir, encoded) {
  let parts;
  try {
    parts = encoded.split("/").map(decodeURIComponent);
  } catch {
    return null;
  }
  // Any name a folder may hold (a space, an apostrophe, accents: pi names
  // its folders after the working directory), but never a step up or
  // across: no "." or "..", no empty step, no separator or NUL inside one.
  if (parts.length === 0 || !parts.every((p) => p !== "" && p !== "." && p !== ".." && !/[/\\\0]/.test(p))) return null;
  // Nothing is served through a link (`passwd.jsonl -> /etc/passwd`): every
  // step under the folder is checked with lstat (and the file opened with
  // O_NOFOLLOW). A step that is not there is left to the caller's 404.
  for (let i = 1; i <= parts.length; i++) {
    let st;
    try {
      st = fs.lstatSync(path.join(dir, ...parts.slice(0, i)));
    } catch {
      break;
    }
    if (st.isSymbolicLink()) return null;
  }
  return path.join(dir, ...parts);
}

/** The sessions on Redis as the viewer's index, as sessionIndex gives a folder's. */
async function redisIndex(store) {
  const sessions = [];
  for (const row of await store.summaries()) {
    const children = (await store.children(row.id)).map((c) => ({ id: c, file: `${encodeURIComponent(row.id)}/${encodeURIComponent(c)}.jsonl` }));
    sessions.push({ ...row, file: `${encodeURIComponent(row.id)}.jsonl`, children });
  }
  return { sessions };
}

/** A session (or child run) from Redis: written through the Redactor already, passed through it again unless --no-redact (it is idempotent). */
async function sendRedisJournal(res, store, ids, noRedact) {
  const text = await store.text(ids[0], ids[1]);
  let body = text;
  if (!noRedact) {
    const redactor = new session.Redactor({ env: process.env });
    body = redactor.redactJournal(text).text;
    redactor.free();
  }
  res.writeHead(200, { ...SECURITY_HEADERS, "content-type": TYPES[".jsonl"] });
  res.end(body);
}

/**
 * A journal streamed through the Redactor, 4 MB at a time, whole lines per
 * call: a journal of any size, never one big string. Journals written by
 * Garuda were redacted already (redaction is idempotent, so this changes
 * nothing there); a hand-edited one, an old one or another agent's is not.
 */
function sendRedacted(res, file, type, start = 0, end = Infinity, headers = {}) {
  const redactor = new session.Redactor({ env: process.env });
  res.writeHead(200, { ...SECURITY_HEADERS, "content-type": type, ...headers });
  // A line that is not UTF-8 keeps its bytes (the core refuses them whole).
  const lines = redactingLines(redactor, { lines: 0, changed: 0, notRecords: 0, rules: {} }, (bytes) => res.write(bytes));
  try {
    readRange(file, start, end, lines.push);
    lines.end();
  } finally {
    redactor.free();
  }
  res.end();
}

/** Bytes `start..end` of a file, in chunks. */
function readRange(file, start, end, each) {
  const fd = fs.openSync(file, "r");
  const buf = Buffer.alloc(CHUNK);
  try {
    for (let at = start, n; at < end && (n = fs.readSync(fd, buf, 0, Math.min(buf.length, end - at), at)) > 0; at += n) each(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Whether a session file's writer still runs: for Garuda's journals, its
 * lock beside it is held by a live process (the store holds it while the
 * session is open); another agent's file, which has no lock, counts as
 * written while it changed in the last 10 seconds.
 */
function writerOf(file, garuda) {
  const lock = file.replace(/\.jsonl?$/, ".lock");
  if (garuda || fs.existsSync(lock)) return lockHeld(lock) ? "live" : "gone";
  try {
    return Date.now() - fs.statSync(file).mtimeMs < 10000 ? "live" : "gone";
  } catch {
    return "gone";
  }
}

const GARUDA_TYPES = new Set(["start", "resume", "model", "user", "assistant", "tool_results", "compaction", "snapshot", "undo", "redo", "title", "thinking", "continue", "unreported", "child_debit", "side_usage", "end"]);
const SHARED_TYPES = new Set(["user", "assistant"]);

/**
 * Whether a file's first record is one of Garuda's (spec §2): such a journal
 * passed the Redactor when it was written, and is served as it is. Anything
 * else (another agent's transcript, a file of unknown origin) is served
 * redacted.
 */
function writtenByGaruda(file) {
  const fd = fs.openSync(file, "r");
  try {
    const buf = Buffer.alloc(64 << 10);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    const first = buf.subarray(0, n).toString("utf8").split("\n").find((l) => l.trim() !== "");
    // "user" and "assistant" are Claude Code's types too: such a first line
    // is Garuda's only with its time as `t` (spec §1; Claude Code writes
    // `timestamp`). Garuda's other types are its own.
    const record = first === undefined ? null : JSON.parse(first);
    return GARUDA_TYPES.has(record?.type) && (typeof record.t === "string" || !SHARED_TYPES.has(record.type));
  } catch {
    return false;
  } finally {
    fs.closeSync(fd);
  }
}

const SECURITY_HEADERS = {
  "x-content-type-options": "nosniff",
  "cross-origin-resource-policy": "same-origin",
  "referrer-policy": "no-referrer",
  "cache-control": "no-store",
};

/**
 * The viewer for a sessions folder on 127.0.0.1: its own files, the folder's
 * journals, nothing else, and the journals only for whoever holds the token
 * it printed. The token is in the printed URL's fragment, which no request
 * carries; the viewer keeps it in sessionStorage (per origin, so per port)
 * and sends it as the x-garuda-token header. No cookie: browsers scope
 * cookies by host, not port, so any other server on 127.0.0.1 received it.
 * Another web page cannot read it: a DNS-rebinding name fails the Host
 * check, a cross-site request cannot send the header without a preflight
 * (OPTIONS is refused), no CORS header lets a response out, and only GET
 * and HEAD are answered. The viewer's own files hold no data and are
 * answered without the token (the page must load to read its fragment).
 */
function serve(args) {
  const o = parseArgs(args, { "--port": "port", "--no-redact": "noRedact!", ...REDIS });
  const dir = o._[0];
  const redis = o.redis === undefined ? null : redisStore(o);
  if (!redis && (dir === undefined || !fs.existsSync(dir) || !fs.statSync(dir).isDirectory())) throw new UsageError("give a sessions folder");
  const pkg = path.join(__dirname, "../..");
  const token = require("node:crypto").randomBytes(24).toString("base64url");
  const tokenBytes = Buffer.from(token);
  const holdsToken = (value) => {
    const b = Buffer.from(String(value ?? ""));
    return b.length === tokenBytes.length && require("node:crypto").timingSafeEqual(b, tokenBytes);
  };
  let hosts = new Set();
  let origins = new Set();
  const server = http.createServer(async (req, res) => {
    const send = (status, type, body, extra = {}) => {
      res.writeHead(status, { ...SECURITY_HEADERS, "content-type": type, ...extra });
      res.end(body);
    };
    if (req.method !== "GET" && req.method !== "HEAD") return send(405, "text/plain", "only GET and HEAD\n", { allow: "GET, HEAD" });
    if (!hosts.has(String(req.headers.host ?? "").toLowerCase())) return send(403, "text/plain", "this server answers only its own origin\n");
    // A browser says where a request comes from: another page's (another
    // port on 127.0.0.1 is another origin, `same-site`) is refused even
    // with the token, so only this server's own pages read it.
    const from = req.headers.origin;
    const site = req.headers["sec-fetch-site"];
    if ((from !== undefined && !origins.has(String(from).toLowerCase())) || (site !== undefined && site !== "same-origin" && site !== "none")) {
      return send(403, "text/plain", "this server answers only its own origin\n");
    }
    const url = new URL(req.url, "http://127.0.0.1");
    const viewerFile = url.pathname === "/" || /^\/(viewer|web)\//.test(url.pathname);
    if (!viewerFile && !holdsToken(req.headers["x-garuda-token"])) {
      return send(401, "text/plain", "open the URL that serve printed: its #token=… is sent as the x-garuda-token header\n");
    }
    const file = (p) => send(200, TYPES[path.extname(p)] ?? "application/octet-stream", fs.readFileSync(p));
    // A journal from byte `?from=` on (what a viewer following it has not
    // read yet), streamed, saying where the file ended and whether its
    // writer still runs.
    const journalFile = (p) => {
      const fd = fs.openSync(p, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
      let size0;
      try {
        size0 = fs.fstatSync(fd).size;
      } catch (e) {
        fs.closeSync(fd);
        throw e;
      }
      // `?to=`: up to that byte (a viewer reading one line again).
      const size = url.searchParams.has("to") ? Math.min(size0, Math.max(0, Number(url.searchParams.get("to")) || 0)) : size0;
      const start = Math.min(size, Math.max(0, Number(url.searchParams.get("from")) || 0));
      const garuda = writtenByGaruda(p);
      const headers = { "x-garuda-end": String(size0), "x-garuda-writer": writerOf(p, garuda) };
      if (!o.noRedact && !garuda) {
        fs.closeSync(fd);
        return sendRedacted(res, p, TYPES[".jsonl"], start, size, headers);
      }
      res.writeHead(200, { ...SECURITY_HEADERS, "content-type": TYPES[".jsonl"], "content-length": String(size - start), ...headers });
      if (req.method === "HEAD" || size === start) {
        fs.closeSync(fd);
        return res.end();
      }
      // 1 MB reads: the default 64 KB made streaming a 100 MB journal cost
      // the server about a quarter of a second of CPU, taken from the
      // browser reading it on the same machine.
      fs.createReadStream(null, { fd, start, end: size - 1, highWaterMark: 1 << 20 }).pipe(res);
    };
    try {
      if (url.pathname === "/") return send(302, "text/plain", "", { location: "/viewer/?dir=/files/index.json" });
      const asset = /^\/(viewer|web)\/([\w.-]*)$/.exec(url.pathname);
      if (asset) {
        const p = path.join(pkg, asset[1], asset[2] || "index.html");
        return fs.existsSync(p) ? file(p) : send(404, "text/plain", "not found");
      }
      if (url.pathname === "/files/index.json") return send(200, TYPES[".json"], JSON.stringify(redis ? await redisIndex(redis) : sessionIndex(dir, o.noRedact)));
      const journal = /^\/files\/(.+\.jsonl?)$/.exec(url.pathname);
      if (journal) {
        if (redis) {
          const ids = journal[1].replace(/\.jsonl$/, "").split("/").map(decodeURIComponent);
          if (ids.length > 2 || !ids.every((id) => session.validateSessionId(id))) return send(400, "text/plain", "not a session id");
          return sendRedisJournal(res, redis, ids, o.noRedact);
        }
        const p = underDir(dir, journal[1]);
        if (!p) return send(400, "text/plain", "not a session file");
        return fs.existsSync(p) && fs.statSync(p).isFile() ? journalFile(p) : send(404, "text/plain", "no such session");
      }
      const m = /^\/session\/(.+)$/.exec(url.pathname);
      if (m) {
        await loadRenderer();
        if (redis) {
          const id = decodeURIComponent(m[1]);
          if (!session.validateSessionId(id)) return send(400, "text/plain", "not a session id");
          return send(200, "text/html; charset=utf-8", exportTranscript(journalOfText(await redis.text(id)), "html", { noRedact: o.noRedact }));
        }
        // A session id at the top of the folder, or a session file's path under it.
        const rel = /\.jsonl?$/.test(m[1]) ? m[1] : `${m[1]}.jsonl`;
        const p = underDir(dir, rel);
        if (!p) return send(400, "text/plain", "not a session id");
        if (!fs.existsSync(p)) return send(404, "text/plain", "no such session");
        return send(200, "text/html; charset=utf-8", exportTranscript(journalOf(p, { history: true }), "html", { noRedact: o.noRedact }));
      }
      send(404, "text/plain", "not found");
    } catch (e) {
      if (res.headersSent) return res.destroy();
      if (e.code === "ERR_NO_SESSION") return send(404, "text/plain", "no such session");
      send(500, "text/plain", String(e.message));
    }
  });
  // A port in use or not ours to take: said in a line, exit 2, as a bad argument is.
  server.on("error", (e) => {
    const why = e.code === "EADDRINUSE" ? "is in use" : e.code === "EACCES" ? "needs privileges" : `cannot be used (${e.code ?? e.message})`;
    process.stderr.write(`garuda-session serve: port ${o.port ?? 0} on 127.0.0.1 ${why}: give another with --port, or none for a free one\n`);
    process.exit(2);
  });
  server.listen(o.port ? Number(o.port) : 0, "127.0.0.1", () => {
    const port = server.address().port;
    hosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`]);
    origins = new Set([...hosts].map((h) => `http://${h}`));
    const where = redis ? `${maskPassword(o.redis)} (Redis)` : dir;
    process.stdout.write(`viewer for ${where} on http://127.0.0.1:${port}/viewer/?dir=/files/index.json#token=${token} (Ctrl-C to stop)\n`);
  });
  return null;
}

module.exports = { help: HELP, run: serve };
