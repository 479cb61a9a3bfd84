// The one-writer lock of a session file (JOURNAL.md §7): <id>.lock beside
// <id>.jsonl, holding the writer's pid and start time as JSON.
//
// Why it is built the way it is:
// - The lock appears with its content in one step: the pid is written to a
//   file of this process's own, fsynced, then link(2)ed into place. link
//   fails when the name exists, so two writers can never both succeed, and
//   no competitor ever reads an empty lock and takes it for a dead writer's
//   (the old create-then-write did exactly that).
// - A stale lock (its process is gone) is removed only under a takeover
//   guard, <id>.lock.takeover, itself taken with link(2): one remover at a
//   time, and the remover checks, holding the guard, that the lock is still
//   the very file (same inode) it judged stale. Without the guard, a remover
//   that judged the old lock stale could delete the lock a faster
//   competitor had just put in its place.
// - The guard is a file of its taker's own (not the lock's file), and the
//   taker lets go of it by emptying that file before unlinking the name: an
//   empty guard is a released one, whoever's pid it held and wherever its
//   name now points. This is what makes the put-back below safe. Without it,
//   a remover that moved a live guard aside by mistake and put it back after
//   its taker had let go left a guard naming a live process that no longer
//   held it, and every later takeover waited on it and failed (seen once in
//   the full suite: six processes, no writer).
// - A guard left by a process that died inside the takeover (microseconds)
//   is moved aside under a unique name and checked to be the one judged
//   dead before it is deleted; if it is not, it is put back.
// - Only the name's own file is ever unlinked on release (same inode): a
//   taker never deletes a guard or a lock that another process put there.
// - Nothing here follows a symlink (O_NOFOLLOW, lstat): a link where a
//   lock should be is refused with ERR_STORE_SYMLINK.
// - A failed write (a full disk) closes its descriptor and leaves no file.
"use strict";

const fs = process.getBuiltinModule?.("node:fs") ?? require("node:fs");
const crypto = process.getBuiltinModule?.("node:crypto") ?? require("node:crypto");
const path = process.getBuiltinModule?.("node:path") ?? require("node:path");

const FILE_MODE = 0o600;
const NOFOLLOW = fs.constants.O_NOFOLLOW ?? 0;
/** An empty or unreadable lock younger than this may be an older version's, still being written. */
const YOUNG_MS = 2000;
const GUARD_WAIT_MS = 2000;

const { fail } = require("./files.js"); // one Error-with-a-code for the store's files

function unwritable(what, e) {
  if (["EACCES", "EPERM", "EROFS", "ENOSPC", "EDQUOT"].includes(e?.code)) {
    return fail("ERR_STORE_UNWRITABLE", `cannot write ${what}: ${e.code} (${e.message})`, e);
  }
  if (e?.code === "ELOOP") return fail("ERR_STORE_SYMLINK", `${what} is a symbolic link: refused`, e);
  return e;
}

function sleep(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

function pidAlive(pid) {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === "EPERM";
  }
}

/**
 * When a process started (clock ticks since boot, Linux), or null where that
 * cannot be read. A lock records it beside the pid, so a pid reused by
 * another process (containers restart at low pids) is told from its writer.
 */
function startTime(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19] ?? null;
  } catch {
    return null;
  }
}

/** Whether the lock's writer still runs: its pid is alive and (where known) started when the lock says. */
function holderAlive(holder) {
  if (!pidAlive(holder.pid)) return false;
  if (holder.start == null) return true;
  const now = startTime(holder.pid);
  return now == null || now === holder.start;
}

/**
 * A lock file as `{ pid, start, ino, young }`, or null when there is none.
 * Opened with O_NOFOLLOW: a symlink is refused, never read through.
 */
