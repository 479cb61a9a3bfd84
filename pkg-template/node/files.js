// How the file store touches the disk: never through a symbolic link, and
// never changing the permissions of anything it did not create.
//
// Why: a planted `<id>.jsonl` link made the store append to its target and
// chmod it 0600 (a fake authorized_keys, say); a linked session folder was
// chmodded 0700 and written into; a folder its owner made read-only (0500)
// was chmodded back and written. Now a journal is opened with O_NOFOLLOW, a
// folder is checked with lstat, and a mode is set only on what was just
// created here (mkdir's and open's mode pass through the umask, hence the
// chmod after, on the descriptor or on the folder this call made).
"use strict";

const fs = process.getBuiltinModule?.("node:fs") ?? require("node:fs");

const DIR_MODE = 0o700;
const FILE_MODE = 0o600;
const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
const CHUNK = 4 << 20;

function fail(code, message, cause) {
  const e = new Error(message, cause ? { cause } : undefined);
  e.code = code;
  return e;
}

/** A system error met while opening for writing, said plainly. */
function unwritable(what, e) {
  if (["EACCES", "EPERM", "EROFS", "ENOSPC", "EDQUOT"].includes(e?.code)) {
    return fail("ERR_STORE_UNWRITABLE", `cannot write ${what}: ${e.code} (${e.message})`, e);
  }
  if (e?.code === "ELOOP") return symlink(what, e);
  if (e?.code === "ENAMETOOLONG") return fail("ERR_BAD_SESSION_ID", `${what}: the name is too long`, e);
  return e;
}

function symlink(what, cause) {
  return fail("ERR_STORE_SYMLINK", `${what} is a symbolic link: the store never reads or writes through one`, cause);
}

/**
 * Makes sure `dir` is a folder the store may write: created 0700 when it is
 * not there (its missing parents too); an existing one must be a real folder
 * (not a link) that its owner has not made read-only, and keeps its mode.
 */
function ensureFolder(dir) {
  let created;
  try {
    created = fs.mkdirSync(dir, { recursive: true, mode: DIR_MODE });
  } catch (e) {
    if (e.code !== "EEXIST") throw unwritable(dir, e);
  }
  let st;
  try {
    st = fs.lstatSync(dir);
  } catch (e) {
    throw unwritable(dir, e);
  }
  if (st.isSymbolicLink()) throw symlink(dir);
  if (!st.isDirectory()) throw fail("ERR_STORE_UNWRITABLE", `cannot write ${dir}: it is not a folder`);
  if (created === undefined) {
    // Not ours: one this user may not write is said so with the system's
    // own error (EACCES), before anything is tried in it.
    try {
      fs.accessSync(dir, fs.constants.W_OK);
    } catch (e) {
      throw unwritable(dir, e);
    }
  }
  if (created !== undefined) {
    // Ours: the umask may have narrowed (or, with a 0 umask, not narrowed)
    // mkdir's mode. Set through a descriptor of the folder itself, so a
    // link swapped in meanwhile is not followed.
    let fd;
    try {
      fd = fs.openSync(dir, fs.constants.O_RDONLY | (fs.constants.O_DIRECTORY ?? 0) | NOFOLLOW);
      fs.fchmodSync(fd, DIR_MODE);
    } catch (e) {
      throw unwritable(dir, e);
    } finally {
      if (fd !== undefined) fs.closeSync(fd);
    }
  } else if ((st.mode & 0o200) === 0) {
    // Its owner made it read-only: that is a choice, not a mistake to undo
    // (root would otherwise write into it regardless).
    throw fail("ERR_STORE_UNWRITABLE", `cannot write ${dir}: the folder is read-only (mode ${(st.mode & 0o777).toString(8)}); the store does not change it`);
  }
}

/**
 * Opens a journal for reading and appending, creating it 0600 if it is not
 * there. A link is refused (ERR_STORE_SYMLINK), so is anything but a plain
 * file; an existing file keeps its mode.
 */
function openJournal(file) {
  const flags = fs.constants.O_RDWR | fs.constants.O_APPEND | NOFOLLOW;
  let fd;
  let created = false;
  try {
    fd = fs.openSync(file, flags | fs.constants.O_CREAT | fs.constants.O_EXCL, FILE_MODE);
    created = true;
  } catch (e) {
    if (e.code !== "EEXIST") throw unwritable(file, e);
    try {
      fd = fs.openSync(file, flags | (fs.constants.O_NONBLOCK ?? 0));
    } catch (e2) {
      throw unwritable(file, e2);
    }
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw fail("ERR_STORE_UNWRITABLE", `cannot write ${file}: it is not a plain file`);
    if (created) fs.fchmodSync(fd, FILE_MODE);
  } catch (e) {
    fs.closeSync(fd);
    throw unwritable(file, e);
  }
  return fd;
}

/** Opens a file for reading, never through a link; `{ fd, size }` (the size at open). */
function openRead(file) {
  let fd;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | NOFOLLOW | (fs.constants.O_NONBLOCK ?? 0));
  } catch (e) {
    if (e.code === "ELOOP") throw symlink(file, e);
    throw e;
  }
  const st = fs.fstatSync(fd);
  if (!st.isFile()) {
    fs.closeSync(fd);
    throw fail("ERR_STORE_UNWRITABLE", `${file} is not a plain file`);
  }
  return { fd, size: st.size };
}

/**
 * Calls `each(bytes)` for the bytes of `fd` from 0 up to `size` (the size
 * when it was opened: a file that grows while it is read is read up to
 * there, never on and on). Returns the last byte read (-1: none).
 */
function readTo(fd, size, each) {
  const buf = Buffer.alloc(Math.min(CHUNK, Math.max(size, 1)));
  let last = -1;
  for (let at = 0; at < size; ) {
    const n = fs.readSync(fd, buf, 0, Math.min(buf.length, size - at), at);
    if (n <= 0) break; // cut shorter meanwhile
    each(buf.subarray(0, n));
    last = buf[n - 1];
    at += n;
  }
  return last;
}

/**
 * Replays `size` bytes of `fd` into `journal` with no copy in JS: each chunk
 * is read straight into wasm memory the journal owns (`inputBuffer`), then
 * fed (`feedInput`). Returns the last byte read (-1 when none), as readTo.
 * The view is taken again after every call into the journal: wasm memory
 * growing detaches it, and a read into a detached view reads nothing.
 */
function replayInto(fd, size, journal) {
  const chunk = Math.min(CHUNK, Math.max(size, 1));
  let last = -1;
  for (let at = 0; at < size; ) {
    const view = journal.inputBuffer(chunk);
    const n = fs.readSync(fd, view, 0, Math.min(chunk, size - at), at);
    if (n <= 0) break; // cut shorter meanwhile
    last = view[n - 1];
    journal.feedInput(n);
    at += n;
  }
  return last;
}

/** A whole (small) file read through openRead: a Buffer of its size at open. */
function readWhole(file) {
  const { fd, size } = openRead(file);
  try {
    const parts = [];
    readTo(fd, size, (b) => parts.push(Buffer.from(b)));
    return Buffer.concat(parts);
  } finally {
    fs.closeSync(fd);
  }
}

module.exports = { ensureFolder, openJournal, openRead, readTo, replayInto, readWhole, unwritable, fail, DIR_MODE, FILE_MODE };
