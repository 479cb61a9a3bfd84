// The viewer's reader: drains a journal (a File, or a URL of the viewer's own
// origin) on its own thread and hands the bytes to worker.js in chunks.
//
// Why a thread of its own: when the parsing worker also did the reading, the
// browser could buffer only a little of the response while the worker was
// busy, so reading and parsing took turns. A 100 MB journal spent about 450 ms
// waiting on the network that way. Here the bytes queue up in the parsing
// worker's inbox instead (transferred, not copied).
const CHUNK = 4 << 20;
// The first chunk is small: the parser (and the first screen) start on the
// first 256 KB instead of waiting for 4 MB to arrive.
const FIRST_CHUNK = 256 << 10;

// Chunks sent and not yet taken by worker.js (it acknowledges each): the
// reader stays at most AHEAD chunks ahead. Unbounded, a local file or
// `serve` gave the bytes faster than the core read them, and a 1 GB
// journal queued up to hundreds of MB in the parsing worker's inbox.
const AHEAD = 8;
let sent = 0;
let taken = 0;
let wake = null;
const room = async () => {
  while (sent - taken >= AHEAD) await new Promise((resolve) => (wake = resolve));
};

// CHUNK-sized buffers worker.js gave back once the core had read them: the
// reads below fill them again. A new buffer per chunk (and the stream's own
// 64 KB pieces) left a 1 GB journal's gigabyte of dead buffers to the
// collectors of two threads, which let a few hundred MB pile up before
// freeing them: the tab's peak memory.
const pool = [];
const buffer = () => pool.pop() ?? new ArrayBuffer(CHUNK);

function send(bytes, done, total) {
  // Transfer needs a buffer the view covers exactly (else it is copied):
  // a pool buffer goes whole, the view saying how much of it is filled.
  const own = bytes.buffer.byteLength === CHUNK || (bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength) ? bytes : bytes.slice();
  self.postMessage({ bytes: own, done, total }, [own.buffer]);
  sent++;
}

/**
 * Reads a byte stream into pool buffers with a BYOB reader (no buffer of
 * the stream's own), sending the first when it holds FIRST_CHUNK bytes and
 * each later one at CHUNK. False when the stream offers no BYOB reader (the
 * caller reads it another way).
 */
async function readBytes(stream, total) {
  let reader;
  try {
    reader = stream.getReader({ mode: "byob" });
  } catch {
    return false;
  }
  let done = 0;
  for (;;) {
    await room();
    let buf = buffer();
    let filled = 0;
    const want = done === 0 ? FIRST_CHUNK : CHUNK;
    let end = false;
    while (filled < want) {
      const { value, done: over } = await reader.read(new Uint8Array(buf, filled, want - filled));
      if (value) {
        buf = value.buffer;
        filled += value.byteLength;
      }
      if (over) {
        end = true;
        break;
      }
    }
    done += filled;
    if (filled > 0) send(new Uint8Array(buf, 0, filled), done, total);
    else pool.push(buf);
    if (end) return true;
  }
}

async function readFile(file) {
  if (await readBytes(file.stream(), file.size)) return;
  for (let at = 0; at < file.size; ) {
    await room();
    const end = Math.min(at + (at === 0 ? FIRST_CHUNK : CHUNK), file.size);
    send(new Uint8Array(await file.slice(at, end).arrayBuffer()), end, file.size);
    at = end;
  }
}

async function readUrl(url, token) {
  // `serve`'s token, as a header, to this origin only (worker.js passes it).
  const own = new URL(url, self.location.href).origin === self.location.origin;
  const res = await fetch(url, token && own ? { headers: { "x-garuda-token": token } } : {});
  if (!res.ok) throw new Error(`could not load ${url}: HTTP ${res.status}`);
  const total = Number(res.headers.get("content-length")) || 0;
  // `serve` says where the file ended and whether its writer still runs:
  // what following a session that is being written needs.
  const meta = { end: Number(res.headers.get("x-garuda-end")) || null, writer: res.headers.get("x-garuda-writer") ?? "gone" };
  if (await readBytes(res.body, total)) return meta;
  const reader = res.body.getReader();
  // The network hands over small pieces (often 64 KB); each would cost the
  // parser a call into wasm, a decode and a progress message, so they are
  // gathered into CHUNK.
  let done = 0;
  let pending = [];
  let size = 0;
  const flush = () => {
    if (size === 0) return;
    let bytes = pending[0];
    if (pending.length > 1) {
      bytes = new Uint8Array(size);
      let at = 0;
      for (const p of pending) bytes.set(p, at), (at += p.length);
    }
    send(bytes, done, total);
    pending = [];
    size = 0;
  };
  for (;;) {
    await room();
    const { value, done: end } = await reader.read();
    if (end) break;
    done += value.length;
    pending.push(value);
    size += value.length;
    if (size >= (done === size ? FIRST_CHUNK : CHUNK)) flush();
  }
  flush();
  return meta;
}

self.onmessage = async ({ data: source }) => {
  if (source.taken !== undefined) {
    taken = source.taken;
    if (source.buffer?.byteLength === CHUNK) pool.push(source.buffer);
    return void wake?.();
  }
  try {
    const meta = await (source.file ? readFile(source.file) : readUrl(source.url, source.token));
    self.postMessage({ end: true, meta });
  } catch (e) {
    self.postMessage({ error: String(e?.message ?? e) });
  }
};
