// Real Redis servers for the tests: Debian's redis-server (.ci/setup installs
// it), started on free loopback ports in a temporary folder and stopped when
// the test process ends. Tests that need one call `redisOrSkip(t)`.
import { spawn, spawnSync, execFileSync } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
/** The `redis` npm package the store loads (a CI tool here, a peer dependency for users). */
export const redisModule = path.join(root, ".ci/node_modules/redis");
export const available = spawnSync("redis-server", ["--version"]).status === 0 && fs.existsSync(redisModule);
export const SKIP = "redis-server or the redis npm package is absent (bash .ci/setup installs both)";

const running = new Set();
process.on("exit", () => {
  for (const p of running) p.kill("SIGKILL");
});

export async function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

function cli(port, ...args) {
  return spawnSync("redis-cli", ["-p", String(port), ...args], { encoding: "utf8" });
}

async function waitFor(check, what, ms = 10000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/**
 * One redis-server. `aof` turns on the append-only file with
 * `appendfsync always` (an acknowledged write is on disk). Returns
 * { url, port, dir, stop(signal), start() } where start() starts it again
 * on the same port and folder.
 */
export async function startRedis({ aof = false, cluster = false, port } = {}) {
  port ??= await freePort();
  const dir = fs.mkdtempSync(path.join(tmpdir(), "garuda-redis-"));
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, "--save", "", "--protected-mode", "yes"];
  if (aof) args.push("--appendonly", "yes", "--appendfsync", "always");
  else args.push("--appendonly", "no");
  if (cluster) args.push("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000");
  let proc = null;
  const server = {
    port,
    dir,
    url: `redis://127.0.0.1:${port}`,
    async start() {
      proc = spawn("redis-server", args, { stdio: "ignore" });
      running.add(proc);
      await waitFor(() => cli(port, "PING").stdout.trim() === "PONG", `redis-server on ${port}`);
    },
    /** SIGKILL by default: a crash, nothing flushed that was not already. */
    async stop(signal = "SIGKILL") {
      if (!proc) return;
      const p = proc;
      proc = null;
      running.delete(p);
      const exited = new Promise((r) => p.once("exit", r));
      p.kill(signal);
      await exited;
    },
    cli: (...a) => cli(port, ...a),
  };
  await server.start();
  return server;
}

/** A 3-master Redis Cluster on loopback. Returns { urls, stop() }. */
export async function startCluster() {
  const nodes = [];
  for (let i = 0; i < 3; i++) nodes.push(await startRedis({ cluster: true }));
  execFileSync("redis-cli", ["--cluster", "create", ...nodes.map((n) => `127.0.0.1:${n.port}`), "--cluster-replicas", "0", "--cluster-yes"], { stdio: "ignore" });
  await waitFor(() => nodes.every((n) => /cluster_state:ok/.test(n.cli("CLUSTER", "INFO").stdout)), "the cluster to be ok", 20000);
  return { urls: nodes.map((n) => n.url), nodes, stop: () => Promise.all(nodes.map((n) => n.stop())) };
}
