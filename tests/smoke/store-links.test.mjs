// The file store never works through a symbolic link and never changes the
// permissions of what it did not create. Each case was an attack or an
// accident that worked: a planted `<id>.jsonl` link made the store append
// to its target and chmod it 0600 (a fake authorized_keys here), a linked
// session or child folder was chmodded 0700 and written into, a folder made
// read-only (0500) was chmodded back and written.
import { test } from "node:test";
import assert from "node:assert/strict";
import fs from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);
const { FileSessionStore } = require(path.join(root, "pkg/node/store.js"));

const record = (text) => ({ t: "2026-12-01T00:00:00.000Z", type: "user", message: { role: "user", content: text } });
const mode = (p) => fs.lstatSync(p).mode & 0o777;

/** A sessions folder, and beside it a victim: a file (0644, with content) and a folder (0755). */
function setUp() {
  const base = fs.mkdtempSync(path.join(tmpdir(), "garuda-links-"));
  const dir = path.join(base, "sessions");
  fs.mkdirSync(dir, { mode: 0o700 });
  const victim = path.join(base, "authorized_keys");
  fs.writeFileSync(victim, "ssh-ed25519 AAAA the owner's key\n");
  fs.chmodSync(victim, 0o644);
  const victimDir = path.join(base, "elsewhere");
  fs.mkdirSync(victimDir);
  fs.chmodSync(victimDir, 0o755);
  return { base, dir, victim, victimDir };
}

/** The victims are as they were: same bytes, same modes, nothing added. */
function untouched({ victim, victimDir }) {
  assert.equal(fs.readFileSync(victim, "utf8"), "ssh-ed25519 AAAA the owner's key\n", "the link's target is not written");
  assert.equal(mode(victim), 0o644, "the link's target keeps its mode");
  assert.equal(mode(victimDir), 0o755, "the linked folder keeps its mode");
  assert.deepEqual(fs.readdirSync(victimDir), [], "nothing is written into the linked folder");
}

const symlinkRefused = (e) => e.code === "ERR_STORE_SYMLINK" && /symbolic link/.test(e.message);

test("a journal that is a symlink is refused (ERR_STORE_SYMLINK): its target is neither written nor chmodded", async () => {
  const s = setUp();
  fs.symlinkSync(s.victim, path.join(s.dir, "planted.jsonl"));
  const store = new FileSessionStore(s.dir);
  assert.throws(() => store.open("planted"), symlinkRefused);
  assert.throws(() => store.replay("planted"), symlinkRefused);
  await assert.rejects(() => store.read("planted"), symlinkRefused);
  await assert.rejects(() => store.setTitle("planted", "x"), symlinkRefused);
  assert.deepEqual(await store.list(), [], "a link is not listed as a session");
  untouched(s);
  assert.equal(fs.existsSync(path.join(s.dir, "planted.lock")), false, "the refused open left no lock");
});

test("a child journal that is a symlink is refused", () => {
  const s = setUp();
  fs.mkdirSync(path.join(s.dir, "parent"), { mode: 0o700 });
  fs.symlinkSync(s.victim, path.join(s.dir, "parent", "explore-1.jsonl"));
  assert.throws(() => new FileSessionStore(s.dir).openChild("parent", "explore-1"), symlinkRefused);
  untouched(s);
});

test("a sessions folder or a child folder that is a symlink is refused, and the folder it points to is left as it was", () => {
  const s = setUp();
  const linked = path.join(s.base, "linked-sessions");
  fs.symlinkSync(s.victimDir, linked);
  assert.throws(() => new FileSessionStore(linked).open("a"), symlinkRefused);
  untouched(s);
  fs.symlinkSync(s.victimDir, path.join(s.dir, "parent"));
  assert.throws(() => new FileSessionStore(s.dir).openChild("parent", "explore-1"), symlinkRefused);
  untouched(s);
});

test("a lock that is a symlink is refused; its target is left alone", () => {
  const s = setUp();
  fs.symlinkSync(s.victim, path.join(s.dir, "locked.lock"));
  assert.throws(() => new FileSessionStore(s.dir).open("locked"), symlinkRefused);
  untouched(s);
  assert.equal(fs.lstatSync(path.join(s.dir, "locked.lock")).isSymbolicLink(), true, "the link itself is not removed either");
});

test("a folder made read-only (0500) is refused with ERR_STORE_UNWRITABLE and stays 0500, even for root", () => {
  const s = setUp();
  fs.chmodSync(s.dir, 0o500);
  assert.throws(() => new FileSessionStore(s.dir).open("ro"), (e) => e.code === "ERR_STORE_UNWRITABLE" && /read-only/.test(e.message));
  assert.equal(mode(s.dir), 0o500, "not chmodded back");
  assert.deepEqual(fs.readdirSync(s.dir), [], "nothing written");
  fs.chmodSync(s.dir, 0o700);
});

test("modes are set on what the store creates (0700, 0600) and left alone on what it finds", () => {
  const s = setUp();
  const made = path.join(s.base, "made", "sessions");
  const store = new FileSessionStore(made);
  const j = store.open("new");
  j.write(record("one"));
  j.close();
  assert.equal(mode(made), 0o700);
  assert.equal(mode(path.join(made, "new.jsonl")), 0o600);
  // Found: the user's own 0750 folder and 0640 journal keep their modes.
  fs.chmodSync(s.dir, 0o750);
  fs.writeFileSync(path.join(s.dir, "mine.jsonl"), "");
  fs.chmodSync(path.join(s.dir, "mine.jsonl"), 0o640);
  const k = new FileSessionStore(s.dir).open("mine");
  k.write(record("two"));
  k.close();
  assert.equal(mode(s.dir), 0o750);
  assert.equal(mode(path.join(s.dir, "mine.jsonl")), 0o640);
  assert.equal(new FileSessionStore(s.dir).replay("mine").prompts, 1);
});
