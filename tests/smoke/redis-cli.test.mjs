// The CLI and the viewer's server on a RedisSessionStore (--redis URL):
// list, replay, export and serve read the sessions Redis holds.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { createRequire } from "node:module";
import * as redis from "./support/redis.mjs";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);
const bin = path.join(root, "pkg/bin/garuda-session.cjs");
const agent = require(path.join(root, "pkg/node/agent.js"));
const core = require(path.join(root, "pkg/node/garuda_session.js"));
const SECRET = "rEd1s-pl4nted-S3CRET-0099";

// The CLI finds the `redis` package from its working directory, as a host's
// project would have it installed: here the CI tools' folder.
const cwd = path.join(root, ".ci");
const cli = (...args) => {
  const r = spawnSync(process.execPath, [bin, ...args], { encoding: "utf8", cwd });
  return { code: r.status, out: r.stdout, err: r.stderr };
};

test("list, replay, usage, export and serve with --redis read the sessions on Redis", { skip: redis.available ? false : redis.SKIP }, async () => {
  const server = await redis.startRedis();
  const { RedisSessionStore } = require(path.join(root, "pkg/node/redis.js"));
  const prefix = "cli:";
  const store = new RedisSessionStore({ url: server.url, prefix, redisModule: redis.redisModule, redactor: new core.Redactor({ env: { MY_API_TOKEN: SECRET } }) });
  try {
    const s = agent.startSession(store, { id: "first", model: "claude-sonnet-4-5" });
    agent.addUserMessage(s, "Fix the parser, please");
    agent.addAssistantResponse(s, { content: [{ type: "tool_use", id: "t1", name: "bash", input: { command: "env" } }], usage: { inputTokens: 100, outputTokens: 20 } }, 1, 0.01);
    agent.addToolResults(s, [{ type: "tool_result", tool_use_id: "t1", content: `MY_API_TOKEN=${SECRET}` }]);
    const child = store.openChild("first", "agent-review.toolu_9");
    child.write({ type: "start", sessionId: "agent-review-toolu_9", model: "m2" });
    child.close();
    s.journal.close();
    const r = { url: server.url, args: ["--redis", server.url, "--prefix", prefix] };

    const list = cli("list", ...r.args, "--json");
    assert.equal(list.code, 0, list.err);
    assert.deepEqual(JSON.parse(list.out).map((row) => [row.id, row.prompts]), [["first", 1]]);

    const replay = cli("replay", "first", ...r.args, "--json");
    assert.equal(replay.code, 0, replay.err);
    assert.equal(JSON.parse(replay.out).costUsd, 0.01);
    assert.equal(cli("replay", "nosuch", ...r.args).code, 2);

    const usage = cli("usage", ...r.args, "--json");
    assert.equal(usage.code, 0, usage.err);
    assert.deepEqual(JSON.parse(usage.out).sessions.map((x) => [x.id, x.outputTokens, x.costUsd]), [["first", 20, 0.01]]);

    const md = cli("export", "first", "--format", "md", ...r.args);
    assert.equal(md.code, 0, md.err);
    assert.match(md.out, /Fix the parser/);
    assert.ok(!md.out.includes(SECRET));

    const serve = spawn(process.execPath, [bin, "serve", ...r.args], { stdio: ["ignore", "pipe", "inherit"], cwd });
    try {
      const line = await new Promise((resolve) => serve.stdout.once("data", (d) => resolve(String(d))));
      const printed = /http:\/\/127\.0\.0\.1:\d+\/\S*#token=[\w-]+/.exec(line)[0];
      const token = new URLSearchParams(new URL(printed).hash.slice(1)).get("token");
      const get = (p) => fetch(new URL(printed).origin + p, { headers: { "x-garuda-token": token } });
      const index = await (await get("/files/index.json")).json();
      assert.deepEqual(index.sessions.map((x) => [x.id, x.children.map((c) => c.id)]), [["first", ["agent-review__2Etoolu__5F9"]]]);
      const journal = await (await get("/files/first.jsonl")).text();
      assert.equal(core.rebuildState(journal).prompts, 1);
      assert.ok(!journal.includes(SECRET));
      assert.match(await (await get("/files/first/agent-review__2Etoolu__5F9.jsonl")).text(), /"m2"/);
      assert.match(await (await get("/session/first")).text(), /Fix the parser/);
      assert.equal((await get("/session/nosuch")).status, 404);
    } finally {
      serve.kill();
    }
  } finally {
    store.close();
    await server.stop();
  }
});