function readLock(lockFile) {
  let fd;
  try {
    fd = fs.openSync(lockFile, fs.constants.O_RDONLY | NOFOLLOW);
  } catch (e) {
    if (e.code === "ENOENT") return null;
    throw unwritable(lockFile, e);
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) throw fail("ERR_STORE_UNWRITABLE", `cannot use ${lockFile}: it is not a plain file`);
    const buf = Buffer.alloc(4096);
    const n = fs.readSync(fd, buf, 0, buf.length, 0);
    const text = buf.subarray(0, n).toString("utf8");
    let holder = null;
    try {
      const parsed = JSON.parse(text);
      if (parsed && typeof parsed === "object") holder = { pid: Number(parsed.pid), start: parsed.start ?? null };
    } catch {}
    // A lock from an older version: a bare pid.
    holder ??= { pid: /^\s*\d+\s*$/.test(text) ? Number.parseInt(text, 10) : NaN, start: null };
    const young = !Number.isInteger(holder.pid) && Date.now() - st.mtimeMs < YOUNG_MS;
    return { ...holder, ino: st.ino, young };
  } finally {
    fs.closeSync(fd);
  }
}

/** This process's lock content in a file of its own, complete and on disk before it is linked anywhere. */
function writeOwn(lockFile) {
  const own = `${lockFile}.${process.pid}-${crypto.randomBytes(6).toString("hex")}.new`;
  let fd;
  try {
    fd = fs.openSync(own, fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | NOFOLLOW, FILE_MODE);
    const bytes = Buffer.from(JSON.stringify({ pid: process.pid, start: startTime(process.pid) }));
    for (let at = 0; at < bytes.length; ) at += fs.writeSync(fd, bytes, at, bytes.length - at);
    fs.fsyncSync(fd);
    const ino = fs.fstatSync(fd).ino;
    fs.closeSync(fd);
    fd = undefined;
    return { own, ino };
  } catch (e) {
    if (fd !== undefined) {
      try {
        fs.closeSync(fd);
      } catch {}
    }
    try {
      fs.unlinkSync(own);
    } catch {}
    throw unwritable(lockFile, e);
  }
}

/** link(2) `own` to `name`: true when it is ours now, false when the name was taken. */
function linkInto(own, name) {
  try {
    fs.linkSync(own, name);
    return true;
  } catch (e) {
    if (e.code === "EEXIST") return false;
    throw unwritable(name, e);
  }
}

/** Moves `name` aside if it is still the file `ino`, then deletes it; put back when it is not. */
function removeIfSame(name, ino) {
  // A look first: most mismatches (another process already replaced it) are
  // seen here, and the rename below, whose put-back is the delicate part,
  // never happens for them.
  try {
    if (fs.lstatSync(name).ino !== ino) return;
  } catch (e) {
    if (e.code === "ENOENT") return;
    throw unwritable(name, e);
  }
  const aside = `${name}.${process.pid}-${crypto.randomBytes(6).toString("hex")}.stale`;
  try {
    fs.renameSync(name, aside);
  } catch (e) {
    if (e.code === "ENOENT") return;
    throw unwritable(name, e);
  }
  if (fs.lstatSync(aside).ino !== ino) {
    // Not the file judged stale: give it back (link fails only if yet another took the name).
    try {
      fs.linkSync(aside, name);
    } catch {}
  }
  fs.rmSync(aside, { force: true });
}

/**
 * Takes `<lock>.takeover`, waiting while a live process holds it (it holds
 * it for microseconds). Returns the guard's own file, for releaseGuard.
 */
function takeGuard(guard) {
  const mine = writeOwn(guard);
  const until = Date.now() + GUARD_WAIT_MS;
  try {
    for (;;) {
      if (linkInto(mine.own, guard)) return mine;
      const holder = readLock(guard);
      // An empty guard is a released one (see releaseGuard): no young rule
      // here, since no version ever wrote a guard in two steps.
      if (holder && !holderAlive(holder)) removeIfSame(guard, holder.ino);
      else if (Date.now() > until) throw fail("ERR_SESSION_LOCKED", `could not take ${guard}: another process is taking over the lock`);
      else sleep(1);
    }
  } catch (e) {
    fs.rmSync(mine.own, { force: true });
    throw e;
  }
}

/**
 * Lets go of a guard: its file is emptied first, so the guard reads as
 * released wherever its name is (even put back by a remover that moved it
 * aside meanwhile), then the name is unlinked only if it is still ours.
 */
