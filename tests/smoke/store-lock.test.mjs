// One writer per session, with many processes opening it at the same
// instant: on a fresh session, and after a crash (a dead writer's lock
// there, in each form a lock can be left in). Every round, exactly one
// process gets the journal; the others are refused with ERR_SESSION_LOCKED;
// the journal holds one record per round, from that round's one writer; and
// nothing of the lock's own machinery is left behind.
import { test, after } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { spawn, spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const storeModule = path.join(root, "pkg/node/store.js");
const PROCESSES = 6;
// GARUDA_LOCK_ROUNDS runs more rounds, to hunt a rare race by hand.
const ROUNDS = Number(process.env.GARUDA_LOCK_ROUNDS) || 12;

// A child: opens the session when told, at the given instant (sleeping till
// just before it, then spinning, so all are runnable at once), holds it
// until told to let go.
const CHILD = `
  const { FileSessionStore } = require(${JSON.stringify(storeModule)});
  const [dir, id] = process.argv.slice(1);
  const store = new FileSessionStore(dir);
  let held = null;
  process.on("message", (m) => {
    if (m.go !== undefined) {
      const lead = m.at - Date.now() - 3;
      if (lead > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, lead);
      while (Date.now() < m.at) {}
      let code = null;
      let why = null;
      try {
        held = store.open(id);
        held.write({ t: "2026-12-01T00:00:00.000Z", type: "user", message: { role: "user", content: "round " + m.go + " pid " + process.pid } });
      } catch (e) {
        code = e.code ?? String(e);
        why = String(e.message);
        held = null;
      }
      process.send({ round: m.go, got: held !== null, code, why });
    } else if (m.release) {
      held?.close();
      held = null;
      process.send({ released: true });
    } else if (m.exit) {
      process.disconnect();
    }
  });
  process.send({ ready: true });
`;

const children = [];
after(() => {
  for (const c of children) c.kill();
});

/** The next message of a child that passes `want`. */
function next(child, want) {
  return new Promise((resolve) => {
    const on = (m) => {
      if (!want(m)) return;
      child.off("message", on);
      resolve(m);
    };
    child.on("message", on);
  });
}

/** A pid no process has now: one that just exited. */
function deadPid() {
  return spawnSync(process.execPath, ["-e", "0"]).pid;
}

/** What a crash can leave in place of the lock, by round. */
const CRASHES = [
  (lock) => fs.writeFileSync(lock, JSON.stringify({ pid: deadPid(), start: "1" })),
  (lock) => fs.writeFileSync(lock, String(deadPid())), // an older version's bare pid
  (lock) => {
    // An older version's empty lock (it died between create and write), long ago.
    fs.writeFileSync(lock, "");
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lock, old, old);
  },
  (lock) => {
    // A writer killed while taking the lock: its own file, not yet linked, and the lock of the one before.
    const dead = deadPid();
    fs.writeFileSync(`${lock}.${dead}-0123456789ab.new`, JSON.stringify({ pid: dead, start: "1" }));
    fs.writeFileSync(`${lock}.takeover.${dead}-0123456789ab.stale`, JSON.stringify({ pid: dead, start: "1" }));
    fs.writeFileSync(lock, JSON.stringify({ pid: dead, start: "1" }));
  },
  (lock) => {
    // A dead writer's lock and a takeover guard left by a remover that died too.
    fs.writeFileSync(lock, JSON.stringify({ pid: deadPid(), start: "1" }));
    fs.writeFileSync(`${lock}.takeover`, JSON.stringify({ pid: deadPid(), start: "1" }));
  },
];

async function rounds(t, crashed) {
  const dir = path.join(fs.mkdtempSync(path.join(tmpdir(), "garuda-lock-")), "sessions");
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const id = "race";
  const lock = path.join(dir, `${id}.lock`);
  const mine = [];
  for (let i = 0; i < PROCESSES; i++) {
    const c = spawn(process.execPath, ["-e", CHILD, dir, id], { stdio: ["ignore", "inherit", "inherit", "ipc"] });
    children.push(c);
    mine.push(c);
  }
  await Promise.all(mine.map((c) => next(c, (m) => m.ready)));
  const winners = [];
  for (let round = 0; round < ROUNDS; round++) {
    if (crashed) CRASHES[round % CRASHES.length](lock);
    const at = Date.now() + 60;
    const answers = await Promise.all(
      mine.map((c) => {
        const answer = next(c, (m) => m.round === round);
        c.send({ go: round, at });
        return answer.then((m) => ({ ...m, child: c }));
      }),
    );
    const got = answers.filter((a) => a.got);
    assert.equal(got.length, 1, `round ${round}${crashed ? " (after a crash)" : ""}: exactly one writer, got ${got.length}: ${JSON.stringify(answers.map(({ child, ...a }) => a))}`);
    for (const a of answers.filter((a) => !a.got)) assert.equal(a.code, "ERR_SESSION_LOCKED", `round ${round}: the others are refused with a code`);
    winners.push(got[0].child.pid);
    await Promise.all(got.map((a) => (a.child.send({ release: true }), next(a.child, (m) => m.released))));
    assert.equal(fs.existsSync(lock), false, `round ${round}: close released the lock`);
  }
  for (const c of mine) c.send({ exit: true });
  await Promise.all(mine.map((c) => new Promise((resolve) => (c.exitCode !== null ? resolve() : c.once("exit", resolve)))));
  const lines = fs.readFileSync(path.join(dir, `${id}.jsonl`), "utf8").split("\n").filter(Boolean);
  assert.deepEqual(
    lines.map((l) => JSON.parse(l).message.content),
    winners.map((pid, round) => `round ${round} pid ${pid}`),
    "one record per round, from that round's one writer, in order",
  );
  assert.deepEqual(fs.readdirSync(dir).sort(), [`${id}.jsonl`], "no lock, guard or temporary file left behind");
}

test(`${PROCESSES} processes open one fresh session at one instant, ${ROUNDS} rounds: exactly one writer each time`, (t) => rounds(t, false));

test(`${PROCESSES} processes open one session after a crash (a dead writer's lock in each form), ${ROUNDS} rounds: exactly one writer each time`, (t) =>
  rounds(t, true));

// A remover that moved a live guard aside by mistake puts it back; if its
// taker let go meanwhile, the guard that comes back is that taker's emptied
// file. It must read as released, whatever its times say (here its clock is
// a minute ahead, so no "too young to judge" rule can excuse a wait), or
// every later takeover waits on it and fails: the full suite once saw six
// processes and no writer that way.
test("a takeover guard its taker let go of (an emptied file) is taken over at once", async () => {
  const { FileSessionStore } = await import(storeModule);
  const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-lock-"));
  const lock = path.join(dir, "s.lock");
  fs.writeFileSync(lock, JSON.stringify({ pid: deadPid(), start: "1" }));
  fs.writeFileSync(`${lock}.takeover`, "");
  const ahead = new Date(Date.now() + 60_000);
  fs.utimesSync(`${lock}.takeover`, ahead, ahead);
  const journal = new FileSessionStore(dir).open("s");
  journal.close();
  assert.deepEqual(fs.readdirSync(dir).sort(), ["s.jsonl"], "the dead lock and the released guard are gone, and nothing else is left");
});