function releaseGuard(guard, mine) {
  try {
    fs.truncateSync(mine.own, 0);
  } catch {}
  try {
    if (fs.lstatSync(guard).ino === mine.ino) fs.unlinkSync(guard);
  } catch {}
  fs.rmSync(mine.own, { force: true });
}

/**
 * After a crash: the helper files of this lock (`.new`, `.stale`) that a
 * process killed mid-take left, removed when that process is gone. Only on
 * a takeover, so a plain open never lists the folder.
 */
function sweep(lockFile) {
  const dir = path.dirname(lockFile);
  const prefix = `${path.basename(lockFile)}.`;
  let names;
  try {
    names = fs.readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = name.startsWith(prefix) && /^(?:takeover\.)?(\d+)-[0-9a-f]{12}\.(?:new|stale)$/.exec(name.slice(prefix.length));
    if (m && Number(m[1]) !== process.pid && !pidAlive(Number(m[1]))) fs.rmSync(path.join(dir, name), { force: true });
  }
}

const heldLocks = new Map();
process.on("exit", () => {
  for (const lock of heldLocks.keys()) {
    try {
      fs.unlinkSync(lock);
    } catch {}
  }
});

/**
 * Takes the session's lock for this process, or throws ERR_SESSION_LOCKED
 * (a live writer holds it), ERR_STORE_SYMLINK, ERR_STORE_UNWRITABLE.
 * Returns the pid of the writer whose stale lock it took over (it ended
 * without releasing it: a crash, so its last line may be torn), 0 for an
 * empty stale lock, or null when there was none. Release it with
 * releaseSessionLock.
 */
function takeSessionLock(lockFile) {
  if (heldLocks.has(lockFile)) {
    throw fail("ERR_SESSION_LOCKED", `the session is already open for writing in this process (${lockFile}); write through that journal`);
  }
  const { own, ino } = writeOwn(lockFile);
  // The pid of a writer whose lock this take removed (0 for an empty lock).
  let stale = null;
  try {
    for (let attempt = 0; attempt < 20; attempt++) {
      if (linkInto(own, lockFile)) {
        heldLocks.set(lockFile, ino);
        return stale;
      }
      const holder = readLock(lockFile);
      if (holder === null) continue; // released between our link and our look
      if (holder.young) {
        // No pid to name: an older version's lock, still being written.
        throw fail("ERR_SESSION_LOCKED", `the session's lock (${lockFile}) is empty and under ${YOUNG_MS / 1000} s old: another process is taking it; one writer at a time (an empty lock older than that is taken over)`);
      }
      if (holderAlive(holder)) {
        throw fail("ERR_SESSION_LOCKED", `the session is open for writing in process ${holder.pid} (${lockFile}); one writer at a time`);
      }
      // Stale: its process is gone (or its pid was reused). Removed under the guard only.
      const guard = `${lockFile}.takeover`;
      const mine = takeGuard(guard);
      try {
        const now = readLock(lockFile);
        if (now && now.ino === holder.ino && !holderAlive(now)) {
          removeIfSame(lockFile, holder.ino);
          sweep(lockFile);
          stale = Number.isInteger(holder.pid) ? holder.pid : 0;
        }
      } finally {
        releaseGuard(guard, mine);
      }
    }
    throw fail("ERR_SESSION_LOCKED", `could not take ${lockFile}`);
  } finally {
    fs.rmSync(own, { force: true });
  }
}

/** Releases a lock this process holds (a lock it does not hold, or no longer the same file, is left alone). */
function releaseSessionLock(lockFile) {
  const ino = heldLocks.get(lockFile);
  heldLocks.delete(lockFile);
  if (ino === undefined) return;
  try {
    if (fs.lstatSync(lockFile).ino === ino) fs.unlinkSync(lockFile);
  } catch {}
}

/** Whether a lock file is held by a writer that still runs (for `serve`'s live follow). */
function lockHeld(lockFile) {
  try {
    const holder = readLock(lockFile);
    return holder !== null && (holderAlive(holder) || holder.young);
  } catch {
    return false;
  }
}

module.exports = { takeSessionLock, releaseSessionLock, lockHeld, readLock, holderAlive, startTime };
